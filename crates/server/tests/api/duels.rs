//! Duels with stakes over real WebSockets (CONTRACT.md section 11), on SQLite and PostgreSQL: a
//! duel to the end (both inventories exactly right, the audit row), a duel cancelled at each
//! screen, a change after an accept resetting both, a second connection raced in 0, 1, 5, 20 and
//! 50 ms after the fight began, and `kill -9` mid-duel then a restart — every staked item exactly
//! once.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use wayfarer_protocol::duel::{DuelChallenge, DuelIdOnly, DuelRespond, DuelStakeRequest};
use wayfarer_protocol::ws::ClientMessage;
use wayfarer_protocol::Skill;
use wayfarer_store::Store;

use crate::death_crash::ServerProcess;
use crate::races::{assert_conserved, ledger};
use crate::support::messages::{act_on, chat, to_id, to_slot};
use crate::support::{
    admin_token, both_databases, enter, free_port, player, player_on, AppOptions, Clock,
    FreshDatabase, TestApp, WsClient,
};

const CODE: &str = "duel-code";
/// The bundled duel arena's bounds (world-areas.json, `duel_arena`).
const ARENA: ((i64, i64), (i64, i64)) = ((-8, 8), (-56, -41));

async fn app(db: FreshDatabase, clock: Clock) -> TestApp {
    TestApp::spawn_with(AppOptions {
        database: Some(db),
        clock,
        env: vec![("ADMIN_CODE", CODE.into())],
        ..Default::default()
    })
    .await
}

/// Makes a stored character a one-hit winner (attack and strength 99) or a one-hit loser (1 hp),
/// before it enters.
async fn prime(store: &Store, id: &str, strong: bool) {
    let mut character = store.characters().get(id).await.unwrap().unwrap();
    if strong {
        for skill in [Skill::Attack, Skill::Strength] {
            character.skills.insert(
                skill,
                wayfarer_store::SkillLevel {
                    level: 99,
                    xp: 13_034_431,
                },
            );
        }
    } else {
        character.health = 1;
    }
    store.characters().save(&character).await.unwrap();
}

/// Sends `message` and, on a manual world, runs the tick that takes it.
async fn send(app: &TestApp, ws: &mut WsClient, message: ClientMessage) {
    ws.send(message, None).await;
    if app.is_manual() {
        ws.barrier().await;
        app.step(1).await;
    }
}

/// A's and B's messages both taken by the same tick (on a manual world).
async fn send_both(
    app: &TestApp,
    (a, to_a): (&mut WsClient, ClientMessage),
    (b, to_b): (&mut WsClient, ClientMessage),
) {
    a.send(to_a, None).await;
    b.send(to_b, None).await;
    if app.is_manual() {
        a.barrier().await;
        b.barrier().await;
        app.step(1).await;
    }
}

async fn expect(ws: &mut WsClient, kind: &str) -> Value {
    ws.expect(kind, |m| m["type"] == kind).await["data"].clone()
}

/// `/give`, waiting for the inventory to show the item.
async fn give(app: &TestApp, ws: &mut WsClient, item: &str, quantity: i64) {
    ws.send(chat(format!("/admin {CODE}")), None).await;
    send(app, ws, chat(format!("/give {item} {quantity}"))).await;
    ws.expect(item, |m| {
        m["type"] == "inventory:update"
            && m["data"]["inventory"]
                .as_array()
                .is_some_and(|a| a.iter().any(|s| s["itemId"] == item))
    })
    .await;
}

/// The player's inventory as item → quantity, and the slot of `item`, from a `player:sync`.
async fn holdings(ws: &mut WsClient) -> (BTreeMap<String, i64>, Value) {
    let sync = ws.barrier().await["data"].clone();
    let mut out = BTreeMap::new();
    for slot in sync["inventory"].as_array().unwrap() {
        *out.entry(slot["itemId"].as_str().unwrap().to_owned())
            .or_default() += slot["quantity"].as_i64().unwrap();
    }
    (out, sync)
}

