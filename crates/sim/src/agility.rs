//! Agility: XP for distance travelled on foot, and obstacle courses.
//!
//! - **On foot** (the reference game's `tile-movement.ts`): every tile a player walks or runs
//!   counts; each [`AGILITY_TILES_PER_GRANT`] tiles pay [`AGILITY_XP_PER_GRANT`] XP (half a point a
//!   tile, paid in batches so the client is not told of XP every step). What is left over carries
//!   on; dying loses it. Teleports, respawns and obstacle crossings are not walking.
//! - **Obstacles** (content `agility.json`, shown as entities of kind `obstacle`): `interact` walks
//!   the player next to one, then tries it once. Below its level the try is refused
//!   (`level_too_low`). Otherwise the chance to cross is the obstacle's `successChance` plus
//!   [`SUCCESS_PER_LEVEL`] for each Agility level above its level, at most 1, rolled on the world's
//!   dice: success lands the player on its `destination` with its XP; failure leaves them where
//!   they stand and costs `failDamage` hitpoints (a fall can kill). Both are narrated on the game
//!   channel.
//! - **Laps**: crossing a course's obstacles in order, first to last, pays the course's `lapXp` at
//!   the last one (falls in between do not matter). Crossing any other obstacle (or dying) starts
//!   the count over.

use std::collections::HashMap;

use rand::Rng;
use wayfarer_content::Skill;
use wayfarer_protocol::ws::{codes, Entity, EntityKind, TilePos};

use crate::actions::{Flow, Intent};
use crate::entities::Handle;
use crate::events::Event;
use crate::grid::Class;
use crate::skills::Xp;
use crate::world::World;

/// Tiles walked per payment of distance XP.
pub const AGILITY_TILES_PER_GRANT: u32 = 100;
/// XP paid per [`AGILITY_TILES_PER_GRANT`] tiles (1 XP per 2 tiles, as the reference game).
pub const AGILITY_XP_PER_GRANT: u32 = 50;
/// Added to an obstacle's success chance per Agility level above its level.
pub const SUCCESS_PER_LEVEL: f64 = 0.01;

/// A player's walking towards the next payment, and their lap in progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AgilityProgress {
    /// Tiles walked since the last payment.
    pub tiles: u32,
    /// (course, index of the next obstacle of a lap in progress).
    pub lap: Option<(usize, usize)>,
}

/// The obstacles standing in the world: entity → (course, obstacle) of content.
#[derive(Debug, Clone, Default)]
pub(crate) struct Obstacles {
    by_handle: HashMap<Handle, (usize, usize)>,
}

/// The chance to cross an obstacle of `level` needing `base` at that level, at Agility `agility`.
pub fn crossing_chance(base: f64, level: u32, agility: u32) -> f64 {
    let above = f64::from(agility.saturating_sub(level));
    (base + above * SUCCESS_PER_LEVEL).clamp(0.0, 1.0)
}

impl World {
    /// Puts every obstacle of the content's courses into the world.
    pub(crate) fn spawn_obstacles(&mut self) {
        let now = self.now();
        let content = self.content.clone();
        for (c, course) in content.agility_courses.iter().enumerate() {
            for (o, obstacle) in course.obstacles.iter().enumerate() {
                let tile = crate::layout::tile_of(&obstacle.position);
                let id = self.next_id("obs");
                let handle = self.entities.insert(Entity {
                    id,
                    kind: EntityKind::Obstacle,
                    x: tile.x,
                    z: tile.z,
                    name: Some(obstacle.name.clone()),
                    health: None,
                    max_health: None,
                    item_id: None,
                    quantity: None,
                    // What it looks like (`log_balance`, `net`, …), for drawing.
                    resource_type: Some(obstacle.kind.clone()),
                    depleted: None,
                    type_id: Some(obstacle.id.clone()),
                    worn: None,
                    open: None,
                    side: None,
                    quest: None,
                });
                self.grid.insert(handle, tile, Class::Static, now);
                self.obstacles.by_handle.insert(handle, (c, o));
            }
        }
    }

    /// New content: the old obstacles leave the world (the grid was rebuilt without them) and the
    /// new content's stand in their place.
    pub(crate) fn respawn_obstacles(&mut self) {
        for handle in std::mem::take(&mut self.obstacles.by_handle).into_keys() {
            self.entities.retire(handle);
        }
        for player in &mut self.players {
            player.agility.lap = None;
        }
        self.spawn_obstacles();
    }

