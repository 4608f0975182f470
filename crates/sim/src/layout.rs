//! What content places in the world: the walkable map, the spawn tile, and the fixed spawns (NPCs, mob
//! spawners, gathering resources). Every spawn carries a key that stays the same across content
//! reloads, so a reload can keep what did not change.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wayfarer_content::generated::Ground;
use wayfarer_content::{
    model_bounds::footprint_tiles, ticks::TICK_MS, Content, MobSpawn, Npc, Position, ResourceSpawn,
};
use wayfarer_protocol::ws::TilePos;

use crate::map::{footprint, TileMap, MAX_MAP_SIDE_TILES};

/// Most procedural fishing spots placed in one area, whatever `spotCount` says.
pub const MAX_FISHING_SPOTS_PER_AREA: u32 = 256;
/// Random tiles tried for one procedural fishing spot before it is left out.
pub const FISHING_PLACEMENT_ATTEMPTS: u32 = 64;
/// Largest spawn or wander radius honoured, in tiles.
pub const MAX_ROAM_RADIUS_TILES: i32 = 64;
/// Fastest an NPC moves, in tiles per tick.
pub const MAX_NPC_TILES_PER_TICK: u32 = 4;
/// Size of one tile in world units (positions in content are world units).
const TILE_SIZE: f64 = 1.0;
/// Content coordinates are clamped to ± this many tiles, so tile arithmetic (neighbours, spawn
/// offsets, search windows) can never overflow whatever numbers a manifest holds.
pub const COORDINATE_LIMIT_TILES: i32 = 1 << 30;

/// The tile of a world-unit coordinate (floor), clamped to [`COORDINATE_LIMIT_TILES`].
fn tile_coordinate(units: f64) -> i32 {
    let limit = f64::from(COORDINATE_LIMIT_TILES);
    // `as` saturates and maps NaN to 0; the clamp keeps the result in the safe range.
    (units / TILE_SIZE).floor().clamp(-limit, limit) as i32
}

/// The tile holding a content position.
pub(crate) fn tile_of(position: &Position) -> TilePos {
    TilePos {
        x: tile_coordinate(position.x),
        z: tile_coordinate(position.z),
    }
}

/// A fixed NPC (banker, shopkeeper, quest giver): stands where content puts it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NpcPlacement {
    pub key: String,
    pub npc_id: String,
    pub name: String,
    pub health: i64,
    pub tile: TilePos,
    /// The spawn's role label (`bank` makes a banker).
    pub role: Option<String>,
    /// The store this NPC runs (the area spawn's `storeId`).
    pub store_id: Option<String>,
}

/// A mob spawner: `count` mobs appear within `spawn_radius` of `centre`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MobPlacement {
    pub key: String,
    pub npc_id: String,
    pub name: String,
    pub health: i64,
    pub centre: TilePos,
    pub spawn_radius: i32,
    pub count: u32,
    /// How far a mob strays from the tile it spawned on; 0 stands still.
    pub wander_radius: i32,
    pub tiles_per_tick: u32,
}

/// What a resource entity is: all four are entities of kind `resource` so clients can target them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placed {
    /// A gathering node (`resource_id` is its gathering id).
    Node,
    /// A crafting station (`resource_id` is the station type: furnace, anvil, range, bank, altar).
    Station,
    /// A fire a player lit (`resource_id` is `fire`); not part of any layout.
    Fire,
    /// A door or gate on a tile's side (`resource_id` is `door` or `gate`; `side` says which).
    Door,
}

/// A resource entity: a gathering node (tree, rock, fishing spot), a station, or a lit fire.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResourcePlacement {
    /// Node, station or fire.
    pub what: Placed,
    pub key: String,
    pub resource_id: String,
    pub name: String,
    pub resource_type: String,
    pub tile: TilePos,
    /// The blocked rectangle (min and max corners, inclusive): a player is next to the resource
    /// when within one tile of it.
    pub extent: (TilePos, TilePos),
    /// A door's side of `tile` (a wall bit, `map::NORTH` …); 0 for everything else.
    pub side: u8,
}

