//! The supplies store: every item the recipes and gathering nodes need that nothing placed in the
//! world gives (no shop sells it, no node yields it, no placed mob drops it, no recipe that can be
//! made there makes it) is sold in the villages' and towns' supplies store, so every recipe of the
//! content can be made in the generated world (the reference files sell no knife, needle or hide).

use std::collections::BTreeSet;

use wayfarer_content::{Content, RecipeKind, StockLine, Store, ToolRequirement};

use crate::making::{HAMMER, TANNER};
use crate::shops::COINS;

/// The id of the generated supplies store.
pub const SUPPLIES_STORE: &str = "wayfarer_supplies";

/// What a player can come by in the world as placed, given `extra` for sale too.
pub(crate) fn obtainable(content: &Content, extra: &BTreeSet<String>) -> BTreeSet<String> {
    let mut have: BTreeSet<String> = extra.clone();
    let mut stations: BTreeSet<&str> = BTreeSet::new();
    let mut nodes: Vec<&str> = Vec::new();
    let mut mobs: Vec<&str> = Vec::new();
    for area in content.areas.values() {
        stations.extend(area.stations.iter().map(|s| s.station.as_str()));
        for npc in &area.npcs {
            if let Some(store) = npc.store_id.as_ref().and_then(|s| content.stores.get(s)) {
                have.extend(store.stock.iter().map(|l| l.item_id.clone()));
            }
            if content
                .npcs
                .get(&npc.npc_id)
                .is_some_and(|n| n.tans_hides())
            {
                stations.insert(TANNER);
            }
        }
        nodes.extend(area.resources.iter().map(|r| r.resource_id.as_str()));
        if let Some(f) = area.fishing.as_ref().filter(|f| f.enabled) {
            nodes.extend(f.spot_types.iter().map(String::as_str));
        }
        mobs.extend(area.mob_spawns.iter().map(|m| m.mob_id.as_str()));
    }
    if let Some(world) = &content.generated {
        nodes.extend(world.resources.iter().map(|r| r.resource_id.as_str()));
        mobs.extend(world.mob_spawns.iter().map(|m| m.mob_id.as_str()));
    }
    for npc in mobs.iter().filter_map(|m| content.npcs.get(*m)) {
        have.extend(npc.default_drop.iter().map(|d| d.item_id.clone()));
        have.extend(npc.drops.iter().map(|d| d.item_id.clone()));
    }
    loop {
        let before = have.len();
        for node in nodes.iter().filter_map(|n| content.gathering.get(*n)) {
            let tool = match &node.tool {
                ToolRequirement::None => true,
                ToolRequirement::Item(id) => have.contains(id),
                ToolRequirement::AnyForSkill(skill) => content
                    .tools_for(*skill)
                    .iter()
                    .any(|t| have.contains(&t.id)),
            };
            if tool && node.consumes.as_ref().is_none_or(|b| have.contains(b)) {
                have.extend(node.yields.iter().map(|y| y.item_id.clone()));
            }
        }
        for recipe in &content.recipes {
            let place = match recipe.kind {
                RecipeKind::Tanning => stations.contains(TANNER),
                // A fire does where there is no range.
                RecipeKind::Cooking => true,
                _ => recipe
                    .station
                    .as_deref()
                    .is_none_or(|s| stations.contains(s)),
            };
            let hammer = recipe.kind != RecipeKind::Smithing || have.contains(HAMMER);
            let coins = recipe.coin_cost == 0 || have.contains(COINS);
            let items = recipe.inputs.iter().all(|i| have.contains(&i.item_id))
                && recipe.tools.iter().all(|t| have.contains(t))
                && recipe.consumables.iter().all(|c| have.contains(&c.item_id));
            if place && hammer && coins && items {
                have.extend(recipe.output.iter().map(|o| o.item_id.clone()));
            }
        }
        if have.len() == before {
            return have;
        }
    }
}

/// Everything the recipes and the gathering nodes take.
pub(crate) fn needed(content: &Content) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for recipe in &content.recipes {
        out.extend(recipe.inputs.iter().map(|i| i.item_id.clone()));
        out.extend(recipe.tools.iter().cloned());
        out.extend(recipe.consumables.iter().map(|c| c.item_id.clone()));
        if recipe.kind == RecipeKind::Smithing {
            out.insert(HAMMER.to_owned());
        }
    }
    for node in content.gathering.values() {
        match &node.tool {
            ToolRequirement::Item(id) => {
                out.insert(id.clone());
            }
            ToolRequirement::AnyForSkill(skill) => {
                // The plainest tool of the skill (the list is best first).
                if let Some(tool) = content.tools_for(*skill).last() {
                    out.insert(tool.id.clone());
                }
            }
            ToolRequirement::None => {}
        }
        out.extend(node.consumes.iter().cloned());
    }
    out.retain(|id| content.items.contains_key(id));
    out
}

/// Adds the supplies store, stocked with what the world does not otherwise give.
pub(crate) fn stock(content: &mut Content) {
    let needed = needed(content);
    let made: BTreeSet<&str> = content
        .recipes
        .iter()
        .filter_map(|r| r.output.as_ref().map(|o| o.item_id.as_str()))
        .collect();
    let mut extra: BTreeSet<String> = BTreeSet::new();
    // Raw materials and tools first: an item a recipe makes is stocked only when stocking
    // everything else still leaves it out of reach (its station or inputs are missing).
    loop {
        let have = obtainable(content, &extra);
        let missing: Vec<&String> = needed
            .iter()
            .filter(|id| !have.contains(*id) && id.as_str() != COINS)
            .collect();
        if missing.is_empty() {
            break;
        }
        let raw: Vec<&String> = missing
            .iter()
            .copied()
            .filter(|id| !made.contains(id.as_str()))
            .collect();
        let add = if raw.is_empty() { missing } else { raw };
        extra.extend(add.into_iter().cloned());
    }
    let missing: Vec<String> = extra.into_iter().collect();
    let stock = missing
        .iter()
        .map(|id| StockLine {
            item_id: id.clone(),
            price: content.items.get(id).map_or(1, |i| i.value.max(1)),
            stock: None,
            restock_ticks: 0,
            category: Some("supplies".to_owned()),
        })
        .collect();
    content.stores.insert(
        SUPPLIES_STORE.to_owned(),
        Store {
            id: SUPPLIES_STORE.to_owned(),
            name: "Supplies".to_owned(),
            description: "Tools and materials the land does not give.".to_owned(),
            buyback: false,
            buyback_rate: 0.0,
            stock,
        },
    );
}
