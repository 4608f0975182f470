//! A second connection for the same character raced in 0, 1, 5, 20 and 50 ms after a command that
//! moves an item (CONTRACT.md section 3: no item can be duplicated by racing two connections).
//!
//! Each round is a new character: a first session sets it up and logs out (so the store holds
//! its state), a second session makes the move, and a third connection replaces the second the
//! given time later. Before the move and after everyone logged out, every item in the world (the
//! store's rows and death locks plus what lies on the ground, from the economy audit) must differ
//! by exactly what the audit counted entering and leaving; and the replacing connection must have
//! started from the state the store holds once it logged out.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use wayfarer_protocol::trade::{TradeAddItem, TradeIdOnly, TradeRequest, TradeRequestRespond};
use wayfarer_protocol::ws::{
    ActionRequest, BankDepositRequest, BankWithdrawRequest, ClientMessage, DepositSlot, Quantity,
    ShopBuyRequest, ShopSellRequest, UseRequest,
};

use crate::support::messages::{act_on, added_of_type, chat, to_id, to_slot, walk_to};
use crate::support::{
    admin_token, both_databases, enter, player, AppOptions, Clock, FreshDatabase, TestApp, WsClient,
};

const CODE: &str = "race-code";
const DELAYS_MS: [u64; 5] = [0, 1, 5, 20, 50];
/// A tile within reach of Millbrook's bank booth (see `bank.rs`).
const BANK_TILE: (i64, i64) = (8, -4);
const STORE: &str = "millbrook_general_store";

/// The commands that move an item, and a death.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    Drop,
    Pickup,
    Equip,
    Unequip,
    Eat,
    Bury,
    Deposit,
    Withdraw,
    Buy,
    Sell,
    TradeAccept,
    Death,
}

/// Per item: units in the world (store plus ground) and the net of what entered and left; and, to
/// tell whether a move happened at all, where the units are and the audit's `moved` counters.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Ledger {
    in_world: BTreeMap<String, i64>,
    net_flow: BTreeMap<String, i64>,
    places: BTreeMap<String, [i64; 5]>,
    moved: Value,
}

pub(crate) async fn ledger(app: &TestApp, admin: &str) -> Ledger {
    let report: Value = app
        .client
        .get(app.url("/api/admin/economy"))
        .bearer_auth(admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut ledger = Ledger::default();
    for (item, totals) in report["items"].as_object().unwrap() {
        ledger
            .in_world
            .insert(item.clone(), totals["inWorld"].as_i64().unwrap());
        let place = |field: &str| totals[field].as_i64().unwrap();
        ledger.places.insert(
            item.clone(),
            [
                place("inventory"),
                place("equipment"),
                place("bank"),
                place("deathLocks"),
                place("ground"),
            ],
        );
    }
    for (direction, sign) in [("entered", 1), ("left", -1)] {
        for (item, reasons) in report[direction].as_object().unwrap() {
            let units: i64 = reasons
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_i64().unwrap())
                .sum();
            *ledger.net_flow.entry(item.clone()).or_default() += sign * units;
        }
    }
    ledger.moved = report["moved"].clone();
    ledger
}

/// Every item's units in the world changed by exactly what entered minus what left.
pub(crate) fn assert_conserved(before: &Ledger, after: &Ledger, what: &str) {
    let items: std::collections::BTreeSet<&String> = before
        .in_world
        .keys()
        .chain(after.in_world.keys())
        .chain(before.net_flow.keys())
        .chain(after.net_flow.keys())
        .collect();
    for item in items {
        let get = |m: &BTreeMap<String, i64>| m.get(item).copied().unwrap_or(0);
        let held = get(&after.in_world) - get(&before.in_world);
        let flowed = get(&after.net_flow) - get(&before.net_flow);
        assert_eq!(
            held, flowed,
            "{what}: {item} changed by {held} in the world but by {flowed} through the audit\n\
             before {before:?}\nafter {after:?}"
        );
    }
}

fn slot_of(inventory: &Value, item: &str) -> Option<i64> {
    inventory
        .as_array()?
        .iter()
        .find(|s| s["itemId"] == item)
        .and_then(|s| s["slot"].as_i64())
}

async fn say(ws: &mut WsClient, text: &str) {
    ws.send(chat(text), None).await;
}

async fn admin(ws: &mut WsClient) {
    say(ws, &format!("/admin {CODE}")).await;
    ws.expect("admin granted", |m| {
        m["type"] == "chat:message" && m["data"]["text"].as_str().unwrap_or("").contains("granted")
    })
    .await;
}

async fn give(ws: &mut WsClient, item: &str, quantity: i64) {
    say(ws, &format!("/give {item} {quantity}")).await;
    ws.expect(item, |m| {
        m["type"] == "inventory:update" && slot_of(&m["data"]["inventory"], item).is_some()
    })
    .await;
}

