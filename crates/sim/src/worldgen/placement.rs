//! Spawns by biome: mob spawners on a grid of cells (each biome's mobs and the NPCs whose
//! `spawnBiomes` name it, the least placed first so every type appears), trees scattered on the
//! land of biomes that list `trees`, fishing spots on the shores of biomes that list
//! `fishing_spots`. Only tiles reachable from the spawn and outside safe ground are used.

use std::collections::BTreeMap;

use wayfarer_content::generated::Ground;
use wayfarer_content::{Content, MobSpawn, Position, ResourceSpawn};

use super::noise::{hash01, mix64};
use super::terrain::Grid;

/// Side of the cells that each hold at most one mob spawner, in tiles.
pub const MOB_CELL_TILES: i32 = 40;
/// Mobs alive at once per generated spawner.
pub const MOBS_PER_SPAWNER: u32 = 2;
/// Most generated trees, fishing spots and mob spawners.
pub const MAX_GENERATED_TREES: usize = 1500;
/// See [`MAX_GENERATED_TREES`].
pub const MAX_GENERATED_SPOTS: usize = 300;
/// See [`MAX_GENERATED_TREES`].
pub const MAX_GENERATED_SPAWNERS: usize = 400;
/// Chance that an open land tile of a tree biome holds a tree (times the biome's density).
const TREE_CHANCE: f64 = 1.0 / 700.0;
/// Chance that a shore tile of a fishing biome holds a fishing spot.
const SPOT_CHANCE: f64 = 1.0 / 60.0;

fn at(x: i32, z: i32) -> Position {
    Position {
        x: f64::from(x) + 0.5,
        y: 0.0,
        z: f64::from(z) + 0.5,
    }
}

/// Whether every tile within `r` of (x, z) is open land (not road, town, shore or water).
fn clear(grid: &Grid, x: i32, z: i32, r: i32) -> bool {
    (-r..=r).all(|dz| (-r..=r).all(|dx| grid.ground_at(x + dx, z + dz) == Ground::Land))
}

