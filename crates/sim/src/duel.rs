//! Duels with stakes (CONTRACT.md section 11): a challenge, two screens of rules and stakes as a
//! trade's, the fight in the duel arena under the rules, and a two-phase completion like the
//! trade's.
//!
//! - `duel:challenge` needs both players online, within [`DUEL_DISTANCE_TILES`] (Chebyshev),
//!   neither trading nor in a duel, neither standing in a PvP area (`not_here`: a duel there was a
//!   shield against everyone else and a free heal on the spot) and neither having fought in the
//!   last [`COMBAT_LOCK_TICKS`] (`in_combat`: a duel is no way out of a fight); the answer that
//!   accepts a challenge is checked the same way. A challenge to someone who already challenged
//!   the sender accepts theirs, a new one replaces the sender's earlier one, and one unanswered
//!   for [`CHALLENGE_TIMEOUT_TICKS`] expires. The screens end [`SCREEN_TIMEOUT_TICKS`] after they
//!   open whatever changes on them (a change that put the end off let a pair keep the duel's
//!   shield for as long as they liked).
//! - **Screens.** Both sides switch rules and stake inventory slots; any change (a rule, a stake,
//!   a staked slot changing under it) resets both accepts and returns Screen 2 to Screen 1. While
//!   on the screens the players cannot move, act, use items, bank, shop or trade (`in_duel`).
//! - **Escrow.** Stakes never leave their owner's inventory until the result is written: staked
//!   slots are locked for the whole duel (only unstaked food may be eaten in the fight, nothing
//!   else in the inventory changes), so a duel that ends any other way (cancel, disconnect, a
//!   crash, a draw) returns both stakes by construction, on restart too.
//! - **The fight.** On the second Screen 2 accept both are placed in the first area flagged
//!   `duelArena` (beside each other at its centre) or, in a world without one, where the
//!   challenged player stands (the other beside them). Only the opponent may be attacked; the
//!   rules refuse what they forbid with `duelError rule_broken` (eating, switching a prayer on,
//!   attacking with a melee, ranged or magic weapon, moving). Nobody dies: the blow that would
//!   kill ends the fight instead. A fight lasting [`FIGHT_TIMEOUT_TICKS`] is a draw.
//! - **Two-phase completion.** The fight's end marks the duel *committing*: both are back where
//!   they stood, at full health, and [`Event::DuelCommit`] carries both post-result inventories
//!   (the loser's stake moved to the winner), computed on copies. The server writes them with an
//!   audit row in one transaction and answers with [`Command::DuelCommitted`]; only then is the
//!   result applied (`duel:result`), or on failure nothing changes (`duel:cancelled
//!   server_error`).
//!
//! [`Command::DuelCommitted`]: crate::Command::DuelCommitted

use std::collections::{BTreeMap, HashMap};
use wayfarer_protocol::text::quoted;

use serde_json::Value;
use wayfarer_content::AttackStyle;
use wayfarer_protocol::duel::{
    codes as duel_codes, reasons as duel_reasons, rules as rule_names, DuelCancelled, DuelError,
    DuelIncoming, DuelResult, DuelRules, DuelStake, DuelStart, StakeItem,
};
use wayfarer_protocol::trade::{codes, reasons, ReceivedItem};
use wayfarer_protocol::ws::{ServerMessage, TilePos};

use crate::commands::{Action, Command};
use crate::events::Event;
use crate::flows::FlowKind;
use crate::inventory::{Inventory, Stack};
use crate::map::chebyshev;
use crate::offers::OfferedSlots;
use crate::world::World;

/// Farthest apart (Chebyshev tiles) two players may be to challenge.
pub const DUEL_DISTANCE_TILES: u32 = 2;
/// A challenge unanswered for 30 s (50 ticks) expires.
pub const CHALLENGE_TIMEOUT_TICKS: u64 = 50;
/// The screens end 5 minutes (500 ticks) after they open; no change on them puts that off.
pub const SCREEN_TIMEOUT_TICKS: u64 = 500;
/// No challenge (nor acceptance) within 10 s of either player's last swing given or taken: 17
/// ticks of the game's 600 ms (`wayfarer_content::ticks::secs_to_ticks(10.0)`; the sim counts
/// every duration in ticks, so a test world ticking faster keeps the same rules).
pub const COMBAT_LOCK_TICKS: u64 = 17;
/// A fight still going after 10 minutes (1,000 ticks) is a draw: both stakes stay.
pub const FIGHT_TIMEOUT_TICKS: u64 = 1_000;

/// One rule of a duel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `no_food`: no eating.
    NoFood,
    /// `no_prayer`: no prayer switched on.
    NoPrayer,
    /// `no_ranged`: no ranged weapons.
    NoRanged,
    /// `no_magic`: no staves or spells.
    NoMagic,
    /// `no_melee`: no close combat.
    NoMelee,
    /// `no_movement`: both stay where they were placed.
    NoMovement,
}

