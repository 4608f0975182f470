//! Several worlds (issue 19): real `wayfarer serve` processes on one PostgreSQL and one
//! `nats-server`. Each test has its own database and its own NATS on a free port, so tests stay
//! independent. Without `nats-server` or `TEST_DATABASE_URL` a test skips
//! (`wayfarer_store::testing::skip`: listed in the skip log, and a failure under `CI=true`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use wayfarer_protocol::ws::{ClientMessage, FriendRespond, NameRequest};
use wayfarer_store::testing::{skip, FreshDatabase};
use wayfarer_store::Store;
use wayfarer_testkit::messages::private;

use common::{free_port, player_on, Read, Stream};

mod chat_limits;
/// The shared harness, with its raw socket helpers, under the name these tests use.
mod common {
    pub use wayfarer_testkit::socket::{read, send_message};
    pub use wayfarer_testkit::*;
}
mod death_piles;
mod friends;
mod global_chat;
mod revocations;

/// The same secret on every world: a token from one is good on all.
const JWT_SECRET: &str = "several-worlds-test-secret-0123456789abcdef";
/// Short leases so a killed world's characters are free within seconds.
const LEASE_SECS: u64 = 3;
/// `/admin <code>` in chat grants admin commands (`/tp`).
const ADMIN_CODE: &str = "worlds-admin";
/// Longest wait for anything a test expects.
const WAIT: Duration = Duration::from_secs(20);

/// The `nats-server` binary, or `None` (the test skips) when it is missing.
fn nats_binary() -> Option<std::path::PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("nats-server"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        skip("nats-server is not installed (apt-get install nats-server)");
    }
    found
}

/// A `nats-server` of the test's own.
struct Nats {
    binary: std::path::PathBuf,
    port: u16,
    child: Option<Child>,
}

