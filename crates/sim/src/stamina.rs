//! Run energy ("stamina"): 10,000 units shown as a whole percentage, drained by each tick a player
//! runs (more with weight carried) and regained on each tick the player walks or stands, faster with
//! Agility — the classic game's rules (docs/mechanics.md, "Run energy"). With less than one
//! percent left a running player walks.

use std::num::NonZeroU32;

use wayfarer_content::Content;
use wayfarer_protocol::Skill;

use crate::equipment::Equipment;
use crate::inventory::Inventory;
use crate::skills::Skills;

/// Full run energy, in units (shown as 100%).
pub const MAX_RUN_ENERGY: u32 = 10_000;
/// Units per shown percent; running needs at least one percent.
pub const RUN_ENERGY_PER_PERCENT: u32 = 100;
/// Units a tick of running costs with nothing carried.
pub const RUN_DRAIN_BASE: u32 = 64;
/// Carried weight (kg) beyond which running costs no more.
pub const RUN_DRAIN_WEIGHT_CAP_KG: f64 = 64.0;
/// Units regained on a tick without running, before Agility.
pub const RUN_REGEN_BASE: u32 = 8;
/// Agility levels per extra unit regained a tick.
pub const RUN_REGEN_AGILITY_STEP: u8 = 6;

/// One player's run energy and what the client was last told of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunEnergy {
    units: u32,
    /// The percent last reported (`world:update.stamina`), to report only changes.
    reported: u32,
    /// What a tick of running costs with what the player carries ([`drain_per_tick`]), kept while
    /// that stays the same: a runner pays it every tick, and weighing is an item lookup per stack.
    /// `None` until first paid, and again once a change to what they carry is reported
    /// ([`RunEnergy::forget_drain`]).
    drain: Option<NonZeroU32>,
}

impl Default for RunEnergy {
    fn default() -> Self {
        RunEnergy {
            units: MAX_RUN_ENERGY,
            reported: MAX_RUN_ENERGY / RUN_ENERGY_PER_PERCENT,
            drain: None,
        }
    }
}

impl RunEnergy {
    /// The shown percentage, 0–100 (rounded down, as the classic game shows it).
    pub fn percent(&self) -> u32 {
        self.units / RUN_ENERGY_PER_PERCENT
    }

    /// Whether a running step is allowed now.
    pub fn can_run(&self) -> bool {
        self.units >= RUN_ENERGY_PER_PERCENT
    }

    /// Whether a tick without running changes anything (the common case of a rested player is free).
    pub fn is_full(&self) -> bool {
        self.units >= MAX_RUN_ENERGY
    }

    /// A tick spent running while carrying `weigh()` kg: weighed when what the player carries
    /// has `changed` since the drain was last weighed (or was forgotten), else the drain kept.
    pub fn run_a_tick(&mut self, changed: bool, weigh: impl Fn() -> f64) {
        let drain = match self.drain {
            Some(drain) if !changed => drain.get(),
            _ => {
                let drain = drain_per_tick(weigh());
                self.drain = NonZeroU32::new(drain);
                drain
            }
        };
        // Every test that runs checks that no change to what a player carries goes unflagged
        // (a stale drain would cost the wrong energy, silently).
        debug_assert_eq!(
            drain,
            drain_per_tick(weigh()),
            "a change to what a runner carries was not flagged"
        );
        self.units = self.units.saturating_sub(drain);
    }

    /// What the player carries changed: the next tick of running weighs it again.
    pub fn forget_drain(&mut self) {
        self.drain = None;
    }

    /// A tick spent walking or standing at Agility level `agility`.
    pub fn regenerate(&mut self, agility: u8) {
        self.units = (self.units + regen_per_tick(agility)).min(MAX_RUN_ENERGY);
    }

    /// The percentage to report, when it changed since it was last reported.
    pub fn take_change(&mut self) -> Option<u32> {
        let now = self.percent();
        (now != self.reported).then(|| {
            self.reported = now;
            now
        })
    }

    /// Sets the energy directly (tests and admin tools).
    pub fn set_units(&mut self, units: u32) {
        self.units = units.min(MAX_RUN_ENERGY);
    }
}

/// Units lost in one tick of running: 64 plus one per whole kilogram carried, weight counted
/// between 0 and 64 kg (the classic game's (0.64 + min(weight, 64) / 100) percent).
pub fn drain_per_tick(weight_kg: f64) -> u32 {
    let kg = weight_kg.clamp(0.0, RUN_DRAIN_WEIGHT_CAP_KG);
    // Clamped to 0..=64 just above, so the conversion cannot overflow or go negative.
    RUN_DRAIN_BASE + kg as u32
}

