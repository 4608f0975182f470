//! Gathering nodes: `gathering/woodcutting.json`, `gathering/mining.json`, `gathering/fishing.json`
//! (and legacy `resources.json` as a fallback).

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemId, RefKind, ResourceId};
use crate::skill::Skill;
use crate::ticks::ms_to_ticks;

/// A tree, rock or fishing spot.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GatheringNode {
    /// Unique id.
    pub id: ResourceId,
    /// Display name.
    pub name: String,
    /// `tree`, `ore` or `fishing_spot`.
    pub kind: String,
    /// Examine text.
    pub examine: String,
    /// Skill trained.
    pub skill: Skill,
    /// What the player must hold.
    pub tool: ToolRequirement,
    /// Item consumed per catch (fishing bait, feathers), when any.
    pub consumes: Option<ItemId>,
    /// Minimum skill level.
    pub level: u32,
    /// Ticks per gathering attempt.
    pub cycle_ticks: u32,
    /// Chance a successful attempt depletes the node (1.0 for rocks).
    pub deplete_chance: f64,
    /// Ticks until a depleted node is back.
    pub respawn_ticks: u32,
    /// What one success can give, with XP.
    pub yields: Vec<Yield>,
    /// Model asset.
    pub model_path: Option<String>,
    /// Model asset while depleted.
    pub depleted_model_path: Option<String>,
    /// Model scale.
    pub scale: f64,
}

/// The tool a node needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "value")]
pub enum ToolRequirement {
    /// Any item whose `tool.skill` is this skill (hatchets, pickaxes); the best one held is used.
    AnyForSkill(Skill),
    /// This exact item (fishing nets, rods, harpoons).
    Item(ItemId),
    /// Nothing.
    None,
}

/// One possible product of a gathering success.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Yield {
    /// The item given.
    pub item_id: ItemId,
    /// How many.
    pub quantity: u32,
    /// Chance in 0..1.
    pub chance: f64,
    /// XP per item.
    pub xp: f64,
    /// Minimum level for this yield (fishing spots give better fish at higher levels).
    pub level: u32,
}

/// A gathering file: the node array is under `rocks`, `trees`, `spots` or `resources`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawGatheringFile {
    #[serde(alias = "rocks", alias = "trees", alias = "spots", alias = "resources")]
    pub nodes: Vec<RawNode>,
}

/// A node as written in the files.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawNode {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub examine: Option<String>,
    #[serde(default)]
    pub model_path: Option<String>,
    #[serde(default)]
    pub depleted_model_path: Option<String>,
    #[serde(default)]
    pub scale: Option<f64>,
    pub harvest_skill: String,
    #[serde(default)]
    pub tool_required: Option<String>,
    #[serde(default)]
    pub bait_required: Option<String>,
    #[serde(default)]
    pub level_required: Option<i64>,
    #[serde(default)]
    pub base_cycle_ticks: Option<i64>,
    #[serde(default)]
    pub deplete_chance: Option<f64>,
    #[serde(default)]
    pub respawn_ticks: Option<i64>,
    /// Legacy milliseconds.
    #[serde(default)]
    pub respawn_time: Option<f64>,
    #[serde(default)]
    pub harvest_yield: Vec<RawYield>,
}

/// A yield as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawYield {
    pub item_id: String,
    #[serde(default = "crate::common::one")]
    pub quantity: i64,
    #[serde(default = "crate::common::one_f")]
    pub chance: f64,
    #[serde(default)]
    pub xp_amount: f64,
    #[serde(default)]
    pub level_required: Option<i64>,
}

/// Tool category words that mean "any tool of the node's skill".
const TOOL_CATEGORIES: [&str; 4] = ["pickaxe", "hatchet", "axe", "any"];

