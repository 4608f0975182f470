//! Legacy files superseded by newer ones: `mobs.json`, `banks.json`, `zones.json`.
//!
//! They are parsed (so a malformed copy is reported) and kept for reference, but the game uses
//! `npcs.json`, NPC services and `world-areas.json` instead, and their references are not checked.

use serde::{Deserialize, Serialize};

use crate::common::Position;
use crate::ticks::{ms_to_ticks, secs_to_ticks};

/// Legacy content, parsed but not used by the game.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Legacy {
    /// `mobs.json`.
    pub mobs: Vec<LegacyMob>,
    /// `banks.json`.
    pub banks: Vec<LegacyBank>,
    /// `zones.json`.
    pub zones: Vec<LegacyZone>,
}

/// A mob from `mobs.json` (timings converted to ticks).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyMob {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Combat level.
    pub level: u32,
    /// Hit points.
    pub health: u32,
    /// Ticks between attacks (from seconds).
    pub attack_speed_ticks: u32,
    /// Ticks to respawn (from milliseconds).
    pub respawn_ticks: u32,
    /// XP for a kill.
    pub xp_reward: f64,
    /// Old biome names.
    pub spawn_biomes: Vec<String>,
}

/// `mobs.json` entry as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawLegacyMob {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub level: Option<i64>,
    #[serde(default)]
    pub health: Option<i64>,
    /// Seconds.
    #[serde(default)]
    pub attack_speed: Option<f64>,
    /// Milliseconds.
    #[serde(default)]
    pub respawn_time: Option<f64>,
    #[serde(default)]
    pub xp_reward: Option<f64>,
    #[serde(default)]
    pub spawn_biomes: Vec<String>,
}

impl RawLegacyMob {
    /// Converts to ticks.
    pub fn normalise(&self) -> LegacyMob {
        LegacyMob {
            id: self.id.clone(),
            name: self.name.clone(),
            level: self.level.unwrap_or(1).clamp(1, 1000) as u32,
            health: self.health.unwrap_or(1).clamp(1, 1_000_000) as u32,
            attack_speed_ticks: secs_to_ticks(self.attack_speed.unwrap_or(2.4)).max(1),
            respawn_ticks: ms_to_ticks(self.respawn_time.unwrap_or(0.0)),
            xp_reward: self.xp_reward.unwrap_or(0.0),
            spawn_biomes: self.spawn_biomes.clone(),
        }
    }
}

/// A bank from `banks.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyBank {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Zone and position.
    pub location: LegacyLocation,
    /// Shared between characters.
    #[serde(default)]
    pub is_shared: bool,
    /// Slot limit (-1 = unlimited).
    #[serde(default)]
    pub max_slots: i64,
}

/// `location` of a legacy bank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegacyLocation {
    /// Zone id.
    pub zone: String,
    /// Position.
    pub position: Position,
}

/// A zone from `zones.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyZone {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Old biome name.
    #[serde(default)]
    pub biome: Option<String>,
    /// `{x, z, width, height}` rectangle.
    pub bounds: LegacyZoneBounds,
    /// Difficulty.
    #[serde(default)]
    pub difficulty_level: i64,
    /// Whether it is a town.
    #[serde(default)]
    pub is_town: bool,
    /// Spawn points (`player`, `mob`, `resource`).
    #[serde(default)]
    pub spawn_points: Vec<LegacySpawnPoint>,
}

/// Legacy zone rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LegacyZoneBounds {
    /// West edge.
    pub x: f64,
    /// North edge (north is −z).
    pub z: f64,
    /// Extent along x.
    pub width: f64,
    /// Extent along z.
    pub height: f64,
}

/// Legacy spawn point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegacySpawnPoint {
    /// `player`, `mob` or `resource`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where.
    pub position: Position,
    /// Free-form data.
    #[serde(default)]
    pub data: serde_json::Value,
}

/// A `mobs.json` mob in the shape of an `npcs.json` entry, so it goes through the same checks and
/// normalisation as every NPC. `spawn_biomes` is decided by the caller (the file's biome names are
/// older than `biomes.json`).
pub(crate) fn mob_as_npc(mob: &serde_json::Value, spawn_biomes: Vec<String>) -> serde_json::Value {
    use serde_json::{json, Value};
    let get = |path: &[&str]| -> Value {
        let mut v = mob;
        for key in path {
            match v.get(key) {
                Some(next) => v = next,
                None => return Value::Null,
            }
        }
        v.clone()
    };
    let num = |path: &[&str], default: f64| get(path).as_f64().unwrap_or(default);
    let level = num(&["stats", "level"], num(&["level"], 1.0));
    let line = |d: &Value| {
        let q = d.get("quantity").and_then(Value::as_i64).unwrap_or(1);
        json!({"itemId": d.get("itemId").cloned().unwrap_or(Value::Null),
               "minQuantity": q, "maxQuantity": q,
               "chance": d.get("chance").and_then(Value::as_f64).unwrap_or(1.0)})
    };
    let list = |key: &str| -> Vec<Value> {
        get(&["lootTable", key])
            .as_array()
            .map(|a| a.iter().map(line).collect())
            .unwrap_or_default()
    };
    // `lootTable` is the richer table; a mob without one keeps its flat `drops` list.
    let (always, common) = if get(&["lootTable"]).is_object() {
        (list("guaranteedDrops"), list("commonDrops"))
    } else {
        let flat: Vec<&Value> = mob
            .get("drops")
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let guaranteed = |d: &&Value| d.get("isGuaranteed").and_then(Value::as_bool) == Some(true);
        (
            flat.iter()
                .filter(|d| guaranteed(d))
                .map(|d| line(d))
                .collect(),
            flat.iter()
                .filter(|d| !guaranteed(d))
                .map(|d| line(d))
                .collect(),
        )
    };
    json!({
        "id": get(&["id"]),
        "name": get(&["name"]),
        "description": get(&["description"]),
        "category": "mob",
        "faction": "monster",
        "levelRange": [level as i64, level as i64],
        "stats": {
            "level": level as i64,
            "health": num(&["stats", "health"], num(&["health"], 1.0)) as i64,
            "attack": num(&["stats", "attack"], 1.0) as i64,
            "strength": num(&["stats", "strength"], 1.0) as i64,
            "defense": num(&["stats", "defense"], 1.0) as i64,
            "ranged": num(&["stats", "ranged"], 1.0) as i64,
            "magic": 1
        },
        "combat": {
            "attackable": true,
            "aggressive": get(&["behavior", "aggressive"]).as_bool().unwrap_or(false),
            "retaliates": true,
            "aggroRange": num(&["behavior", "aggroRange"], 0.0),
            "combatRange": num(&["combatRange"], 1.0).max(1.0),
            "leashRange": num(&["behavior", "chaseRange"], 10.0),
            // Seconds in this file; milliseconds in the NPC schema.
            "attackSpeed": num(&["attackSpeed"], 2.4) * 1000.0,
            "respawnTime": num(&["respawnTime"], 0.0)
        },
        "movement": {"type": "wander", "speed": num(&["moveSpeed"], 3.0), "wanderRadius": 5},
        "drops": {
            "always": always,
            "common": common,
            "uncommon": list("uncommonDrops"),
            "rare": list("rareDrops")
        },
        "appearance": {"modelPath": get(&["modelPath"])},
        "spawnBiomes": spawn_biomes
    })
}
