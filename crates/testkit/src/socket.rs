//! Game sockets over real WebSockets, speaking the contract's envelope.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use wayfarer_host::world_thread::TickClock;
use wayfarer_protocol::ws::ClientMessage;

use crate::app::TestApp;

/// How long a test waits for an expected message.
pub const WAIT: Duration = Duration::from_secs(10);

/// How many ticks [`WsClient::expect`] steps a manual world for a message before it gives up:
/// ten minutes of the game's 600 ms ticks, more than any wait of a test (a respawn, a fight, a
/// quest's stage), and about a second of stepping.
pub const EXPECT_TICKS: u64 = 1_000;

/// How long a stepping wait waits for the answer to its barrier before it steps anyway: only a
/// connection that no longer forwards to the world (being closed) leaves one unanswered.
const BARRIER_WAIT: Duration = Duration::from_secs(1);

/// What a read came to.
enum Got {
    /// A message for the test.
    Message(Value),
    /// The answer to one of the kit's barriers (or a frame that is not text).
    Barrier,
    /// Nothing within the wait.
    Nothing,
}

/// Who sent a `player:sync` that the server has not answered yet: the server answers syncs in
/// the order it got them, so the answers are told apart by this queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SyncAsker {
    /// The test: its answer is read like any message.
    Test,
    /// The kit's own barrier while it steps the world: its answer is not shown to the test.
    Kit,
}

/// A game socket's stream.
pub type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// What reading a socket came to.
#[derive(Debug)]
pub enum Read {
    Message(Value),
    /// With the close code, if the server sent one.
    Closed(Option<u16>),
    TimedOut,
}

/// Sends `message` (no `ref`); a failure shows as a close on the next read.
pub async fn send_message(stream: &mut Stream, message: &ClientMessage) {
    let _ = stream.send(Message::Text(message.to_json().into())).await;
}

/// The next text message within `wait` (other frames are skipped).
pub async fn read(stream: &mut Stream, wait: Duration) -> Read {
    loop {
        match tokio::time::timeout(wait, stream.next()).await {
            Err(_) => return Read::TimedOut,
            Ok(Some(Ok(Message::Text(text)))) => {
                return Read::Message(serde_json::from_str(text.as_str()).unwrap())
            }
            Ok(Some(Ok(Message::Close(frame)))) => {
                return Read::Closed(frame.map(|f| u16::from(f.code)))
            }
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(_))) | Ok(None) => return Read::Closed(None),
        }
    }
}

/// A game client over a real WebSocket.
///
/// On a manual world (the test kit's default) [`WsClient::expect`] steps the world until the
/// message it waits for comes, one tick at a time, reading each tick's messages whole before the
/// next (a `player:sync` of the kit's own marks the end of what the world has sent; its answer
/// is hidden from the test). So a test waits on the game's ticks, not on the wall clock.
pub struct WsClient {
    /// The socket itself, for [`send`] and [`read`]. What is sent or read on it directly is not
    /// seen by the stepping waits: use the methods on a manual world.
    pub stream: Stream,
    /// The world's clock when it is manual and in this process.
    clock: Option<TickClock>,
    /// The `player:sync`s sent and not yet answered, oldest first.
    syncs: VecDeque<SyncAsker>,
    /// Whether the entry's `player:sync` (the first message of every game socket, answering no
    /// request) has been read.
    entry_read: bool,
}

impl WsClient {
    /// Connects to `/ws` with `query` (e.g. `token=…`), or returns the HTTP status of a refusal.
    pub async fn connect(app: &TestApp, query: &str) -> Result<WsClient, u16> {
        let mut client = WsClient::connect_to(&app.base, query).await?;
        client.clock = app.is_manual().then(|| app.clock());
        Ok(client)
    }

    fn new(stream: Stream) -> WsClient {
        WsClient {
            stream,
            clock: None,
            syncs: VecDeque::new(),
            entry_read: false,
        }
    }

