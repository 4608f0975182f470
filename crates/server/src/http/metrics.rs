//! Prometheus metrics: the process-wide recorder, the per-request middleware and `GET /metrics`.
//!
//! In production the figures (44 KB of them: routes, pools, memory, every phase of the tick) are
//! for the operator alone: the main port serves them only to `Authorization: Bearer
//! <METRICS_TOKEN>` (401 to anyone else; 404 when no token is set), and a listener of its own
//! (`METRICS_ADDR`, by default loopback port 9464) serves them without one, for a scraper on the
//! machine. Outside production the main port serves them to anyone, as before.

use std::sync::OnceLock;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderMap};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::app::AppState;
use crate::config::NodeEnv;
use crate::http::error::ApiError;

/// Latency buckets in seconds: sub-millisecond handlers to slow database calls.
const LATENCY_BUCKETS_SECS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Tick time buckets in milliseconds, around the 600 ms budget.
const TICK_BUCKETS_MS: &[f64] = &[
    0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 600.0, 1000.0,
];

/// The process-wide Prometheus recorder. Installed once: several servers in one test process share it.
pub fn handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS_SECS)
                .and_then(|b| {
                    b.set_buckets_for_metric(Matcher::Suffix("_ms".into()), TICK_BUCKETS_MS)
                });
            // Bucket lists are non-empty constants, so the builder cannot refuse them.
            let recorder = builder
                .expect("constant, non-empty histogram buckets")
                .build_recorder();
            let handle = recorder.handle();
            // Fails only if another recorder was installed first, e.g. by an embedding test; keep going.
            let _ = metrics::set_global_recorder(recorder);
            start_upkeep(handle.clone());
            handle
        })
        .clone()
}

/// How often the recorder's histograms are folded into their buckets and summaries.
pub const UPKEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Name of the thread that runs the recorder's upkeep.
pub const UPKEEP_THREAD: &str = "metrics-upkeep";

/// Folds the recorder's histograms every [`UPKEEP_EVERY`], on a thread of its own (the recorder is
/// process-wide; runtimes come and go in tests). Why: a histogram keeps every sample it records
/// until it is folded, and `build_recorder` leaves the folding to the caller. Without it, a
/// server nobody scraped (the default: `/metrics` is the operator's) kept each tick's phase
/// times, each request's duration and each save's in memory for good: the 60-minute soak of
/// 2,000 players grew by 2.2 MB a minute (BENCHMARKS.md, "The soak").
fn start_upkeep(handle: PrometheusHandle) {
    let started = std::thread::Builder::new()
        .name(UPKEEP_THREAD.into())
        .spawn(move || loop {
            std::thread::sleep(UPKEEP_EVERY);
            handle.run_upkeep();
        });
    if let Err(err) = started {
        tracing::error!(error = %err, "cannot start the metrics' upkeep: histograms grow until /metrics is read");
    }
}

/// Middleware: counts every request and times it, by method, matched route and status.
pub async fn track(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    let labels = [("method", method), ("route", route), ("status", status)];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    response
}

/// `GET /metrics` in the Prometheus text format.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = crate::http::openapi::tags::SERVICE,
    summary = "Prometheus metrics",
    description = "In production only with `Authorization: Bearer <METRICS_TOKEN>` (401 without it, 404 when no token is configured); the `METRICS_ADDR` listener serves it without one.",
    responses(
        (status = 200, description = "The Prometheus text exposition format", content_type = "text/plain", body = String),
        (status = 401, description = "Production, and the metrics token is missing or wrong"),
        (status = 404, description = "Production, and no metrics token is configured")
    )
)]
pub async fn render(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Err(refusal) = main_port_allows(&state, &headers) {
        return refusal.into_response();
    }
    exposition(&state).into_response()
}

