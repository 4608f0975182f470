//! What happens to resource entities over time, whoever is using them: depleted nodes come back
//! after their respawn time, procedural fishing spots move now and then (as the genre's do, so one
//! spot is not camped forever), and lit fires burn out, leaving ashes.
//!
//! Runs once a tick in the actions phase, after every player has acted.

use wayfarer_content::Skill;
use wayfarer_protocol::ws::TilePos;

use crate::actions::IntentKind;
use crate::entities::Handle;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::grid::Class;
use crate::ground::{Spill, GROUND_LIFETIME_TICKS};
use crate::inventory::Stack;
use crate::layout::Placed;
use crate::world::World;

/// Fewest ticks a fishing spot stays put (about 2.5 minutes).
pub const FISHING_SPOT_MIN_STAY_TICKS: u64 = 250;
/// Most ticks a fishing spot stays put (5 minutes).
pub const FISHING_SPOT_MAX_STAY_TICKS: u64 = 500;
/// How far (Chebyshev tiles) from its home tile a fishing spot may move.
pub const FISHING_SPOT_MOVE_RADIUS: i32 = 6;
/// Random tiles tried for a move before the spot stays where it is for another while.
pub const FISHING_SPOT_MOVE_ATTEMPTS: u32 = 32;
/// The item a burnt-out fire leaves on the ground, when content has it.
pub const ASHES: &str = "ashes";

/// The changing state of one resource entity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ResourceLife {
    /// Depleted until this tick (`None`: available).
    pub respawn_at: Option<u64>,
    /// The tick a fishing spot next moves (scheduled on its first tick).
    pub move_at: Option<u64>,
    /// The tick a fire goes out.
    pub expires_at: Option<u64>,
    /// How many times a fishing spot has moved (feeds its move schedule).
    pub moves: u64,
    /// A door stands open until this tick (`doors`); `None`: closed.
    pub closes_at: Option<u64>,
}