impl ResourcePlacement {
    /// Whether this is a procedurally placed fishing spot (content places the others on purpose,
    /// so only these move about).
    pub fn is_procedural_spot(&self) -> bool {
        self.what == Placed::Node && self.key.contains(PROCEDURAL_SPOT_KEY)
    }
}

/// The first part of the keys of spawns the world generator placed by biome.
const GENERATED_KEY: &str = "generated";

/// The part of a procedural fishing spot's key that names it as one.
const PROCEDURAL_SPOT_KEY: &str = "/fishing/";

/// Everything content places, built by [`Layout::build`].
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub map: TileMap,
    pub spawn: TilePos,
    pub npcs: Vec<NpcPlacement>,
    pub mobs: Vec<MobPlacement>,
    pub resources: Vec<ResourcePlacement>,
    /// Buildings, grounds, props and points of interest, as `GET /api/map` serves them.
    pub features: crate::features::MapFeatures,
}

/// 64-bit FNV-1a, a hash that is the same on every platform and Rust release.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The tiles from `lo` to `hi` inclusive, clipped so the span is at most `max` long and, when it is
/// longer, centred on `centre` as far as the span allows.
fn clip_axis(lo: i32, hi: i32, centre: i32, max: i32) -> (i32, i32) {
    if i64::from(hi) - i64::from(lo) < i64::from(max) {
        return (lo, hi);
    }
    let start = centre
        .saturating_sub(max / 2)
        .clamp(lo, hi.saturating_sub(max - 1));
    (start, start + max - 1)
}

/// A world-unit length in whole tiles for a radius.
fn radius_tiles(units: f64) -> i32 {
    if units.is_finite() && units > 0.0 {
        (units / TILE_SIZE)
            .round()
            .min(f64::from(MAX_ROAM_RADIUS_TILES)) as i32
    } else {
        0
    }
}

/// The tiles one gathering node or station covers: its model's bounds at its scale, else 1×1.
fn model_footprint(content: &Content, model: Option<&str>, scale: f64) -> (u32, u32) {
    model
        .and_then(|m| content.model_bounds.get(m))
        .map_or((1, 1), |b| {
            (
                footprint_tiles(b.dimensions.x, scale, TILE_SIZE),
                footprint_tiles(b.dimensions.z, scale, TILE_SIZE),
            )
        })
}

/// Display health of an NPC.
fn npc_health(npc: &Npc) -> i64 {
    i64::from(npc.stats.health)
}

/// Tiles per tick for an NPC's speed in world units per second.
fn npc_tiles_per_tick(npc: &Npc) -> u32 {
    let per_tick = npc.movement.speed * TICK_MS as f64 / 1000.0 / TILE_SIZE;
    if per_tick.is_finite() && per_tick >= 1.0 {
        (per_tick.round() as u32).min(MAX_NPC_TILES_PER_TICK)
    } else {
        1
    }
}

