//! The bundled world is complete, strictly valid and our own.

use std::collections::{BTreeMap, BTreeSet};

use wayfarer_content::{
    bundled, check, load_bundled, AreaGroup, Objective, RecipeKind, Skill, Source, ToolRequirement,
};

use crate::reference_dir;

#[test]
fn bundled_content_has_zero_diagnostics_in_strict_mode() {
    let report = check(Source::Bundled, true);
    assert_eq!(report.error_count(), 0, "{report}");
    assert_eq!(report.warning_count(), 0, "{report}");
    // What the bundled world leaves to clients (`ignored: …` lines) is not a diagnostic.
    assert!(
        report.to_string().ends_with("0 errors, 0 warnings"),
        "{report}"
    );
    assert!(report.diagnostics.is_empty());
}

#[test]
fn bundled_has_the_files_the_reference_lacks() {
    let set = bundled();
    for file in [
        "gathering/fishing.json",
        "recipes/cooking.json",
        "recipes/firemaking.json",
        "recipes/smelting.json",
    ] {
        assert!(set.contains(file), "{file}");
    }
    let content = load_bundled();
    for kind in [
        RecipeKind::Cooking,
        RecipeKind::Firemaking,
        RecipeKind::Smelting,
        RecipeKind::Smithing,
    ] {
        assert!(content.recipes_of(kind).count() >= 3, "{kind:?}");
    }
}

#[test]
fn starter_town_has_spawn_bank_store_npcs_and_resources() {
    let content = load_bundled();
    let town = content
        .areas
        .values()
        .find(|a| a.group == AreaGroup::StarterTowns)
        .expect("a starter town");
    assert!(town.safe_zone && !town.pvp);
    let spawn = town.spawn_point.expect("spawn point");
    assert!(town.bounds.contains(spawn.x, spawn.z));
    assert_eq!(content.spawn_point(), spawn);
    let npc = |id: &str| &content.npcs[id];
    assert!(town
        .npcs
        .iter()
        .any(|s| npc(&s.npc_id).services.contains(&"bank".to_string())));
    let shop = town
        .npcs
        .iter()
        .find(|s| s.store_id.is_some())
        .expect("general store keeper");
    assert!(npc(&shop.npc_id).services.contains(&"shop".to_string()));
    let talkers = content
        .npcs
        .values()
        .filter(|n| n.dialogue.is_some())
        .count();
    assert!(talkers >= 3, "{talkers} NPCs with dialogue");
    let placed: BTreeSet<&str> = content
        .areas
        .values()
        .flat_map(|a| a.resources.iter().map(|r| r.resource_id.as_str()))
        .collect();
    for node in [
        "tree_normal",
        "tree_oak",
        "tree_willow",
        "rock_copper",
        "rock_tin",
        "rock_iron",
        "fishing_spot_net",
    ] {
        assert!(placed.contains(node), "{node} placed");
    }
    let trees: BTreeSet<&str> = content
        .gathering
        .values()
        .filter(|g| g.kind == "tree")
        .flat_map(|g| g.yields.iter().map(|y| y.item_id.as_str()))
        .collect();
    assert_eq!(trees, BTreeSet::from(["logs", "oak_logs", "willow_logs"]));
    let stations: BTreeSet<&str> = town.stations.iter().map(|s| s.station.as_str()).collect();
    for station in ["range", "furnace", "anvil"] {
        assert!(stations.contains(station), "{station} in town");
    }
    assert_eq!(
        content.gathering["fishing_spot_net"].tool,
        ToolRequirement::Item("small_fishing_net".into())
    );
    assert_eq!(
        content.gathering["tree_oak"].tool,
        ToolRequirement::AnyForSkill(Skill::Woodcutting)
    );
}

