//! What the agent knows of the world, built only from the server's messages (ARCHITECTURE.md: a
//! view of the world from server messages; providers are pure functions of it).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use wayfarer_protocol::trade::{Offer, TradeStarted};
use wayfarer_protocol::ws::{
    ChatMessage, DialogueOpen, Entity, EntityKind, EquippedItem, InventorySlot, PrayerUpdate,
    QuestSummary, ServerMessage, ShopView, SkillState, TilePos, INVENTORY_SLOTS,
};
use wayfarer_protocol::Skill;

use crate::in_view::InView;
use crate::interned::{intern, intern_ident, intern_look, Name};

/// Chat lines kept for the providers and the model's prompt.
pub const CHAT_LINES_KEPT: usize = 20;
/// Server errors kept (matched to actions by `ref` as they arrive; kept for the status).
pub const ERRORS_KEPT: usize = 20;
/// The server's view distance (Chebyshev tiles, CONTRACT.md section 3).
pub const VIEW_TILES: u32 = 32;
/// Most out-of-view ground items remembered (the latest to leave view). A thousand agents each
/// remembering 256 came to ~45 KiB an agent of map room after twenty minutes of play; a pickup
/// from afar wants the few items the agent just walked away from.
pub const REMEMBERED_ITEMS: usize = 32;
/// How long after a hit the agent counts itself in combat, in ticks.
pub const COMBAT_MEMORY_TICKS: u64 = 8;

/// The agent's own character.
#[derive(Debug, Clone, Default)]
pub struct Me {
    pub id: String,
    pub name: String,
    pub tile: TilePos0,
    pub health: i64,
    pub max_health: i64,
    /// Run energy in percent (0–100).
    pub stamina: u32,
    pub combat_level: i64,
    pub coins: i64,
    pub skills: BTreeMap<Skill, SkillState>,
    pub inventory: Vec<InventorySlot>,
    pub equipment: BTreeMap<String, EquippedItem>,
}

/// A tile that defaults to the origin (the model before the first sync).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TilePos0 {
    pub x: i32,
    pub z: i32,
}

impl From<TilePos0> for TilePos {
    fn from(t: TilePos0) -> TilePos {
        TilePos { x: t.x, z: t.z }
    }
}

impl From<TilePos> for TilePos0 {
    fn from(t: TilePos) -> TilePos0 {
        TilePos0 { x: t.x, z: t.z }
    }
}

/// Something in view (or a ground item remembered), as the agent keeps it: where it is and how it
/// fares, with what it is ([`Ident`]) shared through [`crate::interned`]. An agent in a crowd keeps
/// several hundred of these and a host may run a thousand agents, so a slot is 32 bytes: in the
/// protocol's form (five owned strings each) they were most of an agent's memory, and with the id
/// and the look held inline (64 bytes) still the largest part of it (BENCHMARKS.md, "Embedded
/// agents").
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    ident: Arc<Ident>,
    pub x: i32,
    pub z: i32,
    /// Hitpoints, [`ABSENT`] for things that have none.
    health: i32,
    max_health: i32,
    /// A ground item's stack size, [`ABSENT`] for everything else.
    quantity: i32,
    pub depleted: Option<bool>,
}

/// What an entity is for as long as it is in view: the same for every agent that sees it, so
/// shared (a rename makes a new one).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub id: Name,
    pub kind: EntityKind,
    pub look: Arc<Look>,
}

/// What an entity is, as opposed to where it is and how it fares: the same for every entity of
/// one definition (every goblin), so shared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Look {
    pub name: Option<Name>,
    pub item_id: Option<Name>,
    pub resource_type: Option<Name>,
    /// The NPC or resource definition id from content.
    pub type_id: Option<Name>,
}

/// A [`Seen`] number the server did not send. The server's hitpoints and stacks are far inside
/// `i32`, and [`narrow`] keeps received values off this one.
const ABSENT: i32 = i32::MIN;

