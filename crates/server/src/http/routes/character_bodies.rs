//! The bodies the character routes (`routes::player`) answer with, typed so that the OpenAPI
//! document describes exactly what is sent.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;
use wayfarer_protocol::ws::{Player, SkillState, TilePos, WorldPos};
use wayfarer_protocol::Skill;

pub use crate::characters::creation::StartingGrant;

/// `{"player": Player}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerBody {
    pub player: Player,
    /// Only when the request created the character (`POST /api/v1/player`'s 201): whether it
    /// received its starting items and coins, and if not why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starting_grant: Option<StartingGrant>,
}

/// `GET /api/character`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CharacterList {
    pub characters: Vec<Player>,
    /// The selected character, else the first; null without characters.
    pub active_character_id: Option<String>,
}

/// `POST /api/character`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedCharacter {
    pub character: Player,
    /// Whether the character received its starting items and coins, and if not why (an added
    /// field: the character's own shape is the same either way).
    pub starting_grant: StartingGrant,
}

/// `DELETE /api/character/<id>`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedCharacter {
    /// The deleted character's id.
    pub deleted: String,
}

/// `GET /api/characters/<id>/skills`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CharacterSkills {
    pub character_id: String,
    pub skills: BTreeMap<Skill, SkillState>,
    pub quest_points: u32,
}

/// One quest of content with the character's standing in it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestStanding {
    pub quest_id: String,
    pub name: String,
    pub status: wayfarer_content::QuestStatus,
    pub stage_id: Option<String>,
    pub progress: Option<i64>,
    /// The current stage's target; null without a stage (or for a quest content no longer has).
    pub count: Option<u32>,
    pub completions: i64,
    pub quest_points: u32,
}

/// `GET /api/characters/<id>/quests`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CharacterQuests {
    pub character_id: String,
    pub quest_points: u32,
    pub quests: Vec<QuestStanding>,
}

/// `GET /api/characters/<id>/position`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CharacterPosition {
    pub character_id: String,
    /// The tile's centre while online; as saved otherwise.
    pub position: WorldPos,
    pub tile: TilePos,
    pub online: bool,
}

/// An area's id and name.
#[derive(Debug, Serialize, ToSchema)]
pub struct AreaName {
    pub id: String,
    pub name: String,
}

/// Entities in the world as of the last tick.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityCounts {
    pub players: u64,
    pub npcs: u64,
    pub resources: u64,
    pub ground_items: u64,
}

/// `GET /api/v1/world`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorldSummary {
    pub tick: u64,
    /// ISO 8601 UTC.
    pub time: String,
    pub players_online: usize,
    pub areas: Vec<AreaName>,
    pub entities: EntityCounts,
}
