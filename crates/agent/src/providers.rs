//! The providers of specification section 1 and a few more: pure functions of the model (and the
//! static knowledge), with no side effects, read by the planner's callers, the model's prompt and
//! the status.

use serde_json::{json, Value};
use wayfarer_protocol::ws::EntityKind;

use crate::actions::{Ctx, ACTIONS};

/// Entities listed per kind by nearbyEntities.
pub const NEARBY_PER_KIND: usize = 15;

/// The names of every provider, in the order [`all`] lists them.
pub const PROVIDERS: &[&str] = &[
    "gameState",
    "inventory",
    "nearbyEntities",
    "skills",
    "equipment",
    "availableActions",
    "bank",
    "shop",
    "trade",
    "dialogue",
    "quests",
    "prayer",
    "chat",
];

/// gameStateProvider: health, stamina, position, combat status.
pub fn game_state(ctx: Ctx<'_>) -> Value {
    let m = ctx.model;
    let me = &m.me;
    let here = me.tile.into();
    json!({
        "name": me.name,
        "health": me.health,
        "maxHealth": me.max_health,
        "stamina": me.stamina,
        "position": {"x": me.tile.x, "z": me.tile.z},
        "area": ctx.knowledge.area_at(here).map(|a| a.name.clone()),
        "combatLevel": me.combat_level,
        "inCombat": m.in_combat(),
        "lastAttacker": if m.in_combat() { m.last_attacker.clone() } else { None },
        "tick": m.tick,
    })
}

/// inventoryProvider: items, coins, free slots.
pub fn inventory(ctx: Ctx<'_>) -> Value {
    let m = ctx.model;
    json!({
        "items": m.me.inventory.iter().map(|s| json!({"slot": s.slot, "itemId": s.item_id, "name": s.name, "quantity": s.quantity})).collect::<Vec<_>>(),
        "coins": m.me.coins,
        "freeSlots": m.free_slots(),
    })
}

/// nearbyEntitiesProvider: players, NPCs, resources and ground items with their distance.
pub fn nearby_entities(ctx: Ctx<'_>) -> Value {
    let m = ctx.model;
    let list = |kind| {
        m.nearest_of(kind)
            .into_iter()
            .take(NEARBY_PER_KIND)
            .map(|e| {
                let mut v = json!({"id": e.id(), "name": e.name(), "x": e.x, "z": e.z, "distance": m.distance_to(e.x, e.z)});
                if let Some(t) = e.type_id() { v["typeId"] = json!(t); }
                if let Some(h) = e.health() { v["health"] = json!(h); v["maxHealth"] = json!(e.max_health()); }
                if let Some(r) = e.resource_type() { v["resourceType"] = json!(r); }
                if let Some(d) = e.depleted { v["depleted"] = json!(d); }
                if let Some(i) = e.item_id() { v["itemId"] = json!(i); v["quantity"] = json!(e.quantity()); }
                v
            })
            .collect::<Vec<_>>()
    };
    json!({
        "players": list(EntityKind::Player),
        "npcs": list(EntityKind::Npc),
        "resources": list(EntityKind::Resource),
        "groundItems": list(EntityKind::GroundItem),
    })
}

/// skillsProvider: levels and XP.
pub fn skills(ctx: Ctx<'_>) -> Value {
    let skills: serde_json::Map<String, Value> = ctx
        .model
        .me
        .skills
        .iter()
        .map(|(skill, s)| (skill.to_string(), json!({"level": s.level, "xp": s.xp})))
        .collect();
    json!({"skills": skills, "combatLevel": ctx.model.me.combat_level})
}

/// equipmentProvider: what is worn, by slot.
pub fn equipment(ctx: Ctx<'_>) -> Value {
    json!({"equipment": ctx.model.me.equipment})
}

/// availableActionsProvider: the actions possible here and now, with the ids they need.
pub fn available_actions(ctx: Ctx<'_>) -> Value {
    let actions: Vec<Value> = ACTIONS
        .iter()
        .filter_map(|a| {
            (a.available)(ctx)
                .map(|hint| json!({"name": a.name, "category": a.category, "with": hint}))
        })
        .collect();
    json!({"actions": actions})
}

/// The names of the actions possible now (the tools offered to a model).
pub fn available_names(ctx: Ctx<'_>) -> Vec<&'static str> {
    ACTIONS
        .iter()
        .filter(|a| (a.available)(ctx).is_some())
        .map(|a| a.name)
        .collect()
}

/// The bank as last seen.
pub fn bank(ctx: Ctx<'_>) -> Value {
    json!({"items": ctx.model.bank, "nearestBank": crate::actions::known_bank(ctx).map(|t| json!({"x": t.x, "z": t.z}))})
}

/// The open shop.
pub fn shop(ctx: Ctx<'_>) -> Value {
    json!({"shop": ctx.model.shop})
}

/// The trade under way.
pub fn trade(ctx: Ctx<'_>) -> Value {
    json!({"trade": ctx.model.trade.as_ref().map(|t| json!({"tradeId": t.trade_id, "partner": t.partner_name, "stage": t.stage, "mine": t.mine, "theirs": t.theirs}))})
}

/// The open dialogue.
pub fn dialogue(ctx: Ctx<'_>) -> Value {
    json!({"dialogue": ctx.model.dialogue})
}

/// The quest log.
pub fn quests(ctx: Ctx<'_>) -> Value {
    json!({"quests": ctx.model.quests, "questPoints": ctx.model.quest_points})
}

/// Prayer points and active prayers.
pub fn prayer(ctx: Ctx<'_>) -> Value {
    json!({"prayer": ctx.model.prayer})
}

/// The latest chat lines.
pub fn chat(ctx: Ctx<'_>) -> Value {
    json!({"lines": ctx.model.chat.iter().map(|c| json!({"channel": c.channel, "from": c.from_name, "text": c.text})).collect::<Vec<_>>()})
}

/// Every provider by name.
pub fn all(ctx: Ctx<'_>) -> Value {
    json!({
        "gameState": game_state(ctx),
        "inventory": inventory(ctx),
        "nearbyEntities": nearby_entities(ctx),
        "skills": skills(ctx),
        "equipment": equipment(ctx),
        "availableActions": available_actions(ctx),
        "bank": bank(ctx),
        "shop": shop(ctx),
        "trade": trade(ctx),
        "dialogue": dialogue(ctx),
        "quests": quests(ctx),
        "prayer": prayer(ctx),
        "chat": chat(ctx),
    })
}
