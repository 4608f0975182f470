//! The home teleport and emotes (CONTRACT.md section 14, issue 54): a 10-second cast that lands
//! on the spawn and starts a 30-minute cooldown, refused in combat and during the cooldown,
//! interrupted by a step or a blow; emotes shown to the players in view and nobody else.

use wayfarer_sim::{
    Action, Command, Event, HomeTeleportStatus, Joining, EMOTE_GAP_TICKS, HOME_CAST_TICKS,
    HOME_COOLDOWN_TICKS,
};

use crate::arena::{
    act, attack, hits, mob, npc_of, rejections, tick_until, world, Fighter, ARENA_X,
};
use crate::{t, walk};

fn home(id: &str) -> Command {
    act(id, Action::HomeTeleport)
}

/// The home teleport notices `id` got in `events`.
fn notices(events: &[Event], id: &str) -> Vec<(HomeTeleportStatus, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::HomeTeleport {
                to,
                status,
                cooldown_ticks,
            } if to == id => Some((*status, *cooldown_ticks)),
            _ => None,
        })
        .collect()
}

fn emote(id: &str, emote: &str) -> Command {
    Command::Emote {
        id: id.into(),
        emote: emote.into(),
        reference: Some(3),
    }
}

/// Who saw `id`'s emotes in `events`, and which.
fn emotes_seen(events: &[Event]) -> Vec<(Vec<String>, String, &'static str)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Emote {
                to,
                player_id,
                emote,
            } => Some((to.clone(), player_id.clone(), *emote)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_cast_is_ten_seconds_of_ticks() {
    assert_eq!(HOME_CAST_TICKS, 17, "10 s at 600 ms a tick");
    assert_eq!(HOME_COOLDOWN_TICKS, 3_000, "30 minutes at 600 ms a tick");
}

#[test]
fn home_teleport_lands_on_the_spawn_after_its_cast_then_waits_its_cooldown() {
    let mut w = world(&[], 61);
    w.tick(vec![Fighter::new("ada", t(12, 14)).join()]);
    let spawn = w.spawn_tile();
    assert_ne!(w.player_tile("ada"), Some(spawn));
    let events = w.tick(vec![home("ada")]);
    assert_eq!(
        notices(&events, "ada"),
        vec![(HomeTeleportStatus::Casting, 0)]
    );
    for n in 1..HOME_CAST_TICKS {
        let events = w.tick(vec![]);
        assert!(notices(&events, "ada").is_empty(), "tick {n} of the cast");
        assert_eq!(w.player_tile("ada"), Some(t(12, 14)), "still casting");
    }
    let events = w.tick(vec![]);
    assert_eq!(
        notices(&events, "ada"),
        vec![(HomeTeleportStatus::Arrived, HOME_COOLDOWN_TICKS)]
    );
    assert_eq!(
        w.player_tile("ada"),
        Some(spawn),
        "at the home town's spawn"
    );
    // Again at once: refused with the time left.
    let events = w.tick(vec![home("ada")]);
    let waits: Vec<(&str, u64)> = events
        .iter()
        .filter_map(|e| match e {
            Event::RejectedWait {
                to,
                code,
                remaining_seconds,
                reference,
                ..
            } if to == "ada" => {
                assert_eq!(*reference, Some(1));
                Some((*code, *remaining_seconds))
            }
            _ => None,
        })
        .collect();
    assert_eq!(waits.len(), 1);
    assert_eq!(waits[0].0, "cooldown");
    assert!(
        (1_790..=1_800).contains(&waits[0].1),
        "about 30 minutes left: {}",
        waits[0].1
    );
    assert!(notices(&events, "ada").is_empty());
    let left = w.home_teleport_cooldown_ticks("ada").expect("online");
    assert!(left > HOME_COOLDOWN_TICKS - 5 && left < HOME_COOLDOWN_TICKS);
    // Once the cooldown has run out it may be cast again.
    for _ in 0..left {
        w.tick(vec![]);
    }
    assert_eq!(w.home_teleport_cooldown_ticks("ada"), Some(0));
    let events = w.tick(vec![home("ada")]);
    assert_eq!(
        notices(&events, "ada"),
        vec![(HomeTeleportStatus::Casting, 0)]
    );
}

#[test]
fn a_cooldown_kept_with_the_character_is_honoured_at_entry() {
    let mut w = world(&[], 62);
    w.tick(vec![Command::Join(Box::new(Joining {
        home_teleport_cooldown_ticks: 100,
        ..Joining::new("ada", "Ada", t(12, 14))
    }))]);
    let events = w.tick(vec![home("ada")]);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::RejectedWait { to, code: "cooldown", remaining_seconds, .. }
            if to == "ada" && (58..=60).contains(remaining_seconds)
    )));
    assert!(notices(&events, "ada").is_empty());
}