    /// Player `index` walked `tiles` tiles this tick: distance XP when a batch is complete.
    pub(crate) fn walked(&mut self, index: usize, tiles: u32, events: &mut Vec<Event>) {
        if tiles == 0 {
            return;
        }
        let progress = &mut self.players[index].agility;
        progress.tiles = progress.tiles.saturating_add(tiles);
        let batches = progress.tiles / AGILITY_TILES_PER_GRANT;
        if batches == 0 {
            return;
        }
        progress.tiles %= AGILITY_TILES_PER_GRANT;
        let xp = Xp::from_points(batches.saturating_mul(AGILITY_XP_PER_GRANT));
        self.grant_xp(index, Skill::Agility, xp, events);
    }

    /// Player `index`, next to the intent's obstacle, tries to cross it.
    pub(crate) fn cross_obstacle(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let Some(&(c, o)) = self.obstacles.by_handle.get(&intent.target) else {
            return Flow::Done;
        };
        let content = self.content.clone();
        let course = &content.agility_courses[c];
        let obstacle = &course.obstacles[o];
        let agility = u32::from(self.players[index].skills.level(Skill::Agility));
        if agility < obstacle.level {
            let id = self.players[index].id.clone();
            Self::reject(
                &id,
                codes::LEVEL_TOO_LOW,
                format!(
                    "You need an Agility level of {} to attempt the {}.",
                    obstacle.level,
                    obstacle.name.to_lowercase()
                ),
                intent.reference,
                events,
            );
            return Flow::Done;
        }
        let chance = crossing_chance(obstacle.success_chance, obstacle.level, agility);
        let crossed = self.rng.random_bool(chance);
        if !crossed {
            // A fall is tried again: the lap goes on.
            let (min, max) = obstacle.fail_damage;
            let rolled = if max > min {
                self.rng.random_range(min..=max)
            } else {
                min
            };
            let (health, max_health) = self.player_health(index);
            let damage = i64::from(rolled).min(health.max(0));
            let left = health - damage;
            let text = format!(
                "You slip and fall from the {}, taking {damage} damage.",
                obstacle.name.to_lowercase()
            );
            self.narrate(index, text, events);
            if damage > 0 {
                self.set_player_health(index, left);
                self.note_hit(index);
                let obstacle_id = self
                    .entities
                    .get(intent.target)
                    .map(|b| b.wire.id.clone())
                    .unwrap_or_default();
                let handle = self.players[index].handle;
                let shown = crate::combat::Shown {
                    damage: rolled,
                    health: left,
                    max_health,
                    projectile: None,
                };
                self.show_hit(&obstacle_id, handle, shown, events);
                if left <= 0 {
                    self.player_died(index, crate::combat::Killer::Nothing, events);
                }
            }
            return Flow::Done;
        }
        let to = self.walkable_near(crate::layout::tile_of(&obstacle.destination));
        self.place_player(index, to);
        let text = format!("You cross the {} safely.", obstacle.name.to_lowercase());
        self.narrate(index, text, events);
        self.grant_xp(index, Skill::Agility, Xp::from_f64(obstacle.xp), events);
        let lap = self.players[index].agility.lap;
        let next = match lap {
            _ if o == 0 => Some((c, 1)),
            Some((lc, ln)) if lc == c && ln == o => Some((c, o + 1)),
            _ => None,
        };
        if next == Some((c, course.obstacles.len())) && course.obstacles.len() > 1 {
            self.players[index].agility.lap = None;
            self.narrate(
                index,
                format!("You complete a lap of the {}.", course.name),
                events,
            );
            self.grant_xp(index, Skill::Agility, Xp::from_f64(course.lap_xp), events);
        } else {
            self.players[index].agility.lap = next;
        }
        Flow::Done
    }

    /// The obstacles standing in the world, as clients see them.
    pub fn obstacles(&self) -> Vec<Entity> {
        let mut out: Vec<Entity> = self
            .obstacles
            .by_handle
            .keys()
            .filter_map(|h| self.entities.get(*h).map(|b| (*b.wire).clone()))
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// The tile an obstacle of content lands a player on (for tests and tools): `None` for an
    /// unknown obstacle id.
    pub fn obstacle_destination(&self, obstacle_id: &str) -> Option<TilePos> {
        self.content
            .agility_courses
            .iter()
            .flat_map(|c| c.obstacles.iter())
            .find(|o| o.id == obstacle_id)
            .map(|o| self.walkable_near(crate::layout::tile_of(&o.destination)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chance_grows_a_point_a_level_up_to_certainty() {
        assert_eq!(crossing_chance(0.8, 1, 1), 0.8);
        assert!((crossing_chance(0.8, 1, 11) - 0.9).abs() < 1e-9);
        assert_eq!(crossing_chance(0.8, 1, 99), 1.0);
        assert_eq!(
            crossing_chance(0.8, 10, 5),
            0.8,
            "below the level is refused elsewhere"
        );
    }
}
