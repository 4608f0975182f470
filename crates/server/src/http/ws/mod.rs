//! `GET /ws`: the game channel (CONTRACT.md section 3). The token is checked before the upgrade; then
//! one task per connection reads frames (bad input is answered with `error` and the connection kept),
//! enforces 60 messages a second, forwards commands to the world thread and writes what the world sends.
//!
//! This file authenticates and upgrades; the submodules hold the connection loop (`connection`),
//! entering the world (`entering`), what a client frame asks (`input`, a pure function), carrying it
//! out (`commands`) and slash commands (`slash`).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::extract::rejection::QueryRejection;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use governor::DefaultDirectRateLimiter;
use serde::Deserialize;
use wayfarer_protocol::ErrorCode;

use super::ws_transport::{NotAnUpgrade, Upgrade};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::app::AppState;
use crate::auth::bearer_token;
use crate::http::error::ApiError;

mod commands;
mod connection;
mod cross_world;
mod entering;
mod input;
mod slash;

/// Frames above this are a protocol violation and end the connection; between `MAX_FRAME_BYTES` and
/// this they are answered with `message_too_large`.
const HARD_FRAME_LIMIT: usize = 64 * 1024;
/// Sustained abuse of the message rate for this long closes the connection (1008).
const ABUSE_LIMIT: Duration = Duration::from_secs(10);
/// Longest wait for a socket write or close: a client that stops reading must not hold up its
/// connection's leave (and so the final save a replacing connection waits for).
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for sending a close frame.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);
/// The close reason of a game socket that answered none of `WS_MISSED_PONGS` pings in a row.
const PING_TIMEOUT: &str = "no answer to pings";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WsQuery {
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    character_id: Option<String>,
}

/// `GET /ws`.
pub async fn upgrade(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    query: Result<Query<WsQuery>, QueryRejection>,
    headers: HeaderMap,
    upgrade: Result<Upgrade, NotAnUpgrade>,
) -> Result<Response, ApiError> {
    // Every parameter is text, so the one way the query can fail to read is a name given twice.
    let Ok(Query(query)) = query else {
        return Err(ApiError::bad_request(
            "the query string may give `token` and `characterId` once each",
        ));
    };
    let token = match query.token.as_deref().filter(|t| !t.is_empty()) {
        Some(token) => token,
        None => bearer_token(&headers)?,
    };
    let caller = crate::http::auth_user::authenticate_scoped(&state, token).await?;
    // An agent token opens the socket of its own character only.
    let agent = match &caller.subject {
        crate::auth::Subject::Agent { claim, .. } => Some(claim.clone()),
        _ => None,
    };
    let opener = wayfarer_host::connections::Opener {
        account_id: caller.user.id.as_str().into(),
        token_id: caller.stamp.id.as_str().into(),
        token_issued_at_ms: caller.stamp.issued_at_ms,
    };
    let user = caller.user;
    let characters = state.store.characters().list_for_account(&user.id).await?;
    let wanted = match &agent {
        Some(claim) => {
            if query
                .character_id
                .as_ref()
                .is_some_and(|id| *id != claim.character_id)
            {
                return Err(ApiError::new(
                    ErrorCode::Forbidden,
                    "an agent token opens the socket of its own character only",
                ));
            }
            Some(&claim.character_id)
        }
        None => query.character_id.as_ref(),
    };
    let character = match wanted {
        Some(id) => characters
            .iter()
            .find(|c| &c.id == id)
            .ok_or_else(|| ApiError::not_found("no such character on this account"))?,
        None => crate::characters::active_or_first(&user, &characters, "entering the world")?,
    };
    // Checked after the token, so a bad token is reported first.
    let upgrade = upgrade?;
    let limit = state.config.connections.pending_per_character;
    let Some(entering) = state.connections.begin_entry(&character.id, limit) else {
        metrics::counter!("ws_joins_refused_total").increment(1);
        return Err(ApiError {
            code: ErrorCode::RateLimited,
            message: format!(
                "{limit} connections of this character are already entering the world; try again in a moment"
            ),
            retry_after_secs: Some(1),
        });
    };
    let address = state
        .config
        .trusted_proxies
        .client_ip(peer, &headers)
        .to_string();
    let character_id = character.id.clone();
    let name = character.name.clone();
    // Write size 0: every frame goes to the socket as it is written (see ws_transport). Read size
    // 512: every connection holds its read buffer for its whole life, client messages are a few
    // hundred bytes, and a longer frame makes the buffer grow for it.
    let config = WebSocketConfig::default()
        .read_buffer_size(512)
        .write_buffer_size(0)
        .max_message_size(Some(HARD_FRAME_LIMIT))
        .max_frame_size(Some(HARD_FRAME_LIMIT));
    // The connection is boxed and its `run` future is the task's own future, so an idle player's
    // task holds each of these once. Passed by value through the callback and an `async move`
    // block, they had a moved-from copy in each layer of the task's future: the task was 3,840
    // bytes, then 1,536 plus this 520-byte box (heaptrack, 3,000 idle players); its future is
    // now 1,160 bytes (`connection::tests::the_connection_task_stays_small` pins its main part).
    let agent_id = agent.map(|claim| claim.agent_id.into_boxed_str());
    let connection = Box::new(Connection::new(
        state,
        user,
        character_id,
        name,
        address,
        agent_id,
        entering,
    ));
    Ok(upgrade.accept(config, move |socket| connection.run(socket, opener)))
}

/// One player's socket.
struct Connection {
    state: AppState,
    /// The account's id: all a connection needs of the account once it is checked (the whole
    /// record would stay in memory for the session).
    user_id: String,
    character_id: String,
    name: String,
    address: String,
    is_admin: bool,
    /// The agent this connection plays for, when it was opened with an agent token: it receives
    /// the `agent:*` events and may send `agent:status`.
    agent_id: Option<Box<str>>,
    limiter: DefaultDirectRateLimiter,
    /// Held until this connection is in the world (or gave up): see `Connections::begin_entry`.
    entering: Option<wayfarer_host::connections::PendingEntry>,
    last_limited_notice: Option<Instant>,
    abuse_started: Option<Instant>,
    last_drop: Option<Instant>,
    /// The client `ref`s of commands sent to the world, for echoing in the errors that come back.
    refs: input::Refs,
}

enum Flow {
    Continue,
    Close(u16, &'static str),
}

impl Connection {}
