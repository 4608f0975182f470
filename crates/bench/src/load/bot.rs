//! One bot: a guest account, a character, a WebSocket, and the scenario's actions until the end.
//!
//! Every await that waits on the network has a timeout, and the act loop ends at the run's deadline
//! (or when the run is stopped), so a bot always finishes within
//! `deadline + CONNECT_TIMEOUT + SEND_TIMEOUT + CLOSE_TIMEOUT`.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::{sleep_until, timeout, timeout_at, Instant};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use wayfarer_protocol::ws::{
    ActionRequest, ChatChannel, ChatRequest, ClientMessage, MoveRequest, TilePos, WorldPos,
};

use super::options::Endpoints;
use super::scenario::{
    bot_name, chat_line, target_within, wander_target, Action, Plan, Rng, Said, NOTHING_SAID,
    SPREAD_RADIUS_TILES,
};
use super::spread::{role_of, Journey, Role as SpreadRole, Step};
use super::stats::{bump, BotStats, CoinLedger};
use super::trade::{partner_of, Outgoing, Purse, Role, Trader};
use super::woods::Woods;
use super::Scenario;

/// Longest time from a bot's start to its first `player:sync` (guest, character, handshake).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest wait for the first message after the handshake.
pub const FIRST_MESSAGE_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest time one frame may take to send (a server that stops reading).
pub const SEND_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest wait for the server's answer to our close at the end.
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// A sync probe unanswered for this long counts as timed out, and another may be sent.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// Names tried before giving up when the server says each is taken.
pub const NAME_ATTEMPTS: usize = 5;
/// Header carrying the load-test key on every REST request a bot makes.
pub const LOAD_TEST_KEY_HEADER: &str = "x-load-test-key";

/// A bot's WebSocket client.
pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What every bot of a run shares.
pub(crate) struct Shared {
    /// The worlds the bots are spread over (one for a single server).
    pub worlds: Vec<Endpoints>,
    pub http: reqwest::Client,
    pub key: Option<String>,
    pub scenario: Scenario,
    /// The pause between a chatting bot's lines ([`super::LoadOptions::chat_every`]).
    pub chat_every: (std::time::Duration, std::time::Duration),
    /// When the bots stop acting.
    pub deadline: Instant,
    /// How many bots the run has.
    pub bots: usize,
    /// Trading: each bot's character id, set once it has entered (empty for other scenarios).
    pub character_ids: Vec<OnceLock<String>>,
    /// When the steady window starts (the end of the ramp).
    pub steady_from: Instant,
    /// `spread`: each world's towns (empty for other scenarios).
    pub places: Vec<super::spread::Places>,
    /// `reconnect-storm`: when every bot drops its socket and reconnects.
    pub storm_at: Option<Instant>,
}

impl Shared {
    /// The world bot `index` plays in (see [`world_of`](super::options::world_of)).
    pub fn endpoints_of(&self, index: usize) -> &Endpoints {
        &self.worlds[super::options::world_of(self.scenario, index, self.worlds.len())]
    }
}

/// Runs bot `index` to the end and returns what it counted.
pub(crate) async fn run_bot(
    index: usize,
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
) -> BotStats {
    let mut stats = BotStats::default();
    let mut rng = Rng::from_entropy(index as u64);
    let started = Instant::now();
    let entered = match timeout(
        CONNECT_TIMEOUT,
        connect(index, &shared, &mut rng, &mut stats),
    )
    .await
    {
        Ok(Ok(entered)) => entered,
        Ok(Err(failure)) => {
            tracing::debug!(bot = index, %failure, "bot failed to connect");
            bump(&mut stats.connect_failures, &failure.key());
            return stats;
        }
        Err(_) => {
            tracing::debug!(bot = index, "bot timed out connecting");
            bump(&mut stats.connect_failures, "timed out entering the world");
            return stats;
        }
    };
    stats.connected = 1;
    stats.connect_times.record(started.elapsed());
    let Entered {
        socket,
        tile,
        first_sync,
        token,
    } = entered;
    let now = Instant::now();
    let mut purse = Purse::default();
    // The partner finds this bot's character by its slot, once the world has it: `player:sync`
    // comes before the world takes the player in, the first `world:update` after.
    let mut unpublished_id = None;
    let trader = shared.scenario.trades().then(|| {
        purse.learn(&first_sync);
        unpublished_id = sync_id(&first_sync);
        Trader::new(Role::of(index, shared.bots), now, shared.steady_from)
            .with_next_pause(super::trade::next_pause(shared.scenario))
    });
    let mut bot = Bot {
        index,
        shared: &shared,
        socket: Some(socket),
        rng,
        stats,
        tile,
        probe: None,
        next_ref: 0,
        said: NOTHING_SAID,
        entered_at: now,
        woods: Woods::default(),
        trader,
        purse,
        unpublished_id,
        outbox: Vec::new(),
        spread: None,
        journey: None,
        until: shared.deadline,
        token,
        reentering: None,
    };
    bot.start_spread();
    if let Some(storm_at) = shared.storm_at {
        if !bot.storm(storm_at, &stop).await {
            return bot.stats;
        }
    }
    let stayed = bot.play(stop).await;
    let mut stats = bot.stats;
    if let Some(trader) = bot.trader {
        stats.trade.merge(trader.stats);
        if partner_of(index, shared.bots).is_some() {
            stats.trade.ledger.push(CoinLedger {
                bot: index,
                start: bot.purse.start,
                end: bot.purse.now,
                stayed,
            });
        }
    }
    stats
}

