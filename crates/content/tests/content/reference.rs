//! The real reference corpus loads with warnings only, and exactly these dangling references.

use std::collections::BTreeSet;

use wayfarer_content::{
    Code, Content, InteractTarget, LoadOptions, ManifestSet, RecipeKind, Severity, Skill,
    ToolRequirement,
};

use crate::reference_dir;

/// (file, entry, field, missing id) of every reference to an undefined id in the corpus, worked out
/// by reading the data independently of the loader. The rune items the corpus names without
/// defining are not among them: the loader falls back to the bundled ones (CONTRACT.md section
/// 11). (`bandit` and `barbarian` are `mobs.json` mobs, which become NPCs where `npcs.json` lacks
/// them.)
const EXPECTED_DANGLING: &[(&str, &str, &str, &str)] = &[
    (
        "prayers.json",
        "burst_of_strength",
        "prayers[1].conflicts[1]",
        "ultimate_strength",
    ),
    (
        "prayers.json",
        "burst_of_strength",
        "prayers[1].conflicts[2]",
        "chivalry",
    ),
    (
        "prayers.json",
        "burst_of_strength",
        "prayers[1].conflicts[3]",
        "piety",
    ),
    (
        "prayers.json",
        "clarity_of_thought",
        "prayers[2].conflicts[0]",
        "improved_reflexes",
    ),
    (
        "prayers.json",
        "clarity_of_thought",
        "prayers[2].conflicts[1]",
        "incredible_reflexes",
    ),
    (
        "prayers.json",
        "clarity_of_thought",
        "prayers[2].conflicts[2]",
        "chivalry",
    ),
    (
        "prayers.json",
        "clarity_of_thought",
        "prayers[2].conflicts[3]",
        "piety",
    ),
    (
        "prayers.json",
        "rock_skin",
        "prayers[3].conflicts[1]",
        "steel_skin",
    ),
    (
        "prayers.json",
        "rock_skin",
        "prayers[3].conflicts[2]",
        "chivalry",
    ),
    (
        "prayers.json",
        "rock_skin",
        "prayers[3].conflicts[3]",
        "piety",
    ),
    (
        "prayers.json",
        "superhuman_strength",
        "prayers[4].conflicts[1]",
        "ultimate_strength",
    ),
    (
        "prayers.json",
        "superhuman_strength",
        "prayers[4].conflicts[2]",
        "chivalry",
    ),
    (
        "prayers.json",
        "superhuman_strength",
        "prayers[4].conflicts[3]",
        "piety",
    ),
    (
        "prayers.json",
        "thick_skin",
        "prayers[0].conflicts[1]",
        "steel_skin",
    ),
    (
        "prayers.json",
        "thick_skin",
        "prayers[0].conflicts[2]",
        "chivalry",
    ),
    (
        "prayers.json",
        "thick_skin",
        "prayers[0].conflicts[3]",
        "piety",
    ),
    (
        "quests.json",
        "crafting_basics",
        "crafting_basics.stages[0].npcId",
        "crafting_supplier",
    ),
    (
        "quests.json",
        "crafting_basics",
        "crafting_basics.stages[3].npcId",
        "crafting_supplier",
    ),
    (
        "quests.json",
        "crafting_basics",
        "crafting_basics.startNpc",
        "crafting_supplier",
    ),
    (
        "quests.json",
        "fletchers_introduction",
        "fletchers_introduction.stages[0].npcId",
        "bowyer",
    ),
    (
        "quests.json",
        "fletchers_introduction",
        "fletchers_introduction.stages[4].npcId",
        "bowyer",
    ),
    (
        "quests.json",
        "fletchers_introduction",
        "fletchers_introduction.startNpc",
        "bowyer",
    ),
    (
        "quests.json",
        "fresh_catch",
        "fresh_catch.stages[0].npcId",
        "fisherman_pete",
    ),
    (
        "quests.json",
        "fresh_catch",
        "fresh_catch.stages[3].npcId",
        "fisherman_pete",
    ),
    (
        "quests.json",
        "fresh_catch",
        "fresh_catch.startNpc",
        "fisherman_pete",
    ),
    (
        "quests.json",
        "goblin_slayer",
        "goblin_slayer.onStart.items[0].itemId",
        "bronze_shortsword",
    ),
    (
        "quests.json",
        "goblin_slayer",
        "goblin_slayer.stages[0].npcId",
        "captain_rowan",
    ),
    (
        "quests.json",
        "goblin_slayer",
        "goblin_slayer.stages[2].npcId",
        "captain_rowan",
    ),
    (
        "quests.json",
        "goblin_slayer",
        "goblin_slayer.startNpc",
        "captain_rowan",
    ),
    (
        "quests.json",
        "iron_will",
        "iron_will.rewards.items[0].itemId",
        "torvins_promise",
    ),
    (
        "quests.json",
        "iron_will",
        "iron_will.rewards.items[1].itemId",
        "iron_platelegs",
    ),
    (
        "quests.json",
        "iron_will",
        "iron_will.stages[0].npcId",
        "torvin",
    ),
    (
        "quests.json",
        "iron_will",
        "iron_will.stages[3].target",
        "iron_scimitar",
    ),
    (
        "quests.json",
        "iron_will",
        "iron_will.stages[5].npcId",
        "torvin",
    ),
    ("quests.json", "iron_will", "iron_will.startNpc", "torvin"),
    (
        "quests.json",
        "lumberjacks_first_lesson",
        "lumberjacks_first_lesson.stages[0].npcId",
        "forester_wilma",
    ),
    (
        "quests.json",
        "lumberjacks_first_lesson",
        "lumberjacks_first_lesson.stages[3].npcId",
        "forester_wilma",
    ),
    (
        "quests.json",
        "lumberjacks_first_lesson",
        "lumberjacks_first_lesson.startNpc",
        "forester_wilma",
    ),
    (
        "quests.json",
        "roads_run_red",
        "roads_run_red.onStart.items[0].itemId",
        "iron_shortsword",
    ),
    (
        "quests.json",
        "roads_run_red",
        "roads_run_red.rewards.items[0].itemId",
        "ironwatch_shield",
    ),
    (
        "quests.json",
        "roads_run_red",
        "roads_run_red.stages[0].npcId",
        "captain_rowan",
    ),
    (
        "quests.json",
        "roads_run_red",
        "roads_run_red.stages[2].npcId",
        "captain_rowan",
    ),
    (
        "quests.json",
        "roads_run_red",
        "roads_run_red.startNpc",
        "captain_rowan",
    ),
    (
        "quests.json",
        "rune_mysteries",
        "rune_mysteries.stages[0].npcId",
        "wizard_zamorin",
    ),
    (
        "quests.json",
        "rune_mysteries",
        "rune_mysteries.stages[3].npcId",
        "wizard_zamorin",
    ),
    (
        "quests.json",
        "rune_mysteries",
        "rune_mysteries.startNpc",
        "wizard_zamorin",
    ),
    (
        "quests.json",
        "torvins_tools",
        "torvins_tools.stages[0].npcId",
        "torvin",
    ),
    (
        "quests.json",
        "torvins_tools",
        "torvins_tools.stages[4].target",
        "bronze_shortsword",
    ),
    (
        "quests.json",
        "torvins_tools",
        "torvins_tools.stages[7].npcId",
        "torvin",
    ),
    (
        "quests.json",
        "torvins_tools",
        "torvins_tools.startNpc",
        "torvin",
    ),
    (
        "quests.json",
        "warchiefs_fury",
        "warchiefs_fury.rewards.items[0].itemId",
        "grundars_waraxe",
    ),
    (
        "quests.json",
        "warchiefs_fury",
        "warchiefs_fury.rewards.items[1].itemId",
        "steel_kiteshield",
    ),
    (
        "quests.json",
        "warchiefs_fury",
        "warchiefs_fury.stages[0].npcId",
        "armorer",
    ),
    (
        "quests.json",
        "warchiefs_fury",
        "warchiefs_fury.stages[2].target",
        "barbarian_warchief",
    ),
    (
        "quests.json",
        "warchiefs_fury",
        "warchiefs_fury.stages[3].npcId",
        "armorer",
    ),
    (
        "quests.json",
        "warchiefs_fury",
        "warchiefs_fury.startNpc",
        "armorer",
    ),
    ("stores.json", "central_store", "items[65].itemId", "pike"),
    ("stores.json", "central_store", "items[67].itemId", "tuna"),
    (
        "stores.json",
        "central_store",
        "items[68].itemId",
        "lobster",
    ),
    (
        "stores.json",
        "central_store",
        "items[69].itemId",
        "swordfish",
    ),
    (
        "stores.json",
        "central_store",
        "items[70].itemId",
        "monkfish",
    ),
    ("stores.json", "central_store", "items[71].itemId", "shark"),
];

