//! A join storm under `kill -9`: many characters (each holding a different number of coins) enter
//! at once through a join budget of two a tick, so most wait in the queue; each moves an item as
//! soon as it has its `player:sync` (equip or unequip its hatchet: a command held while it waits),
//! and every other one leaves at once (its final save batched with the tick's other leaves). The
//! process is killed at moments from "the storm just began" to "everyone is in". After each kill
//! every character owns in the database exactly what it owned before (the same items and coins,
//! none lost, none twice, none another's), on SQLite and PostgreSQL; after the last, everyone
//! enters and is shown exactly what the database holds, with exactly one open session row each
//! (none left dangling by the kills).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage};
use wayfarer_store::Store;

use crate::death_crash::{owned, ServerProcess};
use crate::support::{admin_give, player_on, FreshDatabase, WsClient, WAIT};

/// Characters in the storm.
const PLAYERS: usize = 12;
/// Kill moments after the storm's first connection.
const DELAYS_MS: [u64; 5] = [0, 40, 120, 300, 800];

/// Whether the character wears its hatchet, as the database says.
async fn wears_hatchet(store: &Store, id: &str) -> bool {
    store
        .inventories()
        .equipment(id)
        .await
        .unwrap()
        .iter()
        .any(|e| e.item_id == "bronze_hatchet")
}

