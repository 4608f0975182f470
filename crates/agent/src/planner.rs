//! The built-in planner: reflexes first (flee, eat), then a step towards the goal, from the action
//! table only, with no language model. It remembers what just failed so it re-plans around it.

use std::collections::HashMap;

use serde_json::{json, Value};
use wayfarer_protocol::ws::EntityKind;
use wayfarer_protocol::Skill;

use crate::actions::{food_slot, known_bank, usable_nodes, Ctx};
use crate::goals::{Goal, GoalKind};
use crate::knowledge::MOB_SPAWN;
use crate::outcome::Outcome;

/// Health fraction at or below which a fighting agent flees.
pub const FLEE_HEALTH: f64 = 0.3;
/// Health fraction below which an agent with food eats.
pub const EAT_HEALTH: f64 = 0.6;
/// Ticks a failed target is avoided.
pub const AVOID_TICKS: u64 = 50;
/// How close a walk to a known node goes before the node in view takes over.
pub const NODE_APPROACH_TILES: u32 = 3;
/// Ticks between two firings of the same reflex (Mindcraft's unstuck mode fired in a loop).
pub const REFLEX_COOLDOWN_TICKS: u64 = 5;

/// One chosen action.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub action: &'static str,
    pub params: Value,
    /// Why, in a few words (logged and kept in the status).
    pub reason: String,
    /// A reflex: runs before any brain and may preempt the running action.
    pub reflex: bool,
}

impl Decision {
    fn new(action: &'static str, params: Value, reason: impl Into<String>) -> Decision {
        Decision {
            action,
            params,
            reason: reason.into(),
            reflex: false,
        }
    }
}

/// The planner's memory between decisions.
#[derive(Debug, Default)]
pub struct Planner {
    /// Entity ids (and tiles as "x,z") that failed lately, with the tick they are tried again.
    avoid: HashMap<String, u64>,
    /// When each reflex last fired.
    reflex_at: HashMap<&'static str, u64>,
}

impl Planner {
    /// A planner with nothing remembered.
    pub fn new() -> Planner {
        Planner::default()
    }

    /// A reflex that must run now, whatever the brain or the running action.
    pub fn reflex(&mut self, ctx: Ctx<'_>, now: u64) -> Option<Decision> {
        let me = &ctx.model.me;
        if me.max_health <= 0 {
            return None;
        }
        let health = me.health as f64 / me.max_health as f64;
        let candidate = if health <= FLEE_HEALTH && ctx.model.in_combat() {
            Some(Decision::new(
                "flee",
                json!({}),
                format!("health {}/{}", me.health, me.max_health),
            ))
        } else if health < EAT_HEALTH {
            food_slot(ctx).map(|slot| {
                Decision::new(
                    "eatFood",
                    json!({"slot": slot}),
                    format!("health {}/{}", me.health, me.max_health),
                )
            })
        } else {
            None
        }?;
        let last = self.reflex_at.get(candidate.action).copied();
        if last.is_some_and(|t| now < t + REFLEX_COOLDOWN_TICKS) {
            return None;
        }
        self.reflex_at.insert(candidate.action, now);
        Some(Decision {
            reflex: true,
            ..candidate
        })
    }

    /// What an action's outcome teaches: a target that failed is left alone for a while.
    pub fn observe(&mut self, decision: &Decision, outcome: &Outcome, now: u64) {
        if outcome.is_success() {
            return;
        }
        if let Some(target) = decision.params.get("targetId").and_then(Value::as_str) {
            self.avoid.insert(target.to_owned(), now + AVOID_TICKS);
        }
        if let (Some(x), Some(z)) = (decision.params.get("x"), decision.params.get("z")) {
            self.avoid.insert(format!("{x},{z}"), now + AVOID_TICKS);
        }
    }

    fn avoided(&self, key: &str, now: u64) -> bool {
        self.avoid.get(key).is_some_and(|until| now < *until)
    }

