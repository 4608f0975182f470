//! WebSocket round trips: clients that each send a small JSON text frame and wait for its answer
//! before sending the next, measured as round trips per second and round-trip-time percentiles.
//!
//! [`echo_round_trips`] measures an echo server (the floor of [`crate::echo`]);
//! [`sync_round_trips`] measures the game server answering `player:sync` over logged-in sockets. Both
//! connect every client first and start the clock once all are connected.
//!
//! The game server accepts at most [`SERVER_MESSAGES_PER_SECOND`] messages a second on a socket and
//! drops the rest (answering `error` `rate_limited`), so its round trips are paced: each client
//! sends at most one frame every `pace` ([`DEFAULT_PACE`] is 50 a second). To compare like with like,
//! pace the floor's clients the same way with [`echo_round_trips_paced`].

use std::fmt;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;
use tokio::time::{sleep_until, timeout, timeout_at, Instant};
use tokio_tungstenite::tungstenite::Message;

use crate::http_bench::rate;
use crate::load::{enter_world, LatencySummary, Samples, Socket, CLOSE_TIMEOUT, CONNECT_TIMEOUT};

/// The frame every client sends.
pub const SYNC_FRAME: &str = r#"{"type":"player:sync","data":{}}"#;
/// A round trip unanswered for this long counts as an error and ends its client.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// Messages a second the game server accepts on one socket before dropping them.
pub const SERVER_MESSAGES_PER_SECOND: u32 = 60;
/// The game's round trips' default pace: 50 a second per client, under the server's limit.
pub const DEFAULT_PACE: Duration = Duration::from_millis(20);

/// What a round-trip run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EchoReport {
    /// Where the clients connected.
    pub url: String,
    /// Clients asked for.
    pub clients: usize,
    /// Clients that connected (and, for the game server, entered the world).
    pub connected: usize,
    /// From the start of the measurement (all clients connected) to the end of the last round
    /// trip, in seconds.
    pub duration_seconds: f64,
    /// Frames answered.
    pub round_trips: u64,
    /// Clients that failed to connect, round trips that failed, timed out or were answered by an
    /// `error` message.
    pub errors: u64,
    /// `round_trips / duration_seconds`.
    pub round_trips_per_second: f64,
    /// Round-trip times, in milliseconds.
    pub rtt: LatencySummary,
    /// Smallest interval between two frames of one client, in milliseconds (0: none).
    pub pace_ms: f64,
    /// The first failure (to connect, or of a round trip), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

impl fmt::Display for EchoReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "WS {} x{} ({} connected): {} round trips in {:.1} s = {:.0}/s, {} errors; RTT ms p50 {:.3} p95 {:.3} p99 {:.3} max {:.3}",
            self.url,
            self.clients,
            self.connected,
            self.round_trips,
            self.duration_seconds,
            self.round_trips_per_second,
            self.errors,
            self.rtt.p50,
            self.rtt.p95,
            self.rtt.p99,
            self.rtt.max,
        )?;
        if let Some(error) = &self.first_error {
            write!(f, "; first error: {error}")?;
        }
        Ok(())
    }
}

/// What answers a frame.
#[derive(Debug, Clone, Copy)]
enum Reply {
    /// The same text (an echo).
    Same,
    /// A text frame of this message type (other frames, e.g. `world:update`, are skipped).
    OfType(&'static str),
}

impl Reply {
    /// Whether `received` answers `sent`: `Some(Ok)` it does, `Some(Err(code))` an `error` message
    /// answered instead (game server only), `None` it is some other frame.
    fn answers(self, sent: &str, received: &str) -> Option<Result<(), String>> {
        #[derive(Deserialize)]
        struct Head<'a> {
            #[serde(rename = "type", borrow)]
            kind: &'a str,
            #[serde(default)]
            data: Option<ErrorData>,
        }
        #[derive(Deserialize)]
        struct ErrorData {
            #[serde(default)]
            code: String,
        }
        match self {
            Reply::Same => (sent == received).then_some(Ok(())),
            Reply::OfType(kind) => {
                let head = serde_json::from_str::<Head>(received).ok()?;
                if head.kind == kind {
                    Some(Ok(()))
                } else if head.kind == "error" {
                    let code = head.data.map(|d| d.code).unwrap_or_default();
                    Some(Err(format!("error {code}")))
                } else {
                    None
                }
            }
        }
    }
}

/// `clients` WebSocket clients (at least one) connect to `ws_url` (`ws://host:port/ws`), then each
/// sends [`SYNC_FRAME`] and waits for the same text to come back, again and again, for `duration`,
/// as fast as the answers come.
pub async fn echo_round_trips(ws_url: &str, clients: usize, duration: Duration) -> EchoReport {
    echo_round_trips_paced(ws_url, clients, duration, Duration::ZERO).await
}

