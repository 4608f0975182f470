//! The death lock under `kill -9`: a real server process, a player killed by a bandit, and the
//! process killed at moments around the death's write. After each restart every item of the
//! starter kit exists exactly once in the database — in the character's rows or in an open death
//! lock — and the restored pile gives back exactly what the lock holds.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use wayfarer_store::Store;

use crate::support::{die_to_a_bandit, free_port, wait_healthy};
use crate::support::{player_on, WsClient, WAIT};

pub(crate) struct ServerProcess {
    child: Child,
    pub(crate) base: String,
}

impl ServerProcess {
    pub(crate) async fn start(world: &std::path::Path, port: u16) -> ServerProcess {
        ServerProcess::start_with(world, port, &[]).await
    }

    /// [`ServerProcess::start`] with more environment variables (set last, so they win).
    pub(crate) async fn start_with(
        world: &std::path::Path,
        port: u16,
        env: &[(&str, &str)],
    ) -> ServerProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_wayfarer"));
        command
            .arg("serve")
            .current_dir(world)
            .env("WORLD", world)
            .env("PORT", port.to_string())
            .env("HOST", "127.0.0.1")
            .env("NODE_ENV", "test")
            .env("TICK_MS", "50")
            .env("ADMIN_CODE", "code")
            .env("DISABLE_RATE_LIMIT", "true")
            .env("RUST_LOG", "warn")
            .env_remove("DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in env {
            command.env(k, v);
        }
        let child = command.spawn().unwrap();
        let base = format!("http://127.0.0.1:{port}");
        wait_healthy(&base, Duration::from_secs(30)).await;
        ServerProcess { child, base }
    }

    /// `kill -9`: no shutdown, no final saves.
    pub(crate) fn crash(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every item the character owns in the database: its rows plus its open death locks.
pub(crate) async fn owned(store: &Store, character: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for slot in store.inventories().get(character).await.unwrap() {
        *out.entry(slot.item_id).or_default() += slot.quantity;
    }
    for worn in store.inventories().equipment(character).await.unwrap() {
        *out.entry(worn.item_id).or_default() += worn.quantity;
    }
    for lock in store.deaths().locked().await.unwrap() {
        if lock.character_id == character {
            for item in lock.items {
                *out.entry(item.item_id).or_default() += item.quantity;
            }
        }
    }
    out
}

pub(crate) fn starter_kit() -> BTreeMap<String, i64> {
    let mut kit = BTreeMap::new();
    for entry in wayfarer_content::load_bundled().starter_kit() {
        *kit.entry(entry.item_id.clone()).or_default() += i64::from(entry.quantity);
    }
    kit
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_at_any_moment_of_a_death_neither_loses_nor_duplicates_an_item() {
    let world = tempfile::tempdir().unwrap();
    let port = free_port();
    let kit = starter_kit();
    let client = reqwest::Client::new();
    let mut characters = Vec::new();
    let mut last_token = String::new();
    // Kill the process at moments from "the death was just sent to the client" to well after its
    // write; each round is a new character.
    for (round, delay_ms) in [0u64, 1, 3, 8, 20, 60].into_iter().enumerate() {
        let server = ServerProcess::start(world.path(), port).await;
        let (token, id) = player_on(&client, &server.base, &format!("Doomed{round}")).await;
        let mut ws = WsClient::connect_to(&server.base, &format!("token={token}"))
            .await
            .unwrap();
        die_to_a_bandit(&mut ws.stream, "code").await;
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        server.crash();
        characters.push(id);
        last_token = token;

        let store = Store::open_sqlite(&world.path().join("wayfarer.db"))
            .await
            .unwrap();
        for id in &characters {
            assert_eq!(
                owned(&store, id).await,
                kit,
                "round {round} (killed {delay_ms} ms after the death): character {id}"
            );
        }
        store.close().await;
    }

    // After a restart the piles of the locked deaths lie on the ground again, private to their
    // owners; picking one up moves its items back out of the lock.
    let server = ServerProcess::start(world.path(), port).await;
    let store = Store::open_sqlite(&world.path().join("wayfarer.db"))
        .await
        .unwrap();
    let locks = store.deaths().locked().await.unwrap();
    assert!(!locks.is_empty(), "some rounds were killed after the write");
    let content = wayfarer_content::load_bundled();
    // One entity per stack of a stackable item, one per item otherwise.
    let expected: i64 = locks
        .iter()
        .flat_map(|l| &l.items)
        .map(|i| match content.items.get(i.item_id.as_str()) {
            Some(item) if item.stackable => 1,
            _ => i.quantity,
        })
        .sum();
    let deadline = Instant::now() + WAIT;
    loop {
        let world: Value = client
            .get(format!("{}/api/v1/world", server.base))
            .bearer_auth(&last_token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if world["entities"]["groundItems"].as_i64() == Some(expected) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{world}: expected {expected} ground items from {} locks",
            locks.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    store.close().await;
}
