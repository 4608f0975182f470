//! `make:options` (CONTRACT.md section 9): what can be made with an item on another item, an item
//! on a station, or at a station (interacting with it, or a tanner's `openTanner`). Every recipe
//! that applies is offered, in content order, those the player cannot make yet with why; nothing
//! is made until the player sends `make`.

use wayfarer_content::{Recipe, RecipeKind};
use wayfarer_protocol::ws::{
    codes, MakeContext, MakeOption, MakeOptions, RecipeConsumable, RecipeItem,
};

use super::station_kinds;
use crate::actions::{Flow, Intent};
use crate::entities::Handle;
use crate::events::Event;
use crate::world::World;

/// What an item used on something that makes nothing is told.
const NOTHING: &str = "Nothing interesting happens.";

/// Whether `recipe` takes `item_id` in any way: as an input, a tool (a smithing hammer too) or a
/// consumable.
fn uses(recipe: &Recipe, item_id: &str) -> bool {
    recipe.inputs.iter().any(|i| i.item_id == item_id) || recipe.held_items().any(|t| t == item_id)
}

impl World {
    /// The recipes made at a station of type `kind`, in content order.
    fn recipes_at(&self, kind: &str) -> Vec<Recipe> {
        self.content
            .recipes
            .iter()
            .filter(|r| station_kinds(r).contains(&kind))
            .cloned()
            .collect()
    }

    /// `recipe` as offered to player `index`.
    fn make_option(&self, index: usize, recipe: &Recipe) -> MakeOption {
        let unmet = self.unmet(index, recipe);
        let item = |id: &str, quantity: u32| RecipeItem {
            item_id: id.to_owned(),
            quantity,
        };
        let named = recipe
            .output
            .as_ref()
            .map(|o| o.item_id.as_str())
            .or_else(|| recipe.inputs.first().map(|i| i.item_id.as_str()))
            .unwrap_or_default();
        MakeOption {
            recipe_id: recipe.id.clone(),
            skill: recipe.skill,
            level: recipe.level,
            name: self.item_name(named),
            xp: recipe.xp,
            // Runecrafting takes every essence carried; one of each kind shows what it takes.
            inputs: recipe
                .inputs
                .iter()
                .map(|i| item(&i.item_id, i.quantity))
                .chain(
                    super::runes::essence_types(recipe)
                        .iter()
                        .map(|e| item(e, 1)),
                )
                .collect(),
            tools: recipe
                .tools
                .iter()
                .map(String::as_str)
                .chain((recipe.kind == RecipeKind::Smithing).then_some(super::HAMMER))
                .map(str::to_owned)
                .collect(),
            consumables: recipe
                .consumables
                .iter()
                .map(|c| RecipeConsumable {
                    item_id: c.item_id.clone(),
                    uses: c.uses,
                })
                .collect(),
            outputs: recipe
                .output
                .iter()
                .map(|o| item(&o.item_id, o.quantity))
                .collect(),
            coins: recipe.coin_cost,
            can_make: unmet.is_none(),
            reason: unmet.map(|u| u.code().to_owned()),
        }
    }

    /// Sends player `index` the options of `recipes`.
    fn offer(
        &self,
        index: usize,
        context: MakeContext,
        recipes: &[Recipe],
        events: &mut Vec<Event>,
    ) {
        let options = recipes.iter().map(|r| self.make_option(index, r)).collect();
        events.push(Event::MakeOptions {
            to: self.players[index].id.clone(),
            options: Box::new(MakeOptions { context, options }),
        });
    }

    /// The context naming a station entity (and the slot used on it).
    fn station_context(&self, handle: Handle, kind: &str, slot: Option<usize>) -> MakeContext {
        MakeContext {
            target_id: self.entities.get(handle).map(|b| b.wire.id.clone()),
            station_type: Some(kind.to_owned()),
            slots: slot.map(|s| vec![s as u8]),
        }
    }

    /// The items in slots `a` and `b` used on each other (not a tinderbox on logs): the
    /// station-less recipes that take both.
    pub(crate) fn offer_for_items(
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
        let recipes: Vec<Recipe> = self
            .content
            .recipes
            .iter()
            .filter(|r| station_kinds(r).is_empty())
            .filter(|r| first != second && uses(r, &first) && uses(r, &second))
            .cloned()
            .collect();
        if recipes.is_empty() {
            return Self::reject(&id, codes::CANNOT_DO, NOTHING, reference, events);
        }
        let context = MakeContext {
            slots: Some(vec![a as u8, b as u8]),
            ..MakeContext::default()
        };
        self.offer(index, context, &recipes, events);
    }

    /// The item in `slot` used on an entity, once next to it: the recipes of that station that
    /// take the item.
    pub(crate) fn use_on_entity(
        &mut self,
        index: usize,
        slot: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let id = self.players[index].id.clone();
        let Some(item_id) = self
            .stack_in(index, slot, intent.reference, events)
            .map(|s| s.item_id)
        else {
            return Flow::Done;
        };
        let kind = self.station_kind(intent.target);
        let recipes: Vec<Recipe> = kind
            .as_deref()
            .map(|kind| {
                self.recipes_at(kind)
                    .into_iter()
                    .filter(|r| uses(r, &item_id))
                    .collect()
            })
            .unwrap_or_default();
        match kind {
            Some(kind) if !recipes.is_empty() => {
                let context = self.station_context(intent.target, &kind, Some(slot));
                self.offer(index, context, &recipes, events);
            }
            _ => Self::reject(&id, codes::CANNOT_DO, NOTHING, intent.reference, events),
        }
        Flow::Done
    }

    /// Interacting with a station entity (or `openTanner` with a tanner): every recipe made
    /// there. False when nothing is made there.
    pub(crate) fn offer_station(
        &mut self,
        index: usize,
        handle: Handle,
        events: &mut Vec<Event>,
    ) -> bool {
        let Some(kind) = self.station_kind(handle) else {
            return false;
        };
        let recipes = self.recipes_at(&kind);
        if recipes.is_empty() {
            return false;
        }
        let context = self.station_context(handle, &kind, None);
        self.offer(index, context, &recipes, events);
        true
    }
}
