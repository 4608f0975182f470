//! Trading over real WebSockets (CONTRACT.md section 5): the whole flow with its audit row, the
//! refusals while trading, every ending, the dupe regressions (disconnect between the final
//! accepts, an offered item dropped, one player in two trades, a failed transaction) and item
//! conservation under many concurrent trades.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use wayfarer_protocol::trade::{TradeAddItem, TradeIdOnly, TradeRequest, TradeRequestRespond};
use wayfarer_protocol::ws::{
    ActionRequest, BankDepositRequest, BankWithdrawRequest, ClientMessage, DepositSlot, Quantity,
    UseRequest,
};
use wayfarer_store::testing::FreshDatabase;

use crate::support::messages::{chat, to_id, to_slot, walk_to};
use crate::support::{enter, player, AppOptions, Clock, FaultProxy, TestApp, WsClient};

const CODE: &str = "trade-code";

async fn app() -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", CODE.into())],
        ..Default::default()
    })
    .await
}

/// A player in the world: (socket, character id).
async fn trader(app: &TestApp, name: &str) -> (WsClient, String) {
    let (token, id) = player(app, name).await;
    let (ws, _) = enter(app, &token).await;
    (ws, id)
}

/// Admin `/give`, waiting for the inventory to show it.
async fn give(ws: &mut WsClient, item: &str, quantity: i64) {
    ws.send(chat(format!("/admin {CODE}")), None).await;
    ws.expect("admin granted", |m| {
        m["type"] == "chat:message" && m["data"]["text"].as_str().unwrap_or("").contains("granted")
    })
    .await;
    ws.send(chat(format!("/give {item} {quantity}")), None)
        .await;
    ws.expect("the item", |m| {
        m["type"] == "inventory:update"
            && m["data"]["inventory"]
                .as_array()
                .is_some_and(|a| a.iter().any(|s| s["itemId"] == item))
    })
    .await;
}

/// The slot holding `item` in the player's last inventory, asked for with `player:sync`.
pub(crate) async fn slot_of(ws: &mut WsClient, item: &str) -> i64 {
    ws.send(ClientMessage::Sync, None).await;
    let sync = ws.expect_type("player:sync").await;
    sync["data"]["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["itemId"] == item)
        .unwrap_or_else(|| panic!("no {item} in {sync}"))["slot"]
        .as_i64()
        .unwrap()
}

pub(crate) async fn expect_trade(ws: &mut WsClient, kind: &str) -> Value {
    ws.expect(kind, |m| m["type"] == kind).await["data"].clone()
}

/// A requests, B accepts: the trade id.
pub(crate) async fn start(a: &mut WsClient, b: &mut WsClient, b_id: &str) -> String {
    a.send(
        ClientMessage::TradeRequest(TradeRequest {
            target_player_id: to_id(b_id),
        }),
        None,
    )
    .await;
    let incoming = expect_trade(b, "tradeIncoming").await;
    let id = incoming["tradeId"].as_str().unwrap().to_owned();
    b.send(
        ClientMessage::TradeRequestRespond(TradeRequestRespond {
            trade_id: to_id(&id),
            accept: true,
        }),
        None,
    )
    .await;
    for ws in [&mut *a, &mut *b] {
        let started = expect_trade(ws, "tradeStarted").await;
        assert_eq!(started["tradeId"], id.as_str());
    }
    id
}

/// Every item held by these characters, as the database has it.
pub(crate) async fn totals(app: &TestApp, ids: &[String]) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for id in ids {
        for slot in app.store().inventories().get(id).await.unwrap() {
            *out.entry(slot.item_id).or_insert(0) += slot.quantity;
        }
        for worn in app.store().inventories().equipment(id).await.unwrap() {
            *out.entry(worn.item_id).or_insert(0) += worn.quantity;
        }
    }
    out
}

