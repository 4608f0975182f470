//! The one action table: name, description, JSON-schema parameters, the check against the model,
//! and the messages each action sends (as a [`Procedure`]). The planner, the model's tool
//! definitions, the availableActions provider and docs/agents.md all read this table.

use std::collections::VecDeque;

use serde_json::{json, Value};
use wayfarer_content::{RecipeKind, ToolRequirement};
use wayfarer_protocol::duel::{DuelChallenge, DuelIdOnly, DuelRespond};
use wayfarer_protocol::trade::{TradeAddItem, TradeIdOnly, TradeRequest, TradeRequestRespond};
use wayfarer_protocol::ws::{
    ActionRequest, BankDepositRequest, BankWithdrawRequest, ChatChannel, ChatRequest,
    ClientMessage, DepositSlot, DialogueCloseRequest, DialogueRespond, EntityKind, PrayerToggle,
    Quantity, ShopBuyRequest, ShopSellRequest, TilePos, UseRequest, MAX_CHAT_CHARS, MAX_MOVE_TILES,
};
use wayfarer_protocol::Skill;

use crate::goals::Goal;
use crate::knowledge::Knowledge;
use crate::making;
use crate::model::{chebyshev, Model, Seen};
use crate::outcome::Outcome;
use crate::procedure::{DropRun, DropWhat, Procedure, Until, Walk};

/// Tiles within which a bank or shopkeeper answers (protocol: 2, Chebyshev).
pub const SERVICE_REACH_TILES: u32 = 2;
/// Ticks a gathering action may go without XP before it counts as failed.
pub const GATHER_STALL_TICKS: u64 = 80;
/// Ticks an attack may go without a hit before it counts as failed.
pub const FIGHT_STALL_TICKS: u64 = 40;
/// Ticks to wait for a processing action (fire, cook, smelt, smith) to show its effect.
pub const PROCESS_TICKS: u64 = 40;
/// Ticks to wait for a fire: the server retries a failed light every 4 ticks until one takes,
/// and normal logs light 65 times in 256 at level 1, so 60 attempts all fail about once in 10^8
/// (a shorter wait reported failure while the server was still lighting).
pub const LIGHT_FIRE_TICKS: u64 = 240;
/// The most makes one `make` asks for (protocol: 1–10,000, or "all").
pub const MAX_MAKE_QUANTITY: i64 = 10_000;
/// Ticks `idle` waits by default.
pub const IDLE_TICKS: u64 = 5;

/// What an action needs to check itself and plan: the model and the static knowledge.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub model: &'a Model,
    pub knowledge: &'a Knowledge,
}

/// What an accepted request turns into.
pub enum Planned {
    /// Messages to the server, run by the runtime.
    Run(Procedure),
    /// A new goal for the agent (setGoal).
    Goal(Goal),
    /// Nothing to send: wait this many ticks (idle).
    Wait(u64),
}