    /// The next step towards `goal`.
    pub fn decide(&mut self, ctx: Ctx<'_>, goal: &Goal, now: u64) -> Decision {
        self.avoid.retain(|_, until| *until > now);
        if ctx.model.dialogue.is_some() && !matches!(goal.kind, GoalKind::Idle) {
            return Decision::new("closeDialogue", json!({}), "a dialogue is in the way");
        }
        match &goal.kind {
            GoalKind::Skill { skill, .. } => self.train(ctx, *skill, now),
            GoalKind::Gather { item_id, .. } => {
                let skill = ctx
                    .knowledge
                    .nodes
                    .values()
                    .find(|n| n.yields.contains(item_id))
                    .and_then(|n| Skill::parse(&n.skill))
                    .unwrap_or(Skill::Woodcutting);
                self.gather(ctx, skill, now)
            }
            GoalKind::Cook { .. } => self.cook(ctx, now),
            GoalKind::Bank => self.bank(ctx).unwrap_or_else(|| idle("nothing to bank")),
            GoalKind::Earn { .. } => self.gather(ctx, Skill::Woodcutting, now),
            GoalKind::Combat { npc_id, .. } => self.fight(ctx, npc_id.as_deref(), now),
            GoalKind::Follow { player_name } => ctx
                .model
                .nearest_of(EntityKind::Player)
                .into_iter()
                .find(|p| {
                    p.name()
                        .is_some_and(|n| n.eq_ignore_ascii_case(player_name))
                })
                .map(|p| {
                    Decision::new(
                        "followEntity",
                        json!({"targetId": p.id}),
                        format!("following {player_name}"),
                    )
                })
                .unwrap_or_else(|| idle(&format!("{player_name} is not in view"))),
            GoalKind::Explore { area_id } => Decision::new(
                "explore",
                area_id.as_ref().map_or(json!({}), |a| json!({"areaId": a})),
                "exploring",
            ),
            GoalKind::Idle => idle("the goal is to idle"),
        }
    }

    fn train(&mut self, ctx: Ctx<'_>, skill: Skill, now: u64) -> Decision {
        match skill {
            Skill::Woodcutting | Skill::Fishing | Skill::Mining => self.gather(ctx, skill, now),
            Skill::Firemaking => {
                if ctx.model.slot_of("tinderbox").is_some()
                    && ctx.model.me.inventory.iter().any(|s| s.item_id == "logs")
                {
                    Decision::new("lightFire", json!({}), "logs and a tinderbox held")
                } else {
                    self.gather(ctx, Skill::Woodcutting, now)
                }
            }
            Skill::Cooking => self.cook(ctx, now),
            _ => self.fight(ctx, None, now),
        }
    }

    /// Gathering: bank (or drop) when full, else the nearest usable node, else walk to one.
    fn gather(&mut self, ctx: Ctx<'_>, skill: Skill, now: u64) -> Decision {
        if ctx.model.free_slots() == 0 {
            if let Some(bank) = self.bank(ctx) {
                return bank;
            }
            let produce = ctx.model.me.inventory.iter().find(|s| {
                ctx.knowledge
                    .nodes
                    .values()
                    .any(|n| n.yields.contains(&s.item_id))
            });
            if let Some(slot) = produce {
                return Decision::new(
                    "dropItem",
                    json!({"itemId": slot.item_id}),
                    "full and no bank known",
                );
            }
        }
        let action = match skill {
            Skill::Fishing => "catchFish",
            Skill::Mining => "mineRock",
            _ => "chopTree",
        };
        if let Some(node) = usable_nodes(ctx, skill)
            .into_iter()
            .find(|e| !self.avoided(&e.id, now))
        {
            return Decision::new(
                action,
                json!({"targetId": node.id}),
                format!("nearest usable {skill} node"),
            );
        }
        // None in view: walk to the nearest known place with a node this level allows.
        let here: wayfarer_protocol::ws::TilePos = ctx.model.me.tile.into();
        let skill_name = skill.to_string();
        let place = ctx
            .knowledge
            .places
            .iter()
            .filter(|p| {
                ctx.knowledge
                    .nodes
                    .get(&p.id)
                    .is_some_and(|n| n.skill == skill_name && n.level <= ctx.model.level(skill))
            })
            .filter(|p| !self.avoided(&format!("{},{}", p.tile.x, p.tile.z), now))
            .min_by_key(|p| crate::model::chebyshev(here.x, here.z, p.tile.x, p.tile.z));
        match place {
            Some(p) => Decision::new(
                "navigateTo",
                json!({"x": p.tile.x, "z": p.tile.z, "within": NODE_APPROACH_TILES}),
                format!("{} at ({}, {}) in {}", p.id, p.tile.x, p.tile.z, p.area),
            ),
            None => Decision::new("explore", json!({}), format!("no {skill} node known")),
        }
    }

