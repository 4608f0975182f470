//! World generation settings and the starter kit: `world-config.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::common::{BiomeId, Ctx, ItemAmount, RawItemAmount, RefKind};

/// The parts of `world-config.json` the server uses, plus the whole file as JSON.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorldConfig {
    /// Schema version.
    pub version: u32,
    /// Terrain generation.
    pub terrain: Option<TerrainConfig>,
    /// Biome placement seed.
    pub biome_seed: Option<u64>,
    /// Biome weights (undefined biomes dropped).
    pub biome_distribution: BTreeMap<BiomeId, f64>,
    /// Procedural towns.
    pub towns: Option<TownsConfig>,
    /// Whether the server generates the world from this file (bundled extension `generate`,
    /// default true; our bundled world sets it false and keeps its hand-drawn areas).
    pub generate: bool,
    /// Items every new character starts with (bundled extension `starterKit`).
    pub starter_kit: Vec<ItemAmount>,
    /// The whole file, for settings the server does not interpret (roads, vegetation, noise).
    pub raw: serde_json::Value,
}

/// Terrain settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TerrainConfig {
    /// Noise seed.
    pub seed: u64,
    /// Terrain chunk size in world units (not the game tile, which is 1 unit).
    pub tile_size: f64,
    /// Vertices per chunk side.
    #[serde(default)]
    pub tile_resolution: Option<u32>,
    /// Highest terrain point.
    pub max_height: f64,
    /// Height below which there is water.
    pub water_threshold: f64,
    /// Preset name.
    #[serde(default)]
    pub preset: Option<String>,
}

/// Procedural town settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TownsConfig {
    /// Placement seed.
    pub seed: u64,
    /// Whether towns are generated.
    pub enabled: bool,
    /// Number of towns.
    pub count: u32,
    /// World edge length.
    pub world_size: f64,
    /// Size classes (`town`, `village`, `hamlet`) with their safe-zone radius.
    pub sizes: BTreeMap<String, TownSize>,
    /// Biomes towns prefer (undefined ones dropped).
    pub preferred_biomes: Vec<BiomeId>,
    /// Biomes towns avoid (undefined ones dropped).
    pub avoid_biomes: Vec<BiomeId>,
}

/// One town size class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TownSize {
    /// How many towns of this size.
    pub count: u32,
    /// Radius of the safe zone around the town centre.
    pub safe_zone_radius: f64,
    /// Building count range.
    #[serde(default)]
    pub building_count: Option<(u32, u32)>,
}

/// `world-config.json` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawWorldConfig {
    #[serde(default)]
    pub version: Option<u32>,
    #[serde(default)]
    pub terrain: Option<TerrainConfig>,
    #[serde(default)]
    pub biomes: Option<RawBiomePlacement>,
    #[serde(default)]
    pub towns: Option<RawTowns>,
    #[serde(default)]
    pub starter_kit: Option<RawStarterKit>,
    #[serde(default)]
    pub generate: Option<bool>,
}

/// `biomes` section as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawBiomePlacement {
    #[serde(default)]
    pub placement_seed: Option<u64>,
    #[serde(default)]
    pub distribution: BTreeMap<String, f64>,
}

/// `towns` section as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawTowns {
    pub seed: u64,
    #[serde(default = "crate::common::yes")]
    pub enabled: bool,
    #[serde(default)]
    pub count: u32,
    #[serde(default)]
    pub world_size: f64,
    #[serde(default)]
    pub sizes: BTreeMap<String, TownSize>,
    #[serde(default)]
    pub preferred_biomes: Vec<String>,
    #[serde(default)]
    pub avoid_biomes: Vec<String>,
}

/// `starterKit` as written: `{items: [{itemId, quantity}]}`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawStarterKit {
    pub items: Vec<RawItemAmount>,
}

/// Normalises the world config.
pub(crate) fn normalise(
    raw: &RawWorldConfig,
    value: serde_json::Value,
    ctx: &mut Ctx<'_>,
) -> WorldConfig {
    let entry = "world-config";
    let mut distribution = BTreeMap::new();
    let mut biome_seed = None;
    if let Some(b) = &raw.biomes {
        biome_seed = b.placement_seed;
        for (biome, weight) in &b.distribution {
            let field = format!("biomes.distribution.{biome}");
            let weight = ctx.non_negative(entry, &field, *weight);
            if ctx.check_ref(
                RefKind::Biome,
                biome,
                entry,
                &field,
                "its weight is ignored",
            ) {
                distribution.insert(biome.clone(), weight);
            }
        }
        let total: f64 = b.distribution.values().sum();
        if !b.distribution.is_empty() && (total - 1.0).abs() > 0.01 {
            ctx.questionable(
                entry,
                "biomes.distribution",
                format!("biome weights sum to {total}, not 1; they are used as relative weights"),
            );
        }
    }
    let towns = raw.towns.as_ref().map(|t| {
        let mut keep = |list: &[String], key: &str| {
            let mut out = Vec::new();
            for (n, biome) in list.iter().enumerate() {
                if ctx.check_ref(
                    RefKind::Biome,
                    biome,
                    entry,
                    &format!("towns.{key}[{n}]"),
                    "it is ignored",
                ) {
                    out.push(biome.clone());
                }
            }
            out
        };
        let preferred_biomes = keep(&t.preferred_biomes, "preferredBiomes");
        let avoid_biomes = keep(&t.avoid_biomes, "avoidBiomes");
        TownsConfig {
            seed: t.seed,
            enabled: t.enabled,
            count: t.count,
            world_size: t.world_size,
            sizes: t.sizes.clone(),
            preferred_biomes,
            avoid_biomes,
        }
    });
    let mut starter_kit = Vec::new();
    if let Some(kit) = &raw.starter_kit {
        for (n, line) in kit.items.iter().enumerate() {
            let field = format!("starterKit.items[{n}]");
            let quantity = ctx.quantity(entry, &format!("{field}.quantity"), line.quantity);
            if ctx.check_ref(
                RefKind::Item,
                &line.item_id,
                entry,
                &format!("{field}.itemId"),
                "it is left out of the kit",
            ) {
                starter_kit.push(ItemAmount {
                    item_id: line.item_id.clone(),
                    quantity,
                });
            }
        }
    }
    WorldConfig {
        version: raw.version.unwrap_or(1),
        terrain: raw.terrain.clone(),
        biome_seed,
        biome_distribution: distribution,
        towns,
        generate: raw.generate.unwrap_or(true),
        starter_kit,
        raw: value,
    }
}