impl Rule {
    /// Every rule, in wire order.
    pub const ALL: [Rule; 6] = [
        Rule::NoFood,
        Rule::NoPrayer,
        Rule::NoRanged,
        Rule::NoMagic,
        Rule::NoMelee,
        Rule::NoMovement,
    ];

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::NoFood => rule_names::NO_FOOD,
            Rule::NoPrayer => rule_names::NO_PRAYER,
            Rule::NoRanged => rule_names::NO_RANGED,
            Rule::NoMagic => rule_names::NO_MAGIC,
            Rule::NoMelee => rule_names::NO_MELEE,
            Rule::NoMovement => rule_names::NO_MOVEMENT,
        }
    }

    /// The rule of a wire name.
    pub fn parse(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The rules switched on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rules(u8);

impl Rules {
    /// Whether `rule` is on.
    pub fn has(self, rule: Rule) -> bool {
        self.0 & rule.bit() != 0
    }

    fn set(&mut self, rule: Rule, on: bool) {
        if on {
            self.0 |= rule.bit();
        } else {
            self.0 &= !rule.bit();
        }
    }

    /// The names of the rules on, in wire order.
    pub fn names(self) -> Vec<String> {
        Rule::ALL
            .into_iter()
            .filter(|r| self.has(*r))
            .map(|r| r.name().to_owned())
            .collect()
    }

    /// Whether the attack family `style` is forbidden.
    pub fn forbids(self, style: AttackStyle) -> bool {
        self.has(match style {
            AttackStyle::Melee => Rule::NoMelee,
            AttackStyle::Ranged => Rule::NoRanged,
            AttackStyle::Magic => Rule::NoMagic,
        })
    }
}

/// A duel message from a player (the wire messages, read and checked for shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DuelCommand {
    /// `duel:challenge`.
    Challenge {
        /// The other player's character id.
        target: String,
    },
    /// `duel:respond`.
    Respond {
        /// The duel.
        duel_id: String,
        /// Accept or decline.
        accept: bool,
    },
    /// `duel:setRule` (the rule as sent).
    SetRule {
        /// The duel.
        duel_id: String,
        /// The rule's wire name as sent.
        rule: String,
        /// On or off.
        on: bool,
    },
    /// `duel:stake`; `quantity` as sent (`None`: the whole stack).
    Stake {
        /// The duel.
        duel_id: String,
        /// The inventory slot as sent.
        slot: i64,
        /// How many, as sent.
        quantity: Option<i64>,
    },
    /// `duel:unstake`.
    Unstake {
        /// The duel.
        duel_id: String,
        /// The inventory slot as sent.
        slot: i64,
    },
    /// `duel:accept`.
    Accept {
        /// The duel.
        duel_id: String,
    },
    /// `duel:cancel`.
    Cancel {
        /// The duel.
        duel_id: String,
    },
}

/// What a finished duel asks the server to write in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuelCommit {
    /// The duel's id.
    pub duel_id: String,
    /// Winner, loser.
    pub players: [String; 2],
    /// The loser's stake, moving to the winner.
    pub won: Vec<Stack>,
    /// The winner's own stake (it stays with them; for the audit).
    pub kept: Vec<Stack>,
    /// The rules the duel was fought under.
    pub rules: Vec<String>,
    /// Winner's and loser's inventories after the result (not yet applied in the world).
    pub after: [Inventory; 2],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Challenged,
    Screen1,
    Screen2,
    Fighting,
    Committing,
}

#[derive(Debug)]
struct Duel {
    id: String,
    /// Challenger, challenged.
    players: [String; 2],
    stage: Stage,
    rules: Rules,
    stakes: [OfferedSlots; 2],
    accepted: [bool; 2],
    deadline: u64,
    /// Where each stood before the fight (they go back there).
    returns: [TilePos; 2],
    /// While committing: the winner's and loser's inventories before the result, and the plan.
    before: Option<[Inventory; 2]>,
    plan: Option<DuelCommit>,
    /// A challenge the target never saw (they ignore the challenger): it can only expire.
    silenced: bool,
}

impl Duel {
    fn side(&self, id: &str) -> Option<usize> {
        self.players.iter().position(|p| p == id)
    }

    fn on_screens(&self) -> bool {
        matches!(self.stage, Stage::Screen1 | Stage::Screen2)
    }
}

/// Every open duel and challenge of a world.
#[derive(Debug, Default)]
pub(crate) struct Duels {
    next: u64,
    by_id: BTreeMap<String, Duel>,
    /// Player → their active duel (screens, fight, committing).
    active: HashMap<String, String>,
    /// Challenger → their pending challenge.
    outgoing: HashMap<String, String>,
}

fn message_for(to: &str, message: ServerMessage) -> Event {
    Event::Duel {
        to: to.to_owned(),
        message: Box::new(message),
    }
}

fn duel_error(
    to: &str,
    code: &str,
    message: impl Into<String>,
    duel_id: Option<&str>,
    reference: Option<u64>,
) -> Event {
    message_for(
        to,
        ServerMessage::DuelError(DuelError {
            duel_id: duel_id.map(str::to_owned),
            code: code.to_owned(),
            message: message.into(),
            reference: reference.map(Value::from),
        }),
    )
}

fn cancelled(to: &str, duel_id: &str, reason: &str, by: Option<&str>) -> Event {
    message_for(
        to,
        ServerMessage::DuelCancelled(DuelCancelled {
            duel_id: duel_id.to_owned(),
            reason: reason.to_owned(),
            by_player_id: by.map(str::to_owned),
        }),
    )
}

/// Stacks of the same item added together, in first-seen order.
fn merged(stacks: &[Stack]) -> Vec<ReceivedItem> {
    let mut out: Vec<ReceivedItem> = Vec::new();
    for stack in stacks {
        match out.iter_mut().find(|r| r.item_id == stack.item_id) {
            Some(r) => r.quantity += i64::from(stack.quantity),
            None => out.push(ReceivedItem {
                item_id: stack.item_id.clone(),
                quantity: i64::from(stack.quantity),
            }),
        }
    }
    out
}

/// How a duel's attack check answers (see [`World::duel_attack_refusal`]).
pub(crate) enum DuelAttack {
    /// Neither is duelling: the usual rules apply.
    NotDuelling,
    /// Opponents in the same fight.
    Allowed,
    /// One of them is in a duel, not with the other (the words for the attacker).
    Refused(&'static str),
}

impl World {
    /// Whether the player is in an active duel (screens, fight or committing).
    pub fn in_duel(&self, player: &str) -> bool {
        self.duels.active.contains_key(player)
    }

