//! Routes that exist only with `NODE_ENV=test`, so integration tests can prove behaviour no real route
//! should have on purpose: a handler that panics, one that is slow (for graceful shutdown), a JSON
//! echo (body parsing and limits independent of any feature's route) and the list of every route
//! the router registered (for the test that holds the router and `/api/openapi.json` together),
//! and the manual clock's step (`POST /__test/ticks`, for tests that run the server as a process
//! and the browser tests). Being test-only, they are the one kind of route the OpenAPI document
//! leaves out.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::routing::get;
use axum::Extension;
use serde::Deserialize;
use wayfarer_protocol::ErrorCode;

use crate::app::AppState;
use crate::http::error::ApiError;
use crate::http::json::ApiJson;
use crate::http::route_table::{RegisteredRoute, RouteTable};
use wayfarer_host::world_thread::{StepError, MAX_TICKS_PER_STEP};

/// The prefix of every test-only route.
pub const PREFIX: &str = "/__test/";

/// The longest a test may ask the slow route to take.
const MAX_SLEEP_MS: u64 = 10_000;

#[derive(Deserialize)]
struct SleepQuery {
    ms: u64,
}

/// `POST /__test/ticks`: how many ticks to run.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TicksRequest {
    ticks: u32,
}

/// Runs the ticks asked for on the manual clock and answers `{"tick": <reached>}` once they ran;
/// 400 above [`MAX_TICKS_PER_STEP`], 409 on the timed clock, 503 when the world does not answer.
async fn step_ticks(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<TicksRequest>,
) -> Result<axum::Json<serde_json::Value>, ApiError> {
    match state.clock().step(request.ticks).await {
        Ok(tick) => Ok(axum::Json(serde_json::json!({ "tick": tick }))),
        Err(err @ StepError::TooMany(_)) => Err(ApiError::bad_request(format!(
            "ticks: {err} (at most {MAX_TICKS_PER_STEP})"
        ))),
        Err(err @ StepError::NotManual) => Err(ApiError::new(
            ErrorCode::Conflict,
            format!("{err}: start the server with TICK_MS=manual to step it"),
        )),
        Err(err @ StepError::Unavailable) => Err(ApiError::new(
            ErrorCode::ServiceUnavailable,
            err.to_string(),
        )),
    }
}

/// Every route the router registered (`GET /__test/routes`), as an extension the router adds once
/// the table is complete.
#[derive(Debug, Clone)]
pub struct Registered(pub Arc<Vec<RegisteredRoute>>);

/// Adds the test-only routes, under `/__test/`, to `table`.
pub fn add_routes(table: RouteTable<AppState>) -> RouteTable<AppState> {
    table
        .undocumented(
            "/__test/routes",
            get(
                |Extension(Registered(routes)): Extension<Registered>| async move {
                    axum::Json(routes.as_ref().clone())
                },
            ),
        )
        .undocumented(
            "/__test/panic",
            get(|| async {
                panic!("deliberate panic from /__test/panic");
                #[allow(unreachable_code)]
                ""
            }),
        )
        .undocumented(
            "/__test/echo",
            axum::routing::post(|ApiJson(body): ApiJson<serde_json::Value>| async move {
                axum::Json(body)
            }),
        )
        .undocumented("/__test/ticks", axum::routing::post(step_ticks))
        .undocumented(
            "/__test/sleep",
            get(|Query(q): Query<SleepQuery>| async move {
                tokio::time::sleep(Duration::from_millis(q.ms.min(MAX_SLEEP_MS))).await;
                axum::Json(serde_json::json!({"slept": q.ms.min(MAX_SLEEP_MS)}))
            }),
        )
}
