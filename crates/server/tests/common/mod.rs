//! What both server test binaries need (`tests/api` and `tests/worlds`), written once: each
//! includes this file with `#[path = "../common/mod.rs"] mod common;` (a folder under `tests/`
//! holding a `mod.rs` is not a test binary of its own). Everything here is used by both, so no
//! item needs `#[allow(dead_code)]`; a helper only one binary uses belongs in that binary.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// A free local port, for a server process to listen on.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until the server at `base` (`http://host:port`) answers `/health` with 200; panics after
/// `limit`.
pub async fn wait_healthy(base: &str, limit: Duration) {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(r) = client.get(format!("{base}/health")).send().await {
            if r.status() == 200 {
                return;
            }
        }
        assert!(Instant::now() < deadline, "{base} never became healthy");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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

/// A game socket's stream (what each binary's client, `WsClient` or `Ws`, wraps).
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

/// Sends `{"type": kind, "data": data}`; a failure shows as a close on the next read.
pub async fn send(stream: &mut Stream, kind: &str, data: Value) {
    let frame = json!({"type": kind, "data": data}).to_string();
    let _ = stream.send(Message::Text(frame.into())).await;
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

/// The tile of a bandit spawn outside PvP areas (where a player can be killed by a mob).
pub fn bandit_tile() -> (i64, i64) {
    let content = wayfarer_content::load_bundled();
    let spawner = content
        .areas
        .values()
        .filter(|a| !a.pvp)
        .flat_map(|a| &a.mob_spawns)
        .find(|m| m.mob_id == "bandit")
        .expect("the bundled world has bandits outside PvP areas");
    (
        spawner.position.x.floor() as i64,
        spawner.position.z.floor() as i64,
    )
}

/// Makes the player admin (`/admin admin_code`), takes it to a bandit outside PvP areas and picks
/// a fight it cannot win; returns once its inventory is empty (the death was dispatched).
pub async fn die_to_a_bandit(stream: &mut Stream, admin_code: &str) {
    send(
        stream,
        "player:chat",
        json!({"text": format!("/admin {admin_code}")}),
    )
    .await;
    let (x, z) = bandit_tile();
    send(
        stream,
        "player:chat",
        json!({"text": format!("/tp {x} {z}")}),
    )
    .await;
    let mut attacked = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = match read(stream, left).await {
            Read::Message(m) => m,
            other => panic!("{other:?} while waiting to die"),
        };
        if !attacked && m["type"] == "world:update" {
            let bandit = m["data"]["added"]
                .as_array()
                .and_then(|a| a.iter().find(|e| e["typeId"] == "bandit"))
                .cloned();
            if let Some(bandit) = bandit {
                send(
                    stream,
                    "player:action",
                    json!({"action": "attack", "targetId": bandit["id"]}),
                )
                .await;
                attacked = true;
            }
        }
        if m["type"] == "inventory:update" && m["data"]["inventory"] == json!([]) {
            return;
        }
    }
}
