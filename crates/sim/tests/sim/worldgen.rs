//! The world generated from the reference `world-config.json`: deterministic, every town and area
//! reachable on foot, water never walked on, the towns furnished by size, every mob type placed,
//! fishing spots on shores, and every recipe makeable from what the world gives.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, OnceLock};

use wayfarer_content::compass::{self, Compass};
use wayfarer_content::generated::Ground;
use wayfarer_content::{AreaGroup, Content, ManifestSet, RecipeKind, ToolRequirement};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::{worldgen, World};

fn load(world_seed: Option<u64>) -> Option<Content> {
    let set =
        ManifestSet::read_dir(&wayfarer_store::testing::reference_manifests()?).expect("readable");
    let (mut content, _) = Content::from_files(&set).expect("the reference files load");
    assert!(
        worldgen::apply(&mut content, world_seed),
        "a world is generated"
    );
    Some(content)
}

/// The reference world without `WORLD_SEED`, generated once for the tests that only read it.
fn reference() -> Option<&'static (Arc<Content>, World)> {
    static WORLD: OnceLock<Option<(Arc<Content>, World)>> = OnceLock::new();
    WORLD
        .get_or_init(|| {
            let content = Arc::new(load(None)?);
            let world = World::new(content.clone(), 1);
            Some((content, world))
        })
        .as_ref()
}

/// Tiles reachable on foot from the spawn (the sim's own walkability).
fn reachable(world: &World) -> BTreeSet<(i32, i32)> {
    let start = world.spawn_tile();
    let mut seen = BTreeSet::from([(start.x, start.z)]);
    let mut queue = VecDeque::from([start]);
    while let Some(t) = queue.pop_front() {
        for (dx, dz) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let n = TilePos {
                x: t.x + dx,
                z: t.z + dz,
            };
            if world.is_walkable(n) && seen.insert((n.x, n.z)) {
                queue.push_back(n);
            }
        }
    }
    seen
}

/// Whether a tile next to `(x, z)` (or it) is in `reach`.
fn beside(reach: &BTreeSet<(i32, i32)>, x: i32, z: i32) -> bool {
    (-2..=2).any(|dz| (-2..=2).any(|dx| reach.contains(&(x + dx, z + dz))))
}

#[test]
fn the_same_seed_makes_the_same_world_and_another_seed_another_island() {
    let Some((content, _)) = reference() else {
        return;
    };
    let again = load(None).expect("loaded");
    assert_eq!(again.generated, content.generated, "same seed, same world");
    assert_eq!(again.areas, content.areas, "same towns and stations");
    let other = load(Some(99)).expect("loaded");
    let (a, b) = (
        content.generated.as_ref().unwrap(),
        other.generated.as_ref().unwrap(),
    );
    assert_ne!(a.ground, b.ground, "another WORLD_SEED, another island");
    assert_ne!(
        a.towns.iter().map(|t| t.centre).collect::<Vec<_>>(),
        b.towns.iter().map(|t| t.centre).collect::<Vec<_>>()
    );
    // Same spawns from the same seed, placed in the same order.
    assert_eq!(again.generated.as_ref().unwrap().mob_spawns, a.mob_spawns);
}

#[test]
fn every_town_and_area_is_reachable_on_foot_from_the_spawn() {
    let Some((content, world)) = reference() else {
        return;
    };
    let reach = reachable(world);
    for area in content.areas.values() {
        let b = area.bounds;
        let inside = reach
            .iter()
            .any(|&(x, z)| b.contains(f64::from(x) + 0.5, f64::from(z) + 0.5));
        assert!(inside, "{} can be walked to", area.id);
        for station in &area.stations {
            let t = station.position.tile();
            assert!(
                beside(&reach, t.x, t.z),
                "{}'s {} can be reached",
                area.id,
                station.station
            );
        }
        for npc in &area.npcs {
            let t = npc.position.tile();
            assert!(
                beside(&reach, t.x, t.z),
                "{}'s {} can be reached",
                area.id,
                npc.npc_id
            );
        }
    }
    let wastes = &content.areas["wilderness_test"];
    assert!(
        wastes.pvp,
        "the Wastes are the PvP area, and walkable (above)"
    );
}

