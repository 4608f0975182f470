//! Validation classes on small hand-made manifest sets.

use wayfarer_content::{check, Code, Content, LoadOptions, ManifestSet, Severity, Source};

/// A minimal valid set: two items, a store, a tree, an area, an NPC.
fn base() -> ManifestSet {
    let mut set = ManifestSet::new();
    set.insert(
        "items/resources.json",
        r#"[
  {"id": "logs", "name": "Logs", "type": "resource", "value": 5},
  {"id": "coins", "name": "Coins", "type": "currency", "value": 1, "stackable": true}
]"#,
    );
    set.insert(
        "items/tools.json",
        r#"[{"id": "hatchet", "name": "Hatchet", "type": "tool", "value": 10, "tool": {"skill": "woodcutting", "priority": 1}}]"#,
    );
    set.insert(
        "stores.json",
        r#"[{"id": "shop", "name": "Shop", "items": [
  {"id": "logs", "itemId": "logs", "price": 5, "stockQuantity": -1, "restockTime": 0},
  {"id": "gold", "itemId": "gold_bar", "price": 50, "stockQuantity": 3, "restockTime": 60000}
]}]"#,
    );
    set.insert(
        "gathering/woodcutting.json",
        r#"{"trees": [
  {"id": "tree_normal", "name": "Tree", "type": "tree", "harvestSkill": "woodcutting", "toolRequired": "hatchet",
   "levelRequired": 1, "respawnTicks": 10, "harvestYield": [{"itemId": "logs", "xpAmount": 25}]},
  {"id": "tree_gold", "name": "Golden Tree", "type": "tree", "harvestSkill": "woodcutting", "toolRequired": "hatchet",
   "levelRequired": 1, "respawnTicks": 10, "harvestYield": [{"itemId": "gold_logs", "xpAmount": 99}]}
]}"#,
    );
    set.insert(
        "world-areas.json",
        r#"{"starterTowns": {"town": {"id": "town", "name": "Town", "bounds": {"minX": -10, "maxX": 10, "minZ": -10, "maxZ": 10},
  "safeZone": true, "spawnPoint": {"x": 1, "y": 0, "z": 2},
  "resources": [
    {"type": "tree", "resourceId": "tree_normal", "position": {"x": 3, "y": 0, "z": 3}},
    {"type": "tree", "resourceId": "tree_gold", "position": {"x": 4, "y": 0, "z": 4}}
  ],
  "npcs": [{"id": "keeper", "type": "general_store", "storeId": "shop", "position": {"x": 0, "y": 0, "z": 0}}]}}}"#,
    );
    set.insert(
        "npcs.json",
        r#"[{"id": "keeper", "name": "Keeper", "category": "neutral",
  "combat": {"attackable": true, "attackSpeed": 2400, "respawnTime": 15000}}]"#,
    );
    set
}

