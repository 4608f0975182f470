//! `GET /api/worlds`: the worlds a client can enter. A single world lists itself; with several
//! (`NATS_URL`), every world that announced itself within the last few seconds, this one first.

use axum::extract::State;
use axum::Json;
use serde::Serialize;

use crate::app::AppState;
use crate::http::openapi::tags;
use wayfarer_host::cluster::WorldAnnouncement;

/// `GET /api/worlds`'s answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorldList {
    /// The live worlds, this one first, then by id.
    pub worlds: Vec<WorldAnnouncement>,
    /// Whether the link to the other worlds (NATS) is up now; always false for a single world.
    pub cross_world: bool,
}

/// `GET /api/worlds` → `{"worlds":[{"id","name","wsUrl","apiUrl","players","capacity","full"}],
/// "crossWorld": bool}` (`crossWorld`: whether the link to the other worlds is up now).
#[utoipa::path(
    get,
    path = "/api/worlds",
    tag = tags::WORLD,
    summary = "The worlds a client can enter",
    description = "A single world lists itself; with several (`NATS_URL`), every world that announced itself within the last few seconds, this one first. `wsUrl`/`apiUrl` are the world's `PUBLIC_WS_URL`/`PUBLIC_API_URL` (null when unset).",
    responses(
        (status = 200, description = "The live worlds and whether this one is linked to the others", body = WorldList)
    )
)]
pub async fn list(State(state): State<AppState>) -> Json<WorldList> {
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
    Json(WorldList {
        worlds,
        cross_world,
    })
}
