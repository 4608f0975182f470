//! Group commit seen from the players: trades committing together share a transaction, and none
//! is reported completed before that transaction committed. With the database failing every
//! commit (the store's fault hook), every trade of the failed group is cancelled with
//! `server_error` and nothing moves; the next group, the database back, completes.

use std::collections::BTreeMap;
use std::time::Duration;

use wayfarer_protocol::trade::{TradeAddItem, TradeIdOnly};
use wayfarer_protocol::ws::ClientMessage;

use crate::support::messages::{to_id, to_slot};
use crate::support::{admin_give, both_databases, enter, player, AppOptions, TestApp, WsClient};
use crate::trade::{expect_trade, slot_of, start};

const CODE: &str = "group-code";
/// Coins each seller is given on top of the starter kit's.
const GIVEN: i64 = 70;

/// A pair trading `GIVEN` coins from the first to the second, up to the confirm screen.
struct Pair {
    seller: WsClient,
    buyer: WsClient,
    ids: [String; 2],
    trade: String,
}

async fn pair(app: &TestApp, n: usize) -> Pair {
    let (token, seller_id) = player(app, &format!("Seller{n}")).await;
    let (mut seller, _) = enter(app, &token).await;
    let (token, buyer_id) = player(app, &format!("Buyer{n}")).await;
    let (mut buyer, _) = enter(app, &token).await;
    admin_give(&mut seller, CODE, "coins", GIVEN).await;
    let coins = slot_of(&mut seller, "coins").await;
    let trade = start(&mut seller, &mut buyer, &buyer_id).await;
    offer_coins_to_confirm(&mut seller, &mut buyer, &trade, coins).await;
    Pair {
        seller,
        buyer,
        ids: [seller_id, buyer_id],
        trade,
    }
}

/// The seller offers every coin in `coins_slot` and both accept the first screen: the trade
/// waits on the confirm screen.
async fn offer_coins_to_confirm(
    seller: &mut WsClient,
    buyer: &mut WsClient,
    trade: &str,
    coins_slot: i64,
) {
    seller
        .send(
            ClientMessage::TradeAddItem(TradeAddItem {
                trade_id: to_id(trade),
                inventory_slot: to_slot(coins_slot),
                quantity: None,
            }),
            None,
        )
        .await;
    // The offer first, then the accepts: sent on two sockets, the buyer's accept could reach
    // the world before the seller's offer, which resets it.
    seller
        .expect("the offer", |m| {
            m["type"] == "tradeUpdated"
                && m["data"]["tradeId"] == trade
                && m["data"]["myOffer"]["items"]
                    .as_array()
                    .is_some_and(|items| !items.is_empty())
        })
        .await;
    accept_all(seller, buyer, trade).await;
    for ws in [seller, buyer] {
        expect_trade(ws, "tradeConfirmScreen").await;
    }
}

async fn accept_all(a: &mut WsClient, b: &mut WsClient, trade: &str) {
    for ws in [a, b] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: to_id(trade),
            }),
            None,
        )
        .await;
    }
}

/// The trade's ending on `ws`: `tradeCompleted` or the reason of its `tradeCancelled`.
async fn ending(ws: &mut WsClient, trade: &str) -> String {
    let m = ws
        .expect("the trade's ending", |m| {
            (m["type"] == "tradeCompleted" || m["type"] == "tradeCancelled")
                && m["data"]["tradeId"] == trade
        })
        .await;
    if m["type"] == "tradeCompleted" {
        "completed".into()
    } else {
        m["data"]["reason"].as_str().unwrap_or_default().to_owned()
    }
}

/// Coins of each character, as the database has them.
async fn stored_coins(app: &TestApp, ids: &[String]) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for id in ids {
        let held: i64 = app
            .store()
            .inventories()
            .get(id)
            .await
            .unwrap()
            .iter()
            .filter(|s| s.item_id == "coins")
            .map(|s| s.quantity)
            .sum();
        out.insert(id.clone(), held);
    }
    out
}

both_databases!(
    a_failed_group_commit_completes_none_of_its_trades,
    |db| async move {
        let app = TestApp::spawn_with(AppOptions {
            env: vec![("ADMIN_CODE", CODE.into()), ("SAVE_INTERVAL", "1".into())],
            database: Some(db),
            ..Default::default()
        })
        .await;
        let mut pairs = Vec::new();
        for n in 0..3 {
            pairs.push(pair(&app, n).await);
        }
        let ids: Vec<String> = pairs.iter().flat_map(|p| p.ids.clone()).collect();
        // Wait for the periodic saves (every second here) to have written the gifts: then the
        // database holds what each had before trading, each seller `GIVEN` coins above its buyer.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        let before = loop {
            let stored = stored_coins(&app, &ids).await;
            if ids
                .chunks(2)
                .all(|pair| stored[&pair[0]] == stored[&pair[1]] + GIVEN)
            {
                break stored;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the gifts were never saved: {stored:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };

        // Every commit fails from now on, each group's every attempt.
        app.store().fail_next_group_commits(u32::MAX);
        for p in &mut pairs {
            accept_all(&mut p.seller, &mut p.buyer, &p.trade).await;
        }
        for p in &mut pairs {
            for ws in [&mut p.seller, &mut p.buyer] {
                assert_eq!(ending(ws, &p.trade).await, "server_error");
            }
        }
        assert_eq!(stored_coins(&app, &ids).await, before, "nothing moved");
        assert_eq!(app.store().trades().count().await.unwrap(), 0);

        // The database is back: the same offer, traded again, completes and is durable.
        app.store().fail_next_group_commits(0);
        let p = &mut pairs[0];
        let trade = start(&mut p.seller, &mut p.buyer, &p.ids[1]).await;
        let coins = slot_of(&mut p.seller, "coins").await;
        offer_coins_to_confirm(&mut p.seller, &mut p.buyer, &trade, coins).await;
        accept_all(&mut p.seller, &mut p.buyer, &trade).await;
        for ws in [&mut p.seller, &mut p.buyer] {
            assert_eq!(ending(ws, &trade).await, "completed");
        }
        // Completed means committed: the database already holds the swap.
        let after = stored_coins(&app, &p.ids).await;
        let moved = before[&p.ids[0]] - after[&p.ids[0]];
        assert!(
            moved >= GIVEN,
            "the seller's coins left: {before:?} -> {after:?}"
        );
        assert_eq!(after[&p.ids[1]], before[&p.ids[1]] + moved);
        assert_eq!(app.store().trades().count().await.unwrap(), 1);
    }
);
