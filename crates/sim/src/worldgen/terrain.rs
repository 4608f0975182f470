//! The island: heights from continent and detail noise under an island falloff with a noisy
//! coastline, ponds cut below the water, land forced where content placed things by hand, and
//! biomes from jittered cells weighted by the distribution, bent by height.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wayfarer_content::generated::Ground;

use super::noise::{hash01, mix64};
use super::params::Params;

/// The square being generated: per-tile height (fraction of `maxHeight`), ground and biome.
#[derive(Debug, Clone)]
pub(crate) struct Grid {
    pub min_x: i32,
    pub min_z: i32,
    pub side: i32,
    pub height: Vec<f32>,
    pub ground: Vec<Ground>,
    pub biome: Vec<u8>,
}

impl Grid {
    /// Index of a tile inside the square.
    pub fn index(&self, x: i32, z: i32) -> Option<usize> {
        let (dx, dz) = (x - self.min_x, z - self.min_z);
        (dx >= 0 && dz >= 0 && dx < self.side && dz < self.side)
            .then(|| (dz as usize) * (self.side as usize) + dx as usize)
    }

    /// The tile of an index.
    pub fn tile(&self, i: usize) -> (i32, i32) {
        let side = self.side as usize;
        (
            self.min_x + (i % side) as i32,
            self.min_z + (i / side) as i32,
        )
    }

    /// Ground at a tile (water outside).
    pub fn ground_at(&self, x: i32, z: i32) -> Ground {
        self.index(x, z).map_or(Ground::Water, |i| self.ground[i])
    }
}

fn smoothstep(a: f64, b: f64, x: f64) -> f64 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A rectangle of tiles by its inclusive corners.
pub(crate) type Rect = ((i32, i32), (i32, i32));

/// Heights and water for the square centred on (0, 0); `forced` rectangles (inclusive tile
/// corners) are lifted above the water.
pub(crate) fn island(p: &Params, forced: &[Rect]) -> Grid {
    let side = p.side;
    let min = -(side / 2);
    let half = f64::from(side) / 2.0;
    let n = (side as usize) * (side as usize);
    let mut height = vec![0f32; n];
    // Ponds: discs whose middle sinks below the water by `depth`.
    let mut rng = ChaCha8Rng::seed_from_u64(mix64(p.terrain_seed ^ 0x90d5));
    let ponds: Vec<(f64, f64, f64)> = (0..p.ponds)
        .map(|_| {
            let angle = rng.random_range(0.0..std::f64::consts::TAU);
            let dist = rng.random_range(0.15..0.6) * half;
            // `sizeRange` is in terrain units of three tiles.
            let r = rng.random_range(p.pond_sizes.0..=p.pond_sizes.1) * 3.0;
            (angle.cos() * dist, angle.sin() * dist, r)
        })
        .collect();
    // The continent noise changes over hundreds of tiles: sampled every COARSE tiles and
    // interpolated, it looks the same and costs a sixteenth.
    const COARSE: i32 = 4;
    let coarse_side = side / COARSE + 2;
    let coarse: Vec<f64> = (0..coarse_side * coarse_side)
        .map(|i| {
            let (cx, cz) = (i % coarse_side, i / coarse_side);
            p.continent
                .at(f64::from(min + cx * COARSE), f64::from(min + cz * COARSE))
        })
        .collect();
    let continent = |xi: i32, zi: i32| {
        let (cx, cz) = (xi / COARSE, zi / COARSE);
        let (fx, fz) = (
            f64::from(xi % COARSE) / f64::from(COARSE),
            f64::from(zi % COARSE) / f64::from(COARSE),
        );
        let at = |x: i32, z: i32| coarse[(z * coarse_side + x) as usize];
        let top = at(cx, cz) + (at(cx + 1, cz) - at(cx, cz)) * fx;
        let bottom = at(cx, cz + 1) + (at(cx + 1, cz + 1) - at(cx, cz + 1)) * fx;
        top + (bottom - top) * fz
    };
    for zi in 0..side {
        let z = f64::from(min + zi);
        for xi in 0..side {
            let x = f64::from(min + xi);
            let c = continent(xi, zi);
            let d = p.detail.at(x, z);
            let shape = ((0.75 * c + 0.25 * d - 0.2) / 0.6).clamp(0.0, 1.0);
            let mut h = 0.22 + 0.78 * shape;
            if p.island {
                let r =
                    (x * x + z * z).sqrt() / half + (p.coast.at(x, z) - 0.5) * 2.0 * p.coast_amount;
                h *= 1.0 - smoothstep(0.72, 0.97, r);
            }
            for (px, pz, pr) in &ponds {
                let dd = ((x - px).powi(2) + (z - pz).powi(2)).sqrt() / pr;
                if dd < 1.0 {
                    h = h.min(p.water - p.pond_depth * (1.0 - dd * dd) - 0.001);
                }
            }
            height[(zi as usize) * (side as usize) + xi as usize] = h as f32;
        }
    }
    let mut grid = Grid {
        min_x: min,
        min_z: min,
        side,
        height,
        ground: vec![Ground::Land; n],
        biome: vec![0; n],
    };
    let dry = (p.water + 0.02) as f32;
    for ((x0, z0), (x1, z1)) in forced {
        for z in *z0..=*z1 {
            for x in *x0..=*x1 {
                if let Some(i) = grid.index(x, z) {
                    grid.height[i] = grid.height[i].max(dry);
                }
            }
        }
    }
    let water = p.water as f32;
    for i in 0..n {
        if grid.height[i] < water {
            grid.ground[i] = Ground::Water;
        }
    }
    mark_shores(&mut grid);
    grid
}

