//! Moving with others and talking, against the real server: followEntity, approachEntity,
//! explore, an NPC's dialogue that starts a quest, the quest log, prayers and private chat;
//! each one's success and refusals (the agent's own and the server's).

use serde_json::json;

use crate::{code, holds, position, stepped};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_approach_and_explore_move_the_agent() {
    let server = stepped().await;
    let (leader, follower) = tokio::join!(
        server.idle_agent("Leader", None),
        server.idle_agent("Follower", None)
    );
    let leader_id = follower
        .nearest_id("players", |e| e["name"] == "Leader")
        .await;
    let marta = follower
        .nearest_id("npcs", |e| e["typeId"] == "old_marta")
        .await;
    let refused = [
        ("followEntity", json!({}), "invalid_params"),
        ("followEntity", json!({"targetId": marta}), "invalid_target"),
        ("followEntity", json!({"targetId": "p-nobody"}), "not_found"),
        (
            "approachEntity",
            json!({"targetId": "npc-999999"}),
            "not_found",
        ),
        ("explore", json!({"areaId": "atlantis"}), "not_found"),
    ];
    follower.refused_by_agent(refused).await;
    // Following: the follower keeps up as the leader walks off.
    let following = follower
        .command("followEntity", json!({"targetId": leader_id}))
        .await;
    assert!(following.is_success(), "{following}");
    let walked = leader.command("moveTo", json!({"x": 12, "z": 8})).await;
    assert!(walked.is_success(), "{walked}");
    follower
        .wait_for(1000, "the follower beside the leader", |s| {
            let (x, z) = position(s);
            (x - 12).abs() <= 2 && (z - 8).abs() <= 2
        })
        .await;
    // Approaching Old Marta ends next to her.
    let approached = follower
        .command("approachEntity", json!({"targetId": marta}))
        .await;
    assert!(approached.is_success(), "{approached}");
    let state = follower.inspect().await;
    let distance = state["nearbyEntities"]["npcs"]
        .as_array()
        .and_then(|npcs| npcs.iter().find(|n| n["id"] == marta.as_str()))
        .and_then(|n| n["distance"].as_u64());
    assert!(distance.is_some_and(|d| d <= 1), "{distance:?}");
    // Exploring the town walks to its middle.
    let explored = follower
        .command("explore", json!({"areaId": "millbrook"}))
        .await;
    assert!(explored.is_success(), "{explored}");
    let (x, z) = position(&follower.status());
    assert!(x.abs() <= 3 && z.abs() <= 3, "({x}, {z})");
    leader.handle.shutdown().await;
    follower.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogue_starts_a_quest_and_prayers_and_chat_answer_with_reason_codes() {
    let server = stepped().await;
    let agent = server.idle_agent("Pilgrim", None).await;
    let marta = agent
        .nearest_id("npcs", |e| e["typeId"] == "old_marta")
        .await;
    let tree = agent
        .nearest_id("resources", |e| e["resourceType"] == "tree")
        .await;
    let refused = [
        ("talkToNpc", json!({"targetId": tree}), "invalid_target"),
        ("talkToNpc", json!({"targetId": "npc-999999"}), "not_found"),
        ("respondDialogue", json!({"index": 0}), "invalid_dialogue"),
        ("closeDialogue", json!({}), "invalid_dialogue"),
        ("togglePrayer", json!({"active": true}), "invalid_params"),
    ];
    agent.refused_by_agent(refused).await;
    // "Teach me to fish." then "I'll do it.": the quest starts and Marta hands over her net.
    let nets = holds(&agent.status(), "small_fishing_net");
    let talked = agent.command("talkToNpc", json!({"targetId": marta})).await;
    assert!(talked.is_success(), "{talked}");
    let unoffered = agent.command("respondDialogue", json!({"index": 7})).await;
    assert_eq!(
        code(&unoffered),
        ("agent", "invalid_dialogue".to_owned()),
        "{unoffered}"
    );
    for step in ["the lesson", "the quest"] {
        let answered = agent.command("respondDialogue", json!({"index": 0})).await;
        assert!(answered.is_success(), "{step}: {answered}");
    }
    agent
        .wait_for(500, "Marta's net", move |s| {
            holds(s, "small_fishing_net") == nets + 1
        })
        .await;
    let listed = agent.command("listQuests", json!({})).await;
    assert!(listed.is_success(), "{listed}");
    let status = agent
        .wait_state(500, "first_catch in the log", |s| {
            s["quests"]["quests"]
                .as_array()?
                .iter()
                .find(|q| q["questId"] == "first_catch")
                .and_then(|q| q["status"].as_str().map(str::to_owned))
        })
        .await;
    assert_ne!(status, "not_started");
    // Talking again shows the quest's progress node; closing ends it.
    let again = agent.command("talkToNpc", json!({"targetId": marta})).await;
    assert!(again.is_success(), "{again}");
    let closed = agent.command("closeDialogue", json!({})).await;
    assert!(closed.is_success(), "{closed}");
    // Prayers: one the level allows, one it does not (the server's code).
    let prayed = agent
        .command(
            "togglePrayer",
            json!({"prayerId": "stone_skin", "active": true}),
        )
        .await;
    assert!(prayed.is_success(), "{prayed}");
    // Either seen active or already draining the points.
    agent
        .wait_state(500, "stone skin at work", |s| {
            let prayer = &s["prayer"]["prayer"];
            let on = prayer["active"]
                .as_array()
                .is_some_and(|a| a.iter().any(|p| p == "stone_skin"));
            let draining = matches!(
                (prayer["points"].as_u64(), prayer["maxPoints"].as_u64()),
                (Some(points), Some(max)) if points < max
            );
            (on || draining).then_some(())
        })
        .await;
    let too_high = agent
        .command(
            "togglePrayer",
            json!({"prayerId": "keen_eye", "active": true}),
        )
        .await;
    assert_eq!(
        code(&too_high),
        ("server", "prayer_level_too_low".to_owned()),
        "{too_high}"
    );
    let off = agent
        .command(
            "togglePrayer",
            json!({"prayerId": "stone_skin", "active": false}),
        )
        .await;
    assert!(off.is_success(), "{off}");
    // A private message to nobody online: the server's code, matched by ref.
    let unheard = agent
        .command("chatMessage", json!({"text": "anyone?", "to": "Nobody"}))
        .await;
    assert_eq!(
        code(&unheard),
        ("server", "player_offline".to_owned()),
        "{unheard}"
    );
    agent.handle.shutdown().await;
    server.stop().await;
}
