//! Combat against the real server: attackEntity on a mob until it dies, flee while fighting,
//! and their refusals (the agent's own and the server's).

use serde_json::json;
use wayfarer_agent::Outcome;

use crate::{code, stepped};

/// Tries before giving up on catching a fight in progress (a mob may die between two looks).
const FLEE_TRIES: usize = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attack_defeats_a_mob_and_flee_breaks_off_a_fight() {
    let server = stepped().await;
    // The fighter: a sword, armour, food, melee skills at 10.
    let agent = server.idle_admin("Brawler", Some("fighter")).await;
    // Refusals before any fight, in town: nobody to attack, nothing to flee from.
    let marta = agent
        .nearest_id("npcs", |e| e["typeId"] == "old_marta")
        .await;
    let tree = agent
        .nearest_id("resources", |e| e["resourceType"] == "tree")
        .await;
    let refused = [
        (
            "attackEntity",
            json!({"targetId": "npc-999999"}),
            "not_found",
        ),
        ("attackEntity", json!({"targetId": tree}), "invalid_target"),
        ("flee", json!({}), "cannot_do"),
    ];
    agent.refused_by_agent(refused).await;
    // A townsperson (a quest giver) is no combat target: the agent knows it from the areas and
    // refuses before the server would.
    let peaceful = agent
        .command("attackEntity", json!({"targetId": marta}))
        .await;
    assert_eq!(
        code(&peaceful),
        ("agent", "invalid_target".to_owned()),
        "{peaceful}"
    );
    // The chickens east of town: one attacked until it dies.
    agent.teleport(52, 20).await;
    let chicken = agent
        .nearest_id("npcs", |e| {
            e["typeId"] == "chicken" && e["health"].as_i64().unwrap_or(0) > 0
        })
        .await;
    let (fought, _) = agent
        .command_through_reflexes("attackEntity", json!({"targetId": chicken}))
        .await;
    assert!(fought.is_success(), "{fought}");
    // Goblins take several hits (10 hitpoints; a giant rat's 6 went in two, and under a loaded
    // CI machine the rat died before the flee six times running): attack one, and flee once the
    // fight is seen.
    agent.teleport(100, 3).await;
    let mut fled = None;
    for _ in 0..FLEE_TRIES {
        let goblin = agent
            .nearest_id("npcs", |e| {
                e["typeId"] == "goblin" && e["health"].as_i64().unwrap_or(0) > 0
            })
            .await;
        agent
            .send("attackEntity", json!({"targetId": goblin}))
            .await;
        let fighting = agent
            .poll_state(750, |s| (s["gameState"]["inCombat"] == true).then_some(()))
            .await;
        if fighting.is_none() {
            continue;
        }
        let outcome = agent.command("flee", json!({})).await;
        match &outcome {
            // The goblin died between the look and the command (seen by the agent or the server).
            Outcome::Rejected { code, .. } if code == "cannot_do" => continue,
            _ => {
                fled = Some(outcome);
                break;
            }
        }
    }
    let fled = fled.expect("a fight to flee from");
    assert!(fled.is_success(), "{fled}");
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cast_spell_strikes_a_chicken_with_runes_and_is_refused_without_them() {
    let server = stepped().await;
    let agent = server.idle_admin("Conjurer", None).await;
    agent.teleport(52, 20).await;
    let chicken = agent
        .nearest_id("npcs", |e| {
            e["typeId"] == "chicken" && e["health"].as_i64().unwrap_or(0) > 0
        })
        .await;
    // The agent's own checks, by the server's codes: no such spell, too low a level, no runes.
    agent
        .refused_by_agent([
            (
                "castSpell",
                json!({"spellId": "ice_barrage", "targetId": chicken}),
                "unknown_spell",
            ),
            (
                "castSpell",
                json!({"spellId": "fire_bolt", "targetId": chicken}),
                "level_too_low",
            ),
            (
                "castSpell",
                json!({"spellId": "wind_strike", "targetId": chicken}),
                "missing_runes",
            ),
        ])
        .await;
    agent.give("air_rune", 5).await;
    agent.give("mind_rune", 5).await;
    let cast = agent
        .command(
            "castSpell",
            json!({"spellId": "wind_strike", "targetId": chicken}),
        )
        .await;
    assert!(cast.is_success(), "{cast}");
    // One cast's runes gone, and its Magic XP (5.5 at least) arrived.
    agent
        .wait_for(500, "the runes and XP of one cast", |s| {
            crate::holds(s, "air_rune") == 4
                && crate::holds(s, "mind_rune") == 4
                && s.state["skills"]["skills"]["magic"]["xp"].as_f64() >= Some(5.0)
        })
        .await;
}