impl Layout {
    /// Builds the map and spawns of `content`. Procedural placements (fishing spots) draw from a
    /// generator seeded by `seed` and the area id, so a reload places them identically.
    pub fn build(content: &Content, seed: u64) -> Layout {
        let spawn_hint = tile_of(&content.spawn_point());
        let rects: Vec<(TilePos, TilePos)> = content
            .areas
            .values()
            .filter(|a| a.bounds.min_x <= a.bounds.max_x && a.bounds.min_z <= a.bounds.max_z)
            .map(|a| {
                (
                    TilePos {
                        x: tile_coordinate(a.bounds.min_x),
                        z: tile_coordinate(a.bounds.min_z),
                    },
                    TilePos {
                        x: tile_coordinate(a.bounds.max_x),
                        z: tile_coordinate(a.bounds.max_z),
                    },
                )
            })
            .collect();
        // The box is the union of the areas (just the spawn tile when there are none).
        let (lo, hi) = rects.iter().fold(
            rects.first().copied().unwrap_or((spawn_hint, spawn_hint)),
            |(lo, hi), (a, b)| {
                (
                    TilePos {
                        x: lo.x.min(a.x),
                        z: lo.z.min(a.z),
                    },
                    TilePos {
                        x: hi.x.max(b.x),
                        z: hi.z.max(b.z),
                    },
                )
            },
        );
        let generated = content.generated.as_deref();
        let (x0, x1, z0, z1) = match generated {
            // A generated world is its square: the walkable ground is the land, roads and towns.
            Some(world) => (
                world.min.x,
                world.min.x + world.side - 1,
                world.min.z,
                world.min.z + world.side - 1,
            ),
            None => {
                let (x0, x1) = clip_axis(lo.x, hi.x, spawn_hint.x, MAX_MAP_SIDE_TILES);
                let (z0, z1) = clip_axis(lo.z, hi.z, spawn_hint.z, MAX_MAP_SIDE_TILES);
                (x0, x1, z0, z1)
            }
        };
        let mut map = TileMap::blocked(TilePos { x: x0, z: z0 }, x1 - x0 + 1, z1 - z0 + 1);
        if let Some(world) = generated {
            for z in z0..=z1 {
                for x in x0..=x1 {
                    match world.ground_at(x, z) {
                        Ground::Water => map.set_water(TilePos { x, z }),
                        g if g.walkable() => map.set(TilePos { x, z }, true),
                        _ => {}
                    }
                }
            }
        } else {
            for (a, b) in &rects {
                map.open_rect(*a, *b);
            }
        }
        if rects.is_empty() && generated.is_none() {
            // Content without areas still needs somewhere to stand: the spawn tile.
            map.set(spawn_hint, true);
        }
        let (doors, mut features) = crate::features::lay(content, &mut map);

        let block = |map: &mut TileMap, centre: TilePos, (w, d): (u32, u32)| {
            let (a, b) = footprint(centre, w, d);
            for z in a.z..=b.z {
                for x in a.x..=b.x {
                    map.set(TilePos { x, z }, false);
                }
            }
        };

        let mut npcs = Vec::new();
        let mut mobs = Vec::new();
        let mut resources = Vec::new();
        for area in content.areas.values() {
            for (i, spawn) in area.stations.iter().enumerate() {
                let station = content.stations.get(&spawn.station);
                let size = station.map_or((1, 1), |s| {
                    model_footprint(content, s.model.as_deref(), s.model_scale)
                });
                let tile = tile_of(&spawn.position);
                block(&mut map, tile, size);
                // Stations are entities too, so players can use items on them and reach them.
                resources.push(ResourcePlacement {
                    what: Placed::Station,
                    key: format!("{}/station/{i}", area.id),
                    resource_id: spawn.station.clone(),
                    name: station.map_or_else(|| spawn.station.clone(), |s| s.name.clone()),
                    resource_type: spawn.station.clone(),
                    tile,
                    extent: footprint(tile, size.0, size.1),
                    side: 0,
                });
            }
            for (i, spawn) in area.resources.iter().enumerate() {
                let key = format!("{}/resource/{i}", area.id);
                if let Some((node, size)) = node_placement(content, key, spawn) {
                    block(&mut map, node.tile, size);
                    resources.push(node);
                }
            }
            for (i, spawn) in area.npcs.iter().enumerate() {
                let Some(npc) = content.npcs.get(&spawn.npc_id) else {
                    continue;
                };
                npcs.push(NpcPlacement {
                    key: format!("{}/npc/{i}", area.id),
                    npc_id: npc.id.clone(),
                    name: npc.name.clone(),
                    health: npc_health(npc),
                    tile: tile_of(&spawn.position),
                    role: spawn.role.clone(),
                    store_id: spawn.store_id.clone(),
                });
            }
            let keyed = area.mob_spawns.iter().enumerate();
            mobs.extend(keyed.filter_map(|(i, spawn)| {
                mob_placement(content, format!("{}/mob/{i}", area.id), spawn)
            }));
        }
        if let Some(world) = generated {
            for (i, spawn) in world.resources.iter().enumerate() {
                let key = format!("{GENERATED_KEY}/resource/{i}");
                if let Some((node, size)) = node_placement(content, key, spawn) {
                    block(&mut map, node.tile, size);
                    resources.push(node);
                }
            }
            let keyed = world.mob_spawns.iter().enumerate();
            mobs.extend(keyed.filter_map(|(i, spawn)| {
                mob_placement(content, format!("{GENERATED_KEY}/mob/{i}"), spawn)
            }));
        }
        // Procedural fishing spots go on tiles still free once the fixed spawns stand.
        for area in content.areas.values() {
            let Some(fishing) = &area.fishing else {
                continue;
            };
            if !fishing.enabled || fishing.spot_types.is_empty() {
                continue;
            }
            let (a, b) = (
                TilePos {
                    x: tile_coordinate(area.bounds.min_x).max(x0),
                    z: tile_coordinate(area.bounds.min_z).max(z0),
                },
                TilePos {
                    x: tile_coordinate(area.bounds.max_x).min(x1),
                    z: tile_coordinate(area.bounds.max_z).min(z1),
                },
            );
            if a.x > b.x || a.z > b.z {
                continue;
            }
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ fnv1a(&area.id));
            // Where the area has water the spots stand on it, next to a walkable tile (CONTRACT
            // §13); an area without water has them anywhere free, as content without water
            // always had.
            let shores: Vec<TilePos> = if map.has_water() {
                (a.z..=b.z)
                    .flat_map(|z| (a.x..=b.x).map(move |x| TilePos { x, z }))
                    .filter(|t| map.is_shore_water(*t))
                    .collect()
            } else {
                Vec::new()
            };
            for n in 0..fishing.spot_count.min(MAX_FISHING_SPOTS_PER_AREA) {
                let spot_id = &fishing.spot_types[n as usize % fishing.spot_types.len()];
                let Some(node) = content.gathering.get(spot_id) else {
                    continue;
                };
                let found = (0..FISHING_PLACEMENT_ATTEMPTS)
                    .map(|_| {
                        if shores.is_empty() {
                            TilePos {
                                x: rng.random_range(a.x..=b.x),
                                z: rng.random_range(a.z..=b.z),
                            }
                        } else {
                            shores[rng.random_range(0..shores.len())]
                        }
                    })
                    .find(|t| {
                        let taken = resources.iter().any(|r: &ResourcePlacement| r.tile == *t);
                        if shores.is_empty() {
                            map.is_walkable(*t) && *t != spawn_hint
                        } else {
                            !taken
                        }
                    });
                if let Some(tile) = found {
                    map.set(tile, false);
                    resources.push(ResourcePlacement {
                        what: Placed::Node,
                        key: format!("{}{PROCEDURAL_SPOT_KEY}{n}", area.id),
                        resource_id: node.id.clone(),
                        name: node.name.clone(),
                        resource_type: node.kind.clone(),
                        tile,
                        extent: (tile, tile),
                        side: 0,
                    });
                }
            }
        }
        let fishing: Vec<TilePos> = resources
            .iter()
            .filter(|r| {
                r.what == Placed::Node
                    && content
                        .gathering
                        .get(&r.resource_id)
                        .is_some_and(|n| n.skill == wayfarer_content::Skill::Fishing)
            })
            .map(|r| r.tile)
            .collect();
        resources.extend(doors.into_iter().map(|d| ResourcePlacement {
            what: Placed::Door,
            key: d.key,
            resource_id: d.kind.into(),
            name: if d.kind == "gate" { "Gate" } else { "Door" }.into(),
            resource_type: d.kind.into(),
            tile: d.tile,
            extent: (d.tile, d.tile),
            side: d.side,
        }));
        let spawn = match map.nearest_walkable(spawn_hint) {
            Some(tile) => tile,
            None => {
                // Everything near the spawn point is blocked: open the spawn tile rather than leave
                // players nowhere to stand.
                let tile = map.clamp(spawn_hint);
                map.set(tile, true);
                tile
            }
        };
        crate::features::points_of_interest(content, spawn, &fishing, &mut features);
        Layout {
            map,
            spawn,
            npcs,
            mobs,
            resources,
            features,
        }
    }
}

