//! Quick actions (`GET /api/agents/<id>/quick-actions`): the commands that make sense for the
//! agent's character here and now, worked out from what the world has around it (resources, NPCs,
//! ground items within [`QUICK_ACTION_RADIUS_TILES`]) and what it holds. Each `command` is an
//! action of the agent's action table (named as in specification section 1, with the ids it needs)
//! that the owner sends as an `agent:message`; the agent runs it even while paused.

use std::collections::HashSet;

use wayfarer_content::{Content, RecipeKind};
use wayfarer_protocol::agent::QuickAction;
use wayfarer_protocol::ws::EntityKind;

use crate::world_thread::Surroundings;

/// How far around the character quick actions look.
pub const QUICK_ACTION_RADIUS_TILES: i32 = 15;
/// Most quick actions offered (the nearest first).
pub const MAX_QUICK_ACTIONS: usize = 16;

/// The quick actions for a character in `around`; `None` (offline) gives only what needs no world.
pub fn quick_actions(content: &Content, around: Option<&Surroundings>) -> Vec<QuickAction> {
    let mut actions = Vec::new();
    let mut seen = HashSet::new();
    let mut offer = |action: &str, args: &[&str], label: String, kind: &str| {
        // One entry per action and kind of target: the nearest tree, not every tree.
        if actions.len() < MAX_QUICK_ACTIONS && seen.insert(format!("{action}/{kind}")) {
            let id = std::iter::once(action)
                .chain(args.iter().copied())
                .collect::<Vec<_>>()
                .join(":");
            let command = std::iter::once(action)
                .chain(args.iter().copied())
                .collect::<Vec<_>>()
                .join(" ");
            actions.push(QuickAction { id, label, command });
        }
    };
    let Some(around) = around else {
        offer("idle", &[], "Stay idle".into(), "");
        return actions;
    };
    let item_name = |id: &str| {
        content
            .items
            .get(id)
            .map_or_else(|| id.to_owned(), |i| i.name.clone())
    };
    let input_of = |kind: RecipeKind, item: &str| {
        content
            .recipes
            .iter()
            .any(|r| r.kind == kind && r.inputs.iter().any(|i| i.item_id.as_str() == item))
    };
    let raw_food = around
        .inventory
        .iter()
        .find(|s| input_of(RecipeKind::Cooking, &s.item_id));

    // Inventory first: eating when hurt comes before anything else.
    if around.health < around.max_health {
        if let Some(food) = around.inventory.iter().find(|s| {
            content
                .items
                .get(s.item_id.as_str())
                .is_some_and(|i| i.heal_amount.is_some())
        }) {
            let slot = food.slot.to_string();
            offer(
                "useItem",
                &[&slot],
                format!("Eat {}", item_name(&food.item_id)),
                "eat",
            );
        }
    }
    for (entity, distance) in &around.nearby {
        let name = entity.name.clone().unwrap_or_else(|| entity.id.clone());
        let type_id = entity.type_id.as_deref().unwrap_or_default();
        let away = if *distance == 1 {
            "1 tile".to_owned()
        } else {
            format!("{distance} tiles")
        };
        match entity.kind {
            EntityKind::Resource if entity.depleted != Some(true) => {
                match entity.resource_type.as_deref() {
                    Some("tree") => offer(
                        "chopTree",
                        &[&entity.id],
                        format!("Chop {name} ({away})"),
                        type_id,
                    ),
                    Some("fishing_spot") => offer(
                        "catchFish",
                        &[&entity.id],
                        format!("Fish at {name} ({away})"),
                        type_id,
                    ),
                    Some("ore" | "rock") => offer(
                        "mineRock",
                        &[&entity.id],
                        format!("Mine {name} ({away})"),
                        type_id,
                    ),
                    Some("fire" | "range") => {
                        if let Some(food) = raw_food {
                            let slot = food.slot.to_string();
                            offer(
                                "cookFood",
                                &[&slot, &entity.id],
                                format!("Cook {} on {name} ({away})", item_name(&food.item_id)),
                                "cook",
                            );
                        }
                    }
                    Some("bank") => offer(
                        "bankDeposit",
                        &["all"],
                        format!("Bank everything at {name} ({away})"),
                        "bank",
                    ),
                    _ => {}
                }
            }
            EntityKind::Npc => match content.npcs.get(type_id) {
                Some(npc) if npc.is_mob() => offer(
                    "attackEntity",
                    &[&entity.id],
                    format!("Attack {name} ({away})"),
                    type_id,
                ),
                Some(npc) if npc.services.iter().any(|s| s == "bank") => offer(
                    "bankDeposit",
                    &["all"],
                    format!("Bank everything with {name} ({away})"),
                    "bank",
                ),
                Some(_) => offer(
                    "talkToNpc",
                    &[&entity.id],
                    format!("Talk to {name} ({away})"),
                    type_id,
                ),
                None => {}
            },
            EntityKind::GroundItem => {
                let item = entity.item_id.as_deref().unwrap_or_default();
                offer(
                    "pickupItem",
                    &[&entity.id],
                    format!("Pick up {} ({away})", item_name(item)),
                    item,
                )
            }
            _ => {}
        }
    }
    if let Some(logs) = around
        .inventory
        .iter()
        .find(|s| input_of(RecipeKind::Firemaking, &s.item_id))
    {
        let slot = logs.slot.to_string();
        offer(
            "lightFire",
            &[&slot],
            format!("Light a fire with {}", item_name(&logs.item_id)),
            "fire",
        );
    }
    offer("explore", &[], "Explore the surroundings".into(), "");
    offer("stopMovement", &[], "Stop moving".into(), "");
    offer("idle", &[], "Stay idle".into(), "");
    actions
}

