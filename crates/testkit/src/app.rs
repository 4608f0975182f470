//! A real server in the test's own process, and the accounts and entries tests make on it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wayfarer_host::world_thread::{live_snapshot, TickClock};
use wayfarer_server::{Config, RunningServer};
use wayfarer_store::testing::FreshDatabase;

use crate::agents::Crowd;
use crate::socket::{WsClient, WAIT};

/// The layout seed of every test server (`WORLD_SEED`): one map for every test, since a random
/// layout could put a fishing spot (which blocks its tile) where a test walks. This seed leaves
/// the tiles near the spawn open (checked by `world::the_test_layout_keeps_the_spawn_open`).
pub const TEST_WORLD_SEED: u64 = 1;

/// The admin code of servers started with [`TestApp::for_agents`] (`/admin`, then `/tp` and
/// `/give`).
pub const ADMIN_CODE: &str = "agent-tests-admin";

/// The tick of a test server on the wall clock ([`Clock::timed`]): faster than the game's 600 ms.
pub const TEST_TICK_MS: u64 = 50;

/// How the test server's world ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// Every this many milliseconds (`TICK_MS`): for a test whose subject is wall time (rate
    /// limits, time-outs) and which says so in its name.
    Every(u64),
    /// Only when the test steps it (`TICK_MS=manual`): [`TestApp::step`], and
    /// [`WsClient::expect`](crate::WsClient::expect) steps it while it waits. The default: a
    /// test takes the game's ticks' computing time, not their wall time, and the same ticks
    /// whatever the machine's speed.
    #[default]
    Manual,
}

impl Clock {
    /// The wall clock at the test tick ([`TEST_TICK_MS`]).
    pub const fn timed() -> Clock {
        Clock::Every(TEST_TICK_MS)
    }
}

/// How to start a test server. Settings in `env` are applied last, over the others.
#[derive(Default)]
pub struct AppOptions {
    pub env: Vec<(&'static str, String)>,
    pub clock: Clock,
    /// `ADMIN_CODE`: none unless given.
    pub admin_code: Option<&'static str>,
    /// A fresh database of the test's (from [`both_databases!`](crate::both_databases)); a
    /// SQLite file in the world directory otherwise.
    pub database: Option<FreshDatabase>,
    /// Reuse a world directory (restart tests); a fresh one otherwise.
    pub world_dir: Option<PathBuf>,
    /// Use this database URL instead of a fresh one (restart and fault tests).
    pub database_url: Option<String>,
}

/// A running test server.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub world_dir: PathBuf,
    pub database_url: String,
    server: Option<RunningServer>,
    clock_kind: Clock,
    /// The agents stepped with the world ([`TestApp::agent`]).
    pub(crate) crowd: Crowd,
    _world: Option<tempfile::TempDir>,
    _db: Option<FreshDatabase>,
}