impl Seen {
    /// The agent's copy of an entity the server sent.
    pub fn of(entity: &Entity) -> Seen {
        let name = |text: &Option<String>| text.as_deref().map(intern);
        let look = intern_look(Look {
            name: name(&entity.name),
            item_id: name(&entity.item_id),
            resource_type: name(&entity.resource_type),
            type_id: name(&entity.type_id),
        });
        Seen {
            ident: intern_ident(Ident {
                id: intern(&entity.id),
                kind: entity.kind,
                look,
            }),
            x: entity.x,
            z: entity.z,
            health: stored(entity.health),
            max_health: stored(entity.max_health),
            quantity: stored(entity.quantity),
            depleted: entity.depleted,
        }
    }

    pub fn id(&self) -> &str {
        &self.ident.id
    }

    /// The entity's id, shared: cloning it is a reference count.
    pub fn shared_id(&self) -> &Name {
        &self.ident.id
    }

    pub fn kind(&self) -> EntityKind {
        self.ident.kind
    }

    /// What it is, shared with every entity that looks the same.
    pub fn look(&self) -> &Arc<Look> {
        &self.ident.look
    }

    pub fn name(&self) -> Option<&str> {
        self.ident.look.name.as_deref()
    }

    /// A ground item's item id.
    pub fn item_id(&self) -> Option<&str> {
        self.ident.look.item_id.as_deref()
    }

    /// A resource's type (`tree`, `fishing_spot`, `range`, …).
    pub fn resource_type(&self) -> Option<&str> {
        self.ident.look.resource_type.as_deref()
    }

    /// The NPC or resource definition id from content.
    pub fn type_id(&self) -> Option<&str> {
        self.ident.look.type_id.as_deref()
    }

    pub fn health(&self) -> Option<i32> {
        given(self.health)
    }

    pub fn max_health(&self) -> Option<i32> {
        given(self.max_health)
    }

    /// A ground item's stack size.
    pub fn quantity(&self) -> Option<i32> {
        given(self.quantity)
    }

    pub fn set_health(&mut self, health: i64) {
        self.health = narrow(health);
    }

    pub fn set_max_health(&mut self, max_health: i64) {
        self.max_health = narrow(max_health);
    }

    pub fn set_quantity(&mut self, quantity: Option<i64>) {
        self.quantity = stored(quantity);
    }

    /// The same entity under a new name.
    pub fn rename(&mut self, name: &str) {
        let look = intern_look(Look {
            name: Some(intern(name)),
            ..Look::clone(&self.ident.look)
        });
        self.ident = intern_ident(Ident {
            id: Name::clone(&self.ident.id),
            kind: self.ident.kind,
            look,
        });
    }
}

fn stored(value: Option<i64>) -> i32 {
    value.map_or(ABSENT, narrow)
}

fn given(value: i32) -> Option<i32> {
    (value != ABSENT).then_some(value)
}

/// Hitpoints and stack sizes as the agent keeps them: within `i32`, and never [`ABSENT`].
fn narrow(value: i64) -> i32 {
    value.clamp(i64::from(ABSENT) + 1, i64::from(i32::MAX)) as i32
}

/// A trade the agent is part of.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeState {
    pub trade_id: String,
    pub partner_id: String,
    pub partner_name: String,
    /// `requested` (an incoming request), `offer` (screen 1), `confirm` (screen 2).
    pub stage: &'static str,
    pub mine: Option<Offer>,
    pub theirs: Option<Offer>,
}

/// A duel the agent is part of.
#[derive(Debug, Clone, PartialEq)]
pub struct DuelState {
    pub duel_id: String,
    pub opponent_id: String,
    pub opponent_name: String,
    /// `challenged` (a challenge waiting for the agent), `rules` (screen 1), `confirm` (screen 2),
    /// `fighting`.
    pub stage: &'static str,
    /// Whether the agent accepted the screen shown (a second accept is not needed).
    pub accepted: bool,
}

/// How the agent's last duel, or its last challenge, ended.
#[derive(Debug, Clone, PartialEq)]
pub struct DuelEnd {
    /// `won`, `lost`, or a `duel:cancelled` reason (`declined`, `timeout`, …).
    pub how: String,
    /// The tick it was heard.
    pub tick: u64,
}

