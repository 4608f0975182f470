//! The shared application state and the router with every layer requests pass through.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::DefaultBodyLimit;
use axum::{Extension, Router};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::trace::TraceLayer;
use utoipa_axum::routes;
use wayfarer_store::Store;

use crate::auth::AuthService;
use crate::config::{Config, NodeEnv};
use crate::content_state::ContentHolder;
use crate::http::route_table::RouteTable;
use crate::http::{self, cors::OriginPolicy};
use crate::rate_limit::Limits;
use wayfarer_host::connections::Connections;
use wayfarer_host::online::OnlinePlayers;
use wayfarer_host::world_thread::{TickSnapshot, TickStats, WorldCounts, WorldSender};

/// Request bodies above this size are refused with 413.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What every handler can reach ([`AppShared`]'s fields, through `Deref`), as one `Arc`: axum
/// clones the state for every request a handler serves, and cloning the shared parts one by one
/// was two dozen atomic counts up and down a request (6 % of the server's time under `/health`
/// load, BENCHMARKS.md "the targets re-measured").
#[derive(Clone)]
pub struct AppState(Arc<AppShared>);

/// The control plane's functions (`agents::control`) take what holds the plane.
impl AsRef<crate::agents::AgentPlane> for AppState {
    fn as_ref(&self) -> &crate::agents::AgentPlane {
        &self.agents
    }
}

