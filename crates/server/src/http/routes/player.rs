//! Characters: `/api/v1/player`, `/api/character/*`, `/api/characters/<id>/skills|position` and
//! `/api/v1/world` (CONTRACT.md section 2).

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use wayfarer_protocol::ws::{Player, SkillState, WorldPos};
use wayfarer_protocol::{ErrorBody, ErrorCode};
use wayfarer_store::{Character, CharacterSnapshot};

use wayfarer_host::character_state::stored_quest_status;
use wayfarer_host::player_view::centre_of;
pub use wayfarer_host::player_view::{coins_in, tile_of, COINS_ITEM};

use crate::app::AppState;
use crate::characters::{creation, CharacterName, Namer};
use crate::http::auth_user::AuthUser;
use crate::http::error::ApiError;
use crate::http::json::ApiJson;
use crate::http::openapi::tags;

use super::character_bodies::{
    AreaName, CharacterList, CharacterPosition, CharacterQuests, CharacterSkills, CreatedCharacter,
    DeletedCharacter, EntityCounts, PlayerBody, QuestStanding, WorldSummary,
};

/// `POST /api/v1/player`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct NameRequest {
    /// 1–12 ASCII letters, digits and single spaces, no leading or trailing space.
    #[schema(
        min_length = 1,
        max_length = 12,
        pattern = r"^[A-Za-z0-9]+( [A-Za-z0-9]+)*$"
    )]
    pub name: String,
}

/// `POST /api/character`: a name, and optionally a template to start from.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateRequest {
    /// 1–12 ASCII letters, digits and single spaces, no leading or trailing space.
    #[schema(
        min_length = 1,
        max_length = 12,
        pattern = r"^[A-Za-z0-9]+( [A-Za-z0-9]+)*$"
    )]
    pub name: String,
    /// A template of `GET /api/template`.
    #[serde(default)]
    pub template_id: Option<String>,
}

/// A character as the game has it now: the world's live record while it is online (REST must
/// not lag the game by up to `SAVE_INTERVAL`), the store's otherwise. The second value says
/// whether it is online.
pub async fn current_state(
    state: &AppState,
    character: &Character,
) -> Result<(CharacterSnapshot, bool), ApiError> {
    if state.online.is_online(&character.id) {
        if let Some(live) =
            wayfarer_host::world_thread::live_snapshot(&state.world_sender, &character.id).await?
        {
            let mut live = *live;
            // A rename is refused while online, but the store's name is the one of record.
            live.character.name.clone_from(&character.name);
            return Ok((live, true));
        }
    }
    Ok((
        CharacterSnapshot {
            character: character.clone(),
            inventory: state.store.inventories().get(&character.id).await?,
            equipment: state.store.inventories().equipment(&character.id).await?,
            bank: Vec::new(),
            quests: state.store.quests().list(&character.id).await?,
            xp_reached_at: Default::default(),
        },
        false,
    ))
}

/// The Player shape of a character (live while online, see [`current_state`]).
pub async fn player_view(state: &AppState, character: &Character) -> Result<Player, ApiError> {
    let content = state.content.get();
    let (snapshot, online) = current_state(state, character).await?;
    let position = match state.online.get(&character.id).filter(|_| online) {
        Some(entry) => centre_of(entry.tile, snapshot.character.position[1]),
        None => WorldPos {
            x: snapshot.character.position[0],
            y: snapshot.character.position[1],
            z: snapshot.character.position[2],
        },
    };
    Ok(wayfarer_host::player_view::player(
        &content.content,
        &snapshot,
        position,
        None,
        online,
    ))
}

/// The account's active character: the selected one, else its first.
async fn active_character(
    state: &AppState,
    auth: &AuthUser,
) -> Result<Option<Character>, ApiError> {
    let characters = state
        .store
        .characters()
        .list_for_account(auth.account_id())
        .await?;
    Ok(auth
        .user
        .active_character_id
        .as_ref()
        .and_then(|id| characters.iter().find(|c| &c.id == id).cloned())
        .or_else(|| characters.into_iter().next()))
}

