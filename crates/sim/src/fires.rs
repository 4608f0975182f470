//! Firemaking: logs and a tinderbox make a fire on the player's tile (a firemaking recipe made
//! with `make`, `light_fire` or a tinderbox used on logs: see `making`). Lighting is an attempt
//! every recipe `ticks` until one succeeds; the fire is a resource entity (`resourceType:
//! "fire"`) that players can cook on, burns for the recipe's `fireTicks`, and does not block its
//! tile. As in the genre, the player then steps aside: west if free, else east, north, south (north is −z).

use wayfarer_protocol::ws::TilePos;

use crate::world::World;

/// Where a player steps after lighting a fire, in order of preference.
pub const STEP_ASIDE_ORDER: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

impl World {
    /// The first tile in [`STEP_ASIDE_ORDER`] the player can step to from `tile`.
    pub(crate) fn step_aside_tile(&self, tile: TilePos) -> Option<TilePos> {
        STEP_ASIDE_ORDER
            .iter()
            .map(|(dx, dz)| TilePos {
                x: tile.x + dx,
                z: tile.z + dz,
            })
            .find(|to| self.layout.map.can_step(tile, *to) && !self.fire_on(*to))
    }
}
