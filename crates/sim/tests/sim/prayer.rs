//! Prayer: switching prayers on (level, points, conflicts), the drain against hand computations for
//! two equipment prayer bonuses, everything off at 0 points, the altar, burying bones, and the
//! boosts' effect on the combat formulas (docs/mechanics.md, "Prayer").

use wayfarer_content::{EquipSlot, Skill};
use wayfarer_protocol::ws::codes;
use wayfarer_sim::combat::formulas::{hit_chance, npc_defence_roll};
use wayfarer_sim::{drain_resistance, Action, Command, Event, World};

use crate::arena::{self, act, rejections, Fighter, ALTAR_TILE};
use crate::t;

fn toggle(id: &str, prayer: &str, active: bool) -> Command {
    Command::Prayer {
        id: id.into(),
        prayer_id: prayer.into(),
        active,
        reference: Some(9),
    }
}

fn prayer_of(world: &World, id: &str) -> (u32, u32, Vec<String>) {
    world.player_prayer(id).expect("online")
}

/// The `prayer:update`s for `id` in `events`: (points, max, active).
fn updates(events: &[Event], id: &str) -> Vec<(u32, u32, Vec<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Prayer {
                to,
                points,
                max_points,
                active,
            } if to == id => Some((*points, *max_points, active.clone())),
            _ => None,
        })
        .collect()
}

fn world() -> World {
    arena::world(&[], 3)
}

#[test]
fn entering_reports_full_points_and_saved_points_are_kept() {
    let mut world = world();
    let events = world.tick(vec![
        Fighter::new("a", t(2, 2)).level(Skill::Prayer, 20).join(),
        {
            let mut f = Fighter::new("b", t(3, 2)).level(Skill::Prayer, 20);
            f.joining.prayer_points = Some(7);
            f.join()
        },
        {
            let mut f = Fighter::new("c", t(4, 2)).level(Skill::Prayer, 5);
            f.joining.prayer_points = Some(70);
            f.join()
        },
    ]);
    assert_eq!(updates(&events, "a"), vec![(20, 20, vec![])]);
    assert_eq!(updates(&events, "b"), vec![(7, 20, vec![])]);
    // More than the level is capped.
    assert_eq!(updates(&events, "c"), vec![(5, 5, vec![])]);
}

#[test]
fn a_prayer_needs_its_level_and_unknown_prayers_are_refused() {
    let mut world = world();
    world.tick(vec![Fighter::new("a", t(2, 2))
        .level(Skill::Prayer, 9)
        .join()]);
    let events = world.tick(vec![
        toggle("a", "rock_skin", true),
        toggle("a", "smite", true),
        toggle("a", "clarity_of_thought", true),
    ]);
    assert_eq!(
        rejections(&events, "a"),
        vec![codes::PRAYER_LEVEL_TOO_LOW, codes::UNKNOWN_PRAYER]
    );
    assert_eq!(prayer_of(&world, "a").2, vec!["clarity_of_thought"]);
    // One update for the tick, after the change.
    assert_eq!(updates(&events, "a").len(), 1);
}

#[test]
fn switching_one_on_switches_its_conflicts_off() {
    let mut world = world();
    world.tick(vec![Fighter::new("a", t(2, 2))
        .level(Skill::Prayer, 20)
        .join()]);
    world.tick(vec![
        toggle("a", "thick_skin", true),
        toggle("a", "burst_of_strength", true),
        toggle("a", "clarity_of_thought", true),
    ]);
    assert_eq!(
        prayer_of(&world, "a").2,
        vec!["thick_skin", "burst_of_strength", "clarity_of_thought"]
    );
    // Rock Skin conflicts with Thick Skin; Superhuman Strength with Burst of Strength.
    let events = world.tick(vec![
        toggle("a", "rock_skin", true),
        toggle("a", "superhuman_strength", true),
    ]);
    assert_eq!(
        prayer_of(&world, "a").2,
        vec!["clarity_of_thought", "rock_skin", "superhuman_strength"]
    );
    assert_eq!(
        updates(&events, "a").last().unwrap().2,
        vec!["clarity_of_thought", "rock_skin", "superhuman_strength"]
    );
    // Switching off.
    world.tick(vec![toggle("a", "rock_skin", false)]);
    assert_eq!(
        prayer_of(&world, "a").2,
        vec!["clarity_of_thought", "superhuman_strength"]
    );
}

/// Points drained after `ticks` ticks of drain `drain` against resistance `resistance`, by the
/// rule: each tick adds the drain to the counter; each time it exceeds the resistance a point goes.
fn run_drain(worn: &[(EquipSlot, &str)], ticks: usize) -> u32 {
    let mut world = world();
    let mut fighter = Fighter::new("a", t(2, 2)).level(Skill::Prayer, 40);
    for (slot, item) in worn {
        fighter = fighter.wear(*slot, item, 1);
    }
    world.tick(vec![fighter.join()]);
    // Rock Skin and Superhuman Strength: drain effect 6 + 6 = 12 a tick, from this tick on.
    world.tick(vec![
        toggle("a", "rock_skin", true),
        toggle("a", "superhuman_strength", true),
    ]);
    for _ in 1..ticks {
        world.tick(vec![]);
    }
    40 - prayer_of(&world, "a").0
}

