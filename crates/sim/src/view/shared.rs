//! One view for a stacked crowd. Everyone entering the world appears at the spawn tile, so a mass
//! join (a launch, everyone reconnecting after a restart) stacks thousands of players on a few
//! tiles: each of their views then gathers the whole crowd of its cell to pick the nearest 255,
//! and every join dirties that cell, so every viewer there does it again each tick: work growing
//! with the square of the crowd (at 10,000 joining, most of the tick).
//!
//! What a view gathers depends only on its centre tile, but for leaving the viewer itself out. So
//! where a cell is crowded, the view of a centre is gathered once a tick with room for one more
//! player, and each viewer standing there takes it as it is when it is itself among those players,
//! or without the farthest of them and with itself otherwise: exactly what it would have gathered
//! alone (the nearest are chosen by distance, then handle, among the same candidates). Elsewhere
//! nothing changes.

use wayfarer_protocol::ws::TilePos;

use super::{collect, Handle, SpatialGrid, ViewScratch, MAX_VISIBLE_PLAYERS};

/// Players in a view's own cell above which its view is shared: far more than a view shows, so
/// only a crowd standing on a few tiles (thousands in a cell of 64 tiles) takes this path.
pub(super) const CROWDED_CELL: usize = 2 * MAX_VISIBLE_PLAYERS;

/// A handle no entity has, standing for "nobody" when the shared view is gathered.
const NOBODY: Handle = Handle::MAX;

/// The last view gathered for a crowded centre, by one thread.
#[derive(Debug, Default)]
pub(crate) struct SharedView {
    /// The tick and centre it was gathered for.
    at: Option<(u64, TilePos)>,
    /// Every handle in view of the centre, sorted, with the nearest `MAX_VISIBLE_PLAYERS + 1`
    /// players (nobody left out).
    handles: Vec<Handle>,
    /// The farthest of those players, when there were that many (a viewer not among them drops it).
    farthest: Option<Handle>,
}

/// Fills `scratch.next` as [`collect`] would, from the view shared by the viewers on `centre` when
/// its cell is crowded.
pub(super) fn collect_for(
    me: Handle,
    centre: TilePos,
    grid: &SpatialGrid,
    scratch: &mut ViewScratch,
    now: u64,
) {
    let (cx, cz) = grid.cell_of(centre);
    if grid.cell(cx, cz).players.len() <= CROWDED_CELL {
        collect(me, centre, grid, scratch, MAX_VISIBLE_PLAYERS);
        return;
    }
    if scratch.shared.at != Some((now, centre)) {
        gather_shared(centre, grid, scratch, now);
    }
    let shared = &scratch.shared;
    let next = &mut scratch.next;
    next.clear();
    next.extend_from_slice(&shared.handles);
    if next.binary_search(&me).is_err() {
        if let Some(farthest) = shared.farthest {
            if let Ok(at) = next.binary_search(&farthest) {
                next.remove(at);
            }
        }
        let at = next.binary_search(&me).unwrap_or_else(|at| at);
        next.insert(at, me);
    }
}

/// Gathers the view of `centre` for everyone on it: [`collect`] for nobody, with room for one
/// more player.
fn gather_shared(centre: TilePos, grid: &SpatialGrid, scratch: &mut ViewScratch, now: u64) {
    collect(NOBODY, centre, grid, scratch, MAX_VISIBLE_PLAYERS + 1);
    // `collect` put "nobody" in as the viewer itself; it sorts last.
    if scratch.next.last() == Some(&NOBODY) {
        scratch.next.pop();
    }
    let shared = &mut scratch.shared;
    shared.at = Some((now, centre));
    shared.handles.clear();
    shared.handles.extend_from_slice(&scratch.next);
    shared.farthest = (scratch.players.len() > MAX_VISIBLE_PLAYERS)
        .then(|| scratch.players.iter().max().map(|(_, h)| *h))
        .flatten();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Class;
    use crate::map::TileMap;

    fn t(x: i32, z: i32) -> TilePos {
        TilePos { x, z }
    }

    #[test]
    fn a_shared_view_is_the_view_each_viewer_would_gather_alone() {
        let mut grid = SpatialGrid::covering(&TileMap::blocked(t(-64, -64), 128, 128));
        let mut slot = 0u64;
        let mut next_handle = || {
            slot += 1;
            (slot << 32) | (slot % 7)
        };
        // 600 players on one tile and 100 on another of the same cell (a crowd at the spawn),
        // 300 spread around it; NPCs, furniture and ground items in view of them.
        let mut players = Vec::new();
        for i in 0..1_000i32 {
            let tile = match i {
                0..600 => t(0, 0),
                600..700 => t(1, 2),
                _ => t(-30 + (i * 7) % 60, -30 + (i * 13) % 60),
            };
            let handle = next_handle();
            grid.insert(handle, tile, Class::Player, 1);
            players.push((handle, tile));
        }
        for i in 0..300i32 {
            grid.insert(next_handle(), t(i % 40 - 20, i / 40 - 4), Class::Npc, 1);
            grid.insert(next_handle(), t(i % 30 - 5, i / 30), Class::Ground, 1);
        }
        for i in 0..20i32 {
            grid.insert(next_handle(), t(i * 3 - 30, 5), Class::Static, 1);
        }
        assert!(
            grid.cell(grid.cell_of(t(0, 0)).0, grid.cell_of(t(0, 0)).1)
                .players
                .len()
                > CROWDED_CELL
        );

        let (mut alone, mut shared) = (ViewScratch::default(), ViewScratch::default());
        for &(me, tile) in &players {
            collect(me, tile, &grid, &mut alone, MAX_VISIBLE_PLAYERS);
            collect_for(me, tile, &grid, &mut shared, 7);
            assert_eq!(shared.next, alone.next, "viewer {me:#x} on {tile:?}");
        }
        // The crowd's views came from a shared one, gathered this tick.
        assert_eq!(shared.shared.at.map(|(tick, _)| tick), Some(7));
        // A viewer among the nearest keeps them all but itself; one beyond them drops the farthest.
        let first = players[0].0;
        let last = players[599].0;
        collect_for(first, t(0, 0), &grid, &mut shared, 8);
        assert!(shared.shared.farthest.is_some());
        assert!(shared.next.binary_search(&first).is_ok());
        collect_for(last, t(0, 0), &grid, &mut shared, 8);
        assert!(shared.next.binary_search(&last).is_ok());
        assert!(shared
            .next
            .binary_search(&shared.shared.farthest.unwrap())
            .is_err());
    }
}
