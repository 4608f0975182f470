//! The generator's settings, read from `world-config.json` (typed parts from `WorldConfig`, the rest
//! from its raw JSON), each with a default for a key the file leaves out.

use serde_json::Value;
use wayfarer_content::WorldConfig;

use super::noise::{mix64, Fbm};
use crate::map::MAX_MAP_SIDE_TILES;

/// Smallest generated world side, in tiles.
pub const MIN_WORLD_SIDE_TILES: i32 = 64;

/// Everything the generator reads.
#[derive(Debug, Clone)]
pub(crate) struct Params {
    pub side: i32,
    pub max_height: f64,
    /// Water threshold as a fraction of `max_height`.
    pub water: f64,
    pub continent: Fbm,
    pub detail: Fbm,
    pub island: bool,
    pub coast: Fbm,
    pub coast_amount: f64,
    pub ponds: u32,
    pub pond_sizes: (f64, f64),
    pub pond_depth: f64,
    pub terrain_seed: u64,
    pub biome_seed: u64,
    pub cell_size: f64,
    pub jitter: f64,
    pub coupling: Option<(f64, f64)>,
    pub town_seed: u64,
    pub town_spacing: f64,
    pub road_width: f64,
    pub road_step: i32,
    pub extra_roads: f64,
    pub slope_cost: f64,
    pub water_cost: f64,
    pub heuristic: f64,
    pub seed: u64,
}

fn f(v: &Value, path: &str, default: f64) -> f64 {
    v.pointer(path)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
        .unwrap_or(default)
}

fn b(v: &Value, path: &str, default: bool) -> bool {
    v.pointer(path).and_then(Value::as_bool).unwrap_or(default)
}

