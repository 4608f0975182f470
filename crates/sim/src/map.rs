//! The walkable tile map: one bit per tile over the bounding box of the world's areas.

use wayfarer_protocol::ws::TilePos;

/// Longest side of the map in tiles. Content whose areas span more is clipped around the spawn point,
/// which keeps the bitset (2 MiB at most) and the spatial grid bounded whatever a manifest says.
pub const MAX_MAP_SIDE_TILES: i32 = 4096;

/// How far (in rings of tiles) the search for the walkable tile nearest to a blocked one looks
/// (joins, teleports, approaching a blocked move target) before giving up.
pub const NEAREST_WALKABLE_SEARCH_TILES: i32 = 256;

/// The eight neighbour offsets, orthogonal first (pathfinding expands them in this order).
pub(crate) const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// Which tiles can be stood on. Tiles outside the box are never walkable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileMap {
    min_x: i32,
    min_z: i32,
    width: i32,
    height: i32,
    /// Row-major bits, 1 = walkable.
    bits: Vec<u64>,
}

impl TileMap {
    /// A map of `width` × `height` blocked tiles whose north-west corner (least x and z) is `min`.
    pub(crate) fn blocked(min: TilePos, width: i32, height: i32) -> TileMap {
        let width = width.clamp(1, MAX_MAP_SIDE_TILES);
        let height = height.clamp(1, MAX_MAP_SIDE_TILES);
        let tiles = width as usize * height as usize;
        TileMap {
            min_x: min.x,
            min_z: min.z,
            width,
            height,
            bits: vec![0; tiles.div_ceil(64)],
        }
    }

    /// The north-west corner of the box (north is −z).
    pub fn min(&self) -> TilePos {
        TilePos {
            x: self.min_x,
            z: self.min_z,
        }
    }

    /// The south-east corner of the box (inclusive).
    pub fn max(&self) -> TilePos {
        TilePos {
            x: self.min_x + self.width - 1,
            z: self.min_z + self.height - 1,
        }
    }

    /// Tiles along x.
    pub fn width(&self) -> i32 {
        self.width
    }

    /// Tiles along z.
    pub fn height(&self) -> i32 {
        self.height
    }

    /// The bit index of a tile inside the box.
    fn index(&self, tile: TilePos) -> Option<usize> {
        let dx = i64::from(tile.x) - i64::from(self.min_x);
        let dz = i64::from(tile.z) - i64::from(self.min_z);
        if dx < 0 || dz < 0 || dx >= i64::from(self.width) || dz >= i64::from(self.height) {
            return None;
        }
        Some(dz as usize * self.width as usize + dx as usize)
    }

    /// True when the tile can be stood on.
    pub fn is_walkable(&self, tile: TilePos) -> bool {
        match self.index(tile) {
            Some(i) => self.bits[i / 64] & (1 << (i % 64)) != 0,
            None => false,
        }
    }

    /// Marks a tile walkable or blocked; tiles outside the box are ignored.
    pub(crate) fn set(&mut self, tile: TilePos, walkable: bool) {
        if let Some(i) = self.index(tile) {
            if walkable {
                self.bits[i / 64] |= 1 << (i % 64);
            } else {
                self.bits[i / 64] &= !(1 << (i % 64));
            }
        }
    }

    /// Marks every tile of the inclusive rectangle walkable (clipped to the box).
    pub(crate) fn open_rect(&mut self, min: TilePos, max: TilePos) {
        let top = self.max();
        let (x0, x1) = (min.x.max(self.min_x), max.x.min(top.x));
        let (z0, z1) = (min.z.max(self.min_z), max.z.min(top.z));
        for z in z0..=z1 {
            for x in x0..=x1 {
                self.set(TilePos { x, z }, true);
            }
        }
    }

    /// True when a single step from `from` to the adjacent tile `to` is allowed: `to` is walkable and a
    /// diagonal step does not cut the corner of a blocked tile (both orthogonal neighbours walkable).
    pub fn can_step(&self, from: TilePos, to: TilePos) -> bool {
        let dx = to.x - from.x;
        let dz = to.z - from.z;
        if dx.abs() > 1 || dz.abs() > 1 || (dx == 0 && dz == 0) {
            return false;
        }
        if !self.is_walkable(to) {
            return false;
        }
        if dx != 0 && dz != 0 {
            return self.is_walkable(TilePos {
                x: from.x + dx,
                z: from.z,
            }) && self.is_walkable(TilePos {
                x: from.x,
                z: from.z + dz,
            });
        }
        true
    }

    /// The box tile closest to `tile` (the tile itself when inside).
    pub fn clamp(&self, tile: TilePos) -> TilePos {
        let top = self.max();
        TilePos {
            x: tile.x.clamp(self.min_x, top.x),
            z: tile.z.clamp(self.min_z, top.z),
        }
    }

    /// The walkable tile nearest to `tile` (itself when walkable), searching rings around the closest
    /// box tile up to [`NEAREST_WALKABLE_SEARCH_TILES`]. Within a ring the tile with the smallest
    /// squared distance wins, then the smallest z, then x, so the answer is deterministic.
    pub fn nearest_walkable(&self, tile: TilePos) -> Option<TilePos> {
        if self.is_walkable(tile) {
            return Some(tile);
        }
        let centre = self.clamp(tile);
        let squared = |t: TilePos| {
            let dx = i64::from(t.x) - i64::from(tile.x);
            let dz = i64::from(t.z) - i64::from(tile.z);
            dx * dx + dz * dz
        };
        for radius in 0..=NEAREST_WALKABLE_SEARCH_TILES {
            let mut best: Option<(i64, i32, i32)> = None;
            for_each_on_ring(centre, radius, |t| {
                if self.is_walkable(t) {
                    let key = (squared(t), t.z, t.x);
                    if best.is_none_or(|b| key < b) {
                        best = Some(key);
                    }
                }
            });
            if let Some((_, z, x)) = best {
                return Some(TilePos { x, z });
            }
        }
        None
    }