/// The rule for names given by this caller: an admin may use staff words.
fn namer(auth: &AuthUser) -> Namer {
    Namer::admin_if(auth.is_admin())
}

/// `GET /api/v1/player`.
#[utoipa::path(
    get,
    path = "/api/v1/player",
    tag = tags::CHARACTERS,
    summary = "The active character",
    description = "Live while the character is online, as last saved otherwise.",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The active character", body = PlayerBody),
        (status = 404, description = "`not_found`: the account has no character", body = ErrorBody)
    )
)]
pub async fn get_player(
    State(state): State<AppState>,
    auth: AuthUser,
) -> Result<Json<PlayerBody>, ApiError> {
    let character = active_character(&state, &auth)
        .await?
        .ok_or_else(|| ApiError::not_found("this account has no character yet"))?;
    Ok(Json(PlayerBody {
        player: player_view(&state, &character).await?,
        starting_grant: None,
    }))
}

/// `POST /api/v1/player`: creates the first character (201) or renames the active one (200).
#[utoipa::path(
    post,
    path = "/api/v1/player",
    tag = tags::CHARACTERS,
    summary = "Create the first character, or rename the active one",
    description = "Names follow the rule of `POST /api/character`, and so does a first character's starting kit (only the account's first 3 characters ever created receive one, and only 3 accounts per address in 24 hours); the 201 answer adds `startingGrant` as `POST /api/character` does.",
    security(("bearer" = [])),
    request_body = NameRequest,
    responses(
        (status = 200, description = "The active character, renamed", body = PlayerBody),
        (status = 201, description = "The account's first character", body = PlayerBody),
        (status = 400, description = "`bad_request`: an invalid name; `invalid_json`: the body is not JSON", body = ErrorBody),
        (status = 409, description = "`conflict`: the name is taken, or the character is online", body = ErrorBody)
    )
)]
pub async fn post_player(
    State(state): State<AppState>,
    auth: AuthUser,
    origin: creation::Origin,
    ApiJson(body): ApiJson<NameRequest>,
) -> Result<(StatusCode, Json<PlayerBody>), ApiError> {
    match active_character(&state, &auth).await? {
        None => {
            let name = CharacterName::parse(&body.name, namer(&auth))?;
            let created = creation::create_from(
                &state,
                auth.account_id(),
                &name,
                None,
                creation::PLAYER_LIMITS,
                Some(origin),
            )
            .await?;
            Ok((
                StatusCode::CREATED,
                Json(PlayerBody {
                    player: player_view(&state, &created.character).await?,
                    starting_grant: Some(created.grant),
                }),
            ))
        }
        Some(mut character) => {
            let name = CharacterName::parse(&body.name, namer(&auth))?;
            if state.online.is_online(&character.id) {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    "cannot rename a character while it is online",
                ));
            }
            state
                .store
                .characters()
                .rename(&character.id, name.as_str())
                .await
                .map_err(|err| match err {
                    wayfarer_store::StoreError::Conflict(_) => {
                        ApiError::new(ErrorCode::Conflict, "that name is taken")
                    }
                    other => other.into(),
                })?;
            character.name = name.as_str().to_owned();
            Ok((
                StatusCode::OK,
                Json(PlayerBody {
                    player: player_view(&state, &character).await?,
                    starting_grant: None,
                }),
            ))
        }
    }
}

/// `GET /api/character`: the account's characters.
#[utoipa::path(
    get,
    path = "/api/character",
    tag = tags::CHARACTERS,
    summary = "The account's characters",
    security(("bearer" = [])),
    responses((status = 200, description = "Every character of the account and the active one", body = CharacterList))
)]
pub async fn list_characters(
    State(state): State<AppState>,
    auth: AuthUser,
) -> Result<Json<CharacterList>, ApiError> {
    let characters = state
        .store
        .characters()
        .list_for_account(auth.account_id())
        .await?;
    let active = active_character(&state, &auth).await?.map(|c| c.id);
    let mut views = Vec::with_capacity(characters.len());
    for character in &characters {
        views.push(player_view(&state, character).await?);
    }
    Ok(Json(CharacterList {
        characters: views,
        active_character_id: active,
    }))
}

