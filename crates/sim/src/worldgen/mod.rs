//! The world generated from `world-config.json`: a pure function of the content and the seed (no
//! I/O, no clock). [`apply`] adds the generated towns to `content.areas` as ordinary areas (group
//! `town`, with their stations and NPCs) and stores the terrain and the spawns placed by biome in
//! `content.generated`, which the layout and the map routes read. Content without a world-config
//! that asks for generation is left as it is.

mod furnish;
mod names;
mod noise;
mod params;
mod placement;
mod roads;
mod supplies;
mod terrain;
mod towns;

use std::collections::VecDeque;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wayfarer_content::generated::{GeneratedTown, GeneratedWorld, Ground};
use wayfarer_content::{
    Area, AreaGroup, Bounds, Circle, Content, Movement, Npc, NpcCombat, NpcSpawn, NpcStats,
    Position, StationSpawn, Tile,
};

pub use furnish::PIER_TILES;
pub use params::MIN_WORLD_SIDE_TILES;
pub use placement::{
    MAX_GENERATED_SPAWNERS, MAX_GENERATED_SPOTS, MAX_GENERATED_TREES, MOBS_PER_SPAWNER,
    MOB_CELL_TILES,
};
pub use roads::MAX_ROAD_EXPANSIONS;
pub use supplies::SUPPLIES_STORE;
pub use towns::{MAX_TOWNS, TOWN_CANDIDATES};

use params::Params;
use terrain::Grid;

/// The id of the tanner NPC added where content has tanning but nobody who tans.
pub const FALLBACK_TANNER: &str = "tanner";

/// Which stations and NPCs a town of each size has (docs/content.md, "Generated towns").
fn furnishings(size: &str) -> (&'static [&'static str], bool, bool) {
    // (station types, a tanner and the supplies store, every other store too)
    match size {
        "hamlet" => (&["bank", "range"], false, false),
        "village" => (&["bank", "range", "furnace", "anvil"], true, false),
        _ => (&["bank", "range", "furnace", "anvil", "altar"], true, true),
    }
}

