//! What is near a player: the NPCs, resources and ground items within a radius, nearest first, read
//! from the spatial grid (for questions asked between ticks, such as an agent's quick actions).

use wayfarer_protocol::ws::Entity;

use crate::map::chebyshev;
use crate::World;

impl World {
    /// The NPCs, resources, stations, fires and ground items within `radius_tiles` (Chebyshev) of
    /// the player, with their distance, nearest first (ties by id); `None` when the player is not in
    /// the world. Other players are left out.
    pub fn entities_near(&self, player: &str, radius_tiles: i32) -> Option<Vec<(Entity, u32)>> {
        let centre = self.player_tile(player)?;
        let span = self.grid.span(centre, radius_tiles);
        let mut found = Vec::new();
        for cz in span.z0..=span.z1 {
            for cx in span.x0..=span.x1 {
                let cell = self.grid.cell(cx, cz);
                for occupant in cell.npcs.iter().chain(&cell.statics).chain(&cell.ground) {
                    let distance = chebyshev(centre, occupant.tile);
                    if distance > radius_tiles.max(0) as u32 {
                        continue;
                    }
                    if let Some(body) = self.entities.get(occupant.handle) {
                        found.push((Entity::clone(&body.wire), distance));
                    }
                }
            }
        }
        found.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.id.cmp(&b.0.id)));
        Some(found)
    }
}