/// Most opponents' names a model remembers beating.
pub const DUEL_WINS_KEPT: usize = 8;

/// A server error, as received.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerError {
    pub code: String,
    pub message: String,
    pub reference: Option<String>,
}

/// The agent's model of the world.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Whether a `player:sync` has arrived on the current connection.
    pub synced: bool,
    pub me: Me,
    /// Everything in view but the agent itself, by id.
    pub entities: InView,
    /// Ground items that went out of view (not picked up): where they were last seen, for a
    /// pickup from afar.
    pub remembered: Remembered,
    /// The last tick a `world:update` named.
    pub tick: u64,
    /// The bank as last sent (`None` until a bank was opened this session).
    pub bank: Option<Vec<wayfarer_protocol::ws::BankItem>>,
    pub shop: Option<ShopView>,
    pub trade: Option<TradeState>,
    pub duel: Option<DuelState>,
    /// How the last duel or challenge ended (a `duel` goal's planner reads a decline here).
    pub duel_end: Option<DuelEnd>,
    /// The names of the players the agent beat in a duel, the latest [`DUEL_WINS_KEPT`].
    pub duels_won: VecDeque<String>,
    pub dialogue: Option<DialogueOpen>,
    pub quests: Vec<QuestSummary>,
    pub quest_points: u32,
    pub prayer: Option<PrayerUpdate>,
    pub chat: VecDeque<ChatMessage>,
    pub errors: VecDeque<ServerError>,
    /// The tick of the last `combat:hit` the agent dealt or took.
    pub last_hit_tick: Option<u64>,
    /// Who last attacked the agent.
    pub last_attacker: Option<String>,
    /// Counters the actions read to see progress: bumped by every `skill:xp` of a skill.
    pub xp_events: BTreeMap<Skill, u64>,
    /// Bumped by every `inventory:update`.
    pub inventory_version: u64,
    /// Bumped by every `bank:update`.
    pub bank_version: u64,
}

impl Model {
    /// Keeps a server's refusal (`error`, `duelError`) for the status.
    fn keep_error(&mut self, code: &str, message: &str, reference: Option<&serde_json::Value>) {
        let error = ServerError {
            code: code.to_owned(),
            message: message.to_owned(),
            reference: reference.map(ref_text),
        };
        push_bounded(&mut self.errors, error, ERRORS_KEPT);
    }

