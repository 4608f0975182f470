//! `player:action`: reading the request, and the rule every action on an entity follows: an action
//! on something out of reach first walks the player next to it, as a click would, re-pathing when
//! the target moves, then acts; any new move (or `stop`, or another action) cancels it.
//!
//! An action on an entity becomes the player's [`Intent`]. Each tick, after movement, the actions
//! phase looks at every intent: a target that is gone ends it; one out of reach keeps (or starts) the
//! walk towards it; one in reach stops the walk and lets the action's own module act (`items` for
//! pickups, `gathering`, `combat`, …). Continuous actions (gathering, fighting, following) keep
//! their intent from tick to tick; one-off actions end it.

use wayfarer_protocol::text::quoted;
use wayfarer_protocol::ws::{codes, ActionRequest, EntityKind, Quantity, TilePos};

use crate::combat::formulas::CombatStyle;
use crate::commands::{Action, MakeCount};
use crate::entities::Handle;
use crate::equipment::parse_slot;
use crate::events::Event;
use crate::making::MAX_MAKE_QUANTITY;
use crate::map::chebyshev;
use crate::world::World;

/// Why a `player:action` could not be read: a wire error code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionError {
    /// Wire error code (`invalid_action`, `invalid_slot`, `invalid_message`).
    pub code: &'static str,
    /// What was wrong.
    pub message: String,
}

fn bad(code: &'static str, message: impl Into<String>) -> ActionError {
    ActionError {
        code,
        message: message.into(),
    }
}

/// Reads an inventory slot number from the request's `slot`.
pub fn inventory_slot(value: Option<&serde_json::Value>) -> Result<usize, ActionError> {
    let Some(value) = value else {
        return Err(bad(codes::INVALID_MESSAGE, "this action needs `slot`"));
    };
    // The protocol's one slot rule, the same for every message that carries a slot.
    wayfarer_protocol::ws::inventory_slot(value).map_err(|err| bad(err.code, err.message))
}

/// Reads `make`'s `quantity`: absent is once; a count must be 1 to [`MAX_MAKE_QUANTITY`].
fn make_count(quantity: Option<Quantity>) -> Result<MakeCount, ActionError> {
    match quantity {
        None => Ok(MakeCount::Times(1)),
        Some(Quantity::All) => Ok(MakeCount::All),
        Some(Quantity::Count(n)) => u32::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_MAKE_QUANTITY).contains(n))
            .map(MakeCount::Times)
            .ok_or_else(|| {
                // Above the bound the count is told as that: a number past 2^63 reads as the
                // largest i64 (`Quantity` saturates), which is not what the client sent.
                let given = if n > i64::from(MAX_MAKE_QUANTITY) {
                    format!("it is above {MAX_MAKE_QUANTITY}")
                } else {
                    format!("not {n}")
                };
                bad(
                    codes::INVALID_MESSAGE,
                    format!("`quantity` must be 1 to {MAX_MAKE_QUANTITY}, or \"all\"; {given}"),
                )
            }),
    }
}

