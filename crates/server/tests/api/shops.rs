//! Shops over WebSockets: talking to Tobin (-8, -6) opens the Millbrook general store, buying and
//! selling change coins and items and are saved at once, and the admin economy route counts them.

use std::time::{Duration, Instant};

use serde_json::Value;
use wayfarer_protocol::ws::{ClientMessage, DialogueRespond, ShopBuyRequest, ShopSellRequest};

use crate::support::messages::{act_on, added_of_type, chat, to_id, to_slot};
use crate::support::{player, AppOptions, TestApp, WsClient};

const STORE: &str = "millbrook_general_store";

fn coins_in(update: &Value) -> i64 {
    update["data"]["coins"].as_i64().unwrap()
}

fn slot_of(update: &Value, item: &str) -> Option<i64> {
    update["data"]["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["itemId"] == item)
        .map(|s| s["slot"].as_i64().unwrap())
}

/// Opens the Millbrook general store by talking to Tobin, who is in `view` (the first
/// `world:update`: he stands near the spawn); returns the `shop:open`.
pub async fn open_general_store(ws: &mut WsClient, view: &Value) -> Value {
    let tobin = added_of_type(&view["data"], "merchant_tobin").expect("Tobin in view");
    open_store_of(ws, &tobin).await
}

/// Opens the Millbrook general store by talking to the Tobin entity `tobin`; returns the
/// `shop:open`.
pub async fn open_store_of(ws: &mut WsClient, tobin: &str) -> Value {
    ws.send(act_on("interact", tobin), None).await;
    // Tobin's dialogue: "Show me your wares." opens the store.
    let dialogue = ws.expect_type("dialogue:open").await;
    assert_eq!(dialogue["data"]["npcId"], "merchant_tobin");
    assert_eq!(dialogue["data"]["responses"][0]["index"], 0);
    ws.send(
        ClientMessage::DialogueRespond(DialogueRespond {
            npc_id: "merchant_tobin".into(),
            index: 0,
        }),
        None,
    )
    .await;
    let open = ws.expect_type("shop:open").await;
    assert_eq!(open["data"]["storeId"], STORE);
    open
}

#[tokio::test]
async fn buying_and_selling_at_the_general_store() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("ADMIN_CODE", "till".into()),
            ("SAVE_INTERVAL", "3600".into()),
        ],
        ..Default::default()
    })
    .await;
    let (token, id) = player(&app, "Buyer").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    assert_eq!(ws.next().await.unwrap()["type"], "player:sync");
    let view = ws.expect_type("world:update").await;
    // Not open: refused.
    ws.send(
        ClientMessage::ShopBuy(ShopBuyRequest {
            store_id: to_id(STORE),
            item_id: "bread".into(),
            quantity: 1,
        }),
        None,
    )
    .await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "not_near_shop"
    );
    ws.send(chat("/admin till"), None).await;
    ws.send(chat("/give coins 100"), None).await;
    let update = ws.expect_type("inventory:update").await;
    let coins = coins_in(&update);
    let open = open_general_store(&mut ws, &view).await;
    let hatchet = open["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["itemId"] == "bronze_hatchet")
        .unwrap()
        .clone();
    assert_eq!(hatchet["price"], 40);
    assert_eq!(hatchet["stock"], Value::Null);
    assert_eq!(hatchet["sellPrice"], 20);

    ws.send(
        ClientMessage::ShopBuy(ShopBuyRequest {
            store_id: to_id(STORE),
            item_id: "bronze_hatchet".into(),
            quantity: 2,
        }),
        None,
    )
    .await;
    let update = ws.expect_type("inventory:update").await;
    assert_eq!(coins_in(&update), coins - 80);
    // Saved at once.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stored = app.store().inventories().get(&id).await.unwrap();
        let hatchets = stored
            .iter()
            .filter(|s| s.item_id == "bronze_hatchet")
            .count();
        let saved_coins = stored
            .iter()
            .find(|s| s.item_id == "coins")
            .map_or(0, |s| s.quantity);
        if saved_coins == coins - 80 && hatchets >= 2 {
            break;
        }
        assert!(Instant::now() < deadline, "purchase not saved: {stored:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Too expensive: refused, nothing changes.
    ws.send(
        ClientMessage::ShopBuy(ShopBuyRequest {
            store_id: to_id(STORE),
            item_id: "apprentice_staff".into(),
            quantity: 1000,
        }),
        None,
    )
    .await;
    assert_eq!(
        ws.expect_type("error").await["data"]["code"],
        "not_enough_coins"
    );
    let slot = slot_of(&update, "bronze_hatchet").unwrap();
    ws.send(
        ClientMessage::ShopSell(ShopSellRequest {
            store_id: to_id(STORE),
            slot: to_slot(slot),
            quantity: None,
        }),
        None,
    )
    .await;
    let update = ws.expect_type("inventory:update").await;
    assert_eq!(coins_in(&update), coins - 80 + 20);
    let coin_slot = slot_of(&update, "coins").unwrap();
    ws.send(
        ClientMessage::ShopSell(ShopSellRequest {
            store_id: to_id(STORE),
            slot: to_slot(coin_slot),
            quantity: None,
        }),
        None,
    )
    .await;
    assert_eq!(ws.expect_type("error").await["data"]["code"], "cannot_sell");
    ws.send(ClientMessage::ShopClose, None).await;
    assert_eq!(ws.expect_type("shop:close").await["data"]["storeId"], STORE);

    // The economy audit (admin only) counts the purchase and the sale.
    let response = app
        .client
        .get(app.url("/api/admin/economy"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let report = crate::support::economy_report(&app).await;
    assert_eq!(report["purchases"], 1, "{report}");
    assert_eq!(report["sales"], 1);
    assert_eq!(report["entered"]["bronze_hatchet"]["bought"], 2);
    assert_eq!(report["left"]["bronze_hatchet"]["sold"], 1);
    assert_eq!(report["left"]["coins"]["shopPayments"], 80);
    assert_eq!(report["entered"]["coins"]["shopPayments"], 20);
    assert_eq!(
        report["items"]["coins"]["inventory"],
        coins - 60,
        "{report}"
    );
    assert!(report["items"]["bronze_hatchet"]["total"].as_i64().unwrap() >= 1);
    ws.close().await;
}
