//! `GET /api/worlds`: the worlds a client can enter. A single world lists itself; with several
//! (`NATS_URL`), every world that announced itself within the last few seconds, this one first.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::cluster::WorldAnnouncement;
use crate::http::openapi::tags;

/// `GET /api/worlds` → `{"worlds":[{"id","name","wsUrl","apiUrl","players","capacity","full"}],
/// "crossWorld": bool}` (`crossWorld`: whether the link to the other worlds is up now).
#[utoipa::path(
    get,
    path = "/api/worlds",
    tag = tags::WORLD,
    summary = "The worlds a client can enter",
    description = "A single world lists itself; with several (`NATS_URL`), every world that announced itself within the last few seconds, this one first. `wsUrl`/`apiUrl` are the world's `PUBLIC_WS_URL`/`PUBLIC_API_URL` (null when unset).",
    responses(
        (status = 200, description = "`{\"worlds\":[{id, name, wsUrl, apiUrl, players, capacity, full}], \"crossWorld\": bool}`", body = Object)
    )
)]
pub async fn list(State(state): State<AppState>) -> Json<Value> {
    let players = state.online.count() as u64;
    let (worlds, cross_world) = match &state.cluster {
        Some(cluster) => (cluster.worlds(players), cluster.is_connected()),
        None => {
            let config = &state.config;
            let capacity = config.world_capacity;
            (
                vec![WorldAnnouncement {
                    id: config.world_id,
                    name: config.world_name.clone(),
                    ws_url: config.public_ws_url.clone(),
                    api_url: config.public_api_url.clone(),
                    players,
                    capacity,
                    full: players >= capacity,
                }],
                false,
            )
        }
    };
    Json(json!({ "worlds": worlds, "crossWorld": cross_world }))
}