impl Action {
    /// Reads a `player:action` request (CONTRACT.md section 3).
    pub fn from_request(request: &ActionRequest) -> Result<Action, ActionError> {
        let target = || {
            request
                .target_id
                .clone()
                .filter(|t| !t.is_empty())
                .ok_or_else(|| bad(codes::INVALID_MESSAGE, "this action needs `targetId`"))
        };
        let slot = || inventory_slot(request.slot.as_ref());
        Ok(match request.action.as_str() {
            "attack" => Action::Attack { target: target()? },
            "gather" => Action::Gather { target: target()? },
            "light_fire" => Action::LightFire { slot: slot()? },
            "cook" => Action::Cook {
                slot: slot()?,
                target: target()?,
            },
            "pickup" => Action::Pickup { target: target()? },
            "drop" => Action::Drop { slot: slot()? },
            "equip" => Action::Equip { slot: slot()? },
            "unequip" => {
                let name = request
                    .slot
                    .as_ref()
                    .and_then(|v| v.as_str())
                    .ok_or_else(|| {
                        bad(
                            codes::INVALID_MESSAGE,
                            "`unequip` needs `slot` naming an equipment slot (weapon, shield, …)",
                        )
                    })?;
                Action::Unequip {
                    slot: parse_slot(name).ok_or_else(|| {
                        bad(
                            codes::INVALID_SLOT,
                            format!("{} is not an equipment slot", quoted(name)),
                        )
                    })?,
                }
            }
            "interact" | "talk" => Action::Interact { target: target()? },
            "combat_style" => {
                let name = request.style.as_deref().unwrap_or("");
                Action::CombatStyle(CombatStyle::parse(name).ok_or_else(|| {
                    bad(
                        codes::INVALID_ACTION,
                        format!(
                            "{} is not a combat style (accurate, aggressive, defensive, \
                             controlled, rapid, longrange)",
                            quoted(name)
                        ),
                    )
                })?)
            }
            "stop" => Action::Stop,
            "follow" => Action::Follow { target: target()? },
            "flee" => Action::Flee,
            "make" => Action::Make {
                recipe_id: request
                    .recipe_id
                    .clone()
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| bad(codes::INVALID_MESSAGE, "`make` needs `recipeId`"))?,
                count: make_count(request.quantity)?,
                target: request.target_id.clone().filter(|t| !t.is_empty()),
            },
            "cast" => Action::Cast {
                spell: request
                    .spell_id
                    .clone()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| bad(codes::INVALID_MESSAGE, "`cast` needs `spellId`"))?,
                target: target()?,
            },
            "autocast" => Action::Autocast {
                spell: request.spell_id.clone().filter(|s| !s.is_empty()),
            },
            "homeTeleport" | "home_teleport" => Action::HomeTeleport,
            "auto_retaliate" => Action::AutoRetaliate(request.enabled.ok_or_else(|| {
                bad(
                    codes::INVALID_MESSAGE,
                    "`auto_retaliate` needs `enabled`: true or false",
                )
            })?),
            other => {
                return Err(bad(
                    codes::INVALID_ACTION,
                    format!("unknown action {}", quoted(other)),
                ))
            }
        })
    }
}

/// What a player is doing to an entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Intent {
    /// The target entity.
    pub target: Handle,
    /// What to do once next to it.
    pub kind: IntentKind,
    /// The request's reference, echoed in a rejection.
    pub reference: Option<u64>,
    /// The tile the approach walk heads for (a moved target means a new path).
    pub approach: Option<TilePos>,
    /// Whether the player has reached the target and started acting (for continuous actions).
    pub engaged: bool,
    /// The tick of the next roll or swing of a continuous action.
    pub next_at: u64,
}

/// The actions done to an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntentKind {
    /// Fight it.
    Attack,
    /// Cast the player's pending spell at it once (`combat::spells`).
    Cast,
    /// Gather from it.
    Gather,
    /// Pick it up.
    Pickup,
    /// Use the item in `slot` on it.
    UseOn { slot: usize },
    /// Talk to it.
    Interact,
    /// Walk behind it.
    Follow,
    /// Make the player's [`crate::making::MakeJob`] at it (the target is the player itself for
    /// recipes without a station).
    Make,
}

impl IntentKind {
    /// How close the player must be (Chebyshev tiles from the target's footprint).
    fn reach(self) -> u32 {
        match self {
            // Following keeps one tile behind; everything else is done from an adjacent tile.
            IntentKind::Follow => 1,
            _ => 1,
        }
    }

    /// Whether it is a fight: an attack, or a cast at the target.
    pub(crate) fn is_attack(self) -> bool {
        matches!(self, IntentKind::Attack | IntentKind::Cast)
    }

