//! Duel messages (CONTRACT.md section 11): a challenge, two screens of rules and stakes as a
//! trade's, the fight, and its result. Errors reuse the trade's codes ([`crate::trade::codes`])
//! plus [`codes::RULE_BROKEN`], [`codes::IN_DUEL`], [`codes::NOT_HERE`] and [`codes::IN_COMBAT`].

use serde::{Deserialize, Serialize};

use crate::trade::ReceivedItem;
use crate::ws::SlotNumber;

/// Duel error codes (`duelError.code`) besides the trade's.
pub mod codes {
    /// A fighting duelist tried what the duel's rules forbid (eating under `no_food`, …).
    pub const RULE_BROKEN: &str = "rule_broken";
    /// Refused while in a duel (moving, banking, trading, … on the screens; anything but the
    /// fight during it), also sent as an `error` code like the trade's `in_trade`.
    pub const IN_DUEL: &str = "in_duel";
    /// `duel:setRule` named no rule of [`super::rules::ALL`], or would forbid every attack style.
    pub const INVALID_RULE: &str = "invalid_rule";
    /// `duel:challenge` (or its acceptance) from or into a PvP area: a duel there would shield
    /// both from everyone else and heal them on the spot.
    pub const NOT_HERE: &str = "not_here";
    /// `duel:challenge` (or its acceptance) while either player fought in the last 10 s: a duel
    /// is no way out of a fight.
    pub const IN_COMBAT: &str = "in_combat";
}

/// The rule names of `duel:setRule` and of `duel:rules.rules`.
pub mod rules {
    pub const NO_FOOD: &str = "no_food";
    pub const NO_PRAYER: &str = "no_prayer";
    pub const NO_RANGED: &str = "no_ranged";
    pub const NO_MAGIC: &str = "no_magic";
    pub const NO_MELEE: &str = "no_melee";
    pub const NO_MOVEMENT: &str = "no_movement";
    /// Every rule, in the order `duel:rules` lists them.
    pub const ALL: [&str; 6] = [
        NO_FOOD,
        NO_PRAYER,
        NO_RANGED,
        NO_MAGIC,
        NO_MELEE,
        NO_MOVEMENT,
    ];
}

/// `duel:cancelled.reason` values: the trade's ([`crate::trade::reasons`]) plus these.
pub mod reasons {
    /// The fight ran past its time limit: a draw, both stakes returned.
    pub const DRAW: &str = "draw";
}

/// `duel:challenge`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelChallenge {
    pub target_player_id: String,
}

/// `duel:respond`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelRespond {
    pub duel_id: String,
    pub accept: bool,
}

/// `duel:setRule`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelSetRule {
    pub duel_id: String,
    /// One of [`rules::ALL`].
    pub rule: String,
    pub on: bool,
}

/// `duel:stake` (`quantity` defaults to the whole stack and is capped at it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelStakeRequest {
    pub duel_id: String,
    pub inventory_slot: SlotNumber,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
}

/// `duel:unstake`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelUnstake {
    pub duel_id: String,
    pub inventory_slot: SlotNumber,
}

/// `duel:accept` and `duel:cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelIdOnly {
    pub duel_id: String,
}

/// `duelIncoming` (to the one challenged).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelIncoming {
    pub duel_id: String,
    pub from_player_id: String,
    pub from_player_name: String,
}

/// One staked stack, as both sides see it: `value` is the item's value × quantity from content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StakeItem {
    pub inventory_slot: u8,
    pub item_id: String,
    pub name: String,
    pub quantity: i64,
    pub value: i64,
}

/// One side's stake and whether it accepted this screen.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DuelStake {
    pub items: Vec<StakeItem>,
    /// Σ of the items' values.
    pub value: i64,
    pub accepted: bool,
}

/// `duel:rules` (to both, from each receiver's point of view), sent when the duel starts and after
/// every change or acceptance. `screen` is 1 (rules and stakes) or 2 (confirmation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelRules {
    pub duel_id: String,
    pub opponent_id: String,
    pub opponent_name: String,
    pub screen: u8,
    /// The rules switched on (names of [`rules::ALL`]).
    pub rules: Vec<String>,
    pub my_stake: DuelStake,
    pub their_stake: DuelStake,
}

/// `duel:start` (to both): the fight begins, each placed in the arena at `tile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelStart {
    pub duel_id: String,
    pub opponent_id: String,
    pub rules: Vec<String>,
    /// The duel arena area the fight is in (`None`: the world has none; fought where they stood).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_id: Option<String>,
    pub tile: crate::ws::TilePos,
}

/// `duel:result` (to both): `receivedItems` is what this receiver got (the loser's stake for the
/// winner, nothing for the loser).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelResult {
    pub duel_id: String,
    pub winner_id: String,
    pub loser_id: String,
    pub received_items: Vec<ReceivedItem>,
}

/// `duel:cancelled`: the duel ended without a result; every staked item stays with its owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelCancelled {
    pub duel_id: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_player_id: Option<String>,
}

/// `duelError`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DuelError {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duel_id: Option<String>,
    pub code: String,
    pub message: String,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<serde_json::Value>,
}
