//! The arena's ladder (CONTRACT.md section 15): `arena:join` / `arena:leave` (empty data) and
//! what the server answers; the public REST bodies of `/api/v1/arena/*`. Errors are `error`
//! frames with the codes in [`codes`] (and the trade's `player_busy`, the duel's `not_here`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Ladder error codes.
pub mod codes {
    /// The world has no duel arena.
    pub const NO_ARENA: &str = "no_arena";
    /// `arena:join` while queued or matched.
    pub const ALREADY_QUEUED: &str = "already_queued";
    /// `arena:leave` while not on the ladder.
    pub const NOT_QUEUED: &str = "not_queued";
}

/// `arena:queued`: in the queue (again, after a cancelled fight).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ArenaQueued {
    /// 1-based place in the queue.
    pub position: u32,
    /// The rating matched on.
    pub rating: f64,
}

/// `arena:match`: an opponent was found; the fight starts at `startsAt` (ms since the epoch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ArenaMatch {
    pub fight_id: String,
    pub opponent_id: String,
    pub opponent_name: String,
    pub opponent_rating: f64,
    pub starts_at: i64,
}

/// `arena:cancelled`: a matched fight will not be fought, or ended without a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ArenaCancelled {
    pub fight_id: String,
    /// `left`, `disconnected`, `busy`, `not_here`, `no_result`, `server_error`.
    pub reason: String,
}

/// `arena:left`: out of the queue (empty data).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ArenaLeft {}

/// A rating before and after a fight.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingChange {
    pub before: f64,
    pub after: f64,
}

/// `arena:result`: the fight's result, written with both ratings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ArenaResult {
    pub fight_id: String,
    pub winner_id: String,
    pub loser_id: String,
    /// By character id.
    pub ratings: BTreeMap<String, RatingChange>,
}

/// One row of `GET /api/v1/arena/leaderboard`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardEntry {
    pub character_id: String,
    pub name: String,
    pub is_agent: bool,
    pub rating: f64,
    pub deviation: f64,
    pub wins: i64,
    pub losses: i64,
    /// 1 for the highest rating.
    pub rank: u32,
}

/// `GET /api/v1/arena/leaderboard`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Leaderboard {
    pub players: Vec<LeaderboardEntry>,
}

/// A fighter of a listed fight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FightSide {
    pub id: String,
    pub name: String,
    /// The rating at the match.
    pub rating: f64,
}

/// The coins wagered on each side (none until wagers exist).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FightPool {
    pub a: i64,
    pub b: i64,
}

/// One fight of `GET /api/v1/arena/fights`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FightEntry {
    pub fight_id: String,
    /// `scheduled`, `live` or `done`.
    pub state: String,
    /// ISO 8601 UTC.
    pub starts_at: String,
    pub a: FightSide,
    pub b: FightSide,
    pub pool: FightPool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner_id: Option<String>,
}

/// `GET /api/v1/arena/fights`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FightList {
    pub fights: Vec<FightEntry>,
}
