//! Magic (CONTRACT.md section 11): each spell's runes and a staff standing in for its own, the
//! magic formulas against hand computations for two equipment sets, XP, autocast, running out of
//! runes, the casting range, the refusals, NPCs that cast, and casting at players.

use wayfarer_content::{EquipSlot, Skill};
use wayfarer_protocol::ws::{codes, ChatChannel};
use wayfarer_sim::combat::formulas::{hit_chance, npc_defence_roll, CombatStyle};
use wayfarer_sim::combat::magic::{
    magic_attack_roll, npc_magic_attack_roll, npc_magic_defence_roll, npc_magic_max_hit,
    player_magic_defence_roll, spell_max_hit,
};
use wayfarer_sim::combat::CASTING_RANGE_TILES;
use wayfarer_sim::{Action, Command, Event, World};

use crate::arena::{act, attack, hits, mob, npc_of, rejections, world, Fighter, ARENA_X};
use crate::{idle, t};

/// Every rune a spell may take, plenty of each.
const RUNES: [(&str, u32); 6] = [
    ("air_rune", 1000),
    ("mind_rune", 1000),
    ("water_rune", 1000),
    ("earth_rune", 1000),
    ("fire_rune", 1000),
    ("chaos_rune", 1000),
];

fn cast(id: &str, spell: &str, target: &str) -> Command {
    act(
        id,
        Action::Cast {
            spell: spell.into(),
            target: target.into(),
        },
    )
}

fn autocast(id: &str, spell: Option<&str>) -> Command {
    act(
        id,
        Action::Autocast {
            spell: spell.map(str::to_owned),
        },
    )
}

fn count(world: &World, id: &str, item: &str) -> u64 {
    world.player_inventory(id).map_or(0, |i| i.count(item))
}

fn xp(world: &World, id: &str, skill: Skill) -> u32 {
    world.player_skills(id).expect("online").xp(skill).tenths()
}

fn game_lines(events: &[Event], id: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { to, message }
                if message.channel == ChatChannel::Game && to.iter().any(|t| &**t == id) =>
            {
                Some(message.text.clone())
            }
            _ => None,
        })
        .collect()
}

/// The casts `attacker` made in `events` (each a `combat:hit`, a splash being 0).
fn casts_by(events: &[Event], attacker: &str) -> Vec<i64> {
    hits(events)
        .into_iter()
        .filter(|h| h.attacker_id == attacker)
        .map(|h| h.damage)
        .collect()
}

#[test]
fn each_spell_takes_its_runes_and_a_staff_stands_in_for_its_own() {
    let content = crate::arena::content(&[mob("dummy", 10, 10)]);
    let spells: Vec<_> = content.spells.values().cloned().collect();
    assert_eq!(spells.len(), 8, "the bundled strike and bolt tiers");
    for staff in [None, Some("staff_of_air")] {
        for spell in &spells {
            let mut w = world(&[mob("dummy", 10, 10)], 21);
            let dummy = npc_of(&w, "dummy").expect("dummy");
            let mut ada = Fighter::new("ada", t(10, 14))
                .level(Skill::Magic, 99)
                .hold(&RUNES);
            if let Some(staff) = staff {
                ada = ada.wear(EquipSlot::Weapon, staff, 1);
            }
            w.tick(vec![ada.join()]);
            let events = w.tick(vec![cast("ada", &spell.id, &dummy)]);
            assert_eq!(
                casts_by(&events, "ada").len(),
                1,
                "{}: cast at once",
                spell.id
            );
            for (rune, held) in RUNES {
                let cost = spell
                    .runes
                    .iter()
                    .find(|r| r.item_id == rune)
                    .map_or(0, |r| u64::from(r.quantity));
                let cost = if staff.is_some() && rune == "air_rune" {
                    0
                } else {
                    cost
                };
                assert_eq!(
                    count(&w, "ada", rune),
                    u64::from(held) - cost,
                    "{} with {staff:?}: {rune}",
                    spell.id
                );
            }
            // One cast, then nothing more: `cast` is a single spell.
            let later = idle(&mut w, 12);
            assert!(casts_by(&later, "ada").is_empty(), "{}", spell.id);
        }
    }
}

