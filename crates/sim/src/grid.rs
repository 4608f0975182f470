//! The spatial grid: entities bucketed into square cells of tiles, so "who is near this tile" costs the
//! few cells around it, never a scan of the world. Each cell also remembers the last tick in which
//! anything in it appeared, left, moved or changed, so a view whose surroundings are quiet is skipped.

use wayfarer_protocol::ws::TilePos;

use crate::entities::Handle;
use crate::map::{chebyshev, TileMap};

/// Side of a grid cell in tiles.
pub const CELL_TILES: i32 = 8;

/// Which bucket of a cell an entity is kept in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// Players (capped per viewer).
    Player,
    /// NPCs and mobs (capped per viewer).
    Npc,
    /// Resources, stations and fires (never capped: they are the world's fixed furniture).
    Static,
    /// Items on the ground (capped per viewer: a pile can grow without bound).
    Ground,
}

/// An entity in a cell, with its tile so distance checks need not touch entity storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Occupant {
    pub handle: Handle,
    pub tile: TilePos,
}

/// One cell.
#[derive(Debug, Default)]
pub(crate) struct Cell {
    pub players: Vec<Occupant>,
    pub npcs: Vec<Occupant>,
    pub statics: Vec<Occupant>,
    pub ground: Vec<Occupant>,
    /// Last tick in which the cell's contents changed.
    pub dirty_at: u64,
}

impl Cell {
    fn bucket_mut(&mut self, class: Class) -> &mut Vec<Occupant> {
        match class {
            Class::Player => &mut self.players,
            Class::Npc => &mut self.npcs,
            Class::Static => &mut self.statics,
            Class::Ground => &mut self.ground,
        }
    }
}

/// An inclusive rectangle of cell coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellSpan {
    pub x0: i32,
    pub x1: i32,
    pub z0: i32,
    pub z1: i32,
}

/// The grid over the map's box. Entities outside the box (an NPC placed off the map by content) are
/// kept in the nearest edge cell; distance checks use their real tile.
#[derive(Debug)]
pub(crate) struct SpatialGrid {
    min: TilePos,
    cols: i32,
    rows: i32,
    cells: Vec<Cell>,
    /// Cells that changed in tick `dirty_tick`, each once.
    dirty: Vec<usize>,
    dirty_tick: u64,
    /// Per cell, the tick (plus one) in which it was last found near a dirty cell; with `near`,
    /// reused every tick so finding the players to refresh allocates nothing.
    near_stamp: Vec<u64>,
    near: Vec<usize>,
}

impl SpatialGrid {
    /// An empty grid covering the map.
    pub fn covering(map: &TileMap) -> SpatialGrid {
        let cols = (map.width() + CELL_TILES - 1) / CELL_TILES;
        let rows = (map.height() + CELL_TILES - 1) / CELL_TILES;
        let mut cells = Vec::new();
        cells.resize_with(cols as usize * rows as usize, Cell::default);
        let count = cells.len();
        SpatialGrid {
            min: map.min(),
            cols,
            rows,
            cells,
            dirty: Vec::new(),
            dirty_tick: 0,
            near_stamp: vec![0; count],
            near: Vec::new(),
        }
    }

    /// The cell holding a tile (clamped to the grid).
    pub fn cell_of(&self, tile: TilePos) -> (i32, i32) {
        let cx = (i64::from(tile.x) - i64::from(self.min.x)).div_euclid(i64::from(CELL_TILES));
        let cz = (i64::from(tile.z) - i64::from(self.min.z)).div_euclid(i64::from(CELL_TILES));
        (
            cx.clamp(0, i64::from(self.cols - 1)) as i32,
            cz.clamp(0, i64::from(self.rows - 1)) as i32,
        )
    }

    /// The westmost tile column of cell column `cx` (and likewise rows), for any `cx`.
    pub fn cell_min_tile(&self, cx: i32, cz: i32) -> TilePos {
        TilePos {
            x: self.min.x + cx * CELL_TILES,
            z: self.min.z + cz * CELL_TILES,
        }
    }

    /// A cell by coordinates inside the grid.
    pub fn cell(&self, cx: i32, cz: i32) -> &Cell {
        &self.cells[(cz * self.cols + cx) as usize]
    }

    fn index_of(&self, (cx, cz): (i32, i32)) -> usize {
        (cz * self.cols + cx) as usize
    }

    /// Marks a cell changed in tick `now`, listing it once.
    fn mark(&mut self, index: usize, now: u64) {
        if self.dirty_tick != now {
            self.dirty.clear();
            self.dirty_tick = now;
        }
        if self.cells[index].dirty_at != now {
            self.cells[index].dirty_at = now;
            self.dirty.push(index);
        }
    }

    /// Calls `f` for every player in a cell within `reach_cells` (in cells, each axis) of a cell that
    /// changed in tick `now`: the only players whose view can have changed. Each player at most once;
    /// the cost follows what changed, not how many players there are.
    pub fn for_each_player_near_dirty(
        &mut self,
        now: u64,
        reach_cells: i32,
        mut f: impl FnMut(Handle),
    ) {
        if self.dirty_tick != now {
            return;
        }
        let stamp = now + 1;
        self.near.clear();
        for &index in &self.dirty {
            let (cx, cz) = (index as i32 % self.cols, index as i32 / self.cols);
            for z in (cz - reach_cells).max(0)..=(cz + reach_cells).min(self.rows - 1) {
                for x in (cx - reach_cells).max(0)..=(cx + reach_cells).min(self.cols - 1) {
                    let near = (z * self.cols + x) as usize;
                    if self.near_stamp[near] != stamp {
                        self.near_stamp[near] = stamp;
                        self.near.push(near);
                    }
                }
            }
        }
        for &index in &self.near {
            for occupant in &self.cells[index].players {
                f(occupant.handle);
            }
        }
    }

