//! The two-screen exchange that trades and duels share (CONTRACT.md sections 5 and 11), written
//! once: one player asks another, the two screens where each side puts up inventory slots and
//! both accept twice, and the commit that the server writes as one transaction.
//!
//! - **Asking.** Both players online, within [`Kind::REACH_TILES`] (Chebyshev), neither in a
//!   trade or a duel, and whatever else the kind asks ([`Kind::start_refusal`]). Asking someone
//!   who already asked you accepts theirs; a new ask replaces your earlier one; an ask to someone
//!   who ignores you is never shown to them and can only expire; an unanswered ask ends after
//!   [`Kind::ASK_TIMEOUT_TICKS`] (the asker is told `timeout`).
//! - **The screens.** Each side puts up inventory slots ([`offers`]) and takes them back; any
//!   change (an entry, a duel's rule, an entry's slot changing under it) resets both accepts and
//!   returns Screen 2 to Screen 1. Both accepting Screen 1 opens Screen 2; both accepting Screen 2
//!   settles the exchange ([`Kind::settle`]) when each side can hold what it would receive, else
//!   both are told `inventory_full` and the accepts reset. The screens end
//!   [`Kind::SCREEN_TIMEOUT_TICKS`] after they open, or after the last activity when
//!   [`Kind::ACTIVITY_EXTENDS`] (a trade's inactivity).
//! - **Escrow.** What is put up never leaves its owner's inventory before the commit: its slots
//!   are locked (the players can neither move nor act, and [`OfferedSlots::follow`] drops or caps
//!   an entry whose slot changed anyway), so an exchange that ends any other way (cancel, leave,
//!   death, time-out, a failed write, a crash) returns everything by construction.
//! - **The commit.** A settled exchange is *committing* ([`World::commit_exchange`]): the sim
//!   holds both inventories as they were and as they will be, computed on copies, and emits the
//!   kind's commit event; the server writes both records and the audit row in one transaction and
//!   answers with the kind's `…Committed` command; only then does the world apply the planned
//!   inventories ([`World::exchange_committed`]), or on failure change nothing
//!   (`server_error`). A committing exchange cannot be cancelled, a party in it cannot die, and a
//!   party who leaves does not stop it.
//! - **Ending.** Cancel (on the screens or asked), a party leaving or dying, or a time-out ends it
//!   and tells the others why ([`Ending`]).
//!
//! What differs between a trade and a duel is a [`Kind`]: the timers, the words, a duel's rules
//! and arena, and what settling means (a trade's swap commits at once; a duel's fight comes
//! first, and its loser's stake commits). The sim tells players what happens as data
//! ([`Event::Exchange`] with a [`Notice`]); the server's `world_thread/messages.rs` words it as
//! the trade's or the duel's wire message.

pub(crate) mod offers;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Debug;

use wayfarer_protocol::trade::codes;
use wayfarer_protocol::ws::TilePos;

use crate::duel::Rules;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::inventory::{Inventory, Stack};
use crate::map::chebyshev;
use crate::world::World;

pub use offers::Offered;
use offers::OfferedSlots;

#[cfg(test)]
mod tests;

/// Which exchange a [`Notice`] is about (the server words it as a trade's or a duel's message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExchangeKind {
    /// A trade (`trade-<n>`).
    Trade,
    /// A duel (`duel-<n>`).
    Duel,
}

/// Why an exchange ended without completing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ending {
    /// The asked player said no.
    Declined,
    /// A party cancelled (the notice names who).
    Cancelled,
    /// An ask went unanswered, or the screens ran out of time.
    Timeout,
    /// The other party left the world.
    Disconnected,
    /// A party died.
    PlayerDied,
    /// The commit's transaction failed: nothing moved.
    ServerError,
    /// A duel's fight ran out of time: both stakes stay.
    Draw,
}

/// One side of the screens as a party sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Side {
    /// What the side put up, in slot order.
    pub items: Vec<Offered>,
    /// Whether the side accepted the screen shown.
    pub accepted: bool,
}

/// The screens as one party sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screen {
    /// 1 (offers) or 2 (confirmation).
    pub number: u8,
    /// The other party's character id.
    pub partner: String,
    /// The other party's display name.
    pub partner_name: String,
    /// A duel's rules (none for a trade).
    pub rules: Rules,
    /// The recipient's own side.
    pub mine: Side,
    /// The other party's side.
    pub theirs: Side,
}