#[test]
fn water_is_never_walkable_and_the_island_has_some() {
    let Some((content, world)) = reference() else {
        return;
    };
    let gen = content.generated.as_ref().unwrap();
    let mut water = 0;
    for z in (gen.min.z..gen.min.z + gen.side).step_by(3) {
        for x in (gen.min.x..gen.min.x + gen.side).step_by(3) {
            if gen.ground_at(x, z) == Ground::Water {
                water += 1;
                assert!(!world.is_walkable(TilePos { x, z }), "water at ({x},{z})");
            }
        }
    }
    assert!(water > 1000, "an island in the sea, with ponds: {water}");
    let side = gen.side;
    assert!((worldgen::MIN_WORLD_SIDE_TILES..=wayfarer_sim::MAX_MAP_SIDE_TILES).contains(&side));
    assert_eq!(side, 1000, "the config's worldSize");
}

#[test]
fn eight_towns_each_with_the_stations_its_size_calls_for() {
    let Some((content, world)) = reference() else {
        return;
    };
    let towns: Vec<_> = content
        .areas
        .values()
        .filter(|a| a.group == AreaGroup::Town)
        .collect();
    assert_eq!(towns.len(), 8, "2 towns, 3 villages, 3 hamlets");
    let is_rune_altar = |s: &str| s.ends_with("_altar");
    let mut rune_altars = 0;
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    for town in &towns {
        assert!(town.safe_zone);
        let size = town.town_size.as_deref().expect("a size");
        *sizes.entry(size).or_default() += 1;
        // Its size's stations, and the runecrafting altars dealt to it (counted below).
        let has: BTreeSet<&str> = town
            .stations
            .iter()
            .map(|s| s.station.as_str())
            .filter(|s| !is_rune_altar(s))
            .collect();
        rune_altars += town
            .stations
            .iter()
            .filter(|s| is_rune_altar(&s.station))
            .count();
        let want: &[&str] = match size {
            "hamlet" => &["bank", "range"],
            "village" => &["bank", "range", "furnace", "anvil"],
            _ => &["bank", "range", "furnace", "anvil", "altar"],
        };
        assert_eq!(has, want.iter().copied().collect(), "{} ({size})", town.id);
        let roles: BTreeSet<&str> = town.npcs.iter().filter_map(|n| n.role.as_deref()).collect();
        assert!(
            roles.contains("bank") && roles.contains("general_store"),
            "{}",
            town.id
        );
        assert_eq!(roles.contains("tanner"), size != "hamlet", "{}", town.id);
        // Every station stands in the world as an entity.
        for s in &town.stations {
            let t = s.position.tile();
            assert!(
                world
                    .resources()
                    .iter()
                    .any(|e| e.resource_type.as_deref() == Some(&s.station)
                        && (e.x - t.x).abs() <= 1
                        && (e.z - t.z).abs() <= 1),
                "{}'s {} is placed",
                town.id,
                s.station
            );
        }
    }
    assert_eq!(
        sizes,
        BTreeMap::from([("hamlet", 3), ("town", 2), ("village", 3)])
    );
    // The six rune altars of the reference's runecrafting recipes, each in one town.
    assert_eq!(rune_altars, 6);
    let gen = content.generated.as_ref().unwrap();
    assert!(
        gen.towns.iter().all(|t| !t.buildings.is_empty()),
        "every town has buildings"
    );
}

#[test]
fn mobs_of_every_mobs_json_type_and_fishing_spots_on_the_water_by_a_shore() {
    let Some((content, world)) = reference() else {
        return;
    };
    let placed: BTreeSet<String> = world.npcs().into_iter().filter_map(|n| n.type_id).collect();
    for mob in &content.legacy.mobs {
        assert!(placed.contains(&mob.id), "a {} is in the world", mob.id);
    }
    let gen = content.generated.as_ref().unwrap();
    let spots: Vec<_> = gen
        .resources
        .iter()
        .filter(|r| r.resource_id.starts_with("fishing_spot"))
        .collect();
    assert!(!spots.is_empty(), "fishing spots are placed");
    for spot in spots {
        let t = spot.position.tile();
        assert_eq!(
            gen.ground_at(t.x, t.z),
            Ground::Water,
            "{spot:?} stands on water (CONTRACT §13)"
        );
        let shore = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .iter()
            .any(|(dx, dz)| gen.ground_at(t.x + dx, t.z + dz) == Ground::Shore);
        assert!(shore, "{spot:?} is next to a shore");
    }
}

