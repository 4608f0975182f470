//! Routes that exist only with `NODE_ENV=test`, so integration tests can prove behaviour no real route
//! should have on purpose: a handler that panics, one that is slow (for graceful shutdown) and a JSON
//! echo (body parsing and limits independent of any feature's route).

use std::time::Duration;

use axum::extract::Query;
use axum::routing::get;
use axum::Router;
use serde::Deserialize;

use crate::app::AppState;
use crate::http::json::ApiJson;

/// The longest a test may ask the slow route to take.
const MAX_SLEEP_MS: u64 = 10_000;

#[derive(Deserialize)]
struct SleepQuery {
    ms: u64,
}

/// The test-only routes, under `/__test/`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/__test/panic",
            get(|| async {
                panic!("deliberate panic from /__test/panic");
                #[allow(unreachable_code)]
                ""
            }),
        )
        .route(
            "/__test/echo",
            axum::routing::post(|ApiJson(body): ApiJson<serde_json::Value>| async move {
                axum::Json(body)
            }),
        )
        .route(
            "/__test/sleep",
            get(|Query(q): Query<SleepQuery>| async move {
                tokio::time::sleep(Duration::from_millis(q.ms.min(MAX_SLEEP_MS))).await;
                axum::Json(serde_json::json!({"slept": q.ms.min(MAX_SLEEP_MS)}))
            }),
        )
}