fn codes(report: &wayfarer_content::Report) -> Vec<(Severity, Code, String)> {
    report
        .diagnostics
        .iter()
        .map(|d| (d.severity, d.code, d.missing.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn dangling_references_disable_only_the_referring_entry() {
    let (content, report) = Content::from_files(&base()).expect("warnings only");
    assert_eq!(
        codes(&report),
        [
            (
                Severity::Warning,
                Code::UnknownReference,
                "gold_logs".to_string()
            ),
            (
                Severity::Warning,
                Code::UnknownReference,
                "gold_bar".to_string()
            ),
            (
                Severity::Warning,
                Code::DisabledReference,
                "tree_gold".to_string()
            ),
        ],
        "{report}"
    );
    // The store stays, without the bad line.
    assert_eq!(content.stores["shop"].stock.len(), 1);
    assert_eq!(content.stores["shop"].stock[0].item_id, "logs");
    // The gathering node is dropped, and so is its spawn.
    assert!(content.gathering.contains_key("tree_normal"));
    assert!(!content.gathering.contains_key("tree_gold"));
    assert_eq!(content.areas["town"].resources.len(), 1);
    assert_eq!(
        content.areas["town"].npcs[0].store_id.as_deref(),
        Some("shop")
    );
    // Millisecond timings became ticks.
    assert_eq!(content.npcs["keeper"].combat.attack_speed_ticks, 4);
    assert_eq!(content.npcs["keeper"].combat.respawn_ticks, 25);
    assert_eq!(content.spawn_point().x, 1.0);
    let line = report.diagnostics[1].to_string();
    assert_eq!(
        line,
        "warning: stores.json [shop] items[1].itemId: unknown item `gold_bar`; the stock line is dropped"
    );
}

#[test]
fn strict_mode_turns_warnings_into_errors() {
    let report =
        Content::from_files_with(&base(), LoadOptions { strict: true }).expect_err("strict");
    assert_eq!(report.error_count(), 3);
    assert!(report.to_string().ends_with("3 errors, 0 warnings"));
    let report = check(Source::Set(&base()), false);
    assert!(!report.has_errors());
    assert!(report.to_string().ends_with("0 errors, 3 warnings"));
    assert!(check(Source::Set(&base()), true).has_errors());
}

#[test]
fn malformed_json_names_file_line_and_column() {
    let mut set = base();
    set.insert("npcs.json", "[\n  {\"id\": \"keeper\",\n   \"name\": }\n]");
    let report = Content::from_files(&set).expect_err("syntax error");
    let d = report
        .with_code(Code::Syntax)
        .next()
        .expect("syntax diagnostic");
    assert_eq!(d.file, "npcs.json");
    assert_eq!((d.line, d.column), (Some(3), Some(12)));
    assert!(
        d.to_string()
            .starts_with("error: npcs.json:3:12: malformed JSON: expected value"),
        "{d}"
    );
}

#[test]
fn wrong_type_names_field_path_and_entry() {
    let mut set = base();
    set.insert(
        "recipes/smithing.json",
        "{\"recipes\": [\n  {\"output\": \"hatchet\", \"bar\": \"logs\", \"level\": 1, \"xp\": \"lots\", \"ticks\": 4}\n]}",
    );
    let report = Content::from_files(&set).expect_err("type error");
    let d = report
        .with_code(Code::Type)
        .next()
        .expect("type diagnostic");
    assert_eq!(d.file, "recipes/smithing.json");
    assert_eq!(d.entry.as_deref(), Some("hatchet"));
    assert_eq!(d.field.as_deref(), Some("recipes[0].xp"));
    assert_eq!((d.line, d.column), (Some(2), Some(63)));
    assert_eq!(
        d.to_string(),
        "error: recipes/smithing.json:2:63 [hatchet] recipes[0].xp: invalid type: string \"lots\", expected f64"
    );
}

#[test]
fn invariants_are_errors() {
    let mut set = base();
    set.insert(
        "items/misc.json",
        r#"[{"id": "logs", "name": "Logs again", "type": "resource", "value": 1},
            {"id": "", "name": "Nameless", "type": "misc", "value": 1},
            {"id": "cape", "name": "Cape", "type": "armor", "value": -3, "requirements": {"skills": {"defence": -1}}}]"#,
    );
    let report = Content::from_files(&set).expect_err("invariant errors");
    let errors: Vec<(Code, Option<&str>, Option<&str>)> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.code, d.entry.as_deref(), d.field.as_deref()))
        .collect();
    assert!(
        errors.contains(&(Code::Duplicate, Some("logs"), Some("[0].id"))),
        "{report}"
    );
    assert!(
        errors.contains(&(Code::InvalidValue, Some(""), Some("[1].id"))),
        "{report}"
    );
    assert!(
        errors.contains(&(Code::InvalidValue, Some("cape"), Some("[2].value"))),
        "{report}"
    );
    assert!(
        errors.contains(&(
            Code::InvalidValue,
            Some("cape"),
            Some("[2].requirements.skills.defence")
        )),
        "{report}"
    );
    let duplicate = report.with_code(Code::Duplicate).next().unwrap();
    assert_eq!(duplicate.file, "items/resources.json");
    assert!(
        duplicate.message.contains("items/misc.json"),
        "{}",
        duplicate.message
    );
}