/// `POST /api/character`.
#[utoipa::path(
    post,
    path = "/api/character",
    tag = tags::CHARACTERS,
    summary = "Create a character",
    description = "With `templateId` the character starts with the template's items and skill levels instead of the starter kit. It becomes the active character. An account holds at most 3 characters at once, and only the first 3 characters it ever creates receive starting items and coins (the starter kit or the template's): deleting a character does not give its grant back, so a character created after that starts with the template's skill levels and at the spawn point but with no items and no coins (docs/mechanics.md, \"Starting items and character churn\"). Starting items and coins also go to at most 3 accounts per client address (an IPv6 address by its /64) per 24 hours: a later account's character is created without them (docs/mechanics.md, \"Starting grants per address\"). The character has the same shape either way; `startingGrant` says whether it received them and, if not, why (`account_limit` or `address_limit`) with a sentence for the player. Names: 1-12 ASCII letters, digits and single spaces; invisible or control characters, and the staff words admin, mod, moderator, jmod and system as a word of the name, are refused (staff words are allowed to admins).",
    security(("bearer" = [])),
    request_body = CreateRequest,
    responses(
        (status = 201, description = "The new character", body = CreatedCharacter),
        (status = 400, description = "`bad_request`: an invalid name (including invisible characters or a staff word) or an unknown template; `invalid_json`: the body is not JSON", body = ErrorBody),
        (status = 409, description = "`conflict`: the name is taken, or the account has 3 characters", body = ErrorBody)
    )
)]
pub async fn create(
    State(state): State<AppState>,
    auth: AuthUser,
    origin: creation::Origin,
    ApiJson(body): ApiJson<CreateRequest>,
) -> Result<(StatusCode, Json<CreatedCharacter>), ApiError> {
    let name = CharacterName::parse(&body.name, namer(&auth))?;
    let created = creation::create_from(
        &state,
        auth.account_id(),
        &name,
        body.template_id.as_deref(),
        creation::PLAYER_LIMITS,
        Some(origin),
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedCharacter {
            character: player_view(&state, &created.character).await?,
            starting_grant: created.grant,
        }),
    ))
}

/// The caller's own character with this id, else 404 (another account's id is not revealed).
async fn own_character(state: &AppState, auth: &AuthUser, id: &str) -> Result<Character, ApiError> {
    match state.store.characters().get(id).await? {
        Some(c) if c.account_id == auth.account_id() => Ok(c),
        _ => Err(ApiError::not_found("no such character")),
    }
}

/// `POST /api/character/<id>/select`.
#[utoipa::path(
    post,
    path = "/api/character/{id}/select",
    tag = tags::CHARACTERS,
    summary = "Make a character the active one",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "One of the account's character ids")),
    responses(
        (status = 200, description = "The selected character", body = PlayerBody),
        (status = 404, description = "`not_found`: not a character of this account", body = ErrorBody)
    )
)]
pub async fn select(
    State(state): State<AppState>,
    auth: AuthUser,
    Path(id): Path<String>,
) -> Result<Json<PlayerBody>, ApiError> {
    let character = own_character(&state, &auth, &id).await?;
    state
        .store
        .users()
        .set_active_character(auth.account_id(), Some(&character.id))
        .await?;
    Ok(Json(PlayerBody {
        player: player_view(&state, &character).await?,
        starting_grant: None,
    }))
}

/// `DELETE /api/character/<id>` (not while online).
#[utoipa::path(
    delete,
    path = "/api/character/{id}",
    tag = tags::CHARACTERS,
    summary = "Delete a character",
    description = "Refused while the character is online or its last session is still being saved. Its items and coins leave the world (the economy audit counts them as `left`, reason `deleted`); the account's count of characters that received starting items does not go down.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "One of the account's character ids")),
    responses(
        (status = 200, description = "The character was deleted", body = DeletedCharacter),
        (status = 404, description = "`not_found`: not a character of this account", body = ErrorBody),
        (status = 409, description = "`conflict`: the character is online or still being saved", body = ErrorBody)
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    auth: AuthUser,
    Path(id): Path<String>,
) -> Result<Json<DeletedCharacter>, ApiError> {
    let character = own_character(&state, &auth, &id).await?;
    crate::characters::deletion::delete(&state, &character).await?;
    if auth.user.active_character_id.as_deref() == Some(character.id.as_str()) {
        state
            .store
            .users()
            .set_active_character(auth.account_id(), None)
            .await?;
    }
    Ok(Json(DeletedCharacter {
        deleted: character.id,
    }))
}