    /// The id of the player's active duel, if any.
    pub fn duel_of(&self, player: &str) -> Option<&str> {
        self.duels.active.get(player).map(String::as_str)
    }

    /// Whether the player is fighting a duel now.
    pub fn duel_fighting(&self, player: &str) -> bool {
        self.stage_of(player) == Some(Stage::Fighting)
    }

    /// Whether the player's duel is waiting for its database transaction.
    pub fn duel_committing(&self, player: &str) -> bool {
        self.stage_of(player) == Some(Stage::Committing)
    }

    /// How many duels and challenges are open.
    pub fn open_duels(&self) -> usize {
        self.duels.by_id.len()
    }

    fn stage_of(&self, player: &str) -> Option<Stage> {
        let id = self.duels.active.get(player)?;
        self.duels.by_id.get(id).map(|d| d.stage)
    }

    fn fight_of(&self, player: &str) -> Option<&Duel> {
        let id = self.duels.active.get(player)?;
        self.duels
            .by_id
            .get(id)
            .filter(|d| d.stage == Stage::Fighting)
    }

    /// The first area flagged `duelArena`, if the content has one.
    fn arena(&self) -> Option<&wayfarer_content::Area> {
        self.content.areas.values().find(|a| a.duel_arena)
    }

    /// A tile inside a duel arena is for fighters only: anyone entering the world there (saved
    /// mid-fight before a crash or a disconnect) starts at the spawn instead.
    pub(crate) fn outside_arena(&self, tile: TilePos) -> TilePos {
        let inside = self
            .content
            .areas
            .values()
            .any(|a| a.duel_arena && a.covers_tile(tile.x, tile.z));
        if inside {
            self.layout.spawn
        } else {
            tile
        }
    }

    fn near_for_duel(&self, a: &str, b: &str) -> bool {
        match (self.player_tile(a), self.player_tile(b)) {
            (Some(x), Some(y)) => chebyshev(x, y) <= DUEL_DISTANCE_TILES,
            _ => false,
        }
    }

    fn duel_name(&self, id: &str) -> String {
        self.player_index
            .get(id)
            .and_then(|&i| self.entities.get(self.players[i].handle))
            .and_then(|b| b.wire.name.clone())
            .unwrap_or_default()
    }

    /// Whether player `a` may attack player `b` as far as duels go.
    pub(crate) fn duel_attack_refusal(&self, a: usize, b: usize) -> DuelAttack {
        let (ida, idb) = (&self.players[a].id, &self.players[b].id);
        match (self.duels.active.get(ida), self.duels.active.get(idb)) {
            (None, None) => DuelAttack::NotDuelling,
            (Some(x), Some(y)) if x == y && self.fight_of(ida).is_some() => DuelAttack::Allowed,
            // The attacker is in no duel: the target's duel is what stands in the way.
            (None, Some(_)) => DuelAttack::Refused("that player is in a duel"),
            _ => DuelAttack::Refused("you can only fight your duel opponent"),
        }
    }

    /// Refuses what a duelling player may not do now; `true` when refused. On the screens and
    /// while committing: moving, acting, using items, banking, shopping, trading, rubbing lamps
    /// and answering dialogues (`in_duel`). In the fight: what the rules forbid (`rule_broken`),
    /// attacking anyone but the opponent, touching a staked item and anything that could change
    /// the inventory but eating (`in_duel`).
    pub(crate) fn refused_in_duel(&self, command: &Command, events: &mut Vec<Event>) -> bool {
        let (id, reference) = match command {
            Command::Move { id, reference, .. }
            | Command::Action { id, reference, .. }
            | Command::UseItem { id, reference, .. }
            | Command::Bank { id, reference, .. }
            | Command::Shop { id, reference, .. }
            | Command::Prayer { id, reference, .. }
            | Command::RubLamp { id, reference, .. }
            | Command::DialogueRespond { id, reference, .. }
            | Command::Trade { id, reference, .. } => (id, *reference),
            Command::Give { id, .. } => (id, None),
            _ => return false,
        };
        let Some(duel) = self
            .duels
            .active
            .get(id)
            .and_then(|d| self.duels.by_id.get(d))
        else {
            return false;
        };
        let refusal = if duel.stage == Stage::Fighting {
            self.fight_refusal(duel, id, command)
        } else if matches!(command, Command::Prayer { .. }) {
            None
        } else {
            Some((duel_codes::IN_DUEL, "not while in a duel; cancel it first"))
        };
        let Some((code, message)) = refusal else {
            return false;
        };
        events.push(duel_error(id, code, message, Some(&duel.id), reference));
        true
    }

