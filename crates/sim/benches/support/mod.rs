//! What the sim benchmarks share: a deterministic input generator and an open map with wandering
//! goblins (its manifests can be extended, e.g. with items, before building).
//!
//! Every bench compiles its own copy of this module and uses only part of it.
#![allow(dead_code)]

use std::sync::Arc;

use serde_json::json;
use wayfarer_content::{Content, ManifestSet};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::{Command, World};

/// Deterministic inputs (independent of the sim's generator).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: i32) -> i32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as i32
    }
}

/// A walk for player `id` to a random tile within `stride` tiles (each axis) of where it stands
/// (`otherwise` when it is not in the world), each coordinate passed through `keep` (a clamp to
/// the bench's area, or nothing), running as `run` draws after the target. The generator draws x,
/// then z, then `run`: benches stay the same run to run.
pub fn walk_near(
    world: &World,
    id: String,
    rng: &mut Lcg,
    stride: i32,
    otherwise: TilePos,
    keep: impl Fn(i32) -> i32,
    run: impl FnOnce(&mut Lcg) -> bool,
) -> Command {
    let at = world.player_tile(&id).unwrap_or(otherwise);
    let x = keep(at.x - stride + rng.below(2 * stride + 1));
    let z = keep(at.z - stride + rng.below(2 * stride + 1));
    Command::Move {
        id,
        x,
        z,
        run: run(rng),
        reference: None,
    }
}

/// One open area of `side`² tiles (spawn in the middle) with `spawners` goblin spawners of
/// `per_spawner` goblins each, spread over it.
pub fn goblin_plain(side: i32, spawners: usize, per_spawner: u32) -> Arc<Content> {
    build(&plain_manifests(side, spawners, per_spawner))
}

/// The manifests of [`goblin_plain`], for a bench that adds its own before calling [`build`].
pub fn plain_manifests(side: i32, spawners: usize, per_spawner: u32) -> ManifestSet {
    let mut rng = Lcg(5);
    let mobs: Vec<_> = (0..spawners)
        .map(|_| {
            json!({"mobId": "goblin",
                   "position": {"x": rng.below(side), "y": 0, "z": rng.below(side)},
                   "spawnRadius": 6, "maxCount": per_spawner})
        })
        .collect();
    let mut set = ManifestSet::new();
    set.insert(
        "npcs.json",
        json!([{"id": "goblin", "name": "Goblin", "category": "mob",
                "stats": {"level": 2, "health": 5}, "combat": {"attackable": true},
                "movement": {"type": "wander", "speed": 3.33, "wanderRadius": 5}}])
        .to_string(),
    );
    set.insert(
        "world-areas.json",
        json!({"starterTowns": {"plain": {
            "id": "plain", "name": "Plain",
            "bounds": {"minX": 0, "maxX": side - 1, "minZ": 0, "maxZ": side - 1},
            "spawnPoint": {"x": side / 2, "y": 0, "z": side / 2},
            "mobSpawns": mobs
        }}})
        .to_string(),
    );
    set
}

/// The content of benchmark manifests; panics with the report when they are invalid.
pub fn build(set: &ManifestSet) -> Arc<Content> {
    match Content::from_files(set) {
        Ok((content, _)) => Arc::new(content),
        Err(report) => panic!("benchmark content is invalid:\n{report}"),
    }
}

/// Criterion settings of the world-sized benchmarks: few samples, each a whole tick or more.
pub fn world_bench_config() -> criterion::Criterion {
    criterion::Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3))
}