    /// The entity kinds the action can target.
    fn accepts(self, kind: EntityKind) -> bool {
        match self {
            IntentKind::Attack | IntentKind::Cast => {
                matches!(kind, EntityKind::Npc | EntityKind::Player)
            }
            IntentKind::Gather => kind == EntityKind::Resource,
            IntentKind::Pickup => kind == EntityKind::GroundItem,
            IntentKind::UseOn { .. } | IntentKind::Make => {
                matches!(kind, EntityKind::Resource | EntityKind::Npc)
            }
            // NPCs talk; an altar (a station) is prayed at; an obstacle is crossed.
            IntentKind::Interact => matches!(
                kind,
                EntityKind::Npc | EntityKind::Resource | EntityKind::Obstacle
            ),
            IntentKind::Follow => kind == EntityKind::Player,
        }
    }

    fn verb(self) -> &'static str {
        match self {
            IntentKind::Attack => "attack",
            IntentKind::Cast => "cast a spell at",
            IntentKind::Gather => "gather from",
            IntentKind::Pickup => "pick up",
            IntentKind::UseOn { .. } => "use an item on",
            IntentKind::Interact => "talk to",
            IntentKind::Follow => "follow",
            IntentKind::Make => "make something at",
        }
    }
}

/// What an action's module says after acting for a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Keep the intent (continuous actions); the module may have updated `next_at`.
    Continue,
    /// The action is over.
    Done,
}

/// Where an approach stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Approach {
    /// Close enough to act.
    InReach,
    /// On the way.
    Walking,
    /// No way to get closer.
    Stuck,
}

/// Chebyshev distance from `tile` to the rectangle `(min, max)`.
pub(crate) fn distance_to(tile: TilePos, (min, max): (TilePos, TilePos)) -> u32 {
    let dx = (min.x - tile.x).max(tile.x - max.x).max(0);
    let dz = (min.z - tile.z).max(tile.z - max.z).max(0);
    dx.max(dz) as u32
}

impl World {
    /// A rejection for player `id`.
    pub(crate) fn reject(
        id: &str,
        code: &'static str,
        message: impl Into<String>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        events.push(Event::Rejected {
            to: id.to_owned(),
            code,
            message: message.into(),
            reference,
        });
    }

    /// `player:action`.
    pub(crate) fn act(
        &mut self,
        id: &str,
        action: Action,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(index) = self.living_player(id, reference, events) else {
            return;
        };
        match action {
            Action::Stop => {
                self.stop_everything(id);
                self.interrupt_home_teleport(index, events);
            }
            Action::CombatStyle(style) => self.set_style(index, style),
            Action::Drop { slot } => self.drop_item(index, slot, reference, events),
            Action::Equip { slot } => self.equip(index, slot, reference, events),
            Action::Unequip { slot } => self.unequip(index, slot, reference, events),
            Action::LightFire { slot } => self.light_fire(index, slot, reference, events),
            Action::Flee => self.flee(index, reference, events),
            Action::Attack { target } => {
                if self.attack_allowed(index, &target, IntentKind::Attack, reference, events) {
                    self.begin(index, &target, IntentKind::Attack, reference, events)
                }
            }
            Action::Gather { target } => {
                self.begin(index, &target, IntentKind::Gather, reference, events)
            }
            Action::Pickup { target } => {
                self.begin(index, &target, IntentKind::Pickup, reference, events)
            }
            Action::Cook { slot, target } => self.cook(index, slot, &target, reference, events),
            Action::Make {
                recipe_id,
                count,
                target,
            } => self.start_make(
                index,
                &recipe_id,
                count,
                target.as_deref(),
                reference,
                events,
            ),
            Action::Interact { target } => {
                self.begin(index, &target, IntentKind::Interact, reference, events)
            }
            Action::Cast { spell, target } => self.cast(index, &spell, &target, reference, events),
            Action::Autocast { spell } => {
                self.set_autocast(index, spell.as_deref(), reference, events)
            }
            Action::AutoRetaliate(on) => self.set_auto_retaliate(index, on),
            Action::HomeTeleport => self.begin_home_teleport(index, reference, events),
            Action::Follow { target } => {
                if target == id {
                    return Self::reject(
                        id,
                        codes::INVALID_TARGET,
                        "you cannot follow yourself",
                        reference,
                        events,
                    );
                }
                self.begin(index, &target, IntentKind::Follow, reference, events)
            }
        }
    }

