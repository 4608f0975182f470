//! Making (CONTRACT.md section 9): the player chooses a recipe and how many times to make it;
//! nothing is chosen for them. Using an item on another item, an item on a station, or
//! interacting with a station answers `make:options` (`options`); `player:action make` starts a
//! [`MakeJob`]: the player walks to the station the recipe needs (none for fletching and most
//! crafting), then makes it once per recipe `ticks` until the count is reached, an input or tool
//! runs out, the inventory is full, the station is gone, or the player is attacked. A new move or
//! action replaces the intent and so ends the job. `cook` and `light_fire` are `make` with the
//! recipe of the item in their slot.
//!
//! Every make is one inventory transaction (`craft`). Each start, success, failure and finish is
//! narrated on the `game` channel. Formulas: [`wayfarer_content::skilling`] and `docs/mechanics.md`
//! ("Making").

mod craft;
mod options;
mod runes;

use wayfarer_content::{Recipe, RecipeKind, Skill};
use wayfarer_protocol::text::quoted;
use wayfarer_protocol::ws::codes;

use crate::actions::{Flow, Intent, IntentKind};
use crate::commands::MakeCount;
use crate::entities::Handle;
use crate::events::Event;
use crate::items::skill_title;
use crate::layout::Placed;
use crate::narration::plural;
use crate::world::World;

pub(crate) use craft::Outcome;
pub use runes::runes_per_essence;

/// The tool smithing needs in the inventory (content's smithing recipes name none).
pub const HAMMER: &str = wayfarer_content::SMITHING_HAMMER;
/// The most times one `make` may ask for; `"all"` is bounded by the inputs alone.
pub const MAX_MAKE_QUANTITY: u32 = 10_000;
/// How far `make` without `targetId` looks for the station its recipe needs (the view's reach,
/// so the station is one the player can see).
pub const STATION_SEARCH_TILES: u32 = crate::view::VIEW_RADIUS_TILES as u32;
/// The station type a tanner counts as (an NPC offering `openTanner`, or with the `tanner`
/// service); tanning recipes name no station.
pub const TANNER: &str = "tanner";
/// The station type of a player-lit fire.
pub const FIRE: &str = "fire";
/// A cooking range.
pub const RANGE: &str = "range";

/// What a player is making: the recipe, how many are left, and what came of it so far.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MakeJob {
    /// The recipe's id (looked up each time, so a content reload that drops it ends the job).
    pub recipe_id: String,
    /// The station's type (`fire`, `range`, `anvil`, `tanner`, …), `None` for station-less recipes.
    pub station: Option<String>,
    /// Makes left; `None`: until an input runs out.
    pub left: Option<u32>,
    /// Makes that succeeded.
    pub made: u32,
    /// Makes that failed (burnt food, impure ore).
    pub failed: u32,
}

/// Why a player cannot make a recipe now: the wire code (and `make:options` reason) with what is
/// missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unmet {
    /// The skill's level is below the recipe's.
    Level { skill: Skill, level: u32 },
    /// A tool (or a consumable such as thread) is not held.
    Tool(String),
    /// Fewer of an input (or coins) than one make takes.
    Items { item_id: String, quantity: u64 },
}

impl Unmet {
    /// The wire code, also the `reason` in `make:options`.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            Unmet::Level { .. } => codes::LEVEL_TOO_LOW,
            Unmet::Tool(_) => codes::MISSING_TOOL,
            Unmet::Items { .. } => codes::MISSING_ITEMS,
        }
    }
}

/// Why a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stop {
    /// The count was reached.
    Done,
    /// Something one make needs is no longer held (or the level no longer suffices).
    Unmet(Unmet),
    /// No room for what the next make would give.
    InventoryFull,
    /// Someone attacked the player.
    Attacked,
    /// The station (a fire that went out) is gone.
    StationGone,
    /// A fire already burns where the player stands.
    FireHere,
}