/// Teleports and waits for the move to show in the player's own view.
async fn teleport(ws: &mut WsClient, id: &str, (x, z): (i64, i64)) {
    say(ws, &format!("/tp {x} {z}")).await;
    ws.expect("the teleport", |m| {
        m["type"] == "world:update"
            && m["data"]["moved"].as_array().is_some_and(|a| {
                a.iter()
                    .any(|e| e["id"] == id && e["x"] == x && e["z"] == z)
            })
    })
    .await;
}

/// The first entity of `type_id` (NPC) in a view, from this socket's next updates.
async fn find_npc(ws: &mut WsClient, view: Option<&Value>, type_id: &str) -> String {
    let found = |update: &Value| added_of_type(update, type_id);
    if let Some(found) = view.and_then(found) {
        return found;
    }
    let update = ws
        .expect(type_id, |m| {
            m["type"] == "world:update" && found(&m["data"]).is_some()
        })
        .await;
    found(&update["data"]).unwrap()
}

/// A session: the socket and the first view (its `world:update`).
async fn session(app: &TestApp, token: &str) -> (WsClient, Value, Value) {
    let mut ws = WsClient::connect(app, &format!("token={token}"))
        .await
        .expect("connects");
    let sync = ws.next().await.expect("player:sync");
    assert_eq!(sync["type"], "player:sync", "{sync}");
    let view = ws.expect_type("world:update").await;
    (ws, sync["data"].clone(), view["data"].clone())
}

/// A trade partner standing by, with whom the mover's offer is accepted on both screens but the
/// mover's final accept.
struct Partner {
    ws: WsClient,
    trade_id: String,
}

/// Sets the round up on a first session and logs it out; returns what the move needs.
async fn set_up(app: &TestApp, kind: Move, token: &str, id: &str) -> Option<String> {
    let (mut ws, sync, _) = session(app, token).await;
    admin(&mut ws).await;
    let mut ground_item = None;
    match kind {
        Move::Pickup => {
            let slot = slot_of(&sync["inventory"], "tinderbox").unwrap();
            ws.send(
                ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(slot))),
                None,
            )
            .await;
            let update = ws
                .expect("the dropped tinderbox", |m| {
                    m["type"] == "world:update"
                        && m["data"]["added"].as_array().is_some_and(|a| {
                            a.iter()
                                .any(|e| e["kind"] == "groundItem" && e["itemId"] == "tinderbox")
                        })
                })
                .await;
            ground_item = update["data"]["added"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["kind"] == "groundItem" && e["itemId"] == "tinderbox")
                .and_then(|e| e["id"].as_str())
                .map(str::to_owned);
        }
        Move::Unequip => {
            let slot = slot_of(&sync["inventory"], "bronze_hatchet").unwrap();
            ws.send(
                ClientMessage::Action(ActionRequest::new("equip").with_slot(json!(slot))),
                None,
            )
            .await;
            ws.expect_type("equipment:update").await;
        }
        Move::Eat => give(&mut ws, "shrimp", 1).await,
        Move::Bury => give(&mut ws, "bones", 1).await,
        Move::Deposit => teleport(&mut ws, id, BANK_TILE).await,
        Move::Withdraw => {
            teleport(&mut ws, id, BANK_TILE).await;
            let slot = slot_of(&sync["inventory"], "coins").unwrap();
            ws.send(
                ClientMessage::BankDeposit(BankDepositRequest {
                    slot: DepositSlot::Slot(to_slot(slot)),
                    quantity: None,
                }),
                None,
            )
            .await;
            ws.expect_type("bank:update").await;
        }
        Move::Buy => give(&mut ws, "coins", 100).await,
        Move::Death => teleport(&mut ws, id, crate::support::bandit_tile()).await,
        Move::Drop | Move::Equip | Move::Sell | Move::TradeAccept => {}
    }
    ws.close().await;
    ground_item
}

