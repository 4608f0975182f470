//! Gathering: woodcutting, mining and fishing from a resource entity, as a continuous action. Once
//! next to the node the player rolls every cycle (the first roll one cycle after arriving); each
//! success puts one yield in the inventory with its XP, uses up bait, and may deplete the node.
//! Formulas: [`wayfarer_content::skilling`] and `docs/mechanics.md` ("Gathering").

use rand::Rng;
use wayfarer_content::{GatheringNode, Skill, ToolRequirement, Yield};
use wayfarer_protocol::ws::codes;

use crate::actions::{Flow, Intent};
use crate::events::Event;
use crate::flows::FlowKind;
use crate::game_messages;
use crate::items::skill_title;
use crate::layout::Placed;
use crate::skills::Xp;
use crate::world::World;
use wayfarer_content::skilling::{gather_bounds, skilling_numerator, SKILLING_ROLL_RANGE};

/// The tool a player gathers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GatherTool {
    /// Rank among the skill's tools (1 = bronze); 1 for exact-item tools and no tool.
    pub tier: u32,
    /// Ticks between rolls when the tool sets them (pickaxes), instead of the node's cycle.
    pub roll_ticks: Option<u32>,
}

/// What the tool requirement is called in a refusal (an exact item by its content name).
fn tool_word(node: &GatheringNode, content: &wayfarer_content::Content) -> String {
    match &node.tool {
        ToolRequirement::AnyForSkill(Skill::Woodcutting) => "a hatchet".into(),
        ToolRequirement::AnyForSkill(Skill::Mining) => "a pickaxe".into(),
        ToolRequirement::AnyForSkill(skill) => format!("a {} tool", skill.as_str()),
        ToolRequirement::Item(item) => match content.items.get(item.as_str()) {
            Some(known) => crate::narration::with_article(&known.name.to_lowercase()),
            None => crate::narration::with_article(&item.replace('_', " ")),
        },
        ToolRequirement::None => "nothing".into(),
    }
}

impl World {
    /// The item ids a player holds: inventory then the weapon slot (a wielded hatchet counts).
    fn held_items(&self, index: usize) -> Vec<String> {
        let player = &self.players[index];
        player
            .inventory
            .stacks()
            .map(|(_, s)| s.item_id.clone())
            .chain(
                player
                    .equipment
                    .get(wayfarer_content::EquipSlot::Weapon)
                    .map(|s| s.item_id.clone()),
            )
            .collect()
    }

    /// The best tool the player holds for `node` and may use (meets the tool's own level
    /// requirements), or `None`.
    pub(crate) fn gathering_tool(&self, index: usize, node: &GatheringNode) -> Option<GatherTool> {
        let skills = &self.players[index].skills;
        let usable = |item: &wayfarer_content::Item| {
            item.requirements
                .iter()
                .all(|(skill, level)| u32::from(skills.level(*skill)) >= *level)
        };
        match &node.tool {
            ToolRequirement::None => Some(GatherTool {
                tier: 1,
                roll_ticks: None,
            }),
            ToolRequirement::Item(wanted) => self
                .held_items(index)
                .iter()
                .any(|held| held == wanted)
                .then_some(GatherTool {
                    tier: 1,
                    roll_ticks: None,
                }),
            ToolRequirement::AnyForSkill(skill) => self
                .held_items(index)
                .iter()
                .filter_map(|held| self.content.items.get(held.as_str()))
                .filter(|item| usable(item))
                .filter_map(|item| item.tool.as_ref())
                .filter(|tool| tool.skill == *skill)
                .max_by_key(|tool| tool.priority)
                .map(|tool| GatherTool {
                    tier: tool.priority.max(1),
                    roll_ticks: tool.roll_ticks.filter(|t| *t > 0),
                }),
        }
    }

    /// Whether `yield_` fits in the player's inventory, counting the bait a catch would use.
    fn yield_fits(&mut self, index: usize, node: &GatheringNode, yield_: &Yield) -> bool {
        let stacking = self.stacking(&yield_.item_id);
        self.players[index]
            .inventory
            .dry_run(|tx| {
                if let Some(bait) = &node.consumes {
                    tx.remove_item(bait, 1)?;
                }
                tx.add(&yield_.item_id, yield_.quantity, stacking)
            })
            .is_ok()
    }

