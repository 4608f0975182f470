//! Duels (CONTRACT.md section 11): the challenge's range, the two screens (any change resets both
//! accepts), every rule refusing what it forbids, the fight to its end without a death, and the
//! two-phase completion that moves the loser's stake to the winner.

use std::sync::Arc;

use serde_json::json;
use wayfarer_content::{Content, EquipSlot, ManifestSet, Skill};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::exchange::{Ending, ExchangeKind, Notice, Screen};
use wayfarer_sim::inventory::Stack;
use wayfarer_sim::{Action, Command, DuelCommand, DuelCommit, Event, World};

use crate::arena::Fighter;
use crate::t;

/// Arena bounds: x 30..=44, z 0..=14; its centre tile (37, 7).
const ARENA_CENTRE: (i32, i32) = (37, 7);

fn content(with_arena: bool) -> Arc<Content> {
    let mut set = ManifestSet::new();
    set.insert(
        "items/duel.json",
        json!([
            {"id": "coins", "name": "Coins", "value": 1, "type": "currency", "stackable": true,
             "maxStackSize": 2147483647},
            {"id": "bronze_sword", "name": "Bronze Sword", "value": 20, "type": "weapon",
             "equipSlot": "weapon", "weaponType": "SWORD", "attackType": "MELEE", "attackSpeed": 4,
             "attackRange": 1, "bonuses": {"attack": 5, "strength": 4}},
            {"id": "shortbow", "name": "Shortbow", "value": 30, "type": "weapon", "equipSlot": "2h",
             "weaponType": "BOW", "attackType": "RANGED", "attackSpeed": 4, "attackRange": 7,
             "bonuses": {"attackRanged": 8}},
            {"id": "bronze_arrow", "name": "Bronze Arrow", "value": 1, "type": "ammunition",
             "stackable": true, "maxStackSize": 10000, "equipSlot": "arrows",
             "bonuses": {"rangedStrength": 7}},
            {"id": "staff", "name": "Staff", "value": 15, "type": "weapon", "equipSlot": "weapon",
             "weaponType": "STAFF", "attackType": "MAGIC", "attackSpeed": 5, "attackRange": 1,
             "bonuses": {"attackMagic": 10}},
            {"id": "shrimp", "name": "Shrimp", "value": 5, "type": "food", "healAmount": 3},
            {"id": "token", "name": "Token", "value": 0, "type": "misc", "tradeable": false}
        ])
        .to_string(),
    );
    set.insert(
        "prayers.json",
        json!({"prayers": [
            {"id": "thick_skin", "name": "Thick Skin", "level": 1, "category": "defensive",
             "drainEffect": 1, "bonuses": {"defenseMultiplier": 1.05}, "conflicts": []}
        ]})
        .to_string(),
    );
    let mut areas = json!({
        "starterTowns": {"field": {
            "id": "field", "name": "Field",
            "bounds": {"minX": 0, "maxX": 29, "minZ": 0, "maxZ": 29},
            "safeZone": true, "spawnPoint": {"x": 0, "y": 0, "z": 0},
            "npcs": [], "resources": [], "mobSpawns": []
        }}
    });
    if with_arena {
        areas["level1Areas"] = json!({"duel_arena": {
            "id": "duel_arena", "name": "Duel Arena",
            "bounds": {"minX": 30, "maxX": 44, "minZ": 0, "maxZ": 14},
            "duelArena": true, "mobSpawns": []
        }});
    }
    set.insert("world-areas.json", areas.to_string());
    match Content::from_files(&set) {
        Ok((content, _)) => Arc::new(content),
        Err(report) => panic!("duel content is invalid:\n{report}"),
    }
}

fn world_of(fighters: Vec<Fighter>, with_arena: bool) -> World {
    let mut world = World::new(content(with_arena), 7);
    world.tick(fighters.into_iter().map(Fighter::join).collect());
    world
}

