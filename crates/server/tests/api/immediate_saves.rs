//! Bank operations and purchases are answered only after their save committed: with the
//! database failing every commit (the store's fault hook) the player hears `error {code:
//! "internal"}` and never the `bank:update` or `inventory:update` of a change that is not in the
//! database, is taken out of the world unsaved (1011) and nothing moved in the store; with the
//! database back, the same operation is answered, and the database already holds it when the
//! answer arrives.

use std::time::{Duration, Instant};

use serde_json::Value;
use wayfarer_protocol::ws::{BankDepositRequest, ClientMessage, DepositSlot, ShopBuyRequest};
use wayfarer_store::{StoredBankItem, StoredSlot};

use crate::support::messages::{chat, to_id};
use crate::support::{both_databases, player, AppOptions, FreshDatabase, TestApp, WsClient};

const CODE: &str = "keeper";
const STORE: &str = "millbrook_general_store";

async fn app_on(db: FreshDatabase) -> TestApp {
    TestApp::spawn_with(AppOptions {
        database: Some(db),
        // No periodic save: only the operations' own saves write.
        env: vec![
            ("ADMIN_CODE", CODE.into()),
            ("SAVE_INTERVAL", "3600".into()),
        ],
        ..Default::default()
    })
    .await
}

/// Enters the world (again: a player taken out unsaved may be refused for a moment); returns the
/// socket and the first `world:update`.
async fn enter_again(app: &TestApp, token: &str) -> (WsClient, Value) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut ws = WsClient::connect(app, &format!("token={token}"))
            .await
            .expect("connects");
        match ws.next().await {
            Ok(first) if first["type"] == "player:sync" => {
                let view = ws.expect_type("world:update").await;
                return (ws, view);
            }
            other => {
                assert!(Instant::now() < deadline, "cannot enter: {other:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Reads up to the `error` a failed save ends in and the close after it; panics on any message of
/// `told` (the change that was not saved) before it.
async fn refused_unsaved(ws: &mut WsClient, told: &str) {
    loop {
        match ws.next_quiet().await {
            Ok(m) if m["type"] == "error" => {
                assert_eq!(m["data"]["code"], "internal", "{m}");
                break;
            }
            Ok(m) => assert_ne!(m["type"], told, "told of an unsaved change: {m}"),
            Err(code) => panic!("closed ({code:?}) before the error"),
        }
    }
    assert_eq!(ws.expect_close().await, Some(1011));
}

async fn stored(app: &TestApp, id: &str) -> (Vec<StoredSlot>, Vec<StoredBankItem>) {
    let inventories = app.store().inventories();
    (
        inventories.get(id).await.unwrap(),
        inventories.bank(id).await.unwrap(),
    )
}

fn deposit_all() -> ClientMessage {
    ClientMessage::BankDeposit(BankDepositRequest {
        slot: DepositSlot::All,
        quantity: None,
    })
}

both_databases!(
    a_deposit_whose_commit_fails_is_refused_and_moves_nothing,
    |db| async move {
        let app = app_on(db).await;
        let (token, id) = player(&app, "Depositor").await;
        let (mut ws, _) = enter_again(&app, &token).await;
        ws.send(chat(format!("/admin {CODE}")), None).await;
        // Next to Elsie the banker.
        ws.send(chat("/tp 8 -4"), None).await;
        let before = stored(&app, &id).await;
        assert!(!before.0.is_empty() && before.1.is_empty(), "{before:?}");

        app.store().fail_next_group_commits(u32::MAX);
        ws.send(deposit_all(), None).await;
        refused_unsaved(&mut ws, "bank:update").await;
        assert_eq!(stored(&app, &id).await, before, "nothing moved");

        // The database is back: the same deposit is answered once it is in the database.
        app.store().fail_next_group_commits(0);
        let (mut ws, _) = enter_again(&app, &token).await;
        ws.send(chat(format!("/admin {CODE}")), None).await;
        ws.send(chat("/tp 8 -4"), None).await;
        ws.send(deposit_all(), None).await;
        let update = ws.expect_type("bank:update").await;
        let (inventory, bank) = stored(&app, &id).await;
        assert!(inventory.is_empty(), "{inventory:?}");
        assert_eq!(
            bank.iter().map(|b| b.quantity).sum::<i64>(),
            before.0.iter().map(|s| s.quantity).sum::<i64>(),
            "{update}"
        );
        ws.close().await;
    }
);

/// Opens the general store (`shops::open_general_store`); the price of bread there.
async fn open_store(ws: &mut WsClient, view: &Value) -> i64 {
    let open = crate::shops::open_general_store(ws, view).await;
    open["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["itemId"] == "bread")
        .expect("the store sells bread")["price"]
        .as_i64()
        .unwrap()
}

fn buy_bread() -> ClientMessage {
    ClientMessage::ShopBuy(ShopBuyRequest {
        store_id: to_id(STORE),
        item_id: "bread".into(),
        quantity: 1,
    })
}

fn coins(inventory: &[StoredSlot]) -> i64 {
    inventory
        .iter()
        .filter(|s| s.item_id == "coins")
        .map(|s| s.quantity)
        .sum()
}

both_databases!(
    a_purchase_whose_commit_fails_is_refused_and_moves_nothing,
    |db| async move {
        let app = app_on(db).await;
        let (token, id) = player(&app, "Shopper").await;
        let before = stored(&app, &id).await.0;
        let (mut ws, view) = enter_again(&app, &token).await;
        let price = open_store(&mut ws, &view).await;
        assert!(
            coins(&before) >= price,
            "the kit pays for bread: {before:?}"
        );

        app.store().fail_next_group_commits(u32::MAX);
        ws.send(buy_bread(), None).await;
        refused_unsaved(&mut ws, "inventory:update").await;
        assert_eq!(stored(&app, &id).await.0, before, "nothing moved");

        app.store().fail_next_group_commits(0);
        let (mut ws, view) = enter_again(&app, &token).await;
        open_store(&mut ws, &view).await;
        ws.send(buy_bread(), None).await;
        let update = ws.expect_type("inventory:update").await;
        // Answered after the commit: the database holds the purchase already.
        let after = stored(&app, &id).await.0;
        assert_eq!(coins(&after), coins(&before) - price, "{update}");
        assert_eq!(
            update["data"]["coins"].as_i64(),
            Some(coins(&before) - price)
        );
        ws.close().await;
    }
);