/// Walks what the world holds (shops with a keeper, nodes, mobs, stations, a tanner) to the items a
/// player can come by, then checks every recipe against it: its station stands somewhere and each
/// input, tool and consumable can be had.
#[test]
fn every_reference_recipe_can_be_made_in_the_reference_world() {
    let Some((content, world)) = reference() else {
        return;
    };
    let mut have: BTreeSet<String> = BTreeSet::new();
    let stations: BTreeSet<String> = world
        .resources()
        .into_iter()
        .filter_map(|e| e.resource_type)
        .collect();
    let npc_types: BTreeSet<String> = world.npcs().into_iter().filter_map(|n| n.type_id).collect();
    for area in content.areas.values() {
        for npc in &area.npcs {
            if let Some(store) = npc.store_id.as_ref().and_then(|s| content.stores.get(s)) {
                have.extend(store.stock.iter().map(|l| l.item_id.clone()));
            }
        }
    }
    for id in &npc_types {
        let npc = &content.npcs[id];
        have.extend(npc.drops.iter().map(|d| d.item_id.clone()));
        have.extend(npc.default_drop.iter().map(|d| d.item_id.clone()));
    }
    let tanner = npc_types.iter().any(|id| content.npcs[id].tans_hides());
    let nodes: BTreeSet<String> = world
        .resources()
        .into_iter()
        .filter_map(|e| e.type_id)
        .filter(|id| content.gathering.contains_key(id))
        .collect();
    loop {
        let before = have.len();
        for node in nodes.iter().map(|n| &content.gathering[n]) {
            let tool = match &node.tool {
                ToolRequirement::None => true,
                ToolRequirement::Item(id) => have.contains(id),
                ToolRequirement::AnyForSkill(skill) => content
                    .tools_for(*skill)
                    .iter()
                    .any(|t| have.contains(&t.id)),
            };
            if tool && node.consumes.as_ref().is_none_or(|b| have.contains(b)) {
                have.extend(node.yields.iter().map(|y| y.item_id.clone()));
            }
        }
        for r in &content.recipes {
            if can_make(r, &have, &stations, tanner) {
                have.extend(r.output.iter().map(|o| o.item_id.clone()));
            }
        }
        if have.len() == before {
            break;
        }
    }
    let mut made = 0;
    // Runecrafting too: each rune's altar stands in some town, essence is mined.
    assert!(content
        .recipes
        .iter()
        .any(|r| r.kind == RecipeKind::Runecrafting));
    for r in &content.recipes {
        assert!(
            can_make(r, &have, &stations, tanner),
            "{} can be made: {r:?}",
            r.id
        );
        made += 1;
    }
    assert!(made >= 80, "the reference recipes: {made}");
}

fn can_make(
    r: &wayfarer_content::Recipe,
    have: &BTreeSet<String>,
    stations: &BTreeSet<String>,
    tanner: bool,
) -> bool {
    let place = match r.kind {
        RecipeKind::Tanning => tanner,
        RecipeKind::Cooking => true,
        _ => r.station.as_ref().is_none_or(|s| stations.contains(s)),
    };
    place
        && (r.kind != RecipeKind::Smithing || have.contains(wayfarer_sim::HAMMER))
        && (r.coin_cost == 0 || have.contains("coins"))
        && r.inputs.iter().all(|i| have.contains(&i.item_id))
        && r.tools.iter().all(|t| have.contains(t))
        && r.consumables.iter().all(|c| have.contains(&c.item_id))
}

