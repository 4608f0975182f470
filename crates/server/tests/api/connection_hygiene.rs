//! Connection hygiene (issue 27, point 1): per-address caps, the header and keep-alive time limits,
//! pings on the game socket and the cap on a character's pending upgrades, tried as an attacker
//! would from one address while another address uses the server.
//!
//! Loopback covers 127.0.0.0/8 on Linux, so 127.0.0.2 plays the attacker and 127.0.0.3 everyone
//! else; neither is in the default exemption (127.0.0.1).

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use wayfarer_protocol::ws::ClientMessage;

use crate::support::{player, AppOptions, TestApp, WsClient};

const ATTACKER: &str = "127.0.0.2";
const BYSTANDER: &str = "127.0.0.3";

async fn spawn(env: &[(&'static str, &str)]) -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: env.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        ..Default::default()
    })
    .await
}

fn addr(app: &TestApp) -> SocketAddr {
    app.base.trim_start_matches("http://").parse().unwrap()
}

async fn connect_from(source: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(source.parse().unwrap(), 0))
        .unwrap();
    socket.connect(to).await.unwrap()
}

/// Whether the server has closed `stream`: a read returns end of stream (or a reset) within
/// `wait`. Bytes the server sent first are read past.
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

/// Whether `stream` is still open right now: nothing to read and no end of stream.
fn still_open(stream: &TcpStream) -> bool {
    let mut buf = [0u8; 1];
    matches!(stream.try_read(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

#[tokio::test]
async fn one_address_holding_idle_and_half_open_connections_never_stops_another_getting_health() {
    // A lowered cap keeps the test quick; the time limits are long so that only the cap closes
    // connections here (the time limits have their own tests below).
    let app = spawn(&[
        ("MAX_CONNECTIONS_PER_ADDRESS", "40"),
        ("HTTP_HEADER_TIMEOUT_SECS", "600"),
        ("HTTP_KEEPALIVE_SECS", "600"),
    ])
    .await;
    let to = addr(&app);
    let mut held = Vec::new();
    for i in 0..400 {
        let mut stream = connect_from(ATTACKER, to).await;
        if i % 2 == 1 {
            // Half a request head, never finished.
            let _ = stream
                .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                .await;
        }
        held.push(stream);
    }
    // The bystander is served within a second, every time, while the attacker holds its 40.
    let bystander = reqwest::Client::builder()
        .local_address(BYSTANDER.parse::<IpAddr>().unwrap())
        .timeout(Duration::from_secs(1))
        .build()
        .unwrap();
    for _ in 0..10 {
        let response = bystander.get(app.url("/health")).send().await;
        assert_eq!(response.expect("/health answers within 1 s").status(), 200);
    }
    // Exactly the cap stays open: the 41st and every later connection were closed at accept.
    let mut closed = 0;
    for stream in held.iter_mut().skip(40) {
        if closed_within(stream, Duration::from_secs(20)).await {
            closed += 1;
        }
    }
    assert_eq!(closed, 360, "every connection past the cap is closed");
    assert!(
        held.iter().take(40).all(still_open),
        "the first 40 stay open until their time limits"
    );
    // Once the attacker lets go, its address gets connections again.
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(10);
    let attacker = reqwest::Client::builder()
        .local_address(ATTACKER.parse::<IpAddr>().unwrap())
        .build()
        .unwrap();
    loop {
        if let Ok(r) = attacker.get(app.url("/health")).send().await {
            assert_eq!(r.status(), 200);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the address never got a place back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn silent_half_sent_and_idle_kept_alive_connections_are_closed_after_their_time_limits() {
    let app = spawn(&[
        ("HTTP_HEADER_TIMEOUT_SECS", "2"),
        ("HTTP_KEEPALIVE_SECS", "1"),
    ])
    .await;
    let to = addr(&app);
    let mut silent = connect_from(ATTACKER, to).await;
    let mut half = connect_from(ATTACKER, to).await;
    half.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await
        .unwrap();
    let mut kept = connect_from(ATTACKER, to).await;
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 17];
    kept.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200 OK\r\n");
    // Not a timing assertion: each is closed at some point, well before a minute.
    for (what, stream) in [
        ("a connection that sends nothing", &mut silent),
        ("half a request head", &mut half),
        ("an idle kept-alive connection", &mut kept),
    ] {
        assert!(
            closed_within(stream, Duration::from_secs(60)).await,
            "{what} was never closed"
        );
    }
}

#[tokio::test]
async fn the_keepalive_limit_closes_an_idle_kept_alive_connection_but_not_a_new_one() {
    // The header timer is long here, so only the keep-alive check can close anything.
    let app = spawn(&[
        ("HTTP_HEADER_TIMEOUT_SECS", "600"),
        ("HTTP_KEEPALIVE_SECS", "1"),
    ])
    .await;
    let to = addr(&app);
    let fresh = connect_from(ATTACKER, to).await;
    let mut kept = connect_from(ATTACKER, to).await;
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert!(closed_within(&mut kept, Duration::from_secs(60)).await);
    // The keep-alive limit counts from a response; a connection that has had none is the header
    // timer's.
    assert!(still_open(&fresh));
}

#[tokio::test]
async fn a_kept_alive_connection_in_use_is_not_closed() {
    let app = spawn(&[
        ("HTTP_HEADER_TIMEOUT_SECS", "2"),
        ("HTTP_KEEPALIVE_SECS", "2"),
    ])
    .await;
    // One client, one connection, a request every 200 ms for 5 s: past both limits in all, never
    // past either for one wait.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .build()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        let r = client.get(app.url("/health")).send().await.unwrap();
        assert_eq!(r.status(), 200);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The frames a server wrote (unmasked, RFC 6455 section 5.2): (opcode, payload).
fn frames(mut bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while bytes.len() >= 2 {
        let opcode = bytes[0] & 0x0f;
        let (len, at) = match bytes[1] & 0x7f {
            126 if bytes.len() >= 4 => (u16::from_be_bytes([bytes[2], bytes[3]]) as usize, 4),
            127 if bytes.len() >= 10 => (
                u64::from_be_bytes(bytes[2..10].try_into().unwrap()) as usize,
                10,
            ),
            n if n < 126 => (n as usize, 2),
            _ => break,
        };
        if bytes.len() < at + len {
            break;
        }
        out.push((opcode, bytes[at..at + len].to_vec()));
        bytes = &bytes[at + len..];
    }
    out
}

#[tokio::test]
async fn a_game_socket_that_never_answers_pings_is_closed_and_one_that_does_stays() {
    let app = spawn(&[("WS_PING_SECS", "1"), ("WS_MISSED_PONGS", "2")]).await;
    let (token, _) = player(&app, "Deafear").await;
    let to = addr(&app);
    // A raw client: it does the handshake and then never sends a byte, so no pong either.
    let mut raw = connect_from(ATTACKER, to).await;
    raw.write_all(
        format!(
            "GET /ws?token={token} HTTP/1.1\r\nHost: {to}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut received = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut buf = [0u8; 65536];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, raw.read(&mut buf)).await {
            Err(_) => panic!("the silent game socket was never closed"),
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
        }
    }
    let head_end = received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head")
        + 4;
    assert!(received.starts_with(b"HTTP/1.1 101 "));
    let frames = frames(&received[head_end..]);
    let pings = frames.iter().filter(|(op, _)| *op == 0x9).count();
    assert_eq!(pings, 2, "two pings went unanswered before the close");
    let (op, close) = frames.last().expect("a close frame last");
    assert_eq!(*op, 0x8);
    assert_eq!(u16::from_be_bytes([close[0], close[1]]), 1008);
    assert_eq!(&close[2..], b"no answer to pings");

    // A client that reads (tungstenite answers each ping) is kept well past the same time.
    let (token, _) = player(&app, "Goodear").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        let _ = tokio::time::timeout(Duration::from_millis(200), ws.next()).await;
    }
    ws.send(ClientMessage::Sync, None).await;
    ws.expect_type("player:sync").await;
}

#[tokio::test]
async fn a_burst_of_upgrades_for_one_character_is_refused_past_the_pending_limit() {
    // Long ticks: a connection is "entering" until the world takes it in at a tick, so the whole
    // burst arrives while the first ones are still on their way in.
    let app = spawn(&[("TICK_MS", "3000"), ("WS_PENDING_PER_CHARACTER", "2")]).await;
    let (token, _) = player(&app, "Burster").await;
    let query = format!("token={token}");
    let attempts = join_all((0..12).map(|_| WsClient::connect(&app, &query))).await;
    let refused: Vec<u16> = attempts
        .iter()
        .filter_map(|a| a.as_ref().err().copied())
        .collect();
    assert!(
        refused.iter().all(|status| *status == 429),
        "refusals are 429: {refused:?}"
    );
    assert!(
        refused.len() >= 8,
        "at most the pending limit (plus any that entered meanwhile) got through: {} refused",
        refused.len()
    );
    drop(attempts);
    // Once the burst has settled, the character enters as usual.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match WsClient::connect(&app, &query).await {
            Ok(mut ws) => {
                ws.expect_type("player:sync").await;
                break;
            }
            Err(status) => {
                assert_eq!(status, 429);
                assert!(Instant::now() < deadline, "the character never got in");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}