/// `a` at (5,5) with 100 coins, a sword and 3 shrimp; `b` at (6,5) with 50 coins and 2 shrimp.
fn pair() -> (Fighter, Fighter) {
    (
        Fighter::new("a", t(5, 5)).hold(&[("coins", 100), ("bronze_sword", 1), ("shrimp", 1)]),
        Fighter::new("b", t(6, 5)).hold(&[("coins", 50), ("shrimp", 1)]),
    )
}

fn duel(id: &str, command: DuelCommand) -> Command {
    Command::Duel {
        id: id.into(),
        command,
        reference: Some(4),
    }
}

fn challenge(id: &str, target: &str) -> Command {
    duel(
        id,
        DuelCommand::Challenge {
            target: target.into(),
        },
    )
}

fn respond(id: &str, accept: bool) -> Command {
    duel(
        id,
        DuelCommand::Respond {
            duel_id: "duel-1".into(),
            accept,
        },
    )
}

fn accept(id: &str) -> Command {
    duel(
        id,
        DuelCommand::Accept {
            duel_id: "duel-1".into(),
        },
    )
}

fn set_rule(id: &str, rule: &str, on: bool) -> Command {
    duel(
        id,
        DuelCommand::SetRule {
            duel_id: "duel-1".into(),
            rule: rule.into(),
            on,
        },
    )
}

fn stake(id: &str, slot: i64, quantity: Option<i64>) -> Command {
    duel(
        id,
        DuelCommand::Stake {
            duel_id: "duel-1".into(),
            slot,
            quantity,
        },
    )
}

/// The duel notices `to` got.
fn duel_messages(events: &[Event], to: &str) -> Vec<Notice> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Exchange {
                to: t,
                kind: ExchangeKind::Duel,
                notice,
                ..
            } if t == to => Some(notice.clone()),
            _ => None,
        })
        .collect()
}

fn errors(events: &[Event], to: &str) -> Vec<String> {
    duel_messages(events, to)
        .into_iter()
        .filter_map(|m| match m {
            Notice::Refused { code, .. } => Some(code.to_owned()),
            _ => None,
        })
        .collect()
}

fn last_rules(events: &[Event], to: &str) -> Screen {
    duel_messages(events, to)
        .into_iter()
        .filter_map(|m| match m {
            Notice::Screen(r) => Some(*r),
            _ => None,
        })
        .next_back()
        .unwrap_or_else(|| panic!("no duel:rules for {to} in {events:?}"))
}

fn commit_of(events: &[Event]) -> Option<DuelCommit> {
    events.iter().find_map(|e| match e {
        Event::DuelCommit(c) => Some((**c).clone()),
        _ => None,
    })
}

/// From a fresh pair to the fight, with `rules` on and the given stakes.
fn to_fight(world: &mut World, rules: &[&str], stakes: Vec<Command>) -> Vec<Event> {
    world.tick(vec![challenge("a", "b")]);
    world.tick(vec![respond("b", true)]);
    let mut setup: Vec<Command> = rules.iter().map(|r| set_rule("a", r, true)).collect();
    setup.extend(stakes);
    world.tick(setup);
    world.tick(vec![accept("a"), accept("b")]);
    let events = world.tick(vec![accept("a"), accept("b")]);
    assert!(
        world.duel_fighting("a") && world.duel_fighting("b"),
        "{events:?}"
    );
    events
}

#[test]
fn a_challenge_reaches_two_tiles_and_no_farther() {
    let mut world = world_of(
        vec![
            Fighter::new("a", t(5, 5)),
            Fighter::new("b", t(7, 5)),
            Fighter::new("c", t(8, 8)),
        ],
        true,
    );
    let events = world.tick(vec![challenge("a", "b")]);
    assert!(matches!(
        duel_messages(&events, "b").as_slice(),
        [Notice::Asked { from, from_name }] if from == "a" && from_name == "A"
    ));
    // c is 3 tiles from a (Chebyshev): the first distance refused.
    let events = world.tick(vec![challenge("c", "a")]);
    assert_eq!(errors(&events, "c"), ["too_far"]);
    assert!(duel_messages(&events, "a").is_empty());
    let events = world.tick(vec![challenge("a", "a")]);
    assert_eq!(errors(&events, "a"), ["self_trade"]);
}