#[test]
fn mobs_span_three_difficulties_with_safe_and_pvp_areas() {
    let content = load_bundled();
    let mut mobs_by_level: BTreeMap<u32, BTreeSet<&str>> = BTreeMap::new();
    for area in content.areas.values() {
        for spawn in &area.mob_spawns {
            assert!(
                content.npcs[&spawn.mob_id].is_mob(),
                "{} attackable",
                spawn.mob_id
            );
            mobs_by_level
                .entry(area.difficulty_level)
                .or_default()
                .insert(&spawn.mob_id);
        }
    }
    let levels: Vec<u32> = mobs_by_level.keys().copied().collect();
    assert_eq!(levels, [1, 2, 3]);
    let kinds: BTreeSet<&str> = mobs_by_level.values().flatten().copied().collect();
    assert!(kinds.len() >= 6, "{kinds:?}");
    assert!(content.areas.values().any(|a| a.safe_zone));
    assert!(content.areas.values().any(|a| a.pvp && !a.safe_zone));
}

#[test]
fn quests_prayers_and_unlocks_are_complete() {
    let content = load_bundled();
    assert!(content.quests.len() >= 3);
    let kinds: BTreeSet<&str> = content
        .quests
        .values()
        .flat_map(|q| q.stages.iter())
        .map(|s| match s.objective {
            Objective::Dialogue { .. } => "dialogue",
            Objective::Kill { .. } => "kill",
            Objective::Gather { .. } => "gather",
            Objective::Interact { .. } => "interact",
            Objective::Travel { .. } => "travel",
        })
        .collect();
    assert_eq!(kinds.len(), 5, "every stage type: {kinds:?}");
    // Every quest can be started and completed from its giver's dialogue.
    let effects: Vec<String> = content
        .npcs
        .values()
        .filter_map(|n| n.dialogue.as_ref())
        .flat_map(|d| d.nodes.iter())
        .flat_map(|n| {
            n.responses
                .iter()
                .flat_map(|r| r.effects.iter())
                .chain(&n.effects)
        })
        .map(|e| e.to_string())
        .collect();
    for quest in content.quests.values() {
        assert!(
            content.npcs[&quest.start_npc].dialogue.is_some(),
            "{} giver talks",
            quest.id
        );
        for effect in ["startQuest", "completeQuest"] {
            let wanted = format!("{effect}:{}", quest.id);
            assert!(effects.contains(&wanted), "no {wanted}");
        }
    }
    // Some response is conditional and some has an item effect.
    let responses = || {
        content
            .npcs
            .values()
            .filter_map(|n| n.dialogue.as_ref())
            .flat_map(|d| d.nodes.iter())
            .flat_map(|n| n.responses.iter())
    };
    assert!(responses().any(|r| !r.conditions.is_empty()));
    assert!(effects.iter().any(|e| e.starts_with("takeItem:")));
    assert!(effects.iter().any(|e| e.starts_with("giveItem:")));
    assert!(content.prayers.len() >= 5);
    for skill in Skill::ALL {
        assert!(
            content
                .skill_unlocks
                .get(&skill)
                .is_some_and(|u| !u.is_empty()),
            "{skill} unlocks"
        );
    }
}

#[test]
fn starter_kit_is_tradeable_and_items_have_values() {
    let content = load_bundled();
    let kit: BTreeMap<&str, u32> = content
        .starter_kit()
        .iter()
        .map(|a| (a.item_id.as_str(), a.quantity))
        .collect();
    for item in ["bronze_hatchet", "small_fishing_net", "tinderbox", "bread"] {
        assert!(kit.contains_key(item), "{item} in kit");
    }
    assert_eq!(kit.get("coins"), Some(&25));
    for id in kit.keys() {
        assert!(content.items[*id].tradeable, "{id} tradeable");
    }
    assert!(content.items["coins"].stackable);
    assert!(content.items["bread"].heal_amount.is_some());
    for item in content.items.values() {
        if item.kind != "junk" {
            assert!(item.value > 0, "{} has a value", item.id);
        }
    }
    // Every store line sells at the item's value.
    for store in content.stores.values() {
        for line in &store.stock {
            assert_eq!(
                line.price, content.items[&line.item_id].value,
                "{}",
                line.item_id
            );
        }
    }
}