    /// Applies one server message.
    pub fn apply(&mut self, message: &ServerMessage) {
        match message {
            // The control plane is the runtime's business (`control_plane`), not the world's.
            ServerMessage::AgentGoal(_)
            | ServerMessage::AgentStop(_)
            | ServerMessage::AgentResume(_)
            | ServerMessage::AgentMessage(_) => {}
            // What can be made is asked for by the agents' own actions later (issue 28).
            ServerMessage::MakeOptions(_) => {}
            // Zones and deaths: what changes (tile, inventory, health) arrives in its own messages.
            ServerMessage::ZoneEnter(_) | ServerMessage::PlayerDeath(_) => {}
            // Emotes are for people; a home teleport's landing arrives as the player's move.
            ServerMessage::PlayerEmote(_) | ServerMessage::HomeTeleport(_) => {}
            // The ladder (issue 55): agents join it in a later round; the fight itself arrives as
            // the duel's messages.
            ServerMessage::ArenaQueued(_)
            | ServerMessage::ArenaMatch(_)
            | ServerMessage::ArenaCancelled(_)
            | ServerMessage::ArenaLeft(_)
            | ServerMessage::ArenaResult(_) => {}
            ServerMessage::PlayerSync(player) => {
                let me = &mut self.me;
                me.id.clone_from(&player.id);
                me.name.clone_from(&player.name);
                if let Some(tile) = player.tile {
                    me.tile = tile.into();
                }
                me.health = player.health;
                me.max_health = player.max_health;
                me.stamina = player.stamina.unwrap_or(100);
                me.combat_level = player.combat_level;
                me.coins = player.coins;
                me.skills = player.skills.clone();
                me.inventory = player.inventory.clone();
                me.equipment = player.equipment.clone();
                self.inventory_version += 1;
                self.synced = true;
            }
            ServerMessage::WorldUpdate(update) => {
                self.tick = update.tick;
                for entity in &update.added {
                    if entity.id == self.me.id {
                        self.me.tile = TilePos0 {
                            x: entity.x,
                            z: entity.z,
                        };
                        continue;
                    }
                    self.remembered.forget(&entity.id);
                    let seen = Seen::of(entity);
                    self.entities.insert(seen);
                }
                for moved in update.moved.iter() {
                    if *moved.id == *self.me.id {
                        self.me.tile = TilePos0 {
                            x: moved.x,
                            z: moved.z,
                        };
                    } else if let Some(e) = self.entities.get_mut(&moved.id) {
                        e.x = moved.x;
                        e.z = moved.z;
                    }
                }
                for changed in &update.changed {
                    if changed.id == self.me.id {
                        if let Some(h) = changed.health {
                            self.me.health = h;
                        }
                        if let Some(h) = changed.max_health {
                            self.me.max_health = h;
                        }
                        continue;
                    }
                    if let Some(e) = self.entities.get_mut(changed.id.as_str()) {
                        if let Some(h) = changed.health {
                            e.set_health(h);
                        }
                        if let Some(h) = changed.max_health {
                            e.set_max_health(h);
                        }
                        if let Some(name) = &changed.name {
                            e.rename(name);
                        }
                        if changed.quantity.is_some() {
                            e.set_quantity(changed.quantity);
                        }
                        if changed.depleted.is_some() {
                            e.depleted = changed.depleted;
                        }
                    }
                }
                for id in &update.removed {
                    let Some(gone) = self.entities.remove(id) else {
                        continue;
                    };
                    // Near the edge of view it left the view; closer in it was taken or expired.
                    let far = self.distance_to(gone.x, gone.z) + 2 >= VIEW_TILES;
                    if gone.kind() == EntityKind::GroundItem && far {
                        self.remembered.remember(gone);
                    }
                }
                if !update.removed.is_empty() {
                    self.entities.give_back_spare_room();
                }
                if let Some(stamina) = update.stamina {
                    self.me.stamina = stamina;
                }
            }
            ServerMessage::InventoryUpdate(update) => {
                self.me.inventory.clone_from(&update.inventory);
                self.me.coins = update.coins;
                self.inventory_version += 1;
            }
            ServerMessage::EquipmentUpdate(update) => {
                self.me.equipment.clone_from(&update.equipment);
            }
            ServerMessage::SkillXp(xp) => {
                self.me.skills.insert(
                    xp.skill,
                    SkillState {
                        level: xp.level,
                        xp: xp.xp,
                    },
                );
                *self.xp_events.entry(xp.skill).or_default() += 1;
            }
            ServerMessage::CombatHit(hit) => {
                if hit.target_id == self.me.id {
                    self.me.health = hit.target_health;
                    self.me.max_health = hit.target_max_health;
                    self.last_attacker = Some(hit.attacker_id.clone());
                    self.last_hit_tick = Some(self.tick);
                } else if hit.attacker_id == self.me.id {
                    self.last_hit_tick = Some(self.tick);
                }
                if let Some(e) = self.entities.get_mut(hit.target_id.as_str()) {
                    e.set_health(hit.target_health);
                    e.set_max_health(hit.target_max_health);
                }
            }
            ServerMessage::Chat(line) => {
                push_bounded(&mut self.chat, line.clone(), CHAT_LINES_KEPT);
            }
            ServerMessage::Error(e) => self.keep_error(&e.code, &e.message, e.reference.as_ref()),
            ServerMessage::DuelError(e) => {
                self.keep_error(&e.code, &e.message, e.reference.as_ref());
            }
            ServerMessage::DuelIncoming(incoming) => {
                self.duel = Some(DuelState {
                    duel_id: incoming.duel_id.clone(),
                    opponent_id: incoming.from_player_id.clone(),
                    opponent_name: incoming.from_player_name.clone(),
                    stage: "challenged",
                    accepted: false,
                });
            }
            ServerMessage::DuelRules(rules) => {
                self.duel = Some(DuelState {
                    duel_id: rules.duel_id.clone(),
                    opponent_id: rules.opponent_id.clone(),
                    opponent_name: rules.opponent_name.clone(),
                    stage: if rules.screen == 2 {
                        "confirm"
                    } else {
                        "rules"
                    },
                    accepted: rules.my_stake.accepted,
                });
            }
            ServerMessage::DuelStart(start) => {
                if let Some(d) = self.duel.as_mut().filter(|d| d.duel_id == start.duel_id) {
                    d.stage = "fighting";
                }
            }
            ServerMessage::DuelResult(result) => {
                let won = result.winner_id == self.me.id;
                if let Some(d) = self.duel.take().filter(|d| d.duel_id == result.duel_id) {
                    if won {
                        push_bounded(&mut self.duels_won, d.opponent_name, DUEL_WINS_KEPT);
                    }
                }
                self.duel_end = Some(DuelEnd {
                    how: if won { "won" } else { "lost" }.into(),
                    tick: self.tick,
                });
            }
            ServerMessage::DuelCancelled(cancelled) => {
                self.duel = None;
                self.duel_end = Some(DuelEnd {
                    how: cancelled.reason.clone(),
                    tick: self.tick,
                });
            }
            ServerMessage::TradeError(error) => {
                let error = ServerError {
                    code: error.code.clone(),
                    message: error.message.clone(),
                    reference: error.reference.as_ref().map(ref_text),
                };
                push_bounded(&mut self.errors, error, ERRORS_KEPT);
            }
            ServerMessage::BankUpdate(bank) => {
                self.bank = Some(bank.items.clone());
                self.bank_version += 1;
            }
            ServerMessage::ShopOpen(shop) | ServerMessage::ShopUpdate(shop) => {
                self.shop = Some(shop.clone());
            }
            ServerMessage::ShopClose(_) => self.shop = None,
            ServerMessage::PrayerUpdate(prayer) => self.prayer = Some(prayer.clone()),
            ServerMessage::DialogueOpen(open) => self.dialogue = Some(open.clone()),
            ServerMessage::DialogueClose(_) => self.dialogue = None,
            ServerMessage::QuestList(list) => {
                self.quests.clone_from(&list.quests);
                self.quest_points = list.quest_points;
            }
            ServerMessage::QuestUpdate(update) => {
                if let Some(q) = self
                    .quests
                    .iter_mut()
                    .find(|q| q.quest_id == update.quest_id)
                {
                    q.status.clone_from(&update.status);
                    q.stage_id.clone_from(&update.stage_id);
                    q.progress = Some(update.progress);
                }
            }
            ServerMessage::QuestComplete(done) => {
                self.quest_points = done.quest_points;
                if let Some(q) = self.quests.iter_mut().find(|q| q.quest_id == done.quest_id) {
                    q.status = "completed".into();
                }
            }
            ServerMessage::TradeIncoming(incoming) => {
                self.trade = Some(TradeState {
                    trade_id: incoming.trade_id.clone(),
                    partner_id: incoming.from_player_id.clone(),
                    partner_name: incoming.from_player_name.clone(),
                    stage: "requested",
                    mine: None,
                    theirs: None,
                });
            }
            ServerMessage::TradeStarted(TradeStarted {
                trade_id,
                partner_id,
                partner_name,
            }) => {
                self.trade = Some(TradeState {
                    trade_id: trade_id.clone(),
                    partner_id: partner_id.clone(),
                    partner_name: partner_name.clone(),
                    stage: "offer",
                    mine: None,
                    theirs: None,
                });
            }
            ServerMessage::TradeUpdated(update) => {
                if let Some(t) = self.trade.as_mut() {
                    t.stage = "offer";
                    t.mine = Some(update.my_offer.clone());
                    t.theirs = Some(update.their_offer.clone());
                }
            }
            ServerMessage::TradeConfirmScreen(screen) => {
                if let Some(t) = self.trade.as_mut() {
                    t.stage = "confirm";
                    t.mine = Some(screen.my_offer.clone());
                    t.theirs = Some(screen.their_offer.clone());
                }
            }
            ServerMessage::TradeCompleted(_) | ServerMessage::TradeCancelled(_) => {
                self.trade = None
            }
            ServerMessage::FriendList(_)
            | ServerMessage::FriendIncoming(_)
            | ServerMessage::FriendStatus(_) => {}
        }
    }