#[test]
fn any_change_resets_both_accepts_and_returns_to_the_first_screen() {
    let (a, b) = pair();
    let mut world = world_of(vec![a, b], true);
    world.tick(vec![challenge("a", "b")]);
    let events = world.tick(vec![respond("b", true)]);
    assert_eq!(last_rules(&events, "a").number, 1);
    assert!(world.in_duel("a") && world.in_duel("b"));

    let changes: Vec<(&str, Command)> = vec![
        ("rule", set_rule("b", "no_food", true)),
        ("stake", stake("a", 0, Some(10))),
        ("restake", stake("a", 0, Some(20))),
        (
            "unstake",
            duel(
                "a",
                DuelCommand::Unstake {
                    duel_id: "duel-1".into(),
                    slot: 0,
                },
            ),
        ),
    ];
    for (what, change) in changes {
        // Both accept Screen 1: Screen 2, neither accepted yet; one accepts Screen 2.
        let events = world.tick(vec![accept("a"), accept("b")]);
        assert_eq!(last_rules(&events, "a").number, 2, "{what}");
        let events = world.tick(vec![accept("a")]);
        let seen = last_rules(&events, "b");
        assert!(seen.theirs.accepted && !seen.mine.accepted, "{what}");
        // The change: back to Screen 1, nobody accepted, both told.
        let events = world.tick(vec![change]);
        for p in ["a", "b"] {
            let rules = last_rules(&events, p);
            assert_eq!(rules.number, 1, "{what}");
            assert!(!rules.mine.accepted && !rules.theirs.accepted, "{what}");
        }
    }
    // The stake shows to the other side (its name and value are the wire's:
    // world_thread/messages.rs).
    let events = world.tick(vec![stake("a", 1, None)]);
    let seen = last_rules(&events, "b");
    assert_eq!(seen.theirs.items.len(), 1);
    assert_eq!(seen.theirs.items[0].item_id, "bronze_sword");
    assert_eq!(seen.theirs.items[0].quantity, 1);
    assert_eq!(seen.rules.names(), ["no_food"]);
}

#[test]
fn the_screens_refuse_bad_rules_and_stakes_and_everything_else() {
    let (a, b) = pair();
    let mut world = world_of(vec![a.hold(&[("coins", 100), ("token", 1)]), b], true);
    world.tick(vec![challenge("a", "b")]);
    world.tick(vec![respond("b", true)]);
    let events = world.tick(vec![
        set_rule("a", "no_fun", true),
        stake("a", 1, None),
        stake("a", 27, None),
        stake("a", 28, None),
        stake("a", 0, Some(0)),
    ]);
    assert_eq!(
        errors(&events, "a"),
        [
            "invalid_rule",
            "untradeable_item",
            "invalid_slot",
            "invalid_slot",
            "invalid_quantity"
        ]
    );
    // Forbidding every way of attacking is refused at the third.
    let events = world.tick(vec![
        set_rule("a", "no_melee", true),
        set_rule("b", "no_ranged", true),
        set_rule("a", "no_magic", true),
    ]);
    assert_eq!(errors(&events, "a"), ["invalid_rule"]);
    // On the screens nobody moves, acts or banks.
    let events = world.tick(vec![
        Command::Move {
            id: "a".into(),
            x: 9,
            z: 9,
            run: false,
            reference: None,
        },
        Command::Action {
            id: "b".into(),
            action: Action::Drop { slot: 0 },
            reference: None,
        },
    ]);
    assert_eq!(errors(&events, "a"), ["in_duel"]);
    assert_eq!(errors(&events, "b"), ["in_duel"]);
    assert_eq!(world.player_tile("a"), Some(t(5, 5)));
}