/// Enters the world the way bot `index` of a load run does (guest account, character, `/ws`,
/// first `player:sync`), within [`CONNECT_TIMEOUT`], and hands over the socket, for tools that
/// then drive it themselves (the `compare` example's `player:sync` round trips). `url` is the
/// server's `http://host:port`; `key` its `LOAD_TEST_KEY`, if any. The error is the failed step,
/// its short reason and the details.
pub async fn enter_world(url: &str, key: Option<&str>, index: usize) -> Result<Socket, String> {
    let endpoints = Endpoints::from_base(url).map_err(|e| e.to_string())?;
    let http = reqwest::Client::builder()
        .timeout(super::HTTP_TIMEOUT)
        .connect_timeout(super::HEALTH_TIMEOUT)
        .build()
        .map_err(|e| format!("could not build the HTTP client: {e}"))?;
    let shared = Shared {
        worlds: vec![endpoints],
        http,
        key: key.map(str::to_owned),
        scenario: Scenario::Wander,
        chat_every: Scenario::Wander.chat_every(),
        deadline: Instant::now() + CONNECT_TIMEOUT,
        bots: index + 1,
        character_ids: Vec::new(),
        steady_from: Instant::now(),
        places: Vec::new(),
        storm_at: None,
    };
    let mut rng = Rng::from_entropy(index as u64);
    let mut stats = BotStats::default();
    match timeout(
        CONNECT_TIMEOUT,
        connect(index, &shared, &mut rng, &mut stats),
    )
    .await
    {
        Ok(Ok(entered)) => Ok(entered.socket),
        Ok(Err(failure)) => Err(format!("{} ({failure})", failure.key())),
        Err(_) => Err("timed out entering the world".to_owned()),
    }
}

/// Why a bot did not enter the world.
#[derive(Debug, thiserror::Error)]
enum ConnectFailure {
    #[error("{step}: {detail}")]
    Step {
        step: &'static str,
        /// A short, low-cardinality reason (the report counts bots by it).
        reason: String,
        detail: String,
    },
}

impl ConnectFailure {
    fn new(step: &'static str, reason: impl Into<String>, detail: impl Into<String>) -> Self {
        ConnectFailure::Step {
            step,
            reason: reason.into(),
            detail: detail.into(),
        }
    }

    /// The report's key: step and short reason.
    fn key(&self) -> String {
        match self {
            ConnectFailure::Step { step, reason, .. } => format!("{step}: {reason}"),
        }
    }

    fn http(step: &'static str, err: &reqwest::Error) -> Self {
        let reason = if err.is_timeout() {
            "timed out"
        } else if err.is_connect() {
            "connection failed"
        } else if err.is_decode() {
            "unreadable response"
        } else {
            "request failed"
        };
        ConnectFailure::new(step, reason, err.to_string())
    }
}

struct Entered {
    socket: Socket,
    tile: TilePos,
    /// The text of the entry `player:sync`.
    first_sync: String,
    /// The account's token (a reconnecting bot opens its socket with it again).
    token: String,
}

#[derive(Deserialize)]
struct GuestResponse {
    token: String,
}

#[derive(Deserialize)]
struct RestError {
    #[serde(default)]
    error: String,
}

/// A refused REST request: `HTTP <status> <code>`.
async fn refused(step: &'static str, response: reqwest::Response) -> ConnectFailure {
    let status = response.status().as_u16();
    let body = timeout(SEND_TIMEOUT, response.text())
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let code = serde_json::from_str::<RestError>(&body)
        .map(|e| e.error)
        .unwrap_or_default();
    ConnectFailure::new(step, format!("HTTP {status} {code}").trim_end(), body)
}