/// A row of the action table.
pub struct ActionDef {
    /// The name, exactly as specification section 1 spells it (also the tool name).
    pub name: &'static str,
    /// Movement, combat, skill, inventory, social, banking, goal, shop, trade, npc, prayer.
    pub category: &'static str,
    pub description: &'static str,
    /// JSON schema of the parameters.
    pub params: fn() -> Value,
    /// Checks the request against the model and plans it.
    pub plan: fn(Ctx<'_>, &Value) -> Result<Planned, Outcome>,
    /// Whether it is possible here and now, with the ids it would need (`None`: not now).
    pub available: fn(Ctx<'_>) -> Option<Value>,
}

/// The table.
pub static ACTIONS: &[ActionDef] = &[
    // Movement
    ActionDef {
        name: "moveTo",
        category: "movement",
        description: "Walk (or run) to a tile at most 200 tiles away.",
        params: || schema(&[("x", "integer", true), ("z", "integer", true), ("run", "boolean", false)]),
        plan: plan_move_to,
        available: |_| Some(json!({"maxTiles": MAX_MOVE_TILES})),
    },
    ActionDef {
        name: "followEntity",
        category: "movement",
        description: "Follow another player, staying one tile behind.",
        params: || schema(&[("targetId", "string", true)]),
        plan: |ctx, p| {
            let e = entity(ctx, p, &[EntityKind::Player])?;
            Ok(Planned::Run(Procedure::quiet(
                act(ActionRequest::new("follow").with_target(e.id())),
                format!("following {}", label(e)),
            )))
        },
        available: |ctx| ids_of(ctx, EntityKind::Player, |_| true),
    },
    ActionDef {
        name: "stopMovement",
        category: "movement",
        description: "Stop walking and whatever the character is doing.",
        params: || schema(&[]),
        plan: |_, _| {
            Ok(Planned::Run(Procedure::quiet(
                act(ActionRequest::new("stop")),
                "stopped",
            )))
        },
        available: |_| Some(json!({})),
    },
    ActionDef {
        name: "explore",
        category: "movement",
        description: "Walk to an area (by id) or to the nearest unvisited-looking part of this one.",
        params: || schema(&[("areaId", "string", false)]),
        plan: plan_explore,
        available: |ctx| {
            Some(json!({"areaIds": ctx.knowledge.areas.iter().map(|a| a.id.clone()).collect::<Vec<_>>()}))
        },
    },
    ActionDef {
        name: "approachEntity",
        category: "movement",
        description: "Walk next to an entity in view (player, NPC, resource or ground item).",
        params: || schema(&[("targetId", "string", true)]),
        plan: |ctx, p| {
            let e = entity(ctx, p, &[])?;
            let target = TilePos { x: e.x, z: e.z };
            Ok(Planned::Run(Procedure::Walk(Walk::new(target, 1, false))))
        },
        available: |ctx| {
            // The nearest, so the list (and a model's prompt) does not follow the map's order.
            let ids: Vec<&str> = ctx.model.nearest().into_iter().map(|e| e.id()).take(20).collect();
            (!ids.is_empty()).then(|| json!({"targetIds": ids}))
        },
    },
    ActionDef {
        name: "navigateTo",
        category: "movement",
        description: "Go to any tile, however far (within: stop that many tiles short): routes longer than 200 tiles are walked in legs of at most 200.",
        params: || schema(&[("x", "integer", true), ("z", "integer", true), ("run", "boolean", false), ("within", "integer", false)]),
        plan: |_, p| {
            let target = tile_param(p)?;
            let run = p.get("run").and_then(Value::as_bool).unwrap_or(false);
            // A tree or a booth blocks its own tile: a walk to it ends beside it.
            let within = p.get("within").and_then(Value::as_u64).map_or(0, |w| w.min(32) as u32);
            Ok(Planned::Run(Procedure::Walk(Walk::new(target, within, run))))
        },
        available: |_| Some(json!({})),
    },
    // Combat
    ActionDef {
        name: "attackEntity",
        category: "combat",
        description: "Attack an NPC (or a player in a PvP area) until it dies or the fight stalls.",
        params: || schema(&[("targetId", "string", true)]),
        plan: |ctx, p| {
            let e = entity(ctx, p, &[EntityKind::Npc, EntityKind::Player])?;
            if e.health() == Some(0) {
                return Err(Outcome::refused("invalid_target", "it is already dead"));
            }
            if e.kind() == EntityKind::Npc && e.type_id().is_some_and(|t| ctx.knowledge.is_service_npc(t)) {
                return Err(Outcome::refused("invalid_target", format!("{} is not a combat target", label(e))));
            }
            let id = e.shared_id().clone();
            let watch = id.clone();
            // A duel ends with nobody dead: the fight is over when the duel is.
            let duel = ctx.model.duel_fight().is_some_and(|d| d.opponent_id == e.id());
            let until = Until::when(
                move |m: &Model| (duel && m.duel.is_none()) || m.entities.get(&watch).is_none_or(|e| e.health() == Some(0)),
                FIGHT_STALL_TICKS,
                format!("defeated {}", label(e)),
            )
            .with_progress(|m| m.last_hit_tick.unwrap_or(0));
            Ok(Planned::Run(Procedure::send(
                act(ActionRequest::new("attack").with_target(&*id)),
                until,
            )))
        },
        available: |ctx| fighters(ctx),
    },
    ActionDef {
        name: "changeCombatStyle",
        category: "combat",
        description: "Choose the combat style: accurate, aggressive, defensive, controlled, rapid or longrange.",
        params: || {
            json!({"type": "object", "properties": {"style": {"type": "string", "enum": ["accurate", "aggressive", "defensive", "controlled", "rapid", "longrange"]}}, "required": ["style"]})
        },
        plan: |_, p| {
            let style = str_param(p, "style")?;
            if !["accurate", "aggressive", "defensive", "controlled", "rapid", "longrange"]
                .contains(&style)
            {
                return Err(Outcome::refused("invalid_params", format!("unknown style {style}")));
            }
            Ok(Planned::Run(Procedure::quiet(
                act(ActionRequest::new("combat_style").with_style(style)),
                format!("style {style}"),
            )))
        },
        available: |_| Some(json!({})),
    },
    ActionDef {
        name: "flee",
        category: "combat",
        description: "Run away from whoever is attacking.",
        params: || schema(&[]),
        plan: |ctx, _| {
            if !ctx.model.in_combat() {
                return Err(Outcome::refused("cannot_do", "nobody is attacking"));
            }
            Ok(Planned::Run(Procedure::quiet(act(ActionRequest::new("flee")), "fled")))
        },
        available: |ctx| ctx.model.in_combat().then(|| json!({})),
    },
    // Skills
    ActionDef {
        name: "chopTree",
        category: "skill",
        description: "Chop a tree (the nearest one the Woodcutting level allows when no targetId) until it falls or the inventory is full.",
        params: || schema(&[("targetId", "string", false)]),
        plan: |ctx, p| plan_gather(ctx, p, Skill::Woodcutting, "tree"),
        available: |ctx| gatherable(ctx, Skill::Woodcutting, "tree"),
    },
    ActionDef {
        name: "catchFish",
        category: "skill",
        description: "Fish at a fishing spot (the nearest usable one when no targetId).",
        params: || schema(&[("targetId", "string", false)]),
        plan: |ctx, p| plan_gather(ctx, p, Skill::Fishing, "fishing"),
        available: |ctx| gatherable(ctx, Skill::Fishing, "fishing"),
    },
    ActionDef {
        name: "mineRock",
        category: "skill",
        description: "Mine a rock (the nearest usable one when no targetId).",
        params: || schema(&[("targetId", "string", false)]),
        plan: |ctx, p| plan_gather(ctx, p, Skill::Mining, "ore"),
        available: |ctx| gatherable(ctx, Skill::Mining, "ore"),
    },
    ActionDef {
        name: "lightFire",
        category: "skill",
        description: "Light logs (slot or itemId, or the first logs held) with a tinderbox.",
        params: || schema(&[("slot", "integer", false), ("itemId", "string", false)]),
        plan: |ctx, p| {
            if ctx.model.slot_of("tinderbox").is_none() {
                return Err(Outcome::refused("cannot_do", "no tinderbox"));
            }
            plan_process(ctx, p, RecipeKind::Firemaking, |id| id == "logs" || id.ends_with("_logs"), Quantity::Count(1))
        },
        available: |ctx| {
            // Not on a fire's tile: the server lights no second fire there.
            (ctx.model.slot_of("tinderbox").is_some() && logs_slot(ctx.model).is_some() && !making::fire_underfoot(ctx.model))
                .then(|| json!({"slot": logs_slot(ctx.model)}))
        },
    },
    ActionDef {
        name: "cookFood",
        category: "skill",
        description: "Cook raw food (slot or itemId, or the first raw food held) on a fire or range (targetId, or the nearest), all of it.",
        params: || schema(&[("slot", "integer", false), ("itemId", "string", false), ("targetId", "string", false)]),
        plan: |ctx, p| plan_process(ctx, p, RecipeKind::Cooking, |id| id.starts_with("raw_"), Quantity::All),
        available: |ctx| {
            let fire = nearest_resource(ctx.model, &["fire", "range"])?;
            let raw = ctx.model.me.inventory.iter().find(|s| s.item_id.starts_with("raw_"))?;
            plan_process(ctx, &json!({}), RecipeKind::Cooking, |id| id.starts_with("raw_"), Quantity::All).ok()?;
            Some(json!({"slot": raw.slot, "targetId": fire.id()}))
        },
    },
    ActionDef {
        name: "smeltOre",
        category: "skill",
        description: "Smelt ore (slot or itemId, or the first ore held) at a furnace (targetId, or the nearest) into the best bar it can, until the ore runs out.",
        params: || schema(&[("slot", "integer", false), ("itemId", "string", false), ("targetId", "string", false)]),
        plan: |ctx, p| plan_process(ctx, p, RecipeKind::Smelting, |id| id.ends_with("_ore"), Quantity::All),
        // Offered when a bar can be made of the ore held (copper alone makes none).
        available: |ctx| station_use(ctx, "furnace", |id| id.ends_with("_ore")).filter(|_| plan_process(ctx, &json!({}), RecipeKind::Smelting, |id| id.ends_with("_ore"), Quantity::All).is_ok()),
    },
    ActionDef {
        name: "smithBar",
        category: "skill",
        description: "Smith bars (slot or itemId, or the first bars held) at an anvil (targetId, or the nearest) into the highest-level thing the Smithing level allows, until the bars run out.",
        params: || schema(&[("slot", "integer", false), ("itemId", "string", false), ("targetId", "string", false)]),
        plan: |ctx, p| plan_process(ctx, p, RecipeKind::Smithing, |id| id.ends_with("_bar"), Quantity::All),
        available: |ctx| station_use(ctx, "anvil", |id| id.ends_with("_bar")).filter(|_| plan_process(ctx, &json!({}), RecipeKind::Smithing, |id| id.ends_with("_bar"), Quantity::All).is_ok()),
    },
    ActionDef {
        name: "makeItem",
        category: "skill",
        description: "Make a recipe (recipeId, from those offered) quantity times (1 to 10000, or \"all\" until the inputs run out; default 1), at a station (targetId, or the nearest) where it needs one.",
        params: || {
            json!({"type": "object", "properties": {
                "recipeId": {"type": "string"},
                "quantity": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": MAX_MAKE_QUANTITY}, {"const": "all"}]},
                "targetId": {"type": "string"}
            }, "required": ["recipeId"]})
        },
        plan: plan_make_item,
        available: make_options,
    },
    // Inventory
    ActionDef {
        name: "equipItem",
        category: "inventory",
        description: "Wear or wield an item (slot, or itemId).",
        params: || schema(&[("slot", "integer", false), ("itemId", "string", false)]),
        plan: |ctx, p| {
            let slot = item_slot(ctx, p)?;
            let item = ctx.model.slot(slot).map(|s| s.item_id.clone()).unwrap_or_default();
            if ctx.knowledge.items.get(&item).is_some_and(|i| i.equip_slot.is_none()) {
                return Err(Outcome::refused("cannot_do", format!("{item} cannot be worn")));
            }
            let watch = item.clone();
            Ok(Planned::Run(Procedure::send(
                act(ActionRequest::new("equip").with_slot(slot)),
                Until::when(
                    move |m: &Model| m.me.equipment.values().any(|e| e.item_id == watch),
                    GRACE_WAIT,
                    format!("wearing {item}"),
                ),
            )))
        },
        available: |ctx| {
            let slots: Vec<u8> = ctx
                .model
                .me
                .inventory
                .iter()
                .filter(|s| ctx.knowledge.items.get(&s.item_id).is_some_and(|i| i.equip_slot.is_some()))
                .map(|s| s.slot)
                .collect();
            (!slots.is_empty()).then(|| json!({"slots": slots}))
        },
    },
    ActionDef {
        name: "unequipItem",
        category: "inventory",
        description: "Take off what is worn in an equipment slot (weapon, shield, helmet, …).",
        params: || schema(&[("slot", "string", true)]),
        plan: |ctx, p| {
            let slot = str_param(p, "slot")?;
            if !ctx.model.me.equipment.contains_key(slot) {
                return Err(Outcome::refused("invalid_slot", format!("nothing worn in {slot}")));
            }
            let watch = slot.to_owned();
            Ok(Planned::Run(Procedure::send(
                act(ActionRequest::new("unequip").with_slot(slot)),
                Until::when(move |m: &Model| !m.me.equipment.contains_key(&watch), GRACE_WAIT, "taken off"),
            )))
        },
        available: |ctx| {
            (!ctx.model.me.equipment.is_empty())
                .then(|| json!({"slots": ctx.model.me.equipment.keys().collect::<Vec<_>>()}))
        },
    },
    ActionDef {
        name: "useItem",
        category: "inventory",
        description: "Use an item: alone (eat, bury, rub), on another item (targetSlot) or on an entity (targetId).",
        params: || schema(&[("slot", "integer", true), ("targetSlot", "integer", false), ("targetId", "string", false)]),
        plan: |ctx, p| {
            let slot = item_slot(ctx, p)?;
            let mut request = UseRequest::new(slot);
            if let Some(target) = p.get("targetSlot").and_then(Value::as_u64) {
                if ctx.model.slot(target as u8).is_none() {
                    return Err(Outcome::refused("invalid_slot", format!("slot {target} is empty")));
                }
                request.target_slot = Some(target.into());
            }
            if let Some(target) = p.get("targetId").and_then(Value::as_str) {
                entity(ctx, p, &[])?;
                request.target_id = Some(target.to_owned());
            }
            // What the pair (or the item and station) makes is chosen here and made once: the
            // server only offers make:options for a use.
            if let Some(planned) = use_as_make(ctx, p, slot)? {
                return Ok(planned);
            }
            let version = ctx.model.inventory_version;
            Ok(Planned::Run(Procedure::send(
                ClientMessage::Use(request),
                Until::when(move |m: &Model| m.inventory_version > version, PROCESS_TICKS, "used"),
            )))
        },
        available: |ctx| {
            (!ctx.model.me.inventory.is_empty())
                .then(|| json!({"slots": ctx.model.me.inventory.iter().map(|s| s.slot).collect::<Vec<_>>()}))
        },
    },
    ActionDef {
        name: "eatFood",
        category: "inventory",
        description: "Eat food (slot, or the best-healing food held).",
        params: || schema(&[("slot", "integer", false)]),
        plan: |ctx, p| {
            let slot = match p.get("slot") {
                Some(_) => item_slot(ctx, p)?,
                None => food_slot(ctx).ok_or_else(|| Outcome::refused("not_available", "no food"))?,
            };
            let version = ctx.model.inventory_version;
            Ok(Planned::Run(Procedure::send(
                ClientMessage::Use(UseRequest::new(slot)),
                Until::when(move |m: &Model| m.inventory_version > version, GRACE_WAIT, "ate"),
            )))
        },
        available: |ctx| food_slot(ctx).map(|slot| json!({"slot": slot})),
    },
    ActionDef {
        name: "buryBones",
        category: "inventory",
        description: "Bury bones (slot, or the first bones held) for Prayer XP.",
        params: || schema(&[("slot", "integer", false)]),
        plan: |ctx, p| {
            let slot = slot_or(ctx, p, |id| id.contains("bones"))?;
            let before = ctx.model.xp_events.get(&Skill::Prayer).copied().unwrap_or(0);
            Ok(Planned::Run(Procedure::send(
                ClientMessage::Use(UseRequest::new(slot)),
                Until::when(
                    move |m: &Model| m.xp_events.get(&Skill::Prayer).copied().unwrap_or(0) > before,
                    GRACE_WAIT,
                    "buried",
                ),
            )))
        },
        available: |ctx| ctx.model.me.inventory.iter().find(|s| s.item_id.contains("bones")).map(|s| json!({"slot": s.slot})),
    },
    ActionDef {
        name: "dropItem",
        category: "inventory",
        description: "Drop one stack (slot), every stack of one item (itemId), or everything (all); at most 50 per command, stopping after 3 consecutive failures.",
        params: || schema(&[("slot", "integer", false), ("itemId", "string", false), ("all", "boolean", false)]),
        plan: |ctx, p| {
            let what = if p.get("all").and_then(Value::as_bool) == Some(true) {
                DropWhat::All
            } else if let Some(item) = p.get("itemId").and_then(Value::as_str) {
                if ctx.model.slot_of(item).is_none() {
                    return Err(Outcome::refused("not_available", format!("no {item} held")));
                }
                DropWhat::Item(item.to_owned())
            } else {
                DropWhat::Slot(item_slot(ctx, p)?)
            };
            if ctx.model.me.inventory.is_empty() {
                return Err(Outcome::refused("not_available", "the inventory is empty"));
            }
            Ok(Planned::Run(Procedure::Drop(DropRun::new(what))))
        },
        available: |ctx| (!ctx.model.me.inventory.is_empty()).then(|| json!({"all": true})),
    },
    ActionDef {
        name: "pickupItem",
        category: "inventory",
        description: "Pick up a ground item (targetId, or the nearest of itemId), walking there in legs within the 200-tile move limit.",
        params: || schema(&[("targetId", "string", false), ("itemId", "string", false)]),
        plan: plan_pickup,
        available: |ctx| ids_of(ctx, EntityKind::GroundItem, |_| true),
    },
    // Social
    ActionDef {
        name: "chatMessage",
        category: "social",
        description: "Say something: local (default), global, or private to a player (to).",
        params: || {
            json!({"type": "object", "properties": {"text": {"type": "string", "maxLength": MAX_CHAT_CHARS}, "channel": {"type": "string", "enum": ["local", "global", "private"]}, "to": {"type": "string"}}, "required": ["text"]})
        },
        plan: |_, p| {
            let text = str_param(p, "text")?.trim();
            if text.is_empty() || text.chars().count() > MAX_CHAT_CHARS {
                return Err(Outcome::refused("invalid_text", format!("text must be 1–{MAX_CHAT_CHARS} characters")));
            }
            let mut chat = ChatRequest { text: text.to_owned(), channel: None, to: None };
            if let Some(channel) = p.get("channel").and_then(Value::as_str) {
                let channel = serde_json::from_value(json!(channel)).map_err(|_| {
                    Outcome::refused("invalid_params", format!("no chat channel {channel}"))
                })?;
                chat.channel = Some(channel);
            }
            if let Some(to) = p.get("to").and_then(Value::as_str) {
                chat.to = Some(to.to_owned());
                chat.channel = Some(ChatChannel::Private);
            }
            Ok(Planned::Run(Procedure::quiet(ClientMessage::Chat(chat), "said")))
        },
        available: |_| Some(json!({})),
    },
    // Banking
    ActionDef {
        name: "bankDeposit",
        category: "banking",
        description: "Deposit at the nearest bank (walking there first): one item (itemId, quantity) or everything (all).",
        params: || schema(&[("itemId", "string", false), ("quantity", "integer", false), ("all", "boolean", false), ("keepTools", "boolean", false)]),
        plan: plan_deposit,
        available: |ctx| (!ctx.model.me.inventory.is_empty() && known_bank(ctx).is_some()).then(|| json!({})),
    },
    ActionDef {
        name: "bankWithdraw",
        category: "banking",
        description: "Withdraw an item from the bank (walking to the nearest bank first).",
        params: || schema(&[("itemId", "string", true), ("quantity", "integer", true)]),
        plan: |ctx, p| {
            let item = str_param(p, "itemId")?.to_owned();
            let quantity = p.get("quantity").and_then(Value::as_i64).unwrap_or(1);
            if quantity < 1 {
                return Err(Outcome::refused("invalid_params", "quantity must be at least 1"));
            }
            if ctx.model.free_slots() == 0 {
                return Err(Outcome::refused("inventory_full", "no free slot"));
            }
            if let Some(bank) = &ctx.model.bank {
                if !bank.iter().any(|b| b.item_id == item) {
                    return Err(Outcome::refused("not_found", format!("no {item} banked")));
                }
            }
            let version = ctx.model.bank_version;
            at_bank(ctx, Procedure::send(
                ClientMessage::BankWithdraw(BankWithdrawRequest { item_id: item.clone(), quantity: Quantity::Count(quantity) }),
                Until::when(move |m: &Model| m.bank_version > version, GRACE_WAIT, format!("withdrew {item}")),
            ))
        },
        available: |ctx| ctx.model.bank.as_ref().filter(|b| !b.is_empty()).map(|b| json!({"itemIds": b.iter().map(|i| i.item_id.clone()).collect::<Vec<_>>()})),
    },
    // Shops, NPCs, trade, prayer, quests
    ActionDef {
        name: "talkToNpc",
        category: "npc",
        description: "Talk to an NPC (opens its dialogue, shop or bank).",
        params: || schema(&[("targetId", "string", true)]),
        plan: |ctx, p| {
            let e = entity(ctx, p, &[EntityKind::Npc])?;
            let id = e.shared_id().clone();
            Ok(Planned::Run(Procedure::send(
                act(ActionRequest::new("interact").with_target(&*id)),
                Until::when(|m: &Model| m.dialogue.is_some() || m.shop.is_some(), PROCESS_TICKS, format!("talking to {}", label(e))),
            )))
        },
        available: |ctx| ids_of(ctx, EntityKind::Npc, |e| e.health().is_none()),
    },
    ActionDef {
        name: "respondDialogue",
        category: "npc",
        description: "Answer the open dialogue with one of its responses (index).",
        params: || schema(&[("index", "integer", true)]),
        plan: |ctx, p| {
            let Some(open) = &ctx.model.dialogue else {
                return Err(Outcome::refused("invalid_dialogue", "no dialogue is open"));
            };
            let index = p.get("index").and_then(Value::as_u64).ok_or_else(|| Outcome::refused("invalid_params", "index is required"))?;
            if !open.responses.iter().any(|r| u64::from(r.index) == index) {
                return Err(Outcome::refused("invalid_dialogue", format!("response {index} is not offered")));
            }
            let node = open.node_id.clone();
            Ok(Planned::Run(Procedure::send(
                ClientMessage::DialogueRespond(DialogueRespond { npc_id: open.npc_id.clone(), index: index as u32 }),
                Until::when(move |m: &Model| m.dialogue.as_ref().is_none_or(|d| d.node_id != node), GRACE_WAIT, "answered"),
            )))
        },
        available: |ctx| ctx.model.dialogue.as_ref().map(|d| json!({"responses": d.responses})),
    },
    ActionDef {
        name: "closeDialogue",
        category: "npc",
        description: "End the open dialogue.",
        params: || schema(&[]),
        plan: |ctx, _| {
            let open = ctx.model.dialogue.as_ref().ok_or_else(|| Outcome::refused("invalid_dialogue", "no dialogue is open"))?;
            Ok(Planned::Run(Procedure::send(
                ClientMessage::DialogueClose(DialogueCloseRequest { npc_id: Some(open.npc_id.clone()) }),
                Until::when(|m: &Model| m.dialogue.is_none(), GRACE_WAIT, "closed"),
            )))
        },
        available: |ctx| ctx.model.dialogue.as_ref().map(|_| json!({})),
    },
    ActionDef {
        name: "buyItem",
        category: "shop",
        description: "Buy from the open shop (itemId, quantity).",
        params: || schema(&[("itemId", "string", true), ("quantity", "integer", false)]),
        plan: |ctx, p| {
            let shop = ctx.model.shop.as_ref().ok_or_else(|| Outcome::refused("not_near_shop", "no shop is open"))?;
            let item = str_param(p, "itemId")?;
            let quantity = p.get("quantity").and_then(Value::as_i64).unwrap_or(1).max(1);
            let line = shop.items.iter().find(|i| i.item_id == item).ok_or_else(|| Outcome::refused("out_of_stock", format!("the shop does not sell {item}")))?;
            if (line.price as i64).saturating_mul(quantity) > ctx.model.me.coins {
                return Err(Outcome::refused("not_enough_coins", format!("{quantity} × {} costs more than {} coins", line.price, ctx.model.me.coins)));
            }
            let version = ctx.model.inventory_version;
            Ok(Planned::Run(Procedure::send(
                ClientMessage::ShopBuy(ShopBuyRequest { store_id: shop.store_id.clone(), item_id: item.to_owned(), quantity }),
                Until::when(move |m: &Model| m.inventory_version > version, GRACE_WAIT, format!("bought {quantity} {item}")),
            )))
        },
        available: |ctx| ctx.model.shop.as_ref().map(|s| json!({"storeId": s.store_id, "items": s.items.iter().map(|i| json!({"itemId": i.item_id, "price": i.price})).collect::<Vec<_>>()})),
    },
    ActionDef {
        name: "sellItem",
        category: "shop",
        description: "Sell to the open shop (slot or itemId, quantity optional).",
        params: || schema(&[("slot", "integer", false), ("itemId", "string", false), ("quantity", "integer", false)]),
        plan: |ctx, p| {
            let shop = ctx.model.shop.as_ref().ok_or_else(|| Outcome::refused("not_near_shop", "no shop is open"))?;
            let slot = item_slot(ctx, p)?;
            let sell = ShopSellRequest {
                store_id: shop.store_id.clone(),
                slot: slot.into(),
                quantity: p.get("quantity").and_then(Value::as_i64),
            };
            let coins = ctx.model.me.coins;
            Ok(Planned::Run(Procedure::send(
                ClientMessage::ShopSell(sell),
                Until::when(move |m: &Model| m.me.coins > coins, GRACE_WAIT, "sold"),
            )))
        },
        available: |ctx| ctx.model.shop.as_ref().filter(|s| s.buyback).map(|_| json!({})),
    },
    ActionDef {
        name: "requestTrade",
        category: "trade",
        description: "Ask a player within 2 tiles to trade.",
        params: || schema(&[("targetId", "string", true)]),
        plan: |ctx, p| {
            let e = entity(ctx, p, &[EntityKind::Player])?;
            if ctx.model.distance_to(e.x, e.z) > SERVICE_REACH_TILES {
                return Err(Outcome::refused("too_far", "trades start within 2 tiles"));
            }
            Ok(Planned::Run(Procedure::quiet(ClientMessage::TradeRequest(TradeRequest { target_player_id: e.id().to_owned() }), "asked")))
        },
        available: |ctx| {
            let ids: Vec<&str> = ctx.model.nearest_of(EntityKind::Player).into_iter().filter(|e| ctx.model.distance_to(e.x, e.z) <= SERVICE_REACH_TILES).map(|e| e.id()).collect();
            (!ids.is_empty() && ctx.model.trade.is_none()).then(|| json!({"targetIds": ids}))
        },
    },
    ActionDef {
        name: "respondTrade",
        category: "trade",
        description: "Answer the trade request waiting for you (accept true or false).",
        params: || schema(&[("accept", "boolean", true)]),
        plan: |ctx, p| {
            let trade = ctx.model.trade.as_ref().filter(|t| t.stage == "requested").ok_or_else(|| Outcome::refused("invalid_trade", "no trade request is waiting"))?;
            let accept = p.get("accept").and_then(Value::as_bool).unwrap_or(false);
            Ok(Planned::Run(Procedure::quiet(ClientMessage::TradeRequestRespond(TradeRequestRespond { trade_id: trade.trade_id.clone(), accept }), "answered")))
        },
        available: |ctx| ctx.model.trade.as_ref().filter(|t| t.stage == "requested").map(|t| json!({"from": t.partner_name})),
    },
    ActionDef {
        name: "offerTradeItem",
        category: "trade",
        description: "Offer an inventory slot (quantity optional) in the open trade.",
        params: || schema(&[("slot", "integer", true), ("quantity", "integer", false)]),
        plan: |ctx, p| {
            let trade = open_trade(ctx)?;
            let slot = item_slot(ctx, p)?;
            let offer = TradeAddItem {
                trade_id: trade,
                inventory_slot: slot.into(),
                quantity: p.get("quantity").and_then(Value::as_i64),
            };
            Ok(Planned::Run(Procedure::quiet(ClientMessage::TradeAddItem(offer), "offered")))
        },
        available: |ctx| open_trade(ctx).ok().map(|_| json!({})),
    },
    ActionDef {
        name: "acceptTrade",
        category: "trade",
        description: "Accept the open trade's current screen.",
        params: || schema(&[]),
        plan: |ctx, _| {
            let trade = open_trade(ctx)?;
            Ok(Planned::Run(Procedure::quiet(ClientMessage::TradeAccept(TradeIdOnly { trade_id: trade }), "accepted the screen")))
        },
        available: |ctx| open_trade(ctx).ok().map(|_| json!({})),
    },
    ActionDef {
        name: "cancelTrade",
        category: "trade",
        description: "Cancel the open trade or request.",
        params: || schema(&[]),
        plan: |ctx, _| {
            let trade = ctx.model.trade.as_ref().ok_or_else(|| Outcome::refused("invalid_trade", "no trade is open"))?;
            Ok(Planned::Run(Procedure::quiet(ClientMessage::TradeCancel(TradeIdOnly { trade_id: trade.trade_id.clone() }), "cancelled")))
        },
        available: |ctx| ctx.model.trade.as_ref().map(|_| json!({})),
    },
    ActionDef {
        name: "duel",
        category: "duel",
        description: "Duel: challenge a player within 2 tiles (step challenge, targetId), answer a challenge (step respond, accept), accept the open duel's screen (step accept) or cancel it (step cancel).",
        params: || schema(&[("step", "string", true), ("targetId", "string", false), ("accept", "boolean", false)]),
        plan: |ctx, p| {
            let open = |stages: &[&str]| {
                ctx.model.duel.as_ref().filter(|d| stages.contains(&d.stage)).map(|d| d.duel_id.clone()).ok_or_else(|| Outcome::refused("invalid_trade", "no such duel is open"))
            };
            let message = match str_param(p, "step")? {
                "challenge" => {
                    let e = entity(ctx, p, &[EntityKind::Player])?;
                    if ctx.model.distance_to(e.x, e.z) > SERVICE_REACH_TILES {
                        return Err(Outcome::refused("too_far", "duels start within 2 tiles"));
                    }
                    ClientMessage::DuelChallenge(DuelChallenge { target_player_id: e.id().to_owned() })
                }
                "respond" => ClientMessage::DuelRespond(DuelRespond {
                    duel_id: open(&["challenged"])?,
                    accept: p.get("accept").and_then(Value::as_bool).unwrap_or(false),
                }),
                "accept" => ClientMessage::DuelAccept(DuelIdOnly { duel_id: open(&["rules", "confirm"])? }),
                "cancel" => ClientMessage::DuelCancel(DuelIdOnly { duel_id: open(&["challenged", "rules", "confirm"])? }),
                other => return Err(Outcome::refused("invalid_params", format!("step must be challenge, respond, accept or cancel, not {other:?}"))),
            };
            Ok(Planned::Run(Procedure::quiet(message, "sent")))
        },
        available: |ctx| match &ctx.model.duel {
            Some(d) => Some(json!({"duelId": d.duel_id, "opponent": d.opponent_name, "opponentId": d.opponent_id, "stage": d.stage, "accepted": d.accepted})),
            None => {
                let ids: Vec<&str> = ctx.model.nearest_of(EntityKind::Player).into_iter().filter(|e| ctx.model.distance_to(e.x, e.z) <= SERVICE_REACH_TILES).map(|e| e.id()).collect();
                (!ids.is_empty() && ctx.model.trade.is_none()).then(|| json!({"targetIds": ids}))
            }
        },
    },
    ActionDef {
        name: "togglePrayer",
        category: "prayer",
        description: "Switch a prayer on or off.",
        params: || schema(&[("prayerId", "string", true), ("active", "boolean", true)]),
        plan: |_, p| {
            let prayer = str_param(p, "prayerId")?;
            let active = p.get("active").and_then(Value::as_bool).unwrap_or(true);
            Ok(Planned::Run(Procedure::quiet(ClientMessage::PrayerToggle(PrayerToggle { prayer_id: prayer.to_owned(), active }), format!("{prayer} {}", if active { "on" } else { "off" }))))
        },
        available: |ctx| ctx.model.prayer.as_ref().filter(|p| p.points > 0).map(|p| json!({"points": p.points})),
    },
    ActionDef {
        name: "listQuests",
        category: "quest",
        description: "Ask for the quest log (quest:list).",
        params: || schema(&[]),
        plan: |_, _| Ok(Planned::Run(Procedure::quiet(ClientMessage::QuestList, "asked"))),
        available: |_| Some(json!({})),
    },
    // Goals
    ActionDef {
        name: "setGoal",
        category: "goal",
        description: "Set the agent's goal: kind skill {skill, level}, combat {npcId?, areaId?}, gather {itemId, quantity}, cook {itemId?}, bank {}, earn {coins}, follow {playerName}, explore {areaId?}, idle {}, duel {playerName}.",
        params: || {
            json!({"type": "object", "properties": {"kind": {"type": "string", "enum": crate::goals::GOAL_KINDS}, "target": {"type": "object"}, "description": {"type": "string"}}, "required": ["kind"]})
        },
        plan: |_, p| Goal::from_request(p).map(Planned::Goal).map_err(|e| Outcome::refused("invalid_params", e)),
        available: |_| Some(json!({"kinds": crate::goals::GOAL_KINDS})),
    },
    ActionDef {
        name: "idle",
        category: "goal",
        description: "Do nothing for a few ticks.",
        params: || schema(&[("ticks", "integer", false)]),
        plan: |_, p| Ok(Planned::Wait(p.get("ticks").and_then(Value::as_u64).unwrap_or(IDLE_TICKS).clamp(1, 100))),
        available: |_| Some(json!({})),
    },
    // Magic and runecrafting (CONTRACT §11)
    ActionDef {
        name: "castSpell",
        category: "combat",
        description: "Cast a combat spell (spellId) once at an NPC or a player in a PvP area (targetId); its runes are used up, those a wielded elemental staff supplies excepted.",
        params: || schema(&[("spellId", "string", true), ("targetId", "string", true)]),
        plan: |ctx, p| {
            let e = entity(ctx, p, &[EntityKind::Npc, EntityKind::Player])?;
            crate::magic::plan_cast(ctx, p, e)
        },
        available: crate::magic::cast_available,
    },
    ActionDef {
        name: "runecraft",
        category: "skill",
        description: "Bind every essence held into runes (runeItemId) at that rune's altar in view.",
        params: || schema(&[("runeItemId", "string", true)]),
        plan: crate::magic::plan_runecraft,
        available: crate::magic::runecraft_available,
    },
];

/// Ticks to wait for an instant act's visible effect.
const GRACE_WAIT: u64 = 6;

/// The table row named `name`.
pub fn find(name: &str) -> Option<&'static ActionDef> {
    ACTIONS.iter().find(|a| a.name == name)
}

/// Checks and plans `name` with `params`.
pub fn plan(ctx: Ctx<'_>, name: &str, params: &Value) -> Result<Planned, Outcome> {
    let def = find(name)
        .ok_or_else(|| Outcome::refused("unknown_action", format!("no action {name}")))?;
    if !ctx.model.synced {
        return Err(Outcome::refused("not_connected", "not in the world yet"));
    }
    (def.plan)(ctx, params)
}

// --- Plans -------------------------------------------------------------------------------------

fn plan_move_to(ctx: Ctx<'_>, p: &Value) -> Result<Planned, Outcome> {
    let target = tile_param(p)?;
    let distance = ctx.model.distance_to(target.x, target.z);
    if distance > MAX_MOVE_TILES as u32 {
        return Err(Outcome::refused(
            "move_too_far",
            format!("{distance} tiles away; one move goes at most {MAX_MOVE_TILES} (navigateTo walks in legs)"),
        ));
    }
    let run = p.get("run").and_then(Value::as_bool).unwrap_or(false);
    Ok(Planned::Run(Procedure::Walk(Walk::new(target, 0, run))))
}

fn plan_explore(ctx: Ctx<'_>, p: &Value) -> Result<Planned, Outcome> {
    let here: TilePos = ctx.model.me.tile.into();
    let area = match p.get("areaId").and_then(Value::as_str) {
        Some(id) => ctx
            .knowledge
            .areas
            .iter()
            .find(|a| a.id == id)
            .ok_or_else(|| Outcome::refused("not_found", format!("no area {id}")))?,
        None => {
            // The area whose centre is farthest from here: a wander with somewhere to go.
            ctx.knowledge
                .areas
                .iter()
                .max_by_key(|a| {
                    chebyshev(
                        here.x,
                        here.z,
                        (a.min.x + a.max.x) / 2,
                        (a.min.z + a.max.z) / 2,
                    )
                })
                .ok_or_else(|| Outcome::refused("not_available", "no areas known"))?
        }
    };
    let centre = TilePos {
        x: (area.min.x + area.max.x) / 2,
        z: (area.min.z + area.max.z) / 2,
    };
    Ok(Planned::Run(Procedure::Walk(Walk::new(centre, 3, false))))
}

fn plan_gather(ctx: Ctx<'_>, p: &Value, skill: Skill, kind: &str) -> Result<Planned, Outcome> {
    if ctx.model.free_slots() == 0 {
        return Err(Outcome::refused("inventory_full", "no free slot"));
    }
    let node = match p.get("targetId").and_then(Value::as_str) {
        Some(_) => entity(ctx, p, &[EntityKind::Resource])?,
        None => usable_nodes(ctx, skill).into_iter().next().ok_or_else(|| {
            Outcome::refused("not_available", format!("no usable {kind} in view"))
        })?,
    };
    if node.depleted == Some(true) {
        return Err(Outcome::refused(
            "depleted",
            format!("{} is depleted", label(node)),
        ));
    }
    let facts = node.type_id().and_then(|t| ctx.knowledge.nodes.get(t));
    if let Some(facts) = facts {
        if facts.skill != skill {
            return Err(Outcome::refused(
                "invalid_target",
                format!("{} is not for {skill}", label(node)),
            ));
        }
        if i64::from(facts.level) > ctx.model.level(skill) {
            return Err(Outcome::refused(
                "level_too_low",
                format!("{} needs level {}", label(node), facts.level),
            ));
        }
        if !has_tool(ctx, &facts.tool) {
            return Err(Outcome::refused(
                "no_tool",
                format!("{} needs {}", label(node), tool_name(ctx, &facts.tool)),
            ));
        }
    }
    let id = node.shared_id().clone();
    let watch = id.clone();
    let until = Until::when(
        move |m: &Model| {
            m.free_slots() == 0
                || m.entities
                    .get(&watch)
                    .is_none_or(|e| e.depleted == Some(true))
        },
        GATHER_STALL_TICKS,
        format!("gathered at {}", label(node)),
    )
    .with_progress(move |m| m.xp_events.get(&skill).copied().unwrap_or(0));
    Ok(Planned::Run(Procedure::send(
        act(ActionRequest::new("gather").with_target(&*id)),
        until,
    )))
}

/// A processing action: the item in `slot` (or `itemId`, else the first held that `item` accepts)
/// made by the best recipe of `kind` that takes it (the highest level the agent can make now), at
/// `targetId` or the nearest station for that recipe, `quantity` times.
fn plan_process(
    ctx: Ctx<'_>,
    p: &Value,
    kind: RecipeKind,
    item: fn(&str) -> bool,
    quantity: Quantity,
) -> Result<Planned, Outcome> {
    let slot = slot_or(ctx, p, item)?;
    let held = ctx
        .model
        .slot(slot)
        .map_or_else(String::new, |s| s.item_id.clone());
    let at = match p.get("targetId") {
        Some(_) => Some(entity(ctx, p, &[EntityKind::Resource])?),
        None => None,
    };
    let (recipe, station) = making::choose(
        ctx,
        |r| r.kind == kind && making::takes(r, &held),
        at,
        ctx.knowledge.item_name(&held),
    )?;
    Ok(Planned::Run(making::make(
        ctx.model, recipe, quantity, station,
    )))
}

/// useItem of `slot` on another slot or a station, as a `make` of the best recipe that uses both
/// (a tinderbox on logs lights them), once; `None` when no recipe does (the use is sent as it is).
fn use_as_make(ctx: Ctx<'_>, p: &Value, slot: u8) -> Result<Option<Planned>, Outcome> {
    let item_of = |s: u64| {
        u8::try_from(s)
            .ok()
            .and_then(|s| ctx.model.slot(s))
            .map(|s| s.item_id.clone())
    };
    let Some(used) = item_of(slot.into()) else {
        return Ok(None);
    };
    let involves = |r: &wayfarer_content::Recipe, item: &str| {
        making::takes(r, item) || r.held_items().any(|t| t == item)
    };
    let chosen = if let Some(other) = p
        .get("targetSlot")
        .and_then(Value::as_u64)
        .and_then(item_of)
    {
        making::choose(
            ctx,
            |r| {
                involves(r, &used)
                    && involves(r, &other)
                    && (making::takes(r, &used) || making::takes(r, &other))
            },
            None,
            &format!("{used} and {other}"),
        )
    } else if let Some(station) = p
        .get("targetId")
        .and_then(Value::as_str)
        .and_then(|id| ctx.model.entities.get(id))
        .filter(|e| e.kind() == EntityKind::Resource)
    {
        making::choose(ctx, |r| making::takes(r, &used), Some(station), &used)
    } else {
        return Ok(None);
    };
    match chosen {
        Ok((recipe, station)) => Ok(Some(Planned::Run(making::make(
            ctx.model,
            recipe,
            Quantity::Count(1),
            station,
        )))),
        // Nothing is made of these: the server answers the use itself.
        Err(Outcome::Rejected { code, .. }) if code == "cannot_do" || code == "invalid_target" => {
            Ok(None)
        }
        Err(refused) => Err(refused),
    }
}

/// makeItem: `recipeId` `quantity` times (default 1), at `targetId` or the nearest station for it.
fn plan_make_item(ctx: Ctx<'_>, p: &Value) -> Result<Planned, Outcome> {
    let recipe = making::find(ctx, str_param(p, "recipeId")?)?;
    let quantity = match p.get("quantity") {
        None | Some(Value::Null) => Quantity::Count(1),
        Some(Value::String(all)) if all == "all" => Quantity::All,
        Some(n) => match n.as_i64() {
            Some(n) if (1..=MAX_MAKE_QUANTITY).contains(&n) => Quantity::Count(n),
            _ => {
                return Err(Outcome::refused(
                    "invalid_params",
                    format!("quantity is 1 to {MAX_MAKE_QUANTITY} or \"all\""),
                ))
            }
        },
    };
    let station = match p.get("targetId") {
        Some(_) => {
            let e = entity(ctx, p, &[EntityKind::Resource])?;
            if !making::is_station_for(recipe, e) {
                return Err(Outcome::refused(
                    "invalid_target",
                    format!("{} is not made at {}", recipe.id, e.id()),
                ));
            }
            making::check_holdings(ctx, recipe)?;
            Some(e)
        }
        None => making::check(ctx, recipe)?,
    };
    Ok(Planned::Run(making::make(
        ctx.model, recipe, quantity, station,
    )))
}

/// The recipes makeItem offers now: those the agent can make here, best first, at most
/// [`making::MAX_MAKE_OPTIONS`].
fn make_options(ctx: Ctx<'_>) -> Option<Value> {
    let recipes: Vec<Value> = making::makeable(ctx)
        .into_iter()
        .take(making::MAX_MAKE_OPTIONS)
        .map(|r| {
            let output = r
                .output
                .as_ref()
                .map(|o| ctx.knowledge.item_name(&o.item_id));
            json!({"recipeId": r.id, "makes": output, "level": r.level, "xp": r.xp})
        })
        .collect();
    (!recipes.is_empty()).then(|| json!({"recipes": recipes, "quantity": "1 to 10000, or \"all\""}))
}

fn plan_pickup(ctx: Ctx<'_>, p: &Value) -> Result<Planned, Outcome> {
    if ctx.model.free_slots() == 0 {
        return Err(Outcome::refused("inventory_full", "no free slot"));
    }
    let item = match (
        p.get("targetId").and_then(Value::as_str),
        p.get("itemId").and_then(Value::as_str),
    ) {
        (Some(id), _) => ctx
            .model
            .entities
            .get(id)
            .or_else(|| ctx.model.remembered.get(id))
            .filter(|e| e.kind() == EntityKind::GroundItem)
            .ok_or_else(|| Outcome::refused("not_found", format!("no ground item {id} known")))?,
        (None, Some(item)) => ctx
            .model
            .nearest_of(EntityKind::GroundItem)
            .into_iter()
            .chain(ctx.model.remembered.iter())
            .find(|e| e.item_id() == Some(item))
            .ok_or_else(|| {
                Outcome::refused("not_found", format!("no {item} on the ground known"))
            })?,
        (None, None) => {
            return Err(Outcome::refused(
                "invalid_params",
                "targetId or itemId is required",
            ))
        }
    };
    let tile = TilePos {
        x: item.x,
        z: item.z,
    };
    let id = item.shared_id().clone();
    let watch = id.clone();
    let version = ctx.model.inventory_version;
    let pick = Procedure::send(
        act(ActionRequest::new("pickup").with_target(&*id)),
        Until::when(
            move |m: &Model| m.inventory_version > version && !m.entities.contains_key(&watch),
            PICKUP_TICKS,
            format!("picked up {}", label(item)),
        ),
    );
    // Close enough for the server's own walk to the item: far ones are approached in legs first.
    let mut steps = VecDeque::new();
    if ctx.model.distance_to(tile.x, tile.z) > PICKUP_WALK_TILES {
        steps.push_back(Procedure::Walk(Walk::new(
            tile,
            PICKUP_WALK_TILES / 2,
            true,
        )));
    }
    steps.push_back(pick);
    Ok(Planned::Run(Procedure::Chain(steps)))
}

/// Distance from which pickupItem lets the server walk to the item itself.
const PICKUP_WALK_TILES: u32 = 20;
/// Ticks to wait for a pickup once within that distance.
const PICKUP_TICKS: u64 = 30;

fn plan_deposit(ctx: Ctx<'_>, p: &Value) -> Result<Planned, Outcome> {
    if ctx.model.me.inventory.is_empty() {
        return Err(Outcome::refused("not_available", "nothing to deposit"));
    }
    let version = ctx.model.bank_version;
    let until = |detail: String| {
        Until::when(
            move |m: &Model| m.bank_version > version,
            GRACE_WAIT,
            detail,
        )
    };
    if p.get("all").and_then(Value::as_bool) == Some(true) {
        if p.get("keepTools").and_then(Value::as_bool) == Some(true) {
            // Everything but tools and coins (they buy the food and tools the planner needs): one
            // deposit per item kind (each deposits every slot of it).
            let mut kinds: Vec<String> = ctx
                .model
                .me
                .inventory
                .iter()
                .filter(|s| !is_tool(ctx.knowledge, &s.item_id) && s.item_id != "coins")
                .map(|s| s.item_id.clone())
                .collect();
            kinds.dedup();
            kinds.sort();
            kinds.dedup();
            if kinds.is_empty() {
                return Err(Outcome::refused(
                    "not_available",
                    "nothing but tools and coins held",
                ));
            }
            let mut steps = VecDeque::new();
            for item in kinds {
                steps.push_back(DepositItem::step(item));
            }
            return at_bank(ctx, Procedure::Chain(steps));
        }
        return at_bank(
            ctx,
            Procedure::send(
                ClientMessage::BankDeposit(BankDepositRequest {
                    slot: DepositSlot::All,
                    quantity: None,
                }),
                until("deposited everything".into()),
            ),
        );
    }
    let item = str_param(p, "itemId")?.to_owned();
    if ctx.model.slot_of(&item).is_none() {
        return Err(Outcome::refused("not_available", format!("no {item} held")));
    }
    let mut step = DepositItem::step(item);
    if let (Some(q), Procedure::Deferred(d)) =
        (p.get("quantity").and_then(Value::as_i64), &mut step)
    {
        d.quantity = Some(q);
    }
    at_bank(ctx, step)
}

/// A deposit of one item kind, whose slot is looked up when it runs (slots move as others go).
pub struct DepositItem {
    pub item_id: String,
    pub quantity: Option<i64>,
}

impl DepositItem {
    fn step(item_id: String) -> Procedure {
        Procedure::Deferred(DepositItem {
            item_id,
            quantity: None,
        })
    }