#[test]
fn the_second_accept_places_both_in_the_arena_side_by_side() {
    let (a, b) = pair();
    let mut world = world_of(vec![a, b], true);
    let events = to_fight(&mut world, &[], vec![]);
    let start: Vec<Option<String>> = duel_messages(&events, "a")
        .into_iter()
        .filter_map(|m| match m {
            Notice::Fight { arena_id, .. } => Some(arena_id),
            _ => None,
        })
        .collect();
    assert_eq!(start.len(), 1);
    assert_eq!(start[0].as_deref(), Some("duel_arena"));
    let centre = t(ARENA_CENTRE.0, ARENA_CENTRE.1);
    assert_eq!(world.player_tile("a"), Some(centre));
    assert_eq!(world.player_tile("b"), Some(t(centre.x + 1, centre.z)));
}

#[test]
fn without_an_arena_the_fight_is_where_the_challenged_player_stands() {
    let (a, b) = pair();
    let mut world = world_of(vec![a, b], false);
    to_fight(&mut world, &[], vec![]);
    assert_eq!(world.player_tile("a"), Some(t(6, 5)));
    assert_eq!(world.player_tile("b"), Some(t(7, 5)));
}

fn move_to(id: &str, x: i32, z: i32) -> Command {
    Command::Move {
        id: id.into(),
        x,
        z,
        run: false,
        reference: Some(2),
    }
}

fn eat(id: &str, slot: usize) -> Command {
    Command::UseItem {
        id: id.into(),
        slot,
        target_slot: None,
        target_id: None,
        reference: Some(3),
    }
}

fn pray(id: &str) -> Command {
    Command::Prayer {
        id: id.into(),
        prayer_id: "thick_skin".into(),
        active: true,
        reference: Some(5),
    }
}

fn attack(id: &str, target: &str) -> Command {
    crate::arena::attack(id, target)
}

/// Each rule, a fighter who does what it forbids, and whether that is refused.
fn rule_case(rule: Option<&str>, fighter: Fighter, forbidden: Command) -> Vec<String> {
    let (_, b) = pair();
    let mut world = world_of(vec![fighter, b], true);
    let rules: Vec<&str> = rule.into_iter().collect();
    to_fight(&mut world, &rules, vec![]);
    let events = world.tick(vec![forbidden]);
    errors(&events, "a")
}

/// How a case's fighter is equipped.
type MakeFighter<'a> = Box<dyn Fn() -> Fighter + 'a>;

#[test]
fn every_rule_refuses_what_it_forbids_and_nothing_else() {
    let plain = || Fighter::new("a", t(5, 5)).hold(&[("shrimp", 1)]);
    let bow = || {
        plain()
            .wear(EquipSlot::Weapon, "shortbow", 1)
            .wear(EquipSlot::Arrows, "bronze_arrow", 50)
    };
    let staff = || plain().wear(EquipSlot::Weapon, "staff", 1);
    let cases: Vec<(&str, MakeFighter<'_>, Command)> = vec![
        ("no_food", Box::new(plain), eat("a", 0)),
        ("no_prayer", Box::new(plain), pray("a")),
        ("no_ranged", Box::new(bow), attack("a", "b")),
        ("no_magic", Box::new(staff), attack("a", "b")),
        ("no_melee", Box::new(plain), attack("a", "b")),
        ("no_movement", Box::new(plain), move_to("a", 40, 10)),
    ];
    for (rule, fighter, forbidden) in cases {
        assert_eq!(
            rule_case(Some(rule), fighter(), forbidden.clone()),
            ["rule_broken"],
            "{rule} refuses"
        );
        assert!(
            rule_case(None, fighter(), forbidden).is_empty(),
            "without {rule} the same is allowed"
        );
    }
}

