//! `GET /health` (legacy liveness) and `GET /status` (the platform's probe; answers within 3 s even
//! when the database hangs, and reads tick figures from atomics, never from a lock the tick holds).
//!
//! `/status` is public and limited per address (`http::limits::limit_status`). In production it
//! answers what CONTRACT.md section 2 lists ([`PublicStatus`]); the server's insides (per-phase
//! timings, queues, connections, memory, CPU, `player:sync` timings) are left to `/metrics`, which
//! production keeps for the operator.

use std::time::{Duration, Instant};

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use wayfarer_protocol::rest::{
    DatabaseHealth, Health, PhaseStatus, ProcessStatus, PublicStatus, QueueStatus, Status,
    TickStatus,
};

use crate::app::AppState;
use crate::process_stats;
use wayfarer_host::tick_stats::PHASES;

/// How long `/status` waits for the database before reporting it degraded; well inside the
/// platform's 3-second deadline.
pub const DATABASE_PROBE_TIMEOUT: Duration = Duration::from_millis(1_000);

/// The service version every health record carries.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `GET /health`.
#[utoipa::path(
    get,
    path = "/health",
    tag = crate::http::openapi::tags::SERVICE,
    summary = "Liveness",
    responses((status = 200, description = "The server is up", body = Health))
)]
pub async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        timestamp: crate::timestamps::now_iso8601(),
        version: VERSION.into(),
    })
}

/// `GET /status`.
#[utoipa::path(
    get,
    path = "/status",
    tag = crate::http::openapi::tags::SERVICE,
    summary = "Health probe with the tick, connections, process and database",
    description = "Always 200 while the process serves (429 beyond its per-address limit); a database that does not answer within a second is reported as `degraded`. In production the body holds CONTRACT.md's fields alone (`status`, `version`, `commit`, `uptimeSeconds`, `playersOnline`, `tick {number, lastMs, p99Ms}`, `database`), without the internals.",
    responses(
        (status = 200, description = "The server's state", body = Status),
        (status = 429, description = "Too many requests from this address")
    )
)]
pub async fn status(State(state): State<AppState>) -> Response {
    let started = Instant::now();
    let database = match tokio::time::timeout(DATABASE_PROBE_TIMEOUT, state.store.ping()).await {
        Ok(Ok(())) => DatabaseHealth::Ok,
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "status: database probe failed");
            DatabaseHealth::Degraded
        }
        Err(_) => {
            tracing::warn!(
                timeout_ms = DATABASE_PROBE_TIMEOUT.as_millis() as u64,
                "status: database probe timed out"
            );
            DatabaseHealth::Degraded
        }
    };
    metrics::histogram!("db_probe_duration_seconds").record(started.elapsed().as_secs_f64());
    let tick = state.world.stats();
    let full = Status {
        status: "ok".into(),
        version: VERSION.into(),
        commit: state.config.commit().to_owned(),
        uptime_seconds: state.started.elapsed().as_secs(),
        players_online: tick.players_online,
        tick: TickStatus {
            number: tick.number,
            last_ms: tick.last_ms,
            p50_ms: tick.p50_ms,
            p95_ms: tick.p95_ms,
            p99_ms: tick.p99_ms,
            late_ticks: tick.late_ticks,
            phases: PHASES
                .iter()
                .zip(tick.phases)
                .map(|(name, p)| {
                    (
                        (*name).to_owned(),
                        PhaseStatus {
                            p50_ms: p.p50_ms,
                            p95_ms: p.p95_ms,
                            p99_ms: p.p99_ms,
                        },
                    )
                })
                .collect(),
        },
        database,
        connections: state.connections.count() as u64,
        outbound_queue: QueueStatus {
            max: tick.outbound_max,
            total: tick.outbound_total,
        },
        process: process_stats::sample().map(|s| ProcessStatus {
            rss_bytes: s.rss_bytes,
            cpu_seconds: s.cpu_seconds,
            cpu_percent: state.cpu.percent(&s),
            heap_in_use_bytes: s.heap.map(|h| h.in_use_bytes),
            heap_free_bytes: s.heap.map(|h| h.free_bytes),
        }),
        sync_reply: state.world.sync_replies(),
    };
    if state.config.node_env == crate::config::NodeEnv::Production {
        Json(PublicStatus::from(&full)).into_response()
    } else {
        Json(full).into_response()
    }
}
