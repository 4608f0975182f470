//! `flee`: run away from whoever is attacking. The player drops their own attack and runs
//! ([`crate::RUN_TILES_PER_TICK`] tiles a tick) to a walkable tile up to [`FLEE_DISTANCE_TILES`]
//! away, straight away from the nearest attacker. NPCs chasing the player keep chasing at their own
//! speed until their leash makes them give up; other players must walk after them.

use wayfarer_protocol::ws::{codes, TilePos};

use crate::events::Event;
use crate::map::chebyshev;
use crate::world::World;

/// How far a flight aims (Chebyshev tiles from where it starts).
pub const FLEE_DISTANCE_TILES: i32 = 8;

impl World {
    /// The tiles of everything attacking player `index`: NPCs with it as their target and players
    /// with an attack intent on it.
    pub(crate) fn attackers_of(&self, index: usize) -> Vec<TilePos> {
        let handle = self.players[index].handle;
        let npcs = self
            .npcs
            .iter()
            .filter(|n| n.fight.target == Some(handle))
            .filter_map(|n| self.tile_of(n.handle));
        let players = self
            .players
            .iter()
            .filter(|p| {
                p.intent
                    .as_ref()
                    .is_some_and(|i| i.kind.is_attack() && i.target == handle)
            })
            .filter_map(|p| self.tile_of(p.handle));
        npcs.chain(players).collect()
    }

    /// `flee`: run away from whoever is attacking.
    pub(crate) fn flee(&mut self, index: usize, reference: Option<u64>, events: &mut Vec<Event>) {
        let id = self.players[index].id.clone();
        let Some(at) = self.tile_of(self.players[index].handle) else {
            return;
        };
        let Some(from) = self
            .attackers_of(index)
            .into_iter()
            .min_by_key(|t| (chebyshev(at, *t), t.x, t.z))
        else {
            return Self::reject(
                &id,
                codes::CANNOT_DO,
                "nobody is attacking you",
                reference,
                events,
            );
        };
        let (mut dx, dz) = ((at.x - from.x).signum(), (at.z - from.z).signum());
        if dx == 0 && dz == 0 {
            dx = 1;
        }
        let goal = (1..=FLEE_DISTANCE_TILES)
            .rev()
            .map(|k| TilePos {
                x: at.x + dx * k,
                z: at.z + dz * k,
            })
            .find(|t| self.layout.map.is_walkable(*t))
            .or_else(|| {
                self.layout.map.nearest_walkable(TilePos {
                    x: at.x + dx * FLEE_DISTANCE_TILES,
                    z: at.z + dz * FLEE_DISTANCE_TILES,
                })
            })
            .filter(|t| *t != at && chebyshev(*t, from) > chebyshev(at, from));
        let Some(goal) = goal else {
            return Self::reject(
                &id,
                codes::CANNOT_DO,
                "there is nowhere to run",
                reference,
                events,
            );
        };
        let player = &mut self.players[index];
        player.intent = None;
        player.walk.clear();
        player.walk.request(goal, true);
    }
}
