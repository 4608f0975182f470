//! Prayer (`prayers.json`): switching prayers on and off, the drain of prayer points each tick, altars
//! that restore them, and the boosts the active prayers give the combat formulas.
//!
//! Rules (sources and worked examples in `docs/mechanics.md`, "Prayer"):
//! - a player has at most their Prayer level in points (a new character 1); points are whole;
//! - switching a prayer on needs its level and at least one point, and switches its conflicts off;
//! - each tick the sum of the active prayers' `drainEffect` is added to a drain counter; each time
//!   the counter exceeds the drain resistance `60 + 2 × equipment prayer bonus`, the resistance is
//!   taken from it and one point is drained (OSRS Wiki *Prayer*, "Prayer drain mechanics");
//! - at 0 points every prayer switches off;
//! - praying at an altar (a station of type `altar`, or an NPC whose services include `altar`)
//!   restores the points to the Prayer level;
//! - dying switches every prayer off and restores the points, as the genre's respawn does;
//! - a Prayer level gained adds as many points.

use wayfarer_content::Skill;
use wayfarer_protocol::text::quoted;
use wayfarer_protocol::ws::codes;

use crate::combat::formulas::PrayerBoosts;
use crate::events::Event;
use crate::game_messages;
use crate::world::World;

/// The drain resistance with no prayer bonus (OSRS Wiki *Prayer*: `60 + 2 × bonus`).
pub const PRAYER_DRAIN_RESISTANCE_BASE: i64 = 60;
/// What each point of equipment prayer bonus adds to the drain resistance.
pub const PRAYER_DRAIN_RESISTANCE_PER_BONUS: i64 = 2;
/// The station type (and NPC service) that restores prayer points.
pub const ALTAR: &str = "altar";

/// A player's prayer: points, the active prayers and the drain counter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PrayerState {
    /// Points left (at most the Prayer level).
    pub points: u32,
    /// The active prayers' ids, in the order they were switched on.
    pub active: Vec<String>,
    /// Drain accumulated towards the next point (below the resistance between ticks).
    pub counter: i64,
}

/// The drain resistance for an equipment prayer bonus: `60 + 2 × bonus`, at least 1 (a large
/// negative bonus cannot make the counter run backwards or divide by nothing).
pub fn drain_resistance(prayer_bonus: i32) -> i64 {
    (PRAYER_DRAIN_RESISTANCE_BASE + PRAYER_DRAIN_RESISTANCE_PER_BONUS * i64::from(prayer_bonus))
        .max(1)
}

/// One tick of drain: `drain` (the sum of the active prayers' drain effects) is added to `counter`;
/// while the counter exceeds `resistance` one point goes and the resistance is taken from the
/// counter. Returns the points drained (never more than `points`).
pub fn drain_tick(counter: &mut i64, drain: i64, resistance: i64, points: u32) -> u32 {
    *counter += drain.max(0);
    let mut drained = 0;
    while *counter > resistance {
        *counter -= resistance;
        drained += 1;
    }
    drained.min(points)
}

impl World {
    /// Player `index`'s maximum prayer points: the Prayer level.
    pub(crate) fn max_prayer_points(&self, index: usize) -> u32 {
        u32::from(self.players[index].skills.level(Skill::Prayer))
    }

    /// The boosts of player `index`'s active prayers, for the combat formulas.
    pub(crate) fn prayer_boosts(&self, index: usize) -> PrayerBoosts {
        PrayerBoosts::of(
            self.players[index]
                .prayer
                .active
                .iter()
                .filter_map(|id| self.content.prayers.get(id)),
        )
    }

    /// `prayer:toggle`.
    pub(crate) fn toggle_prayer(
        &mut self,
        id: &str,
        prayer_id: &str,
        active: bool,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let content = self.content.clone();
        let Some(prayer) = content.prayers.get(prayer_id) else {
            return Self::reject(
                id,
                codes::UNKNOWN_PRAYER,
                format!("there is no prayer {}", quoted(prayer_id)),
                reference,
                events,
            );
        };
        let player = &mut self.players[index];
        let on = player.prayer.active.iter().any(|p| p == prayer_id);
        if !active {
            if on {
                player.prayer.active.retain(|p| p != prayer_id);
                player.dirty.prayer = true;
            }
            return;
        }
        if on {
            return;
        }
        let level = u32::from(player.skills.level(Skill::Prayer));
        if level < prayer.level {
            return Self::reject(
                id,
                codes::PRAYER_LEVEL_TOO_LOW,
                format!(
                    "you need a Prayer level of {} to use {}",
                    prayer.level, prayer.name
                ),
                reference,
                events,
            );
        }
        if player.prayer.points == 0 {
            return Self::reject(
                id,
                codes::NO_PRAYER_POINTS,
                "you have run out of prayer points; recharge them at an altar",
                reference,
                events,
            );
        }
        // Switching one on switches off what it conflicts with (either side naming the other).
        player.prayer.active.retain(|other| {
            !prayer.conflicts.contains(other)
                && !content
                    .prayers
                    .get(other)
                    .is_some_and(|o| o.conflicts.iter().any(|c| c == prayer_id))
        });
        player.prayer.active.push(prayer_id.to_owned());
        player.dirty.prayer = true;
    }

