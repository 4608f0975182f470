//! What others see a player wear: the visible slots of their equipment ([`WORN_SLOTS`]) on their
//! entity (`worn`, seen by newcomers in `added`) and, in the tick it changed, in their `changed`
//! entry for everyone already looking. The map is built once per changed player per tick and
//! shared (`Arc`) by the entity and every viewer's update.

use std::sync::Arc;

use wayfarer_protocol::ws::{Worn, WORN_SLOTS};

use crate::equipment::{slot_name, Equipment};
use crate::world::World;

/// The visible part of `equipment`; `None` when nothing visible is worn.
pub(crate) fn worn_of(equipment: &Equipment) -> Option<Arc<Worn>> {
    let worn: Worn = visible(equipment)
        .map(|(slot, item)| (slot.to_owned(), item.to_owned()))
        .collect();
    (!worn.is_empty()).then(|| Arc::new(worn))
}

/// The visible slots of `equipment` with their item ids, in slot-name order as [`Worn`] keeps them
/// (a two-handed weapon is stored as the weapon, so no name repeats).
fn visible(equipment: &Equipment) -> impl Iterator<Item = (&'static str, &str)> {
    equipment
        .iter()
        .map(|(slot, stack)| (slot_name(slot), stack.item_id.as_str()))
        .filter(|(name, _)| WORN_SLOTS.contains(name))
}

/// True when `shown` is what `equipment` looks like, compared without building a map: most
/// equipment changes (an arrow fired, a stack topped up) change nothing anyone sees.
fn looks_like(equipment: &Equipment, shown: Option<&Worn>) -> bool {
    let shown_len = shown.map_or(0, |w| w.len());
    let mut count = 0;
    for (slot, item) in visible(equipment) {
        count += 1;
        if shown.and_then(|w| w.get(slot)).map(String::as_str) != Some(item) {
            return false;
        }
    }
    count == shown_len
}

impl World {
    /// After player `index`'s equipment changed this tick: when what others see of it changed,
    /// the entity carries the new map and the tick's change of it tells those already looking.
    pub(crate) fn show_worn(&mut self, index: usize) {
        let now = self.now();
        let player = &self.players[index];
        let handle = player.handle;
        let Some(body) = self.entities.get_mut(handle) else {
            return;
        };
        if looks_like(&player.equipment, body.wire.worn.as_deref()) {
            return;
        }
        let worn = worn_of(&player.equipment);
        body.wire_mut().worn = worn.clone();
        let tile = body.tile();
        let told = worn.unwrap_or_default();
        self.entities
            .record_change(handle, now, |c| c.worn = Some(told));
        self.grid.touch(tile, now);
    }
}

#[cfg(test)]
mod tests {
    use wayfarer_content::EquipSlot;

    use super::*;
    use crate::inventory::Stack;

    fn wearing(items: &[(EquipSlot, &str)]) -> Equipment {
        Equipment::from_stacks(items.iter().map(|(slot, id)| {
            (
                *slot,
                Stack {
                    item_id: (*id).to_owned(),
                    quantity: 1,
                },
            )
        }))
    }

    #[test]
    fn only_visible_slots_are_shown() {
        let e = wearing(&[
            (EquipSlot::TwoHanded, "bronze_2h_sword"),
            (EquipSlot::Arrows, "bronze_arrow"),
            (EquipSlot::Ring, "gold_ring"),
            (EquipSlot::Helmet, "iron_full_helm"),
        ]);
        let worn = worn_of(&e).expect("something visible");
        assert_eq!(
            worn.iter()
                .map(|(s, i)| (s.as_str(), i.as_str()))
                .collect::<Vec<_>>(),
            [("helmet", "iron_full_helm"), ("weapon", "bronze_2h_sword")]
        );
        assert!(looks_like(&e, Some(&worn)));
        assert!(worn_of(&wearing(&[(EquipSlot::Ring, "gold_ring")])).is_none());
    }

    #[test]
    fn looks_like_notices_every_difference() {
        let e = wearing(&[(EquipSlot::Weapon, "bronze_sword")]);
        assert!(!looks_like(&e, None));
        assert!(looks_like(&Equipment::new(), None));
        assert!(looks_like(&Equipment::new(), Some(&Worn::new())));
        let other = Worn::from([("weapon".to_owned(), "iron_sword".to_owned())]);
        assert!(!looks_like(&e, Some(&other)));
        let more = Worn::from([
            ("weapon".to_owned(), "bronze_sword".to_owned()),
            ("shield".to_owned(), "wooden_shield".to_owned()),
        ]);
        assert!(!looks_like(&e, Some(&more)));
    }
}