/// What one party of an exchange is told. Shared notices mean the same for both kinds; the
/// others belong to one kind, as their documentation says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// `from` asks the recipient (`tradeIncoming`, `duelIncoming`).
    Asked {
        /// The asker's character id.
        from: String,
        /// The asker's display name.
        from_name: String,
    },
    /// A trade's screens opened (`tradeStarted`; a duel shows its first screen instead).
    Opened {
        /// The other party's character id.
        partner: String,
        /// The other party's display name.
        partner_name: String,
    },
    /// The screens changed (`tradeUpdated` or `tradeConfirmScreen`, `duel:rules`).
    Screen(Box<Screen>),
    /// A duel's fight began (`duel:start`).
    Fight {
        /// The opponent's character id.
        opponent: String,
        /// The rules fought under.
        rules: Rules,
        /// The arena's area id (`None`: fought where the challenged player stood).
        arena_id: Option<String>,
        /// Where the recipient was placed.
        tile: TilePos,
    },
    /// A trade completed (`tradeCompleted`): what the recipient received.
    Traded {
        /// The other side's entries, as stacks.
        received: Vec<Stack>,
    },
    /// A duel's result was written (`duel:result`).
    Decided {
        /// The winner's character id.
        winner: String,
        /// The loser's character id.
        loser: String,
        /// What the recipient received (the loser's stake for the winner; nothing for the loser).
        received: Vec<Stack>,
    },
    /// The exchange ended without completing (`tradeCancelled`, `duel:cancelled`).
    Cancelled {
        /// Why.
        reason: Ending,
        /// Who cancelled, for [`Ending::Cancelled`].
        by: Option<String>,
    },
    /// A message of the recipient's was refused (`tradeError`, `duelError`).
    Refused {
        /// Wire error code (`wayfarer_protocol::trade::codes`, `wayfarer_protocol::duel::codes`).
        code: &'static str,
        /// Human-readable reason.
        message: String,
        /// The refused message's reference, echoed.
        reference: Option<u64>,
    },
}

/// A party's message about one exchange: who sent it, about which exchange, and its reference
/// (echoed in a refusal).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Said<'a> {
    /// The sender's character id.
    pub(crate) by: &'a str,
    /// The exchange it is about.
    pub(crate) exchange_id: &'a str,
    /// The message's reference.
    pub(crate) reference: Option<u64>,
}

impl<'a> Said<'a> {
    /// `by`'s message about `exchange_id`, with its reference.
    pub(crate) fn new(by: &'a str, exchange_id: &'a str, reference: Option<u64>) -> Self {
        Said {
            by,
            exchange_id,
            reference,
        }
    }

    /// The refusal of what was said (`tradeError`, `duelError`).
    pub(crate) fn refusal<K: Kind>(self, code: &'static str, message: impl Into<String>) -> Event {
        refused::<K>(
            self.by,
            code,
            message,
            Some(self.exchange_id),
            self.reference,
        )
    }

    /// Who said it, about which exchange, and its reference.
    pub(crate) fn parts(self) -> (&'a str, &'a str, Option<u64>) {
        (self.by, self.exchange_id, self.reference)
    }
}

/// Where an exchange stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Asked, not yet answered.
    Asked,
    /// The offers screen.
    Screen1,
    /// The confirmation screen.
    Screen2,
    /// Settled, and what settling started is under way (a duel's fight).
    Underway,
    /// Waiting for the server's transaction.
    Committing,
}

/// A refusal whose words differ between a trade and a duel ([`Kind::words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word {
    /// Asking oneself.
    AskYourself,
    /// The asker is in a trade or a duel already.
    AlreadyBusy,
    /// The asked player is.
    TargetBusy,
    /// One of the two is, when the ask is answered.
    OneBusy,
    /// Answering what was not asked of you.
    NothingToAnswer,
    /// Answering an ask that timed out before the answer came.
    Expired,
    /// A screen message before the screens opened.
    NotStarted,
    /// A screen message once the screens are over.
    PastScreens,
    /// Cancelling once settled.
    TooLateToCancel,
    /// Settling refused for want of room.
    NoRoom,
}