    /// `stop`: no walk, no intent.
    pub(crate) fn stop_everything(&mut self, id: &str) {
        if let Some(&index) = self.player_index.get(id) {
            let player = &mut self.players[index];
            player.walk.clear();
            player.intent = None;
        }
    }

    fn set_style(&mut self, index: usize, style: CombatStyle) {
        let player = &mut self.players[index];
        if player.style != style {
            player.style = style;
            player.dirty.stats = true;
        }
    }

    /// Starts an action on the entity with wire id `target`: checked now, done once next to it.
    pub(crate) fn begin(
        &mut self,
        index: usize,
        target: &str,
        kind: IntentKind,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let id = self.players[index].id.clone();
        match self.intent_target(index, target, kind) {
            Ok(handle) => self.set_intent(index, handle, kind, reference),
            Err((code, message)) => Self::reject(&id, code, message, reference, events),
        }
    }

    /// The entity with wire id `target` when player `index` may aim an intent of `kind` at it,
    /// else `invalid_target`: it is not here, it is not something one does `kind` to, or it is the
    /// player themself. Checked first, before anything about the player's own state (the place,
    /// their runes), as a player would expect: "there is nothing there" before "you have no runes".
    pub(crate) fn intent_target(
        &self,
        index: usize,
        target: &str,
        kind: IntentKind,
    ) -> Result<Handle, (&'static str, String)> {
        let found = self
            .entities
            .find(target)
            .and_then(|h| self.entities.get(h).map(|b| (h, b.wire.kind)));
        let Some((handle, entity_kind)) = found else {
            return Err((
                codes::INVALID_TARGET,
                format!("there is no {} here", quoted(target)),
            ));
        };
        if !kind.accepts(entity_kind) || handle == self.players[index].handle {
            return Err((
                codes::INVALID_TARGET,
                format!("you cannot {} that", kind.verb()),
            ));
        }
        Ok(handle)
    }

    /// Gives player `index` the intent of doing `kind` to entity `target` (checked by the caller).
    pub(crate) fn set_intent(
        &mut self,
        index: usize,
        target: Handle,
        kind: IntentKind,
        reference: Option<u64>,
    ) {
        let player = &mut self.players[index];
        player.walk.clear();
        player.intent = Some(Intent {
            target,
            kind,
            reference,
            approach: None,
            engaged: false,
            next_at: 0,
        });
        // Start walking this tick when out of reach (the movement phase comes next).
        let _ = self.approach(index);
    }

    /// The rectangle an entity occupies: its footprint for resources, else its tile.
    pub(crate) fn extent_of(&self, handle: Handle) -> Option<(TilePos, TilePos)> {
        let body = self.entities.get(handle)?;
        Some(
            self.extents
                .get(&handle)
                .copied()
                .unwrap_or((body.tile(), body.tile())),
        )
    }

    /// Chebyshev distance from player `index` to entity `target`, when both exist.
    pub(crate) fn distance_from(&self, index: usize, target: Handle) -> Option<u32> {
        let at = self.entities.get(self.players[index].handle)?.tile();
        Some(distance_to(at, self.extent_of(target)?))
    }

    /// Whether player `index` stands next to a tile of entity `target` with no wall or closed
    /// door between them: what is next to a wall's other side is out of reach.
    fn touches_across_walls(&self, index: usize, target: Handle) -> bool {
        let (Some(at), Some((a, b))) = (
            self.entities
                .get(self.players[index].handle)
                .map(|p| p.tile()),
            self.extent_of(target),
        ) else {
            return false;
        };
        let map = &self.layout.map;
        (a.z..=b.z).any(|z| (a.x..=b.x).any(|x| map.touches(at, TilePos { x, z })))
    }