#[test]
fn magic_rolls_and_max_hits_match_hand_computations_for_two_equipment_sets() {
    let mut w = world(&[mob("dummy", 10, 10)], 22);
    // Set A: Magic 1, nothing worn.
    w.tick(vec![Fighter::new("plain", t(2, 2)).join()]);
    // Set B: Magic 40, an apprentice staff (+6 magic, +2 magic defence) and a wizard hat (+4 magic,
    // +10% magic damage, +3 magic defence), Defence 40, Magic 30 on the defending side below.
    w.tick(vec![Fighter::new("mage", t(3, 3))
        .level(Skill::Magic, 40)
        .level(Skill::Defense, 40)
        .wear(EquipSlot::Weapon, "apprentice_staff", 1)
        .wear(EquipSlot::Helmet, "wizard_hat", 1)
        .style(CombatStyle::Defensive)
        .join()]);
    let plain = w.player_combatant("plain").expect("online");
    let mage = w.player_combatant("mage").expect("online");
    // Attack rolls: (magic + 8) × (magic attack bonus + 64).
    assert_eq!(magic_attack_roll(1, &plain.bonuses), 9 * 64); // 576
    assert_eq!(magic_attack_roll(40, &mage.bonuses), 48 * 74); // 3,552
                                                               // Max hits: ⌊base × (100 + magic damage %) / 100⌋.
    assert_eq!(spell_max_hit(2, &plain.bonuses), 2); // Wind Strike
    assert_eq!(spell_max_hit(8, &mage.bonuses), 8); // Fire Strike: ⌊8.8⌋
    assert_eq!(spell_max_hit(12, &mage.bonuses), 13); // Fire Bolt: ⌊13.2⌋
                                                      // Player defence: ⌊(7 × magic + 3 × defence) / 10⌋ + style + 8, × (magic defence + 64).
    assert_eq!(player_magic_defence_roll(1, &plain), (1 + 8) * 64); // ⌊10/10⌋ + 0 + 8 = 9
                                                                    // Magic 30, Defence 40, defensive (+3): ⌊(210 + 120) / 10⌋ + 3 + 8 = 44; bonus 2 + 3 = 5.
    assert_eq!(player_magic_defence_roll(30, &mage), 44 * 69); // 3,036
                                                               // The dummy (magic 1, no defence bonus) defends against spells with (1 + 9) × 64 = 640, the
                                                               // same as against a sword here; the chances follow the shared hit formula.
    let content = crate::arena::content(&[]);
    let dummy = &content.npcs["dummy"].stats;
    assert_eq!(npc_magic_defence_roll(dummy), 640);
    assert_eq!(npc_defence_roll(dummy), 640);
    let a = hit_chance(576, 640); // A ≤ D: 576 / (2 × 641)
    assert!((a - 576.0 / 1282.0).abs() < 1e-12);
    let b = hit_chance(3552, 640); // A > D: 1 − 642 / (2 × 3553)
    assert!((b - (1.0 - 642.0 / 7106.0)).abs() < 1e-12);
}