#[test]
fn recipes_and_quests_with_unknown_ids_are_dropped_and_cascade() {
    let mut set = base();
    set.insert(
        "recipes/fletching.json",
        r#"{"recipes": [
  {"output": "logs", "inputs": [{"item": "logs", "amount": 1}], "tools": ["hatchet"], "level": 1, "xp": 1, "ticks": 3},
  {"output": "logs", "inputs": [{"item": "plank", "amount": 1}], "level": 1, "xp": 1, "ticks": 3}
]}"#,
    );
    set.insert(
        "quests.json",
        r#"{
  "first": {"id": "first", "name": "First", "startNpc": "keeper",
    "stages": [{"id": "a", "type": "kill", "target": "dragon", "count": 1}]},
  "second": {"id": "second", "name": "Second", "startNpc": "keeper", "requirements": {"quests": ["first"]},
    "stages": [{"id": "a", "type": "interact", "target": "fire", "count": 2},
               {"id": "b", "type": "gather", "target": "logs", "count": 3},
               {"id": "c", "type": "dialogue", "npcId": "keeper"}]}
}"#,
    );
    let (content, report) = Content::from_files(&set).expect("warnings only");
    let fletching: Vec<&str> = content.recipes.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(fletching, ["fletching:logs:logs"]);
    let plank = report
        .diagnostics
        .iter()
        .find(|d| d.missing.as_deref() == Some("plank"))
        .unwrap();
    assert_eq!(plank.entry.as_deref(), Some("fletching:logs:plank"));
    assert_eq!(plank.field.as_deref(), Some("recipes[1].inputs[0].item"));
    assert!(
        content.quests.is_empty(),
        "second requires the disabled first"
    );
    let cascade = report
        .with_code(Code::DisabledReference)
        .find(|d| d.file == "quests.json")
        .unwrap();
    assert_eq!(cascade.entry.as_deref(), Some("second"));
    assert_eq!(
        cascade.field.as_deref(),
        Some("second.requirements.quests[0]")
    );
}

#[test]
fn legacy_items_are_a_fallback_and_unknown_files_are_reported() {
    let mut set = ManifestSet::new();
    set.insert("items.json", r#"[{"id": "bones", "name": "Bones", "type": "resource", "value": 1, "attackSpeed": 2400}]"#);
    set.insert("notes/readme.json", "{}");
    let (content, report) = Content::from_files(&set).expect("loads");
    assert!(content.items.contains_key("bones"));
    assert_eq!(report.with_code(Code::UnknownFile).count(), 1);
    // With split files present, legacy items.json gives only the ids they lack.
    let mut set = base();
    // An id the base set's split files define (content has more: the fallbacks' runes and food).
    let taken = "logs";
    assert!(content_ids(&set).iter().any(|id| id == taken));
    set.insert(
        "items.json",
        format!(
            r#"[{{"id": "bones", "name": "Bones", "type": "resource", "value": 1}},
                {{"id": "{taken}", "name": "Legacy copy", "type": "resource", "value": 1}}]"#
        ),
    );
    let (content, _) = Content::from_files(&set).expect("loads");
    assert!(content.items.contains_key("bones"));
    assert_ne!(
        content.items[taken].name, "Legacy copy",
        "the split file wins"
    );
}

#[test]
fn check_reports_an_unreadable_directory_and_an_empty_set() {
    let report = check(
        Source::Dir(std::path::Path::new("/nonexistent/wayfarer")),
        false,
    );
    assert!(report.has_errors());
    assert_eq!(report.diagnostics[0].code, Code::Missing);
    let report = check(Source::Set(&ManifestSet::new()), false);
    assert!(report.has_errors());
    assert!(report.to_string().ends_with("1 error, 0 warnings"));
}

#[test]
fn character_templates_give_exactly_what_they_list_or_are_refused() {
    let mut set = base();
    set.insert(
        "templates.json",
        r#"[
  {"id": "woodsman", "name": "Woodsman", "items": [{"itemId": "hatchet"}, {"itemId": "coins", "quantity": 500}],
   "skills": {"woodcutting": 20, "defence": 5},
   "goal": {"kind": "skill", "target": {"skill": "woodcutting", "level": 40}}},
  {"id": "ghost_items", "name": "Ghost", "items": [{"itemId": "gold_logs"}]},
  {"id": "bad_skill", "name": "Bad", "skills": {"juggling": 5}},
  {"id": "bad_level", "name": "Bad", "skills": {"attack": 0}},
  {"id": "bad_goal", "name": "Bad", "goal": {"kind": "conquer"}},
  {"id": "bad_target", "name": "Bad", "goal": {"kind": "earn", "target": {"coins": -5}}},
  {"id": "too_many", "name": "Bad", "items": [{"itemId": "logs", "quantity": 29}]}
]"#,
    );
    let (content, report) =
        wayfarer_content::Content::from_files_with(&set, LoadOptions::default())
            .map(|(c, r)| (Some(c), r))
            .unwrap_or_else(|r| (None, r));
    let entries: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.file == "templates.json")
        .map(|d| d.entry.clone().unwrap_or_default())
        .collect();
    for bad in [
        "ghost_items",
        "bad_skill",
        "bad_level",
        "bad_goal",
        "bad_target",
        "too_many",
    ] {
        assert!(entries.iter().any(|e| e == bad), "{bad} reported: {report}");
    }
    assert!(!entries.iter().any(|e| e == "woodsman"), "{report}");
    // The bad ones are errors (a template that gives less than it lists must not load).
    assert!(report.has_errors());
    assert!(content.is_none());

    // On its own, the good one loads, with the reference spelling `defence` read as defense.
    let mut set = base();
    set.insert(
        "templates.json",
        r#"[{"id": "woodsman", "name": "Woodsman", "items": [{"itemId": "hatchet"}, {"itemId": "coins", "quantity": 500}],
   "skills": {"woodcutting": 20, "defence": 5},
   "goal": {"kind": "skill", "target": {"skill": "woodcutting", "level": 40}}}]"#,
    );
    let (content, _) = Content::from_files(&set).unwrap();
    let woodsman = &content.templates["woodsman"];
    assert_eq!(woodsman.items.len(), 2);
    assert_eq!(woodsman.skills[&wayfarer_content::Skill::Woodcutting], 20);
    assert_eq!(woodsman.skills[&wayfarer_content::Skill::Defense], 5);
    assert_eq!(woodsman.goal.as_ref().unwrap().kind, "skill");
}

