//! Roads: the towns and hand-placed areas joined by a minimum spanning tree plus the config's share
//! of extra shortest links, each found by A* over a coarse grid (`pathStepSize` tiles a cell) with
//! the config's slope and water costs, then drawn `width` wide. A road over water is a bridge
//! (`Ground::Bridge`).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use wayfarer_content::generated::Ground;

use super::params::Params;
use super::terrain::Grid;

/// Most cells one A* search expands before giving up on a link (the direct line is drawn instead).
pub const MAX_ROAD_EXPANSIONS: usize = 200_000;

/// Which pairs of `points` get a road: a minimum spanning tree by distance, then the shortest
/// remaining pairs, `ratio` × the tree's size of them.
pub(crate) fn links(points: &[(i32, i32)], ratio: f64) -> Vec<(usize, usize)> {
    let n = points.len();
    if n < 2 {
        return Vec::new();
    }
    let dist = |a: usize, b: usize| {
        let (p, q) = (points[a], points[b]);
        i64::from(p.0 - q.0).pow(2) + i64::from(p.1 - q.1).pow(2)
    };
    let mut inside = vec![false; n];
    inside[0] = true;
    let mut edges = Vec::new();
    for _ in 1..n {
        let mut best: Option<(i64, usize, usize)> = None;
        for a in (0..n).filter(|&a| inside[a]) {
            for b in (0..n).filter(|&b| !inside[b]) {
                let key = (dist(a, b), a, b);
                if best.is_none_or(|k| key < k) {
                    best = Some(key);
                }
            }
        }
        let Some((_, a, b)) = best else { break };
        inside[b] = true;
        edges.push((a.min(b), a.max(b)));
    }
    let mut rest: Vec<(i64, usize, usize)> = (0..n)
        .flat_map(|a| ((a + 1)..n).map(move |b| (a, b)))
        .filter(|e| !edges.contains(e))
        .map(|(a, b)| (dist(a, b), a, b))
        .collect();
    rest.sort();
    let extra = (ratio * edges.len() as f64).round() as usize;
    edges.extend(rest.into_iter().take(extra).map(|(_, a, b)| (a, b)));
    edges
}

/// The coarse-grid path from `from` to `to` as tiles (cell centres), A* with the config's costs.
fn route(p: &Params, grid: &Grid, from: (i32, i32), to: (i32, i32)) -> Vec<(i32, i32)> {
    let step = p.road_step;
    let cell = |t: (i32, i32)| {
        (
            (t.0 - grid.min_x).div_euclid(step),
            (t.1 - grid.min_z).div_euclid(step),
        )
    };
    let cells = grid.side.div_euclid(step) + 1;
    let centre = |c: (i32, i32)| {
        let x = (grid.min_x + c.0 * step + step / 2).min(grid.min_x + grid.side - 1);
        let z = (grid.min_z + c.1 * step + step / 2).min(grid.min_z + grid.side - 1);
        (x, z)
    };
    let h = |c: (i32, i32)| {
        let (x, z) = centre(c);
        grid.index(x, z)
            .map_or(0.0, |i| f64::from(grid.height[i]) * p.max_height)
    };
    let wet = |c: (i32, i32)| {
        let (x, z) = centre(c);
        grid.ground_at(x, z) == Ground::Water
    };
    let (start, goal) = (cell(from), cell(to));
    let estimate = |c: (i32, i32)| {
        f64::from(c.0 - goal.0).hypot(f64::from(c.1 - goal.1)) * f64::from(step) * p.heuristic
    };
    // Costs are kept in thousandths so the heap orders integers.
    let mut open = BinaryHeap::new();
    let mut cost: HashMap<(i32, i32), f64> = HashMap::new();
    let mut came: HashMap<(i32, i32), (i32, i32)> = HashMap::new();
    cost.insert(start, 0.0);
    open.push(Reverse(((estimate(start) * 1000.0) as u64, start)));
    let mut expanded = 0;
    let mut reached = false;
    while let Some(Reverse((_, c))) = open.pop() {
        if c == goal {
            reached = true;
            break;
        }
        expanded += 1;
        if expanded > MAX_ROAD_EXPANSIONS {
            break;
        }
        let here = cost[&c];
        for (dx, dz) in crate::map::DIRECTIONS {
            let n = (c.0 + dx, c.1 + dz);
            if n.0 < 0 || n.1 < 0 || n.0 >= cells || n.1 >= cells {
                continue;
            }
            let length = f64::from(step) * if dx != 0 && dz != 0 { 1.414 } else { 1.0 };
            let slope = (h(n) - h(c)).abs() / f64::from(step);
            let mut g = here + length * (1.0 + p.slope_cost * slope);
            if wet(n) {
                g += p.water_cost;
            }
            if cost.get(&n).is_none_or(|&old| g < old) {
                cost.insert(n, g);
                came.insert(n, c);
                open.push(Reverse((((g + estimate(n)) * 1000.0) as u64, n)));
            }
        }
    }
    let mut path = vec![to];
    if reached {
        let mut c = goal;
        while let Some(&prev) = came.get(&c) {
            if prev != start {
                path.push(centre(prev));
            }
            c = prev;
        }
    }
    path.push(from);
    path.reverse();
    path
}

/// Draws a line of discs `radius` tiles wide from `a` to `b` (a 4-connected trail: walkable
/// without cutting a corner).
fn draw(grid: &mut Grid, a: (i32, i32), b: (i32, i32), radius: i32) {
    let (mut x, mut z) = a;
    let (dx, dz) = ((b.0 - a.0).abs(), -(b.1 - a.1).abs());
    let (sx, sz) = (
        if a.0 < b.0 { 1 } else { -1 },
        if a.1 < b.1 { 1 } else { -1 },
    );
    let mut err = dx + dz;
    loop {
        for oz in -radius..=radius {
            for ox in -radius..=radius {
                if ox * ox + oz * oz <= radius * radius + radius {
                    if let Some(i) = grid.index(x + ox, z + oz) {
                        grid.ground[i] = match grid.ground[i] {
                            Ground::Water | Ground::Bridge => Ground::Bridge,
                            _ => Ground::Road,
                        };
                    }
                }
            }
        }
        if (x, z) == b {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dz {
            err += dz;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            z += sz;
        }
    }
}

/// Lays the roads between `points`; returns how many links were drawn.
pub(crate) fn lay(p: &Params, grid: &mut Grid, points: &[(i32, i32)]) -> usize {
    let radius = ((p.road_width / 2.0).round() as i32 - 1).max(1);
    let pairs = links(points, p.extra_roads);
    for &(a, b) in &pairs {
        let path = route(p, grid, points[a], points[b]);
        for w in path.windows(2) {
            draw(grid, w[0], w[1], radius);
        }
    }
    pairs.len()
}