fn load_reference() -> Option<(ManifestSet, Content, wayfarer_content::Report)> {
    let dir = reference_dir()?;
    let set = ManifestSet::read_dir(&dir).expect("reference corpus readable");
    let (content, report) = match Content::from_files(&set) {
        Ok(loaded) => loaded,
        Err(report) => panic!("reference corpus must load with warnings only:\n{report}"),
    };
    Some((set, content, report))
}

#[test]
fn reference_loads_with_warnings_only() {
    let Some((set, _, report)) = load_reference() else {
        return;
    };
    assert_eq!(set.len(), 29, "every reference file is read");
    assert_eq!(report.error_count(), 0, "{report}");
    assert!(report.warning_count() > 0);
    assert!(report
        .to_string()
        .ends_with(&format!("0 errors, {} warnings", report.warning_count())));
}

#[test]
fn reference_dangling_references_are_exactly_the_expected_set() {
    let Some((_, _, report)) = load_reference() else {
        return;
    };
    let actual: BTreeSet<(String, String, String, String)> = report
        .with_code(Code::UnknownReference)
        .map(|d| {
            assert_eq!(d.severity, Severity::Warning);
            (
                d.file.clone(),
                d.entry.clone().expect("entry"),
                d.field.clone().expect("field"),
                d.missing.clone().expect("missing id"),
            )
        })
        .collect();
    let expected: BTreeSet<(String, String, String, String)> = EXPECTED_DANGLING
        .iter()
        .map(|(f, e, p, m)| (f.to_string(), e.to_string(), p.to_string(), m.to_string()))
        .collect();
    assert_eq!(
        expected.len(),
        EXPECTED_DANGLING.len(),
        "no duplicates in the expectation"
    );
    let missed: Vec<_> = expected.difference(&actual).collect();
    let invented: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missed.is_empty() && invented.is_empty(),
        "missed: {missed:#?}\ninvented: {invented:#?}"
    );
    assert_eq!(
        report.warning_count(),
        expected.len(),
        "no other warnings:\n{report}"
    );
}

