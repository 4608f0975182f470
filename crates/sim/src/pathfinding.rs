//! A* over the tile map: 8-directional steps, no corner cutting, walls on tile edges respected and
//! doors walked through (the walker opens them), a bounded search window and a cap on expanded
//! nodes, and a partial path to the closest reachable tile when the goal cannot be reached.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use wayfarer_protocol::ws::{TilePos, MAX_MOVE_TILES};

use crate::map::{for_each_on_ring, TileMap, DIRECTIONS, NEAREST_WALKABLE_SEARCH_TILES};

/// Most nodes one search expands before it settles for the closest tile found so far.
pub const MAX_PATH_EXPANSIONS: usize = 40_000;

/// How far beyond the 200-tile move limit a path may detour around obstacles.
pub const PATH_WINDOW_MARGIN_TILES: i32 = 64;

/// Half the side of the square window a search may use, centred on the start.
const WINDOW_RADIUS: i32 = MAX_MOVE_TILES + PATH_WINDOW_MARGIN_TILES;
/// Side of the search window.
const WINDOW_SIDE: i32 = 2 * WINDOW_RADIUS + 1;
/// Cost of an orthogonal step (diagonals cost [`DIAGONAL_COST`], about √2 times as much).
const STRAIGHT_COST: u32 = 10;
/// Cost of a diagonal step.
const DIAGONAL_COST: u32 = 14;

/// Reusable A* state: the per-node arrays cover the search window and are allocated once, on the
/// first search; a generation stamp marks which entries belong to the current search, so nothing is
/// cleared between searches.
#[derive(Debug, Default)]
pub(crate) struct Pathfinder {
    /// Generation in which a node was first reached.
    seen: Vec<u32>,
    /// Generation in which a node was expanded.
    closed: Vec<u32>,
    /// Best known cost from the start.
    cost: Vec<u32>,
    /// Index into [`DIRECTIONS`] of the step that reached the node.
    came_by: Vec<u8>,
    /// Open nodes by (estimated total, estimate to goal, node).
    open: BinaryHeap<Reverse<(u32, u32, u32)>>,
    generation: u32,
}

/// Octile distance, the exact cost between two tiles on an empty map.
fn octile(a: TilePos, b: TilePos) -> u32 {
    let dx = (a.x - b.x).unsigned_abs();
    let dz = (a.z - b.z).unsigned_abs();
    let (long, short) = if dx > dz { (dx, dz) } else { (dz, dx) };
    STRAIGHT_COST * long + (DIAGONAL_COST - STRAIGHT_COST) * short
}