/// What differs between the exchanges: a trade's and a duel's rules plug in here.
pub(crate) trait Kind: Sized + 'static {
    /// What an exchange carries besides the offers (a duel's rules and where the two stood).
    type Terms: Debug + Default;
    /// What a settled exchange asks the server to write ([`crate::TradeCommit`],
    /// [`crate::DuelCommit`]).
    type Plan: Debug + Clone;
    /// Which exchange this is.
    const KIND: ExchangeKind;
    /// Ids are `<PREFIX>-<n>`.
    const PREFIX: &'static str;
    /// Farthest apart (Chebyshev tiles) two players may be to ask and to answer.
    const REACH_TILES: u32;
    /// An ask unanswered this long expires.
    const ASK_TIMEOUT_TICKS: u64;
    /// How long the screens stay open.
    const SCREEN_TIMEOUT_TICKS: u64;
    /// Whether every change and accept puts the screens' end off again (a trade's inactivity
    /// time-out) or the end stays where the opening put it (a duel's).
    const ACTIVITY_EXTENDS: bool;
    /// Why an exchange under way that runs out of time ends.
    const UNDERWAY_TIMEOUT: Ending;
    /// The exchange's name in refusals ("trade", "duel").
    const NOUN: &'static str;
    /// What an item put up is ("traded", "staked"), for the untradeable refusal.
    const VERB: &'static str;
    /// What one side's entries are called ("offer", "stake").
    const ENTRIES: &'static str;

    /// The words of the kind's refusal `word`.
    fn words(word: Word) -> &'static str;
    /// The world's exchanges of this kind.
    fn book(world: &World) -> &Book<Self>;
    /// The same, to change.
    fn book_mut(world: &mut World) -> &mut Book<Self>;
    /// Why `id` and `other` may not start one where and when they are, besides the shared
    /// checks (code and words), if they may not.
    fn start_refusal(
        _world: &World,
        _id: &str,
        _other: &str,
    ) -> Option<(&'static str, &'static str)> {
        None
    }
    /// The duel rules a screen shows.
    fn rules(_terms: &Self::Terms) -> Rules {
        Rules::default()
    }
    /// The screens just opened: tell both.
    fn opened(world: &mut World, exchange_id: &str, events: &mut Vec<Event>);
    /// Both accepted Screen 2: settle (commit, or start what comes before the commit). `false`
    /// when a side could not hold what it would receive; nothing changed then.
    fn settle(world: &mut World, exchange_id: &str, events: &mut Vec<Event>) -> bool;
    /// An exchange under way ends early (left, timed out): undo what settling started.
    fn abandon(_world: &mut World, _exchange_id: &str) {}
    /// The kind's commit event for the server.
    fn commit_event(plan: &Self::Plan) -> Event;
    /// The plan's two parties, in the order of its inventories.
    fn parties(plan: &Self::Plan) -> &[String; 2];
    /// Each party's inventory once the commit is applied.
    fn after(plan: &Self::Plan) -> &[Inventory; 2];
    /// What the plan's party `side` is told once the commit was written.
    fn completed(plan: &Self::Plan, side: usize) -> Notice;
    /// What moved between the parties, for the economy audit (its reason and the stacks).
    fn moved(plan: &Self::Plan) -> (&'static str, Vec<Stack>);
}

/// One exchange: two parties, what each put up, their accepts and the kind's terms.
#[derive(Debug)]
pub(crate) struct Exchange<K: Kind> {
    pub(crate) id: String,
    /// Asker, asked.
    pub(crate) players: [String; 2],
    pub(crate) stage: Stage,
    pub(crate) offers: [OfferedSlots; 2],
    pub(crate) accepted: [bool; 2],
    /// The tick at which it times out.
    pub(crate) deadline: u64,
    pub(crate) terms: K::Terms,
    /// While committing: both inventories as the plan found them, and the plan.
    committing: Option<([Inventory; 2], K::Plan)>,
    /// An ask the asked player never saw (they ignore the asker): it can only expire.
    silenced: bool,
}

impl<K: Kind> Exchange<K> {
    /// The side of player `id`, if a party.
    pub(crate) fn side(&self, id: &str) -> Option<usize> {
        self.players.iter().position(|p| p == id)
    }

    fn on_screens(&self) -> bool {
        matches!(self.stage, Stage::Screen1 | Stage::Screen2)
    }
}

/// Every open exchange and ask of one kind in a world.
#[derive(Debug)]
pub(crate) struct Book<K: Kind> {
    next: u64,
    pub(crate) by_id: BTreeMap<String, Exchange<K>>,
    /// Player → their exchange on the screens, under way or committing.
    pub(crate) active: HashMap<String, String>,
    /// Asker → their pending ask.
    outgoing: HashMap<String, String>,
    /// Asks that timed out unanswered, newest last, with whom they asked and when: an answer that
    /// comes later is told the ask expired rather than that there is none (at most
    /// [`EXPIRED_ASKS_KEPT`], none older than ten asks' time-outs).
    expired: VecDeque<(String, String, u64)>,
}

/// How many timed-out asks a world remembers, per kind of exchange.
pub const EXPIRED_ASKS_KEPT: usize = 1_024;