/// The station types where `recipe` is made: empty for station-less recipes.
pub(crate) fn station_kinds(recipe: &Recipe) -> Vec<&str> {
    match recipe.kind {
        RecipeKind::Cooking => {
            let allow_fire = matches!(
                recipe.detail,
                wayfarer_content::RecipeDetail::Cooking {
                    allow_fire: true,
                    ..
                }
            );
            let mut kinds = vec![recipe.station.as_deref().unwrap_or(RANGE)];
            if allow_fire {
                kinds.push(FIRE);
            }
            kinds
        }
        RecipeKind::Tanning => vec![TANNER],
        _ => recipe.station.as_deref().into_iter().collect(),
    }
}

impl World {
    /// The recipe with id `recipe_id`.
    pub(crate) fn recipe(&self, recipe_id: &str) -> Option<&Recipe> {
        self.content.recipes.iter().find(|r| r.id == recipe_id)
    }

    /// The recipe of `kind` whose first input is `item_id` (cooking, firemaking: one per item).
    pub(crate) fn recipe_from(&self, kind: RecipeKind, item_id: &str) -> Option<&Recipe> {
        self.content
            .recipes
            .iter()
            .find(|r| r.kind == kind && r.inputs.first().is_some_and(|i| i.item_id == item_id))
    }

    /// An item's display name, owned ([`World::item_called`] is the rule).
    pub(crate) fn item_name(&self, item_id: &str) -> String {
        self.item_called(item_id).into_owned()
    }

    /// The station type of entity `handle`: a station's type, `fire` for a fire, `tanner` for an
    /// NPC who tans hides; `None` for anything else.
    pub(crate) fn station_kind(&self, handle: Handle) -> Option<String> {
        if let Some(position) = self.resource_position(handle) {
            let placement = &self.resources[position].placement;
            return match placement.what {
                Placed::Fire => Some(FIRE.into()),
                Placed::Station => Some(placement.resource_id.clone()),
                Placed::Node | Placed::Door => None,
            };
        }
        let npc = self.npcs.iter().position(|n| n.handle == handle)?;
        let tans = self.npc_def(npc).is_some_and(|n| n.tans_hides());
        tans.then(|| TANNER.into())
    }

    /// Why player `index` cannot make `recipe` once now (level, then tools, then inputs and
    /// coins), if they cannot.
    pub(crate) fn unmet(&self, index: usize, recipe: &Recipe) -> Option<Unmet> {
        let player = &self.players[index];
        if let Some(skill) = recipe.skill {
            if u32::from(player.skills.level(skill)) < recipe.level {
                return Some(Unmet::Level {
                    skill,
                    level: recipe.level,
                });
            }
        }
        if let Some(tool) = recipe.held_items().find(|t| !player.inventory.contains(t)) {
            return Some(Unmet::Tool(tool.to_owned()));
        }
        if let Some(unmet) = self.essence_unmet(index, recipe) {
            return Some(unmet);
        }
        let coins = (recipe.coin_cost > 0).then_some((crate::shops::COINS, recipe.coin_cost));
        recipe
            .inputs
            .iter()
            .map(|i| (i.item_id.as_str(), u64::from(i.quantity)))
            .chain(coins)
            .find(|(item, quantity)| player.inventory.count(item) < *quantity)
            .map(|(item_id, quantity)| Unmet::Items {
                item_id: item_id.to_owned(),
                quantity,
            })
    }

    /// What the player is told when `unmet` stops them.
    pub(crate) fn unmet_message(&self, unmet: &Unmet) -> String {
        match unmet {
            Unmet::Level { skill, level } => format!(
                "You need a {} level of {level} to make that.",
                skill_title(*skill)
            ),
            Unmet::Tool(tool) => format!("You need a {} to make that.", self.item_name(tool)),
            Unmet::Items { item_id, quantity } => format!(
                "You need {quantity} x {} to make that.",
                self.item_name(item_id)
            ),
        }
    }