/// The item ids a set's split item files define.
fn content_ids(set: &ManifestSet) -> Vec<String> {
    let (content, _) = Content::from_files(set).expect("loads");
    content.items.keys().cloned().collect()
}

#[test]
fn legacy_mobs_become_npcs_and_legacy_nodes_fill_in_what_gathering_lacks() {
    let mut set = base();
    set.insert(
        "biomes.json",
        r#"[{"id": "meadow", "name": "Meadow", "difficultyLevel": 0},
            {"id": "crags", "name": "Crags", "difficultyLevel": 2}]"#,
    );
    set.insert(
        "mobs.json",
        r#"[{"id": "brute", "name": "Brute", "difficultyLevel": 2, "level": 9,
             "stats": {"level": 9, "health": 30, "attack": 8, "strength": 7, "defense": 6, "ranged": 1},
             "behavior": {"aggressive": true, "aggroRange": 5, "chaseRange": 12},
             "attackSpeed": 2.4, "moveSpeed": 3.0, "combatRange": 1.5, "respawnTime": 60000,
             "drops": [{"itemId": "coins", "quantity": 7, "chance": 1.0, "isGuaranteed": true},
                       {"itemId": "logs", "quantity": 1, "chance": 0.5}],
             "spawnBiomes": ["old_name"]},
            {"id": "keeper", "name": "Not the keeper", "level": 99}]"#,
    );
    set.insert(
        "resources.json",
        r#"[{"id": "tree_normal", "name": "Old tree", "type": "tree", "harvestSkill": "woodcutting",
              "toolRequired": "hatchet", "harvestYield": [{"itemId": "logs", "xpAmount": 1}]},
            {"id": "tree_old", "name": "Old Tree", "type": "tree", "harvestSkill": "woodcutting",
              "toolRequired": "hatchet", "harvestYield": [{"itemId": "logss", "xpAmount": 5}]}]"#,
    );
    let (content, report) = Content::from_files(&set).expect("loads");
    let brute = &content.npcs["brute"];
    assert!(brute.is_mob() && brute.combat.aggressive);
    assert_eq!(
        (brute.stats.level, brute.stats.health, brute.stats.attack),
        (9, 30, 8)
    );
    assert_eq!(
        (brute.combat.aggro_range, brute.combat.leash_range),
        (5.0, 12.0)
    );
    assert_eq!(brute.combat.attack_speed_ticks, 4, "2.4 s");
    assert_eq!(brute.combat.respawn_ticks, 100, "60 s");
    assert_eq!(brute.drops.len(), 2);
    assert_eq!(
        brute.spawn_biomes,
        ["crags"],
        "an unknown biome: by difficulty"
    );
    assert_ne!(
        content.npcs["keeper"].name, "Not the keeper",
        "npcs.json wins over mobs.json"
    );
    // resources.json gives the node gathering/ lacks, and only that one; a plural yield id reads
    // as its singular.
    assert_eq!(content.gathering["tree_normal"].name, "Tree");
    assert_eq!(content.gathering["tree_old"].yields[0].item_id, "logs");
    assert!(report.ignored.iter().any(|l| l.starts_with("mobs.json")));
    assert!(report
        .ignored
        .iter()
        .any(|l| l.starts_with("resources.json")));
}
