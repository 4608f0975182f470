//! Fighting fit: a fighter without food gets some before the next fight — from the bank when the
//! bank has some, else bought at the general store with the coins held (the most healing the
//! purse buys) — and below half health with none to be had it steps out of the fight and rests
//! until its health is back to [`RESTED_HEALTH`] (regeneration is a hitpoint a minute: a fighter
//! that goes back in at 40% dies, as the bench's chicken task showed).

use serde_json::json;

use super::{Decision, Planner};
use crate::actions::{food_slot, known_bank, Ctx};

/// Health fraction below which a fighter with no food stops to get some or rest.
pub const REST_HEALTH: f64 = 0.5;
/// Health fraction a resting fighter waits for before it fights again.
pub const RESTED_HEALTH: f64 = 0.9;
/// Food taken from the bank at once.
pub const FOOD_WITHDRAWN: u64 = 10;
/// Most food bought at once.
pub const FOOD_BOUGHT: u64 = 10;
/// Ticks after a resting fighter's flee before it flees again (still being hit).
pub const FLEE_AGAIN_TICKS: u64 = 10;
/// Farthest loot is walked to.
pub const LOOT_TILES: u32 = 6;

/// Whether `item` is raw food a cooking recipe this level allows turns into food.
fn cooks_into_food(ctx: Ctx<'_>, item: &str) -> bool {
    let level = ctx.model.level(wayfarer_protocol::Skill::Cooking);
    ctx.knowledge.recipes.iter().any(|r| {
        r.kind == wayfarer_content::RecipeKind::Cooking
            && i64::from(r.level) <= level
            && r.inputs.iter().any(|i| i.item_id == item)
            && r.output.as_ref().is_some_and(|o| {
                ctx.knowledge
                    .items
                    .get(o.item_id.as_str())
                    .is_some_and(|f| f.heal_amount.is_some())
            })
    })
}

/// Whether the bag holds raw food that cooks into food.
fn cookable_food(ctx: Ctx<'_>) -> bool {
    ctx.model
        .me
        .inventory
        .iter()
        .any(|s| cooks_into_food(ctx, &s.item_id))
}

impl Planner {
    pub(super) fn fit_to_fight(&mut self, ctx: Ctx<'_>, now: u64) -> Option<Decision> {
        let me = &ctx.model.me;
        if me.max_health <= 0 {
            return None;
        }
        let health = me.health as f64 / me.max_health as f64;
        if health >= RESTED_HEALTH {
            self.resting = false;
        }
        if food_slot(ctx).is_some() {
            // The eat reflex keeps it up.
            self.resting = false;
            return None;
        }
        if ctx.model.in_combat() && health < REST_HEALTH {
            // Out of the fight before anything else (cooking under blows killed a fighter).
            self.resting = true;
        } else if let Some(withdraw) = self.banked_food(ctx, now) {
            return Some(withdraw);
        } else if cookable_food(ctx) && ctx.model.slot_of("tinderbox").is_some() {
            // The loot is food once cooked: logs, a fire, the cooking (a goal's fight waits).
            return Some(self.cook(ctx, now));
        } else if let Some(buy) = self.buy_food(ctx, now) {
            return Some(buy);
        } else if ctx.model.bank.is_none()
            && known_bank(ctx).is_some()
            && !self.avoided("bank:look", now)
        {
            // The bank's contents are not known yet: open it once to see (a deposit of what is
            // not a tool; the coins stay, they buy food).
            self.avoid
                .insert("bank:look".into(), now + super::AVOID_TICKS * 20);
            return Some(Decision::new(
                "bankDeposit",
                json!({"all": true, "keepTools": true}),
                "no food held: looking in the bank",
            ));
        }
        if health < REST_HEALTH {
            self.resting = true;
        }
        if !self.resting {
            return None;
        }
        // One flee, then rest: the fight is remembered for a few ticks after it ends, and
        // fleeing from nobody is refused.
        let fled = self.avoided("rest:fled", now);
        Some(if ctx.model.in_combat() && !fled {
            self.avoid
                .insert("rest:fled".into(), now + FLEE_AGAIN_TICKS);
            Decision::new(
                "flee",
                json!({}),
                format!(
                    "health {}/{} and no food: out of the fight to rest",
                    me.health, me.max_health
                ),
            )
        } else {
            Decision::new(
                "idle",
                json!({"ticks": 10}),
                format!(
                    "health {}/{} and no food: resting to {:.0}%",
                    me.health,
                    me.max_health,
                    RESTED_HEALTH * 100.0
                ),
            )
        })
    }

