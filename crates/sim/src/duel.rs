//! Duels with stakes (CONTRACT.md section 11): a challenge, two screens of rules and stakes as a
//! trade's, the fight in the duel arena under the rules, and a two-phase completion like the
//! trade's. The challenge, the screens and the commit are the shared two-screen exchange
//! (`crate::exchange`); this module is its [`Kind`] for duels (rules on the screens, the fight
//! between settling and the commit) and the fight's own rules.
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

use wayfarer_content::AttackStyle;
use wayfarer_protocol::duel::{codes as duel_codes, rules as rule_names};
use wayfarer_protocol::text::quoted;
use wayfarer_protocol::ws::TilePos;

use crate::commands::{Action, Command};
use crate::events::Event;
use crate::exchange::{refused, tell, Book, Ending, Exchange, Kind, Notice, Said, Stage, Word};
use crate::inventory::{Inventory, Stack};
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

    /// Switches `rule` on or off.
    pub fn set(&mut self, rule: Rule, on: bool) {
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
    /// A ladder fight's result (both ratings before and after), written in the same transaction.
    pub arena: Option<crate::arena::ArenaOutcome>,
}

/// What a duel carries besides the stakes.
#[derive(Debug)]
pub(crate) struct Terms {
    rules: Rules,
    /// Where each stood before the fight (they go back there).
    returns: [TilePos; 2],
    /// A ladder fight's pit (its centre): fought there, not at the arena's centre.
    pit: Option<TilePos>,
}

impl Default for Terms {
    fn default() -> Self {
        let nowhere = TilePos { x: 0, z: 0 };
        Terms {
            rules: Rules::default(),
            returns: [nowhere; 2],
            pit: None,
        }
    }
}

impl Terms {
    /// A ladder fight's terms: its fixed rules, fought in the pit at `pit`.
    pub(crate) fn ladder(rules: Rules, _fight_id: &str, pit: TilePos) -> Terms {
        Terms {
            rules,
            pit: Some(pit),
            ..Terms::default()
        }
    }
}

/// The duel as a kind of two-screen exchange: the stakes' screens carry rules too, and settling
/// starts the fight; the fight's end commits the loser's stake to the winner.
#[derive(Debug)]
pub(crate) struct Duel;

impl Kind for Duel {
    type Terms = Terms;
    type Plan = DuelCommit;
    const KIND: crate::exchange::ExchangeKind = crate::exchange::ExchangeKind::Duel;
    const PREFIX: &'static str = "duel";
    const REACH_TILES: u32 = DUEL_DISTANCE_TILES;
    const ASK_TIMEOUT_TICKS: u64 = CHALLENGE_TIMEOUT_TICKS;
    const SCREEN_TIMEOUT_TICKS: u64 = SCREEN_TIMEOUT_TICKS;
    // A change that put the end off let a pair keep the duel's shield for as long as they liked.
    const ACTIVITY_EXTENDS: bool = false;
    const UNDERWAY_TIMEOUT: Ending = Ending::Draw;
    const NOUN: &'static str = "duel";
    const VERB: &'static str = "staked";
    const ENTRIES: &'static str = "stake";

