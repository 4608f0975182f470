//! The `/ws` route as the route table registers it: the upgrade handler of `http::ws` behind the
//! OpenAPI description of the handshake (its query parameters, 101 and the JSON errors before the
//! upgrade). The messages exchanged after it are described by `GET /api/protocol.json`.

use std::net::SocketAddr;

use axum::extract::rejection::QueryRejection;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use wayfarer_protocol::ErrorBody;

use super::ws::WsQuery;
use super::ws_transport::{NotAnUpgrade, Upgrade};
use crate::app::AppState;
use crate::http::error::ApiError;
use crate::http::openapi::tags;

/// `GET /ws`.
#[utoipa::path(
    get,
    path = "/ws",
    tag = tags::GAME_SOCKET,
    summary = "Open the game channel (WebSocket upgrade)",
    description = "The token and the character are checked before the upgrade. After 101 the socket carries one JSON \
        object per text frame, described by GET /api/protocol.json; docs/protocol.md gives the close codes.",
    security((), ("bearer" = [])),
    params(
        ("token" = Option<String>, Query, description = "The bearer token, when the client cannot send an Authorization header"),
        ("characterId" = Option<String>, Query, description = "The character to play (default: the active one, else the first)")
    ),
    responses(
        (status = 101, description = "Switching protocols: the game channel is open"),
        (status = 400, description = "`bad_request`: not a WebSocket upgrade request", body = ErrorBody),
        (status = 401, description = "`unauthorized`: no token, or not a valid one", body = ErrorBody),
        (status = 403, description = "`forbidden`: the account is banned", body = ErrorBody),
        (status = 404, description = "`not_found`: `characterId` is not a character of this account", body = ErrorBody),
        (status = 409, description = "`conflict`: the account has no character", body = ErrorBody)
    )
)]
pub async fn upgrade(
    state: State<AppState>,
    peer: ConnectInfo<SocketAddr>,
    query: Result<Query<WsQuery>, QueryRejection>,
    headers: HeaderMap,
    upgrade: Result<Upgrade, NotAnUpgrade>,
) -> Result<Response, ApiError> {
    super::ws::upgrade(state, peer, query, headers, upgrade).await
}