/// Guest account, character, WebSocket, first `player:sync`.
async fn connect(
    index: usize,
    shared: &Shared,
    rng: &mut Rng,
    stats: &mut BotStats,
) -> Result<Entered, ConnectFailure> {
    let endpoints = shared.endpoints_of(index);
    let base = &endpoints.http_base;

    let mut request = shared
        .http
        .post(format!("{base}/api/auth/guest"))
        .json(&json!({}));
    if let Some(key) = &shared.key {
        request = request.header(LOAD_TEST_KEY_HEADER, key);
    }
    let response = send_waiting_out_busy(request, stats)
        .await
        .map_err(|e| ConnectFailure::http("guest", &e))?;
    if !response.status().is_success() {
        return Err(refused("guest", response).await);
    }
    let token = response
        .json::<GuestResponse>()
        .await
        .map_err(|e| ConnectFailure::http("guest", &e))?
        .token;

    let mut attempt = 0;
    loop {
        attempt += 1;
        let name = bot_name(index, rng);
        let mut request = shared
            .http
            .post(format!("{base}/api/v1/player"))
            .bearer_auth(&token)
            .json(&json!({ "name": name }));
        // Every bot comes from this one address: the key spares them the per-address REST limit
        // (each bot's account keeps its own).
        if let Some(key) = &shared.key {
            request = request.header(LOAD_TEST_KEY_HEADER, key);
        }
        let response = send_waiting_out_busy(request, stats)
            .await
            .map_err(|e| ConnectFailure::http("character", &e))?;
        if response.status().is_success() {
            break;
        }
        if response.status() == reqwest::StatusCode::CONFLICT && attempt < NAME_ATTEMPTS {
            stats.name_retries += 1;
            continue;
        }
        return Err(refused("character", response).await);
    }

    open_socket(endpoints, token, stats).await
}

/// How many times a REST call answered 503 `server_busy` is made again before the bot gives up.
const BUSY_ATTEMPTS: u32 = 20;
/// The longest `Retry-After` the bot honours as given (a longer one is waited this long).
const BUSY_WAIT_MAX: Duration = Duration::from_secs(10);

/// Sends `request`, and again after its `Retry-After` while the server answers 503: the
/// documented back-pressure of a saturated server (docs/operations.md), not a failure.
async fn send_waiting_out_busy(
    request: reqwest::RequestBuilder,
    stats: &mut BotStats,
) -> Result<reqwest::Response, reqwest::Error> {
    let mut attempt = 1;
    loop {
        // A JSON body is always clonable; without one the request is sent once as it is.
        let Some(again) = request.try_clone() else {
            return request.send().await;
        };
        let response = again.send().await?;
        if response.status() != reqwest::StatusCode::SERVICE_UNAVAILABLE || attempt >= BUSY_ATTEMPTS
        {
            return Ok(response);
        }
        wait_out_busy(response.headers(), stats).await;
        attempt += 1;
    }
}

/// Waits as a 503's `Retry-After` says (1 s when absent or unreadable, at most
/// [`BUSY_WAIT_MAX`]), counted as a busy retry.
async fn wait_out_busy(headers: &reqwest::header::HeaderMap, stats: &mut BotStats) {
    let wait = headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(Duration::from_secs(1), Duration::from_secs)
        .min(BUSY_WAIT_MAX);
    stats.busy_retries += 1;
    tokio::time::sleep(wait).await;
}

