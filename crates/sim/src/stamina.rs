//! Run energy ("stamina"): 10,000 units shown as a whole percentage, drained by each tick a player
//! runs (more with weight carried) and regained on each tick the player walks or stands, faster with
//! Agility — the classic game's rules (docs/mechanics.md, "Run energy"). With less than one
//! percent left a running player walks.

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
}

impl Default for RunEnergy {
    fn default() -> Self {
        RunEnergy {
            units: MAX_RUN_ENERGY,
            reported: MAX_RUN_ENERGY / RUN_ENERGY_PER_PERCENT,
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

    /// A tick spent running while carrying `weight_kg`.
    pub fn drain(&mut self, weight_kg: f64) {
        self.units = self.units.saturating_sub(drain_per_tick(weight_kg));
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

/// What a player carries, in kilograms: inventory and worn items, by content's item weights.
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
    fn regeneration_grows_with_agility() {
        assert_eq!(regen_per_tick(1), 8);
        assert_eq!(regen_per_tick(6), 9);
        assert_eq!(regen_per_tick(99), 24);
    }

    #[test]
    fn percent_is_rounded_down_and_changes_are_reported_once() {
        let mut energy = RunEnergy::default();
        assert_eq!(energy.take_change(), None);
        energy.drain(0.0);
        assert_eq!(energy.percent(), 99);
        assert_eq!(energy.take_change(), Some(99));
        assert_eq!(energy.take_change(), None);
        energy.set_units(99);
        assert!(!energy.can_run());
    }
}
