//! The persistent world (`worldChunks`) across restarts, on SQLite and PostgreSQL: a tree felled
//! before a restart is still felled after it and then grows back; a log dropped before it still
//! lies there and can be picked up; an entry the content no longer has is skipped; and under
//! `kill -9` around drops and pickups every log exists exactly once, in the character's rows or in
//! a chunk.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage};
use wayfarer_store::{ChunkWrite, Store};

use crate::death_crash::ServerProcess;
use crate::support::free_port;
use crate::support::messages::act_on;
use crate::support::{
    admin_give, both_databases, economy_report, player, player_on, AppOptions, FreshDatabase,
    TestApp, WsClient, WAIT,
};

const CODE: &str = "chunks";

fn options(db: FreshDatabase) -> AppOptions {
    AppOptions {
        database: Some(db),
        env: vec![("ADMIN_CODE", CODE.into())],
        ..Default::default()
    }
}

/// The slots holding `item` in an `inventory:update`.
fn slots_of(update: &Value, item: &str) -> Vec<i64> {
    update["data"]["inventory"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|s| s["itemId"] == item)
                .filter_map(|s| s["slot"].as_i64())
                .collect()
        })
        .unwrap_or_default()
}

/// Chops the normal tree nearest the player until it is felled; returns the tree as first seen
/// (its `x`, `z` and `id`). Logs that fill the inventory are dropped.
async fn fell_a_tree(ws: &mut WsClient, first_view: &Value, at: (i64, i64)) -> Value {
    let mut trees: Vec<Value> = first_view["data"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["typeId"] == "tree_normal")
        .cloned()
        .collect();
    trees.sort_by_key(|t| {
        (t["x"].as_i64().unwrap() - at.0)
            .abs()
            .max((t["z"].as_i64().unwrap() - at.1).abs())
    });
    let tree = trees.first().expect("a tree in view of the spawn").clone();
    let gather = act_on("gather", &tree["id"]);
    ws.send(gather.clone(), None).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut logs = Vec::new();
    loop {
        assert!(Instant::now() < deadline, "the tree never fell");
        let m = ws.next().await.expect("connected");
        if m["type"] == "inventory:update" {
            logs = slots_of(&m, "logs");
        }
        if m["type"] == "chat:message"
            && m["data"]["text"]
                .as_str()
                .is_some_and(|t| t.contains("inventory"))
        {
            // Full: make room and go on.
            for slot in logs.drain(..) {
                ws.send(
                    ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(slot))),
                    None,
                )
                .await;
            }
            ws.send(gather.clone(), None).await;
        }
        let felled = m["type"] == "world:update"
            && m["data"]["changed"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|e| e["id"] == tree["id"] && e["depleted"] == true)
            });
        if felled {
            return tree;
        }
    }
}