/// Opens `/ws` with `token` and reads the entry `player:sync`.
async fn open_socket(
    endpoints: &Endpoints,
    token: String,
    stats: &mut BotStats,
) -> Result<Entered, ConnectFailure> {
    let url = format!("{}?token={token}", endpoints.ws);
    // The upgrade checks the token and the ban on the store: a saturated one answers 503
    // `server_busy` with `Retry-After`, waited out like a REST call's.
    let mut attempt = 1;
    let connected = loop {
        match tokio_tungstenite::connect_async_with_config(&url, Some(bot_socket()), false).await {
            Err(tungstenite::Error::Http(response))
                if response.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE
                    && attempt < BUSY_ATTEMPTS =>
            {
                wait_out_busy(response.headers(), stats).await;
                attempt += 1;
            }
            other => break other,
        }
    };
    let (mut socket, _) = connected.map_err(|e| match e {
        tungstenite::Error::Http(response) => ConnectFailure::new(
            "websocket",
            format!("HTTP {}", response.status().as_u16()),
            String::from_utf8_lossy(response.body().as_deref().unwrap_or_default()),
        ),
        tungstenite::Error::Io(io) => {
            ConnectFailure::new("websocket", format!("{:?}", io.kind()), io.to_string())
        }
        other => ConnectFailure::new("websocket", "handshake failed", other.to_string()),
    })?;

    // The server's first message is the full state.
    loop {
        let frame = timeout(FIRST_MESSAGE_TIMEOUT, socket.next())
            .await
            .map_err(|_| {
                ConnectFailure::new(
                    "enter",
                    "no player:sync",
                    "timed out waiting for player:sync",
                )
            })?;
        match frame {
            Some(Ok(Message::Text(text))) => {
                // An entry waiting out a saturated store is told so, and then enters.
                if peek_kind(text.as_str()) == Some("error")
                    && text.as_str().contains("\"server_busy\"")
                {
                    stats.busy_retries += 1;
                    continue;
                }
                let kind = record_in(stats, text.as_str());
                if kind.as_deref() == Some("player:sync") {
                    let tile = sync_tile(text.as_str()).ok_or_else(|| {
                        ConnectFailure::new("enter", "unreadable player:sync", text.to_string())
                    })?;
                    return Ok(Entered {
                        socket,
                        tile,
                        first_sync: text.to_string(),
                        token,
                    });
                }
                return Err(ConnectFailure::new(
                    "enter",
                    format!("first message {}", kind.as_deref().unwrap_or("unreadable")),
                    text.to_string(),
                ));
            }
            Some(Ok(Message::Close(frame))) => {
                return Err(ConnectFailure::new(
                    "enter",
                    format!("closed {}", close_code(frame.as_ref())),
                    format!("{frame:?}"),
                ))
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => {
                return Err(ConnectFailure::new("enter", "socket error", e.to_string()))
            }
            None => return Err(ConnectFailure::new("enter", "socket ended", "")),
        }
    }
}

/// The envelope of a server frame, its data skipped.
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct Frame<T> {
    data: T,
}

#[derive(Deserialize)]
struct SyncData {
    #[serde(default)]
    tile: Option<TilePos>,
    position: WorldPos,
}

#[derive(Deserialize)]
struct SyncId {
    id: String,
}

#[derive(Deserialize)]
struct ErrorData {
    code: String,
}

/// Counts a received text frame; returns its type.
fn record_in<'t>(stats: &mut BotStats, text: &'t str) -> Option<Cow<'t, str>> {
    stats.bytes_in += text.len() as u64;
    stats.frames_in += 1;
    // Reading every frame whole made the generator, not the server, the slowest part of a crowd
    // (a 2,000-player crowd receives ~60 MB of JSON a second): the bulk kinds are read whole one
    // time in [`READ_WHOLE_EVERY`], which still catches a server writing bad JSON; the rest always.
    let peeked = peek_kind(text);
    let bulk = matches!(peeked, Some("world:update" | "chat:message"));
    if let (Some(kind), true) = (
        peeked,
        bulk && !stats.frames_in.is_multiple_of(READ_WHOLE_EVERY),
    ) {
        bump(&mut stats.received, kind);
        return Some(Cow::Borrowed(kind));
    }
    match serde_json::from_str::<Head>(text) {
        Ok(head) => {
            bump(&mut stats.received, &head.kind);
            if head.kind == "error" {
                let code = serde_json::from_str::<Frame<ErrorData>>(text)
                    .map(|f| f.data.code)
                    .unwrap_or_else(|_| "unreadable".to_owned());
                bump(&mut stats.errors, &code);
            }
            Some(Cow::Owned(head.kind))
        }
        Err(_) => {
            bump(&mut stats.received, "unreadable");
            None
        }
    }
}

/// One bulk frame in this many is read whole (see [`record_in`]).
const READ_WHOLE_EVERY: u64 = 16;

