//! The built-in planner: reflexes first (flee, eat), then a step towards the goal, from the action
//! table only, with no language model. It remembers what just failed so it re-plans around it.

use std::collections::HashMap;

use serde_json::{json, Value};
use wayfarer_protocol::ws::EntityKind;
use wayfarer_protocol::Skill;

use wayfarer_content::{Recipe, RecipeKind};

use crate::actions::{food_slot, known_bank, usable_nodes, Ctx};
use crate::goals::{Goal, GoalKind};
use crate::knowledge::MOB_SPAWN;
use crate::making;
use crate::outcome::Outcome;

pub mod claims;
mod dueling;
mod gear;
mod health;
mod homes;
mod questing;
mod reply;
mod selling;
mod supplies;

pub use reply::answer;

/// Refusals of one action with one code in a row after which the planner tries something else.
pub const STUCK_REFUSALS: u32 = 3;

/// Health fraction at or below which a fighting agent flees.
pub const FLEE_HEALTH: f64 = 0.3;
/// Health fraction below which an agent with food eats.
pub const EAT_HEALTH: f64 = 0.6;
/// Ticks a failed target is avoided.
pub const AVOID_TICKS: u64 = 50;
/// How close a walk to a known node goes before the node in view takes over.
pub const NODE_APPROACH_TILES: u32 = 3;
/// Ticks between two looks while waiting for a node's respawn.
pub const RESPAWN_WAIT_TICKS: u64 = 2;
/// A bank farther than this is not walked to to empty a bag of produce while training its skill.
pub const FAR_BANK_TILES: u32 = 20;
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
    /// The last refusal (action and code) and how many times in a row it came.
    refused: Option<(&'static str, String, u32)>,
    /// It talked to a shopkeeper to open the shop (so the dialogue is answered, not closed).
    shopping: bool,
    /// Selling a full bag, until the produce is gone.
    selling: bool,
    /// The node claims this agent shares with the others of its host, and its number there.
    claims: claims::Claims,
    claimant: u64,
    /// The quest stage being worked on ("quest:status:stage") and the talks with its NPC there.
    quest_at: Option<(String, u32)>,
    /// The NPC type it talked to for a quest (so its dialogue is answered, not closed).
    talking: Option<String>,
    /// Out of a fight with no food, resting until its health is back (`health`).
    resting: bool,
    /// A `duel` goal's challenges (`dueling`).
    dueling: dueling::Dueling,
    /// Where it gathers a skill (`homes`): the skill and the area.
    home: Option<(Skill, String)>,
    /// The skill a `skill` goal trains (its produce is a by-product: dropped rather than
    /// carried to a far bank).
    training: Option<Skill>,
}

impl Planner {
    /// A planner with nothing remembered, claiming nodes only for itself.
    pub fn new() -> Planner {
        Planner::sharing(claims::Claims::default())
    }

    /// A planner whose node claims are shared with the others of `claims` (one host's agents).
    pub fn sharing(claims: claims::Claims) -> Planner {
        Planner {
            claimant: claims.claimant(),
            claims,
            ..Planner::default()
        }
    }