/// Every generated town whose name carries a compass word lies that way from the spawn (north is −z,
/// docs/content.md "Directions"); returns how many did.
fn compass_towns_lie_their_way(content: &Content) -> usize {
    let spawn = content.spawn_point().tile();
    let generated = content.generated.as_ref().expect("a generated world");
    let mut named = 0;
    for town in &generated.towns {
        let points = compass::words(&town.name);
        if points.is_empty() {
            continue;
        }
        named += 1;
        let (dx, dz) = (town.centre.x - spawn.x, town.centre.z - spawn.z);
        for p in &points {
            // The sign, independently of the generator's own rule: north −z, east +x.
            let along = match p {
                Compass::North => -dz,
                Compass::South => dz,
                Compass::East => dx,
                Compass::West => -dx,
            };
            assert!(along > 0, "{} at ({dx}, {dz}) from the spawn", town.name);
        }
        assert!(
            compass::lies(&points, dx, dz),
            "{} at ({dx}, {dz})",
            town.name
        );
    }
    named
}

#[test]
fn the_reference_towns_compass_names_agree_with_where_they_lie() {
    let Some((content, _)) = reference() else {
        return;
    };
    let names: BTreeSet<&str> = content
        .generated
        .as_ref()
        .unwrap()
        .towns
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    // The reference's four compass towns all find a site their way on its island.
    for name in [
        "Eastern Outpost",
        "Western Settlement",
        "Northern Village",
        "Southern Camp",
    ] {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    assert_eq!(compass_towns_lie_their_way(content), 4);
}

#[test]
fn compass_names_of_every_kind_agree_with_where_their_towns_lie_on_other_islands() {
    let Some(set) = wayfarer_store::testing::reference_manifests() else {
        return;
    };
    let set = ManifestSet::read_dir(&set).expect("readable");
    for seed in [3, 99] {
        let (mut content, _) = Content::from_files(&set).expect("the reference files load");
        // All four words, as prefixes and as words, and one name with two.
        let names = [
            "Westmarch",
            "Port Eastwick",
            "South Reach",
            "Northwatch",
            "North-East Hold",
        ];
        for (zone, name) in content
            .legacy
            .zones
            .iter_mut()
            .filter(|z| z.is_town)
            .zip(names)
        {
            zone.name = name.to_owned();
        }
        assert!(worldgen::apply(&mut content, Some(seed)));
        let named = compass_towns_lie_their_way(&content);
        assert!(named >= 3, "seed {seed}: {named} compass towns placed");
    }
}

#[test]
fn the_spawn_town_has_a_furnace_an_anvil_and_a_range_within_30_tiles_of_the_spawn() {
    let Some((_, world)) = reference() else {
        return;
    };
    let spawn = world.spawn_tile();
    for kind in ["furnace", "anvil", "range"] {
        let nearest = world
            .resources()
            .into_iter()
            .filter(|e| e.resource_type.as_deref() == Some(kind))
            .map(|e| (e.x - spawn.x).abs().max((e.z - spawn.z).abs()))
            .min();
        assert!(
            nearest.is_some_and(|d| f64::from(d) <= worldgen::SPAWN_STATION_TILES),
            "the nearest {kind} is {nearest:?} tiles from the spawn"
        );
    }
}

#[test]
fn the_dark_ranger_shoots_from_three_tiles_or_more() {
    // A world of its own: the test adds a player.
    let Some(content) = load(None) else {
        return;
    };
    let mut world = World::new(Arc::new(content), 1);
    let ranger = world
        .npcs()
        .into_iter()
        .find(|n| n.type_id.as_deref() == Some("dark_ranger"))
        .expect("a dark ranger is placed");
    // A walkable tile 6 tiles from it (well inside its 8-tile combatRange and 12-tile aggro).
    let at = (-6..=6)
        .flat_map(|dz| [(6, dz), (-6, dz), (dz, 6), (dz, -6)])
        .map(|(dx, dz)| TilePos {
            x: ranger.x + dx,
            z: ranger.z + dz,
        })
        .find(|t| world.is_walkable(*t))
        .expect("open ground around the ranger");
    let mut joining = wayfarer_sim::Joining::new("ada", "Ada", at);
    // Standing still: auto-retaliate would walk the player up to whoever shot.
    joining.auto_retaliate = false;
    let mut commands = vec![wayfarer_sim::Command::Join(Box::new(joining))];
    let mut shot = None;
    for _ in 0..40 {
        for event in world.tick(std::mem::take(&mut commands)) {
            if let wayfarer_sim::Event::CombatHit { hit, .. } = event {
                if world
                    .entity(&hit.attacker_id)
                    .and_then(|e| e.type_id)
                    .as_deref()
                    == Some("dark_ranger")
                {
                    let me = world.entity("ada").expect("in the world");
                    let it = world.entity(&hit.attacker_id).expect("alive");
                    let apart = (me.x - it.x).abs().max((me.z - it.z).abs());
                    shot = Some((apart, hit.projectile.clone()));
                }
            }
        }
        if shot.is_some() {
            break;
        }
    }
    let (apart, projectile) = shot.expect("the ranger attacked");
    assert!(apart >= 3, "it shot from {apart} tiles");
    assert_eq!(projectile.as_deref(), Some("arrow"));
}

#[test]
fn a_new_character_catches_a_fish_with_only_the_starter_kit() {
    let Some(content) = load(None) else {
        return;
    };
    let content = Arc::new(content);
    let mut world = World::new(content.clone(), 1);
    // The starter kit, as a new character gets it.
    let mut joining = wayfarer_sim::Joining::new("ada", "Ada", world.spawn_tile());
    for line in content.starter_kit() {
        let item = &content.items[&line.item_id];
        joining
            .inventory
            .add(
                &line.item_id,
                line.quantity,
                wayfarer_sim::inventory::Stacking::of(item),
            )
            .expect("the kit fits");
    }
    let kit: BTreeSet<&str> = content
        .starter_kit()
        .iter()
        .map(|l| l.item_id.as_str())
        .collect();
    // A placed spot a level-1 fisher can use with what the kit holds.
    let fits = |id: &str| {
        let node = &content.gathering[id];
        node.level <= 1
            && node.consumes.is_none()
            && match &node.tool {
                ToolRequirement::Item(tool) => kit.contains(tool.as_str()),
                ToolRequirement::AnyForSkill(skill) => kit.iter().any(|k| {
                    content.items[*k]
                        .tool
                        .as_ref()
                        .is_some_and(|t| t.skill == *skill)
                }),
                ToolRequirement::None => true,
            }
    };
    let reach = reachable(&world);
    let spot = world
        .resources()
        .into_iter()
        .filter(|e| {
            e.resource_type.as_deref() == Some("fishing_spot")
                || e.type_id
                    .as_deref()
                    .is_some_and(|t| t.starts_with("fishing_spot"))
        })
        .filter(|e| e.type_id.as_deref().is_some_and(fits))
        .find_map(|e| {
            // Beside it on land.
            let stand = [(1, 0), (-1, 0), (0, 1), (0, -1)]
                .into_iter()
                .map(|(dx, dz)| TilePos {
                    x: e.x + dx,
                    z: e.z + dz,
                })
                .find(|t| reach.contains(&(t.x, t.z)))?;
            Some((e, stand))
        });
    let (spot, stand) = spot.expect("a spot the kit fishes, beside walkable land");
    joining.tile = stand;
    world.tick(vec![wayfarer_sim::Command::Join(Box::new(joining))]);
    world.tick(vec![wayfarer_sim::Command::Action {
        id: "ada".into(),
        action: wayfarer_sim::Action::Gather {
            target: spot.id.clone(),
        },
        reference: Some(1),
    }]);
    let mut caught = false;
    for _ in 0..200 {
        let events = world.tick(vec![]);
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, wayfarer_sim::Event::Rejected { to, .. } if to == "ada")),
            "{events:?}"
        );
        if events.iter().any(|e| {
            matches!(e, wayfarer_sim::Event::Xp { to, skill: wayfarer_content::Skill::Fishing, .. } if to == "ada")
        }) {
            caught = true;
            break;
        }
    }
    assert!(caught, "a fish caught at {:?}", spot.type_id);
}