/// Brings the acting session to the moment before the move (a shop open, a trade on its last
/// accept, a fight that will end in death).
async fn prepare(
    app: &TestApp,
    kind: Move,
    ws: &mut WsClient,
    (sync, view): (&Value, &Value),
    ground_item: Option<&str>,
    round: usize,
) -> Option<Partner> {
    match kind {
        Move::Pickup => {
            // Stand on the item first, so that the pickup is one tick's work, like the others.
            let id = sync["id"].as_str().unwrap();
            let item = view["added"]
                .as_array()
                .and_then(|a| a.iter().find(|e| e["id"] == ground_item.unwrap_or("")))
                .expect("the dropped item in view")
                .clone();
            let tile = (item["x"].as_i64().unwrap(), item["z"].as_i64().unwrap());
            if sync["tile"]["x"].as_i64() != Some(tile.0)
                || sync["tile"]["z"].as_i64() != Some(tile.1)
            {
                ws.send(walk_to(tile.0, tile.1), None).await;
                ws.expect("on the item's tile", |m| {
                    m["type"] == "world:update"
                        && m["data"]["moved"].as_array().is_some_and(|a| {
                            a.iter()
                                .any(|e| e["id"] == id && e["x"] == tile.0 && e["z"] == tile.1)
                        })
                })
                .await;
            }
            None
        }
        Move::Buy | Move::Sell => {
            let tobin = find_npc(ws, Some(view), "merchant_tobin").await;
            crate::shops::open_store_of(ws, &tobin).await;
            None
        }
        Move::TradeAccept => {
            let (token, partner_id) = player(app, &format!("Partner{round}")).await;
            let (mut partner, _) = enter(app, &token).await;
            ws.send(ClientMessage::Sync, None).await;
            let sync = ws.expect_type("player:sync").await;
            let coins = slot_of(&sync["data"]["inventory"], "coins").unwrap();
            ws.send(
                ClientMessage::TradeRequest(TradeRequest {
                    target_player_id: to_id(&partner_id),
                }),
                None,
            )
            .await;
            let incoming = partner.expect_type("tradeIncoming").await;
            let trade_id = incoming["data"]["tradeId"].as_str().unwrap().to_owned();
            partner
                .send(
                    ClientMessage::TradeRequestRespond(TradeRequestRespond {
                        trade_id: to_id(&trade_id),
                        accept: true,
                    }),
                    None,
                )
                .await;
            ws.expect_type("tradeStarted").await;
            partner.expect_type("tradeStarted").await;
            ws.send(
                ClientMessage::TradeAddItem(TradeAddItem {
                    trade_id: to_id(&trade_id),
                    inventory_slot: to_slot(coins),
                    quantity: Some(10),
                }),
                None,
            )
            .await;
            partner.expect_type("tradeUpdated").await;
            for side in [&mut *ws, &mut partner] {
                side.send(
                    ClientMessage::TradeAccept(TradeIdOnly {
                        trade_id: to_id(&trade_id),
                    }),
                    None,
                )
                .await;
            }
            ws.expect_type("tradeConfirmScreen").await;
            partner.expect_type("tradeConfirmScreen").await;
            partner
                .send(
                    ClientMessage::TradeAccept(TradeIdOnly {
                        trade_id: to_id(&trade_id),
                    }),
                    None,
                )
                .await;
            Some(Partner {
                ws: partner,
                trade_id,
            })
        }
        _ => None,
    }
}

/// Sends the move; for a death, fights until the death is dispatched.
async fn make_move(
    kind: Move,
    ws: &mut WsClient,
    sync: &Value,
    view: &Value,
    ground_item: Option<&str>,
    partner: Option<&Partner>,
) {
    let inventory = &sync["inventory"];
    let slot = |item: &str| slot_of(inventory, item).unwrap_or_else(|| panic!("no {item}"));
    let message = match kind {
        Move::Drop => {
            ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(slot("tinderbox"))))
        }
        Move::Pickup => act_on("pickup", ground_item.expect("the dropped item")),
        Move::Equip => ClientMessage::Action(
            ActionRequest::new("equip").with_slot(json!(slot("bronze_hatchet"))),
        ),
        Move::Unequip => ClientMessage::Action(ActionRequest::new("unequip").with_slot("weapon")),
        Move::Eat => ClientMessage::Use(UseRequest::new(to_slot(slot("shrimp")))),
        Move::Bury => ClientMessage::Use(UseRequest::new(to_slot(slot("bones")))),
        Move::Deposit => ClientMessage::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(to_slot(slot("tinderbox"))),
            quantity: None,
        }),
        Move::Withdraw => ClientMessage::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::Count(10),
        }),
        Move::Buy => ClientMessage::ShopBuy(ShopBuyRequest {
            store_id: to_id(STORE),
            item_id: "bronze_hatchet".into(),
            quantity: 1,
        }),
        Move::Sell => ClientMessage::ShopSell(ShopSellRequest {
            store_id: to_id(STORE),
            slot: to_slot(slot("tinderbox")),
            quantity: Some(1),
        }),
        Move::TradeAccept => ClientMessage::TradeAccept(TradeIdOnly {
            trade_id: to_id(&partner.expect("a partner").trade_id),
        }),
        Move::Death => {
            let bandit = find_npc(ws, Some(view), "bandit").await;
            ws.send(act_on("attack", &bandit), None).await;
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            let mut died = false;
            loop {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the player never died"
                );
                let m = ws.next().await.expect("connected while fighting");
                // The death, then the inventory it left (the 3 most valuable items are kept).
                died |= m["type"] == "player:death";
                if died && m["type"] == "inventory:update" {
                    return;
                }
            }
        }
    };
    ws.send(message, None).await;
}

