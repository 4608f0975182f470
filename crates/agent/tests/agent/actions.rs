//! Actions against the real server: success, the agent's own refusals, and the server's.

use serde_json::json;
use wayfarer_agent::Outcome;

use crate::{code, holds, position, stepped};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_and_pickup_cross_more_than_200_tiles_in_legs() {
    let server = stepped().await;
    let agent = server.idle_admin("Strider", None).await;
    // moveTo refuses what one move cannot reach; navigateTo walks it in legs.
    agent.teleport(-130, 0).await;
    let far = agent.command("moveTo", json!({"x": 130, "z": 0})).await;
    assert_eq!(code(&far), ("agent", "move_too_far".to_owned()));
    // Drop something here, walk 260 tiles east, then pick it up from there.
    agent.give("logs", 1).await;
    let dropped = agent.command("dropItem", json!({"itemId": "logs"})).await;
    assert!(dropped.is_success(), "{dropped}");
    // The walk crosses areas with aggressive mobs: a reflex may preempt it (then it is sent again).
    let (walked, sent) = agent
        .command_through_reflexes("navigateTo", json!({"x": 130, "z": 0, "run": true}))
        .await;
    assert!(walked.is_success(), "{walked}");
    let Outcome::Accepted { detail } = &walked else {
        unreachable!()
    };
    // Sent once, the 260 tiles are 2 or 3 legs; resent after a reflex, the rest may be one.
    let legs_ok = if sent == 1 {
        detail.contains("2 leg") || detail.contains("3 leg")
    } else {
        detail.contains(" leg")
    };
    assert!(legs_ok, "{detail} (sent {sent} times)");
    assert_eq!(position(&agent.status()), (130, 0));
    let (picked, _) = agent
        .command_through_reflexes("pickupItem", json!({"itemId": "logs"}))
        .await;
    assert!(picked.is_success(), "{picked}");
    let status = agent.status();
    assert_eq!(holds(&status, "logs"), 1);
    assert!(
        position(&status).0 < -100,
        "it walked back west: {:?}",
        position(&status)
    );
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_item_drops_one_stack_one_type_or_everything() {
    let server = stepped().await;
    let agent = server.idle_admin("Dropper", None).await;
    agent.give("logs", 4).await;
    agent.give("bones", 2).await;
    let by_type = agent.command("dropItem", json!({"itemId": "logs"})).await;
    assert!(by_type.is_success(), "{by_type}");
    assert_eq!(
        by_type,
        Outcome::Accepted {
            detail: "dropped 4".into()
        }
    );
    let status = agent.status();
    assert_eq!(holds(&status, "logs"), 0);
    assert_eq!(holds(&status, "bones"), 2);
    let one = agent
        .command("dropItem", json!({"itemId": "bones", "slot": null}))
        .await;
    assert!(one.is_success(), "{one}");
    let all = agent.command("dropItem", json!({"all": true})).await;
    assert!(all.is_success(), "{all}");
    let empty = agent
        .wait_for(250, "an empty inventory", |s| {
            s.state["inventory"]["items"]
                .as_array()
                .is_some_and(|i| i.is_empty())
        })
        .await;
    assert_eq!(empty.state["inventory"]["freeSlots"], 28);
    let nothing = agent.command("dropItem", json!({"all": true})).await;
    assert_eq!(code(&nothing), ("agent", "not_available".to_owned()));
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_succeed_and_are_refused_with_reason_codes() {
    let server = stepped().await;
    let agent = server.idle_agent("Tester", None).await;
    let entered = agent.status();
    // Refused by the agent's own check, before sending.
    let cases = [
        ("chopTree", json!({"targetId": "res-999999"}), "not_found"),
        ("attackEntity", json!({}), "invalid_params"),
        (
            "changeCombatStyle",
            json!({"style": "sideways"}),
            "invalid_params",
        ),
        ("flee", json!({}), "cannot_do"),
        (
            "bankWithdraw",
            json!({"itemId": "logs", "quantity": 0}),
            "invalid_params",
        ),
        ("chatMessage", json!({"text": "   "}), "invalid_text"),
        ("buyItem", json!({"itemId": "logs"}), "not_near_shop"),
        ("respondDialogue", json!({"index": 0}), "invalid_dialogue"),
        ("acceptTrade", json!({}), "invalid_trade"),
        ("setGoal", json!({"kind": "fly"}), "invalid_params"),
        ("unequipItem", json!({"slot": "cape"}), "invalid_slot"),
    ];
    for (action, params, expected) in cases {
        let outcome = agent.command(action, params.clone()).await;
        assert_eq!(
            code(&outcome),
            ("agent", expected.to_owned()),
            "{action} {params}: {outcome}"
        );
    }
    // Accepted.
    for (action, params) in [
        ("chatMessage", json!({"text": "hello from an agent"})),
        ("changeCombatStyle", json!({"style": "defensive"})),
        ("stopMovement", json!({})),
        ("moveTo", json!({"x": 3, "z": 2})),
        ("idle", json!({"ticks": 2})),
        (
            "setGoal",
            json!({"kind": "idle", "description": "stay put for the test"}),
        ),
        ("listQuests", json!({})),
    ] {
        let outcome = agent.command(action, params.clone()).await;
        assert!(outcome.is_success(), "{action} {params}: {outcome}");
    }
    // Refused by the server, matched by ref: a prayer that does not exist.
    let outcome = agent
        .command(
            "togglePrayer",
            json!({"prayerId": "no_such_prayer", "active": true}),
        )
        .await;
    assert_eq!(
        code(&outcome),
        ("server", "unknown_prayer".to_owned()),
        "{outcome}"
    );
    // Equip and eat from the starter kit.
    let sword = entered.state["inventory"]["items"]
        .as_array()
        .and_then(|i| i.iter().find(|s| s["itemId"] == "bronze_sword"))
        .map(|s| s["slot"].clone());
    if let Some(slot) = sword {
        let outcome = agent.command("equipItem", json!({"slot": slot})).await;
        assert!(outcome.is_success(), "{outcome}");
        let outcome = agent
            .command("unequipItem", json!({"slot": "weapon"}))
            .await;
        assert!(outcome.is_success(), "{outcome}");
    }
    // The bank: walked to and used.
    let outcome = agent
        .command("bankDeposit", json!({"itemId": "bread"}))
        .await;
    assert!(outcome.is_success(), "{outcome}");
    let outcome = agent
        .command("bankWithdraw", json!({"itemId": "bread", "quantity": 1}))
        .await;
    assert!(outcome.is_success(), "{outcome}");
    let outcome = agent.command("eatFood", json!({})).await;
    assert!(outcome.is_success(), "{outcome}");
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stamina_drains_running_and_comes_back_resting() {
    let server = stepped().await;
    let agent = server.idle_agent("Runner", None).await;
    let start = agent.status();
    assert_eq!(start.state["gameState"]["stamina"], 100);
    agent
        .command("moveTo", json!({"x": 35, "z": 35, "run": true}))
        .await;
    let tired = agent.status().state["gameState"]["stamina"]
        .as_u64()
        .unwrap_or(100);
    assert!(tired < 100, "running drained energy: {tired}");
    agent
        .wait_for(1500, "energy coming back", move |s| {
            s.state["gameState"]["stamina"].as_u64().unwrap_or(0) > tired
        })
        .await;
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pickup_in_range_succeeds_and_is_refused_with_reason_codes() {
    // A drop is its dropper's for 100 ticks: the other player asks for it a few ticks after the
    // drop, and is refused by the server.
    let server = stepped().await;
    let (owner, other) = tokio::join!(
        server.idle_admin("Keeper", None),
        server.idle_agent("Grabber", None)
    );
    owner.give("logs", 2).await;
    let dropped = owner.command("dropItem", json!({"itemId": "logs"})).await;
    assert!(dropped.is_success(), "{dropped}");
    // Someone else's drop, still private: the server refuses it, matched by ref.
    let theirs = other
        .nearest_id("groundItems", |e| e["itemId"] == "logs")
        .await;
    let refused = other
        .command("pickupItem", json!({"targetId": theirs}))
        .await;
    assert_eq!(
        code(&refused),
        ("server", "cannot_do".to_owned()),
        "{refused}"
    );
    // The owner picks one up, within reach (no walk of its own first).
    let picked = owner.command("pickupItem", json!({"itemId": "logs"})).await;
    assert!(picked.is_success(), "{picked}");
    assert_eq!(holds(&owner.status(), "logs"), 1);
    let tree = owner
        .nearest_id("resources", |e| e["resourceType"] == "tree")
        .await;
    for (params, expected) in [
        (json!({}), "invalid_params"),
        (json!({"itemId": "dragon_bones"}), "not_found"),
        (json!({"targetId": tree}), "not_found"),
    ] {
        let outcome = owner.command("pickupItem", params.clone()).await;
        assert_eq!(
            code(&outcome),
            ("agent", expected.to_owned()),
            "{params}: {outcome}"
        );
    }
    // With no free slot, refused before sending.
    let free = owner.status().state["inventory"]["freeSlots"]
        .as_i64()
        .unwrap_or(0);
    owner.give("bones", free).await;
    owner
        .wait_for(500, "a full inventory", |s| {
            s.state["inventory"]["freeSlots"] == 0
        })
        .await;
    let full = owner.command("pickupItem", json!({"itemId": "logs"})).await;
    assert_eq!(
        code(&full),
        ("agent", "inventory_full".to_owned()),
        "{full}"
    );
    owner.handle.shutdown().await;
    other.handle.shutdown().await;
    server.stop().await;
}

/// The cap counts stacks dropped (one `drop` message each): a full bag of 28 goes in one command,
/// under the 50 (the cap itself, reached only when the bag refills during a run, is the unit test
/// `procedure::a_drop_run_stops_at_50_items_even_when_the_inventory_refills`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_inventory_is_dropped_in_one_command_under_the_cap() {
    let server = stepped().await;
    let agent = server.idle_admin("Emptier", None).await;
    let free = agent.status().state["inventory"]["freeSlots"]
        .as_i64()
        .unwrap_or(0);
    agent.give("logs", free).await;
    agent
        .wait_for(500, "a full inventory", |s| {
            s.state["inventory"]["freeSlots"] == 0
        })
        .await;
    let all = agent.command("dropItem", json!({"all": true})).await;
    assert_eq!(
        all,
        Outcome::Accepted {
            detail: "dropped 28".into()
        }
    );
    assert_eq!(agent.status().state["inventory"]["freeSlots"], 28);
    agent.handle.shutdown().await;
    server.stop().await;
}