    /// The procedure to run now.
    pub fn resolve(&self, model: &Model) -> Procedure {
        let Some(slot) = model.slot_of(&self.item_id) else {
            return Procedure::quiet_done(format!("no {} left", self.item_id));
        };
        let deposit = BankDepositRequest {
            slot: DepositSlot::Slot(slot.slot.into()),
            quantity: self.quantity.map(Quantity::Count),
        };
        let version = model.bank_version;
        Procedure::send(
            ClientMessage::BankDeposit(deposit),
            Until::when(
                move |m: &Model| m.bank_version > version,
                GRACE_WAIT,
                format!("deposited {}", self.item_id),
            ),
        )
    }
}

/// Walks to the nearest known bank first when not already within reach.
fn at_bank(ctx: Ctx<'_>, then: Procedure) -> Result<Planned, Outcome> {
    let bank = known_bank(ctx).ok_or_else(|| Outcome::refused("not_near_bank", "no bank known"))?;
    let mut steps = VecDeque::new();
    if ctx.model.distance_to(bank.x, bank.z) > SERVICE_REACH_TILES {
        steps.push_back(Procedure::Walk(Walk::new(bank, SERVICE_REACH_TILES, false)));
    }
    steps.push_back(then);
    Ok(Planned::Run(Procedure::Chain(steps)))
}

/// The nearest bank: a booth or banker in view, else one from the areas.
pub fn known_bank(ctx: Ctx<'_>) -> Option<TilePos> {
    let in_view = ctx
        .model
        .nearest_of(EntityKind::Resource)
        .into_iter()
        .chain(ctx.model.nearest_of(EntityKind::Npc))
        .find(|e| {
            e.resource_type() == Some("bank")
                || e.type_id().is_some_and(|t| {
                    ctx.knowledge
                        .places
                        .iter()
                        .any(|p| p.kind == "bank" && p.id == t)
                })
        });
    if let Some(e) = in_view {
        return Some(TilePos { x: e.x, z: e.z });
    }
    ctx.knowledge
        .places_of("bank", ctx.model.me.tile.into())
        .first()
        .map(|p| p.tile)
}

// --- Helpers ----------------------------------------------------------------------------------

/// A JSON schema of an object with these (name, type, required) properties.
pub fn schema(fields: &[(&str, &str, bool)]) -> Value {
    let properties: serde_json::Map<String, Value> = fields
        .iter()
        .map(|(name, kind, _)| ((*name).to_owned(), json!({"type": kind})))
        .collect();
    let required: Vec<&str> = fields.iter().filter(|f| f.2).map(|f| f.0).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// A `player:action`.
fn act(request: ActionRequest) -> ClientMessage {
    ClientMessage::Action(request)
}

fn str_param<'a>(p: &'a Value, name: &str) -> Result<&'a str, Outcome> {
    p.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| Outcome::refused("invalid_params", format!("{name} (a string) is required")))
}