/// Like [`echo_round_trips`], but each client sends at most one frame every `pace` (when an answer
/// takes longer, the next frame goes at once).
pub async fn echo_round_trips_paced(
    ws_url: &str,
    clients: usize,
    duration: Duration,
    pace: Duration,
) -> EchoReport {
    let url = ws_url.to_owned();
    run(ws_url, clients, duration, pace, Reply::Same, move |_| {
        let url = url.clone();
        async move {
            match timeout(CONNECT_TIMEOUT, tokio_tungstenite::connect_async(url)).await {
                Ok(Ok((socket, _))) => Ok(socket),
                Ok(Err(e)) => Err(format!("websocket: {e}")),
                Err(_) => Err("websocket: timed out connecting".to_owned()),
            }
        }
    })
    .await
}

/// `clients` players (at least one) enter the game server at `server_url` (`http://host:port`) the
/// way load bots do (guest, character, `/ws`; `key` is the server's `LOAD_TEST_KEY`), then each
/// sends [`SYNC_FRAME`] and waits for the next `player:sync`, again and again, for `duration`, at
/// most one every `pace` (see [`DEFAULT_PACE`]: the server drops messages beyond
/// [`SERVER_MESSAGES_PER_SECOND`]). An `error` answer counts as an error. Players enter one after
/// another, so that many of them do not meet the authentication limit at once.
pub async fn sync_round_trips(
    server_url: &str,
    key: Option<&str>,
    clients: usize,
    duration: Duration,
    pace: Duration,
) -> EchoReport {
    let url = server_url.to_owned();
    let key = key.map(str::to_owned);
    run(
        server_url,
        clients,
        duration,
        pace,
        Reply::OfType("player:sync"),
        move |index| {
            let url = url.clone();
            let key = key.clone();
            async move { enter_world(&url, key.as_deref(), index).await }
        },
    )
    .await
}

/// Connects `clients` sockets with `connect` (one at a time), then runs the round trips on all of
/// them at once and closes them.
async fn run<C, F>(
    url: &str,
    clients: usize,
    duration: Duration,
    pace: Duration,
    reply: Reply,
    connect: C,
) -> EchoReport
where
    C: Fn(usize) -> F,
    F: std::future::Future<Output = Result<Socket, String>>,
{
    let clients = clients.max(1);
    let mut sockets = Vec::with_capacity(clients);
    let mut errors = 0;
    let mut first_error = None;
    for index in 0..clients {
        match connect(index).await {
            Ok(socket) => sockets.push(socket),
            Err(e) => {
                errors += 1;
                first_error.get_or_insert(e);
            }
        }
    }
    let connected = sockets.len();
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = JoinSet::new();
    for socket in sockets {
        tasks.spawn(client(socket, reply, pace, deadline));
    }
    let mut samples = Samples::new();
    while let Some(result) = tasks.join_next().await {
        match result {
            Ok(outcome) => {
                samples.merge(outcome.samples);
                errors += outcome.errors;
                if let Some(e) = outcome.first_error {
                    first_error.get_or_insert(e);
                }
            }
            Err(_) => errors += 1,
        }
    }
    // The clock stops at the last round trip, not after the closes.
    let duration_seconds = samples_end(start, deadline);
    let round_trips = samples.len() as u64;
    EchoReport {
        url: url.to_owned(),
        clients,
        connected,
        duration_seconds,
        round_trips,
        errors,
        round_trips_per_second: rate(round_trips, duration_seconds),
        rtt: samples.summary(),
        pace_ms: pace.as_secs_f64() * 1000.0,
        first_error,
    }
}

/// The measured time: the run's nominal length, or less when it ended early (all clients failed).
fn samples_end(start: Instant, deadline: Instant) -> f64 {
    Instant::now()
        .min(deadline)
        .saturating_duration_since(start)
        .as_secs_f64()
}

/// What one client measured.
struct ClientOutcome {
    samples: Samples,
    errors: u64,
    first_error: Option<String>,
}

