//! Zones (CONTRACT.md section 10): which content area covers a tile, and what that allows. One
//! place answers it for every area the content has — the hand-placed rectangles of
//! `world-areas.json` and round ones (a generated town's safe radius, [`wayfarer_content::Circle`]).
//!
//! - The **zone** of a tile is the smallest area covering it (a town inside a wilderness is the
//!   town), or none. Its flags decide: `safeZone` (no NPC is aggressive to a player there, and
//!   players may not attack each other: `safe_zone`), `pvpEnabled` (players may attack each other).
//! - Each player carries their current zone, recomputed only when their tile changes
//!   ([`World::place_player`]) through a coarse cell index of the areas, never by scanning all areas
//!   per player per tick. A change is told to the player as `zone:enter` at the end of the tick.

use std::collections::HashMap;

use wayfarer_content::Area;
use wayfarer_protocol::ws::{TilePos, ZoneEnter};

use crate::world::World;

/// Side of the index's cells in tiles: an area is listed in every cell it touches.
const ZONE_CELL_TILES: i32 = 32;

/// A player's zone: an index into [`ZoneIndex::areas`], or none.
pub(crate) type ZoneId = Option<u16>;

/// The areas of the content, smallest first, with the cells each touches.
#[derive(Debug, Clone, Default)]
pub(crate) struct ZoneIndex {
    /// Smallest first, so the first covering one is a tile's zone.
    areas: Vec<Area>,
    /// Cell → indices into `areas` (ascending, so smallest first).
    cells: HashMap<(i32, i32), Vec<u16>>,
}

fn cell_of(tile: TilePos) -> (i32, i32) {
    (
        tile.x.div_euclid(ZONE_CELL_TILES),
        tile.z.div_euclid(ZONE_CELL_TILES),
    )
}

/// The ground area an area covers, for "smallest first".
fn size(area: &Area) -> f64 {
    match area.circle {
        Some(c) => std::f64::consts::PI * c.radius * c.radius,
        None => {
            let b = &area.bounds;
            (b.max_x - b.min_x + 1.0) * (b.max_z - b.min_z + 1.0)
        }
    }
}

impl ZoneIndex {
    /// The index of `areas` (content order breaks ties of size, by id).
    pub fn build<'a>(areas: impl Iterator<Item = &'a Area>) -> ZoneIndex {
        let mut areas: Vec<Area> = areas.cloned().collect();
        areas.sort_by(|a, b| size(a).total_cmp(&size(b)).then_with(|| a.id.cmp(&b.id)));
        areas.truncate(usize::from(u16::MAX));
        let mut cells: HashMap<(i32, i32), Vec<u16>> = HashMap::new();
        for (i, area) in areas.iter().enumerate() {
            let b = &area.bounds;
            let clamp = |v: f64| v.floor().clamp(-1.0e7, 1.0e7) as i32;
            let (min, max) = (
                cell_of(TilePos {
                    x: clamp(b.min_x),
                    z: clamp(b.min_z),
                }),
                cell_of(TilePos {
                    x: clamp(b.max_x),
                    z: clamp(b.max_z),
                }),
            );
            // Content bounds are validated to be a map's size; a huge area is listed in no more
            // cells than a map has.
            if i64::from(max.0 - min.0 + 1) * i64::from(max.1 - min.1 + 1) > 1 << 20 {
                continue;
            }
            for cx in min.0..=max.0 {
                for cz in min.1..=max.1 {
                    cells.entry((cx, cz)).or_default().push(i as u16);
                }
            }
        }
        ZoneIndex { areas, cells }
    }

    /// The zone of `tile`: the smallest area covering it.
    pub fn zone_at(&self, tile: TilePos) -> ZoneId {
        self.cells
            .get(&cell_of(tile))?
            .iter()
            .copied()
            .find(|&i| self.areas[usize::from(i)].covers_tile(tile.x, tile.z))
    }

    /// The area of a zone.
    pub fn area(&self, zone: ZoneId) -> Option<&Area> {
        zone.and_then(|i| self.areas.get(usize::from(i)))
    }

    /// Whether `zone` is safe.
    pub fn is_safe(&self, zone: ZoneId) -> bool {
        self.area(zone).is_some_and(|a| a.safe_zone)
    }

    /// Whether players may fight in `zone`.
    pub fn is_pvp(&self, zone: ZoneId) -> bool {
        self.area(zone).is_some_and(|a| a.pvp)
    }

    /// `zone:enter` for `zone`.
    pub fn message(&self, zone: ZoneId) -> ZoneEnter {
        match self.area(zone) {
            Some(area) => ZoneEnter {
                area_id: Some(area.id.clone()),
                name: Some(area.name.clone()),
                safe: area.safe_zone,
                pvp: area.pvp,
            },
            None => ZoneEnter {
                area_id: None,
                name: None,
                safe: false,
                pvp: false,
            },
        }
    }
}

