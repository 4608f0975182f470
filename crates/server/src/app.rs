//! The shared application state and the router with every layer requests pass through.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::trace::TraceLayer;
use wayfarer_store::Store;

use crate::auth::AuthService;
use crate::config::{Config, NodeEnv};
use crate::connections::Connections;
use crate::content_state::ContentHolder;
use crate::http::{self, cors::OriginPolicy};
use crate::online::OnlinePlayers;
use crate::rate_limit::Limits;
use crate::world_thread::{TickSnapshot, TickStats, WorldCounts, WorldSender};
use tokio::sync::watch;

/// Request bodies above this size are refused with 413.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What every handler can reach; cheap to clone.
#[derive(Clone)]
pub struct AppState {
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
    /// Becomes true when the server begins shutting down (WebSocket tasks close their sockets).
    pub shutdown: watch::Receiver<bool>,
    /// Items entering and leaving players' hands since start (`GET /api/admin/economy`).
    pub economy: Arc<crate::economy::EconomyCounters>,
    /// Several worlds (`NATS_URL` set): this world's link to the others; `None` for a single world.
    pub cluster: Option<Arc<crate::cluster::Cluster>>,
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
    use http::routes;
    let auth_routes = Router::new()
        .route("/api/auth/guest", post(routes::auth::guest))
        .route("/api/auth/refresh", post(routes::auth::refresh))
        .route("/api/auth/idp", post(routes::auth::idp))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            http::limits::limit_auth,
        ));
    let api = Router::new()
        .route("/api/config", get(routes::config::config))
        .route("/api/worlds", get(routes::worlds::list))
        .route("/api/player/online", get(routes::players::online))
        .route("/api/player/{name}", get(routes::players::profile))
        .route(
            "/api/player/{name}/hiscores",
            get(routes::players::hiscores),
        )
        .route("/api/template", get(routes::templates::list))
        .route("/api/template/{id}", get(routes::templates::get))
        .route("/api/admin/ban", post(routes::admin::ban))
        .route("/api/admin/unban", post(routes::admin::unban))
        .route("/api/admin/kick", post(routes::admin::kick))
        .route("/api/admin/economy", get(routes::admin::economy))
        .route(
            "/api/v1/player",
            get(routes::player::get_player).post(routes::player::post_player),
        )
        .route("/api/v1/world", get(routes::player::world))
        .route(
            "/api/character",
            get(routes::player::list_characters).post(routes::player::create),
        )
        .route("/api/character/{id}/select", post(routes::player::select))
        .route(
            "/api/character/{id}",
            axum::routing::delete(routes::player::delete),
        )
        .route("/api/characters/{id}/skills", get(routes::player::skills))
        .route("/api/characters/{id}/quests", get(routes::player::quests))
        .route(
            "/api/characters/{id}/position",
            get(routes::player::position),
        )
        .route("/api/voice/token", post(routes::voice::token))
        .route(
            "/api/data/skill-unlocks",
            get(routes::content::skill_unlocks),
        )
        .route("/api/v1/world/areas", get(routes::content::world_areas))
        .merge(auth_routes)
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            http::limits::limit_rest,
        ));
    let mut routes = Router::new()
        .route("/health", get(http::health::health))
        .route("/status", get(http::health::status))
        .route("/metrics", get(http::metrics::render))
        .route("/manifests/{*file}", get(routes::content::manifest))
        .route("/ws", get(http::ws::upgrade))
        .merge(api);
    if state.config.node_env == NodeEnv::Test {
        routes = routes.merge(http::test_hooks::routes());
    }
    let cors = http::cors::layer(OriginPolicy::from_config(&state.config));
    // Layers listed first run innermost: a panic becomes a JSON 500, oversized bodies a 413, every
    // non-JSON error gets the contract's body, then metrics see the final status, CORS wraps them all.
    routes
        .fallback(http::error::not_found)
        .layer(CatchPanicLayer::custom(http::error::panic_response))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(http::error::ensure_json_errors))
        .layer(axum::middleware::from_fn(http::metrics::track))
        .layer(cors)
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