    /// Why a fighter may not do `command`, if they may not.
    fn fight_refusal(
        &self,
        duel: &Duel,
        id: &str,
        command: &Command,
    ) -> Option<(&'static str, &'static str)> {
        let broken = |message| Some((duel_codes::RULE_BROKEN, message));
        let in_duel = |message| Some((duel_codes::IN_DUEL, message));
        let rules = duel.rules;
        let side = duel.side(id)?;
        let index = *self.player_index.get(id)?;
        match command {
            Command::Move { .. } if rules.has(Rule::NoMovement) => {
                broken("movement is not allowed in this duel")
            }
            Command::Move { x, z, .. } => {
                let target = TilePos { x: *x, z: *z };
                let outside = self
                    .arena()
                    .is_some_and(|a| !a.covers_tile(target.x, target.z));
                if outside {
                    in_duel("you cannot leave the arena during a duel")
                } else {
                    None
                }
            }
            Command::Action { action, .. } => match action {
                Action::Cast { target, .. } => {
                    if *target != duel.players[1 - side] {
                        return in_duel("you can only fight your duel opponent");
                    }
                    if rules.has(Rule::NoMagic) {
                        return broken("magic is not allowed in this duel");
                    }
                    None
                }
                Action::Attack { target } => {
                    if *target != duel.players[1 - side] {
                        return in_duel("you can only fight your duel opponent");
                    }
                    // An attack casts the autocast spell when one is set, else swings the weapon
                    // (whose family a staff makes magic).
                    let family = if self.players[index].magic.autocast.is_some() {
                        AttackStyle::Magic
                    } else {
                        self.loadout(index).family
                    };
                    if rules.forbids(family) {
                        return broken(match family {
                            AttackStyle::Melee => "melee is not allowed in this duel",
                            AttackStyle::Ranged => "ranged attacks are not allowed in this duel",
                            AttackStyle::Magic => "magic is not allowed in this duel",
                        });
                    }
                    None
                }
                Action::Flee if rules.has(Rule::NoMovement) => {
                    broken("movement is not allowed in this duel")
                }
                Action::Flee => in_duel("there is no fleeing a duel"),
                Action::CombatStyle(_)
                | Action::Autocast { .. }
                | Action::AutoRetaliate(_)
                | Action::Stop => None,
                _ => in_duel("only fighting is allowed in a duel"),
            },
            Command::UseItem {
                slot,
                target_slot: None,
                target_id: None,
                ..
            } => {
                let food = self.players[index]
                    .inventory
                    .get(*slot)
                    .and_then(|s| self.content.items.get(s.item_id.as_str()))
                    .is_some_and(|item| item.heal_amount.is_some());
                if !food {
                    in_duel("only food may be used in a duel")
                } else if rules.has(Rule::NoFood) {
                    broken("food is not allowed in this duel")
                } else if duel.stakes[side].holds_slot(*slot) {
                    in_duel("staked items are locked until the duel ends")
                } else {
                    None
                }
            }
            Command::Prayer { active: false, .. } => None,
            Command::Prayer { .. } if rules.has(Rule::NoPrayer) => {
                broken("prayer is not allowed in this duel")
            }
            Command::Prayer { .. } => None,
            _ => in_duel("not while fighting a duel"),
        }
    }

    /// Applies one duel message from `id`.
    pub(crate) fn duel_command(
        &mut self,
        id: &str,
        command: DuelCommand,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        if !self.is_online(id) {
            return;
        }
        match command {
            DuelCommand::Challenge { target } => {
                self.duel_challenge(id, &target, reference, events)
            }
            DuelCommand::Respond { duel_id, accept } => {
                self.duel_respond(id, &duel_id, accept, reference, events)
            }
            DuelCommand::SetRule { duel_id, rule, on } => {
                self.duel_set_rule(id, &duel_id, &rule, on, reference, events)
            }
            DuelCommand::Stake {
                duel_id,
                slot,
                quantity,
            } => self.duel_stake(id, &duel_id, slot, quantity, reference, events),
            DuelCommand::Unstake { duel_id, slot } => {
                self.duel_unstake(id, &duel_id, slot, reference, events)
            }
            DuelCommand::Accept { duel_id } => self.duel_accept(id, &duel_id, reference, events),
            DuelCommand::Cancel { duel_id } => self.duel_cancel(id, &duel_id, reference, events),
        }
    }

    fn busy(&self, id: &str) -> bool {
        self.in_duel(id) || self.in_trade(id)
    }

    fn duel_challenge(
        &mut self,
        id: &str,
        target: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let refuse = |code: &str, message: &str, events: &mut Vec<Event>| {
            events.push(duel_error(id, code, message, None, reference));
        };
        if target == id {
            return refuse(codes::SELF_TRADE, "you cannot duel yourself", events);
        }
        if !self.is_online(target) {
            return refuse(codes::PLAYER_OFFLINE, "that player is not online", events);
        }
        if self.busy(id) {
            return refuse(
                codes::PLAYER_BUSY,
                "you are already in a duel or a trade",
                events,
            );
        }
        if self.busy(target) {
            return refuse(codes::PLAYER_BUSY, "that player is busy", events);
        }
        if !self.near_for_duel(id, target) {
            return refuse(
                codes::TOO_FAR,
                "you must stand within 2 tiles of the other player",
                events,
            );
        }
        if let Some((code, message)) = self.duel_start_refusal(id, target) {
            return refuse(code, message, events);
        }
        // They challenged us first: this challenge accepts theirs.
        if let Some(theirs) = self.duels.outgoing.get(target).cloned() {
            if self
                .duels
                .by_id
                .get(&theirs)
                .is_some_and(|d| d.players[1] == id && !d.silenced)
            {
                if let Some(mine) = self.duels.outgoing.remove(id) {
                    self.duels.by_id.remove(&mine);
                }
                return self.duel_start_screens(&theirs, events);
            }
        }
        if let Some(earlier) = self.duels.outgoing.remove(id) {
            self.duels.by_id.remove(&earlier);
        }
        let silenced = self.ignores(target, id);
        self.duels.next += 1;
        let duel_id = format!("duel-{}", self.duels.next);
        let now = self.now();
        let here = self.player_tile(id).unwrap_or(self.layout.spawn);
        self.duels.by_id.insert(
            duel_id.clone(),
            Duel {
                id: duel_id.clone(),
                players: [id.to_owned(), target.to_owned()],
                stage: Stage::Challenged,
                rules: Rules::default(),
                stakes: Default::default(),
                accepted: [false; 2],
                deadline: now + CHALLENGE_TIMEOUT_TICKS,
                returns: [here, here],
                before: None,
                plan: None,
                silenced,
            },
        );
        self.duels.outgoing.insert(id.to_owned(), duel_id.clone());
        if silenced {
            return;
        }
        let from_player_name = self.duel_name(id);
        events.push(message_for(
            target,
            ServerMessage::DuelIncoming(DuelIncoming {
                duel_id,
                from_player_id: id.to_owned(),
                from_player_name,
            }),
        ));
    }

