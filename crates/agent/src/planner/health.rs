//! Fighting fit: a fighter without food below half health does not start another fight; it takes
//! food from the bank when the bank has some, else rests until its health is back.

use serde_json::json;

use super::{Decision, Planner};
use crate::actions::{food_slot, known_bank, Ctx};

/// Health fraction below which a fighter with no food stops to get some or rest.
pub const REST_HEALTH: f64 = 0.5;
/// Food taken from the bank at once.
pub const FOOD_WITHDRAWN: u64 = 10;

impl Planner {
    pub(super) fn fit_to_fight(&mut self, ctx: Ctx<'_>, now: u64) -> Option<Decision> {
        let me = &ctx.model.me;
        if me.max_health <= 0 || food_slot(ctx).is_some() {
            return None;
        }
        let health = me.health as f64 / me.max_health as f64;
        let banked_food = ctx.model.bank.as_ref().and_then(|bank| {
            bank.iter().find(|b| {
                ctx.knowledge
                    .items
                    .get(b.item_id.as_str())
                    .is_some_and(|i| i.heal_amount.is_some())
            })
        });
        if let Some(food) = banked_food {
            let key = format!("bank:{}", food.item_id);
            if known_bank(ctx).is_some() && !self.avoided(&key, now) && ctx.model.free_slots() > 0 {
                return Some(Decision::new(
                    "bankWithdraw",
                    json!({"itemId": food.item_id, "quantity": food.quantity.min(FOOD_WITHDRAWN)}),
                    "no food held: taking some from the bank",
                ));
            }
        }
        if ctx.model.bank.is_none() && known_bank(ctx).is_some() && !self.avoided("bank:look", now)
        {
            // The bank's contents are not known yet: open it once to see (a deposit of nothing).
            self.avoid
                .insert("bank:look".into(), now + super::AVOID_TICKS * 20);
            return Some(Decision::new(
                "bankDeposit",
                json!({"all": true, "keepTools": true}),
                "no food held: looking in the bank",
            ));
        }
        (health < REST_HEALTH && !ctx.model.in_combat()).then(|| {
            Decision::new(
                "idle",
                json!({"ticks": 10}),
                format!(
                    "health {}/{} and no food: resting",
                    me.health, me.max_health
                ),
            )
        })
    }
}
