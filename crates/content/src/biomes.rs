//! Biomes: `biomes.json` (the server keeps what affects gameplay; visual fields stay in the raw file).

use serde::{Deserialize, Serialize};

use crate::common::{BiomeId, Ctx, NpcId, RefKind};

/// One biome.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Biome {
    /// Unique id.
    pub id: BiomeId,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Difficulty (`difficultyLevel`, or its duplicate `difficulty`).
    pub difficulty: u32,
    /// Terrain preset name.
    pub terrain: Option<String>,
    /// Resource categories placed here (`trees`, `fishing_spots`).
    pub resource_types: Vec<String>,
    /// Mobs that may spawn here (`mobs`, or its duplicate `mobTypes`).
    pub mobs: Vec<NpcId>,
    /// Normalised height band [min, max] in 0..1.
    pub height_range: Option<(f64, f64)>,
    /// Water level.
    pub water_level: f64,
    /// Steepest walkable slope.
    pub max_slope: Option<f64>,
    /// Resource density multiplier.
    pub resource_density: f64,
}

/// A biome as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawBiome {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub difficulty_level: Option<i64>,
    #[serde(default)]
    pub difficulty: Option<i64>,
    #[serde(default)]
    pub terrain: Option<String>,
    #[serde(default)]
    pub resources: Option<Vec<String>>,
    #[serde(default)]
    pub resource_types: Option<Vec<String>>,
    #[serde(default)]
    pub mobs: Option<Vec<String>>,
    #[serde(default)]
    pub mob_types: Option<Vec<String>>,
    #[serde(default)]
    pub height_range: Option<(f64, f64)>,
    #[serde(default)]
    pub water_level: Option<f64>,
    #[serde(default)]
    pub max_slope: Option<f64>,
    #[serde(default)]
    pub resource_density: Option<f64>,
}

/// Normalises one biome, merging the duplicated keys and dropping unknown mobs.
pub(crate) fn normalise(raw: &RawBiome, index: usize, ctx: &mut Ctx<'_>) -> Option<Biome> {
    let at = |f: &str| format!("[{index}].{f}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let difficulty = raw.difficulty_level.or(raw.difficulty).unwrap_or(0);
    let difficulty = ctx.count(id, &at("difficultyLevel"), difficulty);
    let mut mobs: Vec<NpcId> = Vec::new();
    let (key, list) = match (&raw.mobs, &raw.mob_types) {
        (Some(list), _) => ("mobs", list.clone()),
        (None, Some(list)) => ("mobTypes", list.clone()),
        (None, None) => ("mobs", Vec::new()),
    };
    for (n, mob) in list.iter().enumerate() {
        if ctx.check_ref(
            RefKind::Npc,
            mob,
            id,
            &at(&format!("{key}[{n}]")),
            "the mob is not spawned here",
        ) {
            mobs.push(mob.clone());
        }
    }
    Some(Biome {
        id: raw.id.clone(),
        name: raw.name.clone(),
        description: raw.description.clone().unwrap_or_default(),
        difficulty,
        terrain: raw.terrain.clone(),
        resource_types: raw
            .resource_types
            .clone()
            .or_else(|| raw.resources.clone())
            .unwrap_or_default(),
        mobs,
        height_range: raw.height_range,
        water_level: raw.water_level.unwrap_or(0.0),
        max_slope: raw.max_slope,
        resource_density: raw.resource_density.unwrap_or(1.0),
    })
}