    /// The duel `duel_id` with `id` as a participant (its side), or `duelError invalid_trade`.
    fn duelist(
        &self,
        id: &str,
        duel_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> Option<usize> {
        let side = self.duels.by_id.get(duel_id).and_then(|d| d.side(id));
        if side.is_none() {
            events.push(duel_error(
                id,
                codes::INVALID_TRADE,
                "no such duel of yours",
                Some(duel_id),
                reference,
            ));
        }
        side
    }

    fn duel_respond(
        &mut self,
        id: &str,
        duel_id: &str,
        accept: bool,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(side) = self.duelist(id, duel_id, reference, events) else {
            return;
        };
        let (stage, challenger) = {
            let d = &self.duels.by_id[duel_id];
            (d.stage, d.players[0].clone())
        };
        if stage != Stage::Challenged || side != 1 {
            events.push(duel_error(
                id,
                codes::NOT_ON_SCREEN,
                "there is no challenge of this duel for you to answer",
                Some(duel_id),
                reference,
            ));
            return;
        }
        if !accept {
            self.end_duel(duel_id);
            events.push(cancelled(&challenger, duel_id, reasons::DECLINED, None));
            return;
        }
        if self.busy(id) || self.busy(&challenger) {
            events.push(duel_error(
                id,
                codes::PLAYER_BUSY,
                "one of you is busy",
                Some(duel_id),
                reference,
            ));
            return;
        }
        if !self.near_for_duel(id, &challenger) {
            events.push(duel_error(
                id,
                codes::TOO_FAR,
                "you must stand within 2 tiles of the other player",
                Some(duel_id),
                reference,
            ));
            return;
        }
        if let Some((code, message)) = self.duel_start_refusal(id, &challenger) {
            events.push(duel_error(id, code, message, Some(duel_id), reference));
            return;
        }
        self.duel_start_screens(duel_id, events);
    }

    /// Why `id` (challenging or accepting) and `other` may not start a duel where and when they
    /// are, if they may not: either in a PvP area (`not_here`), or either having fought in the
    /// last [`COMBAT_LOCK_TICKS`] (`in_combat`).
    fn duel_start_refusal(&self, id: &str, other: &str) -> Option<(&'static str, &'static str)> {
        let (&me, &them) = (self.player_index.get(id)?, self.player_index.get(other)?);
        let pvp = |index| self.zones.is_pvp(self.zone_of_player(index));
        if pvp(me) {
            return Some((duel_codes::NOT_HERE, "you cannot duel in a PvP area"));
        }
        if pvp(them) {
            return Some((duel_codes::NOT_HERE, "that player is in a PvP area"));
        }
        let now = self.now();
        let fought = |index: usize| {
            let at = self.players[index].fought_at;
            at > 0 && now.saturating_sub(at) < COMBAT_LOCK_TICKS
        };
        if fought(me) {
            return Some((
                duel_codes::IN_COMBAT,
                "you were fighting moments ago; wait 10 seconds",
            ));
        }
        if fought(them) {
            return Some((
                duel_codes::IN_COMBAT,
                "that player was fighting moments ago; wait 10 seconds",
            ));
        }
        None
    }

    /// A challenge becomes an active duel on Screen 1.
    fn duel_start_screens(&mut self, duel_id: &str, events: &mut Vec<Event>) {
        let now = self.now();
        let Some(duel) = self.duels.by_id.get_mut(duel_id) else {
            return;
        };
        duel.stage = Stage::Screen1;
        duel.deadline = now + SCREEN_TIMEOUT_TICKS;
        let players = duel.players.clone();
        for p in &players {
            if let Some(pending) = self.duels.outgoing.remove(p) {
                if pending != duel_id {
                    self.duels.by_id.remove(&pending);
                }
            }
            self.duels.active.insert(p.clone(), duel_id.to_owned());
            self.stop_everything(p);
        }
        self.show_duel(duel_id, events);
    }

    fn stake_view(&self, duel: &Duel, side: usize) -> DuelStake {
        let mut stake = DuelStake {
            items: Vec::new(),
            value: 0,
            accepted: duel.accepted[side],
        };
        for s in &duel.stakes[side] {
            let item = self.content.items.get(s.item_id.as_str());
            let value = item
                .map_or(0, |i| i.value)
                .saturating_mul(u64::from(s.quantity));
            let value = i64::try_from(value).unwrap_or(i64::MAX);
            stake.value = stake.value.saturating_add(value);
            stake.items.push(StakeItem {
                inventory_slot: s.slot as u8,
                item_id: s.item_id.clone(),
                name: item.map_or_else(|| s.item_id.clone(), |i| i.name.clone()),
                quantity: i64::from(s.quantity),
                value,
            });
        }
        stake
    }

    /// `duel:rules` to both, each from their side.
    fn show_duel(&self, duel_id: &str, events: &mut Vec<Event>) {
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return;
        };
        for (me, other) in [(0, 1), (1, 0)] {
            let message = ServerMessage::DuelRules(DuelRules {
                duel_id: duel.id.clone(),
                opponent_id: duel.players[other].clone(),
                opponent_name: self.duel_name(&duel.players[other]),
                screen: if duel.stage == Stage::Screen2 { 2 } else { 1 },
                rules: duel.rules.names(),
                my_stake: self.stake_view(duel, me),
                their_stake: self.stake_view(duel, other),
            });
            events.push(message_for(&duel.players[me], message));
        }
    }

