//! NPCs and mobs: fixed NPCs stand where content puts them; mobs appear around their spawner and wander
//! near the tile they appeared on. Wandering uses the world's seeded generator and the classic naive
//! step (diagonal when allowed, else along one axis), so an NPC costs a few map lookups per tick and no
//! path search. Fighting, leashing and respawning live in `combat::npc_ai`; a mob busy with any of
//! them does not wander.

use rand::Rng;
use wayfarer_protocol::ws::{Entity, EntityKind, TilePos};

use crate::combat::NpcFight;
use crate::entities::Handle;
use crate::grid::Class;
use crate::layout::{MobPlacement, NpcPlacement};
use crate::map::TileMap;
use crate::world::World;

/// One in this many ticks an idle wandering mob picks a new destination.
pub const WANDER_ODDS: u32 = 8;
/// Random tiles tried when placing a mob before it goes on the walkable tile nearest its spawner.
pub const MOB_PLACEMENT_ATTEMPTS: u32 = 32;

/// Where an NPC came from, so a content reload can tell what changed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Origin {
    /// A fixed NPC of an area.
    Fixed(NpcPlacement),
    /// One of the mobs of a spawner.
    Mob(MobPlacement),
}

/// One NPC or mob.
#[derive(Debug)]
pub(crate) struct NpcState {
    pub handle: Handle,
    pub origin: Origin,
    /// The tile it wanders around.
    pub home: TilePos,
    /// How far it strays from `home`; 0 stands still.
    pub wander_radius: i32,
    pub tiles_per_tick: u32,
    /// Where it is walking to.
    pub destination: Option<TilePos>,
    /// Its fight: target, swing timer, leash return, respawn timer.
    pub fight: NpcFight,
}

/// The next tile on the naive way from `at` towards `to`: diagonal when that step is allowed, else
/// along x, else along z; `None` when blocked.
pub(crate) fn naive_step(map: &TileMap, at: TilePos, to: TilePos) -> Option<TilePos> {
    let dx = (to.x - at.x).signum();
    let dz = (to.z - at.z).signum();
    let candidates = [
        TilePos {
            x: at.x + dx,
            z: at.z + dz,
        },
        TilePos {
            x: at.x + dx,
            z: at.z,
        },
        TilePos {
            x: at.x,
            z: at.z + dz,
        },
    ];
    candidates
        .into_iter()
        .find(|&next| next != at && map.can_step(at, next))
}

pub(crate) fn npc_entity(
    id: String,
    npc_id: &str,
    name: &str,
    health: i64,
    tile: TilePos,
) -> Entity {
    Entity {
        name: Some(name.to_owned()),
        health: Some(health),
        max_health: Some(health),
        type_id: Some(npc_id.to_owned()),
        ..Entity::at(id, EntityKind::Npc, tile.x, tile.z)
    }
}

impl World {
    /// Spawns a fixed NPC.
    pub(crate) fn spawn_static_npc(&mut self, placement: &NpcPlacement) {
        let (npc_id, name, health) = (&placement.npc_id, &placement.name, placement.health);
        let handle = self.insert_npc(npc_id, name, health, placement.tile);
        self.npcs.push(NpcState {
            handle,
            origin: Origin::Fixed(placement.clone()),
            home: placement.tile,
            wander_radius: 0,
            tiles_per_tick: 1,
            destination: None,
            fight: NpcFight::default(),
        });
    }

    /// A new NPC entity of `npc_id` on `tile`, in the world's entities and grid.
    pub(crate) fn insert_npc(
        &mut self,
        npc_id: &str,
        name: &str,
        health: i64,
        tile: TilePos,
    ) -> Handle {
        let now = self.now();
        let id = self.next_id("npc");
        let handle = self
            .entities
            .insert(npc_entity(id, npc_id, name, health, tile));
        self.grid.insert(handle, tile, Class::Npc, now);
        handle
    }

    /// Spawns every mob of a spawner on random walkable tiles within its radius.
    pub(crate) fn spawn_mobs(&mut self, placement: &MobPlacement) {
        for _ in 0..placement.count {
            let tile = self.mob_tile(placement);
            let handle =
                self.insert_npc(&placement.npc_id, &placement.name, placement.health, tile);
            self.npcs.push(NpcState {
                handle,
                origin: Origin::Mob(placement.clone()),
                home: tile,
                wander_radius: placement.wander_radius,
                tiles_per_tick: placement.tiles_per_tick,
                destination: None,
                fight: NpcFight::default(),
            });
        }
    }

    /// A walkable tile within the spawner's radius, or the walkable tile nearest its centre.
    fn mob_tile(&mut self, placement: &MobPlacement) -> TilePos {
        let r = placement.spawn_radius;
        for _ in 0..MOB_PLACEMENT_ATTEMPTS {
            let tile = TilePos {
                x: placement.centre.x + self.rng.random_range(-r..=r),
                z: placement.centre.z + self.rng.random_range(-r..=r),
            };
            if self.layout.map.is_walkable(tile) {
                return tile;
            }
        }
        self.walkable_near(placement.centre)
    }

    /// NPC AI for one tick: idle wanderers sometimes pick a destination near home; walkers step.
    pub(crate) fn advance_npcs(&mut self) {
        let now = self.now();
        for npc in &mut self.npcs {
            if npc.wander_radius == 0 || npc.fight.busy() {
                continue;
            }
            let Some(start) = self.entities.get(npc.handle).map(|b| b.tile()) else {
                continue;
            };
            if npc.destination.is_none() {
                if self.rng.random_range(0..WANDER_ODDS) != 0 {
                    continue;
                }
                let r = npc.wander_radius;
                let goal = TilePos {
                    x: npc.home.x + self.rng.random_range(-r..=r),
                    z: npc.home.z + self.rng.random_range(-r..=r),
                };
                if goal == start || !self.layout.map.is_walkable(goal) {
                    continue;
                }
                npc.destination = Some(goal);
            }
            let Some(goal) = npc.destination else {
                continue;
            };
            let mut at = start;
            for _ in 0..npc.tiles_per_tick {
                match naive_step(&self.layout.map, at, goal) {
                    Some(next) => at = next,
                    None => break,
                }
                if at == goal {
                    break;
                }
            }
            // Arrived, or stuck against something: idle again.
            if at == goal || at == start {
                npc.destination = None;
            }
            if at != start {
                self.entities.set_tile(npc.handle, at, now);
                self.grid.relocate(npc.handle, start, at, Class::Npc, now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tests::from_ascii;

    #[test]
    fn naive_steps_go_diagonal_then_slide_along_walls() {
        let map = from_ascii(&["....", "....", "...."]);
        let t = |x, z| TilePos { x, z };
        assert_eq!(naive_step(&map, t(0, 0), t(3, 2)), Some(t(1, 1)));
        assert_eq!(naive_step(&map, t(0, 0), t(3, 0)), Some(t(1, 0)));
        let walled = from_ascii(&["..#.", "..#.", "...."]);
        assert_eq!(naive_step(&walled, t(1, 0), t(3, 0)), None);
        assert_eq!(naive_step(&walled, t(1, 0), t(3, 2)), Some(t(1, 1)));
    }
}