#[test]
fn magic_is_refused_under_no_magic_as_a_cast_and_as_an_autocast_attack() {
    let action = |action: Action| Command::Action {
        id: "a".into(),
        action,
        reference: Some(1),
    };
    let cast = || {
        action(Action::Cast {
            spell: "wind_strike".into(),
            target: "b".into(),
        })
    };
    // A cast under no_magic breaks the rule; under no_melee it is not the duel's to refuse.
    let (a, b) = pair();
    let mut world = world_of(vec![a.clone(), b.clone()], true);
    to_fight(&mut world, &["no_magic"], vec![]);
    assert_eq!(errors(&world.tick(vec![cast()]), "a"), ["rule_broken"]);
    let mut world = world_of(vec![a.clone(), b.clone()], true);
    to_fight(&mut world, &["no_melee"], vec![]);
    assert!(errors(&world.tick(vec![cast()]), "a").is_empty());
    // Choosing autocast is allowed in the fight; an attack then casts, so no_magic refuses it
    // though the weapon in hand is a sword.
    let mut world = world_of(vec![a, b], true);
    to_fight(&mut world, &["no_magic"], vec![]);
    let events = world.tick(vec![action(Action::Autocast {
        spell: Some("wind_strike".into()),
    })]);
    assert!(errors(&events, "a").is_empty());
    assert_eq!(
        errors(&world.tick(vec![attack("a", "b")]), "a"),
        ["rule_broken"]
    );
}

#[test]
fn in_the_fight_only_the_opponent_and_unstaked_food_are_allowed() {
    let (a, b) = pair();
    let mut world = world_of(
        vec![a, b, Fighter::new("c", t(36, 7)).hold(&[("coins", 1)])],
        true,
    );
    // a stakes its shrimp (slot 2).
    to_fight(&mut world, &[], vec![stake("a", 2, None)]);
    let events = world.tick(vec![
        attack("a", "c"),
        eat("a", 2),
        Command::Action {
            id: "a".into(),
            action: Action::Drop { slot: 0 },
            reference: None,
        },
        Command::Trade {
            id: "a".into(),
            command: wayfarer_sim::TradeCommand::Request { target: "c".into() },
            reference: None,
        },
    ]);
    assert_eq!(errors(&events, "a"), ["in_duel"; 4]);
    // Walking is fine inside the arena, not out of it; fleeing is not a way out either.
    let events = world.tick(vec![move_to("a", 40, 10)]);
    assert!(errors(&events, "a").is_empty());
    let events = world.tick(vec![
        move_to("a", 20, 10),
        Command::Action {
            id: "a".into(),
            action: Action::Flee,
            reference: None,
        },
    ]);
    assert_eq!(errors(&events, "a"), ["in_duel"; 2]);
    // An outsider cannot attack a duelist either.
    let events = world.tick(vec![attack("c", "a")]);
    assert!(crate::arena::rejections(&events, "c").contains(&"cannot_do"));
    // Nor challenge or trade with them.
    let events = world.tick(vec![challenge("c", "a")]);
    assert_eq!(errors(&events, "c"), ["player_busy"]);
}