    fn words(word: Word) -> &'static str {
        match word {
            Word::AskYourself => "you cannot duel yourself",
            Word::AlreadyBusy => "you are already in a duel or a trade",
            Word::TargetBusy => "that player is busy",
            Word::OneBusy => "one of you is busy",
            Word::NothingToAnswer => "there is no challenge of this duel for you to answer",
            Word::Expired => "that challenge has expired",
            Word::NotStarted | Word::PastScreens => {
                "the duel is not on its rules and stakes screens"
            }
            Word::TooLateToCancel => "a duel cannot be cancelled once the fight has begun",
            Word::NoRoom => "one of you could not hold the other's stake",
        }
    }

    fn book(world: &World) -> &Book<Self> {
        &world.duels
    }

    fn book_mut(world: &mut World) -> &mut Book<Self> {
        &mut world.duels
    }

    fn start_refusal(world: &World, id: &str, other: &str) -> Option<(&'static str, &'static str)> {
        world.duel_start_refusal(id, other)
    }

    fn rules(terms: &Terms) -> Rules {
        terms.rules
    }

    /// A duel opens on its first screen.
    fn opened(world: &mut World, duel_id: &str, events: &mut Vec<Event>) {
        world.show_screens::<Duel>(duel_id, events);
    }

    /// Into the arena, when each side could hold the other's stake.
    fn settle(world: &mut World, duel_id: &str, events: &mut Vec<Event>) -> bool {
        if !world.stakes_fit(duel_id) {
            return false;
        }
        world.begin_fight(duel_id, events);
        true
    }

    fn abandon(world: &mut World, duel_id: &str) {
        world.leave_arena(duel_id);
    }

    fn commit_event(plan: &DuelCommit) -> Event {
        Event::DuelCommit(Box::new(plan.clone()))
    }

    fn parties(plan: &DuelCommit) -> &[String; 2] {
        &plan.players
    }

    fn after(plan: &DuelCommit) -> &[Inventory; 2] {
        &plan.after
    }

    fn completed(plan: &DuelCommit, side: usize) -> Notice {
        Notice::Decided {
            winner: plan.players[0].clone(),
            loser: plan.players[1].clone(),
            received: if side == 0 {
                plan.won.clone()
            } else {
                Vec::new()
            },
        }
    }

    fn moved(plan: &DuelCommit) -> (&'static str, Vec<Stack>) {
        ("staked", plan.won.clone())
    }
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
        self.stage_of(player) == Some(Stage::Underway)
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
        self.duels.of(player).map(|d| d.stage)
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

    /// Whether player `a` may attack player `b` as far as duels go.
    pub(crate) fn duel_attack_refusal(&self, a: usize, b: usize) -> DuelAttack {
        let (ida, idb) = (&self.players[a].id, &self.players[b].id);
        match (self.duels.active.get(ida), self.duels.active.get(idb)) {
            (None, None) => DuelAttack::NotDuelling,
            (Some(x), Some(y)) if x == y && self.duel_fighting(ida) => DuelAttack::Allowed,
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
            | Command::QuestAbandon { id, reference, .. }
            | Command::Trade { id, reference, .. } => (id, *reference),
            Command::Give { id, .. } => (id, None),
            _ => return false,
        };
        let Some(duel) = self.duels.of(id) else {
            return false;
        };
        let refusal = if duel.stage == Stage::Underway {
            self.fight_refusal(duel, id, command)
        } else if matches!(command, Command::Prayer { .. }) {
            None
        } else {
            Some((duel_codes::IN_DUEL, "not while in a duel; cancel it first"))
        };
        let Some((code, message)) = refusal else {
            return false;
        };
        events.push(refused::<Duel>(
            id,
            code,
            message,
            Some(&duel.id),
            reference,
        ));
        true
    }

    /// Why a fighter may not do `command`, if they may not.
    fn fight_refusal(
        &self,
        duel: &Exchange<Duel>,
        id: &str,
        command: &Command,
    ) -> Option<(&'static str, &'static str)> {
        let broken = |message| Some((duel_codes::RULE_BROKEN, message));
        let in_duel = |message| Some((duel_codes::IN_DUEL, message));
        let rules = duel.terms.rules;
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
                } else if duel.offers[side].holds_slot(*slot) {
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
            DuelCommand::Challenge { target } => self.ask::<Duel>(id, &target, reference, events),
            DuelCommand::Respond { duel_id, accept } => {
                self.answer::<Duel>(Said::new(id, &duel_id, reference), accept, events)
            }
            DuelCommand::SetRule { duel_id, rule, on } => {
                self.duel_set_rule(Said::new(id, &duel_id, reference), &rule, on, events)
            }
            DuelCommand::Stake {
                duel_id,
                slot,
                quantity,
            } => {
                let said = Said::new(id, &duel_id, reference);
                self.put_up::<Duel>(said, slot, quantity, events)
            }
            DuelCommand::Unstake { duel_id, slot } => {
                self.take_back::<Duel>(Said::new(id, &duel_id, reference), slot, events)
            }
            DuelCommand::Accept { duel_id } => {
                self.accept_screen::<Duel>(Said::new(id, &duel_id, reference), events)
            }
            DuelCommand::Cancel { duel_id } => {
                self.cancel_exchange::<Duel>(Said::new(id, &duel_id, reference), events)
            }
        }
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

    fn duel_set_rule(&mut self, said: Said, rule: &str, on: bool, events: &mut Vec<Event>) {
        if self.screen_side::<Duel>(said, events).is_none() {
            return;
        }
        let (id, duel_id, reference) = said.parts();
        let refuse = |message: String, events: &mut Vec<Event>| {
            events.push(refused::<Duel>(
                id,
                duel_codes::INVALID_RULE,
                message,
                Some(duel_id),
                reference,
            ));
        };
        let Some(rule) = Rule::parse(rule) else {
            return refuse(format!("there is no rule {}", quoted(rule)), events);
        };
        let Some(duel) = self.duels.by_id.get_mut(duel_id) else {
            return;
        };
        let mut rules = duel.terms.rules;
        rules.set(rule, on);
        let all_attacks = [Rule::NoMelee, Rule::NoRanged, Rule::NoMagic]
            .into_iter()
            .all(|r| rules.has(r));
        if all_attacks {
            return refuse(
                "at least one way of attacking must stay allowed".into(),
                events,
            );
        }
        if rules == duel.terms.rules {
            return;
        }
        duel.terms.rules = rules;
        self.exchange_changed::<Duel>(duel_id, events);
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
            duel.offers[other].stacks().iter().all(|s| {
                copy.add(&s.item_id, s.quantity, self.stacking(&s.item_id))
                    .is_ok()
            })
        })
    }

    /// Both accepted Screen 2: into the arena.
    fn begin_fight(&mut self, duel_id: &str, events: &mut Vec<Event>) {
        let now = self.now();
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return;
        };
        let players = duel.players.clone();
        let rules = duel.terms.rules;
        let pit = duel.terms.pit;
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
            Some(area) if pit.is_some() => (Some(area.id.to_string()), pit.unwrap_or(tile_b)),
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
            duel.stage = Stage::Underway;
            duel.accepted = [false; 2];
            duel.deadline = now + FIGHT_TIMEOUT_TICKS;
            duel.terms.returns = [tile_a, tile_b];
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
            events.push(tell::<Duel>(
                &players[side],
                Some(duel_id),
                Notice::Fight {
                    opponent: players[1 - side].clone(),
                    rules,
                    arena_id: arena_id.clone(),
                    tile: spots[side],
                },
            ));
        }
    }

    /// The fight is over (or abandoned): both back where they stood, whole, doing nothing.
    fn leave_arena(&mut self, duel_id: &str) {
        let Some(duel) = self.duels.by_id.get(duel_id) else {
            return;
        };
        let (players, returns) = (duel.players.clone(), duel.terms.returns);
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
            Stage::Underway => {
                self.fight_lost(&duel_id, &id, events);
                true
            }
            Stage::Committing => {
                self.set_player_health(index, 1);
                true
            }
            _ => {
                self.end_for_both::<Duel>(&duel_id, Ending::PlayerDied, events);
                false
            }
        }
    }

    /// The loser is known: the duel commits (the loser's stake to the winner).
    pub(crate) fn fight_lost(&mut self, duel_id: &str, loser: &str, events: &mut Vec<Event>) {
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
        let won = duel.offers[loser_side].stacks();
        let kept = duel.offers[winner_side].stacks();
        let loser_stake = duel.offers[loser_side].clone();
        let rules = duel.terms.rules.names();
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
            return self.end_for_both::<Duel>(duel_id, Ending::ServerError, events);
        }
        let arena = self.arena_outcome(duel_id, &players[0]);
        let plan = DuelCommit {
            duel_id: duel_id.to_owned(),
            players,
            won,
            kept,
            rules,
            after,
            arena,
        };
        self.commit_exchange::<Duel>(duel_id, before, plan, events);
    }

    /// The database's answer for a committing duel.
    pub(crate) fn duel_committed(&mut self, duel_id: &str, ok: bool, events: &mut Vec<Event>) {
        self.exchange_committed::<Duel>(duel_id, ok, events);
        self.arena_committed(duel_id, ok, events);
    }

    /// A player leaves the world: their challenge ends; a duel on the screens or in the fight
    /// ends with `disconnected`, both back outside the arena (a committing duel waits for its
    /// outcome).
    pub(crate) fn duel_player_left(&mut self, id: &str, events: &mut Vec<Event>) {
        self.exchange_party_left::<Duel>(id, events);
    }

    /// Each tick: expired challenges, idle screens and overlong fights end (a fight as a draw);
    /// stakes are checked against inventories; fighters under `no_movement` stay put.
    pub(crate) fn advance_duels(&mut self, events: &mut Vec<Event>) {
        self.advance_exchanges::<Duel>(events);
        let still: Vec<String> = self
            .duels
            .by_id
            .values()
            .filter(|d| d.stage == Stage::Underway && d.terms.rules.has(Rule::NoMovement))
            .flat_map(|d| d.players.clone())
            .collect();
        for p in still {
            if let Some(&index) = self.player_index.get(&p) {
                self.players[index].walk.clear();
            }
        }
    }
}