impl<K: Kind> Default for Book<K> {
    fn default() -> Self {
        Book {
            next: 0,
            by_id: BTreeMap::new(),
            active: HashMap::new(),
            outgoing: HashMap::new(),
            expired: VecDeque::new(),
        }
    }
}

impl<K: Kind> Book<K> {
    /// The exchange player `id` is active in.
    pub(crate) fn of(&self, player: &str) -> Option<&Exchange<K>> {
        self.by_id.get(self.active.get(player)?)
    }
}

/// An exchange notice for one player.
pub(crate) fn tell<K: Kind>(to: &str, exchange_id: Option<&str>, notice: Notice) -> Event {
    Event::Exchange {
        to: to.to_owned(),
        kind: K::KIND,
        id: exchange_id.map(str::to_owned),
        notice,
    }
}

/// A refusal of one player's exchange message.
pub(crate) fn refused<K: Kind>(
    to: &str,
    code: &'static str,
    message: impl Into<String>,
    exchange_id: Option<&str>,
    reference: Option<u64>,
) -> Event {
    tell::<K>(
        to,
        exchange_id,
        Notice::Refused {
            code,
            message: message.into(),
            reference,
        },
    )
}

fn cancelled<K: Kind>(to: &str, exchange_id: &str, reason: Ending, by: Option<&str>) -> Event {
    tell::<K>(
        to,
        Some(exchange_id),
        Notice::Cancelled {
            reason,
            by: by.map(str::to_owned),
        },
    )
}

impl World {
    /// Whether the player is in a trade or a duel (on the screens, under way or committing).
    pub(crate) fn exchanging(&self, player: &str) -> bool {
        self.in_trade(player) || self.in_duel(player)
    }

    /// A player's name as others see it.
    pub(crate) fn display_name(&self, id: &str) -> String {
        self.player_index
            .get(id)
            .and_then(|&i| self.entities.get(self.players[i].handle))
            .and_then(|b| b.wire.name.clone())
            .unwrap_or_default()
    }

    fn within_reach<K: Kind>(&self, a: &str, b: &str) -> bool {
        match (self.player_tile(a), self.player_tile(b)) {
            (Some(x), Some(y)) => chebyshev(x, y) <= K::REACH_TILES,
            _ => false,
        }
    }