#[test]
fn casts_never_pass_the_max_hit_and_earn_the_spells_xp_plus_two_per_damage() {
    let mut w = world(&[mob("dummy", 10, 10)], 23);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    let mage = Fighter::new("mage", t(10, 18))
        .level(Skill::Magic, 40)
        .wear(EquipSlot::Weapon, "apprentice_staff", 1)
        .wear(EquipSlot::Helmet, "wizard_hat", 1)
        .hold(&RUNES);
    w.tick(vec![mage.join(), autocast("mage", Some("fire_strike"))]);
    let (magic0, hp0) = (
        xp(&w, "mage", Skill::Magic),
        xp(&w, "mage", Skill::Constitution),
    );
    let mut events = w.tick(vec![attack("mage", &dummy)]);
    for _ in 0..199 {
        events.extend(w.tick(vec![]));
    }
    let casts = casts_by(&events, "mage");
    assert_eq!(casts.len(), 40, "a cast every 5 ticks");
    assert_eq!(
        casts.iter().max(),
        Some(&8),
        "Fire Strike +10%: max 8, reached"
    );
    assert!(casts.iter().all(|d| (0..=8).contains(d)));
    assert_eq!(w.player_tile("mage"), Some(t(10, 18)), "cast from 8 tiles");
    // 11.5 per cast plus 2 per damage; hitpoints 4/3 per damage rounded down to a tenth per cast.
    let damage: i64 = casts.iter().sum();
    assert_eq!(
        i64::from(xp(&w, "mage", Skill::Magic) - magic0),
        40 * 115 + damage * 20
    );
    let hp: i64 = casts.iter().map(|d| d * 40 / 3).sum();
    assert_eq!(i64::from(xp(&w, "mage", Skill::Constitution) - hp0), hp);
    // 40 casts of 2 air, 3 fire and 1 mind.
    assert_eq!(count(&w, "mage", "air_rune"), 1000 - 80);
    assert_eq!(count(&w, "mage", "fire_rune"), 1000 - 120);
    assert_eq!(count(&w, "mage", "mind_rune"), 1000 - 40);
}

#[test]
fn running_out_of_runes_stops_autocast_with_missing_runes() {
    let mut w = world(&[mob("dummy", 10, 10)], 24);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    let ada = Fighter::new("ada", t(10, 15)).hold(&[("air_rune", 2), ("mind_rune", 5)]);
    w.tick(vec![ada.join()]);
    let events = w.tick(vec![autocast("ada", Some("wind_strike"))]);
    assert_eq!(
        game_lines(&events, "ada"),
        ["You will now cast Wind Strike when you attack."]
    );
    let mut events = w.tick(vec![attack("ada", &dummy)]);
    events.extend(idle(&mut w, 20));
    assert_eq!(casts_by(&events, "ada").len(), 2, "two casts' worth of air");
    assert_eq!(rejections(&events, "ada"), [codes::MISSING_RUNES]);
    assert_eq!(
        (count(&w, "ada", "air_rune"), count(&w, "ada", "mind_rune")),
        (0, 3)
    );
    assert!(!w.player_is_busy("ada"), "the attack stopped");
    // Autocast is off: the next attack is a punch, from next to the dummy.
    let mut events = w.tick(vec![attack("ada", &dummy)]);
    events.extend(idle(&mut w, 10));
    assert!(!casts_by(&events, "ada").is_empty());
    assert!(rejections(&events, "ada").is_empty());
    let at = w.player_tile("ada").expect("online");
    assert_eq!(
        (at.x - 10).abs().max((at.z - 10).abs()),
        1,
        "walked into melee reach"
    );
}

#[test]
fn a_cast_walks_within_the_casting_range_and_no_closer() {
    let mut w = world(&[mob("dummy", 10, 10)], 25);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    let ada = Fighter::new("ada", t(10, 24)).hold(&RUNES);
    w.tick(vec![ada.join()]);
    let mut events = w.tick(vec![cast("ada", "wind_strike", &dummy)]);
    events.extend(idle(&mut w, 12));
    assert_eq!(casts_by(&events, "ada").len(), 1);
    let at = w.player_tile("ada").expect("online");
    assert_eq!(
        (at.z - 10).unsigned_abs(),
        CASTING_RANGE_TILES,
        "stopped at the range's edge"
    );
    assert_eq!(
        game_lines(&events, "ada"),
        ["You cast Wind Strike at Dummy."]
    );
}