/// `GET /api/characters/<id>/skills` (public, like hiscores; live while online).
#[utoipa::path(
    get,
    path = "/api/characters/{id}/skills",
    tag = tags::PLAYERS,
    summary = "A character's skills",
    description = "Public. Live while the character is online, as last saved otherwise.",
    params(("id" = String, Path, description = "A character id")),
    responses(
        (status = 200, description = "Level and XP per skill, and quest points", body = CharacterSkills),
        (status = 404, description = "`not_found`: no such character", body = ErrorBody)
    )
)]
pub async fn skills(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<CharacterSkills>, ApiError> {
    let character = state
        .store
        .characters()
        .get(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("no such character"))?;
    let (snapshot, _) = current_state(&state, &character).await?;
    let character = snapshot.character;
    let skills: BTreeMap<_, _> = character
        .skills
        .iter()
        .map(|(skill, s)| {
            (
                *skill,
                SkillState {
                    level: s.level,
                    xp: s.xp,
                },
            )
        })
        .collect();
    let quest_points = quest_points(&state.content.get().content, &snapshot.quests);
    Ok(Json(CharacterSkills {
        character_id: character.id,
        skills,
        quest_points,
    }))
}

/// Quest points of stored quests: those of every quest completed at least once that content has.
pub(crate) fn quest_points(
    content: &wayfarer_content::Content,
    stored: &[wayfarer_store::StoredQuest],
) -> u32 {
    stored
        .iter()
        .filter(|q| q.completions > 0)
        .filter_map(|q| content.quests.get(&q.quest_id))
        .map(|q| q.quest_points)
        .sum()
}

/// `GET /api/characters/<id>/quests` (the owning account only; 404 to anyone else): every quest
/// of content with the character's status as last saved (starts and completions are saved at
/// once, progress counts with the periodic save), and quests the character has that content no
/// longer lists.
#[utoipa::path(
    get,
    path = "/api/characters/{id}/quests",
    tag = tags::CHARACTERS,
    summary = "A character's quests",
    description = "Every quest of content (`not_started` when never started) as last saved.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "One of the account's character ids")),
    responses(
        (status = 200, description = "The quests", body = CharacterQuests),
        (status = 404, description = "`not_found`: not a character of this account", body = ErrorBody)
    )
)]
pub async fn quests(
    State(state): State<AppState>,
    auth: AuthUser,
    Path(id): Path<String>,
) -> Result<Json<CharacterQuests>, ApiError> {
    let character = own_character(&state, &auth, &id).await?;
    let stored = state.store.quests().list(&character.id).await?;
    let content = state.content.get();
    let content = &content.content;
    let mut quests: Vec<QuestStanding> = Vec::new();
    for quest in content.quests.values() {
        let mine = stored.iter().find(|q| q.quest_id == quest.id);
        let status = mine.and_then(|q| stored_quest_status(&character.id, q));
        let stage = mine.and_then(|q| q.stage.as_deref());
        let count = stage
            .and_then(|s| quest.stages.iter().find(|st| st.id == s))
            .map(|st| wayfarer_sim::stage_count(&st.objective));
        quests.push(QuestStanding {
            quest_id: quest.id.clone(),
            name: quest.name.clone(),
            status: status.unwrap_or_default(),
            stage_id: stage.map(str::to_owned),
            progress: mine.filter(|q| q.stage.is_some()).map(|q| q.progress),
            count,
            completions: mine.map_or(0, |q| q.completions),
            quest_points: quest.quest_points,
        });
    }
    for q in stored
        .iter()
        .filter(|q| !content.quests.contains_key(&q.quest_id))
    {
        let Some(status) = stored_quest_status(&character.id, q) else {
            continue;
        };
        quests.push(QuestStanding {
            quest_id: q.quest_id.clone(),
            name: q.quest_id.clone(),
            status,
            stage_id: q.stage.clone(),
            progress: q.stage.as_ref().map(|_| q.progress),
            count: None,
            completions: q.completions,
            quest_points: 0,
        });
    }
    Ok(Json(CharacterQuests {
        character_id: character.id,
        quest_points: quest_points(content, &stored),
        quests,
    }))
}

