//! `spells.json` (CONTRACT.md section 11): the bundled spells, validation, and the fallback to the
//! bundled spells and runes where the served content lacks them.

use wayfarer_content::{load_bundled, Code, Content, ManifestSet, Severity};

fn items() -> &'static str {
    r#"[
  {"id": "air_rune", "name": "Air rune", "type": "resource", "value": 4, "stackable": true},
  {"id": "mind_rune", "name": "Mind rune", "type": "resource", "value": 3, "stackable": true},
  {"id": "staff_of_mind", "name": "Staff of mind", "type": "weapon", "value": 9, "equipSlot": "weapon",
   "weaponType": "STAFF", "attackType": "MAGIC", "attackSpeed": 5, "providesInfiniteRunes": ["mind_rune"]}
]"#
}

/// (id, level, base max hit, XP, runes) of one spell.
type Classic = (&'static str, u32, u32, f64, &'static [(&'static str, u32)]);

#[test]
fn the_bundled_spells_are_the_classic_strike_and_bolt_tiers() {
    let content = load_bundled();
    // (id, level, base max hit, XP, runes) as the OSRS Wiki's *Standard spellbook* lists them.
    let expected: [Classic; 8] = [
        (
            "wind_strike",
            1,
            2,
            5.5,
            &[("air_rune", 1), ("mind_rune", 1)],
        ),
        (
            "water_strike",
            5,
            4,
            7.5,
            &[("air_rune", 1), ("water_rune", 1), ("mind_rune", 1)],
        ),
        (
            "earth_strike",
            9,
            6,
            9.5,
            &[("air_rune", 1), ("earth_rune", 2), ("mind_rune", 1)],
        ),
        (
            "fire_strike",
            13,
            8,
            11.5,
            &[("air_rune", 2), ("fire_rune", 3), ("mind_rune", 1)],
        ),
        (
            "wind_bolt",
            17,
            9,
            13.5,
            &[("air_rune", 2), ("chaos_rune", 1)],
        ),
        (
            "water_bolt",
            23,
            10,
            16.5,
            &[("air_rune", 2), ("water_rune", 2), ("chaos_rune", 1)],
        ),
        (
            "earth_bolt",
            29,
            11,
            19.5,
            &[("air_rune", 2), ("earth_rune", 3), ("chaos_rune", 1)],
        ),
        (
            "fire_bolt",
            35,
            12,
            22.5,
            &[("air_rune", 3), ("fire_rune", 4), ("chaos_rune", 1)],
        ),
    ];
    assert_eq!(content.spells.len(), expected.len());
    for (id, level, max_hit, xp, runes) in expected {
        let spell = &content.spells[id];
        assert_eq!(
            (spell.level, spell.base_max_hit, spell.xp),
            (level, max_hit, xp),
            "{id}"
        );
        let got: Vec<(&str, u32)> = spell
            .runes
            .iter()
            .map(|r| (r.item_id.as_str(), r.quantity))
            .collect();
        assert_eq!(got, runes, "{id}");
        assert_eq!(spell.attack_speed_ticks, 5, "{id}");
        for rune in &spell.runes {
            assert!(
                content.items.contains_key(&rune.item_id),
                "{}",
                rune.item_id
            );
        }
    }
}

#[test]
fn a_spell_with_an_undefined_rune_or_another_type_is_dropped_with_a_warning() {
    let mut set = ManifestSet::new();
    set.insert("items/resources.json", items());
    set.insert(
        "spells.json",
        r#"{"spells": [
  {"id": "gust", "name": "Gust", "level": 1, "type": "combat", "baseMaxHit": 3, "xp": 6,
   "runes": [{"itemId": "air_rune", "quantity": 2}]},
  {"id": "void_blast", "name": "Void Blast", "level": 1, "baseMaxHit": 3, "xp": 6,
   "runes": [{"itemId": "void_rune", "quantity": 1}]},
  {"id": "teleport_home", "name": "Home", "level": 1, "type": "teleport", "baseMaxHit": 0, "xp": 0,
   "runes": [{"itemId": "air_rune", "quantity": 1}]},
  {"id": "bad", "name": "Bad", "level": 1, "baseMaxHit": -1, "xp": 1,
   "runes": [{"itemId": "air_rune", "quantity": 0}]}
]}"#,
    );
    let report = match Content::from_files(&set) {
        Ok((_, report)) | Err(report) => report,
    };
    let unknown: Vec<_> = report.with_code(Code::UnknownReference).collect();
    assert_eq!(unknown.len(), 1, "{report}");
    assert_eq!(unknown[0].missing.as_deref(), Some("void_rune"));
    assert_eq!(unknown[0].severity, Severity::Warning);
    // A negative max hit and a rune quantity of 0 are errors, each naming its field.
    let fields: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter_map(|d| d.field.clone())
        .collect();
    assert_eq!(
        fields,
        ["spells[3].runes[0].quantity", "spells[3].baseMaxHit"],
        "{report}"
    );
    let mut ok = set.clone();
    ok.insert(
        "spells.json",
        r#"{"spells": [
  {"id": "gust", "name": "Gust", "level": 1, "type": "combat", "baseMaxHit": 3, "xp": 6,
   "runes": [{"itemId": "air_rune", "quantity": 2}]},
  {"id": "void_blast", "name": "Void Blast", "level": 1, "baseMaxHit": 3, "xp": 6,
   "runes": [{"itemId": "void_rune", "quantity": 1}]},
  {"id": "teleport_home", "name": "Home", "level": 1, "type": "teleport", "baseMaxHit": 0, "xp": 0,
   "runes": [{"itemId": "air_rune", "quantity": 1}]}
]}"#,
    );
    let (content, _) = Content::from_files(&ok).expect("warnings only");
    assert_eq!(content.spells.keys().collect::<Vec<_>>(), ["gust"]);
}

#[test]
fn served_content_without_spells_or_runes_falls_back_to_the_bundled_ones_for_those_ids_alone() {
    let mut set = ManifestSet::new();
    set.insert("items/resources.json", items());
    set.insert(
        "recipes/runecrafting.json",
        r#"{"recipes": [{"runeType": "fire", "runeItemId": "fire_rune", "levelRequired": 14,
  "xpPerEssence": 7, "essenceTypes": ["rune_essence"], "multiRuneLevels": [35, 70]}]}"#,
    );
    let (content, report) = Content::from_files(&set).expect("loads");
    assert_eq!(report.warning_count(), 0, "{report}");
    // The served air rune stays as served; the bundled spells come, with the runes they name.
    assert_eq!(content.items["air_rune"].name, "Air rune");
    assert_eq!(content.spells.len(), 8);
    for id in [
        "water_rune",
        "earth_rune",
        "fire_rune",
        "chaos_rune",
        "rune_essence",
    ] {
        assert!(content.items.contains_key(id), "{id}");
    }
    // Only what magic names: no bundled weapon or tool came along (food does, but by its own
    // fallback: content where nothing heals gets the bundled food, docs/content.md).
    assert!(!content.items.contains_key("bronze_sword"));
    assert!(!content.items.contains_key("bronze_hatchet"));
    // The recipe plays at its altar, whose station definition came from the bundled content.
    let fire = &content.recipes[0];
    assert_eq!(fire.id, "runecrafting:fire_rune");
    assert_eq!(fire.station.as_deref(), Some("fire_altar"));
    assert!(content.stations.contains_key("fire_altar"));
    assert_eq!(
        content.items["staff_of_mind"].provides_infinite_runes,
        ["mind_rune"]
    );
}