/// Normalises one node; `None` when it is dropped (unknown yield item, unknown skill, empty id).
pub(crate) fn normalise(
    raw: &RawNode,
    path: &str,
    tool_skills: &dyn Fn(&str) -> Option<Skill>,
    ctx: &mut Ctx<'_>,
) -> Option<GatheringNode> {
    let at = |field: &str| format!("{path}.{field}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let skill = ctx.skill(
        &raw.harvest_skill,
        id,
        &at("harvestSkill"),
        "the node is dropped",
    )?;
    let mut ok = true;
    let tool = match raw.tool_required.as_deref() {
        None | Some("") | Some("none") => ToolRequirement::None,
        Some(word) if TOOL_CATEGORIES.contains(&word) => ToolRequirement::AnyForSkill(skill),
        Some(item) => {
            if !ctx.check_ref(
                RefKind::Item,
                item,
                id,
                &at("toolRequired"),
                "the node is dropped",
            ) {
                ok = false;
                ToolRequirement::None
            } else if tool_skills(item) == Some(skill) {
                ToolRequirement::AnyForSkill(skill)
            } else {
                ToolRequirement::Item(item.to_string())
            }
        }
    };
    let consumes = match raw.bait_required.as_deref() {
        None | Some("") => None,
        Some(bait) => {
            ok &= ctx.check_ref(
                RefKind::Item,
                bait,
                id,
                &at("baitRequired"),
                "the node is dropped",
            );
            Some(bait.to_string())
        }
    };
    let level = ctx.level(id, &at("levelRequired"), raw.level_required.unwrap_or(1));
    let mut yields = Vec::new();
    for (n, y) in raw.harvest_yield.iter().enumerate() {
        let field = at(&format!("harvestYield[{n}]"));
        // The legacy `resources.json` yields `raw_shrimps` where the items define `raw_shrimp`:
        // a plural id the items lack is read as its singular when that one exists.
        let item_id = match y.item_id.strip_suffix('s') {
            Some(single)
                if !ctx.known.has(RefKind::Item, &y.item_id)
                    && ctx.known.has(RefKind::Item, single) =>
            {
                single.to_owned()
            }
            _ => y.item_id.clone(),
        };
        if !ctx.check_ref(
            RefKind::Item,
            &item_id,
            id,
            &format!("{field}.itemId"),
            "the node is dropped",
        ) {
            ok = false;
            continue;
        }
        yields.push(Yield {
            item_id,
            quantity: ctx.quantity(id, &format!("{field}.quantity"), y.quantity),
            chance: ctx.chance(id, &format!("{field}.chance"), y.chance),
            xp: ctx.non_negative(id, &format!("{field}.xpAmount"), y.xp_amount),
            level: y
                .level_required
                .map(|l| ctx.level(id, &format!("{field}.levelRequired"), l))
                .unwrap_or(level),
        });
    }
    if raw.harvest_yield.is_empty() {
        ctx.invalid(
            id,
            &at("harvestYield"),
            "a gathering node must yield at least one item",
        );
    }
    let respawn_ticks = match (raw.respawn_ticks, raw.respawn_time) {
        (Some(ticks), _) => ctx.count(id, &at("respawnTicks"), ticks),
        (None, Some(ms)) => ms_to_ticks(ctx.non_negative(id, &at("respawnTime"), ms)),
        (None, None) => 0,
    };
    let cycle_ticks = ctx
        .count(id, &at("baseCycleTicks"), raw.base_cycle_ticks.unwrap_or(4))
        .max(1);
    let deplete_chance = ctx.chance(id, &at("depleteChance"), raw.deplete_chance.unwrap_or(0.0));
    if !ok {
        return None;
    }
    Some(GatheringNode {
        id: raw.id.clone(),
        name: raw.name.clone(),
        kind: raw.kind.clone(),
        examine: raw.examine.clone().unwrap_or_default(),
        skill,
        tool,
        consumes,
        level,
        cycle_ticks,
        deplete_chance,
        respawn_ticks,
        yields,
        model_path: raw.model_path.clone(),
        depleted_model_path: raw.depleted_model_path.clone(),
        scale: raw.scale.unwrap_or(1.0),
    })
}