#[test]
fn reference_fails_in_strict_mode() {
    let Some((set, _, _)) = load_reference() else {
        return;
    };
    let report =
        Content::from_files_with(&set, LoadOptions { strict: true }).expect_err("strict fails");
    assert_eq!(report.error_count(), EXPECTED_DANGLING.len());
    assert_eq!(report.warning_count(), 0);
}

#[test]
fn reference_is_normalised() {
    let Some((_, content, _)) = load_reference() else {
        return;
    };
    // Items: six split files merged, legacy items.json ignored, the 8 bundled foods the
    // reference lacks (it has nothing that heals; the stores' shrimp, anchovies, sardine, herring,
    // trout and salmon and the quest's shrimp now resolve to them), and the six runes the corpus
    // names without defining taken from the bundled content (CONTRACT.md section 11).
    assert_eq!(content.items.len(), 167 + 8 + 6);
    assert_eq!(content.items["shrimp"].heal_amount, Some(3));
    for rune in ["air", "mind", "water", "earth", "fire", "chaos"] {
        assert!(
            content.items.contains_key(&format!("{rune}_rune")),
            "{rune}"
        );
    }
    // Spells: the corpus has none, so the bundled ones.
    assert_eq!(content.spells.len(), 8);
    assert_eq!(content.spells["wind_strike"].runes.len(), 2);
    let hatchet = &content.items["bronze_hatchet"];
    assert_eq!(
        hatchet.tool.as_ref().map(|t| (t.skill, t.priority)),
        Some((Skill::Woodcutting, 1))
    );
    assert_eq!(
        hatchet.weapon.as_ref().map(|w| w.attack_speed_ticks),
        Some(5)
    );
    assert!(
        !hatchet.stackable,
        "stackable is absent on tools and defaults to false"
    );
    assert_eq!(hatchet.bonuses.attack_melee, 4);
    let pickaxe = &content.items["rune_pickaxe"];
    assert_eq!(pickaxe.tool.as_ref().and_then(|t| t.roll_ticks), Some(3));
    // `defence` in armour requirements and `defense` elsewhere both become Skill::Defense.
    let gloves = &content.items["leather_gloves"];
    assert_eq!(gloves.requirements.get(&Skill::Defense), Some(&1));
    assert_eq!(
        (gloves.bonuses.defense_slash, gloves.bonuses.defense_ranged),
        (2, 2)
    );
    let fury = &content.items["amulet_of_fury"];
    assert_eq!(fury.bonuses.defense_magic, 10);
    assert_eq!(
        fury.bonuses.defense_stab, 10,
        "generic `defense` applies to every melee style"
    );
    assert_eq!(fury.bonuses.attack_ranged, 10);
    let staff = &content.items["staff_of_fire"];
    assert_eq!(staff.provides_infinite_runes, ["fire_rune"]);
    assert_eq!(content.items["coins"].max_stack, 2_147_483_647);
    assert_eq!(content.items["bones"].prayer_xp, Some(5.0));
    // Gathering: category and item-id tool spellings both mean "any tool of the skill".
    assert_eq!(
        content.gathering["ore_copper"].tool,
        ToolRequirement::AnyForSkill(Skill::Mining)
    );
    assert_eq!(
        content.gathering["tree_oak"].tool,
        ToolRequirement::AnyForSkill(Skill::Woodcutting)
    );
    assert_eq!(content.gathering["ore_runite"].respawn_ticks, 1200);
    assert_eq!(content.gathering["tree_magic"].yields[0].xp, 250.0);
    // 15 from gathering/*.json, the legacy resources.json's fishing spot they lack, the
    // bundled essence rock: no reference rock yields the essence its rune recipes take
    // (CONTRACT.md section 11), and the five fishing spot types world-areas.json places without
    // defining, filled in from the bundled ones (CONTRACT.md section 14).
    assert_eq!(content.gathering.len(), 15 + 1 + 1 + 5);
    for spot in ["net", "bait", "fly", "cage", "harpoon"] {
        let id = format!("fishing_spot_{spot}");
        assert!(
            content.areas["central_haven"]
                .fishing
                .as_ref()
                .is_some_and(|f| f.spot_types.contains(&id)),
            "{id} placed"
        );
    }
    assert_eq!(
        content.gathering["fishing_spot_normal"].yields[0].item_id,
        "raw_shrimp"
    );
    assert_eq!(
        content.gathering["rock_essence"].yields[0].item_id,
        "rune_essence"
    );
    // NPCs: tick timings, `health` → health stat.
    let goblin = &content.npcs["goblin"];
    assert_eq!(goblin.combat.attack_speed_ticks, 4);
    assert_eq!(goblin.combat.respawn_ticks, 35);
    assert_eq!(goblin.stats.health, 5);
    assert_eq!(goblin.drops.len(), 4);
    assert_eq!(
        goblin.default_drop.as_ref().map(|d| d.item_id.as_str()),
        Some("bones")
    );
    assert_eq!(content.npcs["bank_clerk"].services, ["bank"]);
    // Legacy mobs: seconds and milliseconds become ticks.
    let legacy_goblin = content
        .legacy
        .mobs
        .iter()
        .find(|m| m.id == "goblin")
        .expect("legacy goblin");
    assert_eq!(legacy_goblin.attack_speed_ticks, 3);
    assert_eq!(legacy_goblin.respawn_ticks, 1500);
    assert_eq!(content.legacy.banks.len(), 5);
    assert_eq!(content.legacy.zones.len(), 12);
    assert_eq!(content.music.len(), 20);
    // Stores: of the 12 cooked-food lines, the 6 the fallback food defines stay (shrimp,
    // anchovies, sardine, herring, trout, salmon); the other 6 are dropped, the store stays.
    assert_eq!(content.stores["central_store"].stock.len(), 60 + 6);
    // Recipes: fletching's repeated output gets ids told apart by the logs; runecrafting plays
    // with the bundled runes, each at its own altar (the bundled altar stations come along).
    let shafts: Vec<&str> = content
        .recipes_of(RecipeKind::Fletching)
        .filter(|r| r.id.starts_with("fletching:arrow_shaft"))
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        shafts,
        [
            "fletching:arrow_shaft:logs",
            "fletching:arrow_shaft:oak_logs",
            "fletching:arrow_shaft:willow_logs",
            "fletching:arrow_shaft:maple_logs",
            "fletching:arrow_shaft:yew_logs",
            "fletching:arrow_shaft:magic_logs"
        ]
    );
    assert_eq!(content.recipes_of(RecipeKind::Runecrafting).count(), 6);
    let chaos = content
        .recipes
        .iter()
        .find(|r| r.id == "runecrafting:chaos_rune")
        .expect("chaos runes");
    assert_eq!(chaos.station.as_deref(), Some("chaos_altar"));
    for altar in ["air", "mind", "water", "earth", "fire", "chaos"] {
        assert!(
            content.stations.contains_key(&format!("{altar}_altar")),
            "{altar}"
        );
    }
    assert_eq!(content.recipes_of(RecipeKind::Smithing).count(), 24);
    assert_eq!(content.recipes_of(RecipeKind::Crafting).count(), 24);
    assert_eq!(content.recipes_of(RecipeKind::Tanning).count(), 2);
    // Quests: every one names an undefined NPC, so all are disabled.
    assert!(content.quests.is_empty());
    // Prayers keep only the defined conflicts.
    assert_eq!(content.prayers["thick_skin"].conflicts, ["rock_skin"]);
    // Skill unlocks: `defence` key becomes Skill::Defense.
    assert_eq!(content.skill_unlocks[&Skill::Defense].len(), 10);
    assert_eq!(
        content.skill_unlocks.values().map(Vec::len).sum::<usize>(),
        106
    );
    // World.
    assert_eq!(content.areas.len(), 2);
    assert!(content.areas["wilderness_test"].pvp);
    assert!(content.areas["central_haven"].safe_zone);
    assert!(content.areas["central_haven"]
        .fishing
        .as_ref()
        .is_some_and(|f| f.spot_types.len() == 5));
    assert_eq!(
        content.spawn_point(),
        wayfarer_content::Position {
            x: 0.0,
            y: 0.0,
            z: 0.0
        }
    );
    assert_eq!(
        content.world_config.terrain.as_ref().map(|t| t.seed),
        Some(12345)
    );
    assert_eq!(content.world_config.biome_distribution.len(), 8);
    assert_eq!(content.biomes.len(), 8);
    assert_eq!(content.stations["furnace"].model_scale, 1.5);
    // Model bounds: 150 entries keyed by asset path although ids repeat.
    assert_eq!(content.model_bounds.len(), 150);
    let ids: BTreeSet<&str> = content
        .model_bounds
        .values()
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(ids.len(), 104);
    let _ = InteractTarget::Fire;
}

