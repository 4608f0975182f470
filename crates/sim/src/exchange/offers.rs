//! What each side puts up on a two-screen exchange, a trade's offers and a duel's stakes alike:
//! entries by inventory slot, what putting one up and taking it back mean, and how the list
//! follows the inventory it was made from. The screens, the accepts and the commit are the
//! exchange's (`exchange/mod.rs`).

use wayfarer_protocol::trade::codes;

use crate::inventory::{Inventory, Stack, INVENTORY_SLOTS};
use crate::world::World;

/// One inventory slot put up (all or part of its stack).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    /// The inventory slot (its item stays there, locked, until the commit).
    pub slot: usize,
    /// The item.
    pub item_id: String,
    /// How many of the slot's stack.
    pub quantity: u32,
}

/// One side's entries, in slot order, at most one per slot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OfferedSlots(Vec<Offered>);

/// Why a slot cannot be put up: the error code and the message for the player.
pub(crate) type Refusal = (&'static str, String);

impl OfferedSlots {
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, Offered> {
        self.0.iter()
    }

    /// Whether `slot` is put up (its item is locked while the exchange lasts).
    pub(crate) fn holds_slot(&self, slot: usize) -> bool {
        self.0.iter().any(|o| o.slot == slot)
    }

    /// Puts `entry` up, replacing what its slot put up before.
    pub(crate) fn put(&mut self, entry: Offered) {
        match self.0.iter_mut().find(|o| o.slot == entry.slot) {
            Some(o) => *o = entry,
            None => {
                self.0.push(entry);
                self.0.sort_by_key(|o| o.slot);
            }
        }
    }

    /// Takes back the entry of `slot`; `false` when that slot put up nothing.
    pub(crate) fn take_back(&mut self, slot: i64) -> bool {
        let before = self.0.len();
        self.0.retain(|o| i64::try_from(o.slot).ok() != Some(slot));
        self.0.len() != before
    }

    /// Matches the entries to what `inventory` holds now: an entry whose slot no longer holds its
    /// item is dropped, one whose slot holds less is capped. `true` when anything changed.
    pub(crate) fn follow(&mut self, inventory: &Inventory) -> bool {
        let len = self.0.len();
        self.0.retain(|o| {
            inventory
                .get(o.slot)
                .is_some_and(|held| held.item_id == o.item_id)
        });
        let mut changed = self.0.len() != len;
        for o in &mut self.0 {
            let held = inventory.get(o.slot).map_or(0, |s| s.quantity);
            if o.quantity > held {
                o.quantity = held;
                changed = true;
            }
        }
        changed
    }

    /// The entries as stacks (what moves when the exchange completes).
    pub(crate) fn stacks(&self) -> Vec<Stack> {
        self.0
            .iter()
            .map(|o| Stack {
                item_id: o.item_id.clone(),
                quantity: o.quantity,
            })
            .collect()
    }
}

impl<'a> IntoIterator for &'a OfferedSlots {
    type Item = &'a Offered;
    type IntoIter = std::slice::Iter<'a, Offered>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl World {
    /// What `slot` of the inventory of the player at `index` puts up at `quantity` (the whole
    /// stack when `None`, capped at the stack): refused when the slot is empty or out of range, the
    /// item untradeable, or the quantity below 1. `verb` words the untradeable refusal
    /// ("traded", "staked").
    pub(crate) fn offer_from_slot(
        &self,
        index: usize,
        slot: i64,
        quantity: Option<i64>,
        verb: &str,
    ) -> Result<Offered, Refusal> {
        let held = usize::try_from(slot)
            .ok()
            .filter(|&s| s < INVENTORY_SLOTS)
            .and_then(|s| self.players[index].inventory.get(s).map(|st| (s, st)));
        let Some((slot_index, stack)) = held else {
            return Err((
                codes::INVALID_SLOT,
                format!("inventory slot {slot} is empty or does not exist"),
            ));
        };
        let tradeable = self
            .content
            .items
            .get(stack.item_id.as_str())
            .is_some_and(|i| i.tradeable);
        if !tradeable {
            return Err((
                codes::UNTRADEABLE_ITEM,
                format!("{} cannot be {verb}", self.item_called(&stack.item_id)),
            ));
        }
        let quantity = match quantity {
            None => stack.quantity,
            Some(q) if q <= 0 => {
                return Err((
                    codes::INVALID_QUANTITY,
                    "a quantity must be at least 1".into(),
                ))
            }
            Some(q) => u32::try_from(q).unwrap_or(u32::MAX).min(stack.quantity),
        };
        Ok(Offered {
            slot: slot_index,
            item_id: stack.item_id.clone(),
            quantity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(slot: usize, item: &str, quantity: u32) -> Offered {
        Offered {
            slot,
            item_id: item.into(),
            quantity,
        }
    }

    #[test]
    fn put_replaces_a_slots_entry_and_keeps_slot_order() {
        let mut offer = OfferedSlots::default();
        offer.put(entry(5, "logs", 3));
        offer.put(entry(1, "coins", 10));
        offer.put(entry(5, "logs", 1));
        let slots: Vec<_> = offer.iter().map(|o| (o.slot, o.quantity)).collect();
        assert_eq!(slots, [(1, 10), (5, 1)]);
        assert!(offer.holds_slot(5) && !offer.holds_slot(2));
    }

    #[test]
    fn take_back_says_whether_the_slot_was_put_up() {
        let mut offer = OfferedSlots::default();
        offer.put(entry(2, "logs", 3));
        assert!(!offer.take_back(3));
        assert!(!offer.take_back(-1));
        assert!(offer.take_back(2));
        assert_eq!(offer.iter().count(), 0);
    }

    #[test]
    fn follow_drops_moved_items_and_caps_smaller_stacks() {
        let mut inventory = Inventory::default();
        inventory
            .add(
                "logs",
                2,
                crate::inventory::Stacking::Stackable { max_quantity: 100 },
            )
            .expect("room");
        let mut offer = OfferedSlots::default();
        offer.put(entry(0, "logs", 5));
        offer.put(entry(1, "coins", 1));
        assert!(offer.follow(&inventory));
        assert_eq!(
            offer.stacks(),
            [Stack {
                item_id: "logs".into(),
                quantity: 2
            }]
        );
        assert!(!offer.follow(&inventory), "a matching offer is left alone");
    }
}