    /// Useful loot in view worth the steps: raw food that cooks into food this level allows (the
    /// fighter's next meal), within [`LOOT_TILES`] and with room in the bag; bones, feathers and
    /// the like are left.
    pub(super) fn useful_loot(&self, ctx: Ctx<'_>, now: u64) -> Option<Decision> {
        if ctx.model.free_slots() == 0 {
            return None;
        }
        let item = ctx
            .model
            .nearest_of(wayfarer_protocol::ws::EntityKind::GroundItem)
            .into_iter()
            .take_while(|e| ctx.model.distance_to(e.x, e.z) <= LOOT_TILES)
            .find(|e| {
                e.item_id().is_some_and(|i| cooks_into_food(ctx, i)) && !self.avoided(e.id(), now)
            })?;
        Some(Decision::new(
            "pickupItem",
            json!({"targetId": item.id()}),
            format!(
                "loot worth keeping: {} (food once cooked)",
                item.item_id().unwrap_or_default()
            ),
        ))
    }

    /// Food from the bank, when the bank (as last seen) has some.
    fn banked_food(&mut self, ctx: Ctx<'_>, now: u64) -> Option<Decision> {
        let food = ctx.model.bank.as_ref()?.iter().find(|b| {
            ctx.knowledge
                .items
                .get(b.item_id.as_str())
                .is_some_and(|i| i.heal_amount.is_some())
        })?;
        let key = format!("bank:{}", food.item_id);
        (known_bank(ctx).is_some() && !self.avoided(&key, now) && ctx.model.free_slots() > 0).then(
            || {
                Decision::new(
                    "bankWithdraw",
                    json!({"itemId": food.item_id, "quantity": food.quantity.min(FOOD_WITHDRAWN)}),
                    "no food held: taking some from the bank",
                )
            },
        )
    }

    /// Food from the general store: in the open shop, the most healing the coins buy (the best
    /// heal per coin, as many as affordable up to [`FOOD_BOUGHT`]); else the way to the shop while
    /// the coins buy at least one of the cheapest food known.
    fn buy_food(&mut self, ctx: Ctx<'_>, now: u64) -> Option<Decision> {
        if self.avoided("shop:food", now) || ctx.model.free_slots() == 0 {
            return None;
        }
        let coins = u64::try_from(ctx.model.me.coins).unwrap_or(0);
        let heal = |item: &str| {
            ctx.knowledge
                .items
                .get(item)
                .and_then(|i| i.heal_amount)
                .map(u64::from)
        };
        if let Some(shop) = &ctx.model.shop {
            let pick = shop
                .items
                .iter()
                .filter(|i| i.price > 0 && i.price <= coins && i.stock != Some(0))
                .filter_map(|i| heal(&i.item_id).map(|h| (h, i)))
                .max_by(|(ha, a), (hb, b)| {
                    // heal per coin, then the bigger heal
                    (ha * b.price)
                        .cmp(&(hb * a.price))
                        .then(ha.cmp(hb))
                        .then(b.item_id.cmp(&a.item_id))
                });
            return match pick {
                Some((_, line)) => {
                    let quantity = (coins / line.price)
                        .min(FOOD_BOUGHT)
                        .min(ctx.model.free_slots() as u64);
                    Some(Decision::new(
                        "buyItem",
                        json!({"itemId": line.item_id, "quantity": quantity}),
                        format!("no food held: buying {quantity} {}", line.item_id),
                    ))
                }
                None => {
                    self.avoid
                        .insert("shop:food".into(), now + super::AVOID_TICKS * 10);
                    None
                }
            };
        }
        // The cheapest food anyone sells is worth a few coins (its value); with fewer, no trip.
        let cheapest = ctx
            .knowledge
            .items
            .values()
            .filter(|i| i.heal_amount.is_some() && i.value > 0)
            .map(|i| i.value)
            .min()?;
        if coins < cheapest {
            return None;
        }
        self.go_shopping(ctx, now, "no food held: to the shop")
    }
}