    /// A reflex that must run now, whatever the brain or the running action.
    pub fn reflex(&mut self, ctx: Ctx<'_>, now: u64) -> Option<Decision> {
        let me = &ctx.model.me;
        if me.max_health <= 0 {
            return None;
        }
        let health = me.health as f64 / me.max_health as f64;
        // There is no fleeing a duel (the server refuses it: `in_duel`); it ends with no death.
        let candidate =
            if health <= FLEE_HEALTH && ctx.model.in_combat() && ctx.model.duel_fight().is_none() {
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
            self.refused = None;
            return;
        }
        if let Outcome::Rejected { code, .. } = outcome {
            let count = match &self.refused {
                Some((action, c, n)) if *action == decision.action && c == code => n + 1,
                _ => 1,
            };
            if count >= STUCK_REFUSALS {
                // The same refusal three times: that plan does not work here; another for a while.
                self.avoid
                    .insert(format!("action:{}", decision.action), now + AVOID_TICKS);
                self.refused = None;
            } else {
                self.refused = Some((decision.action, code.clone(), count));
            }
        }
        if let Some(item) = decision.params.get("itemId").and_then(Value::as_str) {
            // An item the bank lacks, or that cannot be worn: not asked for again for a while.
            let key = match decision.action {
                "bankWithdraw" => Some(format!("bank:{item}")),
                "equipItem" => Some(format!("equip:{item}")),
                _ => None,
            };
            if let Some(key) = key {
                self.avoid.insert(key, now + AVOID_TICKS * 4);
            }
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

    /// The next step towards `goal`; an action refused [`STUCK_REFUSALS`] times in a row is
    /// replaced by exploring for a while (a different place, a different plan).
    pub fn decide(&mut self, ctx: Ctx<'_>, goal: &Goal, now: u64) -> Decision {
        self.avoid.retain(|_, until| *until > now);
        let decision = self.towards(ctx, goal, now);
        if self.avoided(&format!("action:{}", decision.action), now) {
            return Decision::new(
                "explore",
                json!({}),
                format!(
                    "{} was refused {STUCK_REFUSALS} times: trying elsewhere",
                    decision.action
                ),
            );
        }
        decision
    }

    fn towards(&mut self, ctx: Ctx<'_>, goal: &Goal, now: u64) -> Decision {
        if ctx.model.shop.is_some() {
            self.shopping = false;
        }
        if let Some(dialogue) = &ctx.model.dialogue {
            if self.shopping {
                if let Some(choice) = supplies::shop_choice(dialogue) {
                    return Decision::new(
                        "respondDialogue",
                        json!({"index": choice}),
                        "asking the shopkeeper for the shop",
                    );
                }
                self.shopping = false;
            }
            if let Some(answer) = self.quest_dialogue(dialogue) {
                return answer;
            }
            if !matches!(goal.kind, GoalKind::Idle) {
                return Decision::new("closeDialogue", json!({}), "a dialogue is in the way");
            }
        }
        if ctx.model.dialogue.is_none() {
            self.talking = None;
        }
        if let Some(step) = self.quest_step(ctx, goal, now) {
            return step;
        }
        self.training = match &goal.kind {
            GoalKind::Skill { skill, .. } => Some(*skill),
            _ => None,
        };
        match &goal.kind {
            GoalKind::Skill { skill, .. } => self.train(ctx, *skill, now),
            GoalKind::Gather { item_id, .. } => {
                let skill = ctx
                    .knowledge
                    .nodes
                    .values()
                    .find(|n| n.yields.iter().any(|y| &y.item_id == item_id))
                    .map_or(Skill::Woodcutting, |n| n.skill);
                self.gather(ctx, skill, now)
            }
            GoalKind::Cook { .. } => self.cook(ctx, now),
            GoalKind::Bank => self.bank(ctx).unwrap_or_else(|| idle("nothing to bank")),
            GoalKind::Earn { .. } => self.earn(ctx, now),
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
                        json!({"targetId": p.id()}),
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
            GoalKind::Duel { player_name } => self.duel(ctx, player_name, now),
        }
    }

    fn train(&mut self, ctx: Ctx<'_>, skill: Skill, now: u64) -> Decision {
        match skill {
            Skill::Woodcutting | Skill::Fishing | Skill::Mining => self.gather(ctx, skill, now),
            Skill::Firemaking => {
                let known = !ctx.knowledge.recipes.is_empty();
                // Logs it can light held (standing on a fire, it steps aside first: `light_fire`).
                let can_light = if known {
                    ctx.knowledge.recipes.iter().any(|r| {
                        r.kind == RecipeKind::Firemaking
                            && making::made_by_agent(r)
                            && making::check_holdings(ctx, r).is_ok()
                    })
                } else {
                    // Without the recipe files, the logs anyone can light.
                    ctx.model.me.inventory.iter().any(|s| s.item_id == "logs")
                };
                if ctx.model.slot_of("tinderbox").is_some() && can_light {
                    self.light_fire(ctx, now, "logs and a tinderbox held")
                } else {
                    self.gather(ctx, Skill::Woodcutting, now)
                }
            }
            Skill::Cooking => self.cook(ctx, now),
            // Magic: cast the best spell at hand, else fight; Runecrafting: bind essence at an
            // altar in view, else mine (essence is mined).
            Skill::Magic => crate::magic::magic_step(ctx)
                .map(|(action, params, why)| Decision::new(action, params, why))
                .unwrap_or_else(|| self.fight(ctx, None, now)),
            Skill::Runecrafting => crate::magic::runecraft_step(ctx)
                .map(|(action, params, why)| Decision::new(action, params, why))
                .unwrap_or_else(|| self.gather(ctx, Skill::Mining, now)),
            Skill::Smithing | Skill::Crafting | Skill::Fletching => make_all(ctx, |r| {
                r.skill == Some(skill) && r.kind != RecipeKind::Firemaking
            })
            .unwrap_or_else(|| idle(&format!("nothing to make for {skill} here"))),
            _ => self.fight(ctx, None, now),
        }
    }

    /// Gathering: bank (or drop) when full, else the nearest usable node, else walk to one.
    fn gather(&mut self, ctx: Ctx<'_>, skill: Skill, now: u64) -> Decision {
        if let Some(tool) = supplies::missing_tool(ctx, skill) {
            if let Some(fetch) = self.fetch_tool(ctx, &tool, now) {
                return fetch;
            }
        }
        if ctx.model.free_slots() == 0 {
            // Training the skill itself, with the bank a long walk away: the XP is the point, so
            // the produce is dropped (a woodcutter at a far tree spent a hundred ticks a trip).
            let here: wayfarer_protocol::ws::TilePos = ctx.model.me.tile.into();
            let far_bank = known_bank(ctx)
                .is_none_or(|b| crate::model::chebyshev(here.x, here.z, b.x, b.z) > FAR_BANK_TILES);
            let bank = if self.training == Some(skill) && far_bank {
                None
            } else {
                self.bank(ctx)
            };
            if let Some(bank) = bank {
                return bank;
            }
            let produce = ctx.model.me.inventory.iter().find(|s| {
                ctx.knowledge
                    .nodes
                    .values()
                    .any(|n| n.yields.iter().any(|y| y.item_id == s.item_id))
            });
            if let Some(slot) = produce {
                return Decision::new(
                    "dropItem",
                    json!({"itemId": slot.item_id}),
                    "full and no bank near: dropping the produce",
                );
            }
        }
        let action = match skill {
            Skill::Fishing => "catchFish",
            Skill::Mining => "mineRock",
            _ => "chopTree",
        };
        let tick = ctx.model.tick;
        let level = ctx.model.level(skill);
        // Its home's nodes only (and any node at no known place): it works, joins or waits there.
        let home = self.home(ctx, skill);
        let at_home = |x: i32, z: i32| {
            let near = |p: &&crate::knowledge::Place| {
                crate::model::chebyshev(p.tile.x, p.tile.z, x, z) <= 1
            };
            match homes::usable_places(ctx, skill).find(near) {
                Some(p) => home.as_ref().is_none_or(|h| &p.area == h),
                None => true,
            }
        };
        let mut nodes: Vec<_> = usable_nodes(ctx, skill)
            .into_iter()
            .filter(|e| at_home(e.x, e.z))
            .filter(|e| !self.avoided(e.id(), now))
            .map(|e| {
                let distance = ctx.model.distance_to(e.x, e.z);
                (claims::worth(ctx, e, distance, level), distance, e)
            })
            .collect();
        // The best for the level first (XP a tick, weighed against the walk), the nearest among
        // equals (a stable sort keeps the view's nearest-first order).
        nodes.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let nodes: Vec<_> = nodes.into_iter().map(|(_, _, e)| e).collect();
        // A free node first: not claimed by another agent of this host, no other player at it;
        // with none free, a known place out of view, else the best all the same.
        let free = nodes.iter().copied().find(|e| {
            !self.claims.held_by_other(e.id(), self.claimant, tick) && !claims::crowded(ctx, e)
        });
        if free.is_none() && !nodes.is_empty() {
            if let Some(elsewhere) = self.elsewhere(ctx, skill, home.as_deref(), now) {
                return elsewhere;
            }
        }
        // None free and nowhere else to go: the node fewest others work (the best among equals),
        // rather than all of them on the best one.
        let least_crowded = || {
            nodes
                .iter()
                .copied()
                .enumerate()
                .min_by_key(|(rank, e)| (claims::crowd(ctx, e), *rank))
                .map(|(_, e)| e)
        };
        if let Some(node) = free.or_else(least_crowded) {
            self.claims.claim(node.id(), self.claimant, tick);
            return Decision::new(
                action,
                json!({"targetId": node.id()}),
                format!("the best free {skill} node for the level"),
            );
        }
        // None in view: walk to the nearest known place with a node this level allows.
        let here: wayfarer_protocol::ws::TilePos = ctx.model.me.tile.into();
        let mut places: Vec<_> = homes::usable_places(ctx, skill)
            .filter(|p| home.as_ref().is_none_or(|h| &p.area == h))
            .map(|p| {
                let distance = crate::model::chebyshev(here.x, here.z, p.tile.x, p.tile.z);
                (distance, p)
            })
            .collect();
        // The best place for the level first (XP a tick against the walk), then the nearest.
        let level = ctx.model.level(skill);
        let place_worth = |d: u32, id: &str| {
            claims::xp_per_tick(ctx, id, level) * claims::WORK_TICKS
                / (claims::WORK_TICKS + f64::from(d))
        };
        places.sort_by(|(da, a), (db, b)| {
            place_worth(*db, &b.id)
                .total_cmp(&place_worth(*da, &a.id))
                .then((*da, a.tile.x, a.tile.z).cmp(&(*db, b.tile.x, b.tile.z)))
        });
        // At a known place with nothing usable in view, it is depleted or taken: with nowhere
        // else to go, wait here for the respawn. A place in view whose node is seen depleted is
        // not walked to (a stump six tiles away is no better than the one here).
        let waiting = places.iter().any(|(d, p)| {
            *d <= NODE_APPROACH_TILES || (*d <= claims::OUT_OF_VIEW_TILES && seen_depleted(ctx, p))
        });
        // A home's place another agent walks to is shared rather than left for exploring.
        let mut shared = None;
        for (distance, p) in places {
            let key = format!("{},{}", p.tile.x, p.tile.z);
            let claim = claims::place_key(p.tile.x, p.tile.z);
            if self.avoided(&key, now) || seen_depleted(ctx, p) {
                continue;
            }
            if self.claims.held_by_other(&claim, self.claimant, tick) {
                if home.is_some() && distance > NODE_APPROACH_TILES {
                    shared = shared.or(Some(p));
                }
                continue;
            }
            if distance <= NODE_APPROACH_TILES {
                // Try elsewhere for a while rather than "arriving" here again every tick.
                self.avoid.insert(key, now + AVOID_TICKS);
                continue;
            }
            self.claims
                .claim_for(&claim, self.claimant, tick, claims::PLACE_CLAIM_TICKS);
            return Decision::new(
                "navigateTo",
                json!({"x": p.tile.x, "z": p.tile.z, "within": NODE_APPROACH_TILES}),
                format!("{} at ({}, {}) in {}", p.id, p.tile.x, p.tile.z, p.area),
            );
        }
        if let Some(p) = shared.filter(|_| !waiting) {
            return Decision::new(
                "navigateTo",
                json!({"x": p.tile.x, "z": p.tile.z, "within": NODE_APPROACH_TILES}),
                format!(
                    "{} at ({}, {}) in {}, with others",
                    p.id, p.tile.x, p.tile.z, p.area
                ),
            );
        }
        if waiting {
            // Looked at again soon: a tree's life among many choppers is a few ticks, and the
            // first there when it respawns gets it.
            Decision::new(
                "idle",
                json!({"ticks": RESPAWN_WAIT_TICKS}),
                format!("every {skill} node known is taken: waiting for a respawn"),
            )
        } else {
            Decision::new("explore", json!({}), format!("no {skill} node known"))
        }
    }

    /// Every node in view is taken: the nearest known place of `skill` out of view (not tried
    /// lately), to spread out; `None` when there is none.
    fn elsewhere(
        &mut self,
        ctx: Ctx<'_>,
        skill: Skill,
        home: Option<&str>,
        now: u64,
    ) -> Option<Decision> {
        let here: wayfarer_protocol::ws::TilePos = ctx.model.me.tile.into();
        let place = homes::usable_places(ctx, skill)
            .filter(|p| home.is_none_or(|h| p.area == h))
            .map(|p| {
                (
                    crate::model::chebyshev(here.x, here.z, p.tile.x, p.tile.z),
                    p,
                )
            })
            .filter(|(d, p)| {
                *d > claims::OUT_OF_VIEW_TILES
                    && !self.avoided(&format!("{},{}", p.tile.x, p.tile.z), now)
                    && !self.claims.held_by_other(
                        &claims::place_key(p.tile.x, p.tile.z),
                        self.claimant,
                        ctx.model.tick,
                    )
            })
            .min_by_key(|(d, p)| (*d, p.tile.x, p.tile.z))?
            .1;
        // Claimed, so the next agent with every node here taken goes somewhere else.
        self.claims.claim_for(
            &claims::place_key(place.tile.x, place.tile.z),
            self.claimant,
            ctx.model.tick,
            claims::PLACE_CLAIM_TICKS,
        );
        // Not back here at once if that place is crowded too.
        self.avoid.insert(
            format!("{},{}", place.tile.x, place.tile.z),
            now + AVOID_TICKS * 4,
        );
        Some(Decision::new(
            "navigateTo",
            json!({"x": place.tile.x, "z": place.tile.z, "within": NODE_APPROACH_TILES}),
            format!(
                "every {skill} node here is taken: to {} at ({}, {})",
                place.id, place.tile.x, place.tile.z
            ),
        ))
    }

    /// Lights a fire here, or first steps off a tile where one already burns (the server refuses a
    /// second fire on a tile; a firemaker in a row of fires would otherwise try again every tick).
    fn light_fire(&self, ctx: Ctx<'_>, now: u64, reason: &str) -> Decision {
        let here: wayfarer_protocol::ws::TilePos = ctx.model.me.tile.into();
        if !fire_on(ctx, here.x, here.z) {
            // The logs of the highest firemaking recipe the agent can make (oak over normal).
            let params = best_of(ctx, |r| r.kind == RecipeKind::Firemaking)
                .and_then(|r| r.inputs.first())
                .map_or(json!({}), |i| json!({"itemId": i.item_id}));
            return Decision::new("lightFire", params, reason);
        }
        // The nearest tile around without a fire, in a fixed order; one the server refused to walk
        // to is avoided (see `observe`) and the next is tried.
        let aside = (1..=FIRE_STEP_TILES).find_map(|r| {
            ring(here.x, here.z, r)
                .find(|&(x, z)| !fire_on(ctx, x, z) && !self.avoided(&format!("{x},{z}"), now))
        });
        match aside {
            Some((x, z)) => Decision::new(
                "moveTo",
                json!({"x": x, "z": z}),
                "a fire burns on this tile: stepping aside to light another",
            ),
            None => Decision::new("explore", json!({}), "fires all around: finding room"),
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
        if let Some(cook) = make_all(ctx, |r| r.kind == RecipeKind::Cooking) {
            return cook;
        }
        match (raw, fire) {
            (true, true) => Decision::new("cookFood", json!({}), "raw food and a fire"),
            (true, false) if ctx.model.me.inventory.iter().any(|s| s.item_id == "logs") => {
                self.light_fire(ctx, now, "raw food, no fire: lighting one")
            }
            (true, false) => self.gather(ctx, Skill::Woodcutting, now),
            (false, _) => self.gather(ctx, Skill::Fishing, now),
        }
    }

    fn fight(&mut self, ctx: Ctx<'_>, npc: Option<&str>, now: u64) -> Decision {
        if let Some(first) = self.fit_to_fight(ctx, now) {
            return first;
        }
        if let Some(equip) = gear::upgrade(ctx) {
            let item = equip.params["itemId"].as_str().unwrap_or_default();
            if !self.avoided(&format!("equip:{item}"), now) {
                return equip;
            }
        }
        // The raw food a kill dropped, before the next fight: the meal after it.
        if let Some(loot) = self.useful_loot(ctx, now) {
            return loot;
        }
        let target = ctx
            .model
            .nearest_of(EntityKind::Npc)
            .into_iter()
            .filter(|e| e.health().is_some_and(|h| h > 0))
            .filter(|e| !e.type_id().is_some_and(|t| ctx.knowledge.is_service_npc(t)))
            .filter(|e| npc.is_none_or(|n| e.type_id() == Some(n)))
            .find(|e| !self.avoided(e.id(), now));
        if let Some(e) = target {
            return Decision::new(
                "attackEntity",
                json!({"targetId": e.id()}),
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

/// The best recipe `keep` accepts that the agent can make now: the highest level it qualifies
/// for with the inputs, tools and station at hand.
fn best_of<'a>(ctx: Ctx<'a>, keep: impl Fn(&Recipe) -> bool) -> Option<&'a Recipe> {
    making::makeable(ctx).into_iter().find(|r| keep(r))
}

/// makeItem of the best recipe `keep` accepts, as many as the inputs allow.
fn make_all(ctx: Ctx<'_>, keep: impl Fn(&Recipe) -> bool) -> Option<Decision> {
    let recipe = best_of(ctx, keep)?;
    Some(Decision::new(
        "makeItem",
        json!({"recipeId": recipe.id, "quantity": "all"}),
        format!(
            "the best recipe made here: {} (level {})",
            recipe.id, recipe.level
        ),
    ))
}

fn idle(reason: &str) -> Decision {
    Decision::new("idle", json!({"ticks": 5}), reason)
}

/// Farthest a firemaker steps aside from a tile where a fire burns.
const FIRE_STEP_TILES: i32 = 2;

/// True when the agent sees a fire on tile (x, z). (A plain scan: the order of `nearest_of` is not
/// needed, and its sort ran up to 17 times a decision.)
fn fire_on(ctx: Ctx<'_>, x: i32, z: i32) -> bool {
    ctx.model.entities.values().any(|e| {
        e.kind() == EntityKind::Resource
            && e.x == x
            && e.z == z
            && e.resource_type() == Some("fire")
    })
}

/// True when the node of place `p` is in view and depleted.
fn seen_depleted(ctx: Ctx<'_>, p: &crate::knowledge::Place) -> bool {
    ctx.model.entities.values().any(|e| {
        e.kind() == EntityKind::Resource
            && e.x == p.tile.x
            && e.z == p.tile.z
            && e.type_id() == Some(p.id.as_str())
            && e.depleted == Some(true)
    })
}

/// The tiles at Chebyshev distance `r` from (x, z), west to east, then north to south.
fn ring(x: i32, z: i32, r: i32) -> impl Iterator<Item = (i32, i32)> {
    (z - r..=z + r)
        .flat_map(move |tz| (x - r..=x + r).map(move |tx| (tx, tz)))
        .filter(move |&(tx, tz)| (tx - x).abs().max((tz - z).abs()) == r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::Knowledge;
    use crate::model::Model;
    use wayfarer_content::{Area, AreaGroup, Bounds, ManifestSet, Position, ResourceSpawn};
    use wayfarer_protocol::ws::Entity;

    /// A woodcutter and firemaker at `at`, holding `items`, who knows two tree places: one at
    /// (10, 0) and one at (40, 0).
    pub(super) fn scene(
        at: (i32, i32),
        items: &[&str],
        in_view: Vec<Entity>,
    ) -> (Model, Knowledge) {
        scene_in(at, items, in_view, &[("woods", &[(10, 0), (40, 0)])])
    }

    /// `scene` with `areas`: each an id and the tiles of its trees.
    pub(super) fn scene_in(
        at: (i32, i32),
        items: &[&str],
        in_view: Vec<Entity>,
        areas: &[(&str, &[(i32, i32)])],
    ) -> (Model, Knowledge) {
        let mut knowledge = Knowledge::default();
        let mut manifests = ManifestSet::new();
        manifests.insert("gathering/woodcutting.json", json!({"trees": [{"id": "tree_normal", "name": "Tree", "type": "tree", "harvestSkill": "woodcutting", "levelRequired": 1, "toolRequired": "hatchet", "baseCycleTicks": 4, "harvestYield": [{"itemId": "logs", "xpAmount": 25}]}]}).to_string());
        manifests.insert("items/tools.json", json!([{"id": "bronze_hatchet", "name": "Bronze Hatchet", "type": "tool", "value": 1, "tool": {"skill": "woodcutting"}}, {"id": "tinderbox", "name": "Tinderbox", "type": "tool", "value": 1}, {"id": "logs", "name": "Logs", "type": "resource", "value": 1}]).to_string());
        knowledge.add_manifests(&manifests);
        let tree = |&(x, z): &(i32, i32)| ResourceSpawn {
            resource_id: "tree_normal".into(),
            kind: "tree".into(),
            position: Position {
                x: f64::from(x),
                y: 0.0,
                z: f64::from(z),
            },
        };
        let areas: Vec<Area> = areas
            .iter()
            .map(|(id, trees)| Area {
                id: (*id).into(),
                name: (*id).into(),
                description: String::new(),
                group: AreaGroup::Level1Areas,
                difficulty_level: 1,
                bounds: Bounds {
                    min_x: -50.0,
                    max_x: 50.0,
                    min_z: -50.0,
                    max_z: 50.0,
                },
                biome_type: None,
                safe_zone: false,
                pvp: false,
                spawn_point: None,
                duel_arena: false,
                npcs: Vec::new(),
                resources: trees.iter().map(tree).collect(),
                mob_spawns: Vec::new(),
                stations: Vec::new(),
                fishing: None,
                circle: None,
                town_size: None,
                features: Default::default(),
            })
            .collect();
        knowledge.add_areas(&areas);
        assert_eq!(knowledge.nodes.len(), 1, "the manifests load");
        let held: Vec<(&str, i64)> = items.iter().map(|item| (*item, 1)).collect();
        let model = crate::making::tests::model_at(at, &held, &[], in_view);
        (model, knowledge)
    }

    pub(super) fn resource(
        id: &str,
        kind: &str,
        type_id: &str,
        x: i32,
        z: i32,
        depleted: bool,
    ) -> Entity {
        Entity {
            id: id.into(),
            kind: EntityKind::Resource,
            x,
            z,
            name: Some(kind.into()),
            health: None,
            max_health: None,
            item_id: None,
            quantity: None,
            resource_type: Some(kind.into()),
            depleted: Some(depleted),
            type_id: Some(type_id.into()),
            worn: None,
            open: None,
            side: None,
            quest: None,
        }
    }

    fn skill_goal(skill: &str) -> Goal {
        Goal::from_request(&json!({"kind": "skill", "target": {"skill": skill, "level": 5}}))
            .expect("a valid goal")
    }

    #[test]
    fn a_gatherer_at_a_taken_node_goes_to_the_next_rather_than_arriving_again_every_tick() {
        let stump = resource("res-1", "tree", "tree_normal", 10, 0, true);
        let (model, knowledge) = scene((10, 1), &["bronze_hatchet"], vec![stump]);
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let mut planner = Planner::new();
        let goal = skill_goal("woodcutting");
        for now in [10, 11, 12] {
            let d = planner.decide(ctx, &goal, now);
            assert_eq!(d.action, "navigateTo", "{d:?}");
            assert_eq!(
                (d.params["x"].as_i64(), d.params["z"].as_i64()),
                (Some(40), Some(0))
            );
        }
        // The far place did not answer either (refused walk): nothing left but to wait.
        let walk = planner.decide(ctx, &goal, 13);
        planner.observe(&walk, &Outcome::refused("cannot_do", "no path"), 13);
        let d = planner.decide(ctx, &goal, 14);
        assert_eq!(d.action, "idle", "{d:?}");
        assert!(d.reason.contains("waiting for a respawn"), "{}", d.reason);
        // Once the refusal is forgotten, the far place is tried again (the one here is seen taken
        // anew whenever the agent looks).
        let d = planner.decide(ctx, &goal, 13 + AVOID_TICKS);
        assert_eq!((d.action, d.params["x"].as_i64()), ("navigateTo", Some(40)));
    }

    #[test]
    fn agents_sharing_claims_spread_over_the_trees_in_view_then_over_the_places_out_of_view() {
        let trees = || {
            vec![
                resource("res-1", "tree", "tree_normal", 10, 0, false),
                resource("res-2", "tree", "tree_normal", 12, 0, false),
            ]
        };
        let (model, knowledge) = scene((11, 1), &["bronze_hatchet"], trees());
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let shared = claims::Claims::default();
        let goal = skill_goal("woodcutting");
        let mut choices = Vec::new();
        for _ in 0..4 {
            let mut planner = Planner::sharing(shared.clone());
            let d = planner.decide(ctx, &goal, 5);
            choices.push((
                d.action,
                d.params.get("targetId").or(d.params.get("x")).cloned(),
            ));
        }
        assert_eq!(
            choices,
            [
                ("chopTree", Some(json!("res-1"))),
                ("chopTree", Some(json!("res-2"))),
                // Both trees here are claimed: the place out of view, claimed in turn …
                ("navigateTo", Some(json!(40))),
                // … so the fourth shares the least crowded tree here rather than follow.
                ("chopTree", Some(json!("res-1"))),
            ]
        );
        // A planner of its own (no shared claims) takes the best tree, as before.
        assert_eq!(
            Planner::new().decide(ctx, &goal, 5).params["targetId"],
            "res-1"
        );
    }

    #[test]
    fn the_same_refusal_three_times_sets_the_action_aside_for_another_plan() {
        let tree = resource("res-1", "tree", "tree_normal", 10, 0, false);
        let (model, knowledge) = scene((10, 1), &["bronze_hatchet"], vec![tree]);
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let goal = skill_goal("woodcutting");
        let mut planner = Planner::new();
        let chop = Decision::new("chopTree", json!({}), "test");
        for now in 1..STUCK_REFUSALS as u64 {
            planner.observe(&chop, &Outcome::refused("no_tool", "no hatchet"), now);
            assert_eq!(planner.decide(ctx, &goal, now).action, "chopTree");
        }
        // A different refusal in between starts the count again.
        planner.observe(&chop, &Outcome::refused("blocked", "blocked"), 3);
        planner.observe(&chop, &Outcome::refused("no_tool", "no hatchet"), 4);
        assert_eq!(planner.decide(ctx, &goal, 4).action, "chopTree");
        planner.observe(&chop, &Outcome::refused("no_tool", "no hatchet"), 5);
        planner.observe(&chop, &Outcome::refused("no_tool", "no hatchet"), 6);
        let d = planner.decide(ctx, &goal, 6);
        assert_eq!(d.action, "explore", "{d:?}");
        assert!(d.reason.contains("refused 3 times"), "{}", d.reason);
        // Set aside for a while, then tried again.
        assert_eq!(
            planner.decide(ctx, &goal, 6 + AVOID_TICKS).action,
            "chopTree"
        );
    }

    #[test]
    fn a_firemaker_on_a_burning_tile_steps_aside_and_lights_where_none_burns() {
        let goal = skill_goal("firemaking");
        let held = ["tinderbox", "logs", "logs"];
        let (model, knowledge) = scene((0, 0), &held, vec![]);
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let mut planner = Planner::new();
        assert_eq!(planner.decide(ctx, &goal, 1).action, "lightFire");

        let fires = vec![
            resource("fire-1", "fire", "fire", 0, 0, false),
            resource("fire-2", "fire", "fire", -1, -1, false),
        ];
        let (model, knowledge) = scene((0, 0), &held, fires);
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        let d = planner.decide(ctx, &goal, 2);
        assert_eq!(d.action, "moveTo", "{d:?}");
        assert_eq!(
            d.params,
            json!({"x": 0, "z": -1}),
            "the first tile around with no fire"
        );
        // That tile could not be walked to: the next one is.
        planner.observe(&d, &Outcome::refused("blocked", "blocked"), 2);
        let d = planner.decide(ctx, &goal, 3);
        assert_eq!(d.params, json!({"x": 1, "z": -1}));
    }

    /// The planner's decision for `goal` with the bundled recipes, holding `items` at `levels`
    /// beside `stations`.
    fn decide_making(
        goal: &Goal,
        items: &[(&str, i64)],
        levels: &[(Skill, i64)],
        stations: Vec<Entity>,
    ) -> Decision {
        let knowledge = crate::making::tests::knowledge();
        let model = crate::making::tests::model(items, levels, stations);
        let ctx = Ctx {
            model: &model,
            knowledge: &knowledge,
        };
        Planner::new().decide(ctx, goal, 1)
    }

    #[test]
    fn a_smither_makes_all_it_can_of_the_highest_recipe_its_level_bars_and_anvil_allow() {
        use crate::making::tests::station;
        let goal = skill_goal("smithing");
        let held = [("hammer", 1), ("bronze_bar", 3)];
        // Smithing 5: arrowtips (5) over the sword (4), the helmet (3) and the level-1 recipes.
        let d = decide_making(
            &goal,
            &held,
            &[(Skill::Smithing, 5)],
            vec![station("anvil-1", "anvil", 2)],
        );
        assert_eq!(d.action, "makeItem", "{d:?}");
        assert_eq!(
            d.params,
            json!({"recipeId": "smithing:bronze_arrowtips", "quantity": "all"})
        );
        // Level 1: the first level-1 recipe in content order.
        let d = decide_making(&goal, &held, &[], vec![station("anvil-1", "anvil", 2)]);
        assert_eq!(d.params["recipeId"], "smithing:bronze_dagger", "{d:?}");
        // At 18 with four bars, the platebody (five bars) is out of reach: the arrowtips.
        let d = decide_making(
            &goal,
            &[("hammer", 1), ("bronze_bar", 4)],
            &[(Skill::Smithing, 18)],
            vec![station("anvil-1", "anvil", 2)],
        );
        assert_eq!(d.params["recipeId"], "smithing:bronze_arrowtips", "{d:?}");
        // No anvil in view: nothing to make here.
        let d = decide_making(&goal, &held, &[(Skill::Smithing, 5)], vec![]);
        assert_eq!(d.action, "idle", "{d:?}");
    }

    #[test]
    fn a_cook_by_a_fire_cooks_all_of_the_best_food_its_level_allows() {
        use crate::making::tests::station;
        let goal = skill_goal("cooking");
        let held = [("raw_shrimp", 2), ("raw_trout", 2)];
        let fire = || vec![station("fire-1", "fire", 1)];
        let d = decide_making(&goal, &held, &[(Skill::Cooking, 15)], fire());
        assert_eq!(
            (d.action, d.params.clone()),
            (
                "makeItem",
                json!({"recipeId": "cooking:trout", "quantity": "all"})
            )
        );
        // Trout needs 15: below it, the shrimp.
        let d = decide_making(&goal, &held, &[(Skill::Cooking, 14)], fire());
        assert_eq!(d.params["recipeId"], "cooking:shrimp", "{d:?}");
        // No fire or range: the cook lights one first (logs and a tinderbox held).
        let d = decide_making(
            &goal,
            &[("raw_shrimp", 2), ("tinderbox", 1), ("logs", 1)],
            &[],
            vec![],
        );
        assert_eq!(
            (d.action, d.params.clone()),
            ("lightFire", json!({"itemId": "logs"}))
        );
    }

    #[test]
    fn a_firemaker_lights_the_best_logs_its_level_allows() {
        let goal = skill_goal("firemaking");
        let held = [("tinderbox", 1), ("logs", 1), ("oak_logs", 1)];
        let d = decide_making(&goal, &held, &[(Skill::Firemaking, 15)], vec![]);
        assert_eq!(
            (d.action, d.params.clone()),
            ("lightFire", json!({"itemId": "oak_logs"}))
        );
        let d = decide_making(&goal, &held, &[(Skill::Firemaking, 14)], vec![]);
        assert_eq!(d.params, json!({"itemId": "logs"}), "{d:?}");
    }
}
