//! The game's narration over real sockets (CONTRACT.md section 9), bundled world: chopping a tree
//! near the spawn says the swing and the logs on the `game` channel to the chopper and not to a
//! player beside them; eating says what it healed; and the bank's withdraw X and "all" and deposit
//! X, with the line a withdrawal that does not all fit earns.

use serde_json::{json, Value};
use wayfarer_protocol::ws::{
    BankDepositRequest, BankWithdrawRequest, ClientMessage, DepositSlot, Quantity, UseRequest,
};

use crate::support::messages::{act_on, chat, to_slot};
use crate::support::{admin_give, enter, player, AppOptions, TestApp, WsClient};

const CODE: &str = "narrator";

async fn app() -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", CODE.into())],
        ..Default::default()
    })
    .await
}

/// A game line other than a newcomer's welcome on entry (CONTRACT §13; `newcomer.rs` tests it).
fn is_game_line(m: &Value) -> bool {
    let welcome = m["data"]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("Welcome to "));
    m["type"] == "chat:message" && m["data"]["channel"] == "game" && !welcome
}

/// Waits for the game line `text`; every game line before it must be one of `allowed`.
async fn expect_line(ws: &mut WsClient, text: &str, allowed: &[&str]) -> Value {
    let line = ws
        .expect(text, |m| {
            if is_game_line(m) && m["data"]["text"] != text {
                let other = m["data"]["text"].as_str().unwrap_or_default();
                assert!(allowed.contains(&other), "unexpected game line {m}");
            }
            is_game_line(m) && m["data"]["text"] == text
        })
        .await;
    assert_eq!(line["data"]["fromId"], "system", "{line}");
    line
}

fn tile(sync: &Value) -> (i64, i64) {
    (
        sync["tile"]["x"].as_i64().unwrap(),
        sync["tile"]["z"].as_i64().unwrap(),
    )
}

/// Connects a player's socket: its `player:sync` data and its first `world:update`.
async fn enter_seeing(app: &TestApp, token: &str) -> (WsClient, Value, Value) {
    let mut ws = WsClient::connect(app, &format!("token={token}"))
        .await
        .expect("connects");
    let sync = ws.expect_type("player:sync").await;
    let view = ws.expect_type("world:update").await;
    (ws, sync["data"].clone(), view)
}

