//! The bank over WebSockets: `bank:*` near Elsie the banker (8, -6), the `not_near_bank` refusal,
//! each operation saved at once (checked in the store while the player is still online), and the
//! bank surviving a restart on SQLite and PostgreSQL.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wayfarer_protocol::ws::{
    BankDepositRequest, BankWithdrawRequest, ClientMessage, DepositSlot, Quantity,
};
use wayfarer_store::StoredBankItem;

use crate::support::messages::{chat, to_slot};
use crate::support::{both_databases, enter, player, AppOptions, FreshDatabase, TestApp, WsClient};

const WAIT: Duration = Duration::from_secs(10);

fn banked(item: &str, quantity: i64) -> StoredBankItem {
    StoredBankItem {
        item_id: item.into(),
        quantity,
    }
}

/// The next `bank:update`'s items as `(itemId, quantity)`.
async fn bank_update(ws: &mut WsClient) -> Vec<(String, i64)> {
    let update = ws.expect_type("bank:update").await;
    update["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["itemId"].as_str().unwrap().to_owned(),
                i["quantity"].as_i64().unwrap(),
            )
        })
        .collect()
}

async fn error_code(ws: &mut WsClient) -> Value {
    ws.expect_type("error").await["data"]["code"].clone()
}

/// Polls the store until the character's bank is `expected` (the immediate save).
async fn wait_for_saved_bank(app: &TestApp, id: &str, expected: &[StoredBankItem]) {
    let deadline = Instant::now() + WAIT;
    loop {
        let stored = app.store().inventories().bank(id).await.unwrap();
        if stored == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "bank not saved: {stored:?} vs {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn bank_round_trip(db: FreshDatabase) {
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        // No periodic save during the test: only the bank's own saves write.
        env: vec![
            ("ADMIN_CODE", "vault".into()),
            ("SAVE_INTERVAL", "3600".into()),
        ],
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Saver").await;
    let kit = app.store().inventories().get(&id).await.unwrap();
    let coins = kit
        .iter()
        .find(|s| s.item_id == "coins")
        .map_or(0, |s| s.quantity);
    assert!(coins > 0, "the starter kit has coins: {kit:?}");
    let (mut ws, _) = enter(&app, &token).await;
    // At the spawn, far from any bank.
    ws.send(ClientMessage::BankOpen, Some(json!(1))).await;
    assert_eq!(error_code(&mut ws).await, "not_near_bank");
    ws.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(to_slot(0)),
            quantity: None,
        }),
        None,
    )
    .await;
    assert_eq!(error_code(&mut ws).await, "not_near_bank");
    // Bad input: a code, never a crash.
    ws.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::Count(-3),
        }),
        None,
    )
    .await;
    assert_eq!(error_code(&mut ws).await, "invalid_message");

    ws.send(chat("/admin vault"), None).await;
    ws.send(chat("/tp 8 -4"), None).await;
    ws.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::All,
            quantity: None,
        }),
        None,
    )
    .await;
    let items = bank_update(&mut ws).await;
    let total: i64 = kit.iter().map(|s| s.quantity).sum();
    assert_eq!(
        items.iter().map(|(_, q)| q).sum::<i64>(),
        total,
        "{items:?}"
    );
    let deposited: Vec<StoredBankItem> = items.iter().map(|(i, q)| banked(i, *q)).collect();
    // Saved at once, inventory emptied in the same save.
    wait_for_saved_bank(&app, &id, &deposited).await;
    assert!(app.store().inventories().get(&id).await.unwrap().is_empty());

    ws.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::Count(10),
        }),
        None,
    )
    .await;
    let items = bank_update(&mut ws).await;
    let left = items
        .iter()
        .find(|(i, _)| i == "coins")
        .map_or(0, |(_, q)| *q);
    assert_eq!(left, (coins - 10).max(0));
    let expected: Vec<StoredBankItem> = items.iter().map(|(i, q)| banked(i, *q)).collect();
    wait_for_saved_bank(&app, &id, &expected).await;
    let held = app.store().inventories().get(&id).await.unwrap();
    assert_eq!(
        held.iter()
            .find(|s| s.item_id == "coins")
            .map(|s| s.quantity),
        Some(coins.min(10))
    );
    ws.close().await;

    // After a restart the bank is there, and still next to the banker.
    let stopped = app.stop().await;
    let (app, _stopped) = stopped.restart().await;
    assert_eq!(app.store().inventories().bank(&id).await.unwrap(), expected);
    let (mut ws, _) = enter(&app, &token).await;
    ws.send(ClientMessage::BankOpen, None).await;
    assert_eq!(bank_update(&mut ws).await, items);
    ws.close().await;
}