#[tokio::test]
async fn a_whole_trade_swaps_items_in_one_transaction_with_an_audit_row() {
    let app = app().await;
    let (mut a, a_id) = trader(&app, "Alice").await;
    let (mut b, b_id) = trader(&app, "Bruno").await;
    give(&mut a, "coins", 100).await;
    let ids = vec![a_id.clone(), b_id.clone()];
    let coins = slot_of(&mut a, "coins").await;
    let id = start(&mut a, &mut b, &b_id).await;

    // While trading: no moving, acting or using items.
    a.send(walk_to(3, 3), Some(json!("m1"))).await;
    let refused = a.expect_type("error").await;
    assert_eq!(refused["data"]["code"], "in_trade");
    assert_eq!(refused["data"]["ref"], "m1");
    a.send(
        ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(coins))),
        Some(json!(2)),
    )
    .await;
    let refused = a.expect_type("error").await;
    assert_eq!(refused["data"]["code"], "in_trade");
    b.send(ClientMessage::Use(UseRequest::new(to_slot(0))), None)
        .await;
    assert_eq!(b.expect_type("error").await["data"]["code"], "in_trade");

    // Bad input: a tradeError with a code, echoing the ref.
    a.send(
        ClientMessage::TradeAddItem(TradeAddItem {
            trade_id: to_id(&id),
            inventory_slot: to_slot(99),
            quantity: None,
        }),
        Some(json!("bad")),
    )
    .await;
    let error = expect_trade(&mut a, "tradeError").await;
    assert_eq!(error["code"], "invalid_slot");
    assert_eq!(error["tradeId"], id.as_str());
    a.send(
        ClientMessage::TradeAccept(TradeIdOnly {
            trade_id: "nope".into(),
        }),
        None,
    )
    .await;
    assert_eq!(
        expect_trade(&mut a, "tradeError").await["code"],
        "invalid_trade"
    );

    a.send(
        ClientMessage::TradeAddItem(TradeAddItem {
            trade_id: to_id(&id),
            inventory_slot: to_slot(coins),
            quantity: Some(40),
        }),
        None,
    )
    .await;
    let updated = expect_trade(&mut b, "tradeUpdated").await;
    assert_eq!(updated["theirOffer"]["items"][0]["itemId"], "coins");
    assert_eq!(updated["theirOffer"]["items"][0]["quantity"], 40);
    assert_eq!(updated["myOffer"]["items"], json!([]));
    for ws in [&mut a, &mut b] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: to_id(&id),
            }),
            None,
        )
        .await;
    }
    for ws in [&mut a, &mut b] {
        let confirm = expect_trade(ws, "tradeConfirmScreen").await;
        assert!(confirm["values"]["mine"].is_i64());
    }
    for ws in [&mut a, &mut b] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: to_id(&id),
            }),
            None,
        )
        .await;
    }
    let done_b = expect_trade(&mut b, "tradeCompleted").await;
    assert_eq!(
        done_b["receivedItems"],
        json!([{"itemId": "coins", "quantity": 40}])
    );
    let done_a = expect_trade(&mut a, "tradeCompleted").await;
    assert_eq!(done_a["receivedItems"], json!([]));
    // Written at once, before any logout: the audit row and both records.
    let rows = app.store().trades().of(&a_id).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].player_a, a_id);
    assert_eq!(rows[0].items_a_to_b[0].quantity, 40);
    let held = |id: &str| {
        let app = &app;
        let id = id.to_owned();
        async move { totals(app, &[id]).await.get("coins").copied().unwrap_or(0) }
    };
    // Each character starts with 25 coins (the starter kit).
    assert_eq!(held(&a_id).await, 25 + 100 - 40);
    assert_eq!(held(&b_id).await, 25 + 40);
    // Free again.
    a.send(walk_to(3, 3), None).await;
    a.close().await;
    b.close().await;
    assert_eq!(totals(&app, &ids).await.get("coins"), Some(&150));
}

