//! `/api/player/*`, public player data: who is online (`GET /api/player/online`, paged), a
//! player's public profile (`GET /api/player/<name>`: name, combat level, skill levels, total
//! level, quest points, online) and hiscores (`GET /api/player/<name>/hiscores`: rank per skill
//! among all characters, by XP, ties to whoever reached it first). A profile is live while the player is online (the world's record, see
//! `player::current_state`), the store's otherwise. Nothing here reveals an account, a position or
//! holdings.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::http::error::ApiError;

/// Most entries on one page of `GET /api/player/online`.
pub const MAX_PAGE: usize = 100;
/// Entries on a page when `limit` is not given.
pub const DEFAULT_PAGE: usize = 50;

/// `?page=&limit=` (page from 1).
#[derive(Debug, Deserialize)]
pub struct PageQuery {
    #[serde(default)]
    page: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

/// A positive whole number from a query parameter, or `default`; `bad_request` names the field.
fn positive(
    value: Option<&str>,
    field: &str,
    default: usize,
    max: usize,
) -> Result<usize, ApiError> {
    match value {
        None => Ok(default),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(ApiError::bad_request(format!(
                "{field} must be a whole number from 1 to {max}"
            ))),
        },
    }
}

/// `GET /api/player/online`: `{"players":[{"name","combatLevel"}],"page","limit","total"}`, sorted
/// by name.
pub async fn online(
    State(state): State<AppState>,
    Query(query): Query<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let limit = positive(query.limit.as_deref(), "limit", DEFAULT_PAGE, MAX_PAGE)?;
    let page = positive(query.page.as_deref(), "page", 1, usize::MAX / MAX_PAGE)?;
    let (players, total) = state.online.page((page - 1) * limit, limit);
    let players: Vec<Value> = players
        .into_iter()
        .map(|(name, level)| json!({"name": name, "combatLevel": level}))
        .collect();
    Ok(Json(json!({
        "players": players,
        "page": page,
        "limit": limit,
        "total": total,
    })))
}

/// `GET /api/player/<name>` (any letter case): the public profile.
pub async fn profile(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let character = state
        .store
        .characters()
        .find_by_name(&name)
        .await?
        .ok_or_else(|| ApiError::not_found("no player by that name"))?;
    let (snapshot, online) = super::player::current_state(&state, &character).await?;
    let c = &snapshot.character;
    let skills: BTreeMap<_, _> = c
        .skills
        .iter()
        .map(|(skill, s)| (*skill, s.level))
        .collect();
    let total_level: i64 = skills.values().sum();
    let quest_points = super::player::quest_points(&state.content.get().content, &snapshot.quests);
    Ok(Json(json!({
        "name": c.name,
        "combatLevel": c.combat_level,
        "skills": skills,
        "totalLevel": total_level,
        "questPoints": quest_points,
        "online": online,
    })))
}

/// `GET /api/player/<name>/hiscores`: `{"name","online","skills":{<skill>:{"rank","level","xp"}}}`.
/// The player's own standing is live while online; the others' as stored.
pub async fn hiscores(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let character = state
        .store
        .characters()
        .find_by_name(&name)
        .await?
        .ok_or_else(|| ApiError::not_found("no player by that name"))?;
    let (snapshot, online) = super::player::current_state(&state, &character).await?;
    let skills: BTreeMap<_, _> = snapshot
        .character
        .skills
        .iter()
        .map(|(skill, s)| (*skill, (s.level, s.xp)))
        .collect();
    let standings = state
        .store
        .hiscores()
        .standings(&character.id, &skills, &snapshot.xp_reached_at)
        .await?;
    let skills: BTreeMap<_, _> = standings
        .into_iter()
        .map(|(skill, s)| (skill, json!({"rank": s.rank, "level": s.level, "xp": s.xp})))
        .collect();
    Ok(Json(json!({
        "name": snapshot.character.name,
        "online": online,
        "skills": skills,
    })))
}
