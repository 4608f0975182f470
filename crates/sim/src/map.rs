//! The walkable tile map: one bit per tile over the bounding box of the world's areas, and the
//! walls on tile edges (CONTRACT §13): one bit per side of a tile, set on both tiles that share
//! the side, so a step checks only the tile it leaves (2004Scape's collision flags per tile side).
//! Doors sit on edges too: a closed door blocks like a wall for NPCs and sight, while a player's
//! path goes through it (the walker opens it, `doors.rs`).

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

/// A tile's north side (towards −z), as CONTRACT §13's wall bits say.
pub const NORTH: u8 = 1;
/// A tile's east side (towards +x).
pub const EAST: u8 = 2;
/// A tile's south side (towards +z).
pub const SOUTH: u8 = 4;
/// A tile's west side (towards −x).
pub const WEST: u8 = 8;

/// The side of a tile that a step of (`dx`, `dz`) leaves it by (0 for no orthogonal step).
pub fn side_towards(dx: i32, dz: i32) -> u8 {
    match (dx.signum(), dz.signum()) {
        (0, -1) => NORTH,
        (1, 0) => EAST,
        (0, 1) => SOUTH,
        (-1, 0) => WEST,
        _ => 0,
    }
}

/// The other tile of a side, and the same side seen from there.
pub fn across(tile: TilePos, side: u8) -> (TilePos, u8) {
    let (dx, dz, opposite) = match side {
        NORTH => (0, -1, SOUTH),
        EAST => (1, 0, WEST),
        SOUTH => (0, 1, NORTH),
        _ => (-1, 0, EAST),
    };
    (
        TilePos {
            x: tile.x + dx,
            z: tile.z + dz,
        },
        opposite,
    )
}