#[tokio::test]
async fn every_ending_and_the_dupe_regressions() {
    let app = app().await;
    let (mut a, a_id) = trader(&app, "Ada").await;
    let (mut b, b_id) = trader(&app, "Bea").await;
    let (mut c, c_id) = trader(&app, "Cyd").await;
    give(&mut a, "coins", 500).await;
    let ids = vec![a_id.clone(), b_id.clone(), c_id.clone()];
    let coins = slot_of(&mut a, "coins").await;

    // Requests: self, offline, decline.
    a.send(
        ClientMessage::TradeRequest(TradeRequest {
            target_player_id: to_id(&a_id),
        }),
        None,
    )
    .await;
    assert_eq!(
        expect_trade(&mut a, "tradeError").await["code"],
        "self_trade"
    );
    a.send(
        ClientMessage::TradeRequest(TradeRequest {
            target_player_id: "ghost".into(),
        }),
        None,
    )
    .await;
    assert_eq!(
        expect_trade(&mut a, "tradeError").await["code"],
        "player_offline"
    );
    a.send(
        ClientMessage::TradeRequest(TradeRequest {
            target_player_id: to_id(&b_id),
        }),
        None,
    )
    .await;
    let id = expect_trade(&mut b, "tradeIncoming").await["tradeId"].clone();
    b.send(
        ClientMessage::TradeRequestRespond(TradeRequestRespond {
            trade_id: to_id(&id),
            accept: false,
        }),
        None,
    )
    .await;
    let declined = expect_trade(&mut a, "tradeCancelled").await;
    assert_eq!(declined["reason"], "declined");

    // Cancel on Screen 1: each gets exactly one tradeCancelled naming who cancelled.
    let id = start(&mut a, &mut b, &b_id).await;
    b.send(
        ClientMessage::TradeCancel(TradeIdOnly {
            trade_id: to_id(&id),
        }),
        None,
    )
    .await;
    for ws in [&mut a, &mut b] {
        let cancelled = expect_trade(ws, "tradeCancelled").await;
        assert_eq!(cancelled["reason"], "cancelled");
        assert_eq!(cancelled["byPlayerId"], b_id.as_str());
    }

    // One player in two trades: the second is refused (player_busy); dropping the offered item is
    // refused (in_trade).
    let id = start(&mut a, &mut b, &b_id).await;
    a.send(
        ClientMessage::TradeAddItem(TradeAddItem {
            trade_id: to_id(&id),
            inventory_slot: to_slot(coins),
            quantity: None,
        }),
        None,
    )
    .await;
    expect_trade(&mut b, "tradeUpdated").await;
    c.send(
        ClientMessage::TradeRequest(TradeRequest {
            target_player_id: to_id(&a_id),
        }),
        None,
    )
    .await;
    assert_eq!(
        expect_trade(&mut c, "tradeError").await["code"],
        "player_busy"
    );
    a.send(
        ClientMessage::TradeRequest(TradeRequest {
            target_player_id: to_id(&c_id),
        }),
        None,
    )
    .await;
    assert_eq!(
        expect_trade(&mut a, "tradeError").await["code"],
        "player_busy"
    );
    a.send(
        ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(coins))),
        None,
    )
    .await;
    assert_eq!(a.expect_type("error").await["data"]["code"], "in_trade");

    // Disconnect between the two final accepts: the trade ends, nothing moves.
    for ws in [&mut a, &mut b] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: to_id(&id),
            }),
            None,
        )
        .await;
    }
    expect_trade(&mut a, "tradeConfirmScreen").await;
    a.send(
        ClientMessage::TradeAccept(TradeIdOnly {
            trade_id: to_id(&id),
        }),
        None,
    )
    .await;
    b.close().await;
    let ended = expect_trade(&mut a, "tradeCancelled").await;
    assert_eq!(ended["reason"], "disconnected");
    a.close().await;
    c.close().await;
    let totals_now = totals(&app, &ids).await;
    assert_eq!(totals_now.get("coins"), Some(&(3 * 25 + 500)));
    assert_eq!(
        totals(&app, std::slice::from_ref(&a_id)).await.get("coins"),
        Some(&525),
        "the coins never left"
    );
    assert_eq!(app.store().trades().count().await.unwrap(), 0);
}