    /// Forgets what only the old connection showed (a reconnect re-syncs from scratch).
    pub fn reset_for_reconnect(&mut self) {
        self.synced = false;
        self.entities.clear();
        self.shop = None;
        self.trade = None;
        self.dialogue = None;
    }

    /// Whether the agent took or dealt a hit lately.
    pub fn in_combat(&self) -> bool {
        self.last_hit_tick
            .is_some_and(|t| self.tick.saturating_sub(t) <= COMBAT_MEMORY_TICKS)
    }

    /// Whether the agent beat `name` in a duel (of those it remembers).
    pub fn won_duel_against(&self, name: &str) -> bool {
        self.duels_won.iter().any(|n| n.eq_ignore_ascii_case(name))
    }

    /// The duel fight the agent is in now, if any.
    pub fn duel_fight(&self) -> Option<&DuelState> {
        self.duel.as_ref().filter(|d| d.stage == "fighting")
    }

    /// Free inventory slots.
    pub fn free_slots(&self) -> usize {
        INVENTORY_SLOTS.saturating_sub(self.me.inventory.len())
    }

    /// The agent's level in `skill` (1 when never seen).
    pub fn level(&self, skill: Skill) -> i64 {
        self.me.skills.get(&skill).map_or(1, |s| s.level)
    }