fn tile_param(p: &Value) -> Result<TilePos, Outcome> {
    let coord = |k: &str| {
        p.get(k)
            .and_then(Value::as_i64)
            .and_then(|v| i32::try_from(v).ok())
    };
    match (coord("x"), coord("z")) {
        (Some(x), Some(z)) => Ok(TilePos { x, z }),
        _ => Err(Outcome::refused(
            "invalid_params",
            "x and z (whole numbers) are required",
        )),
    }
}

pub(crate) fn entity<'a>(
    ctx: Ctx<'a>,
    p: &Value,
    kinds: &[EntityKind],
) -> Result<&'a Seen, Outcome> {
    let id = str_param(p, "targetId")?;
    let e = ctx
        .model
        .entities
        .get(id)
        .ok_or_else(|| Outcome::refused("not_found", format!("{id} is not in view")))?;
    if !kinds.is_empty() && !kinds.contains(&e.kind()) {
        return Err(Outcome::refused(
            "invalid_target",
            format!("{id} is a {:?}", e.kind()),
        ));
    }
    Ok(e)
}

fn label(e: &Seen) -> String {
    match e.name() {
        Some(name) => format!("{name} ({})", e.id()),
        None => e.id().to_string(),
    }
}

/// The slot named by `slot` or `itemId`, which must hold something.
fn item_slot(ctx: Ctx<'_>, p: &Value) -> Result<u8, Outcome> {
    if let Some(slot) = p.get("slot").and_then(Value::as_u64) {
        let slot =
            u8::try_from(slot).map_err(|_| Outcome::refused("invalid_slot", "slots are 0–27"))?;
        return ctx
            .model
            .slot(slot)
            .map(|s| s.slot)
            .ok_or_else(|| Outcome::refused("invalid_slot", format!("slot {slot} is empty")));
    }
    if let Some(item) = p.get("itemId").and_then(Value::as_str) {
        return ctx
            .model
            .slot_of(item)
            .map(|s| s.slot)
            .ok_or_else(|| Outcome::refused("not_available", format!("no {item} held")));
    }
    Err(Outcome::refused(
        "invalid_params",
        "slot or itemId is required",
    ))
}

