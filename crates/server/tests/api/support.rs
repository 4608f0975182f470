//! The test harness: a real server on port 0 with a fresh world directory and database, talked to over
//! real HTTP (the zero2prod `spawn_app` pattern).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use wayfarer_server::{Config, RunningServer};
use wayfarer_store::testing::FreshDatabase;

pub use crate::common::player_on;
use crate::common::{Read, Stream};

/// Which database a test server uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A running test server.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub world_dir: PathBuf,
    pub database_url: String,
    server: Option<RunningServer>,
    _world: Option<tempfile::TempDir>,
    _db: Option<FreshDatabase>,
}

/// How to start a test server.
#[derive(Default)]
pub struct AppOptions {
    pub env: Vec<(&'static str, String)>,
    pub backend: Option<Backend>,
    /// Reuse a world directory (restart tests); a fresh one otherwise.
    pub world_dir: Option<PathBuf>,
    /// Use this database URL instead of a fresh one (restart and fault tests).
    pub database_url: Option<String>,
}

impl TestApp {
    /// A server on SQLite with default settings.
    pub async fn spawn() -> TestApp {
        TestApp::spawn_with(AppOptions::default())
            .await
            .expect("sqlite is always available")
    }

    /// A server on SQLite with the rate limits on (`DISABLE_RATE_LIMIT=false`; the default test
    /// server has them off).
    pub async fn spawn_limited() -> TestApp {
        TestApp::spawn_with(AppOptions {
            env: vec![("DISABLE_RATE_LIMIT", "false".into())],
            ..Default::default()
        })
        .await
        .expect("sqlite is always available")
    }

    /// A server as described; `None` when it needs PostgreSQL and PostgreSQL tests are skipped.
    pub async fn spawn_with(options: AppOptions) -> Option<TestApp> {
        let (world, world_dir) = match options.world_dir {
            Some(dir) => (None, dir),
            None => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().to_path_buf();
                (Some(dir), path)
            }
        };
        let mut db = None;
        let database_url = match (options.database_url, options.backend) {
            (Some(url), _) => url,
            (None, Some(Backend::Postgres)) => {
                let fresh = FreshDatabase::postgres().await?;
                let url = fresh.url.clone();
                db = Some(fresh);
                url
            }
            (None, _) => format!("sqlite://{}", world_dir.join("wayfarer.db").display()),
        };
        let mut vars: HashMap<String, String> = [
            ("PORT", "0".to_string()),
            ("HOST", "127.0.0.1".to_string()),
            ("NODE_ENV", "test".to_string()),
            ("TICK_MS", "50".to_string()),
            ("DISABLE_RATE_LIMIT", "true".to_string()),
            ("WORLD", world_dir.display().to_string()),
            // One map for every test: a random layout could put a fishing spot (which blocks its
            // tile) where a test walks. This seed leaves the tiles near the spawn open (checked by
            // `world::the_test_layout_keeps_the_spawn_open`).
            ("WORLD_SEED", TEST_WORLD_SEED.to_string()),
            ("DATABASE_URL", database_url.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for (k, v) in options.env {
            vars.insert(k.to_string(), v);
        }
        let config = Config::from_lookup(|k| vars.get(k).cloned()).expect("valid test config");
        let server = RunningServer::start(config).await.expect("server starts");
        Some(TestApp {
            base: format!("http://{}", server.addr),
            client: reqwest::Client::new(),
            world_dir,
            database_url,
            server: Some(server),
            _world: world,
            _db: db,
        })
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

    /// The world's clock (stepped with `TICK_MS=manual`).
    pub fn clock(&self) -> wayfarer_server::world_thread::TickClock {
        self.server.as_ref().unwrap().clock()
    }

    /// The running server's handler state (for in-process callers).
    pub fn state(&self) -> &wayfarer_server::app::AppState {
        &self.server.as_ref().unwrap().state
    }

    /// Graceful shutdown; keeps the world directory and database for a restart.
    pub async fn stop(mut self) -> StoppedApp {
        self.server.take().unwrap().shutdown().await.unwrap();
        StoppedApp {
            world_dir: self.world_dir,
            database_url: self.database_url,
            _world: self._world,
            _db: self._db,
        }
    }
}

/// A stopped server's world and database, to start again.
pub struct StoppedApp {
    pub world_dir: PathBuf,
    pub database_url: String,
    _world: Option<tempfile::TempDir>,
    _db: Option<FreshDatabase>,
}

impl StoppedApp {
    /// Starts a server on the same world directory and database.
    pub async fn restart(self) -> (TestApp, StoppedApp) {
        let app = TestApp::spawn_with(AppOptions {
            world_dir: Some(self.world_dir.clone()),
            database_url: Some(self.database_url.clone()),
            ..AppOptions::default()
        })
        .await
        .unwrap();
        (app, self)
    }
}

/// Asserts a response is a contract error: the status, and `{"error": code, "message": …}`.
pub async fn assert_error(
    response: reqwest::Response,
    status: u16,
    code: &str,
) -> serde_json::Value {
    assert_eq!(response.status().as_u16(), status, "status");
    assert!(
        response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json")),
        "error responses are JSON"
    );
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    body
}

/// A TCP proxy in front of a database that a test can freeze (bytes stop flowing both ways, as with a
/// hung server) or cut (every connection dropped, new ones refused), the fault hook of fault tests.
pub struct FaultProxy {
    pub port: u16,
    mode: watch::Sender<Mode>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Flowing,
    Frozen,
    Cut,
}

impl FaultProxy {
    /// A proxy forwarding to `upstream` (`host:port`).
    pub async fn start(upstream: String) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (mode, watcher) = watch::channel(Mode::Flowing);
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if *watcher.borrow() == Mode::Cut {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&upstream).await else {
                    continue;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                tokio::spawn(pump(cr, sw, watcher.clone()));
                tokio::spawn(pump(sr, cw, watcher.clone()));
            }
        });
        FaultProxy { port, mode }
    }