#[test]
fn casts_are_refused_for_an_unknown_spell_a_low_level_and_missing_runes() {
    let mut w = world(&[mob("dummy", 10, 10)], 26);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    // Magic 34: Fire Bolt is 35, Earth Bolt 29.
    let ada = Fighter::new("ada", t(10, 14))
        .level(Skill::Magic, 34)
        .hold(&[
            ("air_rune", 2),
            ("earth_rune", 2),
            ("chaos_rune", 1),
            ("fire_rune", 9),
        ]);
    w.tick(vec![ada.join()]);
    for (command, code) in [
        (cast("ada", "ice_barrage", &dummy), codes::UNKNOWN_SPELL),
        (cast("ada", "fire_bolt", &dummy), codes::LEVEL_TOO_LOW),
        // Earth Bolt takes 3 earth runes; 2 are held.
        (cast("ada", "earth_bolt", &dummy), codes::MISSING_RUNES),
        (autocast("ada", Some("ice_barrage")), codes::UNKNOWN_SPELL),
        (autocast("ada", Some("fire_bolt")), codes::LEVEL_TOO_LOW),
    ] {
        let events = w.tick(vec![command]);
        assert_eq!(rejections(&events, "ada"), [code]);
        assert!(casts_by(&events, "ada").is_empty());
        assert!(!w.player_is_busy("ada"));
    }
    // Enough runes and level: Wind Bolt (17) goes off.
    let events = w.tick(vec![cast("ada", "wind_bolt", &dummy)]);
    assert!(rejections(&events, "ada").is_empty());
    assert_eq!(casts_by(&events, "ada").len(), 1);
    assert_eq!(count(&w, "ada", "chaos_rune"), 0);
    // At exactly the spell's level it is cast: Fire Bolt at Magic 35.
    let mut w = world(&[mob("dummy", 10, 10)], 26);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![Fighter::new("bo", t(10, 14))
        .level(Skill::Magic, 35)
        .hold(&RUNES)
        .join()]);
    let events = w.tick(vec![cast("bo", "fire_bolt", &dummy)]);
    assert!(rejections(&events, "bo").is_empty());
    assert_eq!(casts_by(&events, "bo").len(), 1);
}

#[test]
fn an_npc_that_casts_hits_from_its_combat_range_up_to_its_spells_max_hit() {
    // The warlock casts Fire Strike from 5 tiles: its max hit is the spell's, 8; its attack roll
    // (30 + 9) × 64 = 2,496.
    let content = crate::arena::content(&[]);
    let stats = &content.npcs["warlock"].stats;
    assert_eq!(npc_magic_attack_roll(stats), 2496);
    assert_eq!(
        npc_magic_max_hit(stats, content.spells.get("fire_strike")),
        8
    );
    // Naming no spell, the melee formula on its magic level: ⌊(39 × 64 + 320) / 640⌋ = 4.
    assert_eq!(npc_magic_max_hit(stats, None), 4);
    let mut w = world(&[mob("warlock", 10, 10)], 27);
    let warlock = npc_of(&w, "warlock").expect("warlock");
    // Defence 40 and Magic 40 defend: (⌊(280 + 120) / 10⌋ + 8) × 64 = 3,072.
    w.tick(vec![Fighter::new("ada", t(10, 15))
        .level(Skill::Constitution, 99)
        .level(Skill::Defense, 40)
        .level(Skill::Magic, 40)
        .join()]);
    let events = idle(&mut w, 200);
    let casts = casts_by(&events, &warlock);
    assert_eq!(casts.len(), 40, "a cast every 5 ticks");
    assert!(casts.iter().all(|d| (0..=8).contains(d)));
    assert!(casts.iter().any(|d| *d > 0));
    let at = w.entity(&warlock).expect("alive");
    assert_eq!((at.x, at.z), (10, 10), "it never came closer");
}

