//! `/api/v1/arena/*`, the arena's public ladder (CONTRACT §15, issue 55): the leaderboard (from
//! the store) and the fights (scheduled and live from the world, done from the store). The
//! leaderboard and the finished fights carry a strong ETag of their body (304 when `If-None-Match`
//! names it); scheduled and live fights change with every tick and carry none.

use std::hash::{Hash, Hasher};

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use wayfarer_protocol::arena::{
    FightEntry, FightList, FightPool, FightSide, Leaderboard, LeaderboardEntry,
};
use wayfarer_protocol::ErrorBody;

use crate::app::AppState;
use crate::http::error::ApiError;
use crate::http::openapi::tags;

/// Most rows of the leaderboard, and of the finished fights, in one answer.
pub const MAX_LIMIT: i64 = 100;
/// Rows when `limit` is not given.
pub const DEFAULT_LIMIT: i64 = 50;

/// `?limit=`.
#[derive(Debug, Deserialize)]
pub struct LimitQuery {
    #[serde(default)]
    limit: Option<String>,
}

/// `?state=scheduled|live|done`.
#[derive(Debug, Deserialize)]
pub struct FightsQuery {
    #[serde(default)]
    state: Option<String>,
}

fn limit(value: Option<&str>) -> Result<i64, ApiError> {
    match value {
        None => Ok(DEFAULT_LIMIT),
        Some(text) => match text.parse::<i64>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
            _ => Err(ApiError::bad_request(format!(
                "limit must be a whole number from 1 to {MAX_LIMIT}"
            ))),
        },
    }
}

/// The body as JSON with a strong ETag of it, or 304 when the request names that tag.
fn tagged<T: Serialize>(headers: &HeaderMap, body: &T) -> Response {
    let text = serde_json::to_string(body).unwrap_or_default();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let etag = format!("\"{:016x}\"", hasher.finish());
    let matched = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| {
            let tag = tag.trim();
            tag == "*" || tag.trim_start_matches("W/") == etag
        });
    let mut response = if matched {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], text).into_response()
    };
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `GET /api/v1/arena/leaderboard?limit=N`.
#[utoipa::path(
    get,
    path = "/api/v1/arena/leaderboard",
    tag = tags::PLAYERS,
    summary = "The arena's ladder, best rating first",
    description = "Glicko-2 ratings of every character that finished a ladder fight (ties: more wins first). Public. A strong ETag; 304 when `If-None-Match` names it.",
    params(("limit" = Option<i64>, Query, description = "1 to 100; 50 when absent")),
    responses(
        (status = 200, description = "The leaderboard", body = Leaderboard,
            headers(("ETag" = String, description = "Strong entity tag"))),
        (status = 304, description = "Not modified"),
        (status = 400, description = "`bad_request`: a bad limit", body = ErrorBody)
    )
)]
pub async fn leaderboard(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<LimitQuery>,
) -> Result<Response, ApiError> {
    let limit = limit(query.limit.as_deref())?;
    let rows = state.store.arena().leaderboard(limit).await?;
    let players = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| LeaderboardEntry {
            character_id: r.character_id,
            name: r.name,
            is_agent: r.is_agent,
            rating: r.rating.rating,
            deviation: r.rating.deviation,
            wins: r.wins,
            losses: r.losses,
            rank: u32::try_from(i + 1).unwrap_or(u32::MAX),
        })
        .collect();
    Ok(tagged(&headers, &Leaderboard { players }))
}

/// `GET /api/v1/arena/fights?state=scheduled|live|done`.
#[utoipa::path(
    get,
    path = "/api/v1/arena/fights",
    tag = tags::PLAYERS,
    summary = "The arena's fights",
    description = "Scheduled (matched, counting down: the betting window) and live fights from the world, soonest first; done fights from the store, newest first (at most 100). Without `state`: all three. Public. Only `state=done` carries an ETag (304 when `If-None-Match` names it).",
    params(("state" = Option<String>, Query, description = "`scheduled`, `live` or `done`")),
    responses(
        (status = 200, description = "The fights", body = FightList),
        (status = 304, description = "Not modified"),
        (status = 400, description = "`bad_request`: an unknown state", body = ErrorBody),
        (status = 503, description = "`service_unavailable`: the world did not answer", body = ErrorBody)
    )
)]
pub async fn fights(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<FightsQuery>,
) -> Result<Response, ApiError> {
    let wanted = query.state.as_deref();
    if !matches!(wanted, None | Some("scheduled" | "live" | "done")) {
        return Err(ApiError::bad_request(
            "state must be scheduled, live or done",
        ));
    }
    let mut fights = Vec::new();
    if wanted != Some("done") {
        let mut open = wayfarer_host::world_thread::arena_fights(&state.world_sender).await?;
        open.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.id.cmp(&b.0.id)));
        for (fight, starts_at_ms) in open {
            let name = fight.state.name();
            if wanted.is_some_and(|w| w != name) {
                continue;
            }
            let side = |s: usize| FightSide {
                id: fight.players[s].clone(),
                name: fight.names[s].clone(),
                rating: fight.ratings[s].rating,
            };
            fights.push(FightEntry {
                fight_id: fight.id.clone(),
                state: name.to_owned(),
                starts_at: crate::timestamps::iso8601_from_ms(starts_at_ms),
                a: side(0),
                b: side(1),
                pool: FightPool::default(),
                winner_id: None,
            });
        }
    }
    if wanted.is_none() || wanted == Some("done") {
        for done in state.store.arena().fights(MAX_LIMIT).await? {
            let side = |s: usize| FightSide {
                id: done.fighters[s].id.clone(),
                name: done.fighters[s].name.clone(),
                rating: done.fighters[s].before.rating,
            };
            fights.push(FightEntry {
                fight_id: done.fight_id.clone(),
                state: "done".into(),
                starts_at: crate::timestamps::iso8601_from_ms(done.started_at_ms),
                a: side(0),
                b: side(1),
                pool: FightPool::default(),
                winner_id: Some(done.winner_id.clone()),
            });
        }
    }
    let body = FightList { fights };
    if wanted == Some("done") {
        return Ok(tagged(&headers, &body));
    }
    Ok(Json(body).into_response())
}