/// The walkable tile from which to approach a blocked `goal`: on the nearest ring of tiles around it
/// that has any walkable tile, one with no wall between it and the goal first (a station against
/// a building's wall is used from inside), then the one closest to `start` (then smallest z, then
/// x).
fn approach_tile(map: &TileMap, goal: TilePos, start: TilePos) -> Option<TilePos> {
    let centre = map.clamp(goal);
    // Off the map, the box tile nearest the goal is itself a candidate.
    let first = if centre == goal { 1 } else { 0 };
    for radius in first..=NEAREST_WALKABLE_SEARCH_TILES {
        let mut best: Option<(bool, u32, i32, i32)> = None;
        for_each_on_ring(centre, radius, |tile| {
            if map.is_walkable(tile) {
                let walled = radius == 1 && !map.touches(tile, goal);
                let key = (walled, octile(tile, start), tile.z, tile.x);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        });
        if let Some((_, _, z, x)) = best {
            return Some(TilePos { x, z });
        }
    }
    None
}

impl Pathfinder {
    /// Writes into `path` the steps from `start` towards `goal` (excluding `start`), in reverse order so
    /// that `path.pop()` yields the next step. When `goal` cannot be reached (blocked, enclosed, or beyond
    /// the search bounds) the path leads to the reachable tile closest to it; when that is `start`
    /// itself, `path` is left empty. Returns true when the path ends on `goal`.
    pub fn find(
        &mut self,
        map: &TileMap,
        start: TilePos,
        goal: TilePos,
        path: &mut Vec<TilePos>,
    ) -> bool {
        path.clear();
        if start == goal {
            return true;
        }
        // A blocked goal (a tree, a rock) is approached: aim at the walkable tile next to it.
        let aim = if map.is_walkable(goal) {
            goal
        } else {
            match approach_tile(map, goal, start) {
                Some(tile) => tile,
                None => return false,
            }
        };
        self.prepare();
        let generation = self.generation;
        let window_index = |tile: TilePos| -> Option<u32> {
            let lx = tile.x - start.x + WINDOW_RADIUS;
            let lz = tile.z - start.z + WINDOW_RADIUS;
            if (0..WINDOW_SIDE).contains(&lx) && (0..WINDOW_SIDE).contains(&lz) {
                Some((lz * WINDOW_SIDE + lx) as u32)
            } else {
                None
            }
        };
        let tile_of = |index: u32| TilePos {
            x: start.x + (index as i32 % WINDOW_SIDE) - WINDOW_RADIUS,
            z: start.z + (index as i32 / WINDOW_SIDE) - WINDOW_RADIUS,
        };
        // The start is always inside the window.
        let Some(start_index) = window_index(start) else {
            return false;
        };
        self.open.clear();
        let start_h = octile(start, aim);
        self.touch(start_index, 0, 0);
        self.open.push(Reverse((start_h, start_h, start_index)));
        let mut best = (start_h, 0, start_index);
        let mut reached = None;
        let mut expanded = 0;
        while let Some(Reverse((_, h, index))) = self.open.pop() {
            let i = index as usize;
            if self.closed[i] == generation {
                continue;
            }
            self.closed[i] = generation;
            let g = self.cost[i];
            if (h, g) < (best.0, best.1) {
                best = (h, g, index);
            }
            let tile = tile_of(index);
            if tile == aim {
                reached = Some(index);
                break;
            }
            expanded += 1;
            if expanded > MAX_PATH_EXPANSIONS {
                break;
            }
            for (direction, (dx, dz)) in DIRECTIONS.iter().enumerate() {
                let next = TilePos {
                    x: tile.x + dx,
                    z: tile.z + dz,
                };
                let Some(next_index) = window_index(next) else {
                    continue;
                };
                let n = next_index as usize;
                if self.closed[n] == generation || !map.can_walk(tile, next) {
                    continue;
                }
                let step = if *dx != 0 && *dz != 0 {
                    DIAGONAL_COST
                } else {
                    STRAIGHT_COST
                };
                let next_g = g + step;
                if self.seen[n] != generation || next_g < self.cost[n] {
                    self.touch(next_index, next_g, direction as u8);
                    let next_h = octile(next, aim);
                    self.open
                        .push(Reverse((next_g + next_h, next_h, next_index)));
                }
            }
        }
        let end = reached.unwrap_or(best.2);
        let mut index = end;
        while index != start_index {
            let tile = tile_of(index);
            path.push(tile);
            let (dx, dz) = DIRECTIONS[self.came_by[index as usize] as usize];
            // Every node but the start was reached by a step from a node inside the window.
            index = window_index(TilePos {
                x: tile.x - dx,
                z: tile.z - dz,
            })
            .unwrap_or(start_index);
        }
        path.first() == Some(&goal)
    }

    /// Records a node as reached with `cost`, arriving by `direction`.
    fn touch(&mut self, index: u32, cost: u32, direction: u8) {
        let i = index as usize;
        self.seen[i] = self.generation;
        self.cost[i] = cost;
        self.came_by[i] = direction;
    }

    /// Allocates the arrays on first use and starts a new generation.
    fn prepare(&mut self) {
        let nodes = (WINDOW_SIDE * WINDOW_SIDE) as usize;
        if self.seen.len() != nodes {
            self.seen = vec![0; nodes];
            self.closed = vec![0; nodes];
            self.cost = vec![0; nodes];
            self.came_by = vec![0; nodes];
            self.generation = 0;
        }
        if self.generation == u32::MAX {
            self.seen.fill(0);
            self.closed.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
    }
}

/// A walk to plan: from where to where, and the path found (in the walk's own buffer, next step
/// last, as [`Pathfinder::find`] writes it).
#[derive(Debug)]
pub(crate) struct Plan {
    /// The walking player's index in the world.
    pub player: usize,
    pub start: TilePos,
    pub goal: TilePos,
    pub path: Vec<TilePos>,
}

/// Plans a thread takes at a time (`work_sharing::share_blocks`).
const PLANS_PER_BLOCK: usize = 32;

/// The fewest plans a thread is started for: a search on open ground takes a few microseconds, a
/// thread's start and join tens.
pub const PLANS_PER_THREAD: usize = 128;

/// A tick's path searches, on up to as many threads as the tick's views use. A search reads only
/// the map and its own two tiles, so each plan's path is the same whichever thread finds it, and
/// the tick's result does not depend on thread timing. One [`Pathfinder`] (its window arrays,
/// ~3.6 MB) per thread, made on its first use.
#[derive(Debug, Default)]
pub(crate) struct Pathfinders {
    finders: Vec<Pathfinder>,
}

impl Pathfinders {
    /// The first thread's pathfinder, for a single search.
    pub fn one(&mut self) -> &mut Pathfinder {
        if self.finders.is_empty() {
            self.finders.push(Pathfinder::default());
        }
        &mut self.finders[0]
    }

    /// Finds every plan's path on `map`, on up to `threads` threads.
    pub fn plan_all(&mut self, map: &TileMap, plans: &mut [Plan], threads: usize) {
        let threads = threads.min(plans.len() / PLANS_PER_THREAD).max(1);
        if self.finders.len() < threads {
            self.finders.resize_with(threads, Pathfinder::default);
        }
        crate::work_sharing::share_blocks(
            plans,
            PLANS_PER_BLOCK,
            &mut self.finders[..threads],
            |finder, blocks| {
                while let Some((_, block)) = blocks.take() {
                    for plan in block {
                        finder.find(map, plan.start, plan.goal, &mut plan.path);
                    }
                }
            },
        );
    }
}

impl crate::world::World {
    /// The path a player on `start` would walk to `goal`, next step first (empty when already
    /// there or when no step gets closer), with the same search the movement phase uses. For
    /// tools and benchmarks: the tick plans walks itself.
    pub fn find_path(&mut self, start: TilePos, goal: TilePos) -> Vec<TilePos> {
        let mut path = Vec::new();
        self.pathfinders
            .one()
            .find(&self.layout.map, start, goal, &mut path);
        path.reverse();
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tests::from_ascii;

    fn t(x: i32, z: i32) -> TilePos {
        TilePos { x, z }
    }

    /// The path in walking order.
    fn walk(map: &TileMap, start: TilePos, goal: TilePos) -> (bool, Vec<TilePos>) {
        let mut finder = Pathfinder::default();
        let mut path = Vec::new();
        let reached = finder.find(map, start, goal, &mut path);
        path.reverse();
        (reached, path)
    }

    fn assert_steps_legal(map: &TileMap, start: TilePos, path: &[TilePos]) {
        let mut at = start;
        for &next in path {
            assert!(map.can_walk(at, next), "illegal step {at:?} -> {next:?}");
            at = next;
        }
    }

    #[test]
    fn open_ground_is_crossed_in_a_straight_line() {
        let map = from_ascii(&[".........."; 10]);
        let (reached, path) = walk(&map, t(0, 0), t(9, 0));
        assert!(reached);
        assert_eq!(path.len(), 9);
        let (reached, path) = walk(&map, t(0, 0), t(9, 9));
        assert!(reached);
        assert_eq!(path.len(), 9, "diagonals cover both axes at once");
        assert_eq!(path.last(), Some(&t(9, 9)));
    }

    #[test]
    fn a_wall_is_passed_through_its_gap() {
        let map = from_ascii(&[
            ".....#.....",
            ".....#.....",
            "...........",
            ".....#.....",
            ".....#.....",
        ]);
        let (reached, path) = walk(&map, t(0, 0), t(10, 0));
        assert!(reached);
        assert!(path.contains(&t(5, 2)), "goes through the gap: {path:?}");
        assert_steps_legal(&map, t(0, 0), &path);
    }

    #[test]
    fn a_wall_blocks_a_step_and_the_path_goes_through_the_door() {
        use crate::map::{EAST, NORTH, SOUTH, WEST};
        // A 3×3 room (x 3..=5, z 2..=4) walled all round, with a door on its west side at z 3.
        let mut map = from_ascii(&[".........."; 8]);
        for x in 3..=5 {
            map.add_wall(t(x, 2), NORTH);
            map.add_wall(t(x, 4), SOUTH);
        }
        for z in 2..=4 {
            map.add_wall(t(5, z), EAST);
            if z != 3 {
                map.add_wall(t(3, z), WEST);
            }
        }
        map.add_door(t(3, 3), WEST);
        assert!(
            !map.can_walk(t(4, 1), t(4, 2)),
            "the north wall blocks the step"
        );
        let (reached, path) = walk(&map, t(4, 0), t(4, 3));
        assert!(reached);
        assert!(
            path.windows(2).any(|w| w[0] == t(2, 3) && w[1] == t(3, 3)),
            "in through the door: {path:?}"
        );
        assert_steps_legal(&map, t(4, 0), &path);
        // Out of the east side: round by the door again.
        let (reached, path) = walk(&map, t(4, 3), t(7, 3));
        assert!(reached && path.contains(&t(2, 3)), "{path:?}");
    }

    #[test]
    fn corners_are_not_cut() {
        // Going from (0,1) to (1,0) diagonally would squeeze between two blocked tiles.
        let map = from_ascii(&["#..", "..#", "..."]);
        let (reached, path) = walk(&map, t(0, 1), t(1, 0));
        assert!(reached);
        assert_eq!(path.len(), 2, "{path:?}");
        assert_steps_legal(&map, t(0, 1), &path);
    }

    #[test]
    fn an_enclosed_goal_gets_a_partial_path_to_the_closest_tile() {
        let map = from_ascii(&[".........", "...###...", "...#.#...", "...###..."]);
        let (reached, path) = walk(&map, t(0, 2), t(4, 2));
        assert!(!reached);
        assert_eq!(path.last(), Some(&t(2, 2)), "{path:?}");
        assert_steps_legal(&map, t(0, 2), &path);
    }

    #[test]
    fn a_blocked_goal_is_approached() {
        let map = from_ascii(&["......", "....#.", "......"]);
        let (reached, path) = walk(&map, t(0, 1), t(4, 1));
        assert!(!reached);
        assert_eq!(path.last(), Some(&t(3, 1)));
    }

    #[test]
    fn no_path_from_an_isolated_start() {
        let map = from_ascii(&[".#.", "###", "..."]);
        let (reached, path) = walk(&map, t(0, 0), t(2, 2));
        assert!(!reached);
        assert!(path.is_empty());
    }

    #[test]
    fn plans_split_over_threads_are_the_paths_one_search_after_another_finds() {
        // A field of pillars and a walled pen: short walks, detours, a blocked goal, an enclosed one.
        let rows: Vec<String> = (0..40)
            .map(|z| {
                (0..40)
                    .map(|x| match (x, z) {
                        (10..=14, 10) | (10..=14, 14) | (10, 10..=14) | (14, 10..=14) => '#',
                        _ if x % 6 == 3 && z % 4 == 1 => '#',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let map = from_ascii(&rows);
        let plans = || -> Vec<Plan> {
            (0..600)
                .map(|i: i32| Plan {
                    player: i as usize,
                    start: t(i % 40, (i * 7) % 40),
                    goal: t((i * 13) % 40, (i * 3) % 40),
                    path: Vec::new(),
                })
                .filter(|plan| map.is_walkable(plan.start))
                .collect()
        };
        let mut one_by_one = plans();
        let mut finder = Pathfinder::default();
        for plan in &mut one_by_one {
            finder.find(&map, plan.start, plan.goal, &mut plan.path);
        }
        let mut shared = plans();
        assert!(
            shared.len() >= 3 * PLANS_PER_THREAD,
            "enough for three threads"
        );
        let mut pathfinders = Pathfinders::default();
        pathfinders.plan_all(&map, &mut shared, 3);
        assert_eq!(pathfinders.finders.len(), 3, "three threads searched");
        assert!(
            one_by_one.iter().any(|p| p.path.len() > 10),
            "some walks are long"
        );
        let key = |plans: &[Plan]| -> Vec<(usize, Vec<TilePos>)> {
            plans.iter().map(|p| (p.player, p.path.clone())).collect()
        };
        assert_eq!(key(&shared), key(&one_by_one));
        // Once more on the same pathfinders: their state from earlier searches changes nothing.
        let mut again = plans();
        pathfinders.plan_all(&map, &mut again, 3);
        assert_eq!(key(&again), key(&one_by_one));
    }

    #[test]
    fn searches_reuse_their_buffers() {
        let map = from_ascii(&["....."; 5]);
        let mut finder = Pathfinder::default();
        let mut path = Vec::new();
        for _ in 0..3 {
            assert!(finder.find(&map, t(0, 0), t(4, 4), &mut path));
            assert_eq!(path.len(), 4);
        }
        assert_eq!(finder.generation, 3);
    }
}