/// `slot` when given, else the first slot whose item passes `matches`.
fn slot_or(ctx: Ctx<'_>, p: &Value, matches: fn(&str) -> bool) -> Result<u8, Outcome> {
    if p.get("slot").is_some() || p.get("itemId").is_some() {
        return item_slot(ctx, p);
    }
    ctx.model
        .me
        .inventory
        .iter()
        .find(|s| matches(&s.item_id))
        .map(|s| s.slot)
        .ok_or_else(|| Outcome::refused("not_available", "nothing suitable held"))
}

fn logs_slot(model: &Model) -> Option<u8> {
    model
        .me
        .inventory
        .iter()
        .find(|s| s.item_id == "logs" || s.item_id.ends_with("_logs"))
        .map(|s| s.slot)
}

/// The slot of the food that heals most.
pub fn food_slot(ctx: Ctx<'_>) -> Option<u8> {
    ctx.model
        .me
        .inventory
        .iter()
        .filter_map(|s| {
            ctx.knowledge
                .items
                .get(&s.item_id)
                .and_then(|i| i.heal_amount)
                .map(|h| (h, s.slot))
        })
        .max_by_key(|(h, slot)| (*h, std::cmp::Reverse(*slot)))
        .map(|(_, slot)| slot)
}

fn is_tool(knowledge: &Knowledge, item: &str) -> bool {
    knowledge
        .items
        .get(item)
        .is_some_and(|i| i.tool.is_some() || i.kind == "tool")
        || item == "tinderbox"
}

