//! One make: the inventory transaction (inputs, coins and used-up consumables out, the output
//! in, or nothing), its chance of failing (burnt food, impure ore), a fire's chance of catching,
//! and the words for each.

use rand::Rng;
use wayfarer_content::{Recipe, RecipeDetail, RecipeKind, Skill};

use super::{MakeJob, Stop, Unmet, RANGE};
use crate::events::Event;
use crate::flows::FlowKind;
use crate::narration::plural;
use crate::skills::Xp;
use crate::world::World;
use wayfarer_content::skilling::{burn_chance, firemaking_numerator, SKILLING_ROLL_RANGE};

/// How one make ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The output was made.
    Made,
    /// The inputs were used up without the output (burnt food, impure ore).
    Failed,
    /// Nothing happened yet (a fire that did not catch this time).
    NotYet,
}

impl World {
    /// Whether one make of `recipe` would fit in player `index`'s inventory now.
    pub(crate) fn has_room_for(&mut self, index: usize, recipe: &Recipe) -> bool {
        if recipe.kind == RecipeKind::Runecrafting {
            return self.room_for_runes(index, recipe);
        }
        let output = recipe
            .output
            .as_ref()
            .map(|o| (o.item_id.clone(), o.quantity, self.stacking(&o.item_id)));
        self.players[index]
            .inventory
            .dry_run(|tx| {
                for input in &recipe.inputs {
                    tx.remove_item(&input.item_id, input.quantity)?;
                }
                if recipe.coin_cost > 0 {
                    let coins = u32::try_from(recipe.coin_cost).unwrap_or(u32::MAX);
                    tx.remove_item(crate::shops::COINS, coins)?;
                }
                if let Some((id, quantity, stacking)) = &output {
                    tx.add(id, *quantity, *stacking)?;
                }
                Ok(())
            })
            .is_ok()
    }

    /// Makes `recipe` once at `station` (cooking: `fire` or `range`), with its chance of failing,
    /// and says what came of it.
    pub(super) fn make_once(
        &mut self,
        index: usize,
        recipe: &Recipe,
        station: Option<&str>,
        events: &mut Vec<Event>,
    ) -> Result<Outcome, Stop> {
        let (success, failed_output) = match &recipe.detail {
            RecipeDetail::Cooking {
                burnt,
                stop_burn_level,
                ..
            } => {
                let level = u32::from(self.players[index].skills.level(Skill::Cooking));
                let on_range = station == Some(RANGE);
                let burn = burn_chance(level, recipe.level, *stop_burn_level, on_range);
                let burnt_it = burn > 0.0 && self.rng.random::<f64>() < burn;
                (!burnt_it, burnt.as_deref())
            }
            RecipeDetail::Smelting { success_chance } => (
                *success_chance >= 1.0 || self.rng.random::<f64>() < *success_chance,
                None,
            ),
            _ => (true, None),
        };
        let outcome = self.craft(index, recipe, success, failed_output, events)?;
        let text = self.make_words(recipe, outcome);
        self.narrate(index, text, events);
        Ok(outcome)
    }

