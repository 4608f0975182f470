//! What a new character needs to play, where the content does not say: the default starter kit
//! and the fallback food.
//!
//! - A world config without `starterKit` (the reference files have none) gives
//!   [`DEFAULT_STARTER_KIT`]: the tools of the first gathering skills, a sword and some food, as
//!   the classic games (and the reference game's new characters) start — those of its items the
//!   content defines, its fishing tool the one a level-1 spot without bait takes (the net when
//!   one takes it). An explicit empty `starterKit` gives nothing.
//! - Content in which nothing heals (the reference items have raw and burnt fish but no cooked
//!   food) gets the bundled food definitions for the food ids it lacks, and for those ids alone
//!   (as CONTRACT §11 does for runes): its stores' `shrimp` and the kit's `bread` then exist.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{ItemAmount, ItemId, ResourceId};
use crate::gathering::{GatheringNode, ToolRequirement};
use crate::items::{Item, RawItem};
use crate::report::Report;
use crate::skill::Skill;

/// The kit of content without a `starterKit`, in inventory order: (item id, quantity).
pub const DEFAULT_STARTER_KIT: &[(&str, u32)] = &[
    ("bronze_hatchet", 1),
    ("bronze_pickaxe", 1),
    ("small_fishing_net", 1),
    ("tinderbox", 1),
    ("bronze_sword", 1),
    ("shrimp", 3),
    ("bread", 2),
];

/// The file name the fallback food is loaded under (diagnostics about it name this file).
pub const FALLBACK_FOOD_FILE: &str = "items/fallback-food.json";

/// The bundled file holding the food definitions used as the fallback.
const BUNDLED_FOOD: &[u8] = include_bytes!("../bundled/items/misc.json");

/// The kit's fishing tool when a first spot takes it.
const KIT_FISHING_TOOL: &str = "small_fishing_net";

/// [`DEFAULT_STARTER_KIT`] without the items `items` lacks, its fishing tool the one a first
/// fishing spot takes ([`fishing_tool`]).
pub(crate) fn default_kit(
    items: &BTreeMap<ItemId, Item>,
    gathering: &BTreeMap<ResourceId, GatheringNode>,
) -> Vec<ItemAmount> {
    let fishing = fishing_tool(items, gathering).unwrap_or(KIT_FISHING_TOOL);
    DEFAULT_STARTER_KIT
        .iter()
        .map(|(id, quantity)| {
            let id = if *id == KIT_FISHING_TOOL { fishing } else { id };
            (id, *quantity)
        })
        .filter(|(id, _)| items.contains_key(*id))
        .map(|(id, quantity)| ItemAmount {
            item_id: id.to_string(),
            quantity,
        })
        .collect()
}

/// The tool that fishes at the spots a new character can use (the lowest level, no bait): the
/// kit's net when one of them takes it, else what the first of them needs (the reference's only
/// spot of its own takes a rod). `None` when nothing is fished.
fn fishing_tool<'a>(
    items: &'a BTreeMap<ItemId, Item>,
    gathering: &'a BTreeMap<ResourceId, GatheringNode>,
) -> Option<&'a str> {
    let mut first: Vec<&GatheringNode> = gathering
        .values()
        .filter(|n| n.skill == Skill::Fishing && n.consumes.is_none())
        .collect();
    let lowest = first.iter().map(|n| n.level).min()?;
    first.retain(|n| n.level == lowest);
    let tool_of = |node: &GatheringNode| -> Option<&'a str> {
        match &node.tool {
            ToolRequirement::Item(id) => items.get(id).map(|i| i.id.as_str()),
            ToolRequirement::AnyForSkill(skill) => items
                .values()
                .filter(|i| i.tool.as_ref().is_some_and(|t| t.skill == *skill))
                .min_by_key(|i| (i.tool.as_ref().map(|t| t.priority), i.id.clone()))
                .map(|i| i.id.as_str()),
            ToolRequirement::None => None,
        }
    };
    let takes_net = |node: &&GatheringNode| match &node.tool {
        ToolRequirement::Item(id) => id == KIT_FISHING_TOOL,
        ToolRequirement::AnyForSkill(skill) => items
            .get(KIT_FISHING_TOOL)
            .and_then(|net| net.tool.as_ref())
            .is_some_and(|t| t.skill == *skill),
        ToolRequirement::None => false,
    };
    if first.iter().any(takes_net) && items.contains_key(KIT_FISHING_TOOL) {
        return Some(KIT_FISHING_TOOL);
    }
    first.iter().find_map(|n| tool_of(n))
}