#[test]
fn quest_escapes_decode_and_quests_load_once_their_npcs_exist() {
    let Some(dir) = reference_dir() else { return };
    let mut set = ManifestSet::read_dir(&dir).expect("readable");
    // Define the missing NPCs and items so the first quest becomes loadable.
    let mut npcs: serde_json::Value =
        serde_json::from_slice(set.get("npcs.json").unwrap()).unwrap();
    let list = npcs.as_array_mut().unwrap();
    list.push(serde_json::json!({"id": "captain_rowan", "name": "Captain Rowan"}));
    set.insert("npcs.json", serde_json::to_vec(&npcs).unwrap());
    let mut misc: serde_json::Value =
        serde_json::from_slice(set.get("items/misc.json").unwrap()).unwrap();
    misc.as_array_mut()
        .unwrap()
        .push(serde_json::json!({"id": "bronze_shortsword", "name": "Bronze Shortsword", "type": "weapon", "value": 30}));
    set.insert("items/misc.json", serde_json::to_vec(&misc).unwrap());
    let (content, report) = Content::from_files(&set).expect("loads");
    let quest = &content.quests["goblin_slayer"];
    assert!(
        quest.description.contains('\u{2014}'),
        "{}",
        quest.description
    );
    assert_eq!(quest.stages.len(), 3);
    assert_eq!(content.quests.len(), 1, "{report}");
    assert!(report.with_code(Code::DisabledReference).next().is_none());
}