#[test]
fn every_recipe_station_is_placed_somewhere() {
    let content = load_bundled();
    let placed: BTreeSet<&str> = content
        .areas
        .values()
        .flat_map(|a| a.stations.iter().map(|s| s.station.as_str()))
        .collect();
    for recipe in &content.recipes {
        if let Some(station) = &recipe.station {
            assert!(
                placed.contains(station.as_str()),
                "{} needs {station}",
                recipe.id
            );
        }
    }
}

#[test]
fn bundled_entries_are_not_copied_from_the_reference() {
    let Some(dir) = reference_dir() else { return };
    let reference = wayfarer_content::ManifestSet::read_dir(&dir).expect("readable");
    let mut reference_objects = BTreeSet::new();
    for bytes in reference.files.values() {
        let value: serde_json::Value = serde_json::from_slice(bytes).expect("json");
        collect_entries(&value, &mut reference_objects);
    }
    for (path, bytes) in &bundled().files {
        let value: serde_json::Value = serde_json::from_slice(bytes).expect("json");
        let mut ours = BTreeSet::new();
        collect_entries(&value, &mut ours);
        let copied: Vec<&String> = ours.intersection(&reference_objects).collect();
        assert!(
            copied.is_empty(),
            "{path} repeats reference entries: {copied:?}"
        );
    }
}

/// Every JSON object with an `id` (or `output`/`type`) and at least four keys, serialised.
fn collect_entries(value: &serde_json::Value, out: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if map.len() >= 4
                && (map.contains_key("id")
                    || map.contains_key("output")
                    || map.contains_key("type"))
            {
                out.insert(value.to_string());
            }
            map.values().for_each(|v| collect_entries(v, out));
        }
        serde_json::Value::Array(list) => list.iter().for_each(|v| collect_entries(v, out)),
        _ => {}
    }
}

#[test]
fn skill_unlocks_serialise_in_the_interface_shape() {
    let content = load_bundled();
    let value = serde_json::to_value(&content.skill_unlocks).expect("serialisable");
    let defense = &value["defense"][0];
    assert_eq!(defense["level"], 1);
    assert_eq!(defense["type"], "item");
    assert!(defense["description"].is_string());
    assert_eq!(value.as_object().unwrap().len(), 17);
    serde_json::to_string(&content).expect("the whole model serialises");
}

/// The compass words of the bundled areas' descriptions ("woodland east of Millbrook") agree with
/// where the areas lie from Millbrook's spawn: north is −z, up the client's screen (docs/content.md,
/// "Directions").
#[test]
fn area_descriptions_compass_words_agree_with_their_coordinates() {
    // Word → (dx sign, dz sign) a centre that way has; 0 where that axis does not matter.
    const WORDS: [(&str, (i32, i32)); 4] = [
        ("north", (0, -1)),
        ("south", (0, 1)),
        ("east", (1, 0)),
        ("west", (-1, 0)),
    ];
    let content = load_bundled();
    let spawn = content.spawn_point();
    let mut checked = 0;
    for area in content.areas.values() {
        let b = area.bounds;
        let (dx, dz) = (
            (b.min_x + b.max_x) / 2.0 - spawn.x,
            (b.min_z + b.max_z) / 2.0 - spawn.z,
        );
        let text = area.description.to_lowercase();
        for word in text.split(|c: char| !c.is_alphabetic()) {
            let Some((_, (sx, sz))) = WORDS.iter().find(|(w, _)| w == &word) else {
                continue;
            };
            checked += 1;
            assert!(
                dx * f64::from(*sx) + dz * f64::from(*sz) > 0.0,
                "{}: {word:?} but its centre is ({dx}, {dz}) from the spawn: {}",
                area.id,
                area.description
            );
        }
    }
    // The woods (east), the arena (north), the hills (west) and the wastes (south).
    assert_eq!(checked, 4);
}