/// Generates the world of `content` (when its world-config asks for one) and adds it to the content.
/// `world_seed` (`WORLD_SEED`) is mixed into every seed of the config when set. Returns whether a
/// world was generated.
pub fn apply(content: &mut Content, world_seed: Option<u64>) -> bool {
    if !content.world_config.generate || content.generated.is_some() {
        return false;
    }
    let Some(p) = Params::read(&content.world_config, world_seed) else {
        return false;
    };
    add_banks(content);
    add_spawn_stations(content);
    add_tanner(content);
    let spawn = content.spawn_point().tile();
    let hand: Vec<Area> = content.areas.values().cloned().collect();
    let mut forced: Vec<((i32, i32), (i32, i32))> =
        vec![((spawn.x - 4, spawn.z - 4), (spawn.x + 4, spawn.z + 4))];
    let mut anchors = vec![(spawn.x, spawn.z)];
    for area in &hand {
        let (lo, hi) = anchor_box(area);
        forced.push((lo, hi));
        let centre = ((lo.0 + hi.0) / 2, (lo.1 + hi.1) / 2);
        if !anchors.contains(&centre) {
            anchors.push(centre);
        }
    }
    let mut grid = terrain::island(&p, &forced);
    let distribution = content.world_config.biome_distribution.clone();
    let biome_ids = terrain::biomes(&p, &mut grid, &distribution);
    let plans = match &content.world_config.towns {
        Some(config) => {
            let keep_out: Vec<Bounds> = hand.iter().map(|a| a.bounds).collect();
            towns::place(&p, &grid, &biome_ids, config, &keep_out)
        }
        None => Vec::new(),
    };
    for plan in &plans {
        let r = plaza(plan.safe_radius);
        disc(&mut grid, plan.centre, r, Ground::Town);
    }
    let mut points = anchors.clone();
    points.extend(plans.iter().map(|t| t.centre));
    roads::lay(&p, &mut grid, &points);
    let centres: Vec<(i32, i32)> = plans.iter().map(|t| t.centre).collect();
    let names = names::for_sites(content, &centres, (spawn.x, spawn.z));
    let mut rng = ChaCha8Rng::seed_from_u64(p.town_seed ^ 0xb1d);
    let mut generated_towns = Vec::new();
    let mut areas = Vec::new();
    let rune_altars = rune_altars(content, plans.len());
    // Every town's houses first (one generator, as always), then each town furnished from a
    // generator of its own, so its walls, pier and props move nothing else of the island.
    let houses: Vec<Vec<(Tile, Tile)>> = plans
        .iter()
        .map(|plan| buildings(&mut grid, plan, &mut rng))
        .collect();
    for (n, (((plan, name), altars), buildings)) in plans
        .iter()
        .zip(names)
        .zip(rune_altars)
        .zip(houses)
        .enumerate()
    {
        let id = town_id(content, &name);
        let mut area = town_area(content, plan, &id, &name, &altars);
        let standing: Vec<(i32, i32)> = (area.stations.iter().map(|s| &s.position))
            .chain(area.npcs.iter().map(|n| &n.position))
            .map(|p| (p.x.floor() as i32, p.z.floor() as i32))
            .collect();
        let site = furnish::Site {
            plan,
            area_id: &id,
            name: &name,
            plaza: plaza(plan.safe_radius),
            buildings: &buildings,
            keep_clear: &standing,
        };
        let seed = p.town_seed ^ 0xf0_0d ^ (n as u64).wrapping_mul(0x9e37_79b9);
        area.features = furnish::town_features(&mut grid, &site, seed);
        areas.push(area);
        generated_towns.push(GeneratedTown {
            area_id: id,
            name,
            size: plan.size.clone(),
            centre: Tile {
                x: plan.centre.0,
                z: plan.centre.1,
            },
            safe_radius: plan.safe_radius,
            buildings,
        });
    }
    for area in areas {
        content.areas.insert(area.id.clone(), area);
    }
    let reachable = reachable(&grid, (spawn.x, spawn.z));
    // Biome spawns go where a player can walk to, outside every hand-placed area (they have
    // their own) and every safe one.
    let mut usable = reachable;
    for area in content
        .areas
        .values()
        .filter(|a| a.safe_zone || a.group != AreaGroup::Town)
    {
        let b = area.bounds;
        let (x0, x1) = (b.min_x.floor() as i32, b.max_x.floor() as i32);
        let (z0, z1) = (b.min_z.floor() as i32, b.max_z.floor() as i32);
        for z in z0.max(grid.min_z)..=z1.min(grid.min_z + grid.side - 1) {
            for x in x0.max(grid.min_x)..=x1.min(grid.min_x + grid.side - 1) {
                if let Some(i) = grid.index(x, z) {
                    usable[i] = false;
                }
            }
        }
    }
    let (mob_spawns, resources) = placement::place(content, &grid, &biome_ids, &usable, p.seed);
    let world = GeneratedWorld {
        min: Tile {
            x: grid.min_x,
            z: grid.min_z,
        },
        side: grid.side,
        ground: grid.ground.iter().map(|g| *g as u8).collect(),
        biome: grid.biome.clone(),
        height: grid
            .height
            .iter()
            .map(|h| (h.clamp(0.0, 1.0) * 255.0).round() as u8)
            .collect(),
        water_level: (p.water.clamp(0.0, 1.0) * 255.0).round() as u8,
        biomes: biome_ids,
        towns: generated_towns,
        mob_spawns,
        resources,
        seed: p.seed,
    };
    content.generated = Some(Arc::new(world));
    supplies::stock(content);
    true
}

/// The plaza (open town ground) of a town with this safe radius.
fn plaza(safe_radius: i32) -> i32 {
    (safe_radius / 3).clamp(6, 24)
}

/// Sets every tile within `r` of `centre` to `ground`.
fn disc(grid: &mut Grid, centre: (i32, i32), r: i32, ground: Ground) {
    for dz in -r..=r {
        for dx in -r..=r {
            if dx * dx + dz * dz <= r * r {
                if let Some(i) = grid.index(centre.0 + dx, centre.1 + dz) {
                    grid.ground[i] = ground;
                }
            }
        }
    }
}

/// The part of a hand-placed area kept dry: around everything placed in it (and its spawn point),
/// or around its centre when it places nothing, clipped to its bounds.
fn anchor_box(area: &Area) -> terrain::Rect {
    let mut points: Vec<Position> = Vec::new();
    points.extend(area.spawn_point);
    points.extend(area.npcs.iter().map(|n| n.position));
    points.extend(area.resources.iter().map(|r| r.position));
    points.extend(area.stations.iter().map(|s| s.position));
    points.extend(area.mob_spawns.iter().map(|m| m.position));
    let b = area.bounds;
    let (lo, hi) = if points.is_empty() {
        let c = b.centre();
        ((c.x - 8.0, c.z - 8.0), (c.x + 8.0, c.z + 8.0))
    } else {
        let min_x = points.iter().map(|p| p.x).fold(f64::MAX, f64::min) - 4.0;
        let max_x = points.iter().map(|p| p.x).fold(f64::MIN, f64::max) + 4.0;
        let min_z = points.iter().map(|p| p.z).fold(f64::MAX, f64::min) - 4.0;
        let max_z = points.iter().map(|p| p.z).fold(f64::MIN, f64::max) + 4.0;
        ((min_x, min_z), (max_x, max_z))
    };
    let clip = |v: f64, lo: f64, hi: f64| v.clamp(lo.min(hi), hi.max(lo)).floor() as i32;
    (
        (clip(lo.0, b.min_x, b.max_x), clip(lo.1, b.min_z, b.max_z)),
        (clip(hi.0, b.min_x, b.max_x), clip(hi.1, b.min_z, b.max_z)),
    )
}