impl World {
    /// Player `index` stands on `tile` now: their zone follows, and a change is reported.
    pub(crate) fn update_zone(&mut self, index: usize, tile: TilePos) {
        let zone = self.zones.zone_at(tile);
        let player = &mut self.players[index];
        if player.zone != zone {
            player.zone = zone;
            player.dirty.zone = true;
        }
    }

    /// Player `index`'s zone.
    pub(crate) fn zone_of_player(&self, index: usize) -> ZoneId {
        self.players[index].zone
    }

    /// Whether players may attack each other on `tile`.
    pub(crate) fn is_pvp(&self, tile: TilePos) -> bool {
        self.zones.is_pvp(self.zones.zone_at(tile))
    }

    /// Whether `tile` lies in a PvP area (for tests and tools).
    pub fn is_pvp_tile(&self, tile: TilePos) -> bool {
        self.is_pvp(tile)
    }

    /// Whether `tile` lies in a safe area (for tests and tools).
    pub fn is_safe_tile(&self, tile: TilePos) -> bool {
        self.zones.is_safe(self.zones.zone_at(tile))
    }

    /// The id of the area a player stands in (their zone), if any.
    pub fn player_area(&self, player: &str) -> Option<&str> {
        let index = *self.player_index.get(player)?;
        self.zones
            .area(self.zone_of_player(index))
            .map(|a| a.id.as_str())
    }
}

#[cfg(test)]
mod tests {
    use wayfarer_content::{Area, AreaGroup, Bounds, Circle};

    use super::*;

    fn area(id: &str, bounds: (f64, f64, f64, f64), circle: Option<Circle>) -> Area {
        Area {
            id: id.into(),
            name: id.into(),
            description: String::new(),
            group: AreaGroup::Level1Areas,
            difficulty_level: 1,
            bounds: Bounds {
                min_x: bounds.0,
                max_x: bounds.1,
                min_z: bounds.2,
                max_z: bounds.3,
            },
            biome_type: None,
            safe_zone: circle.is_some(),
            pvp: circle.is_none(),
            spawn_point: None,
            npcs: Vec::new(),
            resources: Vec::new(),
            mob_spawns: Vec::new(),
            stations: Vec::new(),
            duel_arena: false,
            town_size: None,
            features: Default::default(),
            fishing: None,
            circle,
        }
    }

    #[test]
    fn the_smallest_covering_area_is_the_zone_and_circles_are_round() {
        let wild = area("wild", (-100.0, 100.0, -100.0, 100.0), None);
        let town = area(
            "town",
            (-10.0, 10.0, -10.0, 10.0),
            Some(Circle {
                x: 0.0,
                z: 0.0,
                radius: 10.0,
            }),
        );
        let index = ZoneIndex::build([&wild, &town].into_iter());
        let at = |x, z| {
            index
                .area(index.zone_at(TilePos { x, z }))
                .map(|a| a.id.clone())
        };
        assert_eq!(at(0, 0).as_deref(), Some("town"));
        // The last tile whose centre is within the radius, then the first beyond it.
        assert_eq!(at(9, 0).as_deref(), Some("town"));
        assert_eq!(at(10, 0).as_deref(), Some("wild"));
        // A corner of the square around the circle is not in the town.
        assert_eq!(at(9, 9).as_deref(), Some("wild"));
        assert_eq!(at(100, -100).as_deref(), Some("wild"));
        assert_eq!(at(101, 0), None);
        assert!(index.is_safe(index.zone_at(TilePos { x: 0, z: 0 })));
        assert!(index.is_pvp(index.zone_at(TilePos { x: 50, z: 0 })));
        assert_eq!(index.message(None).area_id, None);
    }
}