#[test]
fn a_fight_to_the_end_moves_the_losers_stake_to_the_winner_and_nobody_dies() {
    let strong = Fighter::new("a", t(5, 5))
        .level(Skill::Attack, 99)
        .level(Skill::Strength, 99)
        .wear(EquipSlot::Weapon, "bronze_sword", 1)
        .hold(&[("coins", 100), ("shrimp", 1)]);
    let weak = Fighter::new("b", t(6, 5)).hold(&[("coins", 50), ("shrimp", 1)]);
    let mut world = world_of(vec![strong, weak], true);
    to_fight(
        &mut world,
        &["no_food"],
        vec![
            stake("a", 0, Some(40)),
            stake("b", 0, None),
            stake("b", 1, None),
        ],
    );
    let mut commit = None;
    let mut events = world.tick(vec![attack("a", "b")]);
    for _ in 0..200 {
        assert!(
            !events.iter().any(|e| matches!(e, Event::PlayerDied { .. })),
            "nobody dies in a duel"
        );
        if let Some(c) = commit_of(&events) {
            commit = Some(c);
            break;
        }
        events = world.tick(vec![]);
    }
    let commit = commit.expect("the fight ends within 200 ticks");
    assert_eq!(commit.players, ["a".to_string(), "b".to_string()]);
    assert_eq!(
        commit.won,
        [
            Stack {
                item_id: "coins".into(),
                quantity: 50
            },
            Stack {
                item_id: "shrimp".into(),
                quantity: 1
            }
        ]
    );
    assert_eq!(commit.rules, ["no_food"]);
    // Both are back where they stood, whole; nothing changes before the outcome.
    assert_eq!(world.player_tile("a"), Some(t(5, 5)));
    assert_eq!(world.player_tile("b"), Some(t(6, 5)));
    assert_eq!(world.player_health_of("b"), Some((10, 10)));
    assert!(world.duel_committing("a"));
    assert_eq!(world.player_inventory("b").unwrap().count("coins"), 50);
    let events = world.tick(vec![Command::DuelCommitted {
        duel_id: "duel-1".into(),
        ok: true,
    }]);
    let inv_a = world.player_inventory("a").unwrap();
    let inv_b = world.player_inventory("b").unwrap();
    assert_eq!(inv_a.count("coins"), 150);
    assert_eq!(inv_a.count("shrimp"), 2);
    assert_eq!(inv_b.count("coins"), 0);
    assert_eq!(inv_b.count("shrimp"), 0);
    for p in ["a", "b"] {
        let result = duel_messages(&events, p)
            .into_iter()
            .find_map(|m| match m {
                Notice::Decided {
                    winner,
                    loser,
                    received,
                } => Some((winner, loser, received)),
                _ => None,
            })
            .expect("duel:result");
        assert_eq!((result.0.as_str(), result.1.as_str()), ("a", "b"));
        assert_eq!(result.2.is_empty(), p == "b");
    }
    assert!(!world.in_duel("a") && !world.in_duel("b"));
    assert_eq!(world.open_duels(), 0);
}

#[test]
fn a_failed_commit_and_a_disconnect_mid_fight_keep_every_stake_with_its_owner() {
    let strong = Fighter::new("a", t(5, 5))
        .level(Skill::Attack, 99)
        .level(Skill::Strength, 99)
        .hold(&[("coins", 100)]);
    let weak = Fighter::new("b", t(6, 5)).hold(&[("coins", 50)]);
    let mut world = world_of(vec![strong.clone(), weak.clone()], true);
    to_fight(
        &mut world,
        &[],
        vec![stake("a", 0, None), stake("b", 0, None)],
    );
    let mut events = world.tick(vec![attack("a", "b")]);
    for _ in 0..200 {
        if commit_of(&events).is_some() {
            break;
        }
        events = world.tick(vec![]);
    }
    assert!(world.duel_committing("b"));
    // The loser's damage while committing cannot kill; a cancel is refused.
    let events = world.tick(vec![
        duel(
            "b",
            DuelCommand::Cancel {
                duel_id: "duel-1".into(),
            },
        ),
        Command::DuelCommitted {
            duel_id: "duel-1".into(),
            ok: false,
        },
    ]);
    assert_eq!(errors(&events, "b"), ["not_on_screen"]);
    assert!(duel_messages(&events, "a").iter().any(|m| matches!(
        m,
        Notice::Cancelled {
            reason: Ending::ServerError,
            ..
        }
    )));
    assert_eq!(world.player_inventory("a").unwrap().count("coins"), 100);
    assert_eq!(world.player_inventory("b").unwrap().count("coins"), 50);

    // A leave in the fight: the other is told, both back outside, stakes where they were.
    let mut world = world_of(vec![strong, weak], true);
    to_fight(
        &mut world,
        &[],
        vec![stake("a", 0, None), stake("b", 0, None)],
    );
    let events = world.tick(vec![Command::Leave { id: "b".into() }]);
    assert!(duel_messages(&events, "a").iter().any(|m| matches!(
        m,
        Notice::Cancelled {
            reason: Ending::Disconnected,
            ..
        }
    )));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Left { id, tile } if id == "b" && *tile == t(6, 5))));
    assert_eq!(world.player_tile("a"), Some(t(5, 5)));
    assert_eq!(world.player_inventory("a").unwrap().count("coins"), 100);
    assert!(!world.in_duel("a"));
}

