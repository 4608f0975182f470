//! Content routes: `GET /manifests/<file>` (so one server can be another's CDN),
//! `GET /api/data/skill-unlocks` (public) and `GET /api/v1/world/areas` (bearer); all with
//! `Cache-Control: public, max-age=300, must-revalidate`, a strong ETag and 304 on a match.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::auth::AuthUser;
use crate::content_state::Tagged;
use crate::http::error::ApiError;

/// The manifest cache lifetime of specification section 1.
pub const CACHE_CONTROL: &str = "public, max-age=300, must-revalidate";

/// Whether `If-None-Match` names this entity (a list of tags, or `*`).
fn matches(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate == etag)
}

/// 200 with the body, or 304 when the client already holds it.
pub fn conditional(headers: &HeaderMap, tagged: &Tagged) -> Response {
    let mut response = if matches(headers, &tagged.etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (
            [(header::CONTENT_TYPE, "application/json")],
            tagged.body.to_vec(),
        )
            .into_response()
    };
    let h = response.headers_mut();
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Ok(etag) = HeaderValue::from_str(&tagged.etag) {
        h.insert(header::ETAG, etag);
    }
    response
}

/// `GET /manifests/<file>`.
pub async fn manifest(
    State(state): State<AppState>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let active = state.content.get();
    let tagged = active
        .files
        .get(&file)
        .ok_or_else(|| ApiError::not_found(format!("no manifest {file}")))?;
    Ok(conditional(&headers, tagged))
}

/// `GET /api/data/skill-unlocks`.
pub async fn skill_unlocks(State(state): State<AppState>, headers: HeaderMap) -> Response {
    conditional(&headers, &state.content.get().skill_unlocks)
}

/// `GET /api/v1/world/areas`.
pub async fn world_areas(
    State(state): State<AppState>,
    _auth: AuthUser,
    headers: HeaderMap,
) -> Response {
    conditional(&headers, &state.content.get().areas)
}
