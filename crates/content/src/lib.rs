//! Game content for Wayfarer: loads the reference manifest format into one clean model.
//!
//! - [`ManifestSet`] holds the raw bytes of every manifest file (served at `/manifests/<file>`).
//! - [`Content::from_files`] parses, normalises and validates a set into [`Content`] plus a [`Report`].
//! - [`check`] is the library side of `wayfarer check-content [DIR] [--strict]`.
//! - [`bundled`] / [`load_bundled`] give the content compiled into the binary.
//! - [`build_model_bounds`] generates `model-bounds.json` from glTF models.
//!
//! No I/O beyond reading files it is given: fetching manifests from a CDN is the server's
//! (`wayfarer_server::cdn`).
//!
//! See `docs/content.md` for the format quirks and how each is normalised.

#![warn(missing_docs)]

mod agility;
mod areas;
mod biomes;
mod bundled;
mod common;
pub mod compass;
mod content;
mod dialogue;
mod fallback;
pub mod features;
mod gathering;
pub mod generated;
pub mod gltf;
mod items;
mod legacy;
pub mod levels;
mod manifest_set;
pub mod model_bounds;
mod music;
mod npcs;
mod parse;
mod prayers;
mod quests;
mod recipes;
mod report;
mod skill;
mod skill_unlocks;
pub mod skilling;
mod spells;
mod starter;
mod stations;
mod stores;
mod templates;
pub mod ticks;
mod world_config;

use std::path::Path;

pub use agility::{AgilityCourse, Obstacle};
pub use areas::{
    Area, AreaGroup, Bounds, Circle, FishingConfig, MobSpawn, NpcSpawn, ResourceSpawn, StationSpawn,
};
pub use biomes::Biome;
pub use bundled::{bundled, load_bundled, AGENT_BENCH};
pub use common::{
    AreaId, BiomeId, ItemAmount, ItemId, NpcId, Position, PrayerId, QuestId, ResourceId,
    StationType, StoreId, Tile,
};
pub use content::{Content, LoadOptions, DEFAULT_SPAWN};
pub use dialogue::{
    Condition, Dialogue, DialogueNode, DialogueResponse, Effect, QuestOverride, QuestStatus,
};
pub use fallback::{missing_item_definitions, FALLBACK_ITEMS_FILE};
pub use gathering::{GatheringNode, ToolRequirement, Yield};
pub use items::{AttackStyle, Bonuses, EquipSlot, Item, ToolInfo, UseEffect, WeaponStats};
pub use legacy::{Legacy, LegacyBank, LegacyMob, LegacyZone};
pub use manifest_set::{ManifestSet, ManifestSetError};
pub use model_bounds::{build_model_bounds, ModelBounds, ModelBoundsError, ModelBoundsManifest};
pub use music::MusicTrack;
pub use npcs::{Drop, DropTier, Movement, Npc, NpcCombat, NpcStats};
pub use prayers::Prayer;
pub use quests::{InteractTarget, Objective, Quest, QuestStage};
pub use recipes::{ConsumableUse, Recipe, RecipeDetail, RecipeKind, ALTAR_SUFFIX, SMITHING_HAMMER};
pub use report::{Code, Diagnostic, Report, Severity};
pub use skill::Skill;
pub use skill_unlocks::{SkillUnlock, UNLOCK_TYPES};
pub use spells::{Spell, SpellId, DEFAULT_CAST_TICKS};
pub use starter::{DEFAULT_STARTER_KIT, FALLBACK_FOOD_FILE};
pub use stations::Station;
pub use stores::{StockLine, Store};
pub use templates::{
    CharacterTemplate, GoalPreset, GOAL_KINDS, MAX_TEMPLATE_ITEMS, MAX_TEMPLATE_LEVEL,
};
pub use world_config::{TerrainConfig, TownSize, TownsConfig, WorldConfig};

/// What [`check`] validates.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A manifest directory on disk.
    Dir(&'a Path),
    /// Files already in memory.
    Set(&'a ManifestSet),
    /// The content compiled into the binary.
    Bundled,
}

/// Validates manifests and returns every diagnostic; strict mode makes warnings errors.
///
/// Print the report with `Display` (one line per diagnostic and an `N errors, M warnings`
/// summary) and exit non-zero when [`Report::has_errors`].
pub fn check(source: Source<'_>, strict: bool) -> Report {
    let loaded;
    let set = match source {
        Source::Dir(dir) => match ManifestSet::read_dir(dir) {
            Ok(set) => {
                loaded = set;
                &loaded
            }
            Err(err) => {
                let mut report = Report::new();
                report.push(Diagnostic::new(
                    Severity::Error,
                    Code::Missing,
                    &dir.display().to_string(),
                    err.to_string(),
                ));
                return report;
            }
        },
        Source::Set(set) => set,
        Source::Bundled => {
            loaded = bundled();
            &loaded
        }
    };
    let options = LoadOptions { strict };
    match Content::from_files_with(set, options) {
        Ok((_, report)) => report,
        Err(report) => report,
    }
}