#[tokio::test]
async fn chopping_a_tree_narrates_the_swing_and_the_logs_to_the_chopper_alone() {
    let app = app().await;
    let (token, _) = player(&app, "Woodsman").await;
    let (mut ws, sync, view) = enter_seeing(&app, &token).await;
    let (bystander_token, _) = player(&app, "Onlooker").await;
    let (mut bystander, _) = enter(&app, &bystander_token).await;
    let (x, z) = tile(&sync);
    // The nearest normal tree in view (the starter kit has a hatchet).
    let tree = view["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "resource" && e["typeId"] == "tree_normal")
        .min_by_key(|e| {
            (e["x"].as_i64().unwrap() - x)
                .abs()
                .max((e["z"].as_i64().unwrap() - z).abs())
        })
        .expect("a normal tree within view of the spawn")
        .clone();
    ws.send(act_on("gather", &tree["id"]), None).await;
    expect_line(&mut ws, "You swing your axe at the tree.", &[]).await;
    expect_line(
        &mut ws,
        "You get some logs.",
        &["You swing your axe at the tree."],
    )
    .await;
    // Everything the chopper's ticks said to anyone is queued by now: the onlooker's reply to a
    // sync comes after it, and no game line came before.
    bystander.send(ClientMessage::Sync, None).await;
    loop {
        let m = bystander
            .next()
            .await
            .expect("the onlooker's socket stays open");
        assert!(!is_game_line(&m), "the onlooker was told {m}");
        if m["type"] == "player:sync" {
            break;
        }
    }
}

#[tokio::test]
async fn eating_narrates_what_the_food_healed() {
    let app = app().await;
    let (token, id) = player(&app, "Hungry").await;
    // Hurt before entering: 4 of 10 hitpoints.
    let mut character = app.store().characters().get(&id).await.unwrap().unwrap();
    character.health = 4;
    app.store().characters().save(&character).await.unwrap();
    let (mut ws, sync) = enter(&app, &token).await;
    assert_eq!(sync["health"], 4, "{sync}");
    let slot = admin_give(&mut ws, CODE, "bread", 1).await;
    ws.send(ClientMessage::Use(UseRequest::new(to_slot(&slot))), None)
        .await;
    // Bread heals 5: all of it counts.
    expect_line(&mut ws, "You eat the bread. It heals 5 hitpoints.", &[]).await;
}

/// The next `bank:update`'s count of `item` (0 when it is not banked).
async fn banked_after(ws: &mut WsClient, item: &str) -> i64 {
    let update = ws.expect_type("bank:update").await;
    update["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["itemId"] == item)
        .map_or(0, |i| i["quantity"].as_i64().unwrap())
}

/// The inventory slot holding `item` in an `inventory:update` (the first), and how many it holds
/// over all slots.
fn held(update: &Value, item: &str) -> (Option<i64>, i64) {
    let slots = update["data"]["inventory"].as_array().unwrap();
    let mine = slots.iter().filter(|s| s["itemId"] == item);
    (
        slots
            .iter()
            .find(|s| s["itemId"] == item)
            .and_then(|s| s["slot"].as_i64()),
        mine.map(|s| s["quantity"].as_i64().unwrap()).sum(),
    )
}

#[tokio::test]
async fn the_bank_withdraws_x_and_all_deposits_x_and_says_when_not_all_fits() {
    let app = app().await;
    let (token, _) = player(&app, "Saver").await;
    let (mut ws, _) = enter(&app, &token).await;
    ws.send(chat(format!("/admin {CODE}")), None).await;
    ws.send(chat("/tp 8 -4"), None).await;
    ws.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::All,
            quantity: None,
        }),
        None,
    )
    .await;
    let coins = banked_after(&mut ws, "coins").await;
    assert!(coins > 10, "the starter kit has coins: {coins}");

    // Withdraw X, then all.
    ws.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::Count(7),
        }),
        None,
    )
    .await;
    assert_eq!(banked_after(&mut ws, "coins").await, coins - 7);
    ws.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::All,
        }),
        None,
    )
    .await;
    // A tick reports the inventory before the bank.
    let update = ws
        .expect("every coin held", |m| {
            m["type"] == "inventory:update" && held(m, "coins").1 == coins
        })
        .await;
    assert_eq!(banked_after(&mut ws, "coins").await, 0);
    let slot = held(&update, "coins").0.unwrap();
    // Deposit X, then the rest with "all".
    ws.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(to_slot(slot)),
            quantity: Some(Quantity::Count(3)),
        }),
        None,
    )
    .await;
    assert_eq!(banked_after(&mut ws, "coins").await, 3);
    ws.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(to_slot(slot)),
            quantity: Some(Quantity::All),
        }),
        None,
    )
    .await;
    assert_eq!(banked_after(&mut ws, "coins").await, coins);
    // A quantity of 0 is refused.
    ws.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::Count(0),
        }),
        Some(json!("zero")),
    )
    .await;
    let error = ws.expect_type("error").await;
    assert_eq!(
        (&error["data"]["code"], &error["data"]["ref"]),
        (&json!("invalid_message"), &json!("zero"))
    );

    // Six logs banked and two slots free: withdrawing five gets two, and the game says why.
    let logs = admin_give(&mut ws, CODE, "logs", 28).await;
    ws.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(to_slot(&logs)),
            quantity: Some(Quantity::Count(6)),
        }),
        None,
    )
    .await;
    assert_eq!(banked_after(&mut ws, "logs").await, 6);
    admin_give(&mut ws, CODE, "bones", 4).await;
    ws.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "logs".into(),
            quantity: Quantity::Count(5),
        }),
        None,
    )
    .await;
    // The line comes with the tick's other messages, before its updates.
    expect_line(
        &mut ws,
        "You withdraw 2 × Logs; your inventory has no room for more.",
        &[],
    )
    .await;
    assert_eq!(banked_after(&mut ws, "logs").await, 4);
}