    /// After any change: both accepts reset, back to Screen 1, both told. The screens' end stays
    /// where their opening put it ([`SCREEN_TIMEOUT_TICKS`]).
    fn duel_changed(&mut self, duel_id: &str, events: &mut Vec<Event>) {
        if let Some(duel) = self.duels.by_id.get_mut(duel_id) {
            duel.accepted = [false; 2];
            duel.stage = Stage::Screen1;
        }
        self.show_duel(duel_id, events);
    }

    /// The side of `id` when the duel is on a screen, else `not_on_screen`.
    fn on_duel_screen(
        &self,
        id: &str,
        duel_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> Option<usize> {
        let side = self.duelist(id, duel_id, reference, events)?;
        if self.duels.by_id[duel_id].on_screens() {
            return Some(side);
        }
        events.push(duel_error(
            id,
            codes::NOT_ON_SCREEN,
            "the duel is not on its rules and stakes screens",
            Some(duel_id),
            reference,
        ));
        None
    }

    fn duel_set_rule(
        &mut self,
        id: &str,
        duel_id: &str,
        rule: &str,
        on: bool,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        if self
            .on_duel_screen(id, duel_id, reference, events)
            .is_none()
        {
            return;
        }
        let Some(rule) = Rule::parse(rule) else {
            events.push(duel_error(
                id,
                duel_codes::INVALID_RULE,
                format!("there is no rule {}", quoted(rule)),
                Some(duel_id),
                reference,
            ));
            return;
        };
        let Some(duel) = self.duels.by_id.get_mut(duel_id) else {
            return;
        };
        let mut rules = duel.rules;
        rules.set(rule, on);
        let all_attacks = [Rule::NoMelee, Rule::NoRanged, Rule::NoMagic]
            .into_iter()
            .all(|r| rules.has(r));
        if all_attacks {
            events.push(duel_error(
                id,
                duel_codes::INVALID_RULE,
                "at least one way of attacking must stay allowed",
                Some(duel_id),
                reference,
            ));
            return;
        }
        if rules == duel.rules {
            return;
        }
        duel.rules = rules;
        self.duel_changed(duel_id, events);
    }

    fn duel_stake(
        &mut self,
        id: &str,
        duel_id: &str,
        slot: i64,
        quantity: Option<i64>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(side) = self.on_duel_screen(id, duel_id, reference, events) else {
            return;
        };
        let refuse = |code: &str, message: String, events: &mut Vec<Event>| {
            events.push(duel_error(id, code, message, Some(duel_id), reference));
        };
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let staked = match self.offer_from_slot(index, slot, quantity, "staked") {
            Ok(staked) => staked,
            Err((code, message)) => return refuse(code, message, events),
        };
        let Some(duel) = self.duels.by_id.get_mut(duel_id) else {
            return;
        };
        duel.stakes[side].put(staked);
        self.duel_changed(duel_id, events);
    }

    fn duel_unstake(
        &mut self,
        id: &str,
        duel_id: &str,
        slot: i64,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(side) = self.on_duel_screen(id, duel_id, reference, events) else {
            return;
        };
        let Some(duel) = self.duels.by_id.get_mut(duel_id) else {
            return;
        };
        if !duel.stakes[side].take_back(slot) {
            events.push(duel_error(
                id,
                codes::INVALID_SLOT,
                format!("inventory slot {slot} is not in your stake"),
                Some(duel_id),
                reference,
            ));
            return;
        }
        self.duel_changed(duel_id, events);
    }

    fn duel_accept(
        &mut self,
        id: &str,
        duel_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(side) = self.on_duel_screen(id, duel_id, reference, events) else {
            return;
        };
        if self.check_stakes(duel_id, events) {
            return;
        }
        let Some(duel) = self.duels.by_id.get_mut(duel_id) else {
            return;
        };
        duel.accepted[side] = true;
        if duel.accepted != [true, true] {
            return self.show_duel(duel_id, events);
        }
        if duel.stage == Stage::Screen1 {
            duel.stage = Stage::Screen2;
            duel.accepted = [false; 2];
            return self.show_duel(duel_id, events);
        }
        if !self.stakes_fit(duel_id) {
            let Some(duel) = self.duels.by_id.get_mut(duel_id) else {
                return;
            };
            duel.accepted = [false; 2];
            for p in duel.players.clone() {
                events.push(duel_error(
                    &p,
                    codes::INVENTORY_FULL,
                    "one of you could not hold the other's stake",
                    Some(duel_id),
                    if p == id { reference } else { None },
                ));
            }
            return;
        }
        self.begin_fight(duel_id, events);
    }

    /// Whether each side could hold the other's stake on top of everything it has now (the
    /// fight only frees room: eating is the one change an inventory may see in it).
    fn stakes_fit(&self, duel_id: &str) -> bool {
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return false;
        };
        [(0usize, 1usize), (1, 0)].into_iter().all(|(me, other)| {
            let Some(&index) = self.player_index.get(&duel.players[me]) else {
                return false;
            };
            let mut copy = self.players[index].inventory.clone();
            duel.stakes[other].stacks().iter().all(|s| {
                copy.add(&s.item_id, s.quantity, self.stacking(&s.item_id))
                    .is_ok()
            })
        })
    }

    /// Drops or caps staked entries whose slot no longer holds what was staked; `true` (and a
    /// change) when any did.
    fn check_stakes(&mut self, duel_id: &str, events: &mut Vec<Event>) -> bool {
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return false;
        };
        let mut fixed = duel.stakes.clone();
        let mut changed = false;
        for (side, stake) in fixed.iter_mut().enumerate() {
            let Some(&index) = self.player_index.get(&duel.players[side]) else {
                continue;
            };
            changed |= stake.follow(&self.players[index].inventory);
        }
        if changed {
            if let Some(duel) = self.duels.by_id.get_mut(duel_id) {
                duel.stakes = fixed;
            }
            self.duel_changed(duel_id, events);
        }
        changed
    }