/// Units regained in one tick without running: 8 plus one per 6 Agility levels (the classic
/// game's (8 + floor(Agility / 6)) / 100 percent a tick).
pub fn regen_per_tick(agility: u8) -> u32 {
    RUN_REGEN_BASE + u32::from(agility / RUN_REGEN_AGILITY_STEP)
}

/// What a player carries, in kilograms: inventory and worn items, by content's item weights (an
/// item content does not know weighs nothing). Summed only when what a runner carries changes
/// ([`RunEnergy::run_a_tick`] keeps the drain in between), so content's ordered item table serves.
pub(crate) fn carried_weight_kg(
    content: &Content,
    inventory: &Inventory,
    equipment: &Equipment,
) -> f64 {
    let weight = |item_id: &str, quantity: u32| {
        content
            .item(item_id)
            .map_or(0.0, |item| item.weight * f64::from(quantity))
    };
    let held: f64 = inventory
        .stacks()
        .map(|(_, stack)| weight(stack.item_id.as_str(), stack.quantity))
        .sum();
    let worn: f64 = equipment
        .iter()
        .map(|(_, stack)| weight(stack.item_id.as_str(), stack.quantity))
        .sum();
    held + worn
}

/// The Agility level that sets a player's regeneration.
pub(crate) fn agility(skills: &Skills) -> u8 {
    skills.level(Skill::Agility)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drain_grows_with_weight_up_to_64_kg() {
        assert_eq!(drain_per_tick(-3.0), 64);
        assert_eq!(drain_per_tick(0.0), 64);
        assert_eq!(drain_per_tick(10.9), 74);
        assert_eq!(drain_per_tick(64.0), 128);
        assert_eq!(drain_per_tick(500.0), 128);
    }

    #[test]
    fn carried_weight_is_held_and_worn_items_by_content_weight() {
        use crate::inventory::Stack;
        use wayfarer_content::EquipSlot;
        let content = wayfarer_content::load_bundled();
        let mut weighted = content.items.iter().filter(|(_, item)| item.weight > 0.0);
        let (held, held_item) = weighted.next().expect("a bundled item with weight");
        let (worn, worn_item) = weighted.next().expect("a second bundled item with weight");
        let stack = |id: &str, quantity| Stack {
            item_id: id.to_owned(),
            quantity,
        };
        let inventory = Inventory::from_stacks([
            (0, stack(held, 3)),
            // An item content does not know (removed by a reload) weighs nothing.
            (5, stack("no_such_item", 7)),
        ])
        .unwrap();
        let equipment = Equipment::from_stacks([(EquipSlot::Weapon, stack(worn, 1))]);
        let kg = carried_weight_kg(&content, &inventory, &equipment);
        assert_eq!(kg, held_item.weight * 3.0 + worn_item.weight);
        assert_eq!(
            carried_weight_kg(&content, &Inventory::new(), &Equipment::new()),
            0.0
        );
    }

    #[test]
    fn regeneration_grows_with_agility() {
        assert_eq!(regen_per_tick(1), 8);
        assert_eq!(regen_per_tick(6), 9);
        assert_eq!(regen_per_tick(99), 24);
    }

    #[test]
    fn the_drain_is_weighed_again_only_after_a_change() {
        let mut energy = RunEnergy::default();
        let weighings = std::cell::Cell::new(0);
        let run = |energy: &mut RunEnergy, changed: bool, kg: f64| {
            let before = energy.units;
            weighings.set(0);
            energy.run_a_tick(changed, || {
                weighings.set(weighings.get() + 1);
                kg
            });
            // A debug build weighs once more, to check the kept drain.
            let checks = usize::from(cfg!(debug_assertions));
            (before - energy.units, weighings.get() - checks)
        };
        assert_eq!(
            run(&mut energy, false, 10.0),
            (74, 1),
            "first paid: weighed"
        );
        assert_eq!(run(&mut energy, false, 10.0), (74, 0), "kept");
        assert_eq!(run(&mut energy, true, 20.0), (84, 1), "a change this tick");
        assert_eq!(run(&mut energy, false, 20.0), (84, 0), "kept again");
        energy.forget_drain();
        assert_eq!(run(&mut energy, false, 30.0), (94, 1), "a change reported");
    }

    #[test]
    fn percent_is_rounded_down_and_changes_are_reported_once() {
        let mut energy = RunEnergy::default();
        assert_eq!(energy.take_change(), None);
        energy.run_a_tick(false, || 0.0);
        assert_eq!(energy.percent(), 99);
        assert_eq!(energy.take_change(), Some(99));
        assert_eq!(energy.take_change(), None);
        energy.set_units(99);
        assert!(!energy.can_run());
    }
}
