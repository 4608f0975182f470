//! The arena's ladder (issue 55): joining, matchmaking by rating with a widening window, the
//! countdown, the fight as a real duel in a pit with no stakes, the result with both ratings in
//! the duel's commit, told once after the write; a fighter leaving before the start cancels.

use std::sync::Arc;

use serde_json::json;
use wayfarer_content::{Content, ManifestSet, Skill};
use wayfarer_sim::{
    ArenaCommand, ArenaNotice, ArenaRating, ArenaSettings, Command, Event, FightState, World,
};

use crate::arena::{attack, Fighter};
use crate::t;

/// A safe field `x 0..=29` beside a duel arena `x 30..=45, z 0..=15` (four pits).
fn content() -> Arc<Content> {
    let mut set = ManifestSet::new();
    set.insert(
        "world-areas.json",
        json!({
            "starterTowns": {"field": {
                "id": "field", "name": "Field",
                "bounds": {"minX": 0, "maxX": 29, "minZ": 0, "maxZ": 29},
                "safeZone": true, "spawnPoint": {"x": 0, "y": 0, "z": 0},
                "npcs": [], "resources": [], "mobSpawns": []
            }},
            "level1Areas": {"duel_arena": {
                "id": "duel_arena", "name": "Duel Arena",
                "bounds": {"minX": 30, "maxX": 45, "minZ": 0, "maxZ": 15},
                "duelArena": true, "mobSpawns": []
            }}
        })
        .to_string(),
    );
    match Content::from_files(&set) {
        Ok((content, _)) => Arc::new(content),
        Err(report) => panic!("ladder content is invalid:\n{report}"),
    }
}

const COUNTDOWN: u64 = 5;

fn world_of(fighters: Vec<Fighter>) -> World {
    let mut world = World::new(content(), 7);
    world.set_arena_settings(ArenaSettings {
        countdown_ticks: COUNTDOWN,
        ..ArenaSettings::default()
    });
    world.set_arena_prefix("f");
    world.tick(fighters.into_iter().map(Fighter::join).collect());
    world
}

fn join(id: &str, stored: Option<ArenaRating>) -> Command {
    Command::Arena {
        id: id.into(),
        command: ArenaCommand::Join { stored },
        reference: Some(9),
    }
}

fn leave(id: &str) -> Command {
    Command::Arena {
        id: id.into(),
        command: ArenaCommand::Leave,
        reference: Some(9),
    }
}

fn rated(rating: f64) -> Option<ArenaRating> {
    Some(ArenaRating {
        rating,
        ..ArenaRating::default()
    })
}

fn notices(events: &[Event], to: &str) -> Vec<ArenaNotice> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Arena { to: t, notice } if t == to => Some(notice.clone()),
            _ => None,
        })
        .collect()
}

fn errors(events: &[Event], to: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { to: t, code, .. } if t == to => Some(code.to_string()),
            _ => None,
        })
        .collect()
}

fn strong(id: &str, x: i32) -> Fighter {
    Fighter::new(id, t(x, 5))
        .level(Skill::Attack, 60)
        .level(Skill::Strength, 60)
}