/// Whether the agent holds (or wears) what a node needs, by the server's rule: that very item, or
/// any tool of the node's skill.
pub(crate) fn has_tool(ctx: Ctx<'_>, tool: &ToolRequirement) -> bool {
    let fits = |id: &str| match tool {
        ToolRequirement::None => true,
        ToolRequirement::Item(wanted) => id == wanted,
        ToolRequirement::AnyForSkill(skill) => ctx
            .knowledge
            .items
            .get(id)
            .and_then(|i| i.tool.as_ref())
            .is_some_and(|t| t.skill == *skill),
    };
    matches!(tool, ToolRequirement::None)
        || ctx.model.me.inventory.iter().any(|s| fits(&s.item_id))
        || ctx.model.me.equipment.values().any(|e| fits(&e.item_id))
}

/// What a node needs, in words: "a hatchet", "a Small Fishing Net".
fn tool_name(ctx: Ctx<'_>, tool: &ToolRequirement) -> String {
    match tool {
        ToolRequirement::None => "nothing".to_owned(),
        ToolRequirement::Item(id) => format!("a {}", ctx.knowledge.item_name(id)),
        ToolRequirement::AnyForSkill(Skill::Woodcutting) => "a hatchet".to_owned(),
        ToolRequirement::AnyForSkill(Skill::Mining) => "a pickaxe".to_owned(),
        ToolRequirement::AnyForSkill(skill) => format!("a {skill} tool"),
    }
}