    /// Connects to the server at `base` (`http://host:port`), e.g. a server process.
    pub async fn connect_to(base: &str, query: &str) -> Result<WsClient, u16> {
        let url = format!("{}/ws?{query}", base.replace("http://", "ws://"));
        match tokio_tungstenite::connect_async(url).await {
            Ok((stream, _)) => Ok(WsClient::new(stream)),
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
        let mut client = WsClient::new(stream);
        client.clock = app.is_manual().then(|| app.clock());
        client
    }

    /// Sends a raw text frame.
    pub async fn send_text(&mut self, text: impl Into<String>) {
        let text = text.into();
        self.note_sync(&text, SyncAsker::Test);
        self.stream.send(Message::Text(text.into())).await.unwrap();
    }

    /// Books the answer a frame asks for, if it is a `player:sync` the server will answer.
    fn note_sync(&mut self, text: &str, asker: SyncAsker) {
        if matches!(ClientMessage::parse(text).0, Ok(ClientMessage::Sync)) {
            self.syncs.push_back(asker);
        }
    }

    /// Sends a raw text frame; an error once the connection is closed.
    pub async fn try_send_text(
        &mut self,
        text: &str,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.note_sync(text, SyncAsker::Test);
        self.stream.send(Message::Text(text.into())).await
    }

    /// Sends `message` with `reference` as its `ref` (or none): the frame is the protocol
    /// crate's own writing of it ([`ClientMessage::frame`]), as a real client's would be.
    pub async fn send(&mut self, message: ClientMessage, reference: Option<Value>) {
        self.send_text(message.frame(reference)).await;
    }

    /// Sends `{"type": kind, "data": data, "ref"?}` as written, typed or not: only for tests of
    /// malformed or unknown input, where the hand-written JSON is the point. Everything else
    /// sends a [`ClientMessage`] with [`WsClient::send`].
    pub async fn send_raw(&mut self, kind: &str, data: Value, reference: Option<Value>) {
        let mut frame = json!({"type": kind, "data": data});
        if let Some(r) = reference {
            frame["ref"] = r;
        }
        self.send_text(frame.to_string()).await;
    }

    /// The next message, or `Err` when the socket closed (with its close code, if any). On a
    /// manual world it steps the world until a message comes, as [`expect`] does.
    ///
    /// [`expect`]: WsClient::expect
    pub async fn next(&mut self) -> Result<Value, Option<u16>> {
        match self.clock.clone() {
            Some(clock) => self.read_stepping(&clock, "a message", |_| true).await,
            None => self.next_unstepped().await,
        }
    }

    /// The next message without stepping the world: what it waits for must be on its way.
    async fn next_unstepped(&mut self) -> Result<Value, Option<u16>> {
        loop {
            match self.read_any(WAIT).await? {
                Got::Message(message) => return Ok(message),
                Got::Barrier => continue,
                Got::Nothing => panic!("timed out waiting for a message"),
            }
        }
    }

    /// What came within `wait`.
    async fn read_any(&mut self, wait: Duration) -> Result<Got, Option<u16>> {
        let message = match read(&mut self.stream, wait).await {
            Read::Message(message) => message,
            Read::Closed(code) => return Err(code),
            Read::TimedOut => return Ok(Got::Nothing),
        };
        Ok(self.sort(message))
    }

    /// Tells the answer to one of the kit's barriers from a message for the test.
    fn sort(&mut self, message: Value) -> Got {
        if message["type"] == "player:sync" {
            if !self.entry_read {
                self.entry_read = true;
            } else if self.syncs.pop_front() == Some(SyncAsker::Kit) {
                return Got::Barrier;
            }
        }
        Got::Message(message)
    }

    /// Reads until a message satisfies `accept`, skipping others; panics on close or timeout.
    /// On a manual world it steps the world one tick at a time until the message comes, for at
    /// most [`EXPECT_TICKS`] ticks (each tick's messages are read whole before the next runs).
    pub async fn expect(&mut self, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
        let read = match self.clock.clone() {
            Some(clock) => self.read_stepping(&clock, what, accept).await,
            None => self.read_timed(what, accept).await,
        };
        read.unwrap_or_else(|code| panic!("socket closed ({code:?}) while waiting for {what}"))
    }

    async fn read_timed(
        &mut self,
        what: &str,
        accept: impl Fn(&Value) -> bool,
    ) -> Result<Value, Option<u16>> {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            let message = self.next_unstepped().await?;
            if accept(&message) {
                return Ok(message);
            }
        }
    }

    /// Reads until a message satisfies `accept`, stepping the world a tick whenever everything
    /// it has sent so far was read (a barrier: the kit's own `player:sync`, whose answer comes
    /// behind them and is hidden from the test).
    async fn read_stepping(
        &mut self,
        clock: &TickClock,
        what: &str,
        accept: impl Fn(&Value) -> bool,
    ) -> Result<Value, Option<u16>> {
        for stepped in 0..=EXPECT_TICKS {
            // What has already come needs no barrier.
            while let Some(read) = self.read_ready() {
                match read? {
                    Got::Message(message) if accept(&message) => return Ok(message),
                    _ => {}
                }
            }
            let _ = self
                .stream
                .send(Message::Text(ClientMessage::Sync.to_json().into()))
                .await;
            self.syncs.push_back(SyncAsker::Kit);
            loop {
                match self.read_any(BARRIER_WAIT).await? {
                    Got::Message(message) if accept(&message) => return Ok(message),
                    Got::Message(_) => {}
                    // The kit's barriers are answered in order and this one was asked last:
                    // once none is waiting, what the world had sent has all been read.
                    Got::Barrier if !self.syncs.contains(&SyncAsker::Kit) => break,
                    Got::Barrier => {}
                    // A connection on its way out (replaced, banned, revoked) forwards nothing
                    // to the world any more, and its close comes in the world's next tick.
                    Got::Nothing => break,
                }
            }
            if stepped < EXPECT_TICKS {
                clock
                    .step(1)
                    .await
                    .unwrap_or_else(|err| panic!("stepping while waiting for {what}: {err}"));
            }
        }
        panic!("{what}: not within {EXPECT_TICKS} ticks");
    }