    fn bank(&self, ctx: Ctx<'_>) -> Option<Decision> {
        known_bank(ctx)?;
        Some(Decision::new(
            "bankDeposit",
            json!({"all": true, "keepTools": true}),
            "inventory full: banking",
        ))
    }

    fn cook(&mut self, ctx: Ctx<'_>, now: u64) -> Decision {
        let raw = ctx
            .model
            .me
            .inventory
            .iter()
            .any(|s| s.item_id.starts_with("raw_"));
        let fire = ctx
            .model
            .nearest_of(EntityKind::Resource)
            .into_iter()
            .any(|e| matches!(e.resource_type(), Some("fire" | "range")));
        match (raw, fire) {
            (true, true) => Decision::new("cookFood", json!({}), "raw food and a fire"),
            (true, false) if ctx.model.me.inventory.iter().any(|s| s.item_id == "logs") => {
                Decision::new("lightFire", json!({}), "raw food, no fire: lighting one")
            }
            (true, false) => self.gather(ctx, Skill::Woodcutting, now),
            (false, _) => self.gather(ctx, Skill::Fishing, now),
        }
    }

    fn fight(&mut self, ctx: Ctx<'_>, npc: Option<&str>, now: u64) -> Decision {
        let target = ctx
            .model
            .nearest_of(EntityKind::Npc)
            .into_iter()
            .filter(|e| e.health.is_some_and(|h| h > 0))
            .filter(|e| npc.is_none_or(|n| e.type_id() == Some(n)))
            .find(|e| !self.avoided(&e.id, now));
        if let Some(e) = target {
            return Decision::new(
                "attackEntity",
                json!({"targetId": e.id}),
                "nearest living NPC",
            );
        }
        // None in view: walk to the nearest known spawn of such a mob (exploring at random
        // rarely finds one beyond the view).
        let here: wayfarer_protocol::ws::TilePos = ctx.model.me.tile.into();
        let spawn = ctx
            .knowledge
            .places_of(MOB_SPAWN, here)
            .into_iter()
            .filter(|p| npc.is_none_or(|n| p.id == n))
            .find(|p| !self.avoided(&format!("{},{}", p.tile.x, p.tile.z), now));
        match spawn {
            Some(p)
                if crate::model::chebyshev(here.x, here.z, p.tile.x, p.tile.z)
                    > NODE_APPROACH_TILES =>
            {
                Decision::new(
                    "navigateTo",
                    json!({"x": p.tile.x, "z": p.tile.z, "within": NODE_APPROACH_TILES}),
                    format!(
                        "{} spawn at ({}, {}) in {}",
                        p.id, p.tile.x, p.tile.z, p.area
                    ),
                )
            }
            // At the spawn and nothing alive: wait for the respawn.
            Some(_) => idle("waiting for a respawn"),
            None => Decision::new("explore", json!({}), "no NPC to fight in view"),
        }
    }
}

fn idle(reason: &str) -> Decision {
    Decision::new("idle", json!({"ticks": 5}), reason)
}
