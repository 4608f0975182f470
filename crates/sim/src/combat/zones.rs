//! Which content area a tile lies in, and whether players may fight each other there. Kept apart
//! because both attacking (PvP allowed?) and dying (gravestone or public drop?) ask it.

use wayfarer_content::Area;
use wayfarer_protocol::ws::TilePos;

use crate::world::World;

/// Whether `tile` lies within the area's bounds, as the map opens them (a tile is the floor of a
/// world coordinate, so bounds 0..=40 cover tiles 0..=40).
pub(crate) fn covers(area: &Area, tile: TilePos) -> bool {
    let b = &area.bounds;
    let (x, z) = (f64::from(tile.x), f64::from(tile.z));
    b.min_x.floor() <= x && x <= b.max_x.floor() && b.min_z.floor() <= z && z <= b.max_z.floor()
}

impl World {
    /// Whether players may attack each other on `tile`: some area covering it has PvP enabled.
    pub(crate) fn is_pvp(&self, tile: TilePos) -> bool {
        self.content
            .areas
            .values()
            .any(|area| area.pvp && covers(area, tile))
    }

    /// Whether `tile` lies in a PvP area (for tests and tools).
    pub fn is_pvp_tile(&self, tile: TilePos) -> bool {
        self.is_pvp(tile)
    }
}