#[tokio::test]
async fn a_failed_transaction_cancels_with_server_error_and_moves_nothing() {
    let Some(db) = FreshDatabase::postgres().await else {
        return;
    };
    let start_at = db.url.find('@').map(|i| i + 1).unwrap();
    let end_at = start_at + db.url[start_at..].find('/').unwrap();
    let proxy = FaultProxy::start(db.url[start_at..end_at].to_owned()).await;
    let proxied = format!(
        "{}127.0.0.1:{}{}",
        &db.url[..start_at],
        proxy.port,
        &db.url[end_at..]
    );
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", CODE.into())],
        database_url: Some(proxied),
        ..Default::default()
    })
    .await;
    let (mut a, a_id) = trader(&app, "Faulty").await;
    let (mut b, b_id) = trader(&app, "Partner").await;
    give(&mut a, "coins", 70).await;
    let ids = vec![a_id.clone(), b_id.clone()];
    let coins = slot_of(&mut a, "coins").await;
    let id = start(&mut a, &mut b, &b_id).await;
    a.send(
        ClientMessage::TradeAddItem(TradeAddItem {
            trade_id: to_id(&id),
            inventory_slot: to_slot(coins),
            quantity: None,
        }),
        None,
    )
    .await;
    for ws in [&mut a, &mut b] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: to_id(&id),
            }),
            None,
        )
        .await;
    }
    for ws in [&mut a, &mut b] {
        expect_trade(ws, "tradeConfirmScreen").await;
    }
    // The database goes away just before the final acceptance.
    proxy.cut();
    for ws in [&mut a, &mut b] {
        ws.send(
            ClientMessage::TradeAccept(TradeIdOnly {
                trade_id: to_id(&id),
            }),
            None,
        )
        .await;
    }
    for ws in [&mut a, &mut b] {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            assert!(tokio::time::Instant::now() < deadline, "no outcome");
            match ws.next().await {
                Ok(m) if m["type"] == "tradeCompleted" => panic!("completed without a database"),
                Ok(m) if m["type"] == "tradeCancelled" => {
                    assert_eq!(m["data"]["reason"], "server_error");
                    break;
                }
                Ok(_) => {}
                Err(code) => panic!("closed {code:?}"),
            }
        }
    }
    proxy.unfreeze();
    // The coins are still a's.
    assert_eq!(slot_of(&mut a, "coins").await, coins);
    a.close().await;
    b.close().await;
    for id in &ids {
        app.left(id).await;
    }
    assert_eq!(
        totals(&app, std::slice::from_ref(&a_id)).await.get("coins"),
        Some(&(25 + 70))
    );
    assert_eq!(
        totals(&app, std::slice::from_ref(&b_id)).await.get("coins"),
        Some(&25)
    );
    assert_eq!(totals(&app, &ids).await.get("coins"), Some(&(2 * 25 + 70)));
    assert_eq!(app.store().trades().count().await.unwrap(), 0);
    drop(db);
}

/// Reads until a trade message of one of `kinds` about `trade_id`.
async fn expect_one_of(ws: &mut WsClient, kinds: &[&str], trade_id: &str) -> Value {
    ws.expect("a trade message", |m| {
        kinds.iter().any(|k| m["type"] == *k) && m["data"]["tradeId"] == trade_id
    })
    .await
}