#[cfg(test)]
mod tests {
    use wayfarer_protocol::ws::{Entity, EntityKind, TilePos};
    use wayfarer_store::StoredSlot;

    use super::*;

    fn entity(id: &str, kind: EntityKind, type_id: &str, resource_type: Option<&str>) -> Entity {
        Entity {
            id: id.into(),
            kind,
            x: 0,
            z: 0,
            name: Some(type_id.into()),
            health: None,
            max_health: None,
            item_id: None,
            quantity: None,
            resource_type: resource_type.map(str::to_owned),
            depleted: None,
            type_id: Some(type_id.into()),
            worn: None,
            open: None,
            side: None,
            quest: None,
        }
    }

    fn slot(slot: u8, item: &str) -> StoredSlot {
        StoredSlot {
            slot,
            item_id: item.into(),
            quantity: 1,
        }
    }

    fn commands(actions: &[QuickAction]) -> Vec<&str> {
        actions.iter().map(|a| a.command.as_str()).collect()
    }

    #[test]
    fn actions_follow_the_surroundings_nearest_first_one_per_kind_of_target() {
        let content = wayfarer_content::load_bundled();
        let around = Surroundings {
            tile: TilePos { x: 0, z: 0 },
            health: 5,
            max_health: 10,
            inventory: vec![slot(0, "shrimp"), slot(3, "raw_shrimp"), slot(4, "logs")],
            nearby: vec![
                (
                    entity("res-1", EntityKind::Resource, "tree_normal", Some("tree")),
                    2,
                ),
                (
                    entity("res-2", EntityKind::Resource, "tree_normal", Some("tree")),
                    3,
                ),
                (
                    entity("res-3", EntityKind::Resource, "fire", Some("fire")),
                    4,
                ),
                (entity("npc-1", EntityKind::Npc, "goblin", None), 5),
                (entity("npc-2", EntityKind::Npc, "banker_elsie", None), 6),
            ],
        };
        let actions = quick_actions(&content, Some(&around));
        let commands = commands(&actions);
        assert_eq!(
            commands,
            [
                "useItem 0",
                "chopTree res-1",
                "cookFood 3 res-3",
                "attackEntity npc-1",
                "bankDeposit all",
                "lightFire 4",
                "explore",
                "stopMovement",
                "idle"
            ]
        );
        assert_eq!(actions[1].id, "chopTree:res-1");
        assert_eq!(actions[1].label, "Chop tree_normal (2 tiles)");
    }

    #[test]
    fn a_healthy_character_is_not_offered_food_and_an_offline_one_only_idles() {
        let content = wayfarer_content::load_bundled();
        let around = Surroundings {
            tile: TilePos { x: 0, z: 0 },
            health: 10,
            max_health: 10,
            inventory: vec![slot(0, "shrimp")],
            nearby: vec![],
        };
        let actions = quick_actions(&content, Some(&around));
        assert_eq!(commands(&actions), ["explore", "stopMovement", "idle"]);
        assert_eq!(commands(&quick_actions(&content, None)), ["idle"]);
    }
}