    /// Keeps player `index` walking towards its intent's target while out of reach: a new path when
    /// the target has moved since the last one, or when the walk ended short of it.
    fn approach(&mut self, index: usize) -> Approach {
        let Some(intent) = self.players[index].intent.as_ref() else {
            return Approach::Stuck;
        };
        let (target, reach) = (intent.target, self.reach_of(index, intent.kind));
        let Some(distance) = self.distance_from(index, target) else {
            return Approach::Stuck;
        };
        // Melee touches the target with no wall between; a ranged attack or spell in reach is
        // engaged, and refused there when a wall is in the way (`no_line_of_sight`).
        if distance <= reach && (reach > 1 || self.touches_across_walls(index, target)) {
            return Approach::InReach;
        }
        let Some(goal) = self.entities.get(target).map(|b| b.tile()) else {
            return Approach::Stuck;
        };
        // Within arm's reach the walk ends beside the target, not on its tile (a run's two steps
        // a tick would otherwise carry the player onto an NPC it talks to).
        let walk_to = if reach <= 1 {
            self.beside(index, target).unwrap_or(goal)
        } else {
            goal
        };
        let player = &mut self.players[index];
        let moving = player.walk.is_moving();
        let Some(intent) = player.intent.as_mut() else {
            return Approach::Stuck;
        };
        if intent.approach == Some(goal) && !moving {
            // We walked as far as the path to this very tile goes and are still not there.
            return Approach::Stuck;
        }
        if intent.approach != Some(goal) || !moving {
            intent.approach = Some(goal);
            player.walk.request(walk_to, false);
        }
        Approach::Walking
    }

