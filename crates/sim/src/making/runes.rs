//! Runecrafting (CONTRACT.md section 11): `make runecrafting:<rune>` at that rune's altar binds
//! every essence carried of the kinds the recipe accepts into runes at once: one rune per essence,
//! one more at each of the recipe's `multiRuneLevels` reached (OSRS Wiki, *Runecraft*: "multiple
//! runes"), and the recipe's XP per essence.

use wayfarer_content::{Recipe, RecipeDetail, Skill};

use super::{Outcome, Stop, Unmet};
use crate::events::Event;
use crate::flows::FlowKind;
use crate::narration::plural;
use crate::skills::Xp;
use crate::world::World;

/// Runes one essence makes at `level`: one, plus one for each of `multi_rune_levels` reached.
pub fn runes_per_essence(level: u32, multi_rune_levels: &[u32]) -> u32 {
    let extra = multi_rune_levels.iter().filter(|l| **l <= level).count();
    1 + u32::try_from(extra).unwrap_or(u32::MAX - 1)
}

/// The essence kinds `recipe` accepts (none for other recipes).
pub(super) fn essence_types(recipe: &Recipe) -> &[String] {
    match &recipe.detail {
        RecipeDetail::Runecrafting { essence_types, .. } => essence_types,
        _ => &[],
    }
}

impl World {
    /// How many of each accepted essence player `index` carries (kinds not carried left out).
    fn essence_carried(&self, index: usize, recipe: &Recipe) -> Vec<(String, u32)> {
        let inventory = &self.players[index].inventory;
        essence_types(recipe)
            .iter()
            .map(|e| (e.clone(), inventory.count(e)))
            .filter(|(_, n)| *n > 0)
            .map(|(e, n)| (e, u32::try_from(n).unwrap_or(u32::MAX)))
            .collect()
    }

    /// `Unmet` when player `index` carries no essence `recipe` accepts.
    pub(super) fn essence_unmet(&self, index: usize, recipe: &Recipe) -> Option<Unmet> {
        let first = essence_types(recipe).first()?;
        self.essence_carried(index, recipe)
            .is_empty()
            .then(|| Unmet::Items {
                item_id: first.clone(),
                quantity: 1,
            })
    }

    /// What binding every essence would give: (essence taken, runes made), or `None` when the
    /// runes would not fit (a full rune stack).
    fn binding(&mut self, index: usize, recipe: &Recipe) -> Option<(Vec<(String, u32)>, u32)> {
        let output = recipe.output.as_ref()?;
        let levels = match &recipe.detail {
            RecipeDetail::Runecrafting {
                multi_rune_levels, ..
            } => multi_rune_levels.as_slice(),
            _ => &[],
        };
        let level = u32::from(self.players[index].skills.level(Skill::Runecrafting));
        let essence = self.essence_carried(index, recipe);
        let total: u64 = essence.iter().map(|(_, n)| u64::from(*n)).sum();
        let runes = total
            .checked_mul(u64::from(runes_per_essence(level, levels)))
            .and_then(|r| u32::try_from(r).ok())?;
        let stacking = self.stacking(&output.item_id);
        self.players[index]
            .inventory
            .dry_run(|tx| {
                for (item, n) in &essence {
                    tx.remove_item(item, *n)?;
                }
                tx.add(&output.item_id, runes, stacking)
            })
            .ok()?;
        Some((essence, runes))
    }

    /// Whether binding the essence carried would fit (the essence leaves first, so a full
    /// inventory of essence has room for its runes).
    pub(super) fn room_for_runes(&mut self, index: usize, recipe: &Recipe) -> bool {
        self.essence_carried(index, recipe).is_empty() || self.binding(index, recipe).is_some()
    }

    /// Binds every essence carried into runes: one inventory transaction, the XP per essence,
    /// the quest count, and the line saying so.
    pub(super) fn bind_runes(
        &mut self,
        index: usize,
        recipe: &Recipe,
        events: &mut Vec<Event>,
    ) -> Result<Outcome, Stop> {
        if let Some(unmet) = self.essence_unmet(index, recipe) {
            return Err(Stop::Unmet(unmet));
        }
        let Some(rune) = recipe.output.as_ref().map(|o| o.item_id.clone()) else {
            return Err(Stop::Done);
        };
        let Some((essence, runes)) = self.binding(index, recipe) else {
            return Err(Stop::InventoryFull);
        };
        let stacking = self.stacking(&rune);
        let done = self.players[index].inventory.apply(|tx| {
            for (item, n) in &essence {
                tx.remove_item(item, *n)?;
            }
            tx.add(&rune, runes, stacking)
        });
        if done.is_err() {
            return Err(Stop::InventoryFull);
        }
        self.players[index].dirty.inventory = true;
        let mut bound = 0u32;
        for (item, n) in &essence {
            self.flow_by(index, FlowKind::Left, "consumed", item, *n);
            bound = bound.saturating_add(*n);
        }
        self.flow_by(index, FlowKind::Entered, "crafted", &rune, runes);
        self.quest_trigger(index, crate::quests::Trigger::Make(&rune, runes), events);
        let xp = Xp::from_f64(recipe.xp * f64::from(bound));
        self.grant_xp(index, Skill::Runecrafting, xp, events);
        let essence_words = match essence.as_slice() {
            [(item, _)] => self.item_words(item),
            _ => "essence".to_owned(),
        };
        let text = format!(
            "You bind {bound} {} into {}.",
            if bound == 1 {
                essence_words
            } else {
                plural(&essence_words)
            },
            self.how_many(u64::from(runes), &rune)
        );
        self.narrate(index, text, events);
        Ok(Outcome::Made)
    }
}