/// The generated towns are places (CONTRACT §13, issue 53 point 3): every house walled on its
/// outline under a roof, with a door onto open ground through which its inside is walked to from
/// the town's middle; every town has lamps, and the roads leave towns by signposts. (The same
/// seed gives the same features: `the_same_seed_makes_the_same_world…` compares the areas whole.)
#[test]
fn generated_towns_have_walled_houses_with_doors_and_props() {
    let Some((content, _)) = reference() else {
        return;
    };
    let gen = content.generated.as_ref().unwrap();
    let (map, _) = wayfarer_sim::content_layout(content);
    let mut world = World::new(content.clone(), 1);
    let (mut houses, mut signposts) = (0, 0);
    for town in &gen.towns {
        let features = &content.areas[&town.area_id].features;
        assert_eq!(
            features.buildings.len(),
            town.buildings.len(),
            "{}",
            town.name
        );
        let centre = map
            .nearest_walkable(TilePos {
                x: town.centre.x,
                z: town.centre.z,
            })
            .expect("the plaza is walkable");
        for house in &features.buildings {
            houses += 1;
            assert!(house.roof.is_some(), "{} has a roof", house.id);
            assert_eq!(house.doors.len(), 1, "{} has a door", house.id);
            let corner = TilePos {
                x: house.min.x,
                z: house.min.z,
            };
            assert_ne!(map.walls_at(corner), 0, "{} is walled", house.id);
            let inside = TilePos {
                x: (house.min.x + house.max.x) / 2,
                z: (house.min.z + house.max.z) / 2,
            };
            let path = world.find_path(centre, inside);
            assert_eq!(
                path.last(),
                Some(&inside),
                "{}'s inside is walked to from {}'s plaza",
                house.id,
                town.name
            );
        }
        let lamps = features.props.iter().filter(|p| p.kind == "lamp").count();
        assert!(lamps >= 1, "{} has lamps", town.name);
        signposts += features
            .props
            .iter()
            .filter(|p| p.kind == "signpost" && p.text.as_deref() == Some(town.name.as_str()))
            .count();
    }
    assert!(houses >= 16, "8 towns of houses: {houses}");
    assert!(
        signposts >= 4,
        "roads leave towns by signposts: {signposts}"
    );
}

