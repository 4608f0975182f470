//! Zones and death on the wire (CONTRACT.md section 10): `zone:enter` when a player crosses into
//! (or out of) an area, and `player:death` to the player who died, before the respawn.

use serde::{Deserialize, Serialize};

use super::TilePos;

/// `zone:enter`: the area the player now stands in. Sent on entering the world when the player
/// stands in an area, and whenever their area changes (walking, teleporting, respawning). Out of
/// every area: `areaId` and `name` are `null`, `safe` and `pvp` false.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ZoneEnter {
    pub area_id: Option<String>,
    pub name: Option<String>,
    /// No NPC is aggressive to the player here, and players may not attack each other.
    pub safe: bool,
    /// Players may attack each other here.
    pub pvp: bool,
}

/// An item kept or lost on death.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeathItem {
    pub item_id: String,
    pub quantity: u64,
}

/// Where a death's items lie, their owner's alone until `expiresAt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Gravestone {
    pub x: i32,
    pub z: i32,
    /// Milliseconds since the Unix epoch.
    pub expires_at: i64,
}

/// `player:death`: who killed the player, what they kept and lost, where the gravestone is
/// (deaths outside PvP areas that lost something) and where they respawn.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlayerDeath {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killer_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killer_name: Option<String>,
    pub kept: Vec<DeathItem>,
    pub lost: Vec<DeathItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravestone: Option<Gravestone>,
    pub respawn: TilePos,
}