#[test]
fn home_teleport_is_refused_in_combat() {
    let mut w = world(&[mob("dummy", 10, 10)], 63);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![Fighter::new("ada", t(10, 11)).join()]);
    w.tick(vec![attack("ada", &dummy)]);
    tick_until(&mut w, 20, |_, e| {
        hits(e).iter().any(|h| h.attacker_id == "ada")
    });
    let events = w.tick(vec![home("ada")]);
    assert_eq!(rejections(&events, "ada"), vec!["in_combat"]);
    assert!(notices(&events, "ada").is_empty());
}

#[test]
fn a_step_interrupts_the_cast() {
    let mut w = world(&[], 64);
    w.tick(vec![Fighter::new("ada", t(12, 14)).join()]);
    w.tick(vec![home("ada")]);
    let events = w.tick(vec![walk("ada", t(15, 14))]);
    assert_eq!(
        notices(&events, "ada"),
        vec![(HomeTeleportStatus::Interrupted, 0)]
    );
    let events = tick_until(&mut w, HOME_CAST_TICKS as usize + 2, |_, _| false);
    assert!(notices(&events, "ada").is_empty(), "nothing lands");
    assert_eq!(w.player_tile("ada"), Some(t(15, 14)));
    assert_eq!(
        w.home_teleport_cooldown_ticks("ada"),
        Some(0),
        "an interrupted cast costs no cooldown"
    );
}

#[test]
fn a_blow_interrupts_the_cast() {
    // In the PvP arena, cy attacks ada while she casts.
    let mut w = world(&[], 65);
    w.tick(vec![
        Fighter::new("ada", t(ARENA_X + 2, 5)).join(),
        Fighter::hero("cy", t(ARENA_X + 3, 5)).join(),
    ]);
    w.tick(vec![home("ada")]);
    let mut events = w.tick(vec![attack("cy", "ada")]);
    events.extend(tick_until(&mut w, 10, |_, e| {
        e.iter().any(|e| matches!(e, Event::HomeTeleport { .. }))
    }));
    assert_eq!(
        notices(&events, "ada"),
        vec![(HomeTeleportStatus::Interrupted, 0)]
    );
    assert!(hits(&events).iter().any(|h| h.target_id == "ada"));
    assert_ne!(w.player_tile("ada"), Some(w.spawn_tile()));
}

#[test]
fn stop_interrupts_the_cast() {
    let mut w = world(&[], 66);
    w.tick(vec![Fighter::new("ada", t(12, 14)).join()]);
    w.tick(vec![home("ada")]);
    let events = w.tick(vec![act("ada", Action::Stop)]);
    assert_eq!(
        notices(&events, "ada"),
        vec![(HomeTeleportStatus::Interrupted, 0)]
    );
}

#[test]
fn an_emote_reaches_the_players_in_view_and_no_one_else() {
    let mut w = world(&[], 67);
    w.tick(vec![
        Fighter::new("ada", t(2, 2)).join(),
        Fighter::new("bo", t(20, 12)).join(),
        Fighter::new("far", t(50, 2)).join(),
    ]);
    let events = w.tick(vec![emote("ada", "wave")]);
    let seen = emotes_seen(&events);
    assert_eq!(seen.len(), 1);
    let (to, who, what) = &seen[0];
    assert_eq!((who.as_str(), *what), ("ada", "wave"));
    assert!(to.contains(&"bo".to_owned()), "the watcher in view sees it");
    assert!(to.contains(&"ada".to_owned()), "and the emoter");
    assert!(
        !to.contains(&"far".to_owned()),
        "48 tiles away: out of view"
    );
}

#[test]
fn emotes_are_refused_unknown_too_fast_or_in_combat() {
    let mut w = world(&[mob("dummy", 10, 10)], 68);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![Fighter::new("ada", t(10, 11)).join()]);
    let events = w.tick(vec![emote("ada", "moonwalk")]);
    assert_eq!(rejections(&events, "ada"), vec!["unknown_emote"]);
    assert!(emotes_seen(&events).is_empty());
    let events = w.tick(vec![emote("ada", "dance"), emote("ada", "cheer")]);
    assert_eq!(rejections(&events, "ada"), vec!["rate_limited"]);
    assert_eq!(emotes_seen(&events).len(), 1);
    for _ in 0..EMOTE_GAP_TICKS {
        w.tick(vec![]);
    }
    let events = w.tick(vec![emote("ada", "cheer")]);
    assert_eq!(emotes_seen(&events).len(), 1, "after the gap");
    w.tick(vec![attack("ada", &dummy)]);
    tick_until(&mut w, 20, |_, e| {
        hits(e).iter().any(|h| h.attacker_id == "ada")
    });
    let events = w.tick(vec![act("ada", Action::Stop), emote("ada", "bow")]);
    assert_eq!(rejections(&events, "ada"), vec!["in_combat"]);
}