/// Whether an item as written heals.
fn heals(item: &RawItem) -> bool {
    item.heal_amount.is_some_and(|h| h > 0)
}

/// Adds the bundled food the content lacks when none of its items heals, to the item files in use
/// (the split files, or legacy `items.json` when there are none; see `content::item_files`).
pub(crate) fn add_fallback_food(
    split: &mut Vec<(String, Vec<RawItem>)>,
    legacy: &mut Option<Vec<RawItem>>,
    report: &mut Report,
) {
    let in_use: Vec<&RawItem> = if split.is_empty() {
        legacy.iter().flatten().collect()
    } else {
        split.iter().flat_map(|(_, list)| list.iter()).collect()
    };
    if in_use.iter().any(|item| heals(item)) {
        return;
    }
    let defined: BTreeSet<&str> = in_use.iter().map(|item| item.id.as_str()).collect();
    let Some(bundled) =
        crate::parse::parse_file::<Vec<RawItem>>(FALLBACK_FOOD_FILE, BUNDLED_FOOD, report)
    else {
        return;
    };
    let food: Vec<RawItem> = bundled
        .into_iter()
        .filter(|item| heals(item) && !defined.contains(item.id.as_str()))
        .collect();
    if food.is_empty() {
        return;
    }
    match legacy {
        Some(list) if split.is_empty() => list.extend(food),
        _ => split.push((FALLBACK_FOOD_FILE.to_string(), food)),
    }
}

#[cfg(test)]
mod tests {
    use crate::manifest_set::ManifestSet;
    use crate::Content;

    /// Items as the reference writes them: a tool and raw fish, nothing that heals.
    fn foodless() -> ManifestSet {
        let mut set = ManifestSet::new();
        set.insert(
            "items/tools.json",
            br#"[{"id":"bronze_hatchet","name":"Bronze hatchet","type":"tool","value":16},
                 {"id":"raw_shrimp","name":"Raw shrimp","type":"resource","value":5}]"#
                .to_vec(),
        );
        set
    }

    #[test]
    fn content_without_food_gets_the_bundled_food_and_the_default_kit() {
        let (content, _) = Content::from_files(&foodless()).unwrap();
        let shrimp = content.item("shrimp").expect("fallback shrimp");
        assert_eq!(shrimp.heal_amount, Some(3));
        assert_eq!(content.item("bread").and_then(|b| b.heal_amount), Some(5));
        // Only food comes from the fallback.
        assert!(content.item("bronze_pickaxe").is_none());
        let kit: Vec<(&str, u32)> = content
            .starter_kit()
            .iter()
            .map(|a| (a.item_id.as_str(), a.quantity))
            .collect();
        assert_eq!(
            kit,
            vec![("bronze_hatchet", 1), ("shrimp", 3), ("bread", 2)],
            "the default kit, less what the content lacks"
        );
    }

    #[test]
    fn content_with_food_or_a_kit_keeps_its_own() {
        let content = crate::load_bundled();
        assert!(content.starter_kit().iter().any(|a| a.item_id == "coins"));
        let mut set = foodless();
        set.insert(
            "items/food.json",
            br#"[{"id":"cake","name":"Cake","type":"consumable","value":5,"healAmount":4}]"#
                .to_vec(),
        );
        set.insert(
            "world-config.json",
            br#"{"version":1,"starterKit":{"items":[]}}"#.to_vec(),
        );
        let (content, _) = Content::from_files(&set).unwrap();
        assert!(content.item("shrimp").is_none(), "it has food of its own");
        assert!(content.starter_kit().is_empty(), "an empty kit is a choice");
    }
}
