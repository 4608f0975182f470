//! Items over real WebSockets: equipping the starter kit, dropping an item another player sees and
//! picks up, bad actions answered with their codes, and worn items surviving a restart on SQLite
//! and PostgreSQL.

use std::time::Instant;

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage, UseRequest};

use crate::support::messages::{act, act_on, to_slot};
use crate::support::{both_databases, enter, player, AppOptions, FreshDatabase, TestApp, WAIT};

/// The slot holding `item` in an inventory list.
fn slot_of(inventory: &Value, item: &str) -> Option<u64> {
    inventory
        .as_array()?
        .iter()
        .find(|s| s["itemId"] == item)
        .and_then(|s| s["slot"].as_u64())
}

async fn equip_and_drop_survive_a_restart(db: FreshDatabase) {
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        ..Default::default()
    })
    .await;
    let (token, _id) = player(&app, "Wielder").await;
    let (mut ws, sync) = enter(&app, &token).await;
    let hatchet = slot_of(&sync["inventory"], "bronze_hatchet").expect("the starter hatchet");
    ws.send(
        ClientMessage::Action(ActionRequest::new("equip").with_slot(json!(hatchet))),
        None,
    )
    .await;
    // In one tick: the inventory, then the equipment.
    let inventory = ws.expect_type("inventory:update").await;
    assert_eq!(
        slot_of(&inventory["data"]["inventory"], "bronze_hatchet"),
        None
    );
    let equipment = ws.expect_type("equipment:update").await;
    assert_eq!(
        equipment["data"]["equipment"]["weapon"]["itemId"],
        "bronze_hatchet"
    );

    ws.close().await;
    let stopped = app.stop().await;
    let (app, _stopped) = stopped.restart().await;
    let (_ws, sync) = enter(&app, &token).await;
    assert_eq!(
        sync["equipment"]["weapon"]["itemId"], "bronze_hatchet",
        "{sync}"
    );
    assert_eq!(slot_of(&sync["inventory"], "bronze_hatchet"), None);
}

both_databases!(equipment_survives_a_restart, |db| {
    equip_and_drop_survive_a_restart(db)
});

#[tokio::test]
async fn a_dropped_item_is_seen_by_others_and_taken_by_its_owner() {
    let app = TestApp::spawn().await;
    let (ada_token, _) = player(&app, "Dropper").await;
    let (bob_token, _) = player(&app, "Watcher").await;
    let (mut ada, sync) = enter(&app, &ada_token).await;
    let (mut bob, _) = enter(&app, &bob_token).await;
    let slot = slot_of(&sync["inventory"], "tinderbox").expect("a starter tinderbox");
    ada.send(
        ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(slot))),
        None,
    )
    .await;
    let inventory = ada.expect_type("inventory:update").await;
    assert_eq!(slot_of(&inventory["data"]["inventory"], "tinderbox"), None);

    // Bob sees the item appear on Ada's tile.
    let update = bob
        .expect("a ground item", |m| {
            m["type"] == "world:update"
                && m["data"]["added"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|e| e["kind"] == "groundItem"))
        })
        .await;
    let item = update["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "groundItem")
        .unwrap()
        .clone();
    assert_eq!(item["itemId"], "tinderbox");
    assert_eq!(item["quantity"], 1);
    let item_id = item["id"].as_str().unwrap().to_owned();

    // Bob may not take it yet; Ada may.
    bob.send(act_on("pickup", &item_id), Some(json!("b1")))
        .await;
    let refused = bob.expect_type("error").await;
    assert_eq!(refused["data"]["code"], "cannot_do");
    assert_eq!(refused["data"]["ref"], "b1");
    ada.send(act_on("pickup", &item_id), None).await;
    let inventory = ada.expect_type("inventory:update").await;
    assert!(slot_of(&inventory["data"]["inventory"], "tinderbox").is_some());
    let gone = bob
        .expect("the item removed", |m| {
            m["type"] == "world:update"
                && m["data"]["removed"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|id| id == item_id.as_str()))
        })
        .await;
    assert_eq!(gone["type"], "world:update");
}

#[tokio::test]
async fn bad_actions_are_answered_with_their_codes_and_the_socket_stays_open() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Clumsy").await;
    let (mut ws, _) = enter(&app, &token).await;
    let cases = [
        (act("dance"), "invalid_action"),
        (
            ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(28))),
            "invalid_slot",
        ),
        (
            // Not a number: the wrong shape (docs/protocol.md, "one slot rule").
            ClientMessage::Action(ActionRequest::new("drop").with_slot("x")),
            "invalid_message",
        ),
        (act("drop"), "invalid_message"),
        (
            ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(27))),
            "invalid_slot",
        ),
        (
            ClientMessage::Action(ActionRequest::new("unequip").with_slot("hat")),
            "invalid_slot",
        ),
        (
            ClientMessage::Action(ActionRequest::new("unequip").with_slot("ring")),
            "invalid_slot",
        ),
        (
            ClientMessage::Action(ActionRequest::new("combat_style").with_style("wild")),
            "invalid_action",
        ),
        (act_on("attack", "npc-999999"), "invalid_target"),
        (act("pickup"), "invalid_message"),
        (
            ClientMessage::Use(UseRequest::new(to_slot(99))),
            "invalid_slot",
        ),
        (
            ClientMessage::Use(UseRequest::new(to_slot(27))),
            "invalid_slot",
        ),
        (
            ClientMessage::Use(UseRequest::new(to_slot(-1))),
            "invalid_slot",
        ),
    ];
    for (n, (message, code)) in cases.into_iter().enumerate() {
        let sent = message.to_json();
        ws.send(message, Some(json!(n))).await;
        let error = ws.expect_type("error").await;
        assert_eq!(error["data"]["code"], code, "{sent}: {error}");
        assert_eq!(error["data"]["ref"], n, "{error}");
    }
    // Still connected and answering.
    ws.send(ClientMessage::Sync, None).await;
    ws.expect_type("player:sync").await;
}

#[tokio::test]
async fn a_combat_style_is_kept_in_the_record() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("SAVE_INTERVAL", "1".into())],
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Stylist").await;
    let (mut ws, _) = enter(&app, &token).await;
    ws.send(
        ClientMessage::Action(ActionRequest::new("combat_style").with_style("defensive")),
        None,
    )
    .await;
    let deadline = Instant::now() + WAIT;
    loop {
        let stored = app.store().characters().get(&id).await.unwrap().unwrap();
        if stored.combat_style == "defensive" {
            break;
        }
        assert!(Instant::now() < deadline, "never saved: {stored:?}");
        app.pass_time().await;
    }
}