/// The slot and quantity of `item` (first stack), if held.
async fn holding(ws: &mut WsClient, item: &str) -> Option<(i64, i64)> {
    ws.send(ClientMessage::Sync, None).await;
    let sync = ws.expect_type("player:sync").await;
    sync["data"]["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["itemId"] == item)
        .map(|s| (s["slot"].as_i64().unwrap(), s["quantity"].as_i64().unwrap()))
}

/// One pair trading `rounds` times: completed, cancelled by either side, or the second player
/// disconnecting at a random moment (and coming back).
pub(crate) async fn trade_rounds(
    app: &TestApp,
    (mut a, a_id): (WsClient, String),
    (mut b, b_id, b_token): (WsClient, String, String),
    rounds: usize,
    seed: u64,
) -> (usize, WsClient, WsClient) {
    let mut rng = seed;
    let mut next = move |n: u64| {
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (rng >> 33) % n
    };
    let mut completed = 0;
    for _ in 0..rounds {
        let id = start(&mut a, &mut b, &b_id).await;
        let _ = &a_id;
        for (ws, item) in [(&mut a, "coins"), (&mut b, "bread")] {
            if let Some((slot, quantity)) = holding(ws, item).await {
                let q = 1 + (next(quantity as u64) as i64);
                ws.send(
                    ClientMessage::TradeAddItem(TradeAddItem {
                        trade_id: to_id(&id),
                        inventory_slot: to_slot(slot),
                        quantity: Some(q),
                    }),
                    None,
                )
                .await;
                expect_one_of(ws, &["tradeUpdated"], &id).await;
            }
        }
        match next(10) {
            0 | 1 => {
                let who = if next(2) == 0 { &mut a } else { &mut b };
                who.send(
                    ClientMessage::TradeCancel(TradeIdOnly {
                        trade_id: to_id(&id),
                    }),
                    None,
                )
                .await;
                for ws in [&mut a, &mut b] {
                    let m = expect_one_of(ws, &["tradeCancelled"], &id).await;
                    assert_eq!(m["data"]["reason"], "cancelled");
                }
            }
            2..=4 => {
                // b disconnects at a random step, even between the two final accepts.
                let step = next(3);
                if step >= 1 {
                    for ws in [&mut a, &mut b] {
                        ws.send(
                            ClientMessage::TradeAccept(TradeIdOnly {
                                trade_id: to_id(&id),
                            }),
                            None,
                        )
                        .await;
                    }
                    for ws in [&mut a, &mut b] {
                        expect_one_of(ws, &["tradeConfirmScreen"], &id).await;
                    }
                }
                if step == 2 {
                    a.send(
                        ClientMessage::TradeAccept(TradeIdOnly {
                            trade_id: to_id(&id),
                        }),
                        None,
                    )
                    .await;
                    b.send(
                        ClientMessage::TradeAccept(TradeIdOnly {
                            trade_id: to_id(&id),
                        }),
                        None,
                    )
                    .await;
                }
                b.close().await;
                let m = expect_one_of(&mut a, &["tradeCancelled", "tradeCompleted"], &id).await;
                if m["type"] == "tradeCompleted" {
                    completed += 1;
                } else {
                    assert_eq!(m["data"]["reason"], "disconnected");
                }
                b = enter(app, &b_token).await.0;
            }
            _ => {
                for ws in [&mut a, &mut b] {
                    ws.send(
                        ClientMessage::TradeAccept(TradeIdOnly {
                            trade_id: to_id(&id),
                        }),
                        None,
                    )
                    .await;
                }
                // Screen 2 first: accepts from two sockets may arrive in either order.
                for ws in [&mut a, &mut b] {
                    expect_one_of(ws, &["tradeConfirmScreen"], &id).await;
                }
                for ws in [&mut a, &mut b] {
                    ws.send(
                        ClientMessage::TradeAccept(TradeIdOnly {
                            trade_id: to_id(&id),
                        }),
                        None,
                    )
                    .await;
                }
                for ws in [&mut a, &mut b] {
                    let m = expect_one_of(ws, &["tradeCompleted", "tradeError"], &id).await;
                    assert_eq!(m["type"], "tradeCompleted", "{m}");
                }
                completed += 1;
            }
        }
    }
    (completed, a, b)
}

#[tokio::test]
async fn two_hundred_concurrent_trades_among_a_hundred_players_conserve_every_item() {
    // Fifty pairs at once on the wall clock: stepped by each of a hundred sockets' waits, the
    // world would run a hundred times faster than any one pair and time their requests out.
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", CODE.into())],
        clock: Clock::timed(),
        ..Default::default()
    })
    .await;
    let mut ids = Vec::new();
    let mut pairs = Vec::new();
    for n in 0..50 {
        let (a_token, a_id) = player(&app, &format!("Seller{n}")).await;
        let (b_token, b_id) = player(&app, &format!("Buyer{n}")).await;
        ids.push(a_id.clone());
        ids.push(b_id.clone());
        pairs.push((a_token, a_id, b_token, b_id));
    }
    let before = totals(&app, &ids).await;
    let app = std::sync::Arc::new(app);
    let mut tasks = Vec::new();
    for (n, (a_token, a_id, b_token, b_id)) in pairs.into_iter().enumerate() {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            let (a, _) = enter(&app, &a_token).await;
            let (b, _) = enter(&app, &b_token).await;
            let (completed, a, b) =
                trade_rounds(&app, (a, a_id), (b, b_id, b_token), 4, n as u64 + 1).await;
            a.close().await;
            b.close().await;
            completed
        }));
    }
    let mut completed = 0;
    for task in tasks {
        completed += task.await.unwrap();
    }
    assert!(completed > 0);
    assert_eq!(
        app.store().trades().count().await.unwrap(),
        completed as i64
    );
    assert_eq!(totals(&app, &ids).await, before, "items were made or lost");
}