/// Tiles reachable on foot from `from` (four-neighbour steps over walkable ground).
fn reachable(grid: &Grid, from: (i32, i32)) -> Vec<bool> {
    let mut seen = vec![false; grid.ground.len()];
    let Some(start) = grid.index(from.0, from.1) else {
        return seen;
    };
    let mut queue = VecDeque::from([start]);
    seen[start] = true;
    while let Some(i) = queue.pop_front() {
        let (x, z) = grid.tile(i);
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            if let Some(j) = grid.index(x + dx, z + dz) {
                if !seen[j] && grid.ground[j].walkable() {
                    seen[j] = true;
                    queue.push_back(j);
                }
            }
        }
    }
    seen
}

/// A town's buildings: rectangles on a ring just outside the plaza, on open land or town ground,
/// never on a road or another building (a building that fits nowhere is left out).
fn buildings(grid: &mut Grid, plan: &towns::TownPlan, rng: &mut ChaCha8Rng) -> Vec<(Tile, Tile)> {
    let (lo, hi) = plan.buildings;
    let count = rng.random_range(lo.min(hi)..=hi.max(lo)).min(32);
    let ring = f64::from(plaza(plan.safe_radius) + 5);
    let mut out = Vec::new();
    for k in 0..count {
        let base = f64::from(k) * std::f64::consts::TAU / f64::from(count.max(1));
        for _ in 0..8 {
            let angle = base + rng.random_range(-0.3..0.3);
            let dist = ring + rng.random_range(0.0..6.0);
            let (w, d) = (rng.random_range(4..=7), rng.random_range(3..=6));
            let x0 = plan.centre.0 + (angle.cos() * dist).round() as i32 - w / 2;
            let z0 = plan.centre.1 + (angle.sin() * dist).round() as i32 - d / 2;
            // A margin of one tile stays open all round, so a building never closes a path.
            let fits = (z0 - 1..=z0 + d).all(|z| {
                (x0 - 1..=x0 + w)
                    .all(|x| matches!(grid.ground_at(x, z), Ground::Land | Ground::Town))
            });
            if fits {
                for z in z0..z0 + d {
                    for x in x0..x0 + w {
                        if let Some(i) = grid.index(x, z) {
                            grid.ground[i] = Ground::Building;
                        }
                    }
                }
                out.push((
                    Tile { x: x0, z: z0 },
                    Tile {
                        x: x0 + w - 1,
                        z: z0 + d - 1,
                    },
                ));
                break;
            }
        }
    }
    out
}

/// An area id for a town name, unique among the areas.
fn town_id(content: &Content, name: &str) -> String {
    let slug: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let base = format!("town_{slug}");
    let mut id = base.clone();
    let mut k = 2;
    while content.areas.contains_key(&id) {
        id = format!("{base}_{k}");
        k += 1;
    }
    id
}

fn pos(x: f64, z: f64) -> Position {
    Position {
        x: x.floor() + 0.5,
        y: 0.0,
        z: z.floor() + 0.5,
    }
}

/// The area of a placed town: its safe square, stations on an inner ring of the plaza and the
/// townsfolk on an outer one.
/// The runecrafting altars each town gets, in town order: every altar a runecrafting recipe
/// names and content defines (the reference's come from the bundled fallback, CONTRACT §11),
/// dealt out one per town in turn, so each is somewhere on the island and no town has them all.
fn rune_altars(content: &Content, towns: usize) -> Vec<Vec<String>> {
    let mut kinds: Vec<String> = content
        .recipes
        .iter()
        .filter(|r| r.kind == wayfarer_content::RecipeKind::Runecrafting)
        .filter_map(|r| r.station.clone())
        .filter(|s| content.stations.contains_key(s.as_str()))
        .collect();
    kinds.sort();
    kinds.dedup();
    let mut dealt = vec![Vec::new(); towns];
    if towns > 0 {
        for (i, kind) in kinds.into_iter().enumerate() {
            dealt[i % towns].push(kind);
        }
    }
    dealt
}