#[test]
fn two_players_are_matched_fight_in_a_pit_and_get_their_ratings_once() {
    let mut world = world_of(vec![strong("a", 5), Fighter::new("b", t(8, 5))]);
    let events = world.tick(vec![join("a", None)]);
    assert!(matches!(
        notices(&events, "a").as_slice(),
        [ArenaNotice::Queued { position: 1, rating }] if *rating == ArenaRating::default()
    ));
    let events = world.tick(vec![join("a", None)]);
    assert_eq!(errors(&events, "a"), ["already_queued"]);
    let events = world.tick(vec![join("b", None)]);
    let matched_at = world.tick_number();
    let fight_id = match notices(&events, "b").as_slice() {
        [ArenaNotice::Queued { position: 2, .. }, ArenaNotice::Matched {
            fight_id,
            opponent_id,
            opponent_name,
            starts_at_tick,
            ..
        }] => {
            assert_eq!((opponent_id.as_str(), opponent_name.as_str()), ("a", "A"));
            assert_eq!(*starts_at_tick, matched_at + COUNTDOWN);
            fight_id.clone()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(fight_id, "f-1");
    assert!(matches!(
        notices(&events, "a").as_slice(),
        [ArenaNotice::Matched { opponent_id, .. }] if opponent_id == "b"
    ));
    let fights = world.arena_fights();
    assert_eq!(fights.len(), 1);
    assert_eq!(fights[0].state, FightState::Scheduled);
    assert_eq!(world.arena_queue_len(), 0);

    // The countdown: nobody moves into the pit before it ends.
    for _ in 1..COUNTDOWN {
        world.tick(vec![]);
        assert!(!world.in_duel("a"));
    }
    world.tick(vec![]);
    assert!(world.duel_fighting("a") && world.duel_fighting("b"));
    assert_eq!(world.arena_fights()[0].state, FightState::Live);
    let pit = world.arena_pits()[world.arena_fights()[0].pit];
    let tile = world.player_tile("a").unwrap();
    assert!(
        (tile.x - pit.x).abs() <= 1 && (tile.z - pit.z).abs() <= 1,
        "{tile:?} {pit:?}"
    );

    // The fight, to its commit: the ratings ride with the duel's result.
    let mut events = world.tick(vec![attack("a", "b"), attack("b", "a")]);
    let mut commit = None;
    for _ in 0..600 {
        assert!(!events.iter().any(|e| matches!(e, Event::PlayerDied { .. })));
        commit = events.iter().find_map(|e| match e {
            Event::DuelCommit(c) => Some((**c).clone()),
            _ => None,
        });
        if commit.is_some() {
            break;
        }
        events = world.tick(vec![]);
    }
    let commit = commit.expect("the fight ends");
    assert!(commit.won.is_empty() && commit.kept.is_empty(), "no stakes");
    assert_eq!(commit.rules, ["no_food"]);
    let outcome = commit.arena.clone().expect("a ladder fight's result");
    assert_eq!(outcome.fight_id, "f-1");
    assert_eq!(outcome.winner, commit.players[0]);
    let w = outcome
        .players
        .iter()
        .position(|p| *p == outcome.winner)
        .unwrap();
    assert!(outcome.after[w].rating > 1500.0 && outcome.after[1 - w].rating < 1500.0);
    assert_eq!(outcome.before, [ArenaRating::default(); 2]);
    // Two newcomers: ±162.3, deviations 290.3 (Glicko-2 by hand: g(φ)=0.6690, E=0.5, v=8.937).
    assert!(
        (outcome.after[w].rating - 1662.31).abs() < 0.05,
        "{outcome:?}"
    );
    assert!(
        (outcome.after[w].deviation - 290.32).abs() < 0.05,
        "{outcome:?}"
    );
    // Nothing is told before the write.
    assert!(world.arena_rating("a").is_none());

    let events = world.tick(vec![Command::DuelCommitted {
        duel_id: commit.duel_id.clone(),
        ok: true,
    }]);
    for p in ["a", "b"] {
        let results: Vec<_> = notices(&events, p)
            .into_iter()
            .filter(|n| matches!(n, ArenaNotice::Result(_)))
            .collect();
        assert_eq!(
            results,
            [ArenaNotice::Result(Box::new(outcome.clone()))],
            "{p}"
        );
    }
    assert_eq!(world.arena_rating(&outcome.winner), Some(outcome.after[w]));
    assert!(world.arena_fights().is_empty());
    // A second answer for the same duel changes nothing and tells nothing.
    let events = world.tick(vec![Command::DuelCommitted {
        duel_id: commit.duel_id.clone(),
        ok: true,
    }]);
    assert!(notices(&events, "a").is_empty() && notices(&events, "b").is_empty());
    // Joining again matches on the rating the world wrote, not the stale one read with the join.
    let events = world.tick(vec![join(&outcome.winner, rated(1500.0))]);
    assert!(matches!(
        notices(&events, &outcome.winner).as_slice(),
        [ArenaNotice::Queued { rating, .. }] if *rating == outcome.after[w]
    ));
}

#[test]
fn a_fighter_leaving_before_the_start_cancels_and_the_other_waits_again() {
    let mut world = world_of(vec![
        Fighter::new("a", t(5, 5)),
        Fighter::new("b", t(8, 5)),
        Fighter::new("c", t(10, 5)),
    ]);
    world.tick(vec![join("a", None), join("b", None)]);
    assert_eq!(world.arena_fights().len(), 1);
    // b disconnects during the countdown: a is told and goes back to the queue, first.
    let events = world.tick(vec![Command::Leave { id: "b".into() }]);
    assert!(matches!(
        notices(&events, "a").as_slice(),
        [
            ArenaNotice::Cancelled {
                reason: "disconnected",
                ..
            },
            ArenaNotice::Queued { position: 1, .. }
        ]
    ));
    assert!(world.arena_fights().is_empty());
    assert_eq!(world.arena_queue_len(), 1);
    for _ in 0..COUNTDOWN + 2 {
        world.tick(vec![]);
    }
    assert!(!world.in_duel("a"));

    // c joins and is matched with a; a leaves the ladder: c waits again, a is out.
    let events = world.tick(vec![join("c", None)]);
    assert!(matches!(
        notices(&events, "c").last(),
        Some(ArenaNotice::Matched { .. })
    ));
    let events = world.tick(vec![leave("a")]);
    assert!(matches!(
        notices(&events, "a").as_slice(),
        [
            ArenaNotice::Cancelled { reason: "left", .. },
            ArenaNotice::Left
        ]
    ));
    assert!(matches!(
        notices(&events, "c").as_slice(),
        [
            ArenaNotice::Cancelled { reason: "left", .. },
            ArenaNotice::Queued { position: 1, .. }
        ]
    ));
    let events = world.tick(vec![leave("a")]);
    assert_eq!(errors(&events, "a"), ["not_queued"]);
    for _ in 0..COUNTDOWN + 2 {
        world.tick(vec![]);
    }
    assert!(!world.in_duel("c") && !world.in_duel("a"));
    assert_eq!(world.arena_queue_len(), 1);
}

#[test]
fn the_matching_window_widens_with_waiting() {
    let mut world = world_of(vec![Fighter::new("a", t(5, 5)), Fighter::new("b", t(8, 5))]);
    // 300 points apart: outside the first window (100), inside after 200 ticks of waiting (+1 a
    // tick for both).
    world.tick(vec![join("a", rated(1500.0)), join("b", rated(1800.0))]);
    let mut matched = None;
    for n in 1..=300u64 {
        let events = world.tick(vec![]);
        if notices(&events, "a")
            .iter()
            .any(|m| matches!(m, ArenaNotice::Matched { .. }))
        {
            matched = Some(n);
            break;
        }
    }
    let n = matched.expect("matched within 300 ticks");
    assert!((199..=201).contains(&n), "matched after {n} ticks");
}

#[test]
fn a_world_without_an_arena_refuses_the_ladder() {
    let mut world = World::new(Arc::new(wayfarer_content::load_bundled()), 3);
    assert!(!world.arena_pits().is_empty(), "the bundled world has pits");
    let mut set = ManifestSet::new();
    set.insert(
        "world-areas.json",
        json!({"starterTowns": {"field": {
            "id": "field", "name": "Field",
            "bounds": {"minX": 0, "maxX": 29, "minZ": 0, "maxZ": 29},
            "safeZone": true, "spawnPoint": {"x": 0, "y": 0, "z": 0},
            "npcs": [], "resources": [], "mobSpawns": []
        }}})
        .to_string(),
    );
    let (content, _) = Content::from_files(&set).unwrap();
    world = World::new(Arc::new(content), 3);
    world.tick(vec![Fighter::new("a", t(5, 5)).join()]);
    let events = world.tick(vec![join("a", None)]);
    assert_eq!(errors(&events, "a"), ["no_arena"]);
}
