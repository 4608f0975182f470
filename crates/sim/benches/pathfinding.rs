//! Micro-benchmarks of the movement phase's path search (`World::find_path`): a straight walk over
//! open ground, and a walk through a serpentine maze of blocking rocks, for 10, 50, 100 and 200
//! tiles between start and goal (200 is the longest move a client may ask for).
//!
//! Run with `cargo bench -p wayfarer-sim --bench pathfinding -- --quick` for a fast estimate.

use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::{json, Value};
use wayfarer_content::{Content, ManifestSet};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::World;

/// Side of the map in tiles.
const MAP_TILES: i32 = 512;
/// Start-to-goal distances (tiles along x).
const DISTANCES: [i32; 4] = [10, 50, 100, 200];
/// Where every walk starts (on both maps).
const START: TilePos = TilePos { x: 100, z: 256 };
/// The maze corridor spans `START.z - MAZE_HALF_HEIGHT ..= START.z + MAZE_HALF_HEIGHT`.
const MAZE_HALF_HEIGHT: i32 = 10;
/// A wall across the corridor every this many columns.
const WALL_EVERY: i32 = 5;

/// The maze: a corridor of rocks around the row of `START`, from one column behind the start to
/// one column past the farthest goal, crossed every [`WALL_EVERY`] columns by a wall with a single
/// gap, at the top and the bottom in turn. Walking through it means zig-zagging the full corridor
/// height between walls: about five times the straight distance.
fn maze_rocks() -> Vec<(i32, i32)> {
    let (left, right) = (START.x - 1, START.x + DISTANCES[3] + 1);
    let (bottom, top) = (START.z - MAZE_HALF_HEIGHT, START.z + MAZE_HALF_HEIGHT);
    let mut rocks = Vec::new();
    // Outer walls.
    for x in left..=right {
        rocks.push((x, bottom - 1));
        rocks.push((x, top + 1));
    }
    for z in bottom..=top {
        rocks.push((left, z));
        rocks.push((right, z));
    }
    // Cross walls at START.x + 3, + 8, … (goals at multiples of 5 stay on open columns).
    for (k, x) in (START.x + 3..right)
        .step_by(WALL_EVERY as usize)
        .enumerate()
    {
        let gap = if k % 2 == 0 { top } else { bottom };
        rocks.extend((bottom..=top).filter(|&z| z != gap).map(|z| (x, z)));
    }
    rocks
}

/// One open area of `MAP_TILES`² with 1×1 blocking rocks at `rocks` (mining rocks, placed the way
/// the simulation tests place them).
fn content(rocks: &[(i32, i32)]) -> Arc<Content> {
    let mut set = ManifestSet::new();
    set.insert(
        "items/resources.json",
        r#"[{"id": "copper_ore", "name": "Copper ore", "type": "resource", "value": 5}]"#,
    );
    set.insert(
        "gathering/mining.json",
        r#"{"rocks": [{"id": "rock_copper", "name": "Copper rock", "type": "ore", "harvestSkill": "mining",
  "toolRequired": "pickaxe", "levelRequired": 1, "respawnTicks": 10,
  "harvestYield": [{"itemId": "copper_ore", "xpAmount": 17.5}]}]}"#,
    );
    let rocks: Vec<Value> = rocks
        .iter()
        .map(|(x, z)| {
            json!({"type": "ore", "resourceId": "rock_copper", "position": {"x": x, "y": 0, "z": z}})
        })
        .collect();
    set.insert(
        "world-areas.json",
        json!({"starterTowns": {"plain": {
            "id": "plain", "name": "Plain",
            "bounds": {"minX": 0, "maxX": MAP_TILES - 1, "minZ": 0, "maxZ": MAP_TILES - 1},
            "spawnPoint": {"x": 0, "y": 0, "z": 0},
            "resources": rocks
        }}})
        .to_string(),
    );
    match Content::from_files(&set) {
        Ok((content, _)) => Arc::new(content),
        Err(report) => panic!("benchmark content is invalid:\n{report}"),
    }
}

fn goal(distance: i32) -> TilePos {
    TilePos {
        x: START.x + distance,
        z: START.z,
    }
}

/// Benchmarks every distance on `world`, after checking that each path reaches its goal and is at
/// least `min_detour` times the straight distance long.
fn distances(c: &mut Criterion, name: &str, world: &mut World, min_detour: usize) {
    let mut group = c.benchmark_group(name);
    for distance in DISTANCES {
        let to = goal(distance);
        let path = world.find_path(START, to);
        assert_eq!(path.last(), Some(&to), "{name}: no path to {to:?}");
        assert!(
            path.len() >= distance as usize * min_detour,
            "{name}: a path of {} steps for {distance} tiles",
            path.len()
        );
        group.bench_with_input(BenchmarkId::from_parameter(distance), &to, |b, &to| {
            b.iter(|| world.find_path(START, to))
        });
    }
    group.finish();
}

fn open_field(c: &mut Criterion) {
    let mut world = World::new(content(&[]), 3);
    distances(c, "find_path/open", &mut world, 1);
}

fn maze(c: &mut Criterion) {
    let mut world = World::new(content(&maze_rocks()), 3);
    distances(c, "find_path/maze", &mut world, 3);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    targets = open_field, maze
}
criterion_main!(benches);