/// A gathering node spawned at `spawn` (an area's or the generated world's), with the footprint
/// it blocks; `None` when content has no such node. A spawn's own `kind` names its type when set.
fn node_placement(
    content: &Content,
    key: String,
    spawn: &ResourceSpawn,
) -> Option<(ResourcePlacement, (u32, u32))> {
    let node = content.gathering.get(&spawn.resource_id)?;
    let tile = tile_of(&spawn.position);
    let size = model_footprint(content, node.model_path.as_deref(), node.scale);
    let placement = ResourcePlacement {
        what: Placed::Node,
        key,
        resource_id: node.id.clone(),
        name: node.name.clone(),
        resource_type: if spawn.kind.is_empty() {
            node.kind.clone()
        } else {
            spawn.kind.clone()
        },
        tile,
        extent: footprint(tile, size.0, size.1),
        side: 0,
    };
    Some((placement, size))
}

/// A mob spawner at `spawn` (an area's or the generated world's); `None` when content has no
/// such mob. Mobs that wander roam at least as far as their spawn radius.
fn mob_placement(content: &Content, key: String, spawn: &MobSpawn) -> Option<MobPlacement> {
    let npc = content.npcs.get(&spawn.mob_id)?;
    let wanders = npc.movement.kind.eq_ignore_ascii_case("wander");
    Some(MobPlacement {
        key,
        npc_id: npc.id.clone(),
        name: npc.name.clone(),
        health: npc_health(npc),
        centre: tile_of(&spawn.position),
        spawn_radius: radius_tiles(spawn.spawn_radius),
        count: spawn.max_count,
        wander_radius: if wanders {
            radius_tiles(npc.movement.wander_radius.max(spawn.spawn_radius))
        } else {
            0
        },
        tiles_per_tick: npc_tiles_per_tick(npc),
    })
}