    /// Makes `recipe` once: inputs and coins out, output in (the failed output instead unless
    /// `success`), consumables used up one make in `uses`, XP on success. Nothing changes when
    /// the output does not fit.
    fn craft(
        &mut self,
        index: usize,
        recipe: &Recipe,
        success: bool,
        failed_output: Option<&str>,
        events: &mut Vec<Event>,
    ) -> Result<Outcome, Stop> {
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
        let coins = u32::try_from(recipe.coin_cost).unwrap_or(u32::MAX);
        let done = self.players[index].inventory.apply(|tx| {
            for input in &recipe.inputs {
                tx.remove_item(&input.item_id, input.quantity)?;
            }
            for item in &used_up {
                tx.remove_item(item, 1)?;
            }
            if coins > 0 {
                tx.remove_item(crate::shops::COINS, coins)?;
            }
            if let (Some((id, quantity)), Some(stacking)) = (&output, stacking) {
                tx.add(id, *quantity, stacking)?;
            }
            Ok(())
        });
        if done.is_err() {
            return Err(Stop::InventoryFull);
        }
        let player = &mut self.players[index];
        player.dirty.inventory = true;
        // Coins paid to the tanner are an economic operation: saved at once, as a purchase is.
        player.dirty.save_now |= coins > 0;
        // The economy audit's reasons: a tanner's work is `tanned` both ways.
        let (used, made) = match recipe.kind {
            RecipeKind::Tanning => ("tanned", "tanned"),
            _ => ("consumed", "crafted"),
        };
        for input in &recipe.inputs {
            self.flow_by(index, FlowKind::Left, used, &input.item_id, input.quantity);
        }
        for item in &used_up {
            self.flow_by(index, FlowKind::Left, "consumed", item, 1u32);
        }
        self.flow_by(
            index,
            FlowKind::Left,
            "tannerPayments",
            crate::shops::COINS,
            coins,
        );
        if let Some((id, quantity)) = &output {
            self.flow_by(index, FlowKind::Entered, made, id, *quantity);
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

    /// Whether a fire burns on player `index`'s tile.
    pub(super) fn fire_under(&self, index: usize) -> bool {
        self.entities
            .get(self.players[index].handle)
            .is_some_and(|b| self.fire_on(b.tile()))
    }

    /// One attempt at lighting the logs of a firemaking recipe on the player's tile: when it
    /// catches, one log burns into a fire that lasts `fireTicks` and the player steps aside.
    pub(super) fn light_attempt(
        &mut self,
        index: usize,
        recipe: &Recipe,
        events: &mut Vec<Event>,
    ) -> Result<Outcome, Stop> {
        let Some(tile) = self
            .entities
            .get(self.players[index].handle)
            .map(|b| b.tile())
        else {
            return Err(Stop::StationGone);
        };
        if self.fire_on(tile) {
            return Err(Stop::FireHere);
        }
        let level = u32::from(self.players[index].skills.level(Skill::Firemaking));
        let numerator = firemaking_numerator(recipe.level, level);
        if self.rng.random_range(0..SKILLING_ROLL_RANGE) >= numerator {
            return Ok(Outcome::NotYet);
        }
        let Some(logs) = recipe.inputs.first() else {
            return Err(Stop::Done);
        };
        if self.players[index]
            .inventory
            .remove_item(&logs.item_id, 1)
            .is_err()
        {
            return Err(Stop::Unmet(Unmet::Items {
                item_id: logs.item_id.clone(),
                quantity: 1,
            }));
        }
        self.players[index].dirty.inventory = true;
        self.flow_by(index, FlowKind::Left, "burned", &logs.item_id, 1u32);
        self.grant_xp(index, Skill::Firemaking, Xp::from_f64(recipe.xp), events);
        let fire_ticks = match recipe.detail {
            RecipeDetail::Firemaking { fire_ticks } => fire_ticks,
            _ => 100,
        };
        self.spawn_fire(tile, fire_ticks);
        self.quest_trigger(index, crate::quests::Trigger::Fire, events);
        let text = self.make_words(recipe, Outcome::Made);
        self.narrate(index, text, events);
        if let Some(aside) = self.step_aside_tile(tile) {
            self.players[index].walk.request(aside, false);
        }
        Ok(Outcome::Made)
    }

    /// What one make of `recipe` made (or failed to), in words.
    fn make_words(&self, recipe: &Recipe, outcome: Outcome) -> String {
        let output = recipe.output.as_ref();
        let made = |verb: &str| match output {
            Some(o) => format!(
                "You {verb} {}.",
                self.how_many(u64::from(o.quantity), &o.item_id)
            ),
            None => format!("You {verb} something."),
        };
        let output_words = output.map_or_else(String::new, |o| self.item_words(&o.item_id));
        let input_words = recipe
            .inputs
            .first()
            .map_or_else(String::new, |i| self.item_words(&i.item_id));
        match (recipe.kind, outcome) {
            (RecipeKind::Cooking, Outcome::Made) => format!("You cook the {output_words}."),
            (RecipeKind::Cooking, _) => format!("You accidentally burn the {output_words}."),
            (RecipeKind::Smelting, Outcome::Made) => made("smelt"),
            (RecipeKind::Smelting, _) => "The ore is too impure and you fail to refine it.".into(),
            (RecipeKind::Firemaking, _) => "The fire catches and the logs begin to burn.".into(),
            (RecipeKind::Tanning, _) => {
                format!("The tanner tans your {input_words} into {output_words}.")
            }
            (RecipeKind::Smithing, _) => made("hammer out"),
            _ => made("make"),
        }
    }

    /// The start of making `recipe` `left` times (`None`: until something runs out), in words.
    pub(super) fn making_started(&self, recipe: &Recipe, left: Option<u32>) -> String {
        let logs = || {
            recipe
                .inputs
                .first()
                .map_or_else(String::new, |i| self.item_words(&i.item_id))
        };
        let Some(output) = recipe.output.as_ref() else {
            return format!("You attempt to light the {}.", logs());
        };
        let per_make = u64::from(output.quantity);
        let what = match left {
            Some(1) => self.how_many(per_make, &output.item_id),
            Some(n) => self.how_many(per_make * u64::from(n), &output.item_id),
            None => plural(&self.item_words(&output.item_id)),
        };
        let verb = match recipe.kind {
            RecipeKind::Cooking => "cooking",
            RecipeKind::Smelting => "smelting",
            RecipeKind::Smithing => "smithing",
            RecipeKind::Fletching => "fletching",
            RecipeKind::Tanning => return format!("You ask the tanner to tan {}.", logs()),
            RecipeKind::Runecrafting => {
                return "You hold your essence up to the altar.".into();
            }
            _ => "making",
        };
        format!("You begin {verb} {what}.")
    }

    /// What a job made, in words ("You made 5 bronze daggers.", "You cooked 4 shrimps and burnt
    /// 1."); `None` when nothing was tried.
    pub(super) fn making_summary(&self, recipe: &Recipe, job: &MakeJob) -> Option<String> {
        if job.made + job.failed == 0 {
            return None;
        }
        let made = match recipe.output.as_ref() {
            Some(o) => self.how_many(u64::from(o.quantity) * u64::from(job.made), &o.item_id),
            None => format!("{} fire{}", job.made, if job.made == 1 { "" } else { "s" }),
        };
        let made = if job.made == 0 {
            "nothing".into()
        } else {
            made
        };
        Some(match (recipe.kind, job.failed) {
            (RecipeKind::Firemaking, _) => format!("You lit {made}."),
            (RecipeKind::Cooking, 0) => format!("You cooked {made}."),
            (RecipeKind::Cooking, burnt) => format!("You cooked {made} and burnt {burnt}."),
            (_, 0) => format!("You made {made}."),
            (_, failed) => format!("You made {made}; {failed} failed."),
        })
    }
}