#[test]
fn the_drain_matches_hand_computations_without_a_prayer_bonus() {
    assert_eq!(drain_resistance(0), 60);
    // 12 a tick against 60: the counter passes 60, 120, 180, 240 and 300 at ticks 6, 11, 16, 21
    // and 26 (72, 132, 192, 252, 312); at tick 30 it is exactly 360 = 6 × 60, not beyond, so the
    // sixth point goes at tick 31 (372).
    assert_eq!(run_drain(&[], 5), 0);
    assert_eq!(run_drain(&[], 6), 1);
    assert_eq!(run_drain(&[], 30), 5);
    assert_eq!(run_drain(&[], 31), 6);
}

#[test]
fn the_drain_matches_hand_computations_with_a_prayer_bonus_of_14() {
    // A holy symbol (+8) and a monk robe (+6): resistance 60 + 2 × 14 = 88. 12 a tick passes 88,
    // 176, 264 and 352 at ticks 8 (96), 15 (180), 23 (276) and 30 (360).
    assert_eq!(drain_resistance(14), 88);
    let worn = [
        (EquipSlot::Amulet, "holy_symbol"),
        (EquipSlot::Body, "monk_robe"),
    ];
    assert_eq!(run_drain(&worn, 7), 0);
    assert_eq!(run_drain(&worn, 8), 1);
    assert_eq!(run_drain(&worn, 29), 3);
    assert_eq!(run_drain(&worn, 30), 4);
    // Without the robe (+8, resistance 76): 12 a tick passes 76 at tick 7 (84).
    assert_eq!(run_drain(&worn[..1], 6), 0);
    assert_eq!(run_drain(&worn[..1], 7), 1);
}

#[test]
fn at_zero_points_every_prayer_switches_off_and_an_altar_restores_them() {
    let mut world = world();
    world.tick(vec![Fighter::new("a", t(25, 25))
        .level(Skill::Prayer, 4)
        .join()]);
    world.tick(vec![toggle("a", "thick_skin", true)]);
    world.tick(vec![toggle("a", "burst_of_strength", true)]);
    // The counter is 1 after the first tick, 3 after the second, then 3 + 2k after k more: the
    // third point goes when it passes 180 and the fourth when it passes 240, at k = 119 (241).
    for _ in 0..118 {
        world.tick(vec![]);
    }
    assert_eq!(prayer_of(&world, "a").0, 1);
    let all = world.tick(vec![]);
    assert_eq!(prayer_of(&world, "a"), (0, 4, vec![]));
    assert_eq!(updates(&all, "a").last(), Some(&(0, 4, vec![])));
    let events = world.tick(vec![toggle("a", "thick_skin", true)]);
    assert_eq!(rejections(&events, "a"), vec![codes::NO_PRAYER_POINTS]);
    // The altar (a station entity) restores them.
    let altar = world
        .resources()
        .into_iter()
        .find(|r| r.resource_type.as_deref() == Some("altar"))
        .expect("an altar");
    assert_eq!((altar.x, altar.z), ALTAR_TILE);
    let mut events = world.tick(vec![act(
        "a",
        Action::Interact {
            target: altar.id.clone(),
        },
    )]);
    for _ in 0..5 {
        events.extend(world.tick(vec![]));
    }
    assert_eq!(prayer_of(&world, "a"), (4, 4, vec![]));
    assert_eq!(updates(&events, "a"), vec![(4, 4, vec![])]);
}

#[test]
fn a_priest_npc_with_the_altar_service_restores_points_as_an_altar_does() {
    let mut world = world();
    world.tick(vec![{
        let mut f = Fighter::new("a", t(3, 3)).level(Skill::Prayer, 12);
        f.joining.prayer_points = Some(2);
        f.join()
    }]);
    assert_eq!(prayer_of(&world, "a").0, 2);
    // The arena's sage, at (1, 1), offers the `altar` service and has no dialogue.
    let sage = world
        .npcs()
        .into_iter()
        .find(|n| n.type_id.as_deref() == Some("sage"))
        .map(|n| n.id)
        .expect("the sage");
    let mut events = world.tick(vec![act("a", Action::Interact { target: sage })]);
    for _ in 0..5 {
        events.extend(world.tick(vec![]));
    }
    assert_eq!(prayer_of(&world, "a"), (12, 12, vec![]));
    assert_eq!(updates(&events, "a"), vec![(12, 12, vec![])]);
}