/// The `type` of a frame as the server writes it (`{"type":"…"` first, no escapes in type names),
/// without reading the rest; `None` for anything else.
fn peek_kind(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(r#"{"type":""#)?;
    let end = rest.find(['"', '\\'])?;
    rest[end..].starts_with('"').then(|| &rest[..end])
}

/// A bot's socket settings: tungstenite zero-fills its read buffer up to `read_buffer_size` before
/// every read, and at the default 128 KiB that memset was a large part of the generator's time in
/// a crowd (a bot gets ~25 KB a tick, in a few reads).
fn bot_socket() -> tungstenite::protocol::WebSocketConfig {
    tungstenite::protocol::WebSocketConfig::default().read_buffer_size(16 * 1024)
}

/// The tile of a `player:sync` frame (its `tile`, or the tile under its position).
fn sync_tile(text: &str) -> Option<TilePos> {
    let sync = serde_json::from_str::<Frame<SyncData>>(text).ok()?.data;
    Some(sync.tile.unwrap_or(TilePos {
        x: sync.position.x.floor() as i32,
        z: sync.position.z.floor() as i32,
    }))
}

/// The character id of a `player:sync` frame.
fn sync_id(text: &str) -> Option<String> {
    serde_json::from_str::<Frame<SyncId>>(text)
        .ok()
        .map(|f| f.data.id)
}

fn close_code(frame: Option<&CloseFrame>) -> String {
    match frame {
        Some(frame) => u16::from(frame.code).to_string(),
        None => "without code".to_owned(),
    }
}

/// Why the act loop ended.
enum End {
    /// The deadline passed or the run was stopped: we close.
    Finished,
    /// The server closed, or the socket broke: counted as a disconnect.
    Lost,
}

struct Bot<'a> {
    index: usize,
    shared: &'a Shared,
    /// `None` only while a `reconnect-storm` bot reconnects (and after, if it could not): the
    /// dropped socket is closed before the new one opens, as a restarted client's would be (two
    /// sockets a bot for 10,000 bots ran the generator out of file descriptors).
    socket: Option<Socket>,
    rng: Rng,
    stats: BotStats,
    tile: TilePos,
    /// When the outstanding sync probe was sent.
    probe: Option<Instant>,
    next_ref: u64,
    /// The last two chat lines said on each channel, so the next differs from both.
    said: Said,
    entered_at: Instant,
    /// Gathering bots: what they know of trees and their own inventory.
    woods: Woods,
    /// Trading bots: their trade cycle.
    trader: Option<Trader>,
    /// A trading bot's character id, until the world has taken it in (see `run_bot`).
    unpublished_id: Option<String>,
    /// Trading bots: their coins.
    purse: Purse,
    /// Trade messages to send, queued while handling a received frame.
    outbox: Vec<Outgoing>,
    /// `spread`: the bot's role.
    spread: Option<SpreadRole>,
    /// `spread`: the way to its town, until it has arrived.
    journey: Option<Journey>,
    /// When this bot stops acting: the run's deadline, or before it the reconnect storm.
    until: Instant,
    /// The account's token, to reconnect with.
    token: String,
    /// When the socket was dropped, until the first `world:update` after reconnecting.
    reentering: Option<Instant>,
}