    /// The actions phase for prayer: every player with an active prayer is drained one tick.
    pub(crate) fn advance_prayers(&mut self, events: &mut Vec<Event>) {
        for index in 0..self.players.len() {
            if self.players[index].prayer.active.is_empty() {
                continue;
            }
            let drain: i64 = self.players[index]
                .prayer
                .active
                .iter()
                .filter_map(|id| self.content.prayers.get(id))
                .map(|p| i64::from(p.drain_effect))
                .sum();
            let bonus = self.players[index].equipment.bonuses(&self.content).prayer;
            let resistance = drain_resistance(bonus);
            let player = &mut self.players[index];
            let points = player.prayer.points;
            let drained = drain_tick(&mut player.prayer.counter, drain, resistance, points);
            if drained > 0 {
                player.prayer.points -= drained;
                player.dirty.prayer = true;
            }
            if player.prayer.points == 0 {
                let off = std::mem::take(&mut player.prayer.active);
                player.dirty.prayer = true;
                let names: Vec<&str> = off
                    .iter()
                    .map(|id| {
                        self.content
                            .prayers
                            .get(id)
                            .map_or(id.as_str(), |p| &p.name)
                    })
                    .collect();
                self.narrate(index, game_messages::prayer_ran_out(&names), events);
            }
        }
    }

    /// Praying at an altar: the points back to the Prayer level.
    pub(crate) fn pray_at_altar(&mut self, index: usize, events: &mut Vec<Event>) {
        let max = self.max_prayer_points(index);
        let player = &mut self.players[index];
        if player.prayer.points < max {
            player.prayer.points = max;
            player.dirty.prayer = true;
            self.narrate(index, game_messages::prayer_recharged(), events);
        } else {
            self.narrate(index, game_messages::prayer_already_full(), events);
        }
    }

    /// Death or anything else that ends every prayer and restores the points (respawn).
    pub(crate) fn reset_prayer(&mut self, index: usize) {
        let max = self.max_prayer_points(index);
        let player = &mut self.players[index];
        player.prayer.active.clear();
        player.prayer.points = max;
        player.dirty.prayer = true;
    }

    /// A Prayer level gained adds as many points.
    pub(crate) fn prayer_levelled(&mut self, index: usize, levels: u32) {
        let max = self.max_prayer_points(index);
        let player = &mut self.players[index];
        player.prayer.points = (player.prayer.points + levels).min(max);
        player.dirty.prayer = true;
    }

    /// A player's prayer points, maximum and active prayers (in the order switched on).
    pub fn player_prayer(&self, player: &str) -> Option<(u32, u32, Vec<String>)> {
        let index = *self.player_index.get(player)?;
        let p = &self.players[index].prayer;
        Some((p.points, self.max_prayer_points(index), p.active.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resistance_is_sixty_plus_twice_the_bonus() {
        assert_eq!(drain_resistance(0), 60);
        assert_eq!(drain_resistance(5), 70);
        assert_eq!(drain_resistance(-10), 40);
        assert_eq!(drain_resistance(-100), 1);
    }

    #[test]
    fn a_point_goes_each_time_the_counter_exceeds_the_resistance() {
        // Drain 6 against 60: the counter is 60 after ten ticks (not beyond), 66 after eleven.
        let mut counter = 0;
        let drained: u32 = (0..10).map(|_| drain_tick(&mut counter, 6, 60, 99)).sum();
        assert_eq!((drained, counter), (0, 60));
        assert_eq!(drain_tick(&mut counter, 6, 60, 99), 1);
        assert_eq!(counter, 6);
        // A drain larger than the resistance takes several points in one tick.
        let mut counter = 0;
        assert_eq!(drain_tick(&mut counter, 130, 60, 99), 2);
        assert_eq!(counter, 10);
        // Never more than what is left.
        let mut counter = 0;
        assert_eq!(drain_tick(&mut counter, 500, 60, 3), 3);
    }
}