async fn felled_trees_and_dropped_logs_survive_a_restart(db: FreshDatabase) {
    let app = TestApp::spawn_with(options(db)).await;
    let (token, _) = player(&app, "Forester").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    let sync = ws.expect_type("player:sync").await;
    let at = (
        sync["data"]["tile"]["x"].as_i64().unwrap(),
        sync["data"]["tile"]["z"].as_i64().unwrap(),
    );
    let view = ws.expect_type("world:update").await;
    let tree = fell_a_tree(&mut ws, &view, at).await;
    // One log more on the ground, dropped where the player stands.
    let slot = admin_give(&mut ws, CODE, "logs", 1).await;
    ws.send(
        ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(slot))),
        None,
    )
    .await;
    ws.expect("the drop", |m| {
        m["type"] == "world:update"
            && m["data"]["added"]
                .as_array()
                .is_some_and(|a| a.iter().any(|e| e["itemId"] == "logs"))
    })
    .await;
    ws.close().await;
    let before = economy_report(&app).await["items"]["logs"].clone();
    assert!(before["ground"].as_i64() >= Some(1), "{before}");

    let stopped = app.stop().await;
    let (app, _stopped) = stopped.restart().await;
    let rows = app.store().world_chunks().all().await.unwrap();
    assert!(
        rows.iter().any(|r| r.data.contains("tree_normal")),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r.data.contains(r#""itemId":"logs""#)));
    // Every log on the ground before the stop lies there again.
    let after = economy_report(&app).await["items"]["logs"].clone();
    assert_eq!(after["ground"], before["ground"], "{after} vs {before}");

    // The tree is still felled, then grows back (60 ticks); the log is there and can be taken.
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    ws.expect_type("player:sync").await;
    let view = ws.expect_type("world:update").await;
    let added = view["data"]["added"].as_array().unwrap().clone();
    let felled = added
        .iter()
        .find(|e| e["typeId"] == "tree_normal" && e["x"] == tree["x"] && e["z"] == tree["z"])
        .expect("the tree is in view")
        .clone();
    assert_eq!(felled["depleted"], true, "{felled}");
    let log = added
        .iter()
        .find(|e| e["itemId"] == "logs")
        .expect("the dropped log lies there")
        .clone();
    ws.send(act_on("pickup", &log["id"]), None).await;
    // Either may come first.
    let (mut picked, mut regrown) = (false, false);
    let deadline = Instant::now() + WAIT;
    while !(picked && regrown) {
        assert!(
            Instant::now() < deadline,
            "picked {picked}, regrown {regrown}"
        );
        let m = ws.next().await.expect("connected");
        picked |= m["type"] == "inventory:update" && !slots_of(&m, "logs").is_empty();
        regrown |= m["type"] == "world:update"
            && m["data"]["changed"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|e| e["id"] == felled["id"] && e["depleted"] == false)
            });
    }
}

both_databases!(felled_trees_and_dropped_logs_survive_a_restart, |db| {
    felled_trees_and_dropped_logs_survive_a_restart(db)
});

