//! Firemaking: logs and a tinderbox make a fire on the player's tile. Lighting is an attempt every
//! recipe `ticks` until one succeeds; the fire is a resource entity (`resourceType: "fire"`) that
//! players can cook on, burns for the recipe's `fireTicks`, and does not block its tile. As in the
//! genre, the player then steps aside: west if free, else east, south, north.

use rand::Rng;
use wayfarer_content::{Recipe, RecipeDetail, RecipeKind, Skill};
use wayfarer_protocol::ws::{codes, TilePos};

use crate::actions::{Flow, Intent, IntentKind};
use crate::events::Event;
use crate::flows::FlowKind;
use crate::skilling::{firemaking_numerator, SKILLING_ROLL_RANGE};
use crate::skills::Xp;
use crate::world::World;

/// Where a player steps after lighting a fire, in order of preference.
pub const STEP_ASIDE_ORDER: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

impl World {
    /// The firemaking recipe for `item_id`.
    fn firemaking_recipe(&self, item_id: &str) -> Option<Recipe> {
        self.recipe_from(RecipeKind::Firemaking, item_id)
    }

    /// Why player `index` cannot light the logs in `slot` now (a wire code and a message), or the
    /// recipe when they can.
    fn fire_check(&self, index: usize, slot: usize) -> Result<Recipe, (&'static str, String)> {
        let player = &self.players[index];
        let Some(stack) = player.inventory.get(slot) else {
            return Err((
                codes::INVALID_SLOT,
                format!("inventory slot {slot} is empty"),
            ));
        };
        self.fire_recipe_check(index, &stack.item_id)
            .map_err(|m| (codes::CANNOT_DO, m))
    }

    /// [`Self::fire_check`] once the logs are known.
    fn fire_recipe_check(&self, index: usize, item_id: &str) -> Result<Recipe, String> {
        let player = &self.players[index];
        let recipe = self
            .firemaking_recipe(item_id)
            .ok_or_else(|| "You cannot light that.".to_string())?;
        if let Some(missing) = recipe.tools.iter().find(|t| !player.inventory.contains(t)) {
            let name = self
                .content
                .items
                .get(missing.as_str())
                .map_or(missing.as_str(), |i| &i.name);
            return Err(format!("You need a {name} to light a fire."));
        }
        let level = u32::from(player.skills.level(Skill::Firemaking));
        if level < recipe.level {
            return Err(format!(
                "You need a Firemaking level of {} to burn these logs.",
                recipe.level
            ));
        }
        let tile = self
            .entities
            .get(player.handle)
            .map(|b| b.tile())
            .ok_or_else(|| "You cannot light a fire here.".to_string())?;
        if self.fire_on(tile) {
            return Err("You can't light a fire here.".into());
        }
        Ok(recipe)
    }

    /// `light_fire`: the logs in `slot` become a fire on the player's tile, after one or more
    /// attempts.
    pub(crate) fn light_fire(
        &mut self,
        index: usize,
        slot: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        let recipe = match self.fire_check(index, slot) {
            Ok(recipe) => recipe,
            Err((code, message)) => return Self::reject(&id, code, message, reference, events),
        };
        let now = self.now();
        let player = &mut self.players[index];
        player.walk.clear();
        player.intent = Some(Intent {
            target: player.handle,
            kind: IntentKind::LightFire { slot },
            reference,
            approach: None,
            engaged: true,
            next_at: now + u64::from(recipe.ticks.max(1)),
        });
    }

    /// One tick of lighting a fire: an attempt when due; on success the logs burn and the player
    /// steps aside.
    pub(crate) fn fire_tick(
        &mut self,
        index: usize,
        slot: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let now = self.now();
        if now < intent.next_at {
            return Flow::Continue;
        }
        let id = self.players[index].id.clone();
        let recipe = match self.fire_check(index, slot) {
            Ok(recipe) => recipe,
            Err((code, message)) => {
                Self::reject(&id, code, message, intent.reference, events);
                return Flow::Done;
            }
        };
        self.set_next_at(index, now + u64::from(recipe.ticks.max(1)));
        let level = u32::from(self.players[index].skills.level(Skill::Firemaking));
        let numerator = firemaking_numerator(recipe.level, level);
        if self.rng.random_range(0..SKILLING_ROLL_RANGE) >= numerator {
            return Flow::Continue;
        }
        let Ok(burned) = self.players[index].inventory.remove(slot, 1) else {
            return Flow::Done;
        };
        self.players[index].dirty.inventory = true;
        self.flow(FlowKind::Left, "burned", &burned.item_id, 1u32);
        self.grant_xp(index, Skill::Firemaking, Xp::from_f64(recipe.xp), events);
        let fire_ticks = match recipe.detail {
            RecipeDetail::Firemaking { fire_ticks } => fire_ticks,
            _ => 100,
        };
        let Some(tile) = self
            .entities
            .get(self.players[index].handle)
            .map(|b| b.tile())
        else {
            return Flow::Done;
        };
        self.spawn_fire(tile, fire_ticks);
        self.quest_trigger(index, crate::quests::Trigger::Fire, events);
        self.system_message(
            Some(&id),
            "The fire catches and the logs begin to burn.".into(),
            events,
        );
        if let Some(aside) = self.step_aside_tile(tile) {
            self.players[index].walk.request(aside, false);
        }
        Flow::Done
    }

    /// The first tile in [`STEP_ASIDE_ORDER`] the player can step to from `tile`.
    fn step_aside_tile(&self, tile: TilePos) -> Option<TilePos> {
        STEP_ASIDE_ORDER
            .iter()
            .map(|(dx, dz)| TilePos {
                x: tile.x + dx,
                z: tile.z + dz,
            })
            .find(|to| self.layout.map.can_step(tile, *to) && !self.fire_on(*to))
    }
}
