//! Getting what a goal needs: the tool a gathering skill wants (from the bank, where it may have
//! been banked, else bought at a shop that sells one), and the way to a shop.

use serde_json::json;
use wayfarer_content::ToolRequirement;
use wayfarer_protocol::ws::EntityKind;
use wayfarer_protocol::Skill;

use super::{Decision, Planner, NODE_APPROACH_TILES};
use crate::actions::{has_tool, known_bank, Ctx};

/// The kind of place a general store's keeper stands at (the areas' NPC `type`).
pub const SHOP_PLACE: &str = "general_store";

/// The tool the nodes of `skill` this level allows need, when the agent lacks it.
pub fn missing_tool(ctx: Ctx<'_>, skill: Skill) -> Option<ToolRequirement> {
    let level = ctx.model.level(skill);
    let tool = ctx
        .knowledge
        .nodes
        .values()
        .filter(|n| n.skill == skill && i64::from(n.level) <= level)
        .map(|n| n.tool.clone())
        .next()?;
    (!has_tool(ctx, &tool)).then_some(tool)
}

/// Whether `item` is a tool that serves `tool`, usable at this level.
fn serves(ctx: Ctx<'_>, item: &str, tool: &ToolRequirement) -> bool {
    let Some(info) = ctx.knowledge.items.get(item) else {
        return false;
    };
    let usable = info
        .requirements
        .iter()
        .all(|(skill, level)| ctx.model.level(*skill) >= i64::from(*level));
    usable
        && match tool {
            ToolRequirement::None => false,
            ToolRequirement::Item(wanted) => item == wanted.as_str(),
            ToolRequirement::AnyForSkill(skill) => {
                info.tool.as_ref().is_some_and(|t| t.skill == *skill)
            }
        }
}

impl Planner {
    /// The next step to get `tool`: withdraw it when the bank has one (or is not known yet), else
    /// buy one; `None` when neither can work (nothing banked, no coins or no shop selling it).
    pub(super) fn fetch_tool(
        &mut self,
        ctx: Ctx<'_>,
        tool: &ToolRequirement,
        now: u64,
    ) -> Option<Decision> {
        let banked = match &ctx.model.bank {
            Some(bank) => bank
                .iter()
                .find(|b| serves(ctx, &b.item_id, tool))
                .map(|b| b.item_id.clone()),
            // Not seen yet: the usual tool is worth a look (a failed look is remembered).
            None => self.usual_tool(ctx, tool),
        };
        if let Some(item) = banked {
            let key = format!("bank:{item}");
            if known_bank(ctx).is_some() && !self.avoided(&key, now) && ctx.model.free_slots() > 0 {
                return Some(Decision::new(
                    "bankWithdraw",
                    json!({"itemId": item, "quantity": 1}),
                    format!("the tool is in the bank: withdrawing {item}"),
                ));
            }
        }
        self.buy_tool(ctx, tool, now)
    }

    /// The first item of the content that serves `tool` (the bronze one, in content order).
    fn usual_tool(&self, ctx: Ctx<'_>, tool: &ToolRequirement) -> Option<String> {
        ctx.knowledge
            .items
            .keys()
            .find(|id| serves(ctx, id, tool))
            .map(|id| id.to_string())
    }

    fn buy_tool(&mut self, ctx: Ctx<'_>, tool: &ToolRequirement, now: u64) -> Option<Decision> {
        if self.avoided("shop:tool", now) {
            return None;
        }
        if let Some(shop) = &ctx.model.shop {
            // The best the purse allows: the dearest affordable one.
            let pick = shop
                .items
                .iter()
                .filter(|i| serves(ctx, &i.item_id, tool) && (i.price as i64) <= ctx.model.me.coins)
                .max_by_key(|i| i.price);
            return match pick {
                Some(line) => Some(Decision::new(
                    "buyItem",
                    json!({"itemId": line.item_id, "quantity": 1}),
                    format!("no tool: buying {} for {}", line.item_id, line.price),
                )),
                None => {
                    // This shop cannot help: not again for a while.
                    self.avoid
                        .insert("shop:tool".into(), now + super::AVOID_TICKS * 4);
                    None
                }
            };
        }
        if ctx.model.me.coins <= 0 {
            return None;
        }
        self.go_shopping(ctx, now, "no tool: to the shop")
    }

    /// The way to an open shop: talk to a keeper in view, else walk to the nearest known one.
    pub(super) fn go_shopping(&mut self, ctx: Ctx<'_>, now: u64, why: &str) -> Option<Decision> {
        let here = ctx.model.me.tile.into();
        let places = ctx.knowledge.places_of(SHOP_PLACE, here);
        let keeper = ctx.model.nearest_of(EntityKind::Npc).into_iter().find(|e| {
            e.type_id()
                .is_some_and(|t| places.iter().any(|p| p.id == t))
                && !self.avoided(e.id(), now)
        });
        if let Some(keeper) = keeper {
            self.shopping = true;
            return Some(Decision::new(
                "talkToNpc",
                json!({"targetId": keeper.id()}),
                format!("{why}: opening the shop"),
            ));
        }
        let place = places.first()?;
        Some(Decision::new(
            "navigateTo",
            json!({"x": place.tile.x, "z": place.tile.z, "within": NODE_APPROACH_TILES}),
            format!("{why}: walking to {}", place.id),
        ))
    }
}

/// The response of a shopkeeper's dialogue that opens the shop ("Show me your wares.").
pub fn shop_choice(dialogue: &wayfarer_protocol::ws::DialogueOpen) -> Option<u32> {
    const WORDS: [&str; 5] = ["wares", "trade", "shop", "browse", "buy"];
    dialogue
        .responses
        .iter()
        .find(|r| {
            let text = r.text.to_lowercase();
            WORDS.iter().any(|w| text.contains(w))
        })
        .map(|r| r.index)
}
