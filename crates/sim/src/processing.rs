//! Processing: turning items into other items with a recipe from content. Cooking on a fire or
//! range, smelting at a furnace and smithing at an anvil are continuous actions on a station entity
//! (one item per recipe `ticks`, while the inputs last; smithing makes one item per use); an item
//! used on another item makes a station-less recipe (fletching, crafting) at once.
//!
//! Every craft is one inventory transaction: the inputs go and the output comes, or nothing
//! changes. Formulas: [`crate::skilling`] and `docs/mechanics.md` ("Cooking", "Smelting and
//! smithing", "Item on item").

use rand::Rng;
use wayfarer_content::{Recipe, RecipeDetail, RecipeKind, Skill};
use wayfarer_protocol::ws::codes;

use crate::actions::{Flow, Intent, IntentKind};
use crate::events::Event;
use crate::flows::FlowKind;
use crate::items::skill_title;
use crate::layout::Placed;
use crate::skilling::burn_chance;
use crate::skills::Xp;
use crate::world::World;

/// The tool smithing needs in the inventory.
pub const HAMMER: &str = "hammer";

/// What a station entity is, for processing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heat {
    /// A player-lit fire.
    Fire,
    /// A cooking range.
    Range,
}

/// How one craft ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// The output was made.
    Made,
    /// The inputs were used up without the output (burnt food, impure ore).
    Failed,
}

impl World {
    /// The station type of resource entity `handle` (`fire` for fires), when it is a station or fire.
    fn station_type(&self, handle: crate::entities::Handle) -> Option<String> {
        let position = self.resource_position(handle)?;
        let placement = &self.resources[position].placement;
        match placement.what {
            Placed::Fire => Some("fire".into()),
            Placed::Station => Some(placement.resource_id.clone()),
            Placed::Node => None,
        }
    }

    /// An item's display name.
    pub(crate) fn item_name(&self, item_id: &str) -> String {
        self.content
            .items
            .get(item_id)
            .map_or_else(|| item_id.replace('_', " "), |i| i.name.clone())
    }

    /// Why player `index` cannot make `recipe` now, if they cannot.
    fn unmet(&self, index: usize, recipe: &Recipe) -> Option<String> {
        let player = &self.players[index];
        if let Some(skill) = recipe.skill {
            if u32::from(player.skills.level(skill)) < recipe.level {
                return Some(format!(
                    "You need a {} level of {} to make that.",
                    skill_title(skill),
                    recipe.level
                ));
            }
        }
        for input in &recipe.inputs {
            if player.inventory.count(&input.item_id) < u64::from(input.quantity) {
                return Some(format!(
                    "You need {} x {} to make that.",
                    input.quantity,
                    self.item_name(&input.item_id)
                ));
            }
        }
        let tools = recipe.tools.iter().map(String::as_str);
        let hammer = (recipe.kind == RecipeKind::Smithing).then_some(HAMMER);
        let consumables = recipe.consumables.iter().map(|c| c.item_id.as_str());
        for tool in tools.chain(hammer).chain(consumables) {
            if !player.inventory.contains(tool) {
                return Some(format!("You need a {} to make that.", self.item_name(tool)));
            }
        }
        None
    }

    /// The recipe to make among `candidates`: the highest-level one the player can make (the first
    /// in content order among equals); else the reason the lowest-level one cannot be made.
    fn best_recipe(&self, index: usize, candidates: &[Recipe]) -> Result<Recipe, String> {
        let mut best: Option<&Recipe> = None;
        for recipe in candidates {
            if self.unmet(index, recipe).is_none() && best.is_none_or(|b| recipe.level > b.level) {
                best = Some(recipe);
            }
        }
        if let Some(recipe) = best {
            return Ok(recipe.clone());
        }
        let lowest = candidates.iter().min_by_key(|r| r.level);
        Err(lowest
            .and_then(|r| self.unmet(index, r))
            .unwrap_or_else(|| "Nothing interesting happens.".into()))
    }

    /// Makes `recipe` once: inputs out, output in (unless `success` is false), consumables used up
    /// one craft in `uses`, XP on success.
    fn craft(
        &mut self,
        index: usize,
        recipe: &Recipe,
        success: bool,
        failed_output: Option<&str>,
        events: &mut Vec<Event>,
    ) -> Result<Outcome, String> {
        let used_up: Vec<String> = recipe
            .consumables
            .iter()
            .filter(|c| self.rng.random_range(0..c.uses.max(1)) == 0)
            .map(|c| c.item_id.clone())
            .collect();
        let output = if success {
            recipe
                .output
                .as_ref()
                .map(|o| (o.item_id.clone(), o.quantity))
        } else {
            failed_output.map(|id| (id.to_owned(), 1))
        };
        let stacking = output.as_ref().map(|(id, _)| self.stacking(id));
        let done = self.players[index].inventory.apply(|tx| {
            for input in &recipe.inputs {
                tx.remove_item(&input.item_id, input.quantity)?;
            }
            for item in &used_up {
                tx.remove_item(item, 1)?;
            }
            if let (Some((id, quantity)), Some(stacking)) = (&output, stacking) {
                tx.add(id, *quantity, stacking)?;
            }
            Ok(())
        });
        if done.is_err() {
            return Err("You do not have enough inventory space.".into());
        }
        self.players[index].dirty.inventory = true;
        for input in &recipe.inputs {
            self.flow(FlowKind::Left, "consumed", &input.item_id, input.quantity);
        }
        for item in &used_up {
            self.flow(FlowKind::Left, "consumed", item, 1u32);
        }
        if let Some((id, quantity)) = &output {
            self.flow(FlowKind::Entered, "crafted", id, *quantity);
        }
        if !success {
            return Ok(Outcome::Failed);
        }
        if let Some((id, quantity)) = &output {
            self.quest_trigger(index, crate::quests::Trigger::Make(id, *quantity), events);
        }
        if let Some(skill) = recipe.skill {
            self.grant_xp(index, skill, Xp::from_f64(recipe.xp), events);
        }
        Ok(Outcome::Made)
    }