/// One round: set up, move, race a replacing connection in `delay` later, check conservation.
/// True when the move took effect (the race may also come before the world took the command).
async fn round(app: &TestApp, admin: &str, kind: Move, delay: Duration, round: usize) -> bool {
    let what = format!("{kind:?} raced after {} ms", delay.as_millis());
    let (token, id) = player(app, &format!("Racer{round}")).await;
    let ground_item = set_up(app, kind, &token, &id).await;
    let (mut ws, sync, view) = session(app, &token).await;
    let partner = prepare(
        app,
        kind,
        &mut ws,
        (&sync, &view),
        ground_item.as_deref(),
        round,
    )
    .await;
    let before = ledger(app, admin).await;

    make_move(
        kind,
        &mut ws,
        &sync,
        &view,
        ground_item.as_deref(),
        partner.as_ref(),
    )
    .await;
    tokio::time::sleep(delay).await;
    let (racer, _, _) = session(app, &token).await;
    let code = ws.expect_close().await;
    assert_eq!(code, Some(4000), "{what}: the first connection is replaced");
    let replaced_with = {
        let mut racer = racer;
        racer.send(ClientMessage::Sync, None).await;
        let sync = racer.expect_type("player:sync").await["data"].clone();
        racer.close().await;
        sync
    };
    if let Some(partner) = partner {
        partner.ws.close().await;
    }

    // The replacing session started from the final state: the store holds, once it left, what
    // it was given on entry (it did nothing itself).
    let stored = app.store().inventories().get(&id).await.unwrap();
    let mut stored: Vec<(String, i64)> = stored
        .into_iter()
        .map(|s| (s.item_id, s.quantity))
        .collect();
    let mut shown: Vec<(String, i64)> = replaced_with["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["itemId"].as_str().unwrap().to_owned(),
                s["quantity"].as_i64().unwrap(),
            )
        })
        .collect();
    stored.sort();
    shown.sort();
    assert_eq!(stored, shown, "{what}: the store and the replacing session");

    let after = ledger(app, admin).await;
    assert_conserved(&before, &after, &what);
    if kind == Move::TradeAccept {
        // Coins changed hands between two characters: the audit row tells.
        !app.store().trades().of(&id).await.unwrap().is_empty()
    } else {
        before != after
    }
}

async fn race(kind: Move, db: FreshDatabase) {
    let backend = wayfarer_store::Backend::from_url(&db.url).unwrap();
    let app = TestApp::spawn_with(AppOptions {
        database: Some(db),
        env: vec![("ADMIN_CODE", CODE.into())],
        // The race is in wall time: a connection replacing the mover some milliseconds after
        // its command, while the world ticks on its own.
        clock: Clock::timed(),
        ..Default::default()
    })
    .await;
    let admin = admin_token(&app).await;
    let mut moved = 0;
    for (n, delay) in DELAYS_MS.into_iter().enumerate() {
        moved += usize::from(round(&app, &admin, kind, Duration::from_millis(delay), n).await);
    }
    // Rounds where the race beat the command prove nothing about the move: most must not. A
    // pickup is the exception: it happens in the actions phase of the tick after the command,
    // and a leave taken before that tick takes the player out first (the pickup never happens,
    // which is no loss), so only the rounds raced a tick or more later see it.
    println!(
        "{kind:?} on {}: the move took effect in {moved} of {} rounds",
        backend.name(),
        DELAYS_MS.len()
    );
    let least = if kind == Move::Pickup { 1 } else { 3 };
    assert!(
        moved >= least,
        "{kind:?}: the move took effect in only {moved} rounds"
    );
}

macro_rules! race_tests {
    ($($kind:ident: $name:ident;)*) => {$(
        both_databases!($name, |db| race(Move::$kind, db));
    )*};
}

race_tests! {
    Drop: a_raced_drop_conserves_items;
    Pickup: a_raced_pickup_conserves_items;
    Equip: a_raced_equip_conserves_items;
    Unequip: a_raced_unequip_conserves_items;
    Eat: a_raced_eat_conserves_items;
    Bury: a_raced_bury_conserves_items;
    Deposit: a_raced_bank_deposit_conserves_items;
    Withdraw: a_raced_bank_withdraw_conserves_items;
    Buy: a_raced_shop_buy_conserves_items;
    Sell: a_raced_shop_sell_conserves_items;
    TradeAccept: a_raced_trade_accept_conserves_items;
    Death: a_raced_death_conserves_items;
}