/// The walkable map content lays out, as a client draws it: every fixed spawn's footprint blocked,
/// procedural fishing spots left open. Their tiles depend on the running world's seed (the server
/// seeds from the clock), and clients see those spots as entities anyway; reopening them gives the
/// same map whatever the seed, so HTTP can build it from content without asking the world thread.
pub fn content_map(content: &Content) -> TileMap {
    content_layout(content).0
}

/// [`content_map`] and the map's features (buildings, grounds, props, points of interest; a
/// procedural fishing spot's point is where seed 0 puts it).
pub fn content_layout(content: &Content) -> (TileMap, crate::features::MapFeatures) {
    let mut layout = Layout::build(content, 0);
    for spot in layout.resources.iter().filter(|r| r.is_procedural_spot()) {
        if !layout.map.is_water(spot.tile) {
            layout.map.set(spot.tile, true);
        }
    }
    (layout.map, layout.features)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_map_is_the_same_for_every_seed_and_blocks_only_fixed_spawns() {
        let content = wayfarer_content::load_bundled();
        let map = content_map(&content);
        assert_eq!(map, content_map(&content));
        for seed in [1, 7, 99] {
            let layout = Layout::build(&content, seed);
            for r in &layout.resources {
                if r.what == Placed::Door {
                    // A door stands on an edge and blocks no tile.
                } else if r.is_procedural_spot() && !map.is_water(r.tile) {
                    assert!(map.is_walkable(r.tile), "a fishing spot's tile stays open");
                } else {
                    assert!(!map.is_walkable(r.tile), "{} blocks its tile", r.key);
                }
            }
            let spots = layout
                .resources
                .iter()
                .filter(|r| r.is_procedural_spot() && !map.is_water(r.tile))
                .count();
            assert_eq!(map.walkable_count(), layout.map.walkable_count() + spots);
        }
    }

    #[test]
    fn long_spans_are_clipped_around_the_centre() {
        assert_eq!(clip_axis(-10, 10, 0, 100), (-10, 10));
        assert_eq!(clip_axis(-1000, 1000, 0, 100), (-50, 49));
        assert_eq!(clip_axis(0, 1000, 0, 100), (0, 99));
        assert_eq!(clip_axis(0, 1000, 1000, 100), (901, 1000));
    }

    #[test]
    fn the_bundled_world_is_walkable_around_its_spawn_and_blocked_under_resources() {
        let content = wayfarer_content::load_bundled();
        let layout = Layout::build(&content, 1);
        assert!(layout.map.is_walkable(layout.spawn));
        assert_eq!(layout.spawn, TilePos { x: 0, z: 0 });
        // Millbrook's first tree and the bank booth.
        assert!(!layout.map.is_walkable(TilePos { x: 14, z: -20 }));
        assert!(!layout.map.is_walkable(TilePos { x: 10, z: -6 }));
        // Outside every area.
        assert!(!layout.map.is_walkable(TilePos { x: 200, z: 200 }));
        assert!(
            layout.map.is_walkable(TilePos { x: 41, z: 0 }),
            "areas join up"
        );
        assert!(!layout.npcs.is_empty() && !layout.mobs.is_empty());
        let fishing = layout
            .resources
            .iter()
            .filter(|r| r.key.contains("/fishing/"))
            .count();
        assert_eq!(fishing, 5, "3 in millbrook, 2 in whispering_woods");
        for r in layout.resources.iter().filter(|r| r.what != Placed::Door) {
            assert!(!layout.map.is_walkable(r.tile), "{r:?}");
        }
        // The town is a place: the bank has walls and a door, the lake is water, the pier not.
        let bank = layout
            .features
            .buildings
            .iter()
            .find(|b| b.id == "millbrook_bank")
            .expect("the bank building");
        assert_eq!(bank.doors, vec![TilePos { x: 9, z: -3 }]);
        assert_ne!(layout.map.walls_at(TilePos { x: 5, z: -6 }), 0);
        assert!(layout.map.is_water(TilePos { x: 28, z: 25 }));
        assert!(layout.map.is_walkable(TilePos { x: 31, z: 24 }), "the pier");
        let kinds: std::collections::BTreeSet<&str> = layout
            .features
            .pois
            .iter()
            .map(|p| p.kind.as_str())
            .collect();
        // Every kind of point of interest but a teleport (the bundled town has none).
        for kind in wayfarer_content::features::POI_KINDS
            .into_iter()
            .filter(|k| *k != "teleport")
        {
            assert!(kinds.contains(kind), "{kind} in {kinds:?}");
        }
    }

    #[test]
    fn procedural_placement_depends_only_on_the_seed() {
        let content = wayfarer_content::load_bundled();
        let a = Layout::build(&content, 7);
        let b = Layout::build(&content, 7);
        assert_eq!(a.resources, b.resources);
        assert_eq!(a.map, b.map);
    }

    #[test]
    fn content_coordinates_are_floored_and_clamped() {
        assert_eq!(tile_coordinate(-0.5), -1);
        assert_eq!(tile_coordinate(40.0), 40);
        assert_eq!(tile_coordinate(1e300), COORDINATE_LIMIT_TILES);
        assert_eq!(tile_coordinate(-1e300), -COORDINATE_LIMIT_TILES);
    }

    #[test]
    fn hashes_are_fixed() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