/// SplitMix64: a fixed, platform-independent mix, so spot schedules depend only on the world seed,
/// the spot's key and how often it has moved, never on the order players did things in.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn key_hash(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl World {
    /// The position in `self.resources` of the resource entity `handle`.
    pub(crate) fn resource_position(&self, handle: Handle) -> Option<usize> {
        self.resources.iter().position(|r| r.handle == handle)
    }

    /// Whether the resource at `position` is depleted.
    pub(crate) fn is_depleted(&self, position: usize) -> bool {
        self.resources[position].life.respawn_at.is_some()
    }

    /// Shows the resource at `position` as depleted (or back) to everyone in view.
    fn set_depleted(&mut self, position: usize, depleted: bool) {
        let now = self.now();
        let handle = self.resources[position].handle;
        let Some(body) = self.entities.get_mut(handle) else {
            return;
        };
        body.wire_mut().depleted = Some(depleted);
        let tile = body.tile();
        self.entities
            .record_change(handle, now, |c| c.depleted = Some(depleted));
        self.grid.touch(tile, now);
    }

    /// Depletes the resource at `position` for its node's respawn time (at least one tick).
    pub(crate) fn deplete(&mut self, position: usize, respawn_ticks: u32) {
        let now = self.now();
        let respawn_at = now + u64::from(respawn_ticks).max(1);
        self.resources[position].life.respawn_at = Some(respawn_at);
        let placement = &self.resources[position].placement;
        self.ledger.depleted(
            placement.tile,
            &placement.key,
            &placement.resource_id,
            respawn_at,
        );
        self.set_depleted(position, true);
    }

    /// The tick after `now` at which a fishing spot that has moved `moves` times moves again.
    fn next_move_at(&self, key: &str, moves: u64, now: u64) -> u64 {
        let span = FISHING_SPOT_MAX_STAY_TICKS - FISHING_SPOT_MIN_STAY_TICKS + 1;
        let draw = mix(self.seed ^ key_hash(key) ^ mix(moves));
        now + FISHING_SPOT_MIN_STAY_TICKS + draw % span
    }

    /// Whether the resource at `position` is a fishing spot that moves: a procedural 1×1 one.
    fn moves_about(&self, position: usize) -> bool {
        let placement = &self.resources[position].placement;
        placement.is_procedural_spot()
            && placement.extent.0 == placement.extent.1
            && self
                .content
                .gathering
                .get(&placement.resource_id)
                .is_some_and(|n| n.skill == Skill::Fishing)
    }

    /// The resource step of the actions phase: respawns, fishing-spot moves and fires going out.
    pub(crate) fn advance_resources(&mut self, events: &mut Vec<Event>) {
        let now = self.now();
        let mut position = 0;
        while position < self.resources.len() {
            if self.resources[position].placement.what == Placed::Door {
                self.advance_door(position);
                position += 1;
                continue;
            }
            let life = self.resources[position].life.clone();
            if life.expires_at.is_some_and(|at| at <= now) {
                self.put_out_fire(position);
                continue;
            }
            if life.respawn_at.is_some_and(|at| at <= now) {
                self.resources[position].life.respawn_at = None;
                let placement = &self.resources[position].placement;
                self.ledger.respawned(placement.tile, &placement.key);
                self.set_depleted(position, false);
            }
            if self.moves_about(position) {
                match life.move_at {
                    None => {
                        let key = self.resources[position].placement.key.clone();
                        self.resources[position].life.move_at =
                            Some(self.next_move_at(&key, life.moves, now));
                    }
                    Some(at) if at <= now => self.move_fishing_spot(position, events),
                    Some(_) => {}
                }
            }
            position += 1;
        }
    }

    /// Moves the fishing spot at `position` to a free tile near its home; whoever was fishing there
    /// stops.
    fn move_fishing_spot(&mut self, position: usize, events: &mut Vec<Event>) {
        let now = self.now();
        let resource = &self.resources[position];
        let (handle, home, key) = (
            resource.handle,
            resource.placement.tile,
            resource.placement.key.clone(),
        );
        let moves = resource.life.moves + 1;
        let Some(from) = self.entities.get(handle).map(|b| b.tile()) else {
            return;
        };
        let on_water = self.layout.map.is_water(from);
        let occupied: Vec<TilePos> = self
            .players
            .iter()
            .filter_map(|p| self.entities.get(p.handle).map(|b| b.tile()))
            .collect();
        let r = FISHING_SPOT_MOVE_RADIUS;
        let span = (2 * r + 1) as u64;
        let base = mix(self.seed ^ key_hash(&key) ^ mix(moves).rotate_left(17));
        let to = (0..u64::from(FISHING_SPOT_MOVE_ATTEMPTS))
            .map(|n| {
                let d = mix(base.wrapping_add(n));
                TilePos {
                    x: home.x + (d % span) as i32 - r,
                    z: home.z + ((d / span) % span) as i32 - r,
                }
            })
            .find(|t| {
                if on_water {
                    // A spot on water moves along the shore, onto water beside walkable ground.
                    return *t != from
                        && self.layout.map.is_shore_water(*t)
                        && self
                            .resources
                            .iter()
                            .all(|r| self.entities.get(r.handle).is_none_or(|b| b.tile() != *t));
                }
                *t != from
                    && *t != self.layout.spawn
                    && self.layout.map.is_walkable(*t)
                    && !occupied.contains(t)
                    && !self.fire_on(*t)
            });
        self.resources[position].life.moves = moves;
        self.resources[position].life.move_at = Some(self.next_move_at(&key, moves, now));
        let Some(to) = to else {
            return;
        };
        if !on_water {
            self.layout.map.set(from, true);
            self.layout.map.set(to, false);
        }
        if let Some(old) = self.entities.set_tile(handle, to, now) {
            self.grid.relocate(handle, old, to, Class::Static, now);
        }
        for index in 0..self.players.len() {
            let fishing = self.players[index]
                .intent
                .as_ref()
                .is_some_and(|i| i.target == handle && i.kind == IntentKind::Gather && i.engaged);
            if fishing {
                self.players[index].intent = None;
                self.narrate(index, crate::game_messages::fishing_spot_moved(), events);
            }
        }
    }

    /// A fire on `tile` (lit by a player) that burns for `ticks`.
    pub(crate) fn spawn_fire(&mut self, tile: TilePos, ticks: u32) {
        let now = self.now();
        let placement = crate::layout::ResourcePlacement {
            what: Placed::Fire,
            key: format!("fire/{}", self.next_serial + 1),
            resource_id: "fire".into(),
            name: "Fire".into(),
            resource_type: "fire".into(),
            tile,
            extent: (tile, tile),
            side: 0,
        };
        self.spawn_resource(&placement);
        if let Some(fire) = self.resources.last_mut() {
            fire.life.expires_at = Some(now + u64::from(ticks).max(1));
        }
    }

    /// Whether a fire burns on `tile`.
    pub(crate) fn fire_on(&self, tile: TilePos) -> bool {
        self.resources.iter().any(|r| {
            r.placement.what == Placed::Fire
                && self
                    .entities
                    .get(r.handle)
                    .is_some_and(|b| b.tile() == tile)
        })
    }

    /// The fire at `position` goes out and leaves ashes.
    fn put_out_fire(&mut self, position: usize) {
        let resource = self.resources.remove(position);
        if let Some(tile) = self.entities.retire(resource.handle) {
            let now = self.now();
            self.grid.remove(resource.handle, tile, Class::Static, now);
            if self.content.items.contains_key(ASHES) {
                let ashes = Stack {
                    item_id: ASHES.into(),
                    quantity: 1,
                };
                self.flow_on_ground(
                    FlowKind::Entered,
                    "fireRemains",
                    &ashes.item_id,
                    ashes.quantity,
                );
                self.spawn_ground_items(
                    tile,
                    ashes,
                    None,
                    0,
                    GROUND_LIFETIME_TICKS,
                    Spill::Appeared,
                );
            }
        }
    }

    /// After a content reload: fishing spots go back home (the new map blocks their home tile).
    pub(crate) fn resources_reloaded(&mut self, now: u64) {
        self.doors_reloaded();
        for position in 0..self.resources.len() {
            let resource = &mut self.resources[position];
            if resource.placement.what == Placed::Node {
                resource.life.move_at = None;
                let (handle, home) = (resource.handle, resource.placement.tile);
                self.entities.set_tile(handle, home, now);
            }
        }
    }
}