    /// Stops all traffic without closing anything: the database "hangs".
    pub fn freeze(&self) {
        self.mode.send_replace(Mode::Frozen);
    }

    /// Lets traffic flow again.
    pub fn unfreeze(&self) {
        self.mode.send_replace(Mode::Flowing);
    }

    /// Drops every connection and refuses new ones: the database "goes away".
    pub fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut mode: watch::Receiver<Mode>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            read = from.read(&mut buf) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            },
            _ = mode.wait_for(|m| *m == Mode::Cut) => return,
        };
        // Hold the bytes while frozen; give up when cut.
        match mode.wait_for(|m| *m != Mode::Frozen).await.map(|m| *m) {
            Ok(Mode::Flowing) => {}
            _ => return,
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

/// A game client over a real WebSocket, speaking the contract's envelope.
pub struct WsClient {
    /// The socket itself, for the helpers in `common` that both test binaries share.
    pub stream: Stream,
}

/// How long a test waits for an expected message.
pub const WAIT: std::time::Duration = std::time::Duration::from_secs(10);

impl WsClient {
    /// Connects to `/ws` with `query` (e.g. `token=…`), or returns the HTTP status of a refusal.
    pub async fn connect(app: &TestApp, query: &str) -> Result<WsClient, u16> {
        WsClient::connect_to(&app.base, query).await
    }

    /// Connects to the server at `base` (`http://host:port`), e.g. a server process.
    pub async fn connect_to(base: &str, query: &str) -> Result<WsClient, u16> {
        let url = format!("{}/ws?{query}", base.replace("http://", "ws://"));
        match tokio_tungstenite::connect_async(url).await {
            Ok((stream, _)) => Ok(WsClient { stream }),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(other) => panic!("websocket connect failed: {other}"),
        }
    }

    /// Connects with a tiny TCP receive buffer, as a client on a bad link that stops reading would.
    pub async fn connect_slow(app: &TestApp, query: &str) -> WsClient {
        let addr: std::net::SocketAddr = app.base.trim_start_matches("http://").parse().unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let tcp = socket.connect(addr).await.unwrap();
        let url = format!("ws://{addr}/ws?{query}");
        let (stream, _) =
            tokio_tungstenite::client_async(url, tokio_tungstenite::MaybeTlsStream::Plain(tcp))
                .await
                .unwrap();
        WsClient { stream }
    }

    /// Sends a raw text frame.
    pub async fn send_text(&mut self, text: impl Into<String>) {
        use futures_util::SinkExt;
        self.stream
            .send(tokio_tungstenite::tungstenite::Message::Text(
                text.into().into(),
            ))
            .await
            .unwrap();
    }

    /// Sends a raw text frame; an error once the connection is closed.
    pub async fn try_send_text(
        &mut self,
        text: &str,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        use futures_util::SinkExt;
        self.stream
            .send(tokio_tungstenite::tungstenite::Message::Text(text.into()))
            .await
    }

    /// Sends `{"type", "data", "ref"?}`.
    pub async fn send(
        &mut self,
        kind: &str,
        data: serde_json::Value,
        reference: Option<serde_json::Value>,
    ) {
        let mut frame = serde_json::json!({"type": kind, "data": data});
        if let Some(r) = reference {
            frame["ref"] = r;
        }
        self.send_text(frame.to_string()).await;
    }

    /// The next message, or `None` when the socket closed (with its close code, if any).
    pub async fn next(&mut self) -> Result<serde_json::Value, Option<u16>> {
        match crate::common::read(&mut self.stream, WAIT).await {
            Read::Message(message) => Ok(message),
            Read::Closed(code) => Err(code),
            Read::TimedOut => panic!("timed out waiting for a message"),
        }
    }

    /// Reads until a message satisfies `accept`, skipping others; panics on close or timeout.
    pub async fn expect(
        &mut self,
        what: &str,
        accept: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            assert!(
                std::time::Instant::now() < deadline,
                "timed out waiting for {what}"
            );
            match self.next().await {
                Ok(message) if accept(&message) => return message,
                Ok(_) => continue,
                Err(code) => panic!("socket closed ({code:?}) while waiting for {what}"),
            }
        }
    }

    /// Reads until a message of `kind`.
    pub async fn expect_type(&mut self, kind: &str) -> serde_json::Value {
        self.expect(kind, |m| m["type"] == kind).await
    }

    /// Logs out: a normal close handshake.
    pub async fn close(mut self) {
        let _ = self.stream.close(None).await;
        // Drain until the server's close arrives so the logout is complete on its side.
        let _ = tokio::time::timeout(WAIT, async {
            use futures_util::StreamExt;
            while let Some(Ok(_)) = self.stream.next().await {}
        })
        .await;
    }

    /// Reads until the socket closes; returns its close code.
    pub async fn expect_close(&mut self) -> Option<u16> {
        loop {
            if let Err(code) = self.next().await {
                return code;
            }
        }
    }
}