/// Land next to water (four neighbours) becomes shore.
pub(crate) fn mark_shores(grid: &mut Grid) {
    for i in 0..grid.ground.len() {
        if grid.ground[i] != Ground::Land {
            continue;
        }
        let (x, z) = grid.tile(i);
        let wet = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .iter()
            .any(|(dx, dz)| grid.ground_at(x + dx, z + dz) == Ground::Water);
        if wet {
            grid.ground[i] = Ground::Shore;
        }
    }
}

/// Biomes: each cell of `cellSize` tiles has a jittered centre and a biome drawn by weight; a tile
/// takes the biome of the nearest centre, except that height coupling makes the highest land
/// `mountains` and the lowest `valley` where those biomes exist (thresholds as fractions of the
/// height above the water). Returns the biome ids by index.
pub(crate) fn biomes(
    p: &Params,
    grid: &mut Grid,
    distribution: &BTreeMap<String, f64>,
) -> Vec<String> {
    let mut ids: Vec<String> = distribution
        .iter()
        .filter(|(_, w)| **w > 0.0)
        .map(|(id, _)| id.clone())
        .collect();
    if ids.is_empty() {
        ids = distribution.keys().cloned().collect();
    }
    if ids.is_empty() {
        return vec!["land".to_owned()];
    }
    let total: f64 = ids.iter().map(|id| distribution[id].max(0.0)).sum();
    let pick = |u: f64| -> u8 {
        let mut acc = 0.0;
        for (i, id) in ids.iter().enumerate() {
            acc += distribution[id].max(0.0) / total.max(f64::MIN_POSITIVE);
            if u < acc {
                return i as u8;
            }
        }
        (ids.len() - 1) as u8
    };
    let index_of = |name: &str| ids.iter().position(|id| id == name).map(|i| i as u8);
    let (mountains, valley) = (index_of("mountains"), index_of("valley"));
    let cell = p.cell_size;
    // Every cell's jittered centre and biome, worked out once: one ring of cells beyond the square.
    let first = (f64::from(grid.min_x) / cell).floor() as i64 - 1;
    let first_z = (f64::from(grid.min_z) / cell).floor() as i64 - 1;
    let across = (f64::from(grid.side) / cell).ceil() as i64 + 3;
    let cells: Vec<(f64, f64, u8)> = (0..across * across)
        .map(|k| {
            let (cx, cz) = (first + k % across, first_z + k / across);
            let jx = (hash01(p.biome_seed, cx, cz) - 0.5) * p.jitter;
            let jz = (hash01(p.biome_seed ^ 0xabcd, cx, cz) - 0.5) * p.jitter;
            (
                (cx as f64 + 0.5 + jx) * cell,
                (cz as f64 + 0.5 + jz) * cell,
                pick(hash01(mix64(p.biome_seed ^ 0x51), cx, cz)),
            )
        })
        .collect();
    for i in 0..grid.ground.len() {
        let (x, z) = grid.tile(i);
        let (fx, fz) = (f64::from(x), f64::from(z));
        let (cx, cz) = ((fx / cell).floor() as i64, (fz / cell).floor() as i64);
        let mut best = (f64::MAX, 0u8);
        for dz in -1..=1 {
            for dx in -1..=1 {
                let k = (cz + dz - first_z) * across + (cx + dx - first);
                let (px, pz, biome) = cells[k as usize];
                let d = (px - fx).powi(2) + (pz - fz).powi(2);
                if d < best.0 {
                    best = (d, biome);
                }
            }
        }
        let mut biome = best.1;
        if let Some((high, low)) = p.coupling {
            // Thresholds are fractions of the land's height, from the water up.
            let h = (f64::from(grid.height[i]) - p.water) / (1.0 - p.water).max(0.01);
            if h >= high {
                biome = mountains.unwrap_or(biome);
            } else if (0.0..=low).contains(&h) {
                biome = valley.unwrap_or(biome);
            }
        }
        grid.biome[i] = biome;
    }
    ids
}