/// Whether the main port may serve the metrics to a request with these headers (see the
/// module's comment).
fn main_port_allows(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    if state.config.node_env != NodeEnv::Production {
        return Ok(());
    }
    let Some(expected) = state.config.metrics_token.as_deref() else {
        return Err(ApiError::not_found("no route for /metrics"));
    };
    let given = crate::auth::bearer_token(headers).unwrap_or("");
    if crate::auth::constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::new(
            wayfarer_protocol::ErrorCode::Unauthorized,
            "the metrics need the metrics token (Authorization: Bearer <METRICS_TOKEN>)",
        ))
    }
}

/// `GET /metrics` on the `METRICS_ADDR` listener: no token (it is reachable only where the
/// operator put it).
async fn render_apart(State(state): State<AppState>) -> Response {
    exposition(&state).into_response()
}

/// The router of the `METRICS_ADDR` listener: `/metrics` and nothing else.
pub fn apart_router(state: AppState) -> axum::Router {
    axum::Router::new()
        .route("/metrics", axum::routing::get(render_apart))
        .with_state(state)
}

/// Production's figures on a listener of their own (`METRICS_ADDR`), when set: the address it
/// bound (the real port when its port is 0) and its task. A taken address stops start-up like a
/// taken main port.
pub async fn serve_apart(
    state: &AppState,
) -> anyhow::Result<Option<(std::net::SocketAddr, tokio::task::JoinHandle<()>)>> {
    use anyhow::Context;
    let Some(wanted) = state.config.metrics_addr else {
        return Ok(None);
    };
    let listener = tokio::net::TcpListener::bind(wanted)
        .await
        .with_context(|| format!("cannot listen on METRICS_ADDR {wanted} (set another, or off)"))?;
    let bound = listener.local_addr()?;
    let router = apart_router(state.clone());
    let task = tokio::spawn(async move {
        if let Err(err) = axum::serve(listener, router).await {
            tracing::error!(error = %err, "the metrics listener stopped");
        }
    });
    tracing::info!(addr = %bound, "serving /metrics apart");
    Ok(Some((bound, task)))
}

/// The figures in the Prometheus text format, gauges brought up to date first.
fn exposition(state: &AppState) -> impl IntoResponse {
    let (size, idle) = state.store.pool_stats();
    metrics::gauge!("db_pool_connections").set(f64::from(size));
    metrics::gauge!("db_pool_idle_connections").set(idle as f64);
    metrics::gauge!("uptime_seconds").set(state.started.elapsed().as_secs_f64());
    if let Some(process) = crate::process_stats::sample() {
        metrics::gauge!("process_resident_memory_bytes").set(process.rss_bytes as f64);
        metrics::gauge!("process_cpu_seconds_total").set(process.cpu_seconds);
        if let Some(heap) = process.heap {
            metrics::gauge!("process_heap_in_use_bytes").set(heap.in_use_bytes as f64);
            metrics::gauge!("process_heap_free_bytes").set(heap.free_bytes as f64);
        }
    }
    let tick = state.world.stats();
    for (name, p) in wayfarer_host::tick_stats::PHASES.iter().zip(tick.phases) {
        metrics::gauge!("tick_phase_p99_ms", "phase" => *name).set(p.p99_ms);
    }
    metrics::gauge!("tick_p99_ms").set(tick.p99_ms);
    metrics::gauge!("ws_open_connections").set(state.connections.count() as f64);
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle().render(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorder folds its histograms by itself: without the upkeep, a server whose
    /// `/metrics` nobody read kept every sample (the soak's leak).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_recorder_keeps_its_own_upkeep_running() {
        let _ = handle();
        metrics::histogram!("upkeep_test_seconds").record(0.001);
        let names = || -> Vec<String> {
            std::fs::read_dir("/proc/self/task")
                .unwrap()
                .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
                .map(|name| name.trim().to_owned())
                .collect()
        };
        // A new thread names itself once it runs: wait for that, not for a time.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !names().iter().any(|name| name == UPKEEP_THREAD) {
            assert!(
                std::time::Instant::now() < deadline,
                "no {UPKEEP_THREAD} thread among {:?}",
                names()
            );
            std::thread::yield_now();
        }
    }
}
