//! Skill actions against the real server: gathering (mineRock, catchFish), firemaking
//! (lightFire, useItem tinderbox on logs), cooking, smelting and smithing (each a `make` of the
//! recipe the agent chose) and makeItem; each one's success, the agent's own refusals and the
//! server's, matched by `ref`.

use serde_json::{json, Value};

use crate::{code, goal, holds, slot_of, stepped};

/// A resource in view whose content type is `type_id`.
fn of_type(type_id: &'static str) -> impl Fn(&Value) -> bool {
    move |e: &Value| e["typeId"] == type_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gathering_actions_succeed_and_are_refused() {
    // A copper rock is back 5 ticks after it is mined: the agent reads every tick, so it sees the
    // rock depleted.
    let server = stepped().await;
    // The skiller starts with a pickaxe and a net, Mining 5 and Fishing 10.
    let agent = server.idle_admin("Gatherer", Some("skiller")).await;
    // By the rocks north-west of the spawn.
    agent.teleport(-14, -25).await;
    let copper = agent.nearest_id("resources", of_type("rock_copper")).await;
    let iron = agent.nearest_id("resources", of_type("rock_iron")).await;
    let refused = [
        // Iron needs Mining 15: the agent knows the node's level from the content.
        ("mineRock", json!({"targetId": iron}), "level_too_low"),
        // A rock is no fishing spot.
        ("catchFish", json!({"targetId": copper}), "invalid_target"),
        ("mineRock", json!({"targetId": "res-999999"}), "not_found"),
    ];
    agent.refused_by_agent(refused).await;
    // Mining copper: a chance per swing, so a stalled try is tried again.
    let mined = agent
        .command_until_success("mineRock", json!({"targetId": copper}), 4)
        .await;
    assert!(mined.is_success(), "{mined}");
    assert!(holds(&agent.status(), "copper_ore") >= 1);
    // Fishing at the net spots by the pier, with two free slots left: it ends when full.
    agent.teleport(24, 16).await;
    let free = agent.status().state["inventory"]["freeSlots"]
        .as_i64()
        .unwrap_or(0);
    agent.give("logs", free - 2).await;
    // A spot that moves on ends a try early too: fish until the bag is full.
    for _ in 0..6 {
        if agent.status().state["inventory"]["freeSlots"] == 0 {
            break;
        }
        let fished = agent.command_until_success("catchFish", json!({}), 4).await;
        assert!(fished.is_success(), "{fished}");
    }
    let status = agent.status();
    assert!(holds(&status, "raw_shrimp") >= 1, "{:#}", status.state);
    assert_eq!(status.state["inventory"]["freeSlots"], 0);
    // Full now: a full inventory is refused before sending.
    let full = agent.command("catchFish", json!({})).await;
    assert_eq!(
        code(&full),
        ("agent", "inventory_full".to_owned()),
        "{full}"
    );
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processing_actions_succeed_and_are_refused() {
    let server = stepped().await;
    let agent = server.idle_admin("Cook", Some("skiller")).await;
    // Nothing to process yet: refused by the agent's own checks.
    let refused = [
        ("cookFood", json!({}), "not_available"),
        ("smeltOre", json!({}), "not_available"),
        ("smithBar", json!({}), "not_available"),
        ("lightFire", json!({}), "not_available"),
        ("useItem", json!({}), "invalid_params"),
        ("useItem", json!({"slot": 27}), "invalid_slot"),
        (
            "useItem",
            json!({"itemId": "dragon_bones"}),
            "not_available",
        ),
        // makeItem: a recipe no content has, a quantity out of bounds, nothing to make it of.
        (
            "makeItem",
            json!({"recipeId": "smithing:gold_cake"}),
            "unknown_recipe",
        ),
        (
            "makeItem",
            json!({"recipeId": "cooking:shrimp", "quantity": 0}),
            "invalid_params",
        ),
        (
            "makeItem",
            json!({"recipeId": "cooking:shrimp"}),
            "missing_items",
        ),
    ];
    agent.refused_by_agent(refused).await;
    // Firemaking: lightFire, then a tinderbox used on logs (useItem with targetSlot).
    agent.give("logs", 2).await;
    let lit = agent.command("lightFire", json!({})).await;
    assert!(lit.is_success(), "{lit}");
    let status = agent
        .wait_for(500, "one log burnt", |s| holds(s, "logs") == 1)
        .await;
    let (tinderbox, logs) = (
        slot_of(&status, "tinderbox").expect("a tinderbox"),
        slot_of(&status, "logs").expect("logs"),
    );
    // Fires go where the player stands: step off the first one.
    agent.command("moveTo", json!({"x": 3, "z": 3})).await;
    let used = agent
        .command("useItem", json!({"slot": tinderbox, "targetSlot": logs}))
        .await;
    assert!(used.is_success(), "{used}");
    agent
        .wait_for(500, "the other log burnt", |s| holds(s, "logs") == 0)
        .await;
    // Two items with no recipe together: the server says nothing interesting happens.
    let status = agent.status();
    let bread = slot_of(&status, "bread").expect("bread");
    let pickaxe = slot_of(&status, "bronze_pickaxe").expect("a pickaxe");
    let nothing = agent
        .command("useItem", json!({"slot": bread, "targetSlot": pickaxe}))
        .await;
    assert_eq!(
        code(&nothing),
        ("server", "cannot_do".to_owned()),
        "{nothing}"
    );
    // Bread is no firewood: no firemaking recipe takes it, so the agent refuses it unsent.
    let bread_fire = agent.command("lightFire", json!({"slot": bread})).await;
    assert_eq!(
        code(&bread_fire),
        ("agent", "cannot_do".to_owned()),
        "{bread_fire}"
    );
    // Without a tinderbox, lightFire is refused before sending.
    agent.give("logs", 1).await;
    let banked = agent
        .command("bankDeposit", json!({"itemId": "tinderbox"}))
        .await;
    assert!(banked.is_success(), "{banked}");
    let no_tinderbox = agent.command("lightFire", json!({})).await;
    assert_eq!(
        code(&no_tinderbox),
        ("agent", "cannot_do".to_owned()),
        "{no_tinderbox}"
    );
    // Cooking on the range in town.
    agent.give("raw_shrimp", 2).await;
    agent.teleport(6, -11).await;
    let cooked = agent.command("cookFood", json!({})).await;
    assert!(cooked.is_success(), "{cooked}");
    let status = agent
        .wait_for(1000, "both shrimp cooked", |s| holds(s, "raw_shrimp") == 0)
        .await;
    // Cooking 5 burns some: each raw shrimp became one shrimp or one burnt fish.
    assert_eq!(
        holds(&status, "shrimp") + holds(&status, "burnt_fish"),
        2,
        "{:#}",
        status.state
    );
    // Smelting and smithing at the furnace and anvil.
    agent.teleport(-14, -17).await;
    let furnace = agent
        .nearest_id("resources", |e| e["resourceType"] == "furnace")
        .await;
    // Raw food on a furnace cooks nothing: no cooking recipe is made there, refused unsent.
    agent.give("raw_shrimp", 1).await;
    let wrong = agent
        .command(
            "cookFood",
            json!({"itemId": "raw_shrimp", "targetId": furnace}),
        )
        .await;
    assert_eq!(
        code(&wrong),
        ("agent", "invalid_target".to_owned()),
        "{wrong}"
    );
    agent.give("copper_ore", 1).await;
    agent.give("tin_ore", 1).await;
    let smelted = agent
        .command("smeltOre", json!({"itemId": "copper_ore"}))
        .await;
    assert!(smelted.is_success(), "{smelted}");
    let status = agent
        .wait_for(1000, "a bronze bar", |s| holds(s, "bronze_bar") == 1)
        .await;
    assert_eq!(holds(&status, "copper_ore"), 0);
    assert_eq!(holds(&status, "tin_ore"), 0);
    // Logs smelt into nothing: no smelting recipe takes them.
    agent.give("logs", 1).await;
    let no_recipe = agent
        .command("smeltOre", json!({"itemId": "logs", "targetId": furnace}))
        .await;
    assert_eq!(
        code(&no_recipe),
        ("agent", "cannot_do".to_owned()),
        "{no_recipe}"
    );
    // makeItem with a quantity makes exactly that many: one bar of two sets of ore.
    agent.give("copper_ore", 2).await;
    agent.give("tin_ore", 2).await;
    let one = agent
        .command(
            "makeItem",
            json!({"recipeId": "smithing:bronze_bar", "quantity": 1, "targetId": furnace}),
        )
        .await;
    assert!(one.is_success(), "{one}");
    let status = agent
        .wait_for(1000, "a second bronze bar", |s| holds(s, "bronze_bar") == 2)
        .await;
    assert_eq!(holds(&status, "copper_ore"), 1, "{:#}", status.state);
    assert_eq!(holds(&status, "tin_ore"), 1, "{:#}", status.state);
    // Without a hammer the anvil's recipes are refused unsent, as the server would.
    let no_hammer = agent.command("smithBar", json!({})).await;
    assert_eq!(
        code(&no_hammer),
        ("agent", "missing_tool".to_owned()),
        "{no_hammer}"
    );
    agent.give("hammer", 1).await;
    // Smithing 1 and two bars: the best recipe it can make is the dagger, made until the bars run
    // out.
    let smithed = agent.command("smithBar", json!({})).await;
    assert!(smithed.is_success(), "{smithed}");
    let status = agent.status();
    assert_eq!(holds(&status, "bronze_bar"), 0, "{:#}", status.state);
    assert_eq!(holds(&status, "bronze_dagger"), 2, "{:#}", status.state);
    agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_smiths_all_of_the_best_recipe_its_level_allows_at_the_anvil() {
    let server = stepped().await;
    let agent = server.idle_admin("Smith", Some("skiller")).await;
    // By the furnace and anvil, with a hammer and three bars; Smithing 1 makes daggers first
    // (three give 37.5 XP, short of level 2: the choice cannot change on the way).
    agent.teleport(-14, -17).await;
    agent.give("hammer", 1).await;
    agent.give("bronze_bar", 3).await;
    agent
        .set_goal(goal(
            json!({"kind": "skill", "target": {"skill": "smithing", "level": 5}}),
        ))
        .await
        .expect("the goal is taken");
    let status = agent
        .wait_for(1500, "three bronze daggers", |s| {
            holds(s, "bronze_dagger") == 3
        })
        .await;
    assert_eq!(holds(&status, "bronze_bar"), 0, "{:#}", status.state);
    let made: Vec<Value> = status
        .recent_decisions
        .iter()
        .filter(|d| d.action == "makeItem")
        .map(|d| serde_json::from_str(d.params.get()).expect("params are JSON"))
        .collect();
    assert!(
        !made.is_empty()
            && made
                .iter()
                .all(|p| *p == json!({"recipeId": "smithing:bronze_dagger", "quantity": "all"})),
        "{made:?}"
    );
    agent.handle.shutdown().await;
    server.stop().await;
}
