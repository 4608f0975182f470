//! Wearing the best gear held: an item the agent can wear, better in its slot than what is worn
//! there (by its melee attack, strength and defence bonuses).

use serde_json::json;
use wayfarer_content::Item;

use super::Decision;
use crate::actions::Ctx;

/// What an item adds to a melee fight.
fn worth(item: &Item) -> i32 {
    let b = &item.bonuses;
    b.attack_melee + b.strength_melee + b.defense_stab + b.defense_slash + b.defense_crush
}

/// `equipItem` of the best upgrade held, if any.
pub fn upgrade(ctx: Ctx<'_>) -> Option<Decision> {
    let level_ok = |item: &Item| {
        item.requirements
            .iter()
            .all(|(skill, level)| ctx.model.level(*skill) >= i64::from(*level))
    };
    let worn_worth = |slot: &str| {
        ctx.model
            .me
            .equipment
            .get(slot)
            .and_then(|e| ctx.knowledge.items.get(e.item_id.as_str()))
            .map_or(0, worth)
    };
    ctx.model
        .me
        .inventory
        .iter()
        .filter_map(|s| {
            let item = ctx.knowledge.items.get(s.item_id.as_str())?;
            let slot = serde_json::to_value(item.equip_slot?).ok()?;
            let slot = slot.as_str()?.to_owned();
            let gain = worth(item) - worn_worth(&slot);
            (gain > 0 && level_ok(item)).then_some((gain, s.slot, &s.item_id))
        })
        .max_by_key(|(gain, slot, _)| (*gain, std::cmp::Reverse(*slot)))
        .map(|(gain, _, id)| {
            Decision::new(
                "equipItem",
                json!({"itemId": id}),
                format!("{id} is better than what is worn (+{gain})"),
            )
        })
}