async fn unknown_entries_are_skipped(db: FreshDatabase) {
    let app = TestApp::spawn_with(options(db)).await;
    let content = wayfarer_content::load_bundled();
    let spawn = wayfarer_sim::World::new(std::sync::Arc::new(content), 1).spawn_tile();
    let chunk = wayfarer_sim::ChunkKey::of(spawn);
    let data = json!({
        "v": 1,
        "resources": [{"key": "gone/resource/0", "resourceId": "tree_normal", "ticksLeft": 30}],
        "ground": [
            {"itemId": "no_such_item", "quantity": 3, "x": spawn.x, "z": spawn.z, "ticksLeft": 200},
            {"itemId": "logs", "quantity": 1, "x": spawn.x, "z": spawn.z, "ticksLeft": 200}
        ]
    });
    app.store()
        .world_chunks()
        .write(&[ChunkWrite {
            chunk_x: chunk.x,
            chunk_z: chunk.z,
            data: Some(data.to_string()),
        }])
        .await
        .unwrap();
    let (app, _stopped) = app.stop().await.restart().await;
    assert_eq!(app.get("/health").await.status(), 200);
    let logs = economy_report(&app).await["items"]["logs"].clone();
    assert_eq!(logs["ground"], 1, "{logs}");
    // The chunk is written again without what was skipped.
    let deadline = Instant::now() + WAIT;
    loop {
        let rows = app.store().world_chunks().all().await.unwrap();
        if rows.len() == 1 && !rows[0].data.contains("no_such_item") {
            assert!(!rows[0].data.contains("gone/resource"));
            assert!(rows[0].data.contains(r#""itemId":"logs""#));
            break;
        }
        assert!(Instant::now() < deadline, "{rows:?}");
        app.pass_time().await;
    }
}

both_databases!(unknown_entries_are_skipped, |db| {
    unknown_entries_are_skipped(db)
});

/// Logs the character holds plus logs in the stored chunks.
async fn logs_in_store(store: &Store, character: &str) -> i64 {
    let held: i64 = store
        .inventories()
        .get(character)
        .await
        .unwrap()
        .iter()
        .filter(|s| s.item_id == "logs")
        .map(|s| s.quantity)
        .sum();
    let mut on_ground = 0;
    for row in store.world_chunks().all().await.unwrap() {
        let data: Value = serde_json::from_str(&row.data).unwrap();
        for item in data["ground"].as_array().into_iter().flatten() {
            if item["itemId"] == "logs" {
                on_ground += item["quantity"].as_i64().unwrap();
            }
        }
    }
    held + on_ground
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_around_drops_and_pickups_neither_loses_nor_duplicates_an_item() {
    let world = tempfile::tempdir().unwrap();
    let port = free_port();
    let client = reqwest::Client::new();
    // Saves every second, so that crashes fall before and after the records' writes.
    let env = [("SAVE_INTERVAL", "1"), ("ADMIN_CODE", "code")];
    let server = ServerProcess::start_with(world.path(), port, &env).await;
    let (token, id) = player_on(&client, &server.base, "Juggler").await;
    let mut ws = WsClient::connect_to(&server.base, &format!("token={token}"))
        .await
        .unwrap();
    ws.expect_type("player:sync").await;
    admin_give(&mut ws, "code", "logs", 4).await;
    ws.close().await;
    // Logged out: the record is written with the logs.
    let mut expected = None;
    let deadline = Instant::now() + WAIT;
    while expected != Some(4) {
        assert!(Instant::now() < deadline, "the logs were never saved");
        let store = Store::open_sqlite(&world.path().join("wayfarer.db"))
            .await
            .unwrap();
        expected = Some(logs_in_store(&store, &id).await);
        store.close().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.crash();

    // Each round drops a log (even rounds) or picks one up (odd rounds), then is killed some
    // moments later: before the record's write, around it, or well after it.
    for (round, delay_ms) in [0u64, 400, 900, 1300, 2500, 30, 700, 1100]
        .into_iter()
        .enumerate()
    {
        let server = ServerProcess::start_with(world.path(), port, &env).await;
        let mut ws = WsClient::connect_to(&server.base, &format!("token={token}"))
            .await
            .unwrap();
        let sync = ws.expect_type("player:sync").await;
        let view = ws.expect_type("world:update").await;
        let held: Vec<i64> = sync["data"]["inventory"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["itemId"] == "logs")
            .filter_map(|s| s["slot"].as_i64())
            .collect();
        let lying: Vec<Value> = view["data"]["added"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["itemId"] == "logs")
            .cloned()
            .collect();
        if round % 2 == 0 && !held.is_empty() || lying.is_empty() {
            ws.send(
                ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(held[0]))),
                None,
            )
            .await;
        } else {
            ws.send(act_on("pickup", &lying[0]["id"]), None).await;
        }
        ws.expect_type("inventory:update").await;
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        server.crash();

        let store = Store::open_sqlite(&world.path().join("wayfarer.db"))
            .await
            .unwrap();
        assert_eq!(
            logs_in_store(&store, &id).await,
            4,
            "round {round}, killed {delay_ms} ms after the move"
        );
        store.close().await;
    }

    // After a restart, the economy audit finds every log once: in the records or on the ground.
    let server = ServerProcess::start_with(world.path(), port, &env).await;
    let admin: Value = client
        .post(format!("{}/api/auth/guest", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let store = Store::open_sqlite(&world.path().join("wayfarer.db"))
        .await
        .unwrap();
    store
        .users()
        .set_roles(admin["accountId"].as_str().unwrap(), &["admin".into()])
        .await
        .unwrap();
    store.close().await;
    let admin = admin["token"].as_str().unwrap().to_owned();
    let report: Value = client
        .get(format!("{}/api/admin/economy", server.base))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(report["items"]["logs"]["inWorld"], 4, "{report}");
}