fn nearest_resource<'a>(model: &'a Model, types: &[&str]) -> Option<&'a Seen> {
    model
        .nearest_of(EntityKind::Resource)
        .into_iter()
        .find(|e| e.resource_type().is_some_and(|t| types.contains(&t)) && e.depleted != Some(true))
}

/// Resources in view for `skill` that the agent's level allows and that are not depleted, nearest first.
pub fn usable_nodes(ctx: Ctx<'_>, skill: Skill) -> Vec<&Seen> {
    ctx.model
        .nearest_of(EntityKind::Resource)
        .into_iter()
        .filter(|e| e.depleted != Some(true))
        .filter(|e| {
            e.type_id()
                .and_then(|t| ctx.knowledge.nodes.get(t))
                .is_some_and(|n| n.skill == skill && i64::from(n.level) <= ctx.model.level(skill))
        })
        .collect()
}

/// The nodes in view the plan would gather from now (the tool held, the level, room in the bag):
/// what is offered is what the server would accept.
fn gatherable(ctx: Ctx<'_>, skill: Skill, kind: &str) -> Option<Value> {
    let ids: Vec<&str> = usable_nodes(ctx, skill)
        .into_iter()
        .filter(|e| plan_gather(ctx, &json!({"targetId": e.id()}), skill, kind).is_ok())
        .take(5)
        .map(|e| e.id())
        .collect();
    (!ids.is_empty()).then(|| json!({"targetIds": ids}))
}