    /// The cells holding every tile within `radius` (Chebyshev) of `centre`.
    pub fn span(&self, centre: TilePos, radius: i32) -> CellSpan {
        let (x0, z0) = self.cell_of(TilePos {
            x: centre.x.saturating_sub(radius),
            z: centre.z.saturating_sub(radius),
        });
        let (x1, z1) = self.cell_of(TilePos {
            x: centre.x.saturating_add(radius),
            z: centre.z.saturating_add(radius),
        });
        CellSpan { x0, x1, z0, z1 }
    }

    /// True when any cell of the span changed in tick `now`.
    pub fn any_dirty(&self, span: CellSpan, now: u64) -> bool {
        (span.z0..=span.z1)
            .any(|cz| (span.x0..=span.x1).any(|cx| self.cell(cx, cz).dirty_at == now))
    }

    /// Marks every cell changed in tick `now` (after a rebuild, every view is recomputed).
    pub fn mark_all_dirty(&mut self, now: u64) {
        for index in 0..self.cells.len() {
            self.mark(index, now);
        }
    }

    /// Adds an entity.
    pub fn insert(&mut self, handle: Handle, tile: TilePos, class: Class, now: u64) {
        let index = self.index_of(self.cell_of(tile));
        self.cells[index]
            .bucket_mut(class)
            .push(Occupant { handle, tile });
        self.mark(index, now);
    }

    /// Removes an entity standing on `tile`.
    pub fn remove(&mut self, handle: Handle, tile: TilePos, class: Class, now: u64) {
        let index = self.index_of(self.cell_of(tile));
        let bucket = self.cells[index].bucket_mut(class);
        if let Some(i) = bucket.iter().position(|o| o.handle == handle) {
            // Order within a cell does not matter: views sort what they collect.
            bucket.swap_remove(i);
        }
        self.mark(index, now);
    }

    /// Moves an entity from `from` to `to`.
    pub fn relocate(&mut self, handle: Handle, from: TilePos, to: TilePos, class: Class, now: u64) {
        if from == to {
            return;
        }
        let (old, new) = (self.cell_of(from), self.cell_of(to));
        if old == new {
            let index = self.index_of(old);
            if let Some(o) = self.cells[index]
                .bucket_mut(class)
                .iter_mut()
                .find(|o| o.handle == handle)
            {
                o.tile = to;
            }
            self.mark(index, now);
        } else {
            self.remove(handle, from, class, now);
            self.insert(handle, to, class, now);
        }
    }

    /// Marks the cell of `tile` changed (an entity there changed a field).
    pub fn touch(&mut self, tile: TilePos, now: u64) {
        let index = self.index_of(self.cell_of(tile));
        self.mark(index, now);
    }

    /// Calls `f` for every player within `radius` (Chebyshev) of `centre`, cell by cell.
    pub fn players_within(&self, centre: TilePos, radius: i32, mut f: impl FnMut(Handle, TilePos)) {
        let span = self.span(centre, radius);
        for cz in span.z0..=span.z1 {
            for cx in span.x0..=span.x1 {
                for o in &self.cell(cx, cz).players {
                    if chebyshev(centre, o.tile) <= radius as u32 {
                        f(o.handle, o.tile);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: i32, z: i32) -> TilePos {
        TilePos { x, z }
    }

    fn grid() -> SpatialGrid {
        SpatialGrid::covering(&TileMap::blocked(t(-16, -16), 64, 64))
    }

    #[test]
    fn cells_are_clamped_to_the_grid() {
        let g = grid();
        assert_eq!(g.cell_of(t(-16, -16)), (0, 0));
        assert_eq!(g.cell_of(t(-9, -8)), (0, 1));
        assert_eq!(g.cell_of(t(-1000, 1000)), (0, 7));
        assert_eq!(g.cell_min_tile(1, 2), t(-8, 0));
    }

    #[test]
    fn near_players_are_found_and_moves_mark_cells() {
        let mut g = grid();
        g.insert(1, t(0, 0), Class::Player, 1);
        g.insert(2, t(10, 0), Class::Player, 1);
        g.insert(3, t(0, 5), Class::Npc, 1);
        let mut found = Vec::new();
        g.players_within(t(0, 0), 9, |h, _| found.push(h));
        assert_eq!(found, vec![1]);
        g.relocate(2, t(10, 0), t(9, 0), Class::Player, 2);
        let mut found = Vec::new();
        g.players_within(t(0, 0), 9, |h, _| found.push(h));
        found.sort_unstable();
        assert_eq!(found, vec![1, 2]);
        assert!(g.any_dirty(g.span(t(9, 0), 0), 2));
        assert!(!g.any_dirty(g.span(t(-16, -16), 0), 2));
        g.remove(2, t(9, 0), Class::Player, 3);
        let mut found = Vec::new();
        g.players_within(t(0, 0), 9, |h, _| found.push(h));
        assert_eq!(found, vec![1]);
    }
}