    /// The first inventory slot holding `item_id`.
    pub fn slot_of(&self, item_id: &str) -> Option<&InventorySlot> {
        self.me.inventory.iter().find(|s| s.item_id == item_id)
    }

    /// How many of `item_id` the inventory holds.
    pub fn count_of(&self, item_id: &str) -> i64 {
        self.me
            .inventory
            .iter()
            .filter(|s| s.item_id == item_id)
            .map(|s| s.quantity)
            .sum()
    }

    /// The inventory slot numbered `slot`.
    pub fn slot(&self, slot: u8) -> Option<&InventorySlot> {
        self.me.inventory.iter().find(|s| s.slot == slot)
    }

    /// Chebyshev distance from the agent to `tile`.
    pub fn distance_to(&self, x: i32, z: i32) -> u32 {
        chebyshev(self.me.tile.x, self.me.tile.z, x, z)
    }

    /// Entities of `kind` in view, nearest first.
    pub fn nearest_of(&self, kind: EntityKind) -> Vec<&Seen> {
        self.nearest_where(|e| e.kind() == kind)
    }

    /// Everything in view, nearest first.
    pub fn nearest(&self) -> Vec<&Seen> {
        self.nearest_where(|_| true)
    }

    fn nearest_where(&self, keep: impl Fn(&Seen) -> bool) -> Vec<&Seen> {
        let mut found: Vec<(u32, &Seen)> = self
            .entities
            .values()
            .filter(|e| keep(e))
            .map(|e| (self.distance_to(e.x, e.z), e))
            .collect();
        // Ties by id, so the choice does not depend on the map's order; players by name first
        // (their ids are database UUIDs, new every run, and a run must not depend on them).
        fn key(e: &Seen) -> Option<&str> {
            (e.kind() == EntityKind::Player).then(|| e.name()).flatten()
        }
        found.sort_unstable_by(|(da, a), (db, b)| {
            da.cmp(db)
                .then_with(|| key(a).cmp(&key(b)))
                .then_with(|| a.id().cmp(b.id()))
        });
        found.into_iter().map(|(_, e)| e).collect()
    }
}