fn station_use(ctx: Ctx<'_>, station: &str, item: fn(&str) -> bool) -> Option<Value> {
    let target = nearest_resource(ctx.model, &[station])?;
    let slot = ctx.model.me.inventory.iter().find(|s| item(&s.item_id))?;
    Some(json!({"slot": slot.slot, "targetId": target.id()}))
}

/// The NPCs in view to attack: alive, and no banker, shopkeeper or quest giver.
fn fighters(ctx: Ctx<'_>) -> Option<Value> {
    // In a duel's fight the opponent is the one target the server allows.
    let opponent = ctx
        .model
        .duel_fight()
        .and_then(|d| ctx.model.entities.get(d.opponent_id.as_str()));
    let ids: Vec<Value> = opponent
        .into_iter()
        .chain(
            ctx.model
                .nearest_of(EntityKind::Npc)
                .into_iter()
                .filter(|_| ctx.model.duel_fight().is_none())
                .filter(|e| e.health().is_some_and(|h| h > 0))
                .filter(|e| !e.type_id().is_some_and(|t| ctx.knowledge.is_service_npc(t))),
        )
        .take(10)
        .map(|e| json!({"id": e.id(), "name": e.name(), "distance": ctx.model.distance_to(e.x, e.z)}))
        .collect();
    (!ids.is_empty()).then(|| json!({"targets": ids}))
}

fn ids_of(ctx: Ctx<'_>, kind: EntityKind, keep: fn(&Seen) -> bool) -> Option<Value> {
    let ids: Vec<Value> = ctx
        .model
        .nearest_of(kind)
        .into_iter()
        .filter(|e| keep(e))
        .take(10)
        .map(|e| json!({"id": e.id(), "name": e.name(), "distance": ctx.model.distance_to(e.x, e.z)}))
        .collect();
    (!ids.is_empty()).then(|| json!({"targets": ids}))
}

fn open_trade(ctx: Ctx<'_>) -> Result<String, Outcome> {
    ctx.model
        .trade
        .as_ref()
        .filter(|t| t.stage != "requested")
        .map(|t| t.trade_id.clone())
        .ok_or_else(|| Outcome::refused("invalid_trade", "no trade is open"))
}

#[cfg(test)]
mod tests {
    use wayfarer_protocol::ws::Entity;

    use super::*;
    use crate::making::tests::{knowledge, model};

    fn npc(id: &str, type_id: &str) -> Entity {
        Entity {
            name: Some(type_id.into()),
            health: Some(5),
            max_health: Some(5),
            type_id: Some(type_id.into()),
            ..Entity::at(id, EntityKind::Npc, 1, 1)
        }
    }

    #[test]
    fn bankers_shopkeepers_and_quest_givers_are_no_attack_targets() {
        let knowledge = knowledge();
        let model = model(
            &[],
            &[],
            vec![
                npc("npc-1", "banker_elsie"),
                npc("npc-2", "merchant_tobin"),
                npc("npc-3", "old_marta"),
                npc("npc-4", "chicken"),
            ],
        );
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let offered = fighters(ctx).expect("a chicken to fight");
        let ids: Vec<&str> = offered["targets"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["id"].as_str())
            .collect();
        assert_eq!(ids, ["npc-4"]);
        for banker in ["npc-1", "npc-2", "npc-3"] {
            let refused = plan(ctx, "attackEntity", &json!({"targetId": banker}));
            assert!(
                matches!(&refused, Err(Outcome::Rejected { code, .. }) if code == "invalid_target"),
                "{banker}"
            );
        }
        assert!(plan(ctx, "attackEntity", &json!({"targetId": "npc-4"})).is_ok());
    }
}