    /// A message already received, without waiting: `None` when none is; `Some(Err)` on a close.
    fn read_ready(&mut self) -> Option<Result<Got, Option<u16>>> {
        use futures_util::FutureExt;
        let message = match self.stream.next().now_or_never()? {
            Some(Ok(Message::Text(text))) => serde_json::from_str::<Value>(text.as_str()).unwrap(),
            Some(Ok(Message::Close(frame))) => return Some(Err(frame.map(|f| u16::from(f.code)))),
            Some(Ok(_)) => return Some(Ok(Got::Barrier)),
            Some(Err(_)) | None => return Some(Err(None)),
        };
        Some(Ok(self.sort(message)))
    }

    /// Reads until a message of `kind`.
    pub async fn expect_type(&mut self, kind: &str) -> Value {
        self.expect(kind, |m| m["type"] == kind).await
    }

    /// Sends `player:sync` and reads until its reply, skipping what comes before it: every
    /// message sent on this socket before is then in the world's queue (the connection forwards
    /// in order, and the world answers a sync as it takes it, between ticks), so the next step
    /// of a manual world applies them.
    pub async fn barrier(&mut self) -> Value {
        self.send(ClientMessage::Sync, None).await;
        self.expect_type("player:sync").await
    }

    /// On a manual world: steps it one tick at a time until a message satisfies `accept`, and
    /// returns that message; panics when none did within `ticks` ticks. What the socket sent
    /// before is in the first tick. Each tick's messages are read whole before the next tick
    /// runs: up to the reply to a `player:sync` asked once the tick ran, which the world queues
    /// behind the tick's own. So the bound is in the game's ticks, whatever the machine's speed.
    pub async fn expect_within_ticks(
        &mut self,
        app: &TestApp,
        ticks: u64,
        what: &str,
        accept: impl Fn(&Value) -> bool,
    ) -> Value {
        for stepped in 0..=ticks {
            self.send(ClientMessage::Sync, None).await;
            loop {
                let message = self
                    .next_unstepped()
                    .await
                    .unwrap_or_else(|code| panic!("socket closed ({code:?}) waiting for {what}"));
                if message["type"] == "player:sync" {
                    break;
                }
                if accept(&message) {
                    return message;
                }
            }
            if stepped < ticks {
                app.step(1).await;
            }
        }
        panic!("{what}: not within {ticks} ticks");
    }

    /// Asks `player:sync` until the player stands on tile (`x`, `z`) (a walk or a teleport
    /// takes ticks); panics after [`WAIT`].
    pub async fn wait_for_tile(&mut self, x: i64, z: i64) {
        let deadline = Instant::now() + WAIT;
        let mut stepped = 0;
        loop {
            let sync = self.barrier().await;
            if sync["data"]["tile"] == json!({"x": x, "z": z}) {
                return;
            }
            match &self.clock {
                Some(clock) => {
                    assert!(stepped < EXPECT_TICKS, "never reached ({x}, {z}): {sync}");
                    clock.step(1).await.expect("the world steps");
                    stepped += 1;
                }
                None => {
                    assert!(
                        Instant::now() < deadline,
                        "never reached ({x}, {z}): {sync}"
                    );
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    /// Logs out: a normal close handshake. The server completes it once the final save is
    /// written; a manual world writes it in its next step, so on one this steps the world until
    /// the server's close comes.
    pub async fn close(mut self) {
        let _ = self.stream.close(None).await;
        if let Some(clock) = self.clock.clone() {
            for _ in 0..EXPECT_TICKS {
                match tokio::time::timeout(Duration::from_millis(20), self.stream.next()).await {
                    Ok(Some(Ok(_))) => continue,
                    Ok(_) => return,
                    Err(_) => {
                        if clock.step(1).await.is_err() {
                            return;
                        }
                    }
                }
            }
            panic!("the server never closed the socket");
        }
        // Drain until the server's close arrives so the logout is complete on its side.
        let _ = tokio::time::timeout(WAIT, async {
            while let Some(Ok(_)) = self.stream.next().await {}
        })
        .await;
    }

    /// Reads until the socket closes; returns its close code. On a manual world it steps the
    /// world meanwhile without barriers of its own: a frame sent to a server that is closing
    /// the connection can make it reset the connection, and the close code would be lost.
    pub async fn expect_close(&mut self) -> Option<u16> {
        loop {
            if let Err(code) = self.next_quiet().await {
                return code;
            }
        }
    }

    /// The next message; on a manual world the world is stepped whenever none comes within
    /// 50 ms, and nothing is sent (for a connection the server is closing: see
    /// [`WsClient::expect_close`]).
    pub async fn next_quiet(&mut self) -> Result<Value, Option<u16>> {
        let Some(clock) = self.clock.clone() else {
            return self.next_unstepped().await;
        };
        for _ in 0..EXPECT_TICKS {
            match self.read_any(Duration::from_millis(50)).await? {
                Got::Message(message) => return Ok(message),
                Got::Barrier => {}
                Got::Nothing => {
                    clock.step(1).await.expect("the world steps");
                }
            }
        }
        panic!("no message within {EXPECT_TICKS} ticks");
    }
}