/// The server process killed (`kill -9`) at moments around a trade's final acceptance: after each
/// restart the two traders hold, between them, every item of their two starter kits exactly once,
/// and either nothing moved (no audit row) or the whole swap did (its audit row exists).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_at_any_moment_of_a_trade_neither_loses_nor_duplicates_an_item() {
    use crate::death_crash::{owned, starter_kit, ServerProcess};
    use crate::support::free_port;
    use wayfarer_store::Store;

    let world = tempfile::tempdir().unwrap();
    let port = free_port();
    let kit = starter_kit();
    let client = reqwest::Client::new();
    // (seller, buyer, seller's items after the swap, buyer's items after the swap)
    type Pair = (String, String, BTreeMap<String, i64>, BTreeMap<String, i64>);
    let mut pairs: Vec<Pair> = Vec::new();
    let (mut moved, mut kept) = (0, 0);
    for (round, delay_ms) in [0u64, 10, 30, 45, 55, 65, 80, 100, 150, 300]
        .into_iter()
        .enumerate()
    {
        let server = ServerProcess::start(world.path(), port).await;
        let (a_token, a_id) =
            crate::support::player_on(&client, &server.base, &format!("Seller{round}")).await;
        let (b_token, b_id) =
            crate::support::player_on(&client, &server.base, &format!("Buyer{round}")).await;
        let connect = |token: String| {
            let base = server.base.clone();
            async move {
                let mut ws = WsClient::connect_to(&base, &format!("token={token}"))
                    .await
                    .unwrap();
                ws.expect_type("world:update").await;
                ws
            }
        };
        let mut a = connect(a_token).await;
        let mut b = connect(b_token).await;
        let id = start(&mut a, &mut b, &b_id).await;
        // a offers its coins, b one of its slots of bread.
        let mut offered = Vec::new();
        for (ws, item) in [(&mut a, "coins"), (&mut b, "bread")] {
            let (slot, _) = holding(ws, item).await.expect("starter kit");
            ws.send(
                ClientMessage::TradeAddItem(TradeAddItem {
                    trade_id: to_id(&id),
                    inventory_slot: to_slot(slot),
                    quantity: None,
                }),
                None,
            )
            .await;
            let update = ws
                .expect("my offer", |m| {
                    m["type"] == "tradeUpdated"
                        && m["data"]["myOffer"]["items"]
                            .as_array()
                            .is_some_and(|i| !i.is_empty())
                })
                .await;
            offered.push((
                item.to_owned(),
                update["data"]["myOffer"]["items"][0]["quantity"]
                    .as_i64()
                    .unwrap(),
            ));
        }
        for ws in [&mut a, &mut b] {
            ws.send(
                ClientMessage::TradeAccept(TradeIdOnly {
                    trade_id: to_id(&id),
                }),
                None,
            )
            .await;
        }
        for ws in [&mut a, &mut b] {
            expect_one_of(ws, &["tradeConfirmScreen"], &id).await;
        }
        for ws in [&mut a, &mut b] {
            ws.send(
                ClientMessage::TradeAccept(TradeIdOnly {
                    trade_id: to_id(&id),
                }),
                None,
            )
            .await;
        }
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        server.crash();
        let mut post_a = kit.clone();
        let mut post_b = kit.clone();
        let shift = |map: &mut BTreeMap<String, i64>, item: &str, by: i64| {
            let entry = map.entry(item.to_owned()).or_insert(0);
            *entry += by;
            if *entry == 0 {
                map.remove(item);
            }
        };
        shift(&mut post_a, &offered[0].0, -offered[0].1);
        shift(&mut post_b, &offered[0].0, offered[0].1);
        shift(&mut post_b, &offered[1].0, -offered[1].1);
        shift(&mut post_a, &offered[1].0, offered[1].1);
        pairs.push((a_id, b_id, post_a, post_b));

        let store = Store::open_sqlite(&world.path().join("wayfarer.db"))
            .await
            .unwrap();
        for (n, (a_id, b_id, post_a, post_b)) in pairs.iter().enumerate() {
            let (have_a, have_b) = (owned(&store, a_id).await, owned(&store, b_id).await);
            let traded = !store.trades().of(a_id).await.unwrap().is_empty();
            if traded {
                assert_eq!(
                    (&have_a, &have_b),
                    (post_a, post_b),
                    "round {round}, pair {n}"
                );
            } else {
                assert_eq!((&have_a, &have_b), (&kit, &kit), "round {round}, pair {n}");
            }
            if n == round {
                if traded {
                    moved += 1;
                } else {
                    kept += 1;
                }
            }
        }
        store.close().await;
    }
    eprintln!("trades written before the crash: {moved}, not written: {kept}");
    assert!(
        moved > 0 && kept > 0,
        "the kills should fall on both sides of the commit ({moved} written, {kept} not)"
    );
}