    /// `make`: checks what can be checked now (the recipe, level, tools, inputs, room, the
    /// station), then sets the player walking to the station, or making at once where the recipe
    /// needs none.
    pub(crate) fn start_make(
        &mut self,
        index: usize,
        recipe_id: &str,
        count: MakeCount,
        target: Option<&str>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        let Some(recipe) = self.recipe(recipe_id).cloned() else {
            return Self::reject(
                &id,
                codes::UNKNOWN_RECIPE,
                format!("there is no recipe {}", quoted(recipe_id)),
                reference,
                events,
            );
        };
        // Runecrafting (CONTRACT.md section 11) binds all the essence carried at once: one make.
        let count = match recipe.kind {
            RecipeKind::Runecrafting => MakeCount::Times(1),
            _ => count,
        };
        if let Some(unmet) = self.unmet(index, &recipe) {
            let message = self.unmet_message(&unmet);
            return Self::reject(&id, unmet.code(), message, reference, events);
        }
        if !self.has_room_for(index, &recipe) {
            return Self::reject(
                &id,
                codes::INVENTORY_FULL,
                "You do not have enough inventory space.",
                reference,
                events,
            );
        }
        let (target, station) = match self.make_target(index, &recipe, target) {
            Ok(found) => found,
            Err((code, message)) => return Self::reject(&id, code, message, reference, events),
        };
        let player = &mut self.players[index];
        player.making = Some(Box::new(MakeJob {
            recipe_id: recipe.id.clone(),
            station,
            left: match count {
                MakeCount::Times(n) => Some(n),
                MakeCount::All => None,
            },
            made: 0,
            failed: 0,
        }));
        self.set_intent(index, target, IntentKind::Make, reference);
    }

    /// The entity where `recipe` is made, and its station type: the player itself for a
    /// station-less recipe; else `target` when it is such a station, or the nearest one within
    /// [`STATION_SEARCH_TILES`].
    fn make_target(
        &self,
        index: usize,
        recipe: &Recipe,
        target: Option<&str>,
    ) -> Result<(Handle, Option<String>), (&'static str, String)> {
        let kinds = station_kinds(recipe);
        if kinds.is_empty() {
            return Ok((self.players[index].handle, None));
        }
        let words = |kind: &str| kind.replace('_', " ");
        let Some(target) = target.filter(|t| !t.is_empty()) else {
            return self
                .nearest_station(index, &kinds)
                .map(|(handle, kind)| (handle, Some(kind)))
                .ok_or_else(|| {
                    (
                        codes::NOT_NEAR_STATION,
                        format!(
                            "You need to be near {} {} to make that.",
                            crate::narration::article(kinds[0]),
                            words(kinds[0])
                        ),
                    )
                });
        };
        let Some(handle) = self.entities.find(target) else {
            return Err((
                codes::INVALID_TARGET,
                format!("there is no {} here", quoted(target)),
            ));
        };
        match self.station_kind(handle) {
            Some(kind) if kinds.contains(&kind.as_str()) => Ok((handle, Some(kind))),
            Some(kind) if kind == FIRE && recipe.kind == RecipeKind::Cooking => Err((
                codes::INVALID_TARGET,
                "You need a range to cook that.".into(),
            )),
            _ => Err((
                codes::INVALID_TARGET,
                format!(
                    "You make that at {} {}, not there.",
                    crate::narration::article(kinds[0]),
                    words(kinds[0])
                ),
            )),
        }
    }

    /// The nearest station of one of `kinds` within [`STATION_SEARCH_TILES`] of player `index`
    /// (ties: the first placed).
    fn nearest_station(&self, index: usize, kinds: &[&str]) -> Option<(Handle, String)> {
        let tanners = kinds.contains(&TANNER).then(|| {
            self.npcs
                .iter()
                .enumerate()
                .filter(|(n, _)| self.npc_def(*n).is_some_and(|d| d.tans_hides()))
                .map(|(_, npc)| (npc.handle, TANNER.to_owned()))
        });
        let stations = self.resources.iter().filter_map(|r| {
            let kind = match r.placement.what {
                Placed::Fire => FIRE,
                Placed::Station => r.placement.resource_id.as_str(),
                Placed::Node | Placed::Door => return None,
            };
            kinds.contains(&kind).then(|| (r.handle, kind.to_owned()))
        });
        stations
            .chain(tanners.into_iter().flatten())
            .filter_map(|(handle, kind)| {
                let distance = self.distance_from(index, handle)?;
                (distance <= STATION_SEARCH_TILES).then_some((distance, handle, kind))
            })
            .min_by_key(|(distance, _, _)| *distance)
            .map(|(_, handle, kind)| (handle, kind))
    }

