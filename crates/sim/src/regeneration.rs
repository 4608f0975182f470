//! Health regeneration: the classic games' one hitpoint a minute (OSRS Wiki, *Hitpoints*: "one
//! hitpoint every minute"; the reference game's `HealthRegenSystem`: 1 HP every 100 ticks).
//!
//! - On every tick that is a multiple of the player's interval, a living player below full health
//!   who was not hit in the last [`REGEN_COOLDOWN_TICKS`] regains 1 hitpoint. The interval is
//!   [`REGEN_INTERVAL_TICKS`] (100 ticks, 60 s) divided by the product of the active prayers'
//!   `healthRegenMultiplier` (bundled Rapid Heal: 2, so every 50 ticks), rounded to whole
//!   [`REGEN_STEP_TICKS`] and at least one step.
//! - The schedule is the world's tick number (as the reference game's global timer), so the work
//!   is done on one tick in [`REGEN_STEP_TICKS`] only, and then only for players below full health.

use crate::world::World;

/// Ticks between hitpoints regained with no bonus (100 ticks = 60 s).
pub const REGEN_INTERVAL_TICKS: u64 = 100;
/// Ticks after being hit during which nothing regenerates (the reference game's 17 ticks, 10.2 s).
pub const REGEN_COOLDOWN_TICKS: u64 = 17;
/// Intervals are whole multiples of this; regeneration is looked at on these ticks only.
pub const REGEN_STEP_TICKS: u64 = 10;

/// A player's regeneration state.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Regen {
    /// The tick of the last hit taken (0: never).
    pub last_hit_at: u64,
}

/// Ticks between hitpoints for a rate multiplier (1.0: none).
pub fn regen_interval_ticks(multiplier: f64) -> u64 {
    let multiplier = if multiplier.is_finite() && multiplier > 0.0 {
        multiplier
    } else {
        1.0
    };
    let steps = (REGEN_INTERVAL_TICKS as f64 / multiplier / REGEN_STEP_TICKS as f64).round();
    // At least one step; at most the base interval's steps a hundred times over.
    (steps.clamp(1.0, 1_000.0) as u64) * REGEN_STEP_TICKS
}

impl World {
    /// Player `index` took a hit (a miss counts: the fight is on): regeneration pauses.
    pub(crate) fn note_hit(&mut self, index: usize) {
        self.players[index].regen.last_hit_at = self.now();
    }

    /// The regeneration rate multiplier of player `index`'s active prayers.
    fn regen_multiplier(&self, index: usize) -> f64 {
        self.players[index]
            .prayer
            .active
            .iter()
            .filter_map(|id| self.content.prayers.get(id))
            .map(|p| p.health_regen_multiplier)
            .product()
    }

    /// The regeneration phase (in the actions phase, after fighting).
    pub(crate) fn advance_regeneration(&mut self) {
        let now = self.now();
        if !now.is_multiple_of(REGEN_STEP_TICKS) {
            return;
        }
        for index in 0..self.players.len() {
            let (health, max) = self.player_health(index);
            if health <= 0 || health >= max {
                continue;
            }
            let regen = self.players[index].regen;
            if regen.last_hit_at > 0 && now - regen.last_hit_at < REGEN_COOLDOWN_TICKS {
                continue;
            }
            if now.is_multiple_of(regen_interval_ticks(self.regen_multiplier(index))) {
                self.set_player_health(index, health + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_follow_the_multiplier_in_whole_steps() {
        assert_eq!(regen_interval_ticks(1.0), 100);
        assert_eq!(regen_interval_ticks(2.0), 50);
        assert_eq!(regen_interval_ticks(3.0), 30);
        assert_eq!(regen_interval_ticks(1_000.0), 10);
        assert_eq!(regen_interval_ticks(0.0), 100);
        assert_eq!(regen_interval_ticks(f64::NAN), 100);
    }
}