    /// `id` asks `target` (`tradeRequest`, `duel:challenge`).
    pub(crate) fn ask<K: Kind>(
        &mut self,
        id: &str,
        target: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let refuse = |code: &'static str, message: &str, events: &mut Vec<Event>| {
            events.push(refused::<K>(id, code, message, None, reference));
        };
        if target == id {
            return refuse(codes::SELF_TRADE, K::words(Word::AskYourself), events);
        }
        if !self.is_online(target) {
            return refuse(codes::PLAYER_OFFLINE, "that player is not online", events);
        }
        if self.exchanging(id) {
            return refuse(codes::PLAYER_BUSY, K::words(Word::AlreadyBusy), events);
        }
        if self.exchanging(target) {
            return refuse(codes::PLAYER_BUSY, K::words(Word::TargetBusy), events);
        }
        if !self.within_reach::<K>(id, target) {
            return refuse(
                codes::TOO_FAR,
                "you must stand within 2 tiles of the other player",
                events,
            );
        }
        if let Some((code, message)) = K::start_refusal(self, id, target) {
            return refuse(code, message, events);
        }
        let book = K::book_mut(self);
        // They asked us first: this ask accepts theirs.
        if let Some(theirs) = book.outgoing.get(target).cloned() {
            if book
                .by_id
                .get(&theirs)
                .is_some_and(|e| e.players[1] == id && !e.silenced)
            {
                if let Some(mine) = book.outgoing.remove(id) {
                    book.by_id.remove(&mine);
                }
                return self.open_screens::<K>(&theirs, events);
            }
        }
        if let Some(earlier) = book.outgoing.remove(id) {
            book.by_id.remove(&earlier);
        }
        let silenced = self.ignores(target, id);
        let deadline = self.now() + K::ASK_TIMEOUT_TICKS;
        let book = K::book_mut(self);
        book.next += 1;
        let exchange_id = format!("{}-{}", K::PREFIX, book.next);
        book.by_id.insert(
            exchange_id.clone(),
            Exchange {
                id: exchange_id.clone(),
                players: [id.to_owned(), target.to_owned()],
                stage: Stage::Asked,
                offers: Default::default(),
                accepted: [false; 2],
                deadline,
                terms: K::Terms::default(),
                committing: None,
                silenced,
            },
        );
        book.outgoing.insert(id.to_owned(), exchange_id.clone());
        if silenced {
            // The ignored asker is not told: their ask simply times out.
            return;
        }
        let from_name = self.display_name(id);
        events.push(tell::<K>(
            target,
            Some(&exchange_id),
            Notice::Asked {
                from: id.to_owned(),
                from_name,
            },
        ));
    }

    /// The side of `id` in exchange `exchange_id`, or an `invalid_trade` refusal.
    fn party<K: Kind>(&self, said: Said, events: &mut Vec<Event>) -> Option<usize> {
        let (id, exchange_id, _) = said.parts();
        let book = K::book(self);
        let side = book.by_id.get(exchange_id).and_then(|e| e.side(id));
        if side.is_none() {
            let expired = book
                .expired
                .iter()
                .any(|(ask, asked, _)| ask == exchange_id && asked == id);
            let message = if expired {
                K::words(Word::Expired).to_owned()
            } else {
                format!("no such {} of yours", K::NOUN)
            };
            events.push(said.refusal::<K>(codes::INVALID_TRADE, message));
        }
        side
    }

    /// `id` answers the ask `exchange_id` (`tradeRequestRespond`, `duel:respond`).
    pub(crate) fn answer<K: Kind>(&mut self, said: Said, accept: bool, events: &mut Vec<Event>) {
        let (id, exchange_id, _) = said.parts();
        let Some(side) = self.party::<K>(said, events) else {
            return;
        };
        let (stage, asker) = {
            let e = &K::book(self).by_id[exchange_id];
            (e.stage, e.players[0].clone())
        };
        let refuse = |code: &'static str, message: &str, events: &mut Vec<Event>| {
            events.push(said.refusal::<K>(code, message));
        };
        if stage != Stage::Asked || side != 1 {
            return refuse(
                codes::NOT_ON_SCREEN,
                K::words(Word::NothingToAnswer),
                events,
            );
        }
        if !accept {
            self.end_exchange::<K>(exchange_id);
            events.push(cancelled::<K>(&asker, exchange_id, Ending::Declined, None));
            return;
        }
        if self.exchanging(id) || self.exchanging(&asker) {
            return refuse(codes::PLAYER_BUSY, K::words(Word::OneBusy), events);
        }
        if !self.within_reach::<K>(id, &asker) {
            return refuse(
                codes::TOO_FAR,
                "you must stand within 2 tiles of the other player",
                events,
            );
        }
        if let Some((code, message)) = K::start_refusal(self, id, &asker) {
            return refuse(code, message, events);
        }
        self.open_screens::<K>(exchange_id, events);
    }

    /// An ask becomes an exchange on Screen 1.
    fn open_screens<K: Kind>(&mut self, exchange_id: &str, events: &mut Vec<Event>) {
        let deadline = self.now() + K::SCREEN_TIMEOUT_TICKS;
        let book = K::book_mut(self);
        let Some(exchange) = book.by_id.get_mut(exchange_id) else {
            return;
        };
        exchange.stage = Stage::Screen1;
        exchange.deadline = deadline;
        let players = exchange.players.clone();
        for p in &players {
            // Neither keeps a pending ask of their own.
            if let Some(pending) = book.outgoing.remove(p) {
                if pending != exchange_id {
                    book.by_id.remove(&pending);
                }
            }
            book.active.insert(p.clone(), exchange_id.to_owned());
        }
        for p in &players {
            // Whatever they were doing (walking, gathering) stops: nothing else may touch the items.
            self.stop_everything(p);
        }
        K::opened(self, exchange_id, events);
    }

    /// An exchange between `players` that skips the ask and the screens (a ladder fight): opened
    /// on Screen 2 with nothing put up and settled at once. Its id, or `None` when settling was
    /// refused (nothing is left open then).
    pub(crate) fn open_settled<K: Kind>(
        &mut self,
        players: [String; 2],
        terms: K::Terms,
        events: &mut Vec<Event>,
    ) -> Option<String> {
        let deadline = self.now() + K::SCREEN_TIMEOUT_TICKS;
        let book = K::book_mut(self);
        book.next += 1;
        let exchange_id = format!("{}-{}", K::PREFIX, book.next);
        for p in &players {
            if let Some(pending) = book.outgoing.remove(p) {
                book.by_id.remove(&pending);
            }
            book.active.insert(p.clone(), exchange_id.clone());
        }
        book.by_id.insert(
            exchange_id.clone(),
            Exchange {
                id: exchange_id.clone(),
                players: players.clone(),
                stage: Stage::Screen2,
                offers: Default::default(),
                accepted: [true; 2],
                deadline,
                terms,
                committing: None,
                silenced: false,
            },
        );
        for p in &players {
            self.stop_everything(p);
        }
        if K::settle(self, &exchange_id, events) {
            return Some(exchange_id);
        }
        self.end_exchange::<K>(&exchange_id);
        None
    }

    /// The side of `id` and the stage when `id` may change the screens or accept, else a
    /// `not_on_screen` refusal.
    fn on_screen<K: Kind>(&self, said: Said, events: &mut Vec<Event>) -> Option<(usize, Stage)> {
        let exchange_id = said.exchange_id;
        let side = self.party::<K>(said, events)?;
        let stage = K::book(self).by_id[exchange_id].stage;
        let message = match stage {
            Stage::Screen1 | Stage::Screen2 => return Some((side, stage)),
            Stage::Asked => K::words(Word::NotStarted),
            Stage::Underway | Stage::Committing => K::words(Word::PastScreens),
        };
        events.push(said.refusal::<K>(codes::NOT_ON_SCREEN, message));
        None
    }

    /// The side of `id` when `exchange_id` is on its screens (else refused, as
    /// [`World::on_screen`]).
    pub(crate) fn screen_side<K: Kind>(
        &self,
        said: Said,
        events: &mut Vec<Event>,
    ) -> Option<usize> {
        self.on_screen::<K>(said, events).map(|(side, _)| side)
    }

    /// `id` puts up `slot` (`tradeAddItem`, `duel:stake`).
    pub(crate) fn put_up<K: Kind>(
        &mut self,
        said: Said,
        slot: i64,
        quantity: Option<i64>,
        events: &mut Vec<Event>,
    ) {
        let (id, exchange_id, _) = said.parts();
        let Some(side) = self.screen_side::<K>(said, events) else {
            return;
        };
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let offered = match self.offer_from_slot(index, slot, quantity, K::VERB) {
            Ok(offered) => offered,
            Err((code, message)) => {
                events.push(said.refusal::<K>(code, message));
                return;
            }
        };
        let Some(exchange) = K::book_mut(self).by_id.get_mut(exchange_id) else {
            return;
        };
        exchange.offers[side].put(offered);
        self.exchange_changed::<K>(exchange_id, events);
    }

    /// `id` takes `slot` back (`tradeRemoveItem`, `duel:unstake`).
    pub(crate) fn take_back<K: Kind>(&mut self, said: Said, slot: i64, events: &mut Vec<Event>) {
        let exchange_id = said.exchange_id;
        let Some(side) = self.screen_side::<K>(said, events) else {
            return;
        };
        let Some(exchange) = K::book_mut(self).by_id.get_mut(exchange_id) else {
            return;
        };
        if !exchange.offers[side].take_back(slot) {
            events.push(said.refusal::<K>(
                codes::INVALID_SLOT,
                format!("inventory slot {slot} is not in your {}", K::ENTRIES),
            ));
            return;
        }
        self.exchange_changed::<K>(exchange_id, events);
    }

    /// After any change on the screens: both accepts reset, back to Screen 1, both told.
    pub(crate) fn exchange_changed<K: Kind>(&mut self, exchange_id: &str, events: &mut Vec<Event>) {
        let now = self.now();
        if let Some(exchange) = K::book_mut(self).by_id.get_mut(exchange_id) {
            exchange.accepted = [false; 2];
            exchange.stage = Stage::Screen1;
            if K::ACTIVITY_EXTENDS {
                exchange.deadline = now + K::SCREEN_TIMEOUT_TICKS;
            }
        }
        self.show_screens::<K>(exchange_id, events);
    }

    /// The screens to both parties, each from their side.
    pub(crate) fn show_screens<K: Kind>(&self, exchange_id: &str, events: &mut Vec<Event>) {
        let Some(exchange) = K::book(self).by_id.get(exchange_id) else {
            return;
        };
        let side = |s: usize| Side {
            items: exchange.offers[s].iter().cloned().collect(),
            accepted: exchange.accepted[s],
        };
        for (me, other) in [(0, 1), (1, 0)] {
            let screen = Screen {
                number: if exchange.stage == Stage::Screen2 {
                    2
                } else {
                    1
                },
                partner: exchange.players[other].clone(),
                partner_name: self.display_name(&exchange.players[other]),
                rules: K::rules(&exchange.terms),
                mine: side(me),
                theirs: side(other),
            };
            events.push(tell::<K>(
                &exchange.players[me],
                Some(exchange_id),
                Notice::Screen(Box::new(screen)),
            ));
        }
    }

    /// `id` accepts the screen shown (`tradeAccept`, `duel:accept`).
    pub(crate) fn accept_screen<K: Kind>(&mut self, said: Said, events: &mut Vec<Event>) {
        let (id, exchange_id, reference) = said.parts();
        let Some((side, stage)) = self.on_screen::<K>(said, events) else {
            return;
        };
        // An entry that no longer matches the inventory changes first (and resets the accepts).
        if self.follow_offers::<K>(exchange_id, events) {
            return;
        }
        let now = self.now();
        let Some(exchange) = K::book_mut(self).by_id.get_mut(exchange_id) else {
            return;
        };
        exchange.accepted[side] = true;
        if K::ACTIVITY_EXTENDS {
            exchange.deadline = now + K::SCREEN_TIMEOUT_TICKS;
        }
        if exchange.accepted != [true, true] {
            return self.show_screens::<K>(exchange_id, events);
        }
        if stage == Stage::Screen1 {
            exchange.stage = Stage::Screen2;
            exchange.accepted = [false; 2];
            return self.show_screens::<K>(exchange_id, events);
        }
        if K::settle(self, exchange_id, events) {
            return;
        }
        let Some(exchange) = K::book_mut(self).by_id.get_mut(exchange_id) else {
            return;
        };
        exchange.accepted = [false; 2];
        for p in exchange.players.clone() {
            events.push(refused::<K>(
                &p,
                codes::INVENTORY_FULL,
                K::words(Word::NoRoom),
                Some(exchange_id),
                if p == id { reference } else { None },
            ));
        }
    }

    /// Drops or caps entries whose slot no longer holds what was put up; `true` (and a change on
    /// the screens) when any did.
    fn follow_offers<K: Kind>(&mut self, exchange_id: &str, events: &mut Vec<Event>) -> bool {
        let Some(exchange) = K::book(self).by_id.get(exchange_id) else {
            return false;
        };
        let mut fixed = exchange.offers.clone();
        let mut changed = false;
        for (side, offer) in fixed.iter_mut().enumerate() {
            let Some(&index) = self.player_index.get(&exchange.players[side]) else {
                continue;
            };
            changed |= offer.follow(&self.players[index].inventory);
        }
        if changed {
            if let Some(exchange) = K::book_mut(self).by_id.get_mut(exchange_id) {
                exchange.offers = fixed;
            }
            self.exchange_changed::<K>(exchange_id, events);
        }
        changed
    }

    /// Settled: the exchange waits for the server to write `plan` (computed on copies of
    /// `before`, the parties' inventories in the plan's order).
    pub(crate) fn commit_exchange<K: Kind>(
        &mut self,
        exchange_id: &str,
        before: [Inventory; 2],
        plan: K::Plan,
        events: &mut Vec<Event>,
    ) {
        let Some(exchange) = K::book_mut(self).by_id.get_mut(exchange_id) else {
            return;
        };
        exchange.stage = Stage::Committing;
        events.push(K::commit_event(&plan));
        exchange.committing = Some((before, plan));
    }

    /// The server's answer for a committing exchange: on success each party still holding the
    /// inventory the plan was made on gets the planned one (a party who left and came back
    /// already holds what the database says); on failure nothing changes.
    pub(crate) fn exchange_committed<K: Kind>(
        &mut self,
        exchange_id: &str,
        ok: bool,
        events: &mut Vec<Event>,
    ) {
        let committing = K::book(self)
            .by_id
            .get(exchange_id)
            .is_some_and(|e| e.stage == Stage::Committing);
        if !committing {
            return;
        }
        let Some((before, plan)) = self
            .end_exchange::<K>(exchange_id)
            .and_then(|e| e.committing)
        else {
            return;
        };
        for (side, planned_on) in before.iter().enumerate() {
            let player = &K::parties(&plan)[side];
            let Some(&index) = self.player_index.get(player) else {
                // Left while committing: the server saves their record as the outcome says.
                continue;
            };
            if !ok {
                events.push(cancelled::<K>(
                    player,
                    exchange_id,
                    Ending::ServerError,
                    None,
                ));
                continue;
            }
            if self.players[index].inventory == *planned_on {
                self.players[index].inventory = K::after(&plan)[side].clone();
                self.players[index].dirty.inventory = true;
            }
            events.push(tell::<K>(
                player,
                Some(exchange_id),
                K::completed(&plan, side),
            ));
        }
        if ok {
            let (reason, stacks) = K::moved(&plan);
            for stack in stacks {
                self.flow(FlowKind::Moved, reason, &stack.item_id, stack.quantity);
            }
        }
    }

    /// Takes the exchange out of the book.
    pub(crate) fn end_exchange<K: Kind>(&mut self, exchange_id: &str) -> Option<Exchange<K>> {
        let book = K::book_mut(self);
        let exchange = book.by_id.remove(exchange_id)?;
        for p in &exchange.players {
            if book.active.get(p).map(String::as_str) == Some(exchange_id) {
                book.active.remove(p);
            }
            if book.outgoing.get(p).map(String::as_str) == Some(exchange_id) {
                book.outgoing.remove(p);
            }
        }
        Some(exchange)
    }

    /// Ends `exchange_id` for `reason` and tells both parties.
    pub(crate) fn end_for_both<K: Kind>(
        &mut self,
        exchange_id: &str,
        reason: Ending,
        events: &mut Vec<Event>,
    ) {
        if let Some(exchange) = self.end_exchange::<K>(exchange_id) {
            for p in &exchange.players {
                events.push(cancelled::<K>(p, exchange_id, reason, None));
            }
        }
    }

    /// `id` cancels (`tradeCancel`, `duel:cancel`): asked or on the screens only.
    pub(crate) fn cancel_exchange<K: Kind>(&mut self, said: Said, events: &mut Vec<Event>) {
        let (id, exchange_id, _) = said.parts();
        if self.party::<K>(said, events).is_none() {
            return;
        }
        let stage = K::book(self).by_id[exchange_id].stage;
        if matches!(stage, Stage::Underway | Stage::Committing) {
            events.push(said.refusal::<K>(codes::NOT_ON_SCREEN, K::words(Word::TooLateToCancel)));
            return;
        }
        if let Some(exchange) = self.end_exchange::<K>(exchange_id) {
            for p in &exchange.players {
                events.push(cancelled::<K>(p, exchange_id, Ending::Cancelled, Some(id)));
            }
        }
    }

    /// The ids and stages of the exchanges `keep` picks (collected, to end or check them).
    fn picked<K: Kind>(&self, keep: impl Fn(&Exchange<K>) -> bool) -> Vec<(String, Stage)> {
        K::book(self)
            .by_id
            .values()
            .filter(|e| keep(e))
            .map(|e| (e.id.clone(), e.stage))
            .collect()
    }

    /// Ends an exchange before its commit, undoing what settling started.
    fn end_early<K: Kind>(&mut self, exchange_id: &str, stage: Stage) -> Option<Exchange<K>> {
        if stage == Stage::Underway {
            K::abandon(self, exchange_id);
        }
        self.end_exchange::<K>(exchange_id)
    }

    /// A player leaves the world: their asks end, and an exchange on the screens or under way
    /// ends with `disconnected` for the other party (a committing one waits for its outcome).
    pub(crate) fn exchange_party_left<K: Kind>(&mut self, id: &str, events: &mut Vec<Event>) {
        let involved = self.picked::<K>(|e| e.side(id).is_some() && e.stage != Stage::Committing);
        for (exchange_id, stage) in involved {
            let Some(exchange) = self.end_early::<K>(&exchange_id, stage) else {
                continue;
            };
            for p in exchange.players.iter().filter(|p| *p != id) {
                events.push(cancelled::<K>(p, &exchange_id, Ending::Disconnected, None));
            }
        }
    }

    /// Each tick: expired asks and screens (and exchanges under way) end; entries are checked
    /// against the inventories.
    pub(crate) fn advance_exchanges<K: Kind>(&mut self, events: &mut Vec<Event>) {
        if K::book(self).by_id.is_empty() {
            return;
        }
        let now = self.now();
        let due = self.picked::<K>(|e| e.stage != Stage::Committing && e.deadline <= now);
        for (exchange_id, stage) in due {
            let Some(exchange) = self.end_early::<K>(&exchange_id, stage) else {
                continue;
            };
            if stage == Stage::Asked {
                let expired = &mut K::book_mut(self).expired;
                let too_old = now.saturating_sub(K::ASK_TIMEOUT_TICKS * 10);
                while expired
                    .front()
                    .is_some_and(|e| e.2 < too_old || expired.len() >= EXPIRED_ASKS_KEPT)
                {
                    expired.pop_front();
                }
                expired.push_back((exchange_id.clone(), exchange.players[1].clone(), now));
            }
            let (told, reason) = match stage {
                Stage::Asked => (&exchange.players[..1], Ending::Timeout),
                Stage::Underway => (&exchange.players[..], K::UNDERWAY_TIMEOUT),
                _ => (&exchange.players[..], Ending::Timeout),
            };
            for p in told {
                events.push(cancelled::<K>(p, &exchange_id, reason, None));
            }
        }
        for (exchange_id, _) in self.picked::<K>(Exchange::on_screens) {
            self.follow_offers::<K>(&exchange_id, events);
        }
    }
}