impl Nats {
    async fn start() -> Option<Nats> {
        let mut nats = Nats {
            binary: nats_binary()?,
            port: free_port(),
            child: None,
        };
        nats.resume().await;
        Some(nats)
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Starts it (again, on the same port).
    async fn resume(&mut self) {
        let child = Command::new(&self.binary)
            .args(["-a", "127.0.0.1", "-p", &self.port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        let deadline = Instant::now() + WAIT;
        while tokio::net::TcpStream::connect(("127.0.0.1", self.port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "nats-server never listened");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Everything a test needs: a database, NATS, and the worlds it starts.
struct Cluster {
    db: FreshDatabase,
    nats: Nats,
    http: reqwest::Client,
}

impl Cluster {
    async fn new() -> Option<Cluster> {
        let nats = Nats::start().await?;
        let db = FreshDatabase::postgres().await?;
        Some(Cluster {
            db,
            nats,
            http: reqwest::Client::new(),
        })
    }

    async fn world(&self, id: i64) -> World {
        World::start(id, &self.db.url, &self.nats.url(), None).await
    }

    /// A world with more settings (`env`, set last).
    async fn world_with(&self, id: i64, env: &[(&str, &str)]) -> World {
        World::start_with(id, &self.db.url, &self.nats.url(), None, env).await
    }

    async fn store(&self) -> Store {
        Store::connect(&self.db.url).await.unwrap()
    }
}

/// One `wayfarer serve` process.
struct World {
    id: i64,
    child: Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl World {
    async fn start(id: i64, db: &str, nats: &str, port: Option<u16>) -> World {
        World::start_with(id, db, nats, port, &[]).await
    }

    async fn start_with(
        id: i64,
        db: &str,
        nats: &str,
        port: Option<u16>,
        env: &[(&str, &str)],
    ) -> World {
        let dir = tempfile::tempdir().unwrap();
        let port = port.unwrap_or_else(free_port);
        let base = format!("http://127.0.0.1:{port}");
        let child = spawn_world(id, db, nats, port, dir.path(), env);
        let world = World {
            id,
            child,
            base,
            _dir: dir,
        };
        common::wait_healthy(&world.base, Duration::from_secs(60)).await;
        world
    }

    /// `kill -9`: no shutdown, no final saves, no lease released.
    fn crash(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    async fn worlds(&self, http: &reqwest::Client) -> Value {
        http.get(format!("{}/api/worlds", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

fn spawn_world(
    id: i64,
    db: &str,
    nats: &str,
    port: u16,
    dir: &Path,
    env: &[(&str, &str)],
) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wayfarer"));
    command
        .arg("serve")
        .current_dir(dir)
        .env("WORLD", dir)
        .env("PORT", port.to_string())
        .env("HOST", "127.0.0.1")
        .env("NODE_ENV", "test")
        .env("TICK_MS", "50")
        .env("WORLD_SEED", "7")
        .env("DISABLE_RATE_LIMIT", "true")
        .env("JWT_SECRET", JWT_SECRET)
        .env("ADMIN_CODE", ADMIN_CODE)
        .env("DATABASE_URL", db)
        .env("NATS_URL", nats)
        .env("WORLD_ID", id.to_string())
        .env("WORLD_NAME", format!("Test {id}"))
        .env("WORLD_LEASE_SECS", LEASE_SECS.to_string())
        .env("PUBLIC_WS_URL", format!("ws://127.0.0.1:{port}/ws"))
        .env("PUBLIC_API_URL", format!("http://127.0.0.1:{port}"))
        .env(
            "RUST_LOG",
            std::env::var("WORLDS_TEST_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdout(Stdio::null())
        .stderr(if std::env::var_os("WORLDS_TEST_LOG").is_some() {
            Stdio::inherit()
        } else {
            Stdio::null()
        });
    for (name, value) in env {
        command.env(name, value);
    }
    command.spawn().expect("the wayfarer binary starts")
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A guest account with a character, made on `world`: (token, character id).
async fn player(http: &reqwest::Client, world: &World, name: &str) -> (String, String) {
    player_on(http, &world.base, name).await
}

/// A game socket.
struct Ws {
    stream: Stream,
}

impl Ws {
    async fn connect(world: &World, token: &str) -> Ws {
        let url = format!(
            "{}/ws?token={token}",
            world.base.replace("http://", "ws://")
        );
        let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Ws { stream }
    }

    async fn send(&mut self, message: ClientMessage) {
        common::send_message(&mut self.stream, &message).await;
    }

    async fn read(&mut self, wait: Duration) -> Read {
        common::read(&mut self.stream, wait).await
    }

    /// Reads until a message `accept`s; panics on close or after [`WAIT`].
    async fn expect(&mut self, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.read(left).await {
                Read::Message(m) if accept(&m) => return m,
                Read::Message(_) => continue,
                other => panic!("{other:?} while waiting for {what}"),
            }
        }
    }

    /// Ignores `name` and waits for the friend list that shows it ignored, so what follows is
    /// judged with the ignore in force.
    async fn ignore(&mut self, name: &str) {
        self.send(ClientMessage::IgnoreAdd(NameRequest { name: name.into() }))
            .await;
        self.expect(&format!("the list with {name} ignored"), |m| {
            m["type"] == "friend:list"
                && m["data"]["ignored"]
                    .as_array()
                    .is_some_and(|list| list.iter().any(|i| i["name"] == name))
        })
        .await;
    }
}

/// Enters `world` as `token`, retrying while the character is still held by another world
/// (1013); returns the socket and its `player:sync`.
async fn enter(world: &World, token: &str) -> (Ws, Value) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut ws = Ws::connect(world, token).await;
        match ws.read(Duration::from_secs(45)).await {
            Read::Message(m) if m["type"] == "player:sync" => return (ws, m["data"].clone()),
            other => {
                assert!(
                    Instant::now() < deadline,
                    "never entered world {}: {other:?}",
                    world.id
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Every item the character owns in the database.
async fn owned(store: &Store, character: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for slot in store.inventories().get(character).await.unwrap() {
        *out.entry(slot.item_id).or_default() += slot.quantity;
    }
    for item in store.inventories().equipment(character).await.unwrap() {
        *out.entry(item.item_id).or_default() += item.quantity;
    }
    for item in store.inventories().bank(character).await.unwrap() {
        *out.entry(item.item_id).or_default() += item.quantity;
    }
    out
}

/// The items a `player:sync` shows.
fn synced_items(sync: &Value) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for slot in sync["inventory"].as_array().into_iter().flatten() {
        *out.entry(slot["itemId"].as_str().unwrap().to_owned())
            .or_default() += slot["quantity"].as_i64().unwrap();
    }
    for (_, item) in sync["equipment"].as_object().into_iter().flatten() {
        if let Some(id) = item["itemId"].as_str() {
            *out.entry(id.to_owned()).or_default() += item["quantity"].as_i64().unwrap_or(1);
        }
    }
    out
}

async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + WAIT;
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until every one of `worlds` is linked to NATS and lists all of them. A world announces
/// itself only once its subscriptions are made, so from then on a message for it is heard: a
/// world that has merely answered `/health` may still be connecting (and would drop what it
/// publishes meanwhile).
async fn linked(http: &reqwest::Client, worlds: &[&World]) {
    let mut ids: Vec<i64> = worlds.iter().map(|w| w.id).collect();
    ids.sort();
    for world in worlds {
        eventually(&format!("world {} linked to {ids:?}", world.id), || async {
            let list = world.worlds(http).await;
            let mut listed: Vec<i64> = list["worlds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|w| w["id"].as_i64())
                .collect();
            listed.sort();
            list["crossWorld"] == true && listed == ids
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn world_list_shows_live_worlds_and_drops_a_silent_one() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = &cluster.http;
    eventually("both worlds listed", || async {
        one.worlds(http).await["worlds"].as_array().unwrap().len() == 2
    })
    .await;
    let list = one.worlds(http).await;
    assert_eq!(list["crossWorld"], true);
    let worlds = list["worlds"].as_array().unwrap();
    assert_eq!(worlds[0]["id"], 1, "this world first: {list}");
    assert_eq!(worlds[1]["id"], 2);
    assert_eq!(worlds[1]["name"], "Test 2");
    assert_eq!(worlds[1]["apiUrl"], two.base.as_str());
    assert_eq!(worlds[1]["full"], false);
    // Population travels with the announcements.
    let (token, _) = player(http, &two, "Lister").await;
    let (_ws, _) = enter(&two, &token).await;
    eventually("world 2's player counted on world 1", || async {
        one.worlds(http).await["worlds"][1]["players"] == 1
    })
    .await;
    two.crash();
    eventually("the killed world dropped", || async {
        one.worlds(http).await["worlds"].as_array().unwrap().len() == 1
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_messages_and_presence_cross_worlds() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = &cluster.http;
    // Friends' news and private messages go over NATS, which loses what is sent to a world not
    // yet subscribed: begin once both are linked (a busy machine may take seconds to connect).
    linked(http, &[&one, &two]).await;
    let (ann_token, _) = player(http, &one, "Ann").await;
    let (bob_token, bob_id) = player(http, &two, "Bob").await;
    let (mut ann, _) = enter(&one, &ann_token).await;
    let (mut bob, _) = enter(&two, &bob_token).await;
    ann.send(ClientMessage::FriendRequest(NameRequest {
        name: "Bob".into(),
    }))
    .await;
    bob.expect("the request from another world", |m| {
        m["type"] == "friend:incoming" && m["data"]["fromName"] == "Ann"
    })
    .await;
    bob.send(ClientMessage::FriendRespond(FriendRespond {
        name: "Ann".into(),
        accept: true,
    }))
    .await;
    let list = ann
        .expect("Bob on Ann's list, online in world 2", |m| {
            m["type"] == "friend:list"
                && m["data"]["friends"]
                    .as_array()
                    .is_some_and(|f| f.iter().any(|e| e["id"] == bob_id.as_str()))
        })
        .await;
    let bob_entry = &list["data"]["friends"][0];
    assert_eq!(bob_entry["online"], true, "{list}");
    assert_eq!(bob_entry["world"], 2, "{list}");

    let started = Instant::now();
    ann.send(private("bob", "hello from world 1")).await;
    let got = bob
        .expect("Ann's private message", |m| {
            m["type"] == "chat:message" && m["data"]["channel"] == "private"
        })
        .await;
    assert_eq!(got["data"]["fromName"], "Ann");
    assert_eq!(got["data"]["text"], "hello from world 1");
    eprintln!("cross-world private message: {:?}", started.elapsed());
    ann.expect("the sender's echo", |m| {
        m["type"] == "chat:message" && m["data"]["text"] == "hello from world 1"
    })
    .await;

    // Ignored everywhere: Bob ignores Ann, and her message is refused on her world.
    bob.ignore("Ann").await;
    ann.send(private("Bob", "still there?")).await;
    let refused = ann.expect("the refusal", |m| m["type"] == "error").await;
    assert_eq!(refused["data"]["code"], "ignored", "{refused}");

    // Bob leaves: Ann hears it across worlds.
    drop(bob);
    ann.expect("Bob offline", |m| {
        m["type"] == "friend:status" && m["data"]["name"] == "Bob" && m["data"]["online"] == false
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_character_racing_into_two_worlds_is_held_by_exactly_one() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = &cluster.http;
    let store = cluster.store().await;
    let (token, id) = player(http, &one, "Racer").await;
    let (first, sync) = enter(&one, &token).await;
    let kit = synced_items(&sync);
    assert!(!kit.is_empty());
    drop(first);
    eventually("the first session left", || async {
        store.leases().holder(&id).await.unwrap().is_none()
    })
    .await;
    for round in 0..4 {
        let (a, b) = tokio::join!(Ws::connect(&one, &token), Ws::connect(&two, &token));
        let mut open = Vec::new();
        for (world, mut ws) in [(1, a), (2, b)] {
            // Each socket either enters and stays, or is closed: replaced (4000) by the other, or
            // refused (1013) while the other held the character.
            let mut entered = false;
            let outcome = loop {
                match ws.read(Duration::from_secs(3)).await {
                    Read::Message(m) => entered |= m["type"] == "player:sync",
                    Read::Closed(code) => break Some(code),
                    Read::TimedOut => break None,
                }
            };
            if outcome.is_none() {
                assert!(
                    entered,
                    "round {round}: world {world}'s socket neither entered nor closed"
                );
                open.push((world, ws));
            }
        }
        assert_eq!(
            open.len(),
            1,
            "round {round}: exactly one world keeps the character"
        );
        let holder = store.leases().holder(&id).await.unwrap().unwrap();
        assert_eq!(
            holder.world_id, open[0].0,
            "round {round}: the lease names it"
        );
        drop(open);
        eventually("the round's session left", || async {
            store.leases().holder(&id).await.unwrap().is_none()
        })
        .await;
        assert_eq!(
            owned(&store, &id).await,
            kit,
            "round {round}: nothing duplicated"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_world_frees_its_characters_when_the_lease_expires() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = &cluster.http;
    let store = cluster.store().await;
    let (token, id) = player(http, &one, "Survivor").await;
    let (_ws, sync) = enter(&one, &token).await;
    assert_eq!(
        store.leases().holder(&id).await.unwrap().unwrap().world_id,
        1
    );
    one.crash();
    let killed_at = Instant::now();
    let (_ws, sync_two) = enter(&two, &token).await;
    let waited = killed_at.elapsed();
    assert!(
        waited < Duration::from_secs(LEASE_SECS + 10),
        "entered after {waited:?}, the lease is {LEASE_SECS} s"
    );
    assert_eq!(synced_items(&sync_two), synced_items(&sync));
    assert_eq!(
        store.leases().holder(&id).await.unwrap().unwrap().world_id,
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hop_under_kill_minus_nine_keeps_every_item_exactly_once() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let http = &cluster.http;
    let store = cluster.store().await;
    let mut one = cluster.world(1).await;
    let mut two = cluster.world(2).await;
    let (token, id) = player(http, &one, "Hopper").await;
    let (ws, sync) = enter(&one, &token).await;
    let kit = synced_items(&sync);
    drop(ws);
    // Kill the world being left, then the world being entered, at several moments of the hop.
    for (round, delay_ms) in [0u64, 10, 50, 200, 600].into_iter().enumerate() {
        for kill_source in [true, false] {
            let (ws, _) = enter(&one, &token).await;
            let hop = Ws::connect(&two, &token);
            let (mut hop, ()) =
                tokio::join!(hop, tokio::time::sleep(Duration::from_millis(delay_ms)));
            if kill_source {
                one.crash();
                one = cluster.world(1).await;
            } else {
                two.crash();
                two = cluster.world(2).await;
            }
            drop(ws);
            let _ = hop.read(Duration::from_millis(100)).await;
            drop(hop);
            // Whatever happened, the character enters again with the kit, once.
            let (ws, sync) = enter(&two, &token).await;
            assert_eq!(
                synced_items(&sync),
                kit,
                "round {round} (kill {}): the character enters with everything",
                if kill_source { "source" } else { "target" }
            );
            drop(ws);
            eventually("the session left", || async {
                store.leases().holder(&id).await.unwrap().is_none()
            })
            .await;
            assert_eq!(owned(&store, &id).await, kit, "round {round}: stored once");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_down_keeps_each_world_playing_and_recovers() {
    let Some(mut cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = cluster.http.clone();
    linked(&http, &[&one, &two]).await;
    let (ann_token, _) = player(&http, &one, "Annie").await;
    let (bob_token, _) = player(&http, &two, "Bobby").await;
    let (mut ann, _) = enter(&one, &ann_token).await;
    let (mut bob, _) = enter(&two, &bob_token).await;
    cluster.nats.stop();
    eventually("world 1 sees the link down", || async {
        one.worlds(&http).await["crossWorld"] == false
    })
    .await;
    ann.send(private("Bobby", "anyone?")).await;
    let refused = ann.expect("the refusal", |m| m["type"] == "error").await;
    assert_eq!(
        refused["data"]["code"], "cross_world_unavailable",
        "{refused}"
    );
    // The game goes on in each world.
    ann.send(ClientMessage::Sync).await;
    ann.expect("a sync without NATS", |m| m["type"] == "player:sync")
        .await;
    bob.send(ClientMessage::Sync).await;
    bob.expect("a sync without NATS", |m| m["type"] == "player:sync")
        .await;
    cluster.nats.resume().await;
    // Both worlds, not only the sender: world 2 must have reconnected (and so resubscribed) before
    // a message for it is published, or NATS drops it.
    linked(&http, &[&one, &two]).await;
    ann.send(private("Bobby", "back again")).await;
    let got = bob
        .expect("the message after recovery", |m| {
            m["type"] == "chat:message" && m["data"]["channel"] == "private"
        })
        .await;
    assert_eq!(got["data"]["text"], "back again");
    drop(two);
}

/// Cross-world private message latency through NATS: `WORLDS_PM_SAMPLES=1000 cargo test -p
/// wayfarer-server --test worlds -- --ignored --nocapture pm_latency` prints p50/p99.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement for BENCHMARKS.md, not a check"]
async fn pm_latency() {
    let Some(cluster) = Cluster::new().await else {
        return;
    };
    let one = cluster.world(1).await;
    let two = cluster.world(2).await;
    let http = &cluster.http;
    linked(http, &[&one, &two]).await;
    let (ann_token, _) = player(http, &one, "Sender").await;
    let (bob_token, _) = player(http, &two, "Receiver").await;
    let (mut ann, _) = enter(&one, &ann_token).await;
    let (mut bob, _) = enter(&two, &bob_token).await;
    let samples: usize = std::env::var("WORLDS_PM_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut times = Vec::with_capacity(samples);
    for i in 0..samples {
        let text = format!("m{i}");
        let started = Instant::now();
        ann.send(private("Receiver", text.as_str())).await;
        bob.expect("the message", |m| m["data"]["text"] == text.as_str())
            .await;
        times.push(started.elapsed());
        // Sends spaced out so the rate limit (off in tests anyway) and batching do not matter.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    eprintln!(
        "cross-world PM latency over {samples}: p50 {:?}, p99 {:?}, max {:?}",
        at(0.5),
        at(0.99),
        times[times.len() - 1]
    );
}