both_databases!(the_bank_is_saved_at_once_and_survives_a_restart, |db| {
    bank_round_trip(db)
});

/// `url` with its host and port replaced by `127.0.0.1:port`; also the original `host:port`.
fn through_port(url: &str, port: u16) -> (String, String) {
    let start = url
        .find('@')
        .map(|i| i + 1)
        .unwrap_or_else(|| url.find("://").unwrap() + 3);
    let end = start + url[start..].find('/').unwrap();
    (
        url[start..end].to_owned(),
        format!("{}127.0.0.1:{port}{}", &url[..start], &url[end..]),
    )
}

/// A withdrawal whose save fails (the database goes away) is not durable: the player hears
/// `error {code: "internal"}` and is taken out of the world unsaved (close 1011), and the store, once back, still has the coins in the bank and
/// not in the inventory; entering again shows that state.
#[tokio::test]
async fn a_withdraw_whose_save_fails_changes_nothing() {
    let Some(db) = wayfarer_store::testing::FreshDatabase::postgres().await else {
        return;
    };
    let (upstream, _) = through_port(&db.url, 0);
    let proxy = crate::support::FaultProxy::start(upstream).await;
    let (_, proxied) = through_port(&db.url, proxy.port);
    let app = TestApp::spawn_with(AppOptions {
        database_url: Some(proxied),
        env: vec![
            ("ADMIN_CODE", "vault".into()),
            ("SAVE_INTERVAL", "3600".into()),
            // Each of the save's attempts against the cut database gives up after a second of
            // trying to connect, not the writer's default 10.
            ("DB_WRITE_WAIT_MS", "1000".into()),
        ],
        ..Default::default()
    })
    .await;
    let direct = wayfarer_store::Store::connect(&db.url).await.unwrap();
    let (token, id) = player(&app, "Unlucky").await;
    let (mut ws, _) = enter(&app, &token).await;
    ws.send(chat("/admin vault"), None).await;
    ws.send(chat("/tp 8 -4"), None).await;
    ws.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::All,
            quantity: None,
        }),
        None,
    )
    .await;
    let deposited: Vec<StoredBankItem> = bank_update(&mut ws)
        .await
        .iter()
        .map(|(i, q)| banked(i, *q))
        .collect();
    let deadline = Instant::now() + WAIT;
    while direct.inventories().bank(&id).await.unwrap() != deposited {
        assert!(Instant::now() < deadline, "deposit not saved");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let coins = deposited
        .iter()
        .find(|b| b.item_id == "coins")
        .map(|b| b.quantity)
        .unwrap();

    proxy.cut();
    ws.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::Count(coins),
        }),
        None,
    )
    .await;
    // The sim moved the coins; the save fails (after its retries): the player is told so, never
    // sees the withdrawal (answers wait for the commit), and is dropped.
    assert_eq!(error_code(&mut ws).await, "internal");
    assert_eq!(ws.expect_close().await, Some(1011));

    proxy.unfreeze();
    assert_eq!(direct.inventories().bank(&id).await.unwrap(), deposited);
    assert!(direct.inventories().get(&id).await.unwrap().is_empty());
    // Entering again: the coins are still in the bank.
    let deadline = Instant::now() + WAIT;
    let mut ws = loop {
        let mut ws = WsClient::connect(&app, &format!("token={token}"))
            .await
            .expect("connects");
        match ws.next().await {
            Ok(first) if first["type"] == "player:sync" => break ws,
            other => {
                assert!(Instant::now() < deadline, "cannot enter again: {other:?}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    ws.send(ClientMessage::BankOpen, None).await;
    assert_eq!(
        bank_update(&mut ws).await,
        deposited
            .iter()
            .map(|b| (b.item_id.clone(), b.quantity))
            .collect::<Vec<_>>()
    );
    ws.close().await;
}
