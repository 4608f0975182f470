//! `GET /api/config` (public): what a client needs before it logs in — where the game socket, the
//! API and the CDN are, the identity provider's app id, the tick length and the limits it must
//! respect. The addresses come from `PUBLIC_WS_URL`, `PUBLIC_API_URL` and `PUBLIC_CDN_URL`; a
//! client of a server without them gets addresses derived from its own request (the `Host` it
//! used, and `X-Forwarded-Proto` when a trusted proxy sent the request), so the answer works behind
//! a proxy and on a developer's machine alike. An answer built from the request says so with
//! `Vary: Host`, and no answer is ever stored (`Cache-Control: no-store`): a shared cache must not
//! hand one client's `Host` to another (cache poisoning). Set the `PUBLIC_*` addresses in
//! production and the request is not used at all.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use wayfarer_protocol::ws::{MAX_CHAT_CHARS, MAX_FRAME_BYTES, MAX_MOVE_TILES};

use crate::app::AppState;
use crate::http::openapi::tags;
use crate::rate_limit::{AUTH_PER_WINDOW, REST_PER_WINDOW, WS_PER_SECOND};

/// The answer of `GET /api/config`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    /// The game socket, `ws://…/ws` or `wss://…/ws`.
    pub ws_url: String,
    /// The REST API's base address (no trailing slash).
    pub api_url: String,
    /// Where manifests, models and textures come from; `null`: this server (`/manifests/…`).
    pub cdn_url: Option<String>,
    /// The identity provider's application id (`PUBLIC_IDP_APP_ID`); `null` when not configured
    /// (guest accounts only).
    pub idp_app_id: Option<String>,
    /// The game tick in milliseconds.
    pub tick_ms: u64,
    pub limits: Limits,
}

/// The limits of the specification a client must respect.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// WebSocket messages a second per connection.
    pub ws_messages_per_second: u32,
    /// Largest WebSocket text frame, in bytes.
    pub ws_max_frame_bytes: usize,
    /// REST requests per client address per window.
    pub rest_requests_per_window: u32,
    /// Authentication requests per client address per window.
    pub auth_requests_per_window: u32,
    /// The rate-limit window, in seconds.
    pub window_seconds: u64,
    /// Farthest move target, in tiles (Chebyshev) from the current tile.
    pub max_move_tiles: i32,
    /// Longest chat line, in characters after trimming.
    pub max_chat_chars: usize,
    /// Inventory slots (0 to this − 1).
    pub inventory_slots: usize,
    /// Distinct items a bank holds.
    pub bank_capacity: usize,
    /// View distance in tiles (Chebyshev).
    pub view_distance_tiles: i32,
    /// Whether the rate limits are switched off (`DISABLE_RATE_LIMIT`, development and test only).
    pub rate_limits_disabled: bool,
}

/// `GET /api/config`.
#[utoipa::path(
    get,
    path = "/api/config",
    tag = tags::SERVICE,
    summary = "What a client needs before logging in",
    description = "Never cached (`Cache-Control: no-store`); `Vary: Host` when an address was derived from the request because its `PUBLIC_*` setting is unset.",
    responses((status = 200, description = "Addresses, tick length and limits", body = ClientConfig))
)]
pub async fn config(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    let config = &state.config;
    let trim = |url: &str| url.trim_end_matches('/').to_owned();
    // Only what the settings leave open is taken from the request.
    let from_request = config.public_ws_url.is_none() || config.public_api_url.is_none();
    let (ws_url, api_url) = if from_request {
        let (http, ws) = if forwarded_https(&state, peer, &headers) {
            ("https", "wss")
        } else {
            ("http", "ws")
        };
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_graphic()))
            .map_or_else(|| format!("localhost:{}", config.port), str::to_owned);
        (
            config
                .public_ws_url
                .clone()
                .unwrap_or_else(|| format!("{ws}://{host}/ws")),
            config
                .public_api_url
                .as_deref()
                .map_or_else(|| format!("{http}://{host}"), trim),
        )
    } else {
        (
            config.public_ws_url.clone().unwrap_or_default(),
            config
                .public_api_url
                .as_deref()
                .map(trim)
                .unwrap_or_default(),
        )
    };
    let body = ClientConfig {
        ws_url,
        api_url,
        cdn_url: config.public_cdn_url.as_deref().map(trim),
        idp_app_id: config.public_idp_app_id.clone(),
        tick_ms: config.tick_ms,
        limits: Limits {
            ws_messages_per_second: WS_PER_SECOND,
            ws_max_frame_bytes: MAX_FRAME_BYTES,
            rest_requests_per_window: REST_PER_WINDOW,
            auth_requests_per_window: AUTH_PER_WINDOW,
            window_seconds: state.limits.window().as_secs(),
            max_move_tiles: MAX_MOVE_TILES,
            max_chat_chars: MAX_CHAT_CHARS,
            inventory_slots: wayfarer_protocol::ws::INVENTORY_SLOTS,
            bank_capacity: wayfarer_sim::BANK_CAPACITY,
            view_distance_tiles: wayfarer_sim::VIEW_RADIUS_TILES,
            rate_limits_disabled: state.limits.disabled,
        },
    };
    let mut response = Json(body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if from_request {
        headers.insert(header::VARY, HeaderValue::from_static("Host"));
    }
    response
}

/// Whether the request reached a TLS-terminating proxy we trust: `X-Forwarded-Proto: https` from a
/// peer in `TRUSTED_PROXIES` (anyone else could claim it).
fn forwarded_https(state: &AppState, peer: SocketAddr, headers: &HeaderMap) -> bool {
    state.config.trusted_proxies.trusts(peer.ip())
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
}