#[test]
fn entering_the_world_inside_the_arena_starts_at_the_spawn() {
    let world = world_of(vec![Fighter::new("a", t(37, 7))], true);
    assert_eq!(world.player_tile("a"), Some(TilePos { x: 0, z: 0 }));
}

/// The duel messages' codes and words for `to`.
fn error_words(events: &[Event], to: &str) -> Vec<(String, String)> {
    duel_messages(events, to)
        .into_iter()
        .filter_map(|m| match m {
            Notice::Refused { code, message, .. } => Some((code.to_owned(), message)),
            _ => None,
        })
        .collect()
}

/// Issue 50: a duel shielded a pair in the Wastes (nobody else could attack them) and healed
/// them there. No challenge from, into or across the edge of a PvP area; none accepted there.
#[test]
fn no_duel_is_challenged_or_accepted_in_or_into_a_pvp_area() {
    use crate::arena::ARENA_X;
    let mut world = crate::arena::world(&[], 3);
    world.tick(vec![
        // `a` stands in the PvP area, `b` one tile outside it, `c` and `d` in the field.
        Fighter::new("a", t(ARENA_X, 5)).join(),
        Fighter::new("b", t(ARENA_X - 1, 5)).join(),
        Fighter::new("c", t(ARENA_X - 2, 5)).join(),
        Fighter::new("e", t(ARENA_X + 1, 6)).join(),
    ]);
    let events = world.tick(vec![challenge("a", "b"), challenge("e", "a")]);
    assert_eq!(errors(&events, "a"), ["not_here"]);
    assert_eq!(errors(&events, "e"), ["not_here"]);
    let events = world.tick(vec![challenge("b", "a")]);
    assert_eq!(errors(&events, "b"), ["not_here"]);
    assert!(duel_messages(&events, "a").is_empty());
    // Outside it, a duel is challenged as before...
    let events = world.tick(vec![challenge("c", "b")]);
    assert!(errors(&events, "c").is_empty());
    assert_eq!(duel_messages(&events, "b").len(), 1);
    // ...but not accepted by one who stepped into the PvP area meanwhile.
    world.tick(vec![move_to("b", ARENA_X, 5)]);
    world.tick(vec![]);
    assert_eq!(world.player_tile("b"), Some(t(ARENA_X, 5)));
    let events = world.tick(vec![respond("b", true)]);
    assert_eq!(errors(&events, "b"), ["not_here"]);
    assert!(!world.in_duel("b") && !world.in_duel("c"));
}