#[test]
fn reference_mobs_json_mobs_are_npcs_and_the_bundled_smelting_fills_in() {
    let Some((_, content, report)) = load_reference() else {
        return;
    };
    for id in [
        "bandit",
        "barbarian",
        "hobgoblin",
        "guard",
        "dark_warrior",
        "black_knight",
        "ice_warrior",
        "dark_ranger",
    ] {
        let npc = &content.npcs[id];
        assert!(npc.is_mob() && npc.combat.aggressive, "{id}");
        assert!(
            npc.spawn_biomes
                .iter()
                .all(|b| content.biomes.contains_key(b))
                && !npc.spawn_biomes.is_empty(),
            "{id} spawns in defined biomes: {:?}",
            npc.spawn_biomes
        );
    }
    // Read from mobs.json: stats, aggression, seconds and milliseconds as ticks, its drop.
    let knight = &content.npcs["black_knight"];
    assert_eq!(
        (knight.stats.level, knight.stats.health, knight.stats.attack),
        (20, 60, 20)
    );
    assert_eq!(
        (knight.combat.aggro_range, knight.combat.leash_range),
        (10.0, 25.0)
    );
    assert_eq!(knight.combat.attack_speed_ticks, 2, "0.9 s");
    assert_eq!(knight.combat.respawn_ticks, 1500, "900000 ms");
    assert_eq!(knight.drops[0].item_id, "coins");
    assert_eq!(knight.drops[0].min_quantity, 100);
    // Difficulty 3 mobs spawn in the difficulty 3 biomes (mobs.json names older biomes).
    assert_eq!(knight.spawn_biomes, ["tundra"]);
    // npcs.json's goblin wins over mobs.json's.
    assert_eq!(content.npcs["goblin"].combat.respawn_ticks, 35);
    // No recipes/smelting.json: the bundled smelting recipes for the reference's own items.
    let bronze = content
        .recipes
        .iter()
        .find(|r| r.id == "smithing:bronze_bar")
        .expect("a bronze bar can be smelted");
    assert_eq!(bronze.kind, RecipeKind::Smelting);
    // What is read but not used is named, once each.
    let text = report.to_string();
    for file in [
        "music.json",
        "zones.json",
        "mobs.json",
        "world-config.json vegetation",
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("ignored: {file}"))),
            "{file} named in:\n{text}"
        );
    }
}