/// What a player's `player:sync` shows it holding (inventory and equipment), by item.
fn shown(sync: &Value) -> BTreeMap<String, i64> {
    let mut items = BTreeMap::new();
    let worn = sync["data"]["equipment"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.values());
    for slot in sync["data"]["inventory"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(worn)
    {
        if let (Some(item), Some(quantity)) = (slot["itemId"].as_str(), slot["quantity"].as_i64()) {
            *items.entry(item.to_owned()).or_insert(0) += quantity;
        }
    }
    items
}

/// Waits until every session of these characters is closed (their final saves are written).
async fn all_saved(store: &Store, ids: &[String]) {
    let deadline = Instant::now() + WAIT;
    for id in ids {
        loop {
            let sessions = store.sessions().for_character(id).await.unwrap();
            if sessions.iter().all(|s| s.close_reason.is_some()) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the session of {id} never closed"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// One player of the storm: enters, moves its hatchet at once, and leaves at once when `leaves`.
/// The process may die at any step: the player then simply stops.
async fn storm_player(base: String, token: String, leaves: bool) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let url = format!("{}/ws?token={token}", base.replace("http://", "ws://"));
    let Ok(Ok((mut stream, _))) =
        tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(url)).await
    else {
        return;
    };
    let sync = loop {
        match tokio::time::timeout(WAIT, stream.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => {
                let message: Value = serde_json::from_str(text.as_str()).unwrap();
                if message["type"] == "player:sync" {
                    break message;
                }
            }
            Ok(Some(Ok(_))) => {}
            _ => return,
        }
    };
    let holds_hatchet = sync["data"]["inventory"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["itemId"] == "bronze_hatchet")
        .map(|s| s["slot"].clone());
    let action = match holds_hatchet {
        Some(slot) => ActionRequest::new("equip").with_slot(slot),
        None => ActionRequest::new("unequip").with_slot(json!("weapon")),
    };
    let frame = ClientMessage::Action(action).frame(None);
    if stream.send(Message::Text(frame.into())).await.is_err() {
        return;
    }
    if leaves {
        let _ = stream.close(None).await;
    }
    // Read until the server closes (after a leave's final save) or dies.
    let _ = tokio::time::timeout(WAIT, async {
        while let Some(Ok(_)) = stream.next().await {}
    })
    .await;
}

async fn join_storm(db: FreshDatabase) {
    let world = tempfile::tempdir().unwrap();
    let port = crate::support::free_port();
    let client = reqwest::Client::new();
    let url = db.url.clone();
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("JOINS_PER_TICK", "2"),
        // A fixed budget: the joins queue whatever the ticks' pace.
        ("JOINS_PER_TICK_MAX", "2"),
        ("SAVE_INTERVAL", "1"),
        ("ADMIN_CODE", "code"),
    ];

    // Each character gets a different number of coins and logs out (its final save).
    let server = ServerProcess::start_with(world.path(), port, &env).await;
    let mut players = Vec::new();
    for i in 0..PLAYERS {
        let (token, id) = player_on(&client, &server.base, &format!("Storm{i}")).await;
        let mut ws = WsClient::connect_to(&server.base, &format!("token={token}"))
            .await
            .unwrap();
        ws.expect_type("player:sync").await;
        admin_give(&mut ws, "code", "coins", 10 + i as i64).await;
        ws.close().await;
        players.push((token, id));
    }
    let ids: Vec<String> = players.iter().map(|(_, id)| id.clone()).collect();
    let store = Store::connect(&url).await.unwrap();
    all_saved(&store, &ids).await;
    let mut before = BTreeMap::new();
    for id in &ids {
        before.insert(id.clone(), owned(&store, id).await);
    }
    let coins: Vec<i64> = ids.iter().map(|id| before[id]["coins"]).collect();
    assert!(
        coins.windows(2).all(|w| w[0] < w[1]),
        "every character holds its own number of coins: {coins:?}"
    );
    let mut worn = Vec::new();
    for id in &ids {
        worn.push(wears_hatchet(&store, id).await);
    }
    store.close().await;
    server.crash();

    // Hatchet moves written before a kill, over all rounds: some must be, or nothing was tested.
    let mut moves_saved = 0;
    for (round, delay_ms) in DELAYS_MS.into_iter().enumerate() {
        let server = ServerProcess::start_with(world.path(), port, &env).await;
        let storm: Vec<_> = players
            .iter()
            .enumerate()
            .map(|(i, (token, _))| {
                tokio::spawn(storm_player(server.base.clone(), token.clone(), i % 2 == 1))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        server.crash();
        for player in storm {
            player.await.unwrap();
        }

        let store = Store::connect(&url).await.unwrap();
        for id in &ids {
            assert_eq!(
                owned(&store, id).await,
                before[id],
                "round {round} (killed {delay_ms} ms into the storm): character {id}"
            );
        }
        for (id, worn) in ids.iter().zip(worn.iter_mut()) {
            let now = wears_hatchet(&store, id).await;
            moves_saved += usize::from(now != *worn);
            *worn = now;
        }
        store.close().await;
    }

    assert!(moves_saved > 0, "no move made in a storm was ever saved");
    println!("hatchet moves saved before a kill: {moves_saved}");

    // Everyone enters once more (through the queue) and is shown what the database holds.
    let server = ServerProcess::start_with(world.path(), port, &env).await;
    let entering = players.iter().map(|(token, id)| {
        let base = server.base.clone();
        let (token, id) = (token.clone(), id.clone());
        async move {
            let mut ws = WsClient::connect_to(&base, &format!("token={token}"))
                .await
                .unwrap();
            let sync = ws.expect_type("player:sync").await;
            // In the world: its first view comes once the queue lets it in.
            ws.expect_type("world:update").await;
            (id, shown(&sync), ws)
        }
    });
    let entered = futures_util::future::join_all(entering).await;
    // Their logins were written together (`Sessions::open`); the sessions the kills left open
    // were closed at each start: exactly one open session row each, theirs now.
    let store = Store::connect(&url).await.unwrap();
    for id in &ids {
        let sessions = store.sessions().for_character(id).await.unwrap();
        let open = sessions.iter().filter(|s| s.logout_at_ms.is_none()).count();
        assert_eq!(open, 1, "character {id}: {sessions:?}");
    }
    store.close().await;
    for (id, shown, ws) in entered {
        assert_eq!(shown, before[&id], "character {id} after the storms");
        ws.close().await;
    }
    server.crash();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_in_a_join_storm_neither_loses_nor_duplicates_anything_on_sqlite() {
    join_storm(FreshDatabase::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_in_a_join_storm_neither_loses_nor_duplicates_anything_on_postgres() {
    let Some(db) = FreshDatabase::postgres().await else {
        return;
    };
    join_storm(db).await;
}