    /// The walkable tile next to entity `target` that touches it across no wall, nearest player
    /// `index` (by Chebyshev distance, then straight distance); `None` when none is open.
    fn beside(&self, index: usize, target: Handle) -> Option<TilePos> {
        let at = self.entities.get(self.players[index].handle)?.tile();
        let (a, b) = self.extent_of(target)?;
        let map = &self.layout.map;
        let mut best: Option<((u32, i64), TilePos)> = None;
        for z in a.z - 1..=b.z + 1 {
            for x in a.x - 1..=b.x + 1 {
                let tile = TilePos { x, z };
                let inside = (a.x..=b.x).contains(&x) && (a.z..=b.z).contains(&z);
                if inside || !map.is_walkable(tile) {
                    continue;
                }
                let touching = (a.z..=b.z)
                    .any(|tz| (a.x..=b.x).any(|tx| map.touches(tile, TilePos { x: tx, z: tz })));
                if !touching {
                    continue;
                }
                let straight = i64::from(x - at.x).pow(2) + i64::from(z - at.z).pow(2);
                let key = (chebyshev(at, tile), straight);
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, tile));
                }
            }
        }
        best.map(|(_, tile)| tile)
    }

    /// How close an action needs player `index` to be (attacks reach as far as the weapon does).
    fn reach_of(&self, index: usize, kind: IntentKind) -> u32 {
        match kind {
            IntentKind::Attack | IntentKind::Cast => self.attack_reach(index, kind),
            other => other.reach(),
        }
    }

    /// The actions phase for intents: approach or act, for every player in order (so two players
    /// reaching for the same item in one tick are served in a fixed order).
    pub(crate) fn advance_intents(&mut self, events: &mut Vec<Event>) {
        for index in 0..self.players.len() {
            let Some(intent) = self.players[index].intent.clone() else {
                continue;
            };
            if self.entities.get(intent.target).is_none() {
                self.players[index].intent = None;
                self.target_gone(index, &intent, events);
                continue;
            }
            match self.approach(index) {
                Approach::InReach => {}
                Approach::Walking => continue,
                Approach::Stuck => {
                    let id = self.players[index].id.clone();
                    self.players[index].intent = None;
                    Self::reject(
                        &id,
                        codes::CANNOT_DO,
                        "you cannot reach that",
                        intent.reference,
                        events,
                    );
                    continue;
                }
            }
            // In reach: stand still and act.
            self.players[index].walk.clear();
            let flow = match intent.kind {
                IntentKind::Pickup => self.pick_up(index, intent.target, intent.reference, events),
                IntentKind::Gather => self.gather_tick(index, &intent, events),
                IntentKind::Attack | IntentKind::Cast => self.attack_tick(index, &intent, events),
                IntentKind::UseOn { slot } => self.use_on_entity(index, slot, &intent, events),
                IntentKind::Interact => self.interact(index, &intent, events),
                IntentKind::Follow => Flow::Continue,
                IntentKind::Make => self.make_tick(index, &intent, events),
            };
            let player = &mut self.players[index];
            match flow {
                Flow::Done => {
                    // Unless the module replaced it with another intent.
                    if player.intent.as_ref().map(|i| i.target) == Some(intent.target) {
                        player.intent = None;
                    }
                }
                Flow::Continue => {
                    if let Some(current) = player.intent.as_mut() {
                        current.engaged = true;
                    }
                }
            }
        }
    }

    /// An intent's target disappeared (a mob died, an item was taken, a player left).
    fn target_gone(&mut self, index: usize, intent: &Intent, events: &mut Vec<Event>) {
        if intent.kind == IntentKind::Make {
            return self.station_gone(index, events);
        }
        if intent.kind == IntentKind::Pickup {
            let id = self.players[index].id.clone();
            Self::reject(
                &id,
                codes::CANNOT_DO,
                "too late: the item is gone",
                intent.reference,
                events,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wayfarer_content::EquipSlot;

    fn request(action: &str, extra: serde_json::Value) -> ActionRequest {
        let mut v = json!({ "action": action });
        for (k, val) in extra.as_object().unwrap() {
            v[k] = val.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn requests_read_into_actions_with_clear_errors() {
        assert_eq!(
            Action::from_request(&request("gather", json!({"targetId": "res-1"}))),
            Ok(Action::Gather {
                target: "res-1".into()
            })
        );
        assert_eq!(
            Action::from_request(&request("drop", json!({"slot": 27}))),
            Ok(Action::Drop { slot: 27 })
        );
        assert_eq!(
            Action::from_request(&request("drop", json!({"slot": 28})))
                .unwrap_err()
                .code,
            codes::INVALID_SLOT
        );
        assert_eq!(
            Action::from_request(&request("drop", json!({"slot": -1})))
                .unwrap_err()
                .code,
            codes::INVALID_SLOT
        );
        assert_eq!(
            Action::from_request(&request("drop", json!({})))
                .unwrap_err()
                .code,
            codes::INVALID_MESSAGE
        );
        assert_eq!(
            Action::from_request(&request("unequip", json!({"slot": "shield"}))),
            Ok(Action::Unequip {
                slot: EquipSlot::Shield
            })
        );
        assert_eq!(
            Action::from_request(&request("combat_style", json!({"style": "rapid"}))),
            Ok(Action::CombatStyle(CombatStyle::Rapid))
        );
        assert_eq!(
            Action::from_request(&request("combat_style", json!({"style": "fast"})))
                .unwrap_err()
                .code,
            codes::INVALID_ACTION
        );
        assert_eq!(
            Action::from_request(&request("dance", json!({})))
                .unwrap_err()
                .code,
            codes::INVALID_ACTION
        );
        assert_eq!(
            Action::from_request(&request("attack", json!({"targetId": ""})))
                .unwrap_err()
                .code,
            codes::INVALID_MESSAGE
        );
    }

    #[test]
    fn distance_to_a_footprint_counts_from_its_edge() {
        let rect = (TilePos { x: 0, z: 0 }, TilePos { x: 1, z: 1 });
        assert_eq!(distance_to(TilePos { x: 2, z: 2 }, rect), 1);
        assert_eq!(distance_to(TilePos { x: -1, z: 0 }, rect), 1);
        assert_eq!(distance_to(TilePos { x: 4, z: 0 }, rect), 3);
        assert_eq!(distance_to(TilePos { x: 1, z: 0 }, rect), 0);
    }
}