fn slot_of(sync: &Value, item: &str) -> i64 {
    sync["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["itemId"] == item)
        .unwrap_or_else(|| panic!("no {item} in {sync}"))["slot"]
        .as_i64()
        .unwrap()
}

/// Every item the characters hold in the database.
async fn stored(store: &Store, id: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for slot in store.inventories().get(id).await.unwrap() {
        *out.entry(slot.item_id).or_default() += slot.quantity;
    }
    out
}

fn with(mut items: BTreeMap<String, i64>, item: &str, change: i64) -> BTreeMap<String, i64> {
    *items.entry(item.to_owned()).or_default() += change;
    items.retain(|_, q| *q != 0);
    items
}

/// A challenges B, B accepts: the duel id (both on Screen 1).
async fn open_duel(app: &TestApp, a: &mut WsClient, b: &mut WsClient, b_id: &str) -> String {
    send(
        app,
        a,
        ClientMessage::DuelChallenge(DuelChallenge {
            target_player_id: to_id(b_id),
        }),
    )
    .await;
    let incoming = expect(b, "duelIncoming").await;
    let duel_id = incoming["duelId"].as_str().unwrap().to_owned();
    send(
        app,
        b,
        ClientMessage::DuelRespond(DuelRespond {
            duel_id: duel_id.clone(),
            accept: true,
        }),
    )
    .await;
    for ws in [&mut *a, &mut *b] {
        let rules = expect(ws, "duel:rules").await;
        assert_eq!(rules["screen"], 1, "{rules}");
    }
    duel_id
}

async fn stake(app: &TestApp, ws: &mut WsClient, duel_id: &str, slot: i64, quantity: Option<i64>) {
    send(
        app,
        ws,
        ClientMessage::DuelStake(DuelStakeRequest {
            duel_id: duel_id.to_owned(),
            inventory_slot: to_slot(slot),
            quantity,
        }),
    )
    .await;
}

fn accept(duel_id: &str) -> ClientMessage {
    ClientMessage::DuelAccept(DuelIdOnly {
        duel_id: duel_id.to_owned(),
    })
}

/// Reads `duel:rules` until one on `screen` where the receiver's and the other's accepts are
/// as given.
async fn expect_screen(ws: &mut WsClient, screen: i64, mine: bool, theirs: bool) -> Value {
    ws.expect("the duel screen", |m| {
        m["type"] == "duel:rules"
            && m["data"]["screen"] == screen
            && m["data"]["myStake"]["accepted"] == mine
            && m["data"]["theirStake"]["accepted"] == theirs
    })
    .await["data"]
        .clone()
}

/// Reads `duel:rules` until both stakes show (the stakes were taken before anything after them).
async fn expect_stakes(ws: &mut WsClient) -> Value {
    ws.expect("both stakes", |m| {
        m["type"] == "duel:rules"
            && m["data"]["myStake"]["items"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
            && m["data"]["theirStake"]["items"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
    })
    .await["data"]
        .clone()
}

/// Both accept both screens: the fight begins (`duel:start` to both).
async fn to_the_fight(app: &TestApp, a: &mut WsClient, b: &mut WsClient, duel_id: &str) {
    for screen in [1, 2] {
        send_both(app, (&mut *a, accept(duel_id)), (&mut *b, accept(duel_id))).await;
        if screen == 1 {
            for ws in [&mut *a, &mut *b] {
                expect_screen(ws, 2, false, false).await;
            }
        }
    }
    for ws in [&mut *a, &mut *b] {
        let start = expect(ws, "duel:start").await;
        assert_eq!(start["arenaId"], "duel_arena", "{start}");
    }
}

fn inside_arena(sync: &Value) -> bool {
    let (x, z) = (
        sync["tile"]["x"].as_i64().unwrap(),
        sync["tile"]["z"].as_i64().unwrap(),
    );
    let ((x0, x1), (z0, z1)) = ARENA;
    (x0..=x1).contains(&x) && (z0..=z1).contains(&z)
}

async fn duel_to_the_end(db: FreshDatabase) {
    let app = app(db, Clock::Manual).await;
    let (token_a, a_id) = player(&app, "Champion").await;
    let (token_b, b_id) = player(&app, "Challenger").await;
    prime(app.store(), &a_id, true).await;
    let (mut a, _) = enter(&app, &token_a).await;
    let (mut b, _) = enter(&app, &token_b).await;
    give(&app, &mut a, "coins", 100).await;
    give(&app, &mut b, "coins", 60).await;
    let (a_before, a_sync) = holdings(&mut a).await;
    let (b_before, b_sync) = holdings(&mut b).await;
    let home = (a_sync["tile"].clone(), b_sync["tile"].clone());

    // B stakes its whole stack (the starter kit's coins and the gift), A 40 of its coins.
    let b_coins = b_before["coins"];
    let duel_id = open_duel(&app, &mut a, &mut b, &b_id).await;
    stake(&app, &mut a, &duel_id, slot_of(&a_sync, "coins"), Some(40)).await;
    stake(&app, &mut b, &duel_id, slot_of(&b_sync, "coins"), None).await;
    // Each side sees the other's stake with its name and value.
    let seen = expect_screen(&mut a, 1, false, false).await;
    let seen = if seen["theirStake"]["items"].as_array().unwrap().is_empty() {
        expect_screen(&mut a, 1, false, false).await
    } else {
        seen
    };
    assert_eq!(
        seen["theirStake"]["items"][0],
        json!({"inventorySlot": slot_of(&b_sync, "coins"), "itemId": "coins", "name": "Coins",
               "quantity": b_coins, "value": b_coins})
    );
    to_the_fight(&app, &mut a, &mut b, &duel_id).await;
    send_both(
        &app,
        (&mut a, act_on("attack", &b_id)),
        (&mut b, act_on("attack", &a_id)),
    )
    .await;
    let result = a
        .expect_within_ticks(&app, 600, "duel:result", |m| m["type"] == "duel:result")
        .await["data"]
        .clone();
    let theirs = expect(&mut b, "duel:result").await;
    assert_eq!(result["winnerId"], theirs["winnerId"]);
    let a_won = result["winnerId"] == a_id.as_str();
    assert_eq!(
        result["loserId"],
        if a_won { &b_id } else { &a_id }.as_str()
    );
    let (a_expected, b_expected) = if a_won {
        (
            with(a_before, "coins", b_coins),
            with(b_before, "coins", -b_coins),
        )
    } else {
        (with(a_before, "coins", -40), with(b_before, "coins", 40))
    };
    let (winner_got, loser_got) = if a_won {
        (&result, &theirs)
    } else {
        (&theirs, &result)
    };
    assert_eq!(
        winner_got["receivedItems"],
        json!([{"itemId": "coins", "quantity": if a_won { b_coins } else { 40 }}])
    );
    assert_eq!(loser_got["receivedItems"], json!([]));
    // Both back where they stood, whole; the inventories as the result says.
    let (a_now, a_sync) = holdings(&mut a).await;
    let (b_now, b_sync) = holdings(&mut b).await;
    assert_eq!(
        (a_now.clone(), b_now.clone()),
        (a_expected.clone(), b_expected.clone())
    );
    assert_eq!((a_sync["tile"].clone(), b_sync["tile"].clone()), home);
    for sync in [&a_sync, &b_sync] {
        assert_eq!(sync["health"], sync["maxHealth"], "{sync}");
    }
    a.close().await;
    b.close().await;
    app.left(&a_id).await;
    app.left(&b_id).await;
    assert_eq!(stored(app.store(), &a_id).await, a_expected);
    assert_eq!(stored(app.store(), &b_id).await, b_expected);
    let audit = app.store().duels().of(&a_id).await.unwrap();
    assert_eq!(audit.len(), 1);
    assert_eq!(
        audit[0].loser_id,
        if a_won { &b_id } else { &a_id }.as_str()
    );
    assert_eq!(
        audit[0].items_won[0].quantity,
        if a_won { b_coins } else { 40 }
    );
}

both_databases!(
    a_duel_with_stakes_to_the_end_leaves_both_inventories_exactly_right,
    |db| { duel_to_the_end(db) }
);

async fn cancelled_at_each_screen(db: FreshDatabase) {
    let app = app(db, Clock::Manual).await;
    let (token_a, a_id) = player(&app, "Hasty").await;
    let (token_b, b_id) = player(&app, "Wary").await;
    let (mut a, _) = enter(&app, &token_a).await;
    let (mut b, _) = enter(&app, &token_b).await;
    give(&app, &mut a, "coins", 30).await;
    give(&app, &mut b, "coins", 20).await;
    let (a_before, a_sync) = holdings(&mut a).await;
    let (b_before, b_sync) = holdings(&mut b).await;

    // The challenge declined.
    send(
        &app,
        &mut a,
        ClientMessage::DuelChallenge(DuelChallenge {
            target_player_id: to_id(&b_id),
        }),
    )
    .await;
    let duel_id = expect(&mut b, "duelIncoming").await["duelId"]
        .as_str()
        .unwrap()
        .to_owned();
    send(
        &app,
        &mut b,
        ClientMessage::DuelRespond(DuelRespond {
            duel_id,
            accept: false,
        }),
    )
    .await;
    assert_eq!(expect(&mut a, "duel:cancelled").await["reason"], "declined");

    // Screen 1 (with stakes) cancelled by B, Screen 2 cancelled by A.
    for (screen, canceller) in [(1, "b"), (2, "a")] {
        let duel_id = open_duel(&app, &mut a, &mut b, &b_id).await;
        stake(&app, &mut a, &duel_id, slot_of(&a_sync, "coins"), None).await;
        stake(&app, &mut b, &duel_id, slot_of(&b_sync, "coins"), Some(5)).await;
        if screen == 2 {
            send_both(&app, (&mut a, accept(&duel_id)), (&mut b, accept(&duel_id))).await;
            expect_screen(&mut a, 2, false, false).await;
        }
        let cancel = ClientMessage::DuelCancel(DuelIdOnly {
            duel_id: duel_id.clone(),
        });
        let by = if canceller == "a" {
            send(&app, &mut a, cancel).await;
            &a_id
        } else {
            send(&app, &mut b, cancel).await;
            &b_id
        };
        for ws in [&mut a, &mut b] {
            let cancelled = expect(ws, "duel:cancelled").await;
            assert_eq!(cancelled["reason"], "cancelled", "screen {screen}");
            assert_eq!(cancelled["byPlayerId"], by.as_str());
        }
        assert_eq!(holdings(&mut a).await.0, a_before, "screen {screen}");
        assert_eq!(holdings(&mut b).await.0, b_before, "screen {screen}");
    }
    a.close().await;
    b.close().await;
    app.left(&a_id).await;
    app.left(&b_id).await;
    assert_eq!(stored(app.store(), &a_id).await, a_before);
    assert_eq!(stored(app.store(), &b_id).await, b_before);
    assert_eq!(app.store().duels().count().await.unwrap(), 0);
}

both_databases!(a_duel_cancelled_at_each_screen_returns_every_stake, |db| {
    cancelled_at_each_screen(db)
});

async fn change_after_accept(db: FreshDatabase) {
    let app = app(db, Clock::Manual).await;
    let (token_a, _) = player(&app, "Steady").await;
    let (token_b, b_id) = player(&app, "Fickle").await;
    let (mut a, _) = enter(&app, &token_a).await;
    let (mut b, _) = enter(&app, &token_b).await;
    give(&app, &mut b, "coins", 20).await;
    let (_, b_sync) = holdings(&mut b).await;
    let coins = slot_of(&b_sync, "coins");
    let duel_id = open_duel(&app, &mut a, &mut b, &b_id).await;
    stake(&app, &mut b, &duel_id, coins, Some(5)).await;
    expect_screen(&mut a, 1, false, false).await;

    // Screen 1: A accepts, B changes its stake: neither has accepted any more.
    send(&app, &mut a, accept(&duel_id)).await;
    expect_screen(&mut b, 1, false, true).await;
    stake(&app, &mut b, &duel_id, coins, Some(6)).await;
    expect_screen(&mut a, 1, false, false).await;
    expect_screen(&mut b, 1, false, false).await;

    // Screen 2: both accepted Screen 1, A accepts Screen 2, B changes its stake: back to Screen
    // 1 for both, nobody accepted.
    send_both(&app, (&mut a, accept(&duel_id)), (&mut b, accept(&duel_id))).await;
    expect_screen(&mut a, 2, false, false).await;
    send(&app, &mut a, accept(&duel_id)).await;
    expect_screen(&mut b, 2, false, true).await;
    stake(&app, &mut b, &duel_id, coins, Some(7)).await;
    let seen = expect_screen(&mut a, 1, false, false).await;
    assert_eq!(seen["theirStake"]["items"][0]["quantity"], 7);
    expect_screen(&mut b, 1, false, false).await;
    // A second accept alone does not start anything.
    send(&app, &mut a, accept(&duel_id)).await;
    expect_screen(&mut b, 1, false, true).await;
}

both_databases!(a_stake_changed_after_an_accept_resets_both_accepts, |db| {
    change_after_accept(db)
});

const DELAYS_MS: [u64; 5] = [0, 1, 5, 20, 50];

/// One raced round: a strong challenger and a 1-hp opponent stake coins; the challenger's second
/// Screen-2 accept starts the fight and its attack follows at once; `delay` later a second
/// connection replaces the challenger's. Every coin is in exactly one of the two, as the
/// result (if one was written) says; the economy report's totals moved only by the audit.
async fn raced_round(app: &TestApp, admin: &str, delay: Duration, n: usize) -> bool {
    let (token_a, a_id) = player(app, &format!("Racer{n}")).await;
    let (token_b, b_id) = player(app, &format!("Target{n}")).await;
    // Gifts in a first session, saved when it ends, so the store holds them before the duel.
    for (token, id, coins) in [(&token_a, &a_id, 50), (&token_b, &b_id, 30)] {
        let (mut ws, _) = enter(app, token).await;
        give(app, &mut ws, "coins", coins).await;
        ws.close().await;
        app.left(id).await;
    }
    prime(app.store(), &a_id, true).await;
    prime(app.store(), &b_id, false).await;
    let (mut a, _) = enter(app, &token_a).await;
    let (mut b, _) = enter(app, &token_b).await;
    let (a_before, a_sync) = holdings(&mut a).await;
    let (b_before, b_sync) = holdings(&mut b).await;
    let duel_id = open_duel(app, &mut a, &mut b, &b_id).await;
    stake(app, &mut a, &duel_id, slot_of(&a_sync, "coins"), None).await;
    stake(app, &mut b, &duel_id, slot_of(&b_sync, "coins"), None).await;
    expect_stakes(&mut a).await;
    a.send(accept(&duel_id), None).await;
    b.send(accept(&duel_id), None).await;
    expect_screen(&mut a, 2, false, false).await;
    b.send(accept(&duel_id), None).await;
    expect_screen(&mut a, 2, false, true).await;
    let before = ledger(app, admin).await;

    a.send(accept(&duel_id), None).await;
    a.send(act_on("attack", &b_id), None).await;
    tokio::time::sleep(delay).await;
    let racer = WsClient::connect(app, &format!("token={token_a}"))
        .await
        .expect("the second connection");
    assert_eq!(
        a.expect_close().await,
        Some(4000),
        "the first connection is replaced"
    );
    racer.close().await;
    b.close().await;
    app.left(&a_id).await;
    app.left(&b_id).await;

    let a_after = stored(app.store(), &a_id).await;
    let b_after = stored(app.store(), &b_id).await;
    let audit = app.store().duels().of(&a_id).await.unwrap();
    let what = format!("raced {} ms after the fight began", delay.as_millis());
    match audit.as_slice() {
        [] => {
            assert_eq!((&a_after, &b_after), (&a_before, &b_before), "{what}");
        }
        [row] => {
            let (a_stake, b_stake) = (a_before["coins"], b_before["coins"]);
            let (a_change, b_change) = if row.winner_id == a_id {
                (b_stake, -b_stake)
            } else {
                (-a_stake, a_stake)
            };
            assert_eq!(a_after, with(a_before, "coins", a_change), "{what}");
            assert_eq!(b_after, with(b_before, "coins", b_change), "{what}");
        }
        more => panic!("{what}: one duel, {} rows", more.len()),
    }
    assert_conserved(&before, &ledger(app, admin).await, &what);
    !audit.is_empty()
}

async fn raced(db: FreshDatabase) {
    let app = app(db, Clock::default()).await;
    let admin = admin_token(&app).await;
    let mut finished = 0;
    for (n, delay) in DELAYS_MS.into_iter().enumerate() {
        finished += usize::from(raced_round(&app, &admin, Duration::from_millis(delay), n).await);
    }
    println!(
        "the duel finished before the race in {finished} of {} rounds",
        DELAYS_MS.len()
    );
}

both_databases!(
    a_raced_duel_neither_loses_nor_duplicates_a_staked_item,
    |db| { raced(db) }
);

/// `kill -9` at moments from "the fight just began" to well after the first blows, then a
/// restart: both stakes where the database says (with the result, if it was written), nobody
/// restored inside the arena.
async fn crash_mid_duel(db: FreshDatabase) {
    let world = tempfile::tempdir().unwrap();
    let port = free_port();
    let client = reqwest::Client::new();
    let url = db.url.clone();
    let env = [("DATABASE_URL", url.as_str())];
    let mut written = 0;
    for (round, delay_ms) in [0u64, 5, 20, 60, 200].into_iter().enumerate() {
        let server = ServerProcess::start_with(world.path(), port, &env).await;
        let (token_a, a_id) = player_on(&client, &server.base, &format!("Brawler{round}")).await;
        let (token_b, b_id) = player_on(&client, &server.base, &format!("Victim{round}")).await;
        let connect = |token: String| {
            let base = server.base.clone();
            async move {
                let mut ws = WsClient::connect_to(&base, &format!("token={token}"))
                    .await
                    .unwrap();
                let sync = ws.expect_type("player:sync").await["data"].clone();
                (ws, sync)
            }
        };
        // Coins given and saved (a leave's final save) before the duel.
        for token in [&token_a, &token_b] {
            let (mut ws, _) = connect(token.clone()).await;
            ws.send(chat("/admin code"), None).await;
            ws.send(chat("/give coins 25"), None).await;
            ws.expect("coins", |m| {
                m["type"] == "inventory:update"
                    && m["data"]["inventory"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|s| s["itemId"] == "coins"))
            })
            .await;
            ws.close().await;
        }
        let store = Store::connect(&url).await.unwrap();
        let deadline = std::time::Instant::now() + crate::support::WAIT;
        // The gift sessions' final saves are written once their sessions are closed.
        for id in [&a_id, &b_id] {
            loop {
                let sessions = store.sessions().for_character(id).await.unwrap();
                if sessions.iter().all(|s| s.close_reason.is_some()) {
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "the gift session of {id} never closed"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        // A one-hit winner and a 1-hp loser: the result is written a tick or two into the fight,
        // so the crashes fall on both sides of it.
        prime(&store, &a_id, true).await;
        prime(&store, &b_id, false).await;
        let (a_before, b_before) = (stored(&store, &a_id).await, stored(&store, &b_id).await);
        let (mut a, a_sync) = connect(token_a.clone()).await;
        let (mut b, b_sync) = connect(token_b.clone()).await;
        // Both are in the world (a sync is answered after the join it follows).
        a.barrier().await;
        b.barrier().await;
        a.send(
            ClientMessage::DuelChallenge(DuelChallenge {
                target_player_id: to_id(&b_id),
            }),
            None,
        )
        .await;
        let duel_id = expect(&mut b, "duelIncoming").await["duelId"]
            .as_str()
            .unwrap()
            .to_owned();
        b.send(
            ClientMessage::DuelRespond(DuelRespond {
                duel_id: duel_id.clone(),
                accept: true,
            }),
            None,
        )
        .await;
        for (ws, sync) in [(&mut a, &a_sync), (&mut b, &b_sync)] {
            expect(ws, "duel:rules").await;
            ws.send(
                ClientMessage::DuelStake(DuelStakeRequest {
                    duel_id: duel_id.clone(),
                    inventory_slot: to_slot(slot_of(sync, "coins")),
                    quantity: None,
                }),
                None,
            )
            .await;
        }
        expect_stakes(&mut a).await;
        a.send(accept(&duel_id), None).await;
        b.send(accept(&duel_id), None).await;
        expect_screen(&mut a, 2, false, false).await;
        a.send(accept(&duel_id), None).await;
        b.send(accept(&duel_id), None).await;
        expect(&mut a, "duel:start").await;
        a.send(act_on("attack", &b_id), None).await;
        b.send(act_on("attack", &a_id), None).await;
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        server.crash();

        let audit = store.duels().of(&a_id).await.unwrap();
        let (a_after, b_after) = (stored(&store, &a_id).await, stored(&store, &b_id).await);
        let what = format!("round {round}, killed {delay_ms} ms into the fight");
        match audit.as_slice() {
            [] => assert_eq!((&a_after, &b_after), (&a_before, &b_before), "{what}"),
            [row] => {
                written += 1;
                let change = if row.winner_id == a_id {
                    b_before["coins"]
                } else {
                    -a_before["coins"]
                };
                assert_eq!(a_after, with(a_before.clone(), "coins", change), "{what}");
                assert_eq!(b_after, with(b_before.clone(), "coins", -change), "{what}");
            }
            more => panic!("{what}: {} rows", more.len()),
        }
        store.close().await;

        // After a restart both enter outside the arena with what the database holds.
        let server = ServerProcess::start_with(world.path(), port, &env).await;
        for (token, expected) in [(token_a, a_after), (token_b, b_after)] {
            let (ws, sync) = {
                let mut ws = WsClient::connect_to(&server.base, &format!("token={token}"))
                    .await
                    .unwrap();
                let sync = ws.expect_type("player:sync").await["data"].clone();
                (ws, sync)
            };
            assert!(
                !inside_arena(&sync),
                "{what}: restored inside the arena: {sync}"
            );
            let mut shown = BTreeMap::new();
            for slot in sync["inventory"].as_array().unwrap() {
                *shown
                    .entry(slot["itemId"].as_str().unwrap().to_owned())
                    .or_insert(0) += slot["quantity"].as_i64().unwrap();
            }
            assert_eq!(shown, expected, "{what}");
            ws.close().await;
        }
        server.crash();
    }
    println!("the result was written before the crash in {written} of 5 rounds");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_duel_returns_both_stakes_on_restart_on_sqlite() {
    crash_mid_duel(FreshDatabase::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_duel_returns_both_stakes_on_restart_on_postgres() {
    let Some(db) = FreshDatabase::postgres().await else {
        return;
    };
    crash_mid_duel(db).await;
}