/// One client's round trips until `deadline`, then a normal close. A round trip answered by an
/// `error` counts as an error and the client goes on; a broken socket or a timeout ends it.
async fn client(
    mut socket: Socket,
    reply: Reply,
    pace: Duration,
    deadline: Instant,
) -> ClientOutcome {
    let mut outcome = ClientOutcome {
        samples: Samples::new(),
        errors: 0,
        first_error: None,
    };
    fn fail(outcome: &mut ClientOutcome, why: String) {
        outcome.errors += 1;
        outcome.first_error.get_or_insert(why);
    }
    let mut next_send = Instant::now();
    while next_send < deadline {
        sleep_until(next_send).await;
        let sent = Instant::now();
        // A fixed schedule that never bursts to catch up.
        next_send = (next_send + pace).max(sent);
        if let Err(e) = socket.send(Message::text(SYNC_FRAME)).await {
            fail(&mut outcome, format!("send: {e}"));
            break;
        }
        let answered = timeout(REPLY_TIMEOUT, async {
            while let Some(frame) = socket.next().await {
                match frame {
                    Ok(Message::Text(text)) => {
                        if let Some(answer) = reply.answers(SYNC_FRAME, text.as_str()) {
                            return answer.map_err(|e| (e, false));
                        }
                    }
                    Ok(Message::Close(frame)) => {
                        let code = frame.map_or("without code".to_owned(), |f| {
                            format!("{} {}", u16::from(f.code), f.reason)
                        });
                        return Err((format!("closed {code}"), true));
                    }
                    Err(e) => return Err((format!("socket: {e}"), true)),
                    Ok(_) => continue,
                }
            }
            Err(("socket ended".to_owned(), true))
        })
        .await;
        match answered {
            Ok(Ok(())) => outcome.samples.record(sent.elapsed()),
            Ok(Err((why, fatal))) => {
                fail(&mut outcome, why);
                if fatal {
                    return outcome;
                }
            }
            Err(_) => {
                fail(&mut outcome, "no answer in time".to_owned());
                break;
            }
        }
    }
    // Close normally (the game server logs the player out), reading until the server's close.
    let _ = timeout_at(Instant::now() + CLOSE_TIMEOUT, async {
        if socket.close(None).await.is_ok() {
            while let Some(Ok(_)) = socket.next().await {}
        }
    })
    .await;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_is_the_typed_sync_request() {
        // A constant for the benchmark loop; the protocol's writer says what it must be.
        let typed = wayfarer_protocol::ws::ClientMessage::Sync.to_json();
        assert_eq!(SYNC_FRAME, typed);
    }

    #[test]
    fn replies_match_by_text_or_by_type() {
        assert_eq!(Reply::Same.answers(SYNC_FRAME, SYNC_FRAME), Some(Ok(())));
        assert_eq!(Reply::Same.answers(SYNC_FRAME, "{}"), None);
        let sync = Reply::OfType("player:sync");
        let answer = |text| sync.answers(SYNC_FRAME, text);
        assert_eq!(
            answer(r#"{"type":"player:sync","data":{"id":"c1"}}"#),
            Some(Ok(()))
        );
        assert_eq!(answer(r#"{"type":"world:update","data":{}}"#), None);
        assert_eq!(answer("nonsense"), None);
        assert_eq!(
            answer(r#"{"type":"error","data":{"code":"rate_limited","message":"x"}}"#),
            Some(Err("error rate_limited".to_owned()))
        );
    }

    #[tokio::test]
    async fn paced_round_trips_keep_to_the_pace() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(crate::echo::serve_floor(listener));
        let report = echo_round_trips_paced(
            &format!("ws://{addr}/ws"),
            2,
            Duration::from_secs(1),
            Duration::from_millis(50),
        )
        .await;
        // 20 a second per client at most (plus the first), and well above none.
        assert!((10..=2 * 21).contains(&report.round_trips), "{report}");
        assert_eq!(report.errors, 0, "{report}");
        assert_eq!(report.pace_ms, 50.0);
    }

    #[tokio::test]
    async fn round_trips_against_the_floor_are_counted() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(crate::echo::serve_floor(listener));
        let report = echo_round_trips(&format!("ws://{addr}/ws"), 4, Duration::from_secs(1)).await;
        assert_eq!(report.connected, 4, "{report}");
        assert!(report.round_trips > 0, "{report}");
        assert_eq!(report.errors, 0, "{report}");
        assert_eq!(report.rtt.count, report.round_trips);
        assert!(report.round_trips_per_second > 0.0);
        assert!(report.rtt.p50 <= report.rtt.p99);
    }

    #[tokio::test]
    async fn a_server_that_is_not_there_counts_connect_errors() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let report = echo_round_trips(
            &format!("ws://127.0.0.1:{port}/ws"),
            2,
            Duration::from_millis(100),
        )
        .await;
        assert_eq!(report.connected, 0);
        assert_eq!(report.round_trips, 0);
        assert_eq!(report.errors, 2);
        assert!(report.first_error.is_some());
    }
}