    /// How many tiles are walkable.
    #[cfg(test)]
    pub fn walkable_count(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// Calls `f` for every tile at Chebyshev distance exactly `radius` from `centre`.
pub(crate) fn for_each_on_ring(centre: TilePos, radius: i32, mut f: impl FnMut(TilePos)) {
    if radius == 0 {
        f(centre);
        return;
    }
    let (x0, x1) = (centre.x - radius, centre.x + radius);
    let (z0, z1) = (centre.z - radius, centre.z + radius);
    for x in x0..=x1 {
        f(TilePos { x, z: z0 });
        f(TilePos { x, z: z1 });
    }
    for z in (z0 + 1)..z1 {
        f(TilePos { x: x0, z });
        f(TilePos { x: x1, z });
    }
}

/// Chebyshev distance between two tiles (the game's notion of "within N tiles").
pub fn chebyshev(a: TilePos, b: TilePos) -> u32 {
    let dx = (i64::from(a.x) - i64::from(b.x)).unsigned_abs();
    let dz = (i64::from(a.z) - i64::from(b.z)).unsigned_abs();
    dx.max(dz).min(u64::from(u32::MAX)) as u32
}

/// The tiles covered by a `width` × `depth` footprint standing at `centre`: the centre tile plus
/// `(width - 1) / 2` tiles west and the rest east (likewise north/south), so a 1×1 footprint is just
/// the centre tile and every footprint covers it.
pub(crate) fn footprint(centre: TilePos, width: u32, depth: u32) -> (TilePos, TilePos) {
    let width = width.clamp(1, 64) as i32;
    let depth = depth.clamp(1, 64) as i32;
    let min = TilePos {
        x: centre.x - (width - 1) / 2,
        z: centre.z - (depth - 1) / 2,
    };
    (
        min,
        TilePos {
            x: min.x + width - 1,
            z: min.z + depth - 1,
        },
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A map drawn as text: `.` walkable, `#` blocked; the first line is z = 0, columns are x from 0.
    pub(crate) fn from_ascii(rows: &[&str]) -> TileMap {
        let height = rows.len() as i32;
        let width = rows[0].len() as i32;
        let mut map = TileMap::blocked(TilePos { x: 0, z: 0 }, width, height);
        for (z, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                map.set(
                    TilePos {
                        x: x as i32,
                        z: z as i32,
                    },
                    c == '.',
                );
            }
        }
        map
    }

    fn t(x: i32, z: i32) -> TilePos {
        TilePos { x, z }
    }

    #[test]
    fn tiles_outside_the_box_are_blocked() {
        let map = from_ascii(&["..", ".."]);
        assert!(map.is_walkable(t(1, 1)));
        assert!(!map.is_walkable(t(2, 0)));
        assert!(!map.is_walkable(t(-1, 0)));
        assert!(!map.is_walkable(t(i32::MIN, i32::MAX)));
        assert_eq!(map.walkable_count(), 4);
    }

    #[test]
    fn diagonal_steps_may_not_cut_a_blocked_corner() {
        let map = from_ascii(&["..", "#."]);
        assert!(map.can_step(t(0, 0), t(1, 0)));
        assert!(!map.can_step(t(1, 0), t(0, 1)), "target blocked");
        assert!(!map.can_step(t(0, 0), t(1, 1)), "corner (0,1) is blocked");
        assert!(!map.can_step(t(0, 0), t(0, 0)), "not a step");
        assert!(!map.can_step(t(0, 0), t(2, 0)), "not adjacent");
        let open = from_ascii(&["..", ".."]);
        assert!(open.can_step(t(0, 0), t(1, 1)));
    }

    #[test]
    fn nearest_walkable_prefers_the_closest_tile() {
        let map = from_ascii(&["#####", "#####", "##..#", "#####"]);
        assert_eq!(map.nearest_walkable(t(0, 0)), Some(t(2, 2)));
        assert_eq!(map.nearest_walkable(t(4, 2)), Some(t(3, 2)));
        assert_eq!(map.nearest_walkable(t(100, 2)), Some(t(3, 2)));
        let empty = from_ascii(&["###"]);
        assert_eq!(empty.nearest_walkable(t(0, 0)), None);
    }

    #[test]
    fn footprints_cover_their_centre_tile() {
        assert_eq!(footprint(t(5, 5), 1, 1), (t(5, 5), t(5, 5)));
        assert_eq!(footprint(t(5, 5), 2, 2), (t(5, 5), t(6, 6)));
        assert_eq!(footprint(t(5, 5), 3, 1), (t(4, 5), t(6, 5)));
    }

    #[test]
    fn open_rect_is_clipped_to_the_box() {
        let mut map = TileMap::blocked(t(0, 0), 4, 4);
        map.open_rect(t(-10, -10), t(1, 1));
        assert_eq!(map.walkable_count(), 4);
        assert!(map.is_walkable(t(0, 0)) && map.is_walkable(t(1, 1)));
    }
}
