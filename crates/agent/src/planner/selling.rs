//! Earning coins: gather what sells (logs) until the bag is full, then sell all of it at a shop.

use serde_json::json;
use wayfarer_protocol::Skill;

use super::{Decision, Planner};
use crate::actions::Ctx;

impl Planner {
    pub(super) fn earn(&mut self, ctx: Ctx<'_>, now: u64) -> Decision {
        let produce: Vec<_> = ctx
            .model
            .me
            .inventory
            .iter()
            .filter(|s| {
                ctx.knowledge
                    .nodes
                    .values()
                    .any(|n| n.yields.iter().any(|y| y.item_id == s.item_id))
            })
            .collect();
        // Sell a full bag, all of it, then gather again: a round trip per log earns nothing.
        if produce.is_empty() {
            self.selling = false;
        } else if ctx.model.free_slots() == 0 {
            self.selling = true;
        }
        let selling = self.selling;
        if selling {
            if ctx.model.shop.as_ref().is_some_and(|s| s.buyback) {
                let slot = produce[0];
                return Decision::new(
                    "sellItem",
                    json!({"itemId": slot.item_id, "quantity": slot.quantity}),
                    format!("earning: selling {}", slot.item_id),
                );
            }
            if let Some(go) = self.go_shopping(ctx, now, "earning: the bag is worth selling") {
                return go;
            }
        }
        self.gather_to_sell(ctx, now)
    }

    /// Gathering without banking: what is gathered is sold, not kept.
    fn gather_to_sell(&mut self, ctx: Ctx<'_>, now: u64) -> Decision {
        self.gather(ctx, Skill::Woodcutting, now)
    }
}
