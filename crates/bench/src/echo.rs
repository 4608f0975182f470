//! The floor: the least a server on the same stack (tokio, axum, tungstenite) can do for the
//! requests the game server answers, so that the game server's figures can be read against it.
//!
//! - `GET /health` answers the same JSON shape as the game server's (`{"status":"ok",
//!   "timestamp":"…","version":"…"}`), with no middleware, state or database;
//! - `GET /ws` upgrades to a WebSocket that answers every text frame with the same text (binary
//!   frames with the same bytes), without parsing it.
//!
//! ```no_run
//! # async fn example() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:5602").await?;
//! wayfarer_bench::echo::serve_floor(listener).await
//! # }
//! ```

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use wayfarer_protocol::rest::Health;

/// The version the floor reports in `/health` (the workspace version, as the game server's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The floor's routes: `/health` and `/ws`.
pub fn floor_router() -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/ws", get(ws))
}

/// Serves the floor's routes on `listener` until the process ends (or the listener fails).
pub async fn serve_floor(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    axum::serve(listener, floor_router()).await
}

/// `GET /health`: the game server's shape, a fresh timestamp each time (formatting it is part of
/// the work the game server does too).
pub async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        timestamp: now_iso8601(),
        version: VERSION.into(),
    })
}

/// ISO 8601 UTC of now with milliseconds, as the game server writes it.
pub fn now_iso8601() -> String {
    let at = time::OffsetDateTime::now_utc();
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    at.format(&format)
        .unwrap_or_else(|_| at.unix_timestamp().to_string())
}

async fn ws(upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(echo)
}

/// Answers every data frame with itself until the client closes or the socket breaks. Pings are
/// answered and closes acknowledged by the WebSocket layer itself.
async fn echo(mut socket: WebSocket) {
    while let Some(Ok(message)) = socket.recv().await {
        let reply = match message {
            Message::Text(_) | Message::Binary(_) => message,
            Message::Close(_) => break,
            Message::Ping(_) | Message::Pong(_) => continue,
        };
        if socket.send(reply).await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message as WsMessage;

    use super::*;

    async fn start() -> std::net::SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(serve_floor(listener));
        addr
    }

    #[tokio::test]
    async fn the_floor_echoes_text_frames() {
        let addr = start().await;
        let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap();
        for text in [r#"{"type":"player:sync","data":{}}"#, "second", ""] {
            socket.send(WsMessage::text(text)).await.unwrap();
            match socket.next().await {
                Some(Ok(WsMessage::Text(echoed))) => assert_eq!(echoed.as_str(), text),
                other => panic!("expected the echo of {text:?}, got {other:?}"),
            }
        }
        socket.close(None).await.unwrap();
        // The server acknowledges the close and the stream ends.
        while let Some(Ok(message)) = socket.next().await {
            assert!(message.is_close(), "{message:?}");
        }
    }

    #[tokio::test]
    async fn the_floor_health_has_the_game_servers_shape() {
        let addr = start().await;
        let response = reqwest::get(format!("http://{addr}/health")).await.unwrap();
        assert!(response.status().is_success());
        let health: serde_json::Value = response.json().await.unwrap();
        let object = health.as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["status", "timestamp", "version"]);
        assert_eq!(health["status"], "ok");
        assert_eq!(health["version"], VERSION);
        let timestamp = health["timestamp"].as_str().unwrap();
        assert!(
            timestamp.len() == 24 && timestamp.ends_with('Z') && timestamp.contains('T'),
            "{timestamp}"
        );
    }
}