fn town_area(
    content: &Content,
    plan: &towns::TownPlan,
    id: &str,
    name: &str,
    rune_altars: &[String],
) -> Area {
    let (kinds, trades, every_store) = furnishings(&plan.size);
    let kinds: Vec<&str> = kinds
        .iter()
        .copied()
        .filter(|k| content.stations.contains_key(*k))
        .chain(rune_altars.iter().map(String::as_str))
        .collect();
    let (cx, cz) = (f64::from(plan.centre.0), f64::from(plan.centre.1));
    let r = f64::from(plaza(plan.safe_radius));
    let ring = |k: usize, n: usize, radius: f64| {
        let a = k as f64 * std::f64::consts::TAU / n.max(1) as f64 + 0.4;
        pos(cx + a.cos() * radius, cz + a.sin() * radius)
    };
    let stations: Vec<StationSpawn> = kinds
        .iter()
        .enumerate()
        .map(|(k, kind)| StationSpawn {
            station: (*kind).to_owned(),
            position: ring(k, kinds.len(), r * 0.45),
        })
        .collect();
    let by_service = |service: &str| {
        content
            .npcs
            .values()
            .find(|n| n.services.iter().any(|s| s == service))
            .map(|n| n.id.clone())
    };
    let mut folk: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    if let Some(banker) = by_service("bank") {
        folk.push((banker, Some("bank".to_owned()), None));
    }
    if let Some(shopkeeper) = by_service("shop") {
        let mut stores: Vec<&String> = content
            .stores
            .keys()
            .filter(|s| s.as_str() != SUPPLIES_STORE)
            .collect();
        if !every_store {
            stores.truncate(1);
        }
        if trades {
            stores.push(&SUPPLIES_STORE_ID);
        }
        for store in stores {
            folk.push((
                shopkeeper.clone(),
                Some("general_store".to_owned()),
                Some(store.clone()),
            ));
        }
    }
    if trades {
        if let Some(tanner) = content.npcs.values().find(|n| n.tans_hides()) {
            folk.push((tanner.id.clone(), Some("tanner".to_owned()), None));
        }
    }
    let npcs = folk
        .iter()
        .enumerate()
        .map(|(k, (npc, role, store))| NpcSpawn {
            npc_id: npc.clone(),
            role: role.clone(),
            store_id: store.clone(),
            position: ring(k, folk.len(), r * 0.8),
        })
        .collect();
    let s = f64::from(plan.safe_radius);
    Area {
        id: id.to_owned(),
        name: name.to_owned(),
        description: format!("A {} of the island.", plan.size),
        group: AreaGroup::Town,
        difficulty_level: 0,
        bounds: Bounds {
            min_x: cx - s,
            max_x: cx + s,
            min_z: cz - s,
            max_z: cz + s,
        },
        biome_type: Some("town".to_owned()),
        safe_zone: true,
        pvp: false,
        spawn_point: None,
        npcs,
        resources: Vec::new(),
        mob_spawns: Vec::new(),
        stations,
        fishing: None,
        duel_arena: false,
        // The safe radius is a disc (CONTRACT section 10); `bounds` is the square around it.
        circle: Some(Circle {
            x: cx,
            z: cz,
            radius: s,
        }),
        town_size: Some(plan.size.clone()),
        features: Default::default(),
    }
}

/// Owned id of the supplies store, for borrowing beside content's own store ids.
static SUPPLIES_STORE_ID: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| SUPPLIES_STORE.to_owned());

/// The legacy `banks.json` banks stand as bank booths where a hand-placed area holds their
/// position (the reference's Central Haven has a banker but no booth otherwise).
fn add_banks(content: &mut Content) {
    if !content.stations.contains_key("bank") {
        return;
    }
    for bank in &content.legacy.banks {
        let p = bank.location.position;
        let holder = content
            .areas
            .values()
            .filter(|a| a.bounds.contains(p.x, p.z))
            .min_by(|a, b| {
                let size = |a: &Area| {
                    (a.bounds.max_x - a.bounds.min_x) * (a.bounds.max_z - a.bounds.min_z)
                };
                size(a).total_cmp(&size(b))
            })
            .map(|a| a.id.clone());
        if let Some(id) = holder {
            if let Some(area) = content.areas.get_mut(&id) {
                let taken = area.stations.iter().any(|s| s.position.tile() == p.tile());
                if !taken {
                    area.stations.push(StationSpawn {
                        station: "bank".to_owned(),
                        position: p,
                    });
                }
            }
        }
    }
}