    /// Both accepted Screen 2: into the arena.
    fn begin_fight(&mut self, duel_id: &str, events: &mut Vec<Event>) {
        let now = self.now();
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return;
        };
        let players = duel.players.clone();
        let rules = duel.rules;
        let (Some(a), Some(b)) = (
            self.player_index.get(&players[0]).copied(),
            self.player_index.get(&players[1]).copied(),
        ) else {
            return;
        };
        let (Some(tile_a), Some(tile_b)) =
            (self.player_tile(&players[0]), self.player_tile(&players[1]))
        else {
            return;
        };
        let (arena_id, centre) = match self.arena() {
            Some(area) => {
                let c = area.bounds.centre();
                (
                    Some(area.id.to_string()),
                    TilePos {
                        x: c.x.floor() as i32,
                        z: c.z.floor() as i32,
                    },
                )
            }
            // No arena in this world: fought where the challenged player stands.
            None => (None, tile_b),
        };
        let spots = [
            self.walkable_near(centre),
            self.walkable_near(TilePos {
                x: centre.x + 1,
                z: centre.z,
            }),
        ];
        if let Some(duel) = self.duels.by_id.get_mut(duel_id) {
            duel.stage = Stage::Fighting;
            duel.accepted = [false; 2];
            duel.deadline = now + FIGHT_TIMEOUT_TICKS;
            duel.returns = [tile_a, tile_b];
        }
        for (side, index) in [(0usize, a), (1, b)] {
            let player = &mut self.players[index];
            player.walk.clear();
            player.intent = None;
            if rules.has(Rule::NoPrayer) && !player.prayer.active.is_empty() {
                player.prayer.active.clear();
                player.dirty.prayer = true;
            }
            self.close_dialogue(index, crate::dialogue::CloseReason::Combat, events);
            self.place_player(index, spots[side]);
            events.push(message_for(
                &players[side],
                ServerMessage::DuelStart(DuelStart {
                    duel_id: duel_id.to_owned(),
                    opponent_id: players[1 - side].clone(),
                    rules: rules.names(),
                    arena_id: arena_id.clone(),
                    tile: spots[side],
                }),
            ));
        }
    }

    /// The fight is over (or abandoned): both back where they stood, whole, doing nothing.
    fn leave_arena(&mut self, duel_id: &str) {
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return;
        };
        let (players, returns) = (duel.players.clone(), duel.returns);
        for (side, player) in players.iter().enumerate() {
            let Some(&index) = self.player_index.get(player) else {
                continue;
            };
            let tile = self.walkable_near(self.outside_arena(returns[side]));
            let p = &mut self.players[index];
            p.walk.clear();
            p.intent = None;
            p.attack_ready_at = 0;
            let (_, max) = self.player_health(index);
            self.set_player_health(index, max);
            self.players[index].dirty.stats = true;
            self.place_player(index, tile);
        }
    }

    /// Player `index` took the blow that would have killed them. In a fight it ends the duel
    /// (they lose, nobody dies: `true`); while committing they stay at 1 hp (`true`); on the
    /// screens the duel ends with `player_died` and the death goes on (`false`).
    pub(crate) fn duel_player_fell(&mut self, index: usize, events: &mut Vec<Event>) -> bool {
        let id = self.players[index].id.clone();
        let Some(duel_id) = self.duels.active.get(&id).cloned() else {
            return false;
        };
        let Some(stage) = self.duels.by_id.get(&duel_id).map(|d| d.stage) else {
            return false;
        };
        match stage {
            Stage::Fighting => {
                self.fight_lost(&duel_id, &id, events);
                true
            }
            Stage::Committing => {
                self.set_player_health(index, 1);
                true
            }
            _ => {
                if let Some(duel) = self.end_duel(&duel_id) {
                    for p in &duel.players {
                        events.push(cancelled(p, &duel_id, reasons::PLAYER_DIED, None));
                    }
                }
                false
            }
        }
    }

    /// The loser is known: the duel commits (the loser's stake to the winner).
    fn fight_lost(&mut self, duel_id: &str, loser: &str, events: &mut Vec<Event>) {
        self.leave_arena(duel_id);
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return;
        };
        let Some(loser_side) = duel.side(loser) else {
            return;
        };
        let winner_side = 1 - loser_side;
        let players = [
            duel.players[winner_side].clone(),
            duel.players[loser_side].clone(),
        ];
        let won = duel.stakes[loser_side].stacks();
        let kept = duel.stakes[winner_side].stacks();
        let loser_stake = duel.stakes[loser_side].clone();
        let rules = duel.rules.names();
        let index = |p: &str| self.player_index.get(p).copied();
        let (Some(w), Some(l)) = (index(&players[0]), index(&players[1])) else {
            return;
        };
        let before = [
            self.players[w].inventory.clone(),
            self.players[l].inventory.clone(),
        ];
        let mut after = before.clone();
        let stackings: Vec<_> = won.iter().map(|s| self.stacking(&s.item_id)).collect();
        let planned = after[1]
            .apply(|tx| {
                for s in &loser_stake {
                    tx.remove(s.slot, s.quantity)?;
                }
                Ok(())
            })
            .and_then(|_| {
                after[0].apply(|tx| {
                    for (stack, stacking) in won.iter().zip(&stackings) {
                        tx.add(&stack.item_id, stack.quantity, *stacking)?;
                    }
                    Ok(())
                })
            });
        if planned.is_err() {
            // Cannot happen (checked at the accept, and the fight only frees room): no result.
            if let Some(duel) = self.end_duel(duel_id) {
                for p in &duel.players {
                    events.push(cancelled(p, duel_id, reasons::SERVER_ERROR, None));
                }
            }
            return;
        }
        let plan = DuelCommit {
            duel_id: duel_id.to_owned(),
            players,
            won,
            kept,
            rules,
            after,
        };
        if let Some(duel) = self.duels.by_id.get_mut(duel_id) {
            duel.stage = Stage::Committing;
            duel.before = Some(before);
            duel.plan = Some(plan.clone());
        }
        events.push(Event::DuelCommit(Box::new(plan)));
    }

    fn end_duel(&mut self, duel_id: &str) -> Option<Duel> {
        let duel = self.duels.by_id.remove(duel_id)?;
        for p in &duel.players {
            if self.duels.active.get(p).map(String::as_str) == Some(duel_id) {
                self.duels.active.remove(p);
            }
            if self.duels.outgoing.get(p).map(String::as_str) == Some(duel_id) {
                self.duels.outgoing.remove(p);
            }
        }
        Some(duel)
    }

    fn duel_cancel(
        &mut self,
        id: &str,
        duel_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        if self.duelist(id, duel_id, reference, events).is_none() {
            return;
        }
        let stage = self.duels.by_id[duel_id].stage;
        if matches!(stage, Stage::Fighting | Stage::Committing) {
            events.push(duel_error(
                id,
                codes::NOT_ON_SCREEN,
                "a duel cannot be cancelled once the fight has begun",
                Some(duel_id),
                reference,
            ));
            return;
        }
        if let Some(duel) = self.end_duel(duel_id) {
            for p in &duel.players {
                events.push(cancelled(p, duel_id, reasons::CANCELLED, Some(id)));
            }
        }
    }

    /// The database's answer for a committing duel.
    pub(crate) fn duel_committed(&mut self, duel_id: &str, ok: bool, events: &mut Vec<Event>) {
        if self
            .duels
            .by_id
            .get(duel_id)
            .is_none_or(|d| d.stage != Stage::Committing)
        {
            return;
        }
        let Some(duel) = self.end_duel(duel_id) else {
            return;
        };
        let (Some(before), Some(plan)) = (duel.before, duel.plan) else {
            return;
        };
        for (side, planned_on) in before.iter().enumerate() {
            let player = &plan.players[side];
            let Some(&index) = self.player_index.get(player) else {
                continue;
            };
            if !ok {
                events.push(cancelled(player, duel_id, reasons::SERVER_ERROR, None));
                continue;
            }
            // Only the inventory the result was planned on becomes the one written.
            if self.players[index].inventory == *planned_on {
                self.players[index].inventory = plan.after[side].clone();
                self.players[index].dirty.inventory = true;
            }
            events.push(message_for(
                player,
                ServerMessage::DuelResult(DuelResult {
                    duel_id: duel_id.to_owned(),
                    winner_id: plan.players[0].clone(),
                    loser_id: plan.players[1].clone(),
                    received_items: if side == 0 {
                        merged(&plan.won)
                    } else {
                        Vec::new()
                    },
                }),
            ));
        }
        if ok {
            for stack in &plan.won {
                self.flow(FlowKind::Moved, "staked", &stack.item_id, stack.quantity);
            }
        }
    }

    /// A player leaves the world: their challenge ends; a duel on the screens or in the fight
    /// ends with `disconnected`, both back outside the arena (a committing duel waits for its
    /// outcome).
    pub(crate) fn duel_player_left(&mut self, id: &str, events: &mut Vec<Event>) {
        let involved: Vec<(String, Stage)> = self
            .duels
            .by_id
            .values()
            .filter(|d| d.side(id).is_some() && d.stage != Stage::Committing)
            .map(|d| (d.id.clone(), d.stage))
            .collect();
        for (duel_id, stage) in involved {
            if stage == Stage::Fighting {
                self.leave_arena(&duel_id);
            }
            if let Some(duel) = self.end_duel(&duel_id) {
                for p in duel.players.iter().filter(|p| *p != id) {
                    events.push(cancelled(p, &duel_id, reasons::DISCONNECTED, None));
                }
            }
        }
    }

    /// Each tick: expired challenges, idle screens and overlong fights end; stakes are checked
    /// against inventories; fighters under `no_movement` stay put.
    pub(crate) fn advance_duels(&mut self, events: &mut Vec<Event>) {
        if self.duels.by_id.is_empty() {
            return;
        }
        let now = self.now();
        let due: Vec<(String, Stage)> = self
            .duels
            .by_id
            .values()
            .filter(|d| d.stage != Stage::Committing && d.deadline <= now)
            .map(|d| (d.id.clone(), d.stage))
            .collect();
        for (duel_id, stage) in due {
            if stage == Stage::Fighting {
                self.leave_arena(&duel_id);
            }
            if let Some(duel) = self.end_duel(&duel_id) {
                let (told, reason): (&[String], &str) = match stage {
                    Stage::Challenged => (&duel.players[..1], reasons::TIMEOUT),
                    Stage::Fighting => (&duel.players[..], duel_reasons::DRAW),
                    _ => (&duel.players[..], reasons::TIMEOUT),
                };
                for p in told {
                    events.push(cancelled(p, &duel_id, reason, None));
                }
            }
        }
        let open: Vec<String> = self
            .duels
            .by_id
            .values()
            .filter(|d| d.on_screens())
            .map(|d| d.id.clone())
            .collect();
        for duel_id in open {
            self.check_stakes(&duel_id, events);
        }
        let still: Vec<String> = self
            .duels
            .by_id
            .values()
            .filter(|d| d.stage == Stage::Fighting && d.rules.has(Rule::NoMovement))
            .flat_map(|d| d.players.clone())
            .collect();
        for p in still {
            if let Some(&index) = self.player_index.get(&p) {
                self.players[index].walk.clear();
            }
        }
    }
}