impl AppState {
    /// The state of a server made of `shared`.
    pub fn new(shared: AppShared) -> AppState {
        AppState(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = AppShared;

    fn deref(&self) -> &AppShared {
        &self.0
    }
}

/// The parts of the server every handler shares (see [`AppState`]).
pub struct AppShared {
    pub config: Arc<Config>,
    pub store: Store,
    pub world: WorldView,
    pub started: Instant,
    pub auth: Arc<AuthService>,
    pub limits: Arc<Limits>,
    pub content: Arc<ContentHolder>,
    pub world_sender: WorldSender,
    pub online: Arc<OnlinePlayers>,
    pub connections: Arc<Connections>,
    /// CPU use between `/status` reads.
    pub cpu: Arc<crate::process_stats::CpuMeter>,
    /// Items entering and leaving players' hands since start (`GET /api/admin/economy`).
    pub economy: Arc<wayfarer_host::economy::EconomyCounters>,
    /// The browser client's files (embedded, or `WEB_DIR`).
    pub web: http::web_assets::WebAssets,
    /// The terrain clients draw, built from the current content when first asked for.
    pub terrain: Arc<http::routes::map::TerrainCache>,
    /// The agents' control plane: connected agents, their reports and decisions
    /// (`wayfarer_host::agents`).
    pub agents: crate::agents::AgentPlane,
    /// Several worlds (`NATS_URL` set): this world's link to the others; `None` for a single world.
    pub cluster: Option<Arc<wayfarer_host::cluster::Cluster>>,
}

impl AppState {
    /// The world's clock (`TICK_MS=manual` in tests: stepped; otherwise it refuses to step).
    pub fn clock(&self) -> wayfarer_host::world_thread::TickClock {
        wayfarer_host::world_thread::TickClock::new(
            self.world_sender.clone(),
            self.config.manual_clock,
        )
    }
}

/// The HTTP side's read-only view of the world thread.
#[derive(Clone)]
pub struct WorldView {
    stats: Arc<TickStats>,
}

impl WorldView {
    /// A view over the world thread's published figures.
    pub fn new(stats: Arc<TickStats>) -> Self {
        Self { stats }
    }

    /// The latest tick figures (atomics only).
    pub fn stats(&self) -> TickSnapshot {
        self.stats.snapshot()
    }

    /// Adds a `player:sync` reply's timing (see [`TickStats::record_sync_reply`]).
    pub fn record_sync_reply(&self, total: std::time::Duration, tick_wait: std::time::Duration) {
        self.stats.record_sync_reply(total, tick_wait);
        metrics::histogram!("sync_reply_ms", "part" => "total")
            .record(total.as_secs_f64() * 1000.0);
        metrics::histogram!("sync_reply_ms", "part" => "beyond_tick_wait")
            .record(total.saturating_sub(tick_wait).as_secs_f64() * 1000.0);
    }

    /// Percentiles of the recent `player:sync` replies (sorts the window: for `/status`).
    pub fn sync_replies(&self) -> wayfarer_protocol::rest::SyncReplyStatus {
        self.stats.sync_replies()
    }

    /// Entity counts as of the last tick (atomics only).
    pub fn counts(&self) -> WorldCounts {
        self.stats.counts()
    }
}

/// Every route and layer.
pub fn router(state: AppState) -> Router {
    let (routes, document, registered) = route_table(&state).into_parts();
    let documents = http::openapi::Documents::new(document);
    let routes = routes
        .layer(Extension(documents))
        .layer(Extension(http::test_hooks::Registered(Arc::new(
            registered,
        ))));
    let cors = http::cors::layer(OriginPolicy::from_config(&state.config));
    let security = http::security_headers::SecurityHeaders::from_config(&state.config);
    // Layers listed first run innermost: a panic becomes a JSON 500, oversized bodies a 413, every
    // non-JSON error gets the contract's body, then metrics see the final status, CORS wraps them
    // all, and every response, preflights included, gets the security headers.
    routes
        .fallback(fallback)
        .layer(CatchPanicLayer::custom(http::error::panic_response))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(http::error::ensure_json_errors))
        .layer(axum::middleware::from_fn(http::metrics::track))
        .layer(cors)
        .layer(axum::middleware::from_fn_with_state(
            security,
            http::security_headers::add,
        ))
        .layer(TraceLayer::new_for_http().make_span_with(crate::log_redaction::RequestSpan))
        .with_state(state)
}

/// Unknown routes: the browser client's page and files where they apply (`http::web_assets`),
/// otherwise the JSON 404.
async fn fallback(
    axum::extract::State(state): axum::extract::State<AppState>,
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    use http::web_assets;
    let path = uri.path();
    if (method == axum::http::Method::GET || method == axum::http::Method::HEAD)
        && path.starts_with("/v/")
    {
        return web_assets::asset(&state.web, &uri, &headers).await;
    }
    if web_assets::is_page_request(&method, path, &headers) {
        return web_assets::page(&state.web, &headers).await;
    }
    http::error::not_found(uri).await.into_response()
}

/// Every route of the server, each registered once, with its OpenAPI description, through the route
/// table (`http::route_table`): the path and methods come from the handler's `#[utoipa::path]`.
fn route_table(state: &AppState) -> RouteTable<AppState> {
    let table = route_groups().merge(|limit, routes| {
        let state = state.clone();
        match limit {
            Limit::Auth => routes.route_layer(axum::middleware::from_fn_with_state(
                state,
                http::limits::limit_auth,
            )),
            Limit::Status => routes.route_layer(axum::middleware::from_fn_with_state(
                state,
                http::limits::limit_status,
            )),
            Limit::Rest => routes.route_layer(axum::middleware::from_fn_with_state(
                state,
                http::limits::limit_rest,
            )),
        }
    });
    if state.config.node_env == NodeEnv::Test {
        http::test_hooks::add_routes(table)
    } else {
        table
    }
}

/// The documented routes by the rate limits around them (see [`RouteGroups::merge`]): `auth` (the
/// auth limit, then the REST limit), `api` (the REST limit), `probe` (`/status`: its own limit
/// per address) and `open` (none).
struct RouteGroups {
    auth: RouteTable<AppState>,
    api: RouteTable<AppState>,
    probe: RouteTable<AppState>,
    open: RouteTable<AppState>,
}

/// A rate limit around a group of routes (`http::limits`).
enum Limit {
    Auth,
    Rest,
    Status,
}

impl RouteGroups {
    /// One table of every group, each wrapped by `limit` in the limits it passes: the router
    /// applies them, the OpenAPI document needs none.
    fn merge(
        self,
        limit: impl Fn(Limit, RouteTable<AppState>) -> RouteTable<AppState>,
    ) -> RouteTable<AppState> {
        let api = limit(Limit::Rest, self.api.merge(limit(Limit::Auth, self.auth)));
        self.open.merge(limit(Limit::Status, self.probe)).merge(api)
    }
}

fn route_groups() -> RouteGroups {
    use http::routes;
    let auth = RouteTable::new(http::openapi::base())
        .documented(routes!(routes::auth::guest))
        .documented(routes!(routes::auth::refresh))
        .documented(routes!(routes::auth::idp));
    let api = RouteTable::new(http::openapi::base())
        .documented(routes!(http::openapi::openapi_json))
        .documented(routes!(http::openapi::protocol_json))
        .documented(routes!(routes::config::config))
        .documented(routes!(routes::worlds::list))
        .documented(routes!(routes::players::online))
        .documented(routes!(routes::players::profile))
        .documented(routes!(routes::players::hiscores))
        .documented(routes!(routes::arena::leaderboard))
        .documented(routes!(routes::arena::fights))
        .documented(routes!(routes::templates::list))
        .documented(routes!(routes::templates::get))
        .documented(routes!(routes::admin::ban))
        .documented(routes!(routes::admin::unban))
        .documented(routes!(routes::admin::kick))
        .documented(routes!(routes::admin::revoke_tokens))
        .documented(routes!(routes::auth::logout))
        .documented(routes!(routes::admin::economy))
        .documented(routes!(
            routes::player::get_player,
            routes::player::post_player
        ))
        .documented(routes!(routes::player::world))
        .documented(routes!(
            routes::player::list_characters,
            routes::player::create
        ))
        .documented(routes!(routes::player::select))
        .documented(routes!(routes::player::delete))
        .documented(routes!(routes::player::skills))
        .documented(routes!(routes::player::quests))
        .documented(routes!(routes::player::position))
        .documented(routes!(routes::voice::token))
        .documented(routes!(routes::agents::list))
        .documented(routes!(routes::agents::register))
        .documented(routes!(routes::agents::decisions))
        .documented(routes!(routes::agents::get_goal, routes::agents::set_goal))
        .documented(routes!(routes::agents::stop))
        .documented(routes!(routes::agents::resume))
        .documented(routes!(routes::agents::message))
        .documented(routes!(routes::agents::quick_actions))
        .documented(routes!(routes::agents::mapping))
        .documented(routes!(routes::content::skill_unlocks))
        .documented(routes!(routes::content::world_areas))
        .documented(routes!(routes::content::emotes));
    let probe = RouteTable::new(http::openapi::base()).documented(routes!(http::health::status));
    let open = RouteTable::new(http::openapi::base())
        .documented(routes!(http::health::health))
        .documented(routes!(http::metrics::render))
        .documented(routes!(routes::content::manifest))
        // Public content like the manifests, so outside the REST limit (see routes::map).
        .documented(routes!(routes::map::summary))
        .documented(routes!(routes::map::chunk))
        .documented(routes!(http::game_socket_route::upgrade));
    RouteGroups {
        auth,
        api,
        probe,
        open,
    }
}

/// The OpenAPI document `GET /api/openapi.json` serves, built without a server (the checked-in
/// `docs/openapi.json` is this).
pub fn openapi_document() -> serde_json::Value {
    let (_, document, _) = route_groups().merge(|_, routes| routes).into_parts();
    http::openapi::finish(serde_json::to_value(document).unwrap_or_default())
}