/// The stations a new character first makes things at, which the spawn town has (as the
/// reference game's starter area does): the reference's Central Haven places none, and the
/// nearest were some 250 tiles away.
const SPAWN_STATIONS: [&str; 3] = ["furnace", "anvil", "range"];

/// Within how many tiles of the spawn a spawn station must stand to count as the town's.
pub const SPAWN_STATION_TILES: f64 = 30.0;

/// Where the spawn stations go, as offsets from the spawn in tiles, tried in order: a row west of
/// the spawn and one east, three tiles apart so no footprint (at most 3 × 3) overlaps another.
const SPAWN_STATION_OFFSETS: [(f64, f64); 8] = [
    (-10.0, 0.0),
    (-10.0, 4.0),
    (10.0, 0.0),
    (10.0, 4.0),
    (-10.0, -4.0),
    (10.0, -4.0),
    (-14.0, 0.0),
    (14.0, 0.0),
];

/// Adds each of [`SPAWN_STATIONS`] the content defines to the area holding the spawn when that
/// area has none of its kind within [`SPAWN_STATION_TILES`] of the spawn, on the first free tile
/// of [`SPAWN_STATION_OFFSETS`] (free: no station, NPC, resource or mob spawn within 2 tiles).
fn add_spawn_stations(content: &mut Content) {
    let spawn = content.spawn_point();
    let Some(id) = content.area_at(spawn.x, spawn.z).map(|a| a.id.clone()) else {
        return;
    };
    let kinds: Vec<&str> = SPAWN_STATIONS
        .into_iter()
        .filter(|k| content.stations.contains_key(*k))
        .collect();
    let Some(area) = content.areas.get_mut(&id) else {
        return;
    };
    let near = |p: &Position, q: &Position, tiles: f64| {
        (p.x - q.x).abs() <= tiles && (p.z - q.z).abs() <= tiles
    };
    for kind in kinds {
        let has = area
            .stations
            .iter()
            .any(|s| s.station == kind && near(&s.position, &spawn, SPAWN_STATION_TILES));
        if has {
            continue;
        }
        let taken: Vec<Position> = area
            .stations
            .iter()
            .map(|s| s.position)
            .chain(area.npcs.iter().map(|n| n.position))
            .chain(area.resources.iter().map(|r| r.position))
            .chain(area.mob_spawns.iter().map(|m| m.position))
            .collect();
        let free = SPAWN_STATION_OFFSETS
            .iter()
            .map(|(dx, dz)| Position {
                x: spawn.x + dx,
                y: spawn.y,
                z: spawn.z + dz,
            })
            .find(|p| area.bounds.contains(p.x, p.z) && !taken.iter().any(|t| near(t, p, 2.0)));
        if let Some(position) = free {
            area.stations.push(StationSpawn {
                station: kind.to_owned(),
                position,
            });
        }
    }
}

/// Content with tanning recipes and nobody who tans gets our tanner, as §11 falls back to our
/// runes: otherwise no hide could ever be tanned.
fn add_tanner(content: &mut Content) {
    let tanning = content
        .recipes
        .iter()
        .any(|r| r.kind == wayfarer_content::RecipeKind::Tanning);
    if !tanning || content.npcs.values().any(Npc::tans_hides) {
        return;
    }
    let mut id = FALLBACK_TANNER.to_owned();
    while content.npcs.contains_key(&id) {
        id.push('_');
    }
    content.npcs.insert(
        id.clone(),
        Npc {
            id,
            name: "Tanner".to_owned(),
            description: "Turns hides into leather, for a few coins.".to_owned(),
            category: "neutral".to_owned(),
            faction: Some("town".to_owned()),
            level_range: None,
            stats: NpcStats {
                level: 1,
                health: 1,
                attack: 1,
                strength: 1,
                defense: 1,
                defense_bonus: 0,
                ranged: 1,
                magic: 1,
            },
            combat: NpcCombat {
                attackable: false,
                aggressive: false,
                retaliates: false,
                aggro_range: 0.0,
                combat_range: 1.0,
                leash_range: 0.0,
                attack_speed_ticks: 4,
                respawn_ticks: 0,
                casts: false,
                spell: None,
            },
            movement: Movement {
                kind: "stationary".to_owned(),
                speed: 0.0,
                wander_radius: 0.0,
            },
            default_drop: None,
            drops: Vec::new(),
            services: vec!["tanner".to_owned()],
            dialogue: None,
            model_path: None,
            icon_path: None,
            scale: 1.0,
            spawn_biomes: Vec::new(),
        },
    );
}