#[test]
fn casting_at_a_player_follows_the_pvp_rule_and_rolls_against_magic_defence() {
    let mut w = world(&[], 28);
    let (x, z) = (ARENA_X + 5, 10);
    w.tick(vec![
        Fighter::new("ada", t(5, 5)).hold(&RUNES).join(),
        Fighter::new("bob", t(5, 9)).join(),
    ]);
    // Outside the PvP area: refused as an attack is.
    let events = w.tick(vec![cast("ada", "wind_strike", "bob")]);
    assert_eq!(rejections(&events, "ada"), [codes::CANNOT_DO]);
    assert_eq!(count(&w, "ada", "air_rune"), 1000, "nothing paid");
    // In the arena the spell goes off, at the defender's magic defence.
    let mut w = world(&[], 28);
    w.tick(vec![
        Fighter::new("ada", t(x, z))
            .hold(&RUNES)
            .level(Skill::Magic, 60)
            .join(),
        Fighter::new("bob", t(x, z + 6))
            .level(Skill::Constitution, 99)
            .join(),
    ]);
    let mut events = w.tick(vec![autocast("ada", Some("water_strike"))]);
    events.extend(w.tick(vec![attack("ada", "bob")]));
    events.extend(idle(&mut w, 99));
    let casts = casts_by(&events, "ada");
    assert_eq!(casts.len(), 20);
    assert!(casts.iter().all(|d| (0..=4).contains(d)));
    assert!(casts.iter().any(|d| *d > 0));
    assert_eq!(count(&w, "ada", "water_rune"), 1000 - 20);
}

/// Issue 50: the target is checked before the player's means. Casting at oneself or at an NPC
/// that is not there answers `invalid_target`, not `missing_runes`, and attacking oneself is
/// `invalid_target` wherever one stands (a safe area answered `safe_zone`).
#[test]
fn the_target_is_checked_before_the_runes_and_the_place() {
    let mut w = world(&[mob("dummy", 10, 10)], 27);
    // No runes at all; one player in the field, one in the safe camp.
    let ada = Fighter::new("ada", t(10, 14));
    let cam = Fighter::new("cam", t(5, crate::arena::CAMP_Z + 2));
    w.tick(vec![ada.join(), cam.join()]);
    for (who, command) in [
        ("ada", cast("ada", "wind_strike", "ada")),
        ("ada", cast("ada", "wind_strike", "npc-that-is-not-here")),
        ("cam", cast("cam", "wind_strike", "cam")),
        ("cam", attack("cam", "cam")),
        ("ada", attack("ada", "ada")),
    ] {
        let events = w.tick(vec![command]);
        assert_eq!(
            rejections(&events, who),
            [codes::INVALID_TARGET],
            "{events:?}"
        );
    }
    // A real target and no runes: the runes are what is missing.
    let dummy = npc_of(&w, "dummy").expect("dummy");
    let events = w.tick(vec![cast("ada", "wind_strike", &dummy)]);
    assert_eq!(rejections(&events, "ada"), [codes::MISSING_RUNES]);
}

/// Issue 50: an id echoed in an error is cut to 64 characters.
#[test]
fn an_unknown_id_is_echoed_cut_to_64_characters() {
    let mut w = world(&[], 28);
    w.tick(vec![Fighter::new("ada", t(10, 14)).join()]);
    let long = "z".repeat(5_000);
    let events = w.tick(vec![
        cast("ada", &long, "ada"),
        act(
            "ada",
            Action::Make {
                recipe_id: long.clone(),
                count: wayfarer_sim::MakeCount::Times(1),
                target: None,
            },
        ),
    ]);
    let messages: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { to, message, .. } if to == "ada" => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(messages.len(), 2, "{events:?}");
    for message in messages {
        assert!(message.chars().count() < 100, "{message}");
        assert!(
            message.contains(&format!("{}…", "z".repeat(64))),
            "{message}"
        );
    }
}