#[test]
fn reference_gets_the_bundled_cooking_and_firemaking_and_a_kit_that_fishes() {
    let Some((_, content, report)) = load_reference() else {
        return;
    };
    // No recipes/cooking.json or firemaking.json: the bundled ones for the reference's own items.
    // Its shrimp burns into its own burnt_shrimp (our burnt_fish it lacks).
    let shrimp = content
        .recipes
        .iter()
        .find(|r| r.kind == RecipeKind::Cooking && r.inputs[0].item_id == "raw_shrimp")
        .expect("a shrimp can be cooked");
    assert_eq!(
        shrimp.output.as_ref().map(|o| o.item_id.as_str()),
        Some("shrimp")
    );
    match &shrimp.detail {
        wayfarer_content::RecipeDetail::Cooking { burnt, .. } => {
            assert_eq!(burnt.as_deref(), Some("burnt_shrimp"));
        }
        other => panic!("{other:?}"),
    }
    let logs = content
        .recipes
        .iter()
        .find(|r| r.kind == RecipeKind::Firemaking && r.inputs[0].item_id == "logs")
        .expect("logs can be lit");
    assert!(logs.tools.iter().any(|t| t == "tinderbox"), "{logs:?}");
    // Named at start-up and by check-content, one line a file.
    let text = report.to_string();
    for line in [
        "filled in: recipes/smelting.json",
        "filled in: recipes/cooking.json",
        "filled in: recipes/firemaking.json",
        "filled in: world-areas.json fishing spot type `fishing_spot_net`",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(line)),
            "{line} in:\n{text}"
        );
    }
    // The kit's fishing tool fishes a level 1 spot without bait that the content defines.
    let kit: Vec<&str> = content
        .starter_kit()
        .iter()
        .map(|a| a.item_id.as_str())
        .collect();
    assert!(kit.contains(&"tinderbox"), "{kit:?}");
    let fits = content.gathering.values().any(|n| {
        n.skill == Skill::Fishing
            && n.level == 1
            && n.consumes.is_none()
            && match &n.tool {
                ToolRequirement::Item(id) => kit.contains(&id.as_str()),
                ToolRequirement::AnyForSkill(skill) => kit.iter().any(|k| {
                    content.items[*k]
                        .tool
                        .as_ref()
                        .is_some_and(|t| t.skill == *skill)
                }),
                ToolRequirement::None => true,
            }
    });
    assert!(fits, "{kit:?}");
}