/// The token of a new account with the admin role.
pub async fn admin_token(app: &TestApp) -> String {
    let admin: serde_json::Value = app
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
pub async fn economy_report(app: &TestApp) -> serde_json::Value {
    let token = admin_token(app).await;
    economy_report_as(app, &token).await
}

/// `GET /api/admin/economy` with an admin's `token` (a test that reads the audit often keeps one
/// admin: each new one is an account whose character's starting items the audit counts).
pub async fn economy_report_as(app: &TestApp, token: &str) -> serde_json::Value {
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

/// Connects a player's socket and reads its entry messages (`player:sync`, then `world:update`).
pub async fn enter(app: &TestApp, token: &str) -> (WsClient, serde_json::Value) {
    let mut ws = WsClient::connect(app, &format!("token={token}"))
        .await
        .expect("connects");
    let first = ws.next().await.expect("a first message");
    assert_eq!(first["type"], "player:sync", "{first}");
    ws.expect_type("world:update").await;
    (ws, first["data"].clone())
}

/// A CDN in the test: serves a mutable manifest set at /manifests/<file> with strong ETags and 304s,
/// counting full downloads.
#[derive(Clone)]
pub struct Cdn {
    pub files: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    pub downloads: Arc<AtomicUsize>,
    pub not_modified: Arc<AtomicUsize>,
}

fn etag_of(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    format!("\"{:016x}\"", h.finish())
}

async fn serve_manifest(
    State(cdn): State<Cdn>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> axum::response::Response {
    let Some(bytes) = cdn.files.lock().unwrap().get(&file).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let etag = etag_of(&bytes);
    if headers.get("if-none-match").and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
        cdn.not_modified.fetch_add(1, Ordering::SeqCst);
        return (StatusCode::NOT_MODIFIED, [("etag", etag)]).into_response();
    }
    cdn.downloads.fetch_add(1, Ordering::SeqCst);
    ([("etag", etag)], bytes).into_response()
}

impl Cdn {
    /// Serves the bundled content; returns the CDN and its base URL.
    pub async fn start() -> (Cdn, String) {
        let cdn = Cdn {
            files: Arc::new(Mutex::new(wayfarer_content::bundled().files)),
            downloads: Arc::new(AtomicUsize::new(0)),
            not_modified: Arc::new(AtomicUsize::new(0)),
        };
        let router = axum::Router::new()
            .route("/manifests/{*file}", axum::routing::get(serve_manifest))
            .with_state(cdn.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        (cdn, url)
    }

    /// Edits one file as JSON.
    pub fn edit(&self, file: &str, f: impl FnOnce(&mut serde_json::Value)) {
        let mut files = self.files.lock().unwrap();
        let mut value: serde_json::Value = serde_json::from_slice(&files[file]).unwrap();
        f(&mut value);
        files.insert(file.into(), serde_json::to_vec_pretty(&value).unwrap());
    }
}

/// `/admin <code>` and `/give <item> <quantity>` on a player's socket; returns the inventory slot
/// holding the item once an `inventory:update` shows it.
pub async fn admin_give(
    ws: &mut WsClient,
    code: &str,
    item: &str,
    quantity: i64,
) -> serde_json::Value {
    use serde_json::json;
    ws.send(
        "player:chat",
        json!({ "text": format!("/admin {code}") }),
        None,
    )
    .await;
    ws.send(
        "player:chat",
        json!({ "text": format!("/give {item} {quantity}") }),
        None,
    )
    .await;
    let holds = |m: &serde_json::Value| {
        m["data"]["inventory"]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["itemId"] == item))
            .map(|s| s["slot"].clone())
    };
    let update = ws
        .expect(item, |m| {
            m["type"] == "inventory:update" && holds(m).is_some()
        })
        .await;
    holds(&update).unwrap()
}

/// The layout seed of every test server (`WORLD_SEED`).
pub const TEST_WORLD_SEED: u64 = 1;