/// Issue 50: no duel within 10 s (17 ticks) of either player's last swing, given or taken.
#[test]
fn no_duel_within_ten_seconds_of_either_players_last_fight() {
    use crate::arena::{attack, hits, mob, npc_of};
    use wayfarer_sim::COMBAT_LOCK_TICKS;
    assert_eq!(
        u64::from(wayfarer_content::ticks::secs_to_ticks(10.0)),
        COMBAT_LOCK_TICKS
    );
    let mut world = crate::arena::world(&[mob("dummy", 10, 10)], 4);
    let dummy = npc_of(&world, "dummy").expect("dummy");
    world.tick(vec![
        Fighter::new("a", t(10, 11)).join(),
        Fighter::new("b", t(11, 12)).join(),
    ]);
    // `a` hits the dummy once, then stops.
    let mut swung = false;
    for _ in 0..10 {
        let events = world.tick(if swung {
            vec![]
        } else {
            vec![attack("a", &dummy)]
        });
        if hits(&events).iter().any(|h| h.attacker_id == "a") {
            swung = true;
            break;
        }
    }
    assert!(swung, "a swung at the dummy");
    world.tick(vec![Command::Action {
        id: "a".into(),
        action: Action::Stop,
        reference: None,
    }]);
    let mut since = 1;
    let words = error_words(&world.tick(vec![challenge("a", "b")]), "a");
    assert_eq!(words[0].0, "in_combat", "{words:?}");
    since += 1;
    let events = world.tick(vec![challenge("b", "a")]);
    assert_eq!(
        error_words(&events, "b"),
        [(
            "in_combat".to_owned(),
            "that player was fighting moments ago; wait 10 seconds".to_owned()
        )]
    );
    since += 1;
    // Refused up to the 17th tick after the swing, allowed from then on.
    loop {
        let events = world.tick(vec![challenge("b", "a")]);
        since += 1;
        if errors(&events, "b").is_empty() {
            assert_eq!(duel_messages(&events, "a").len(), 1, "{events:?}");
            break;
        }
        assert_eq!(errors(&events, "b"), ["in_combat"]);
        assert!(since < 30, "still refused {since} ticks after the fight");
    }
    assert_eq!(since, COMBAT_LOCK_TICKS);
}

/// Issue 50: any stake change reset the screens' 5-minute timeout, so the duel's shield lasted
/// as long as the pair liked. The screens now end 5 minutes after they open, whatever changes.
#[test]
fn the_screens_end_five_minutes_after_opening_whatever_changes() {
    use wayfarer_sim::SCREEN_TIMEOUT_TICKS;
    let (a, b) = pair();
    let mut world = world_of(vec![a, b], true);
    world.tick(vec![challenge("a", "b")]);
    world.tick(vec![respond("b", true)]);
    assert!(world.in_duel("a"));
    let mut ended_after = None;
    for tick in 1..=SCREEN_TIMEOUT_TICKS + 100 {
        // A change every 50 ticks: a stake of a few coins, then of a few more.
        let commands = if tick % 50 == 0 {
            vec![stake("a", 0, Some(1 + (tick / 50) as i64))]
        } else {
            vec![]
        };
        let events = world.tick(commands);
        let cancelled = duel_messages(&events, "a").into_iter().any(|m| {
            matches!(
                m,
                Notice::Cancelled {
                    reason: Ending::Timeout,
                    ..
                }
            )
        });
        if cancelled {
            ended_after = Some(tick);
            break;
        }
    }
    assert_eq!(ended_after, Some(SCREEN_TIMEOUT_TICKS));
    assert!(!world.in_duel("a") && !world.in_duel("b"));
}

/// Issue 50: a third party refused from attacking a duelist is told so as it is; the duelist
/// attacking anyone else keeps "you can only fight your duel opponent".
#[test]
fn a_third_partys_refusal_says_the_target_is_in_a_duel() {
    let (a, b) = pair();
    let mut world = world_of(
        vec![a, b, Fighter::new("c", t(36, 7)).hold(&[("coins", 1)])],
        true,
    );
    to_fight(&mut world, &[], vec![]);
    let events = world.tick(vec![attack("c", "a")]);
    let told: Vec<(&str, &str)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected {
                to, code, message, ..
            } if to == "c" => Some((*code, message.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(told, [("cannot_do", "that player is in a duel")]);
    let events = world.tick(vec![attack("a", "c")]);
    assert_eq!(
        error_words(&events, "a"),
        [(
            "in_duel".to_owned(),
            "you can only fight your duel opponent".to_owned()
        )]
    );
}