/// Places mobs and resources; `usable[i]` is true for reachable tiles outside safe ground.
pub(crate) fn place(
    content: &Content,
    grid: &Grid,
    biome_ids: &[String],
    usable: &[bool],
    seed: u64,
) -> (Vec<MobSpawn>, Vec<ResourceSpawn>) {
    let biome_of = |i: usize| {
        biome_ids
            .get(usize::from(grid.biome[i]))
            .map(String::as_str)
    };
    // Mobs each biome may hold.
    let mut mobs_of: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for id in biome_ids {
        let mut list: Vec<&str> = content
            .biomes
            .get(id)
            .map(|b| b.mobs.iter().map(String::as_str).collect())
            .unwrap_or_default();
        for npc in content.npcs.values() {
            if npc.is_mob() && npc.spawn_biomes.iter().any(|b| b == id) {
                list.push(&npc.id);
            }
        }
        list.retain(|m| content.npcs.get(*m).is_some_and(|n| n.is_mob()));
        list.sort_unstable();
        list.dedup();
        mobs_of.insert(id, list);
    }
    let mut placed: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mob_spawns = Vec::new();
    let cells = grid.side / MOB_CELL_TILES;
    'cells: for cz in 0..cells {
        for cx in 0..cells {
            if mob_spawns.len() >= MAX_GENERATED_SPAWNERS {
                break 'cells;
            }
            let ox = (hash01(seed ^ 0x30b, i64::from(cx), i64::from(cz))
                * f64::from(MOB_CELL_TILES)) as i32;
            let oz = (hash01(seed ^ 0x30c, i64::from(cx), i64::from(cz))
                * f64::from(MOB_CELL_TILES)) as i32;
            let (x, z) = (
                grid.min_x + cx * MOB_CELL_TILES + ox,
                grid.min_z + cz * MOB_CELL_TILES + oz,
            );
            let Some(i) = grid.index(x, z) else { continue };
            if !usable[i] || !clear(grid, x, z, 1) {
                continue;
            }
            let Some(list) = biome_of(i).and_then(|b| mobs_of.get(b)) else {
                continue;
            };
            // The least placed of the biome's mobs, so every type gets a spawner somewhere.
            let Some(mob) = list
                .iter()
                .min_by_key(|m| (placed.get(**m).copied().unwrap_or(0), **m))
            else {
                continue;
            };
            *placed.entry(mob).or_default() += 1;
            mob_spawns.push(MobSpawn {
                mob_id: (*mob).to_owned(),
                position: at(x, z),
                spawn_radius: 3.0,
                max_count: MOBS_PER_SPAWNER,
            });
        }
    }

    let mut trees: Vec<&wayfarer_content::GatheringNode> = content
        .gathering
        .values()
        .filter(|n| n.kind == "tree")
        .collect();
    trees.sort_by_key(|n| (n.level, n.id.clone()));
    let mut spots: Vec<&wayfarer_content::GatheringNode> = content
        .gathering
        .values()
        .filter(|n| n.kind == "fishing_spot" || n.id.starts_with("fishing_spot"))
        .collect();
    spots.sort_by_key(|n| n.id.clone());
    let biome_defs: Vec<Option<&wayfarer_content::Biome>> =
        biome_ids.iter().map(|id| content.biomes.get(id)).collect();
    let mut resources = Vec::new();
    let (mut tree_count, mut spot_count) = (0usize, 0usize);
    let tree_seed = mix64(seed ^ 0x7ee);
    let spot_seed = mix64(seed ^ 0x5b07);
    for (i, _) in usable.iter().enumerate().filter(|(_, ok)| **ok) {
        let Some(biome) = biome_defs
            .get(usize::from(grid.biome[i]))
            .copied()
            .flatten()
        else {
            continue;
        };
        let (x, z) = grid.tile(i);
        let has = |kind: &str| biome.resource_types.iter().any(|t| t == kind);
        match grid.ground[i] {
            Ground::Land
                if has("trees") && !trees.is_empty() && tree_count < MAX_GENERATED_TREES =>
            {
                let roll = hash01(tree_seed, i64::from(x), i64::from(z));
                if roll < TREE_CHANCE * biome.resource_density.clamp(0.0, 10.0)
                    && clear(grid, x, z, 2)
                {
                    // Harder biomes grow the better trees: the first (easiest) third of the list
                    // everywhere, more of it with each difficulty level.
                    let reach = (trees.len() * (biome.difficulty as usize + 1))
                        .div_ceil(3)
                        .clamp(1, trees.len());
                    let pick =
                        (hash01(tree_seed ^ 1, i64::from(x), i64::from(z)) * reach as f64) as usize;
                    let node = trees[pick.min(reach - 1)];
                    resources.push(ResourceSpawn {
                        resource_id: node.id.clone(),
                        kind: node.kind.clone(),
                        position: at(x, z),
                    });
                    tree_count += 1;
                }
            }
            Ground::Shore
                if has("fishing_spots")
                    && !spots.is_empty()
                    && spot_count < MAX_GENERATED_SPOTS
                    && hash01(spot_seed, i64::from(x), i64::from(z)) < SPOT_CHANCE =>
            {
                // In turn, so every kind of spot is somewhere: on the water beside this shore
                // tile (CONTRACT §13: spots stand on water next to a walkable tile).
                let node = spots[spot_count % spots.len()];
                let wet = [(1, 0), (-1, 0), (0, 1), (0, -1)]
                    .into_iter()
                    .find(|(dx, dz)| grid.ground_at(x + dx, z + dz) == Ground::Water);
                if let Some((dx, dz)) = wet {
                    resources.push(ResourceSpawn {
                        resource_id: node.id.clone(),
                        kind: node.kind.clone(),
                        position: at(x + dx, z + dz),
                    });
                    spot_count += 1;
                }
            }
            _ => {}
        }
    }
    (mob_spawns, resources)
}
