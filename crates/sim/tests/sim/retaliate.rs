//! Auto-retaliate: an idle player attacked by an NPC or a player turns on the attacker when the
//! setting is on (the default), never when it is off, and keeps to what they are doing when that
//! is a fight or another deliberate action (following); the setting is reported with the stats.

use wayfarer_content::Skill;
use wayfarer_protocol::ws::CombatHit;
use wayfarer_sim::{Action, Event, World};

use crate::arena::{act, attack, hits, mob, npc_of, tick_until, world, Fighter, ARENA_X};
use crate::{idle, t};

/// A hero (every combat skill at 99) at `(x, z)`.
fn hero(id: &str, x: i32, z: i32) -> Fighter {
    Fighter::hero(id, t(x, z))
}

fn by<'a>(hits: &'a [CombatHit], attacker: &'a str) -> impl Iterator<Item = &'a CombatHit> {
    hits.iter().filter(move |h| h.attacker_id == attacker)
}

/// Ticks until `attacker` has swung at `target` (or `limit` ticks), returning every hit.
fn until_hit(w: &mut World, attacker: &str, target: &str, limit: usize) -> Vec<CombatHit> {
    hits(&tick_until(w, limit, |_, e| {
        by(&hits(e), attacker).any(|h| h.target_id == target)
    }))
}

#[test]
fn an_idle_player_attacked_by_a_mob_hits_back() {
    // The brute (aggressive within 3 tiles, max hit 1) comes for a level-3 player.
    let mut w = world(&[mob("brute", 10, 10)], 51);
    let brute = npc_of(&w, "brute").expect("brute");
    w.tick(vec![Fighter::new("ada", t(10, 12)).join()]);
    assert_eq!(w.player_auto_retaliate("ada"), Some(true), "on by default");
    let seen = until_hit(&mut w, "ada", &brute, 60);
    assert!(
        by(&seen, &brute).any(|h| h.target_id == "ada"),
        "attacked first"
    );
    assert!(
        by(&seen, "ada").any(|h| h.target_id == brute),
        "and answered"
    );
    assert!(w.player_is_busy("ada"), "fighting on");
}

#[test]
fn an_idle_player_attacked_by_a_player_in_pvp_hits_back() {
    let mut w = world(&[], 52);
    w.tick(vec![
        Fighter::new("ada", t(ARENA_X + 2, 5)).join(),
        Fighter::new("cy", t(ARENA_X + 3, 5))
            .level(Skill::Constitution, 40)
            .join(),
    ]);
    w.tick(vec![attack("cy", "ada")]);
    let seen = until_hit(&mut w, "ada", "cy", 30);
    assert!(by(&seen, "ada").any(|h| h.target_id == "cy"));
}

#[test]
fn with_auto_retaliate_off_the_player_only_takes_the_hits() {
    let mut w = world(&[mob("brute", 10, 10)], 53);
    let brute = npc_of(&w, "brute").expect("brute");
    let events = w.tick(vec![
        Fighter::new("ada", t(10, 16)).join(),
        act("ada", Action::AutoRetaliate(false)),
    ]);
    assert_eq!(w.player_auto_retaliate("ada"), Some(false));
    // Reported with the stats, so the record keeps it.
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Stats { id, stats } if id == "ada" && !stats.auto_retaliate
    )));
    w.tick(vec![crate::walk("ada", t(10, 12))]);
    let seen = hits(&idle(&mut w, 40));
    assert!(by(&seen, &brute).any(|h| h.target_id == "ada"), "attacked");
    assert_eq!(by(&seen, "ada").count(), 0, "never answered");
    assert!(!w.player_is_busy("ada"));

    // Switched back on, the next hit is answered.
    w.tick(vec![act("ada", Action::AutoRetaliate(true))]);
    let seen = until_hit(&mut w, "ada", &brute, 30);
    assert!(by(&seen, "ada").any(|h| h.target_id == brute));
}

#[test]
fn a_player_already_fighting_keeps_their_target() {
    // Ada fights the dummy (it never hits back) while the brute comes for her.
    let mut w = world(&[mob("dummy", 9, 12), mob("brute", 10, 10)], 54);
    let (dummy, brute) = (npc_of(&w, "dummy").unwrap(), npc_of(&w, "brute").unwrap());
    w.tick(vec![
        Fighter::new("ada", t(10, 12))
            .level(Skill::Constitution, 60)
            .join(),
        attack("ada", &dummy),
    ]);
    let events = tick_until(&mut w, 60, |_, e| {
        by(&hits(e), &brute).any(|h| h.target_id == "ada")
    });
    let mut seen = hits(&events);
    seen.extend(hits(&idle(&mut w, 20)));
    assert!(by(&seen, &brute).any(|h| h.target_id == "ada"), "attacked");
    assert!(by(&seen, "ada").count() > 0);
    assert!(
        by(&seen, "ada").all(|h| h.target_id == dummy),
        "only the dummy: {seen:?}"
    );
}

#[test]
fn a_player_following_someone_keeps_following() {
    // Bob (combat 126) is left alone by the brute; Ada follows him and is attacked.
    let mut w = world(&[mob("brute", 10, 10)], 55);
    let brute = npc_of(&w, "brute").expect("brute");
    w.tick(vec![
        hero("bob", 10, 12).join(),
        Fighter::new("ada", t(10, 16))
            .level(Skill::Constitution, 60)
            .join(),
    ]);
    w.tick(vec![act(
        "ada",
        Action::Follow {
            target: "bob".into(),
        },
    )]);
    let events = tick_until(&mut w, 60, |_, e| {
        by(&hits(e), &brute).any(|h| h.target_id == "ada")
    });
    let mut seen = hits(&events);
    seen.extend(hits(&idle(&mut w, 20)));
    assert!(by(&seen, &brute).any(|h| h.target_id == "ada"), "attacked");
    assert_eq!(by(&seen, "ada").count(), 0, "still following: {seen:?}");
}