/// Ground items that went out of view, the latest [`REMEMBERED_ITEMS`], newest first.
#[derive(Debug, Clone, Default)]
pub struct Remembered {
    items: VecDeque<Seen>,
}

impl Remembered {
    /// The remembered item `id`.
    pub fn get(&self, id: &str) -> Option<&Seen> {
        self.items.iter().find(|e| e.id() == id)
    }

    /// Every remembered item, the latest to leave view first.
    pub fn iter(&self) -> impl Iterator<Item = &Seen> {
        self.items.iter()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Remembers an item that left view, forgetting the oldest beyond [`REMEMBERED_ITEMS`].
    fn remember(&mut self, item: Seen) {
        self.forget(item.id());
        if self.items.len() == REMEMBERED_ITEMS {
            self.items.pop_back();
        }
        self.items.push_front(item);
    }

    /// Forgets `id` (it came back into view).
    fn forget(&mut self, id: &str) {
        if !self.items.is_empty() {
            self.items.retain(|e| e.id() != id);
        }
    }
}

/// Chebyshev distance between two tiles (the server's distance for reach and the move limit).
pub fn chebyshev(ax: i32, az: i32, bx: i32, bz: i32) -> u32 {
    ax.abs_diff(bx).max(az.abs_diff(bz))
}

/// A `ref` as text (the agent sends strings; a number comes back as its digits).
pub fn ref_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn push_bounded<T>(list: &mut VecDeque<T>, item: T, cap: usize) {
    if list.len() == cap {
        list.pop_front();
    }
    list.push_back(item);
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_protocol::ws::WorldUpdate;

    #[test]
    fn what_is_in_view_is_kept_compact_and_shared() {
        // Every agent keeps hundreds of these: keep the form small (it was 208 bytes a slot with
        // the protocol's Entity and its String key, before the strings themselves; 88 with a
        // `Name` key and a 64-bit quantity; 64 with the id and look inline). The table of what is
        // in view holds them bare.
        assert!(
            std::mem::size_of::<Seen>() <= 32,
            "{}",
            std::mem::size_of::<Seen>()
        );
        let goblin = |id: &str| Entity {
            name: Some("Goblin".into()),
            health: Some(5),
            max_health: Some(5),
            type_id: Some("goblin".into()),
            ..Entity::at(id, EntityKind::Npc, 3, -4)
        };
        let (a, b) = (Seen::of(&goblin("npc-1")), Seen::of(&goblin("npc-2")));
        assert_eq!(
            (a.name(), a.type_id(), a.item_id()),
            (Some("Goblin"), Some("goblin"), None)
        );
        assert_eq!((a.x, a.z, a.health(), a.quantity()), (3, -4, Some(5), None));
        assert!(
            Arc::ptr_eq(a.look(), b.look()),
            "two goblins share one look"
        );
        let again = Seen::of(&goblin("npc-1"));
        assert!(
            Arc::ptr_eq(a.shared_id(), again.shared_id()),
            "and an id is held once"
        );
        assert!(
            Arc::ptr_eq(&a.ident, &again.ident),
            "as is all that the entity is"
        );
        // A rename is a new look for the same entity; the others keep theirs.
        let mut renamed = again;
        renamed.rename("Goblin chief");
        assert_eq!(
            (renamed.id(), renamed.name()),
            ("npc-1", Some("Goblin chief"))
        );
        assert_eq!(a.name(), Some("Goblin"));
        // The server's numbers are kept within range, and an absent one stays absent.
        renamed.set_health(i64::MIN);
        renamed.set_max_health(i64::MAX);
        assert_eq!(renamed.health(), Some(i32::MIN + 1));
        assert_eq!(renamed.max_health(), Some(i32::MAX));
        renamed.set_quantity(Some(0));
        assert_eq!(renamed.quantity(), Some(0));
        renamed.set_quantity(None);
        assert_eq!(renamed.quantity(), None);
    }

    /// A pile of bones `item-<i>` on the ground at (x, z).
    fn bones(i: usize, x: i32, z: i32) -> Entity {
        Entity {
            name: Some("Bones".into()),
            item_id: Some("bones".into()),
            quantity: Some(1),
            ..Entity::at(format!("item-{i}"), EntityKind::GroundItem, x, z)
        }
    }

    #[test]
    fn ground_items_leaving_view_are_remembered_the_latest_32() {
        let item = |i: usize, x: i32| bones(i, x, 0);
        let mut model = Model::default();
        let update = |tick, added: Vec<Entity>, removed: Vec<String>| {
            ServerMessage::WorldUpdate(WorldUpdate {
                tick,
                added: added.into_iter().map(Arc::new).collect(),
                removed: removed.into_iter().map(Into::into).collect(),
                ..Default::default()
            })
        };
        // 40 items at the edge of view (31 tiles) and one close by (2 tiles) all leave view.
        let mut added: Vec<Entity> = (0..40).map(|i| item(i, 31)).collect();
        added.push(item(99, 2));
        model.apply(&update(1, added, vec![]));
        for i in 0..40 {
            model.apply(&update(2 + i as u64, vec![], vec![format!("item-{i}")]));
        }
        model.apply(&update(50, vec![], vec!["item-99".into()]));
        // The close one was taken or expired, not left behind: not remembered.
        assert!(model.remembered.get("item-99").is_none());
        assert_eq!(model.remembered.len(), REMEMBERED_ITEMS);
        let ids: Vec<&str> = model.remembered.iter().map(|e| e.id()).collect();
        assert_eq!(ids[0], "item-39", "the latest first");
        assert!(
            model.remembered.get("item-7").is_none(),
            "the oldest forgotten"
        );
        assert!(model.remembered.get("item-8").is_some());
        // One coming back into view is in view, not remembered.
        model.apply(&update(51, vec![item(20, 31)], vec![]));
        assert!(model.remembered.get("item-20").is_none());
        assert!(model.entities.contains_key("item-20"));
        assert_eq!(model.remembered.len(), REMEMBERED_ITEMS - 1);
    }

    #[test]
    fn the_map_of_what_is_in_view_gives_back_its_room_when_the_view_empties() {
        let item = |i: usize| bones(i, 1, 1);
        let mut model = Model::default();
        let pile: Vec<_> = (0..2_000).map(|i| Arc::new(item(i))).collect();
        model.apply(&ServerMessage::WorldUpdate(WorldUpdate {
            tick: 1,
            added: pile.into(),
            ..Default::default()
        }));
        assert_eq!(model.entities.len(), 2_000);
        assert!(model.entities.capacity() >= 2_000);
        // Most of the pile is taken: the table fits what is left, with room to spare.
        model.apply(&ServerMessage::WorldUpdate(WorldUpdate {
            tick: 2,
            removed: (300..2_000).map(|i| format!("item-{i}").into()).collect(),
            ..Default::default()
        }));
        assert_eq!(model.entities.len(), 300);
        let room = model.entities.capacity();
        assert!(
            (300..=2 * 300 + crate::in_view::SPARE_ENTRIES).contains(&room),
            "room for {room} kept"
        );
        // All but ten items are taken.
        model.apply(&ServerMessage::WorldUpdate(WorldUpdate {
            tick: 2,
            removed: (10..300).map(|i| format!("item-{i}").into()).collect(),
            ..Default::default()
        }));
        assert_eq!(model.entities.len(), 10);
        assert!(
            model.entities.capacity() <= 2 * 10 + crate::in_view::SPARE_ENTRIES,
            "room for {} kept",
            model.entities.capacity()
        );
        // A view that stays about as full keeps its room: no shrinking on every update.
        let room = model.entities.capacity();
        model.apply(&ServerMessage::WorldUpdate(WorldUpdate {
            tick: 3,
            removed: vec!["item-0".into()].into(),
            ..Default::default()
        }));
        assert_eq!(model.entities.capacity(), room);
    }
}