#[test]
fn prayers_raise_the_rolls_and_max_hit_as_the_formulas_say() {
    let mut world = world();
    world.tick(vec![Fighter::new("a", t(2, 2))
        .level(Skill::Prayer, 20)
        .level(Skill::Attack, 40)
        .level(Skill::Strength, 60)
        .level(Skill::Defense, 30)
        .wear(EquipSlot::Weapon, "bronze_sword", 1)
        .join()]);
    let before = world.player_combatant("a").unwrap();
    // Accurate: +3 attack. Sword: attack +5, strength +4.
    // attack roll (40 + 3 + 8) × (5 + 64) = 51 × 69 = 3,519
    // max hit ⌊((60 + 8) × (4 + 64) + 320) / 640⌋ = ⌊4,944 / 640⌋ = 7
    // defence (30 + 8) × 64 = 2,432 (slash)
    assert_eq!(before.attack_roll(), 3_519);
    assert_eq!(before.max_hit(), 7);
    assert_eq!(
        before.defence_roll(wayfarer_sim::combat::formulas::AttackType::Slash),
        2_432
    );
    world.tick(vec![
        toggle("a", "clarity_of_thought", true),
        toggle("a", "superhuman_strength", true),
        toggle("a", "rock_skin", true),
    ]);
    let after = world.player_combatant("a").unwrap();
    // attack ⌊40 × 1.05⌋ = 42: (42 + 11) × 69 = 3,657
    // strength ⌊60 × 1.10⌋ = 66: ⌊((66 + 8) × 68 + 320) / 640⌋ = ⌊5,352 / 640⌋ = 8
    // defence ⌊30 × 1.10⌋ = 33: (33 + 8) × 64 = 2,624
    assert_eq!(after.attack_roll(), 3_657);
    assert_eq!(after.max_hit(), 8);
    assert_eq!(
        after.defence_roll(wayfarer_sim::combat::formulas::AttackType::Slash),
        2_624
    );
    // Against a level-1 dummy's defence roll (1 + 9) × 64 = 640 the hit chance rises from
    // 1 − 642 / 7,040 to 1 − 642 / 7,316.
    let dummy = wayfarer_content::NpcStats {
        level: 1,
        health: 200,
        attack: 1,
        strength: 1,
        defense: 1,
        defense_bonus: 0,
        ranged: 1,
        magic: 1,
    };
    assert_eq!(npc_defence_roll(&dummy), 640);
    let chance = |a| hit_chance(a, 640);
    assert!((chance(before.attack_roll()) - (1.0 - 642.0 / 7_040.0)).abs() < 1e-12);
    assert!((chance(after.attack_roll()) - (1.0 - 642.0 / 7_316.0)).abs() < 1e-12);
}

#[test]
fn burying_bones_gives_prayer_xp_and_a_level_gained_adds_a_point() {
    let mut world = world();
    world.tick(vec![Fighter::new("a", t(2, 2))
        .hold(&[("bones", 1); 20])
        .join()]);
    assert_eq!(prayer_of(&world, "a"), (1, 1, vec![]));
    let mut events = Vec::new();
    // 4.5 XP a bone: 83 XP (level 2) after 19 bones.
    for slot in 0..19 {
        events.extend(world.tick(vec![Command::UseItem {
            id: "a".into(),
            slot,
            target_slot: None,
            target_id: None,
            reference: None,
        }]));
    }
    let prayer_xp: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            Event::Xp { to, skill, gain } if to == "a" && *skill == Skill::Prayer => {
                Some(f64::from(gain.gained.tenths()) / 10.0)
            }
            _ => None,
        })
        .collect();
    assert_eq!(prayer_xp, vec![4.5; 19]);
    assert_eq!(prayer_of(&world, "a"), (2, 2, vec![]));
}

#[test]
fn death_switches_prayers_off_and_restores_the_points() {
    let mut world = arena::world(&[arena::mob("reaper", 10, 10)], 3);
    world.tick(vec![Fighter::new("a", t(2, 2))
        .level(Skill::Prayer, 10)
        .join()]);
    world.tick(vec![toggle("a", "rock_skin", true)]);
    for _ in 0..20 {
        world.tick(vec![]);
    }
    assert!(prayer_of(&world, "a").0 < 10);
    let events = world.tick(vec![Command::Move {
        id: "a".into(),
        x: 10,
        z: 9,
        run: true,
        reference: None,
    }]);
    let mut all = events;
    for _ in 0..60 {
        let events = world.tick(vec![]);
        let died = events
            .iter()
            .any(|e| matches!(e, Event::PlayerDied { id, .. } if id == "a"));
        all.extend(events);
        if died {
            break;
        }
    }
    assert!(all
        .iter()
        .any(|e| matches!(e, Event::PlayerDied { id, .. } if id == "a")));
    assert_eq!(prayer_of(&world, "a"), (10, 10, vec![]));
}