#[tokio::test]
async fn banking_and_shopping_are_refused_while_trading() {
    let app = app().await;
    let (mut a, a_id) = trader(&app, "Banker").await;
    let (mut b, b_id) = trader(&app, "Client").await;
    give(&mut a, "coins", 10).await;
    give(&mut b, "coins", 10).await;
    // Both next to Elsie the banker.
    for ws in [&mut a, &mut b] {
        ws.send(chat("/tp 8 -4"), None).await;
        ws.wait_for_tile(8, -4).await;
    }
    a.send(ClientMessage::BankOpen, None).await;
    a.expect_type("bank:update").await;
    let id = start(&mut a, &mut b, &b_id).await;
    let coins = slot_of(&mut a, "coins").await;
    a.send(
        ClientMessage::TradeAddItem(TradeAddItem {
            trade_id: to_id(&id),
            inventory_slot: to_slot(coins),
            quantity: None,
        }),
        None,
    )
    .await;
    expect_trade(&mut b, "tradeUpdated").await;
    // Depositing the offered coins (or anything) is refused; the bank stays as it was.
    a.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(to_slot(coins)),
            quantity: None,
        }),
        Some(json!("d")),
    )
    .await;
    let refused = a.expect_type("error").await;
    assert_eq!(refused["data"]["code"], "in_trade");
    assert_eq!(refused["data"]["ref"], "d");
    a.send(
        ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::Count(1),
        }),
        None,
    )
    .await;
    assert_eq!(a.expect_type("error").await["data"]["code"], "in_trade");
    a.send(ClientMessage::BankOpen, None).await;
    assert_eq!(a.expect_type("error").await["data"]["code"], "in_trade");
    a.send(
        ClientMessage::TradeCancel(TradeIdOnly {
            trade_id: to_id(&id),
        }),
        None,
    )
    .await;
    expect_trade(&mut a, "tradeCancelled").await;
    // Free again: the deposit works.
    a.send(
        ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(to_slot(coins)),
            quantity: None,
        }),
        None,
    )
    .await;
    let update = a.expect_type("bank:update").await;
    assert!(update["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["itemId"] == "coins"));
    a.close().await;
    b.close().await;
    let ids = vec![a_id, b_id];
    // Held: everything but a's 35 coins, now in the bank.
    assert_eq!(
        totals(&app, &ids).await.get("coins"),
        Some(&(2 * 25 + 20 - 35))
    );
}

#[tokio::test]
async fn trade_messages_beyond_the_rate_limit_get_a_trade_error() {
    let app = crate::support::TestApp::spawn_limited().await;
    let (token, _) = crate::support::player(&app, "Hasty").await;
    let (mut ws, _) = crate::support::enter(&app, &token).await;
    for n in 0..80 {
        ws.send(
            ClientMessage::TradeCancel(TradeIdOnly {
                trade_id: "trade-404".into(),
            }),
            Some(serde_json::json!(n)),
        )
        .await;
    }
    let error = ws
        .expect("a rate-limited tradeError", |m| {
            m["type"] == "tradeError" && m["data"]["code"] == "rate_limited"
        })
        .await;
    assert_eq!(error["data"]["tradeId"], "trade-404");
    assert!(error["data"]["ref"].is_number(), "{error}");
}