/// Where a town's safe disc meets water it gets a pier, a jetty one walks on over the water;
/// where a road crosses water it is a bridge one walks on. The reference seed's towns lie inland
/// and its roads go round the lakes, so this reads `WORLD_SEED` 8's island, which has both.
#[test]
fn towns_by_the_water_get_piers_and_roads_over_it_bridges() {
    let Some(content) = load(Some(8)) else {
        return;
    };
    let gen = content.generated.as_ref().unwrap();
    let (map, _) = wayfarer_sim::content_layout(&content);
    let mut piers = 0;
    for town in &gen.towns {
        for pier in content.areas[&town.area_id]
            .features
            .grounds
            .iter()
            .filter(|g| g.ground == "pier")
        {
            piers += 1;
            for x in pier.min.x..=pier.max.x {
                for z in pier.min.z..=pier.max.z {
                    let tile = TilePos { x, z };
                    assert!(
                        map.is_walkable(tile) && !map.is_water(tile),
                        "{tile:?} pier"
                    );
                }
            }
            let (w, d) = (pier.max.x - pier.min.x + 1, pier.max.z - pier.min.z + 1);
            assert!(
                w.max(d) >= 2 && w.min(d) == 1,
                "a pier is a jetty: {pier:?}"
            );
            // Out over the water: a water tile beside its far end.
            let end = if w > 1 {
                (pier.max.x + 1, pier.min.z)
            } else {
                (pier.min.x, pier.max.z + 1)
            };
            let start = if w > 1 {
                (pier.min.x - 1, pier.min.z)
            } else {
                (pier.min.x, pier.min.z - 1)
            };
            assert!(
                [end, start]
                    .iter()
                    .any(|&(x, z)| gen.ground_at(x, z) == Ground::Water),
                "{pier:?} reaches over water"
            );
        }
    }
    assert!(piers >= 1, "a town by the water has a pier");
    let mut bridges = 0;
    for z in gen.min.z..gen.min.z + gen.side {
        for x in gen.min.x..gen.min.x + gen.side {
            if gen.ground_at(x, z) == Ground::Bridge {
                bridges += 1;
                assert!(map.is_walkable(TilePos { x, z }), "the bridge at ({x},{z})");
            }
        }
    }
    assert!(bridges > 0, "a road crosses water on this island");
}
