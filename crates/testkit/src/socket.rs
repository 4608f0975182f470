//! Game sockets over real WebSockets, speaking the contract's envelope.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use wayfarer_protocol::ws::ClientMessage;

use crate::app::TestApp;

/// How long a test waits for an expected message.
pub const WAIT: Duration = Duration::from_secs(10);

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
pub struct WsClient {
    /// The socket itself, for [`send`] and [`read`].
    pub stream: Stream,
}

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
        self.stream
            .send(Message::Text(text.into().into()))
            .await
            .unwrap();
    }

    /// Sends a raw text frame; an error once the connection is closed.
    pub async fn try_send_text(
        &mut self,
        text: &str,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
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

    /// The next message, or `None` when the socket closed (with its close code, if any).
    pub async fn next(&mut self) -> Result<Value, Option<u16>> {
        match read(&mut self.stream, WAIT).await {
            Read::Message(message) => Ok(message),
            Read::Closed(code) => Err(code),
            Read::TimedOut => panic!("timed out waiting for a message"),
        }
    }

    /// Reads until a message satisfies `accept`, skipping others; panics on close or timeout.
    pub async fn expect(&mut self, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            match self.next().await {
                Ok(message) if accept(&message) => return message,
                Ok(_) => continue,
                Err(code) => panic!("socket closed ({code:?}) while waiting for {what}"),
            }
        }
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
                    .next()
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
        loop {
            let sync = self.barrier().await;
            if sync["data"]["tile"] == json!({"x": x, "z": z}) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "never reached ({x}, {z}): {sync}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Logs out: a normal close handshake. The server completes it once the final save is
    /// written, which a manual world does in the next step: close there in a task while
    /// stepping ([`TestApp::left`](crate::TestApp::left)).
    pub async fn close(mut self) {
        let _ = self.stream.close(None).await;
        // Drain until the server's close arrives so the logout is complete on its side.
        let _ = tokio::time::timeout(WAIT, async {
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