impl Params {
    /// The settings for `config`, every seed mixed with `world_seed` when one is set.
    pub fn read(config: &WorldConfig, world_seed: Option<u64>) -> Option<Params> {
        let terrain = config.terrain.as_ref()?;
        let towns = config.towns.as_ref();
        let raw = &config.raw;
        let mixed = |seed: u64| match world_seed {
            Some(w) => mix64(seed ^ mix64(w)),
            None => seed,
        };
        let terrain_seed = mixed(terrain.seed);
        let fbm = |key: &str, scale, octaves, persistence, lacunarity, salt: u64| Fbm {
            seed: mix64(terrain_seed ^ salt),
            scale: f(raw, &format!("/terrain/noise/{key}/scale"), scale),
            octaves: f(raw, &format!("/terrain/noise/{key}/octaves"), octaves) as u32,
            persistence: f(
                raw,
                &format!("/terrain/noise/{key}/persistence"),
                persistence,
            ),
            lacunarity: f(raw, &format!("/terrain/noise/{key}/lacunarity"), lacunarity),
        };
        let world_size = towns.map_or(0.0, |t| t.world_size);
        let world_size = if world_size > 0.0 {
            world_size
        } else {
            f(raw, "/towns/worldSize", 1000.0)
        };
        let side = (world_size.round() as i64).clamp(
            i64::from(MIN_WORLD_SIDE_TILES),
            i64::from(MAX_MAP_SIDE_TILES),
        ) as i32;
        let max_height = if terrain.max_height > 0.0 {
            terrain.max_height
        } else {
            30.0
        };
        let sizes = raw
            .pointer("/terrain/island/ponds/sizeRange")
            .and_then(Value::as_array)
            .map(|a| {
                (
                    a.first().and_then(Value::as_f64).unwrap_or(3.0),
                    a.get(1).and_then(Value::as_f64).unwrap_or(8.0),
                )
            })
            .unwrap_or((3.0, 8.0));
        let coupling = b(raw, "/biomes/heightCoupling/enabled", false).then(|| {
            (
                f(raw, "/biomes/heightCoupling/mountainThreshold", 0.65),
                f(raw, "/biomes/heightCoupling/valleyThreshold", 0.25),
            )
        });
        let seed = mixed(
            terrain.seed
                ^ config.biome_seed.unwrap_or(0).rotate_left(21)
                ^ towns.map_or(0, |t| t.seed).rotate_left(42),
        );
        Some(Params {
            side,
            max_height,
            water: (terrain.water_threshold / max_height).clamp(0.0, 0.9),
            continent: fbm("continent", 0.005, 4.0, 0.5, 2.0, 1),
            detail: fbm("detail", 0.02, 3.0, 0.4, 2.2, 2),
            island: b(raw, "/terrain/island/enabled", true),
            coast: Fbm {
                seed: mix64(terrain_seed ^ 3),
                scale: f(raw, "/terrain/island/coastlineNoise/scale", 0.02),
                octaves: 2,
                persistence: 0.5,
                lacunarity: 2.0,
            },
            coast_amount: f(raw, "/terrain/island/coastlineNoise/amount", 0.1).clamp(0.0, 0.5),
            ponds: if b(raw, "/terrain/island/ponds/enabled", false) {
                f(raw, "/terrain/island/ponds/count", 0.0).clamp(0.0, 64.0) as u32
            } else {
                0
            },
            pond_sizes: (
                sizes.0.clamp(1.0, 50.0),
                sizes.1.clamp(sizes.0.clamp(1.0, 50.0), 50.0),
            ),
            pond_depth: f(raw, "/terrain/island/ponds/depth", 0.15).clamp(0.01, 1.0),
            terrain_seed,
            biome_seed: mixed(config.biome_seed.unwrap_or(terrain.seed)),
            cell_size: f(raw, "/biomes/cellSize", 200.0).clamp(16.0, 4096.0),
            jitter: f(raw, "/biomes/jitterAmount", 0.4).clamp(0.0, 1.0),
            coupling,
            town_seed: mixed(towns.map_or(terrain.seed, |t| t.seed)),
            town_spacing: f(raw, "/towns/minTownSpacing", world_size / 4.0).max(0.0),
            road_width: f(raw, "/roads/width", 6.0).clamp(1.0, 32.0),
            road_step: f(raw, "/roads/pathStepSize", 10.0).clamp(2.0, 64.0) as i32,
            extra_roads: f(raw, "/roads/extraConnectionsRatio", 0.3).clamp(0.0, 1.0),
            slope_cost: f(raw, "/roads/pathfinding/costSlopeMultiplier", 5.0).max(0.0),
            water_cost: f(raw, "/roads/pathfinding/costWaterPenalty", 1000.0).max(0.0),
            heuristic: f(raw, "/roads/pathfinding/heuristicWeight", 1.0).clamp(1.0, 10.0),
            seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(world_size: f64) -> WorldConfig {
        let raw = serde_json::json!({
            "terrain": {"seed": 1, "tileSize": 100, "maxHeight": 30, "waterThreshold": 5.4},
            "towns": {"seed": 2, "worldSize": world_size}
        });
        WorldConfig {
            terrain: Some(wayfarer_content::TerrainConfig {
                seed: 1,
                tile_size: 100.0,
                tile_resolution: None,
                max_height: 30.0,
                water_threshold: 5.4,
                preset: None,
            }),
            towns: Some(wayfarer_content::TownsConfig {
                seed: 2,
                enabled: true,
                count: 0,
                world_size,
                sizes: Default::default(),
                preferred_biomes: Vec::new(),
                avoid_biomes: Vec::new(),
            }),
            generate: true,
            raw,
            ..WorldConfig::default()
        }
    }

    #[test]
    fn the_world_side_is_clamped_to_the_map_limits() {
        let side = |size: f64| Params::read(&config(size), None).unwrap().side;
        assert_eq!(side(63.0), MIN_WORLD_SIDE_TILES);
        assert_eq!(side(64.0), 64);
        assert_eq!(side(1000.0), 1000);
        assert_eq!(side(4096.0), MAX_MAP_SIDE_TILES);
        assert_eq!(side(4097.0), MAX_MAP_SIDE_TILES);
    }

    #[test]
    fn world_seed_is_mixed_into_every_seed() {
        let plain = Params::read(&config(1000.0), None).unwrap();
        let seeded = Params::read(&config(1000.0), Some(7)).unwrap();
        assert_eq!(
            plain.terrain_seed, 1,
            "without WORLD_SEED the config's seed"
        );
        assert_ne!(seeded.terrain_seed, plain.terrain_seed);
        assert_ne!(seeded.town_seed, plain.town_seed);
        assert_ne!(seeded.biome_seed, plain.biome_seed);
        assert_eq!(
            Params::read(&config(1000.0), Some(7)).unwrap().terrain_seed,
            seeded.terrain_seed
        );
    }
}