impl Bot<'_> {
    /// `spread`: takes the bot's role and, unless it stays in the crowd, its journey.
    fn start_spread(&mut self) {
        if self.shared.scenario != Scenario::Spread {
            return;
        }
        let role = role_of(self.index);
        self.spread = Some(role);
        let world =
            super::options::world_of(self.shared.scenario, self.index, self.shared.worlds.len());
        if let Some(places) = self.shared.places.get(world) {
            self.journey = places
                .goal(role, self.index, &mut self.rng)
                .map(Journey::to);
        }
    }

    /// Whether the bot chops trees (and so reads trees and its inventory from what it receives).
    fn gathers(&self) -> bool {
        self.shared.scenario.gathers() || self.spread == Some(SpreadRole::Gatherer)
    }

    /// A travelling `spread` bot's next leg: `Some(sent)` while it travels (whether a walk was
    /// sent, and went out), `None` once it has arrived (or never travelled).
    async fn travel(&mut self) -> Option<bool> {
        let step = self.journey.as_mut()?.step(self.tile);
        match step {
            Step::Arrived => {
                self.journey = None;
                None
            }
            Step::Wait => Some(true),
            Step::Walk(to) => Some(
                self.send(ClientMessage::Move(MoveRequest {
                    x: to.x,
                    z: to.z,
                    run: false,
                }))
                .await,
            ),
        }
    }

    /// Plays to the end; true when the bot stayed connected until it closed. (Whether the server
    /// answered the close in time does not matter to what the bot knows: after a client's close
    /// the server sends it nothing more.)
    async fn play(&mut self, stop: watch::Receiver<bool>) -> bool {
        match self.act(&stop).await {
            End::Finished => {
                self.close().await;
                true
            }
            End::Lost => false,
        }
    }

    /// `reconnect-storm`: idles until `at`, drops the socket without a close handshake (as a
    /// restart or a lost network does) and reconnects at once with the same account. `false`
    /// when the bot is out of the run (lost before, or could not reconnect).
    async fn storm(&mut self, at: Instant, stop: &watch::Receiver<bool>) -> bool {
        self.until = at;
        let end = self.act(stop).await;
        self.until = self.shared.deadline;
        match end {
            End::Lost => return false,
            End::Finished if *stop.borrow() || Instant::now() >= self.shared.deadline => {
                return true
            }
            End::Finished => {}
        }
        let dropped = Instant::now();
        if let Some(mut socket) = self.socket.take() {
            let _ = socket.get_mut().shutdown().await;
        }
        let endpoints = self.shared.endpoints_of(self.index);
        let opened = timeout(
            CONNECT_TIMEOUT,
            open_socket(endpoints, self.token.clone(), &mut self.stats),
        )
        .await;
        let failure = match opened {
            Ok(Ok(entered)) => {
                self.socket = Some(entered.socket);
                self.stats.reconnect.times.record(dropped.elapsed());
                self.reentering = Some(dropped);
                return true;
            }
            Ok(Err(failure)) => failure.key(),
            Err(_) => "timed out entering the world".to_owned(),
        };
        tracing::debug!(bot = self.index, %failure, "bot failed to reconnect");
        bump(&mut self.stats.reconnect.failures, &failure);
        false
    }

    /// The partner's character id, once the partner has entered.
    fn partner_id(&self) -> Option<&str> {
        partner_of(self.index, self.shared.bots)
            .and_then(|p| self.shared.character_ids.get(p))
            .and_then(OnceLock::get)
            .map(String::as_str)
    }

    /// Sends the queued trade messages; false when the socket is lost.
    async fn flush(&mut self) -> bool {
        for message in std::mem::take(&mut self.outbox) {
            if !self.send(message).await {
                return false;
            }
        }
        true
    }

    /// Acts and reads until the deadline, a stop, or a lost connection.
    async fn act(&mut self, stop: &watch::Receiver<bool>) -> End {
        let mut plan = match self.spread {
            Some(role) => Plan::for_role(role, self.shared.chat_every, &mut self.rng),
            None => Plan::start(self.shared.scenario, self.shared.chat_every, &mut self.rng),
        };
        let deadline = self.until;
        // The stop signal and the action timer live across the loop: made anew for every frame
        // (a bot gets one a tick), each registered and dropped a waiter on the run's one watch,
        // shared by every bot, and a timer entry, a large part of the generator's own CPU.
        let mut watch = stop.clone();
        let stopped = async move {
            // The run stopped, or (on error) the run itself is gone: either way, finish.
            while !*watch.borrow_and_update() {
                if watch.changed().await.is_err() {
                    return;
                }
            }
        };
        tokio::pin!(stopped);
        let timer = sleep_until(deadline);
        tokio::pin!(timer);
        loop {
            if *stop.borrow() || Instant::now() >= deadline {
                return End::Finished;
            }
            let (mut action, offset) = plan.next();
            let mut wake = (self.entered_at + offset).min(deadline);
            if let Some(due) = self.trader.as_ref().and_then(Trader::due_at) {
                if due < wake {
                    (action, wake) = (Action::Trade, due);
                }
            }
            if timer.deadline() != wake {
                timer.as_mut().reset(wake);
            }
            tokio::select! {
                () = &mut stopped => return End::Finished,
                frame = next_frame(&mut self.socket) => {
                    if let Some(end) = self.receive(frame) {
                        return end;
                    }
                    if !self.flush().await {
                        return End::Lost;
                    }
                }
                () = &mut timer => {
                    let now = Instant::now();
                    if now >= deadline {
                        return End::Finished;
                    }
                    if !self.perform(action).await {
                        return End::Lost;
                    }
                    if action != Action::Trade {
                        plan.reschedule(action, now - self.entered_at, &mut self.rng);
                    }
                }
            }
        }
    }

    /// Handles one frame from the server; `Some` when the connection is over.
    fn receive(&mut self, frame: Option<Result<Message, tungstenite::Error>>) -> Option<End> {
        match frame {
            Some(Ok(Message::Text(text))) => {
                let kind = record_in(&mut self.stats, text.as_str());
                if let (true, Some(kind)) = (self.gathers(), kind.as_deref()) {
                    self.woods.learn(kind, text.as_str());
                }
                if kind.as_deref() == Some("world:update") {
                    if let Some(dropped) = self.reentering.take() {
                        self.stats.reconnect.first_update.record(dropped.elapsed());
                    }
                    if let Some(id) = self.unpublished_id.take() {
                        if let Some(slot) = self.shared.character_ids.get(self.index) {
                            let _ = slot.set(id);
                        }
                    }
                }
                if let Some(trader) = &mut self.trader {
                    let now = Instant::now();
                    if matches!(kind.as_deref(), Some("player:sync" | "inventory:update")) {
                        self.purse.learn(text.as_str());
                    }
                    // Past the deadline the bot is leaving: what its partner's leaving causes
                    // (a `disconnected` cancel) is not the server's doing.
                    if let (Some(kind), true) = (kind.as_deref(), now < self.shared.deadline) {
                        let out =
                            trader.receive(kind, text.as_str(), &self.purse, now, &mut self.rng);
                        self.outbox.extend(out);
                    }
                }
                if kind.as_deref() == Some("player:sync") {
                    if let Some(sent) = self.probe.take() {
                        self.stats.rtt.record(sent.elapsed());
                    }
                    if let Some(tile) = sync_tile(text.as_str()) {
                        self.tile = tile;
                    }
                }
                None
            }
            Some(Ok(Message::Binary(bytes))) => {
                self.stats.bytes_in += bytes.len() as u64;
                bump(&mut self.stats.received, "binary");
                None
            }
            Some(Ok(Message::Close(frame))) => {
                let reason = format!("closed {}", close_code(frame.as_ref()));
                tracing::debug!(bot = self.index, ?frame, "server closed the socket");
                bump(&mut self.stats.disconnects, &reason);
                Some(End::Lost)
            }
            Some(Ok(_)) => None,
            Some(Err(e)) => {
                tracing::debug!(bot = self.index, error = %e, "socket error");
                bump(&mut self.stats.disconnects, &socket_error_reason(&e));
                Some(End::Lost)
            }
            None => {
                bump(&mut self.stats.disconnects, "socket ended");
                Some(End::Lost)
            }
        }
    }

    /// Does one action; false when the socket is lost.
    async fn perform(&mut self, action: Action) -> bool {
        match action {
            Action::Sync => {
                if let Some(sent) = self.probe {
                    if sent.elapsed() < PROBE_TIMEOUT {
                        // One probe at a time, so each reply belongs to one request.
                        return true;
                    }
                    self.stats.rtt_timeouts += 1;
                }
                self.probe = Some(Instant::now());
                self.send(ClientMessage::Sync).await
            }
            Action::Move => {
                if let Some(sent) = self.travel().await {
                    return sent;
                }
                // The first walk spreads the bots out (a `spread` bot is already where it
                // belongs); later ones wander nearby.
                let target = if self.spread.is_some() || self.stats.sent.contains_key("player:move")
                {
                    wander_target(self.tile, &mut self.rng)
                } else {
                    target_within(self.tile, SPREAD_RADIUS_TILES, &mut self.rng)
                };
                let run = self.rng.one_in(4);
                self.send(ClientMessage::Move(MoveRequest {
                    x: target.x,
                    z: target.z,
                    run,
                }))
                .await
            }
            Action::Gather => {
                if let Some(sent) = self.travel().await {
                    return sent;
                }
                // A full inventory drops a log; otherwise chop the nearest standing tree, or look
                // around for one.
                if self.woods.slots_used >= 28 {
                    if let Some(slot) = self.woods.log_slot {
                        return self
                            .send(ClientMessage::Action(
                                ActionRequest::new("drop").with_slot(slot),
                            ))
                            .await;
                    }
                }
                match self.woods.nearest(self.tile).map(str::to_owned) {
                    Some(tree) => {
                        self.send(ClientMessage::Action(
                            ActionRequest::new("gather").with_target(tree),
                        ))
                        .await
                    }
                    None => {
                        let target = wander_target(self.tile, &mut self.rng);
                        self.send(ClientMessage::Move(MoveRequest {
                            x: target.x,
                            z: target.z,
                            run: false,
                        }))
                        .await
                    }
                }
            }
            Action::Trade => {
                let partner = self.partner_id().map(str::to_owned);
                if let Some(trader) = &mut self.trader {
                    let out = trader.due(Instant::now(), partner.as_deref(), &mut self.rng);
                    self.outbox.extend(out);
                }
                self.flush().await
            }
            Action::Chat => {
                let (text, global) = chat_line(&mut self.rng, &mut self.said);
                let channel = if global {
                    ChatChannel::Global
                } else {
                    ChatChannel::Local
                };
                self.send(ClientMessage::Chat(ChatRequest {
                    text,
                    channel: Some(channel),
                    to: None,
                }))
                .await
            }
        }
    }

    /// Sends `{"type","data","ref"}`; false (a disconnect counted) when it fails or times out.
    async fn send(&mut self, message: ClientMessage) -> bool {
        self.next_ref += 1;
        let kind = message.kind();
        let text = message.frame(Some(self.next_ref.into()));
        let len = text.len() as u64;
        let Some(socket) = self.socket.as_mut() else {
            return false;
        };
        match timeout(SEND_TIMEOUT, socket.send(Message::Text(text.into()))).await {
            Ok(Ok(())) => {
                bump(&mut self.stats.sent, kind);
                self.stats.bytes_out += len;
                true
            }
            Ok(Err(e)) => {
                tracing::debug!(bot = self.index, error = %e, "send failed");
                bump(&mut self.stats.disconnects, &socket_error_reason(&e));
                false
            }
            Err(_) => {
                bump(&mut self.stats.disconnects, "send timed out");
                false
            }
        }
    }

    /// Logs out: a normal close, then reads (and counts) until the server's close arrives.
    async fn close(&mut self) {
        let until = Instant::now() + CLOSE_TIMEOUT;
        let frame = CloseFrame {
            code: CloseCode::Normal,
            reason: "load test finished".into(),
        };
        // A bot that lost its socket has nothing to close (and was counted as it lost it).
        let Some(mut socket) = self.socket.take() else {
            return;
        };
        let closed = timeout_at(until, async {
            if socket.close(Some(frame)).await.is_err() {
                return false;
            }
            while let Some(Ok(message)) = socket.next().await {
                if let Message::Text(text) = message {
                    let kind = record_in(&mut self.stats, text.as_str());
                    // The last inventories (of a trade completing as the run ends) still count.
                    if self.trader.is_some()
                        && matches!(kind.as_deref(), Some("player:sync" | "inventory:update"))
                    {
                        self.purse.learn(text.as_str());
                    }
                }
            }
            true
        })
        .await;
        if !matches!(closed, Ok(true)) {
            self.stats.unclean_closes += 1;
        }
    }
}