/// `GET /api/characters/<id>/position` (the owning account only; 404 to anyone else).
#[utoipa::path(
    get,
    path = "/api/characters/{id}/position",
    tag = tags::CHARACTERS,
    summary = "Where a character is",
    description = "Live while the character is online, as last saved otherwise.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "One of the account's character ids")),
    responses(
        (status = 200, description = "The position and tile", body = CharacterPosition),
        (status = 404, description = "`not_found`: not a character of this account", body = ErrorBody)
    )
)]
pub async fn position(
    State(state): State<AppState>,
    auth: AuthUser,
    Path(id): Path<String>,
) -> Result<Json<CharacterPosition>, ApiError> {
    let character = own_character(&state, &auth, &id).await?;
    let (tile, online) = match state.online.get(&character.id) {
        Some(entry) => (entry.tile, true),
        None => (tile_of(character.position), false),
    };
    let position = if online {
        centre_of(tile, character.position[1])
    } else {
        WorldPos {
            x: character.position[0],
            y: character.position[1],
            z: character.position[2],
        }
    };
    Ok(Json(CharacterPosition {
        character_id: character.id,
        position,
        tile,
        online,
    }))
}

/// `GET /api/v1/world`.
#[utoipa::path(
    get,
    path = "/api/v1/world",
    tag = tags::WORLD,
    summary = "The running world at a glance",
    security(("bearer" = [])),
    responses((status = 200, description = "Tick, players online, areas and entity counts", body = WorldSummary))
)]
pub async fn world(
    State(state): State<AppState>,
    _auth: AuthUser,
) -> Result<Json<WorldSummary>, ApiError> {
    let content = state.content.get();
    let stats = state.world.stats();
    let counts = state.world.counts();
    let areas = content
        .content
        .areas
        .values()
        .map(|a| AreaName {
            id: a.id.to_string(),
            name: a.name.clone(),
        })
        .collect();
    Ok(Json(WorldSummary {
        tick: stats.number,
        time: crate::timestamps::now_iso8601(),
        players_online: state.online.count(),
        areas,
        entities: EntityCounts {
            players: counts.players,
            npcs: counts.npcs,
            resources: counts.resources,
            ground_items: counts.ground_items,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name field's schema of a request body, as the OpenAPI document shows it.
    fn name_schema<T: utoipa::PartialSchema>() -> serde_json::Value {
        let schema = serde_json::to_value(T::schema()).unwrap();
        schema["properties"]["name"].clone()
    }

    #[test]
    fn the_documented_name_fields_say_what_the_name_rule_enforces() {
        let max = crate::characters::name::MAX_CHARS;
        for schema in [name_schema::<NameRequest>(), name_schema::<CreateRequest>()] {
            assert_eq!(schema["maxLength"], max, "{schema}");
            assert_eq!(schema["minLength"], 1, "{schema}");
            assert_eq!(schema["pattern"], r"^[A-Za-z0-9]+( [A-Za-z0-9]+)*$");
        }
        // The pattern's two edges, as the rule has them.
        let longest = "A".repeat(max);
        assert!(CharacterName::parse(&longest, Namer::Player).is_ok());
        assert!(CharacterName::parse(&format!("{longest}A"), Namer::Player).is_err());
        assert!(CharacterName::parse("Ann Lee", Namer::Player).is_ok());
        assert!(CharacterName::parse("Ann  Lee", Namer::Player).is_err());
    }
}