    /// One tick of gathering from the intent's resource.
    pub(crate) fn gather_tick(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let id = self.players[index].id.clone();
        let content = self.content.clone();
        let position = self.resource_position(intent.target);
        let node = position.and_then(|p| {
            let placement = &self.resources[p].placement;
            (placement.what == Placed::Node)
                .then(|| content.gathering.get(&placement.resource_id))
                .flatten()
        });
        let (Some(position), Some(node)) = (position, node) else {
            Self::reject(
                &id,
                codes::INVALID_TARGET,
                "you cannot gather from that",
                intent.reference,
                events,
            );
            return Flow::Done;
        };
        if self.is_depleted(position) {
            let text = match node.skill {
                Skill::Mining => "There is no ore currently available in this rock.",
                Skill::Woodcutting => "This tree has been cut down.",
                _ => "There is nothing left to gather here.",
            };
            self.system_message(Some(&id), text.into(), events);
            return Flow::Done;
        }
        let level = u32::from(self.players[index].skills.level(node.skill));
        if level < node.level {
            Self::reject(
                &id,
                codes::CANNOT_DO,
                format!(
                    "You need a {} level of {} to gather from this {}.",
                    skill_title(node.skill),
                    node.level,
                    node.name
                ),
                intent.reference,
                events,
            );
            return Flow::Done;
        }
        let Some(tool) = self.gathering_tool(index, node) else {
            Self::reject(
                &id,
                codes::CANNOT_DO,
                format!(
                    "You need {} to gather from this {}.",
                    tool_word(node, &content),
                    node.name
                ),
                intent.reference,
                events,
            );
            return Flow::Done;
        };
        if let Some(bait) = &node.consumes {
            if !self.players[index].inventory.contains(bait) {
                let name = content.items.get(bait).map_or(bait.as_str(), |i| &i.name);
                Self::reject(
                    &id,
                    codes::CANNOT_DO,
                    format!("You don't have any {name} left."),
                    intent.reference,
                    events,
                );
                return Flow::Done;
            }
        }
        let eligible: Vec<&Yield> = node.yields.iter().filter(|y| y.level <= level).collect();
        if eligible.is_empty() {
            let needed = node
                .yields
                .iter()
                .map(|y| y.level)
                .min()
                .unwrap_or(node.level);
            Self::reject(
                &id,
                codes::CANNOT_DO,
                format!(
                    "You need a {} level of {needed} to gather anything here.",
                    skill_title(node.skill)
                ),
                intent.reference,
                events,
            );
            return Flow::Done;
        }
        let fits = eligible.iter().any(|y| self.yield_fits(index, node, y));
        if !fits {
            let text = game_messages::too_full_for(&self.item_called(&eligible[0].item_id));
            self.narrate(index, text, events);
            return Flow::Done;
        }
        if !intent.engaged {
            self.narrate(
                index,
                game_messages::gathering_started(node.skill, &node.name),
                events,
            );
        }
        let cycle = u64::from(tool.roll_ticks.unwrap_or(node.cycle_ticks).max(1));
        if !self.cycle_due(index, intent, cycle) {
            return Flow::Continue;
        }
        // A tool that sets the roll interval (pickaxes) helps by rolling more often, not by a
        // better chance.
        let tier = if tool.roll_ticks.is_some() {
            1
        } else {
            tool.tier
        };
        let (low, high) = gather_bounds(node.level, tier);
        let numerator = skilling_numerator(low, high, level);
        if self.rng.random_range(0..SKILLING_ROLL_RANGE) >= numerator {
            return Flow::Continue;
        }
        let Some(got) = self.pick_yield(&eligible) else {
            return Flow::Continue;
        };
        let stacking = self.stacking(&got.item_id);
        let added = self.players[index].inventory.apply(|tx| {
            if let Some(bait) = &node.consumes {
                tx.remove_item(bait, 1)?;
            }
            tx.add(&got.item_id, got.quantity, stacking)
        });
        if added.is_err() {
            let text = game_messages::too_full_for(&self.item_called(&got.item_id));
            self.narrate(index, text, events);
            return Flow::Done;
        }
        self.players[index].dirty.inventory = true;
        let text = game_messages::gathered(node.skill, &self.item_called(&got.item_id));
        self.narrate(index, text, events);
        if let Some(bait) = &node.consumes {
            self.flow_by(index, FlowKind::Left, "consumed", bait, 1u32);
        }
        self.flow_by(
            index,
            FlowKind::Entered,
            "gathered",
            &got.item_id,
            got.quantity,
        );
        self.quest_trigger(
            index,
            crate::quests::Trigger::Gather(&got.item_id, got.quantity),
            events,
        );
        let xp = Xp::from_f64(got.xp * f64::from(got.quantity));
        self.grant_xp(index, node.skill, xp, events);
        if node.deplete_chance > 0.0 && self.rng.random::<f64>() < node.deplete_chance {
            self.deplete(position, node.respawn_ticks);
            self.narrate(
                index,
                game_messages::node_depleted(node.skill, &node.name),
                events,
            );
            return Flow::Done;
        }
        Flow::Continue
    }

    /// Which yield a success gives: the eligible yields from the highest level down, each taken
    /// with its own chance; the lowest one when none of the rolls hits (the genre's fishing rule).
    fn pick_yield<'y>(&mut self, eligible: &[&'y Yield]) -> Option<&'y Yield> {
        let mut by_level: Vec<&Yield> = eligible.to_vec();
        // Stable: among equal levels, content order.
        by_level.sort_by_key(|y| std::cmp::Reverse(y.level));
        for y in &by_level {
            if y.chance >= 1.0 || self.rng.random::<f64>() < y.chance {
                return Some(y);
            }
        }
        by_level.last().copied()
    }

    /// Whether a continuous action (a roll, a craft) acts this tick: the first tick next to the
    /// target only starts its clock, then it acts every `cycle` ticks. When it is due, the next
    /// one is scheduled.
    pub(crate) fn cycle_due(&mut self, index: usize, intent: &Intent, cycle: u64) -> bool {
        let now = self.now();
        if intent.engaged && now < intent.next_at {
            return false;
        }
        self.set_next_at(index, now + cycle);
        intent.engaged
    }

    /// Sets the tick of the player's next roll (or craft).
    pub(crate) fn set_next_at(&mut self, index: usize, at: u64) {
        if let Some(intent) = self.players[index].intent.as_mut() {
            intent.next_at = at;
        }
    }
}