/// The socket's next frame; a bot without a socket reads as one whose socket ended.
async fn next_frame(socket: &mut Option<Socket>) -> Option<Result<Message, tungstenite::Error>> {
    socket.as_mut()?.next().await
}

/// A short reason for a socket error.
fn socket_error_reason(e: &tungstenite::Error) -> String {
    match e {
        tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
            "connection closed".to_owned()
        }
        tungstenite::Error::Io(io) => format!("io {:?}", io.kind()),
        tungstenite::Error::Protocol(p) => format!("protocol error: {p}"),
        other => format!("socket error: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_is_peeked_from_the_servers_envelope_only() {
        assert_eq!(
            peek_kind(r#"{"type":"chat:message","data":{}}"#),
            Some("chat:message")
        );
        assert_eq!(peek_kind(r#"{ "type":"chat:message"}"#), None);
        assert_eq!(peek_kind(r#"{"type":"a\"b","data":{}}"#), None);
        assert_eq!(peek_kind(r#"{"type":"unterminated"#), None);
        assert_eq!(peek_kind(r#"{"data":{},"type":"x"}"#), None);
    }

    #[test]
    fn bulk_frames_are_read_whole_now_and_then_so_bad_json_still_shows() {
        let mut stats = BotStats::default();
        let broken = r#"{"type":"world:update","data":{"tick":"#;
        for _ in 0..(2 * READ_WHOLE_EVERY) {
            record_in(&mut stats, broken);
        }
        assert_eq!(stats.received["unreadable"], 2);
        assert_eq!(stats.received["world:update"], 2 * READ_WHOLE_EVERY - 2);
        // Other kinds are always read whole.
        let sync = r#"{"type":"player:sync","data":"#;
        record_in(&mut stats, sync);
        assert_eq!(stats.received["unreadable"], 3);
    }

    #[test]
    fn received_frames_are_counted_by_type_and_error_code() {
        let mut stats = BotStats::default();
        let error = r#"{"type":"error","data":{"code":"move_too_far","message":"x","ref":3}}"#;
        assert_eq!(record_in(&mut stats, error).as_deref(), Some("error"));
        let update = r#"{"type":"world:update","data":{"tick":1,"added":[],"moved":[],"changed":[],"removed":[]}}"#;
        assert_eq!(
            record_in(&mut stats, update).as_deref(),
            Some("world:update")
        );
        assert_eq!(record_in(&mut stats, "nonsense"), None);
        assert_eq!(stats.frames_in, 3);
        assert_eq!(stats.received["error"], 1);
        assert_eq!(stats.received["world:update"], 1);
        assert_eq!(stats.received["unreadable"], 1);
        assert_eq!(stats.errors["move_too_far"], 1);
        assert_eq!(
            stats.bytes_in,
            (error.len() + update.len() + "nonsense".len()) as u64
        );
    }

    #[test]
    fn sync_gives_the_tile() {
        let with_tile = r#"{"type":"player:sync","data":{"id":"c1","position":{"x":3.5,"y":0,"z":-2.5},"tile":{"x":3,"z":-3}}}"#;
        assert_eq!(sync_tile(with_tile), Some(TilePos { x: 3, z: -3 }));
        let without = r#"{"type":"player:sync","data":{"position":{"x":3.5,"y":0,"z":-2.5}}}"#;
        assert_eq!(sync_tile(without), Some(TilePos { x: 3, z: -3 }));
        assert_eq!(sync_tile(r#"{"type":"player:sync","data":{}}"#), None);
    }

    #[test]
    fn connect_failures_are_keyed_by_step_and_reason() {
        let f = ConnectFailure::new("guest", "HTTP 429 rate_limited", "{...}");
        assert_eq!(f.key(), "guest: HTTP 429 rate_limited");
        assert_eq!(f.to_string(), "guest: {...}");
    }
}