/// Which tiles can be stood on, and which tile sides are walled. Tiles outside the box are never
/// walkable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileMap {
    min_x: i32,
    min_z: i32,
    width: i32,
    height: i32,
    /// Row-major bits, 1 = walkable.
    bits: Vec<u64>,
    /// Per tile, in the same order: the low four bits are the sides that block now (walls and
    /// closed doors), the high four the sides that hold a door, open or closed. Empty while the map
    /// has no wall at all, so a map without walls pays one branch per step.
    edges: Vec<u8>,
    /// Row-major bits, 1 = water (not walkable; where fishing spots stand). Empty without water.
    water: Vec<u64>,
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
            edges: Vec::new(),
            water: Vec::new(),
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

    /// Marks a tile as water (and not walkable); tiles outside the box are ignored.
    pub(crate) fn set_water(&mut self, tile: TilePos) {
        if let Some(i) = self.index(tile) {
            if self.water.is_empty() {
                self.water = vec![0; self.bits.len()];
            }
            self.water[i / 64] |= 1 << (i % 64);
            self.set(tile, false);
        }
    }

    /// Makes a tile dry, walkable land (a pier or a bridge over water).
    pub(crate) fn set_land(&mut self, tile: TilePos) {
        if let Some(i) = self.index(tile) {
            if let Some(w) = self.water.get_mut(i / 64) {
                *w &= !(1 << (i % 64));
            }
            self.set(tile, true);
        }
    }

    /// Whether a tile is water.
    pub fn is_water(&self, tile: TilePos) -> bool {
        match self.index(tile) {
            Some(i) if !self.water.is_empty() => self.water[i / 64] & (1 << (i % 64)) != 0,
            _ => false,
        }
    }

    /// Whether the map has any water.
    pub fn has_water(&self) -> bool {
        self.water.iter().any(|w| *w != 0)
    }

    /// A water tile with a walkable tile beside it (four neighbours, no wall between): where a
    /// fishing spot may stand.
    pub fn is_shore_water(&self, tile: TilePos) -> bool {
        self.is_water(tile)
            && [NORTH, EAST, SOUTH, WEST].into_iter().any(|side| {
                let (next, _) = across(tile, side);
                self.is_walkable(next) && self.edge_bits(tile) & side == 0
            })
    }

    /// The edge bits of a tile (0 outside the box or without walls).
    fn edge_bits(&self, tile: TilePos) -> u8 {
        match self.index(tile) {
            Some(i) if !self.edges.is_empty() => self.edges[i],
            _ => 0,
        }
    }

    /// Sets `bits` on one tile's edge byte (allocating the edges on the first wall).
    fn or_edges(&mut self, tile: TilePos, bits: u8) {
        if let Some(i) = self.index(tile) {
            if self.edges.is_empty() {
                self.edges = vec![0; self.width as usize * self.height as usize];
            }
            self.edges[i] |= bits;
        }
    }

    /// Walls a tile's `side` (and the same side of the tile across it).
    pub(crate) fn add_wall(&mut self, tile: TilePos, side: u8) {
        let (other, opposite) = across(tile, side);
        self.or_edges(tile, side);
        self.or_edges(other, opposite);
    }

    /// Puts a door on a tile's `side`, closed (it blocks like a wall until opened).
    pub(crate) fn add_door(&mut self, tile: TilePos, side: u8) {
        let (other, opposite) = across(tile, side);
        self.or_edges(tile, side | side << 4);
        self.or_edges(other, opposite | opposite << 4);
    }

    /// Opens or closes the door on a tile's `side`.
    pub(crate) fn set_door_open(&mut self, tile: TilePos, side: u8, open: bool) {
        let (other, opposite) = across(tile, side);
        for (t, s) in [(tile, side), (other, opposite)] {
            if let Some(i) = self.index(t) {
                if let Some(e) = self.edges.get_mut(i) {
                    if open {
                        *e &= !s;
                    } else if *e & (s << 4) != 0 {
                        *e |= s;
                    }
                }
            }
        }
    }

    /// The sides of a tile walled for good (doors left out: they are entities of their own), as
    /// the chunk's `walls` digit says (CONTRACT §13).
    pub fn walls_at(&self, tile: TilePos) -> u8 {
        let e = self.edge_bits(tile);
        e & 0x0f & !(e >> 4)
    }

    /// The side of `from` holding a door that an orthogonal step to `to` goes through, if any.
    pub fn door_crossed(&self, from: TilePos, to: TilePos) -> Option<u8> {
        let side = side_towards(to.x - from.x, to.z - from.z);
        let crosses = (to.x - from.x).abs() + (to.z - from.z).abs() == 1;
        (crosses && self.edge_bits(from) & (side << 4) != 0).then_some(side)
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

    /// True when a single step from `from` to the adjacent tile `to` is allowed for an NPC (or
    /// anything that opens no doors): `to` is walkable, no wall or closed door stands between, and
    /// a diagonal step does not cut the corner of a blocked tile or a wall (both orthogonal
    /// neighbours walkable and every side around the corner open).
    pub fn can_step(&self, from: TilePos, to: TilePos) -> bool {
        self.step_allowed(from, to, false)
    }

    /// [`TileMap::can_step`] for a player, whose walk opens doors: a door's side does not block a
    /// straight step through it (but a diagonal step never passes a door).
    pub fn can_walk(&self, from: TilePos, to: TilePos) -> bool {
        self.step_allowed(from, to, true)
    }

    fn step_allowed(&self, from: TilePos, to: TilePos, through_doors: bool) -> bool {
        let dx = to.x - from.x;
        let dz = to.z - from.z;
        if dx.abs() > 1 || dz.abs() > 1 || (dx == 0 && dz == 0) {
            return false;
        }
        if !self.is_walkable(to) {
            return false;
        }
        if dx != 0 && dz != 0 {
            let x_first = TilePos {
                x: from.x + dx,
                z: from.z,
            };
            let z_first = TilePos {
                x: from.x,
                z: from.z + dz,
            };
            if !(self.is_walkable(x_first) && self.is_walkable(z_first)) {
                return false;
            }
            if self.edges.is_empty() {
                return true;
            }
            // Doors, open or not, block diagonals: the low bits or the door bits.
            let around = |t: TilePos| {
                let e = self.edge_bits(t);
                (e | e >> 4) & 0x0f
            };
            let (sx, sz) = (side_towards(dx, 0), side_towards(0, dz));
            return around(from) & (sx | sz) == 0
                && around(x_first) & sz == 0
                && around(z_first) & sx == 0;
        }
        if self.edges.is_empty() {
            return true;
        }
        let e = self.edge_bits(from);
        let blocking = if through_doors { e & !(e >> 4) } else { e };
        blocking & side_towards(dx, dz) == 0
    }

    /// Whether `tile` is next to `other` (Chebyshev 1) with no wall or closed door between them,
    /// whatever stands on `other`: a player on `tile` can reach across to it.
    pub fn touches(&self, tile: TilePos, other: TilePos) -> bool {
        let (dx, dz) = (other.x - tile.x, other.z - tile.z);
        if dx.abs() > 1 || dz.abs() > 1 || (dx == 0 && dz == 0) {
            return dx == 0 && dz == 0;
        }
        if self.edges.is_empty() {
            return true;
        }
        let open = |t: TilePos, side: u8| self.edge_bits(t) & side & 0x0f == 0;
        let (sx, sz) = (side_towards(dx, 0), side_towards(0, dz));
        match (dx != 0, dz != 0) {
            (true, true) => {
                let via_x = TilePos {
                    x: tile.x + dx,
                    z: tile.z,
                };
                let via_z = TilePos {
                    x: tile.x,
                    z: tile.z + dz,
                };
                (open(tile, sx) && open(via_x, sz)) || (open(tile, sz) && open(via_z, sx))
            }
            (true, false) => open(tile, sx),
            _ => open(tile, sz),
        }
    }

    /// Whether nothing blocks sight from `from` to `to`: the tiles of the line between their
    /// centres (Bresenham's, walked from the lesser end so the answer is the same both ways) are
    /// crossed without passing a wall or a closed door. A diagonal step sees past a corner when
    /// either way around it is open. Only walls block sight: water, rocks and trees do not.
    pub fn line_of_sight(&self, from: TilePos, to: TilePos) -> bool {
        if self.edges.is_empty() || from == to {
            return true;
        }
        let (a, b) = if (from.x, from.z) <= (to.x, to.z) {
            (from, to)
        } else {
            (to, from)
        };
        let open = |t: TilePos, side: u8| self.edge_bits(t) & side & 0x0f == 0;
        let (dx, dz) = ((b.x - a.x).abs(), -(b.z - a.z).abs());
        let (sx, sz) = (
            if a.x < b.x { 1 } else { -1 },
            if a.z < b.z { 1 } else { -1 },
        );
        let mut err = dx + dz;
        let mut at = a;
        while at != b {
            let doubled = 2 * err;
            let (mut mx, mut mz) = (0, 0);
            if doubled >= dz {
                err += dz;
                mx = sx;
            }
            if doubled <= dx {
                err += dx;
                mz = sz;
            }
            let (side_x, side_z) = (side_towards(mx, 0), side_towards(0, mz));
            let clear = match (mx != 0, mz != 0) {
                (true, true) => {
                    let via_x = TilePos {
                        x: at.x + mx,
                        z: at.z,
                    };
                    let via_z = TilePos {
                        x: at.x,
                        z: at.z + mz,
                    };
                    (open(at, side_x) && open(via_x, side_z))
                        || (open(at, side_z) && open(via_z, side_x))
                }
                (true, false) => open(at, side_x),
                _ => open(at, side_z),
            };
            if !clear {
                return false;
            }
            at = TilePos {
                x: at.x + mx,
                z: at.z + mz,
            };
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
    fn a_wall_blocks_both_tiles_that_share_it_and_the_corners_around_it() {
        let mut map = from_ascii(&["...", "...", "..."]);
        map.add_wall(t(1, 1), NORTH);
        assert!(!map.can_step(t(1, 1), t(1, 0)));
        assert!(
            !map.can_step(t(1, 0), t(1, 1)),
            "the tile across has it too"
        );
        assert!(!map.can_walk(t(1, 1), t(1, 0)));
        assert!(
            !map.can_step(t(0, 1), t(1, 0)),
            "a diagonal around the wall's end"
        );
        assert!(map.can_step(t(0, 1), t(0, 0)));
        assert!(map.can_step(t(1, 1), t(2, 1)));
        assert_eq!(map.walls_at(t(1, 1)), NORTH);
        assert_eq!(map.walls_at(t(1, 0)), SOUTH);
        assert_eq!(map.walls_at(t(0, 0)), 0);
    }

    #[test]
    fn a_closed_door_blocks_npcs_but_not_a_walker_and_never_a_diagonal() {
        let mut map = from_ascii(&["...", "...", "..."]);
        map.add_door(t(1, 1), EAST);
        assert!(!map.can_step(t(1, 1), t(2, 1)));
        assert!(map.can_walk(t(1, 1), t(2, 1)));
        assert!(map.can_walk(t(2, 1), t(1, 1)));
        assert!(
            !map.can_walk(t(1, 1), t(2, 0)),
            "no diagonal through a door"
        );
        assert_eq!(map.door_crossed(t(2, 1), t(1, 1)), Some(WEST));
        assert_eq!(map.door_crossed(t(1, 0), t(2, 0)), None);
        assert_eq!(map.walls_at(t(1, 1)), 0, "a door is not a wall");
        assert!(!map.line_of_sight(t(0, 1), t(2, 1)));
        map.set_door_open(t(2, 1), WEST, true);
        assert!(map.can_step(t(1, 1), t(2, 1)));
        assert!(map.line_of_sight(t(0, 1), t(2, 1)));
        map.set_door_open(t(1, 1), EAST, false);
        assert!(!map.can_step(t(2, 1), t(1, 1)));
    }

    #[test]
    fn sight_is_blocked_by_walls_only_and_the_same_both_ways() {
        let mut map = from_ascii(&["......", "..#...", "......", "......"]);
        assert!(
            map.line_of_sight(t(0, 0), t(5, 3)),
            "no walls: everything is seen"
        );
        for z in 0..4 {
            map.add_wall(t(3, z), EAST);
        }
        assert!(!map.line_of_sight(t(0, 0), t(5, 3)));
        assert!(!map.line_of_sight(t(5, 3), t(0, 0)));
        assert!(
            map.line_of_sight(t(0, 3), t(3, 0)),
            "a rock does not block sight"
        );
        assert!(map.line_of_sight(t(4, 0), t(5, 3)));
    }

    #[test]
    fn water_is_not_walkable_and_its_shore_tiles_are_next_to_land() {
        let mut map = from_ascii(&["....", "....", "...."]);
        map.set_water(t(2, 1));
        map.set_water(t(3, 1));
        assert!(!map.is_walkable(t(2, 1)) && map.is_water(t(2, 1)));
        assert!(map.is_shore_water(t(3, 1)));
        assert!(!map.is_water(t(0, 0)) && map.has_water());
    }

    #[test]
    fn open_rect_is_clipped_to_the_box() {
        let mut map = TileMap::blocked(t(0, 0), 4, 4);
        map.open_rect(t(-10, -10), t(1, 1));
        assert_eq!(map.walkable_count(), 4);
        assert!(map.is_walkable(t(0, 0)) && map.is_walkable(t(1, 1)));
    }
}