    /// Ends an action that cannot go on: a rejection before the first craft, a plain message once
    /// the player has been working (running out is how such work normally ends).
    fn stop_with(
        &mut self,
        index: usize,
        intent: &Intent,
        message: String,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        if intent.engaged {
            self.system_message(Some(&id), message, events);
        } else {
            Self::reject(&id, codes::CANNOT_DO, message, intent.reference, events);
        }
    }

    /// The lowest inventory slot holding `item_id`.
    fn slot_holding(&self, index: usize, item_id: &str) -> Option<usize> {
        self.players[index]
            .inventory
            .stacks()
            .find(|(_, s)| s.item_id == item_id)
            .map(|(slot, _)| slot)
    }

    /// Points the player's intent at the next slot holding `item_id` (the one just used emptied).
    /// False when there is none left.
    fn next_slot(&mut self, index: usize, item_id: &str, kind: fn(usize) -> IntentKind) -> bool {
        let Some(slot) = self.slot_holding(index, item_id) else {
            return false;
        };
        if let Some(intent) = self.players[index].intent.as_mut() {
            intent.kind = kind(slot);
        }
        true
    }

    /// The cooking recipe for raw food `item_id`.
    /// The item id in `slot`, or `None` after stopping the intent with why.
    fn item_in_slot_or_stop(
        &mut self,
        index: usize,
        slot: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Option<String> {
        let item_id = self.players[index]
            .inventory
            .get(slot)
            .map(|s| s.item_id.clone());
        if item_id.is_none() {
            self.stop_with(
                index,
                intent,
                format!("inventory slot {slot} is empty"),
                events,
            );
        }
        item_id
    }

    fn cooking_recipe(&self, item_id: &str) -> Option<Recipe> {
        self.recipe_from(RecipeKind::Cooking, item_id)
    }

    /// The recipe of `kind` whose first input is `item_id` (cooking, firemaking: one per item).
    pub(crate) fn recipe_from(&self, kind: RecipeKind, item_id: &str) -> Option<Recipe> {
        self.content
            .recipes
            .iter()
            .find(|r| r.kind == kind && r.inputs.first().is_some_and(|i| i.item_id == item_id))
            .cloned()
    }

    /// One tick of cooking the food in `slot` on the intent's fire or range.
    pub(crate) fn cook_tick(
        &mut self,
        index: usize,
        slot: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let heat = match self.station_type(intent.target).as_deref() {
            Some("fire") => Heat::Fire,
            Some("range") => Heat::Range,
            _ => {
                self.stop_with(index, intent, "You cannot cook on that.".into(), events);
                return Flow::Done;
            }
        };
        let Some(item_id) = self.item_in_slot_or_stop(index, slot, intent, events) else {
            return Flow::Done;
        };
        let Some(recipe) = self.cooking_recipe(&item_id) else {
            self.stop_with(index, intent, "You cannot cook that.".into(), events);
            return Flow::Done;
        };
        let RecipeDetail::Cooking {
            burnt,
            stop_burn_level,
            allow_fire,
        } = recipe.detail.clone()
        else {
            return Flow::Done;
        };
        if heat == Heat::Fire && !allow_fire {
            self.stop_with(
                index,
                intent,
                "You need a range to cook that.".into(),
                events,
            );
            return Flow::Done;
        }
        if let Some(message) = self.unmet(index, &recipe) {
            self.stop_with(index, intent, message, events);
            return Flow::Done;
        }
        let ticks = u64::from(recipe.ticks.max(1));
        if !self.cycle_due(index, intent, ticks) {
            return Flow::Continue;
        }
        let level = u32::from(self.players[index].skills.level(Skill::Cooking));
        let burn = burn_chance(level, recipe.level, stop_burn_level, heat == Heat::Range);
        let burnt_it = burn > 0.0 && self.rng.random::<f64>() < burn;
        if let Err(message) = self.craft(index, &recipe, !burnt_it, burnt.as_deref(), events) {
            self.stop_with(index, intent, message, events);
            return Flow::Done;
        }
        if self.next_slot(index, &item_id, |slot| IntentKind::Cook { slot }) {
            Flow::Continue
        } else {
            Flow::Done
        }
    }

    /// An item used on an entity: raw food on a fire or range cooks it, ore on a furnace smelts it,
    /// bars on an anvil smith them.
    pub(crate) fn use_on_entity(
        &mut self,
        index: usize,
        slot: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let Some(item_id) = self.item_in_slot_or_stop(index, slot, intent, events) else {
            return Flow::Done;
        };
        let station = self.station_type(intent.target);
        match station.as_deref() {
            Some("fire" | "range") if self.cooking_recipe(&item_id).is_some() => {
                let cooking = Intent {
                    kind: IntentKind::Cook { slot },
                    ..intent.clone()
                };
                if let Some(current) = self.players[index].intent.as_mut() {
                    current.kind = cooking.kind;
                }
                self.cook_tick(index, slot, &cooking, events)
            }
            Some("furnace") => {
                self.make_tick(index, &item_id, RecipeKind::Smelting, intent, events)
            }
            Some("anvil") => self.make_tick(index, &item_id, RecipeKind::Smithing, intent, events),
            _ => {
                self.stop_with(index, intent, "Nothing interesting happens.".into(), events);
                Flow::Done
            }
        }
    }

    /// The recipes of `kind` that take `item_id` as an input.
    fn recipes_using(&self, kind: RecipeKind, item_id: &str) -> Vec<Recipe> {
        self.content
            .recipes
            .iter()
            .filter(|r| r.kind == kind && r.inputs.iter().any(|i| i.item_id == item_id))
            .cloned()
            .collect()
    }

    /// One tick of smelting or smithing with `item_id` at the intent's station. Smelting goes on
    /// while the ore lasts; smithing makes one item per use.
    fn make_tick(
        &mut self,
        index: usize,
        item_id: &str,
        kind: RecipeKind,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let candidates = self.recipes_using(kind, item_id);
        if candidates.is_empty() {
            self.stop_with(index, intent, "Nothing interesting happens.".into(), events);
            return Flow::Done;
        }
        let recipe = match self.best_recipe(index, &candidates) {
            Ok(recipe) => recipe,
            Err(message) => {
                self.stop_with(index, intent, message, events);
                return Flow::Done;
            }
        };
        let ticks = u64::from(recipe.ticks.max(1));
        if !self.cycle_due(index, intent, ticks) {
            return Flow::Continue;
        }
        let chance = match recipe.detail {
            RecipeDetail::Smelting { success_chance } => success_chance,
            _ => 1.0,
        };
        let success = chance >= 1.0 || self.rng.random::<f64>() < chance;
        let id = self.players[index].id.clone();
        match self.craft(index, &recipe, success, None, events) {
            Err(message) => {
                self.stop_with(index, intent, message, events);
                return Flow::Done;
            }
            Ok(Outcome::Failed) => self.system_message(
                Some(&id),
                "The ore is too impure and you fail to refine it.".into(),
                events,
            ),
            Ok(Outcome::Made) => {}
        }
        if kind == RecipeKind::Smelting
            && self.next_slot(index, item_id, |slot| IntentKind::UseOn { slot })
        {
            Flow::Continue
        } else {
            Flow::Done
        }
    }

    /// An item used on another item (other than a tinderbox on logs): a recipe without a station
    /// whose inputs, tools and consumables include both items (a knife on logs, a needle on
    /// leather) is made once, at once.
    pub(crate) fn combine_items(
        &mut self,
        index: usize,
        a: usize,
        b: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        let inventory = &self.players[index].inventory;
        let (Some(first), Some(second)) = (
            inventory.get(a).map(|s| s.item_id.clone()),
            inventory.get(b).map(|s| s.item_id.clone()),
        ) else {
            return Self::reject(
                &id,
                codes::INVALID_SLOT,
                "that inventory slot is empty",
                reference,
                events,
            );
        };
        let candidates: Vec<Recipe> = self
            .content
            .recipes
            .iter()
            .filter(|r| {
                r.station.is_none()
                    && matches!(r.kind, RecipeKind::Crafting | RecipeKind::Fletching)
            })
            .filter(|r| {
                let uses = |item: &str| {
                    r.inputs.iter().any(|i| i.item_id == item)
                        || r.tools.iter().any(|t| t == item)
                        || r.consumables.iter().any(|c| c.item_id == item)
                };
                first != second && uses(&first) && uses(&second)
            })
            .cloned()
            .collect();
        if candidates.is_empty() {
            return Self::reject(
                &id,
                codes::CANNOT_DO,
                "Nothing interesting happens.",
                reference,
                events,
            );
        }
        let recipe = match self.best_recipe(index, &candidates) {
            Ok(recipe) => recipe,
            Err(message) => return Self::reject(&id, codes::CANNOT_DO, message, reference, events),
        };
        if let Err(message) = self.craft(index, &recipe, true, None, events) {
            Self::reject(&id, codes::CANNOT_DO, message, reference, events);
        }
    }
}