    /// One tick of a make job, next to its station (or anywhere, for station-less recipes): the
    /// start on arrival, then one make whenever it is due.
    pub(crate) fn make_tick(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let now = self.now();
        // Between makes nothing is looked up: most ticks of a job are waiting ones.
        if intent.engaged && now < intent.next_at {
            return Flow::Continue;
        }
        let Some(job) = self.players[index].making.as_ref() else {
            return Flow::Done;
        };
        let (left, station) = (job.left, job.station.clone());
        let Some(recipe) = self.recipe(&job.recipe_id).cloned() else {
            self.finish_making(index, None, Stop::Done, events);
            return Flow::Done;
        };
        let ticks = u64::from(recipe.ticks.max(1));
        if !intent.engaged {
            // Arrived: what was true when asked may not be any longer (items dropped, a fire
            // lit here meanwhile); such a refusal still carries its code.
            let id = self.players[index].id.clone();
            if let Some(unmet) = self.unmet(index, &recipe) {
                let message = self.unmet_message(&unmet);
                Self::reject(&id, unmet.code(), message, intent.reference, events);
                return Flow::Done;
            }
            if recipe.kind == RecipeKind::Firemaking && self.fire_under(index) {
                Self::reject(
                    &id,
                    codes::CANNOT_DO,
                    "You can't light a fire here.",
                    intent.reference,
                    events,
                );
                return Flow::Done;
            }
            let started = self.making_started(&recipe, left);
            self.narrate(index, started, events);
            self.set_next_at(index, now + ticks);
            return Flow::Continue;
        }
        if let Some(unmet) = self.unmet(index, &recipe) {
            self.finish_making(index, Some(&recipe), Stop::Unmet(unmet), events);
            return Flow::Done;
        }
        let outcome = match recipe.kind {
            RecipeKind::Firemaking => self.light_attempt(index, &recipe, events),
            RecipeKind::Runecrafting => self.bind_runes(index, &recipe, events),
            _ => self.make_once(index, &recipe, station.as_deref(), events),
        };
        self.set_next_at(index, now + ticks);
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(stop) => {
                self.finish_making(index, Some(&recipe), stop, events);
                return Flow::Done;
            }
        };
        let Some(job) = self.players[index].making.as_mut() else {
            return Flow::Done;
        };
        match outcome {
            Outcome::Made => job.made += 1,
            Outcome::Failed => job.failed += 1,
            // A fire that did not catch: try again, nothing used up.
            Outcome::NotYet => return Flow::Continue,
        }
        if let Some(left) = job.left.as_mut() {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.finish_making(index, Some(&recipe), Stop::Done, events);
                return Flow::Done;
            }
        }
        Flow::Continue
    }

    /// Ends player `index`'s make job with its finish narration.
    fn finish_making(
        &mut self,
        index: usize,
        recipe: Option<&Recipe>,
        stop: Stop,
        events: &mut Vec<Event>,
    ) {
        let Some(job) = self.players[index].making.take() else {
            return;
        };
        let Some(recipe) = recipe else {
            return self.narrate(index, "You stop: that recipe is no more.".into(), events);
        };
        // One make asked for and made says all in its success line.
        if stop == Stop::Done && job.made + job.failed <= 1 {
            return;
        }
        let why = match &stop {
            Stop::Done => None,
            Stop::Unmet(Unmet::Items { item_id, .. }) => Some(format!(
                "You have run out of {}.",
                plural(&self.item_words(item_id))
            )),
            Stop::Unmet(Unmet::Tool(tool)) => {
                Some(format!("You no longer have {}.", self.how_many(1, tool)))
            }
            Stop::Unmet(unmet @ Unmet::Level { .. }) => Some(self.unmet_message(unmet)),
            Stop::InventoryFull => Some("Your inventory is too full to make any more.".into()),
            Stop::Attacked => Some("You are attacked and stop what you are doing.".into()),
            Stop::StationGone => Some(match job.station.as_deref() {
                Some(FIRE) => "The fire has gone out.".into(),
                _ => "You can no longer reach the station.".into(),
            }),
            Stop::FireHere => Some("You can't light a fire here.".into()),
        };
        let summary = self.making_summary(recipe, &job);
        let text = match (why, summary) {
            (Some(why), Some(summary)) => format!("{why} {summary}"),
            (Some(why), None) => why,
            (None, Some(summary)) => summary,
            (None, None) => return,
        };
        self.narrate(index, text, events);
    }

    /// A player was attacked by `attacker`: making stops, health stops regenerating for a while,
    /// and with auto-retaliate the player may turn on the attacker (`combat::retaliate`).
    pub(crate) fn attacked(&mut self, index: usize, attacker: Handle, events: &mut Vec<Event>) {
        let retaliate = self.would_retaliate(index);
        self.note_hit(index);
        self.players[index].fought_at = self.now();
        let player = &mut self.players[index];
        if player
            .intent
            .as_ref()
            .is_some_and(|i| i.kind == IntentKind::Make)
        {
            player.intent = None;
            self.making_stopped(index, Stop::Attacked, events);
        }
        if retaliate {
            self.retaliate(index, attacker);
        }
    }

    /// A make job's station disappeared (a fire burnt out).
    pub(crate) fn station_gone(&mut self, index: usize, events: &mut Vec<Event>) {
        self.making_stopped(index, Stop::StationGone, events);
    }

    /// Ends player `index`'s make job from outside its tick.
    fn making_stopped(&mut self, index: usize, stop: Stop, events: &mut Vec<Event>) {
        let recipe = self.players[index]
            .making
            .as_ref()
            .and_then(|job| self.recipe(&job.recipe_id))
            .cloned();
        self.finish_making(index, recipe.as_ref(), stop, events);
    }

    /// `cook {slot, targetId}`: making the cooking recipe of the food in `slot`, all of it, on
    /// the fire or range `target`.
    pub(crate) fn cook(
        &mut self,
        index: usize,
        slot: usize,
        target: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        self.make_from_slot(
            index,
            slot,
            RecipeKind::Cooking,
            MakeCount::All,
            Some(target),
            reference,
            events,
        );
    }

    /// `light_fire {slot}` (and a tinderbox used on logs): making the firemaking recipe of the
    /// logs in `slot`, once.
    pub(crate) fn light_fire(
        &mut self,
        index: usize,
        slot: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        self.make_from_slot(
            index,
            slot,
            RecipeKind::Firemaking,
            MakeCount::Times(1),
            None,
            reference,
            events,
        );
    }

    /// `make` with the recipe of `kind` that takes the item in `slot`.
    #[allow(clippy::too_many_arguments)]
    fn make_from_slot(
        &mut self,
        index: usize,
        slot: usize,
        kind: RecipeKind,
        count: MakeCount,
        target: Option<&str>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        let Some(item_id) = self
            .stack_in(index, slot, reference, events)
            .map(|s| s.item_id)
        else {
            return;
        };
        let Some(recipe_id) = self.recipe_from(kind, &item_id).map(|r| r.id.clone()) else {
            let message = match kind {
                RecipeKind::Firemaking => "You cannot light that.",
                _ => "You cannot cook that.",
            };
            return Self::reject(&id, codes::CANNOT_DO, message, reference, events);
        };
        self.start_make(index, &recipe_id, count, target, reference, events);
    }
}
