//! `/api/player/*`, public player data: who is online (`GET /api/player/online`, paged), a
//! player's public profile (`GET /api/player/<name>`: name, combat level, skill levels, total
//! level, quest points, online) and hiscores (`GET /api/player/<name>/hiscores`: rank per skill
//! among all characters, by XP, ties to whoever reached it first). A profile is live while the player is online (the world's record, see
//! `player::current_state`), the store's otherwise. Nothing here reveals an account, a position or
//! holdings.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use wayfarer_protocol::{ErrorBody, Skill};

use crate::app::AppState;
use crate::http::error::ApiError;
use crate::http::openapi::tags;

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

/// One player on a page of `GET /api/player/online`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OnlinePlayer {
    pub name: String,
    pub combat_level: i64,
}

/// A page of the players online, sorted by name ignoring case.
#[derive(Debug, Serialize, ToSchema)]
pub struct OnlinePage {
    pub players: Vec<OnlinePlayer>,
    /// From 1.
    pub page: usize,
    pub limit: usize,
    /// Players online in all.
    pub total: usize,
}

/// `GET /api/player/online`: `{"players":[{"name","combatLevel"}],"page","limit","total"}`, sorted
/// by name.
#[utoipa::path(
    get,
    path = "/api/player/online",
    tag = tags::PLAYERS,
    summary = "Who is online, paged",
    params(
        ("page" = Option<u64>, Query, minimum = 1, description = "The page, from 1 (default 1)"),
        ("limit" = Option<u64>, Query, minimum = 1, maximum = 100, description = "Players a page (default 50)")
    ),
    responses(
        (status = 200, description = "One page of the players online", body = OnlinePage),
        (status = 400, description = "`bad_request`: a page or limit that is not a whole number in range", body = ErrorBody)
    )
)]
pub async fn online(
    State(state): State<AppState>,
    Query(query): Query<PageQuery>,
) -> Result<Json<OnlinePage>, ApiError> {
    let limit = positive(query.limit.as_deref(), "limit", DEFAULT_PAGE, MAX_PAGE)?;
    let page = positive(query.page.as_deref(), "page", 1, usize::MAX / MAX_PAGE)?;
    let (players, total) = state.online.page((page - 1) * limit, limit);
    let players = players
        .into_iter()
        .map(|(name, combat_level)| OnlinePlayer { name, combat_level })
        .collect();
    Ok(Json(OnlinePage {
        players,
        page,
        limit,
        total,
    }))
}

/// A player's public profile: nothing about the account, position or holdings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicProfile {
    pub name: String,
    pub combat_level: i64,
    /// Level per skill.
    pub skills: BTreeMap<Skill, i64>,
    pub total_level: i64,
    pub quest_points: u32,
    pub online: bool,
}

/// One skill's standing among all characters.
#[derive(Debug, Serialize, ToSchema)]
pub struct SkillStanding {
    /// 1 for the most XP; equal XP ranks whoever reached it first higher.
    pub rank: i64,
    pub level: i64,
    pub xp: i64,
}

/// A player's rank in every skill.
#[derive(Debug, Serialize, ToSchema)]
pub struct Hiscores {
    pub name: String,
    pub online: bool,
    pub skills: BTreeMap<Skill, SkillStanding>,
}

/// The state of the player of that name (any letter case), live while online, as saved otherwise,
/// and whether it is online: what the public profile and the hiscores read.
async fn named_player_state(
    state: &AppState,
    name: &str,
) -> Result<(wayfarer_store::CharacterSnapshot, bool), ApiError> {
    let character = state
        .store
        .characters()
        .find_by_name(name)
        .await?
        .ok_or_else(|| ApiError::not_found("no player by that name"))?;
    super::player::current_state(state, &character).await
}

/// `GET /api/player/<name>` (any letter case): the public profile.
#[utoipa::path(
    get,
    path = "/api/player/{name}",
    tag = tags::PLAYERS,
    summary = "A player's public profile",
    description = "Live while the player is online, as last saved otherwise.",
    params(("name" = String, Path, description = "The character's name, in any letter case")),
    responses(
        (status = 200, description = "The profile", body = PublicProfile),
        (status = 404, description = "`not_found`: no player by that name", body = ErrorBody)
    )
)]
pub async fn profile(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<PublicProfile>, ApiError> {
    let (snapshot, online) = named_player_state(&state, &name).await?;
    let c = &snapshot.character;
    let skills: BTreeMap<_, _> = c
        .skills
        .iter()
        .map(|(skill, s)| (*skill, s.level))
        .collect();
    let total_level: i64 = skills.values().sum();
    let quest_points = super::player::quest_points(&state.content.get().content, &snapshot.quests);
    Ok(Json(PublicProfile {
        name: c.name.clone(),
        combat_level: c.combat_level,
        skills,
        total_level,
        quest_points,
        online,
    }))
}

/// `GET /api/player/<name>/hiscores`: `{"name","online","skills":{<skill>:{"rank","level","xp"}}}`.
/// The player's own standing is live while online; the others' as stored.
#[utoipa::path(
    get,
    path = "/api/player/{name}/hiscores",
    tag = tags::PLAYERS,
    summary = "A player's rank in every skill",
    params(("name" = String, Path, description = "The character's name, in any letter case")),
    responses(
        (status = 200, description = "The ranks", body = Hiscores),
        (status = 404, description = "`not_found`: no player by that name", body = ErrorBody)
    )
)]
pub async fn hiscores(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Hiscores>, ApiError> {
    let (snapshot, online) = named_player_state(&state, &name).await?;
    let skills: BTreeMap<_, _> = snapshot
        .character
        .skills
        .iter()
        .map(|(skill, s)| (*skill, (s.level, s.xp)))
        .collect();
    let standings = state
        .store
        .hiscores()
        .standings(&snapshot.character.id, &skills, &snapshot.xp_reached_at)
        .await?;
    let skills = standings
        .into_iter()
        .map(|(skill, s)| {
            (
                skill,
                SkillStanding {
                    rank: s.rank,
                    level: s.level,
                    xp: s.xp,
                },
            )
        })
        .collect();
    Ok(Json(Hiscores {
        name: snapshot.character.name,
        online,
        skills,
    }))
}