impl TestApp {
    /// A server on SQLite with default settings (the manual clock, rate limits off).
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with(AppOptions::default()).await
    }

    /// A server on SQLite whose world ticks only when the test steps it (the default; the name
    /// says so where a test steps by hand).
    pub async fn spawn_manual() -> TestApp {
        TestApp::spawn().await
    }

    /// A server on SQLite whose world ticks on the wall clock ([`Clock::timed`]): only for a test
    /// whose subject is wall time.
    pub async fn spawn_timed() -> TestApp {
        TestApp::spawn_with(AppOptions {
            clock: Clock::timed(),
            ..AppOptions::default()
        })
        .await
    }

    /// A server on SQLite with the rate limits on (`DISABLE_RATE_LIMIT=false`; the default test
    /// server has them off). Rate limits count messages a second of the wall clock, so its world
    /// ticks on it too (the manual clock's stepping would send messages of its own).
    pub async fn spawn_limited() -> TestApp {
        TestApp::spawn_with(AppOptions {
            env: vec![("DISABLE_RATE_LIMIT", "false".into())],
            clock: Clock::timed(),
            ..Default::default()
        })
        .await
    }

    /// A server for agents: on `clock`, with [`ADMIN_CODE`].
    pub async fn for_agents(clock: Clock) -> TestApp {
        TestApp::spawn_with(AppOptions {
            clock,
            admin_code: Some(ADMIN_CODE),
            ..AppOptions::default()
        })
        .await
    }

    /// A server as described.
    pub async fn spawn_with(options: AppOptions) -> TestApp {
        let (world, world_dir) = match options.world_dir {
            Some(dir) => (None, dir),
            None => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().to_path_buf();
                (Some(dir), path)
            }
        };
        let (database_url, db) = match (options.database_url, options.database) {
            (Some(url), db) => (url, db),
            (None, Some(db)) => (db.url.clone(), Some(db)),
            (None, None) => (
                format!("sqlite://{}", world_dir.join("wayfarer.db").display()),
                None,
            ),
        };
        // The manual clock exists for `NODE_ENV=test` only: a test of another mode runs on the
        // wall clock (its subject is that mode's settings, not the game's ticks).
        let other_mode = options
            .env
            .iter()
            .any(|(k, v)| *k == "NODE_ENV" && v != "test");
        let clock = match options.clock {
            Clock::Manual if other_mode => Clock::timed(),
            clock => clock,
        };
        let tick = match clock {
            Clock::Every(ms) => ms.to_string(),
            Clock::Manual => wayfarer_server::config::MANUAL_CLOCK.to_owned(),
        };
        let mut vars: HashMap<String, String> = [
            ("PORT", "0".to_string()),
            ("HOST", "127.0.0.1".to_string()),
            ("NODE_ENV", "test".to_string()),
            ("TICK_MS", tick),
            ("DISABLE_RATE_LIMIT", "true".to_string()),
            ("WORLD", world_dir.display().to_string()),
            ("WORLD_SEED", TEST_WORLD_SEED.to_string()),
            ("DATABASE_URL", database_url.clone()),
            // Production would listen on 127.0.0.1:9464 for /metrics; tests run many servers at
            // once, so none unless a test asks (`METRICS_ADDR=127.0.0.1:0`).
            ("METRICS_ADDR", "off".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        if let Some(code) = options.admin_code {
            vars.insert("ADMIN_CODE".into(), code.into());
        }
        for (k, v) in options.env {
            vars.insert(k.to_string(), v);
        }
        let config = Config::from_lookup(|k| vars.get(k).cloned()).expect("valid test config");
        let server = RunningServer::start(config).await.expect("server starts");
        // The server's embedded agents step with the world as the test's own agents do.
        let crowd = Crowd(server.embedded_agents().unwrap_or_default());
        TestApp {
            base: format!("http://{}", server.addr),
            client: reqwest::Client::new(),
            world_dir,
            database_url,
            server: Some(server),
            clock_kind: clock,
            crowd,
            _world: world,
            _db: db,
        }
    }

    /// Where the `METRICS_ADDR` listener serves `/metrics`, when the server has one.
    pub fn metrics_addr(&self) -> Option<std::net::SocketAddr> {
        self.server.as_ref().and_then(|s| s.metrics_addr)
    }

    /// The absolute URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    /// The running server's store.
    pub fn store(&self) -> &wayfarer_store::Store {
        &self.server.as_ref().unwrap().store
    }

    /// The running server's handler state (for in-process callers).
    pub fn state(&self) -> &wayfarer_server::app::AppState {
        &self.server.as_ref().unwrap().state
    }

    /// The world's clock (stepped on [`Clock::Manual`]).
    pub fn clock(&self) -> TickClock {
        self.server.as_ref().unwrap().clock()
    }

    /// Whether the world ticks only when stepped.
    pub fn is_manual(&self) -> bool {
        self.state().config.manual_clock
    }

    /// Runs `ticks` ticks of a manual world and returns the tick reached, once their messages are
    /// queued to the sockets and their saves handed on; panics on a timed world.
    pub async fn step(&self, ticks: u32) -> u64 {
        self.clock()
            .step(ticks)
            .await
            .unwrap_or_else(|err| panic!("stepping {ticks} ticks: {err}"))
    }

    /// Lets the game move on while a test polls something that follows it (a save, an online
    /// list, a status figure): one tick of a manual world, a few milliseconds of a timed one.
    pub async fn pass_time(&self) {
        if self.is_manual() {
            self.step(1).await;
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until the world has taken character `id` in (its join is booked between ticks, so
    /// the next step is its first tick in the world); panics after [`WAIT`].
    pub async fn in_world(&self, id: &str) {
        let world = &self.state().world_sender;
        let deadline = Instant::now() + WAIT;
        while live_snapshot(world, id).await.unwrap().is_none() {
            assert!(Instant::now() < deadline, "{id} never joined the world");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until every session of character `id` is closed, so its final save is written (the
    /// save task closes a session once the batch with its final state is); a manual world is
    /// stepped meanwhile, since a leave takes the player out in the tick after it. Panics after
    /// [`WAIT`].
    pub async fn left(&self, id: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            let sessions = self.store().sessions().for_character(id).await.unwrap();
            if sessions.iter().all(|s| s.close_reason.is_some()) {
                return;
            }
            assert!(Instant::now() < deadline, "{id} never left: {sessions:?}");
            if self.is_manual() {
                self.step(1).await;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Graceful shutdown; keeps the world directory and database for a restart.
    pub async fn stop(mut self) -> StoppedApp {
        self.server.take().unwrap().shutdown().await.unwrap();
        StoppedApp {
            world_dir: self.world_dir,
            database_url: self.database_url,
            clock: self.clock_kind,
            _world: self._world,
            _db: self._db,
        }
    }
}

/// A stopped server's world and database, to start again.
pub struct StoppedApp {
    pub world_dir: PathBuf,
    pub database_url: String,
    /// The clock it ran on, which a restart keeps.
    pub clock: Clock,
    _world: Option<tempfile::TempDir>,
    _db: Option<FreshDatabase>,
}

impl StoppedApp {
    /// Starts a server on the same world directory and database, on the same clock.
    pub async fn restart(self) -> (TestApp, StoppedApp) {
        let app = TestApp::spawn_with(AppOptions {
            world_dir: Some(self.world_dir.clone()),
            database_url: Some(self.database_url.clone()),
            clock: self.clock,
            ..AppOptions::default()
        })
        .await;
        (app, self)
    }
}

/// Asserts a response is a contract error: the status, and `{"error": code, "message": …}`.
pub async fn assert_error(response: reqwest::Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    assert!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json")),
        "error responses are JSON"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    body
}

/// The token of a new account with the admin role.
pub async fn admin_token(app: &TestApp) -> String {
    let admin: Value = app
        .client
        .post(app.url("/api/auth/guest"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    app.store()
        .users()
        .set_roles(admin["accountId"].as_str().unwrap(), &["admin".into()])
        .await
        .unwrap();
    admin["token"].as_str().unwrap().to_owned()
}

/// `GET /api/admin/economy` as an admin.
pub async fn economy_report(app: &TestApp) -> Value {
    let token = admin_token(app).await;
    economy_report_as(app, &token).await
}

/// `GET /api/admin/economy` with an admin's `token` (a test that reads the audit often keeps one
/// admin: each new one is an account whose character's starting items the audit counts).
pub async fn economy_report_as(app: &TestApp, token: &str) -> Value {
    app.client
        .get(app.url("/api/admin/economy"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A guest account with a character: (token, character id).
pub async fn player(app: &TestApp, name: &str) -> (String, String) {
    player_on(&app.client, &app.base, name).await
}

/// A guest account with a character, made on the server at `base`: (token, character id).
pub async fn player_on(client: &reqwest::Client, base: &str, name: &str) -> (String, String) {
    let response = client
        .post(format!("{base}/api/auth/guest"))
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    let token = body["token"].as_str().unwrap().to_owned();
    let created = client
        .post(format!("{base}/api/v1/player"))
        .bearer_auth(&token)
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        created.status(),
        201,
        "{}",
        created.text().await.unwrap_or_default()
    );
    let created: Value = created.json().await.unwrap();
    (token, created["player"]["id"].as_str().unwrap().to_owned())
}

/// Connects a player's socket and reads its entry messages (`player:sync`, then `world:update`);
/// a manual world is stepped once the player is in it, for that first update.
pub async fn enter(app: &TestApp, token: &str) -> (WsClient, Value) {
    let mut ws = WsClient::connect(app, &format!("token={token}"))
        .await
        .expect("connects");
    let first = ws.next().await.expect("a first message");
    assert_eq!(first["type"], "player:sync", "{first}");
    if app.is_manual() {
        app.in_world(first["data"]["id"].as_str().unwrap()).await;
        app.step(1).await;
    }
    ws.expect_type("world:update").await;
    (ws, first["data"].clone())
}
