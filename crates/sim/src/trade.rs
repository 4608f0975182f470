//! Player-to-player trading (CONTRACT.md section 5): a request, Screen 1 (offers), Screen 2
//! (confirmation) and a two-phase completion. The machine is the shared two-screen exchange
//! (`crate::exchange`); this module is its [`Kind`] for trades (the timers and words below, the
//! swap planned on settling) and what only trading adds (`in_trade` refusals).
//!
//! - `tradeRequest` needs both players online, within [`TRADE_DISTANCE_TILES`] (Chebyshev) and
//!   neither in an active trade; a request to someone who already asked the sender counts as
//!   accepting theirs, and a new request replaces the sender's earlier one. Requests expire after
//!   [`REQUEST_TIMEOUT_TICKS`]; an active trade with no activity for [`INACTIVITY_TIMEOUT_TICKS`]
//!   ends with `timeout`.
//! - Offers name inventory slots. While a trade is active (Screen 1, Screen 2, committing) the
//!   participants cannot move, act, use items or bank (`error in_trade`), so nothing else changes
//!   their inventories; every tick the offers are checked against the inventories anyway, and an
//!   offered slot whose item changed is dropped or capped (an offer change).
//! - Any offer change resets both acceptances and returns Screen 2 to Screen 1.
//! - **Two-phase completion.** When both accept on Screen 2 and both can hold what they receive,
//!   the trade becomes *committing*: no command can change the offers or the inventories (cancel is
//!   refused with `not_on_screen`, a participant cannot die), and [`Event::TradeCommit`] carries
//!   both post-swap inventories, computed on copies. The server writes them with an audit row in one
//!   transaction and answers with [`Command::TradeCommitted`]; only then is the swap applied
//!   (`tradeCompleted` to both), or on failure nothing changes (`tradeCancelled server_error`). A
//!   participant who leaves while committing does not stop it: the server holds their final save
//!   until the outcome.
//!
//! [`Command::TradeCommitted`]: crate::Command::TradeCommitted

use wayfarer_protocol::trade::codes;

use crate::commands::Command;
use crate::events::Event;
use crate::exchange::{Ending, Kind, Notice, Said, Word};
use crate::inventory::{Inventory, Stack};
use crate::world::World;

/// Farthest apart (Chebyshev tiles) two players may be to start a trade.
pub const TRADE_DISTANCE_TILES: u32 = 2;
/// A request unanswered for 30 s (50 ticks of 600 ms) expires.
pub const REQUEST_TIMEOUT_TICKS: u64 = 50;
/// An active trade with no activity for 5 minutes (500 ticks) ends.
pub const INACTIVITY_TIMEOUT_TICKS: u64 = 500;

/// A trade message from a player (the wire messages, read and checked for shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TradeCommand {
    /// `tradeRequest`.
    Request {
        /// The other player's character id.
        target: String,
    },
    /// `tradeRequestRespond`.
    Respond {
        /// The trade.
        trade_id: String,
        /// Accept or decline.
        accept: bool,
    },
    /// `tradeAddItem`; `quantity` as sent (`None`: the whole stack).
    AddItem {
        /// The trade.
        trade_id: String,
        /// The inventory slot as sent.
        slot: i64,
        /// How many, as sent.
        quantity: Option<i64>,
    },
    /// `tradeRemoveItem`.
    RemoveItem {
        /// The trade.
        trade_id: String,
        /// The inventory slot as sent.
        slot: i64,
    },
    /// `tradeAccept`.
    Accept {
        /// The trade.
        trade_id: String,
    },
    /// `tradeCancel`.
    Cancel {
        /// The trade.
        trade_id: String,
    },
}

/// What a committing trade asks the server to write in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradeCommit {
    /// The trade's id.
    pub trade_id: String,
    /// The two participants' character ids (requester first).
    pub players: [String; 2],
    /// What each participant gives (`gives[0]` goes from `players[0]` to `players[1]`).
    pub gives: [Vec<Stack>; 2],
    /// Each participant's inventory after the swap (not yet applied in the world).
    pub after: [Inventory; 2],
}

/// The trade as a kind of two-screen exchange.
#[derive(Debug)]
pub(crate) struct Trade;

impl Kind for Trade {
    type Terms = ();
    type Plan = TradeCommit;
    const KIND: crate::exchange::ExchangeKind = crate::exchange::ExchangeKind::Trade;
    const PREFIX: &'static str = "trade";
    const REACH_TILES: u32 = TRADE_DISTANCE_TILES;
    const ASK_TIMEOUT_TICKS: u64 = REQUEST_TIMEOUT_TICKS;
    const SCREEN_TIMEOUT_TICKS: u64 = INACTIVITY_TIMEOUT_TICKS;
    const ACTIVITY_EXTENDS: bool = true;
    // A trade is never under way: it commits as it settles.
    const UNDERWAY_TIMEOUT: Ending = Ending::Timeout;
    const NOUN: &'static str = "trade";
    const VERB: &'static str = "traded";
    const ENTRIES: &'static str = "offer";

    fn words(word: Word) -> &'static str {
        match word {
            Word::AskYourself => "you cannot trade with yourself",
            Word::AlreadyBusy => "you are already trading",
            Word::TargetBusy => "that player is busy trading",
            Word::OneBusy => "one of you is already trading",
            Word::NothingToAnswer => "there is no request of this trade for you to answer",
            Word::Expired => "that trade request has expired",
            Word::NotStarted => "the trade has not started",
            Word::PastScreens | Word::TooLateToCancel => "the trade is being completed",
            Word::NoRoom => "one of you cannot hold what they would receive",
        }
    }

    fn book(world: &World) -> &crate::exchange::Book<Self> {
        &world.trades
    }

    fn book_mut(world: &mut World) -> &mut crate::exchange::Book<Self> {
        &mut world.trades
    }

    /// `tradeStarted` to both; the offers screen is empty until someone offers.
    fn opened(world: &mut World, trade_id: &str, events: &mut Vec<Event>) {
        let Some(trade) = world.trades.by_id.get(trade_id) else {
            return;
        };
        for (me, other) in [(0, 1), (1, 0)] {
            events.push(crate::exchange::tell::<Trade>(
                &trade.players[me],
                Some(trade_id),
                Notice::Opened {
                    partner: trade.players[other].clone(),
                    partner_name: world.display_name(&trade.players[other]),
                },
            ));
        }
    }

    /// The swap commits at once.
    fn settle(world: &mut World, trade_id: &str, events: &mut Vec<Event>) -> bool {
        let Some((before, plan)) = world.plan_swap(trade_id) else {
            return false;
        };
        world.commit_exchange::<Trade>(trade_id, before, plan, events);
        true
    }

    fn commit_event(plan: &TradeCommit) -> Event {
        Event::TradeCommit(Box::new(plan.clone()))
    }

    fn parties(plan: &TradeCommit) -> &[String; 2] {
        &plan.players
    }

    fn after(plan: &TradeCommit) -> &[Inventory; 2] {
        &plan.after
    }

    fn completed(plan: &TradeCommit, side: usize) -> Notice {
        Notice::Traded {
            received: plan.gives[1 - side].clone(),
        }
    }

    fn moved(plan: &TradeCommit) -> (&'static str, Vec<Stack>) {
        ("traded", plan.gives.concat())
    }
}

impl World {
    /// Whether the player is in an active trade (Screen 1, Screen 2 or committing): moving,
    /// acting, using items and banking are refused with `in_trade`.
    pub fn in_trade(&self, player: &str) -> bool {
        self.trades.active.contains_key(player)
    }

    /// The id of the player's active trade, if any.
    pub fn trade_of(&self, player: &str) -> Option<&str> {
        self.trades.active.get(player).map(String::as_str)
    }

    /// Whether the player's trade is waiting for its database transaction.
    pub fn trade_committing(&self, player: &str) -> bool {
        self.trades
            .of(player)
            .is_some_and(|t| t.stage == crate::exchange::Stage::Committing)
    }

    /// How many trades and requests are open.
    pub fn open_trades(&self) -> usize {
        self.trades.by_id.len()
    }

    /// Refuses with `error in_trade` a command that a trading player may not give; `true` when
    /// refused.
    pub(crate) fn refused_in_trade(&self, command: &Command, events: &mut Vec<Event>) -> bool {
        let (id, reference) = match command {
            Command::Move { id, reference, .. }
            | Command::Action { id, reference, .. }
            | Command::UseItem { id, reference, .. }
            | Command::Bank { id, reference, .. }
            | Command::Shop { id, reference, .. }
            // Abandoning takes the quest's items back: not from under an open trade.
            | Command::QuestAbandon { id, reference, .. } => (id, *reference),
            Command::Give { id, .. } => (id, None),
            _ => return false,
        };
        if !self.in_trade(id) {
            return false;
        }
        Self::reject(
            id,
            codes::IN_TRADE,
            "not while trading; cancel the trade first",
            reference,
            events,
        );
        true
    }

    /// Applies one trade message from `id`.
    pub(crate) fn trade_command(
        &mut self,
        id: &str,
        command: TradeCommand,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        if !self.is_online(id) {
            return;
        }
        match command {
            TradeCommand::Request { target } => self.ask::<Trade>(id, &target, reference, events),
            TradeCommand::Respond { trade_id, accept } => {
                self.answer::<Trade>(Said::new(id, &trade_id, reference), accept, events)
            }
            TradeCommand::AddItem {
                trade_id,
                slot,
                quantity,
            } => {
                let said = Said::new(id, &trade_id, reference);
                self.put_up::<Trade>(said, slot, quantity, events)
            }
            TradeCommand::RemoveItem { trade_id, slot } => {
                self.take_back::<Trade>(Said::new(id, &trade_id, reference), slot, events)
            }
            TradeCommand::Accept { trade_id } => {
                self.accept_screen::<Trade>(Said::new(id, &trade_id, reference), events)
            }
            TradeCommand::Cancel { trade_id } => {
                self.cancel_exchange::<Trade>(Said::new(id, &trade_id, reference), events)
            }
        }
    }

    /// Both post-swap inventories, computed on copies; `None` when either side cannot hold what it
    /// would receive.
    fn plan_swap(&self, trade_id: &str) -> Option<([Inventory; 2], TradeCommit)> {
        let trade = self.trades.by_id.get(trade_id)?;
        let index = |p: &str| self.player_index.get(p).copied();
        let (i0, i1) = (index(&trade.players[0])?, index(&trade.players[1])?);
        let before = [
            self.players[i0].inventory.clone(),
            self.players[i1].inventory.clone(),
        ];
        let gives: [Vec<Stack>; 2] = [0, 1].map(|s| trade.offers[s].stacks());
        let mut after = before.clone();
        for (me, other) in [(0usize, 1usize), (1, 0)] {
            let stackings: Vec<_> = gives[other]
                .iter()
                .map(|s| self.stacking(&s.item_id))
                .collect();
            after[me]
                .apply(|tx| {
                    for o in &trade.offers[me] {
                        tx.remove(o.slot, o.quantity)?;
                    }
                    for (stack, stacking) in gives[other].iter().zip(&stackings) {
                        tx.add(&stack.item_id, stack.quantity, *stacking)?;
                    }
                    Ok(())
                })
                .ok()?;
        }
        Some((
            before,
            TradeCommit {
                trade_id: trade.id.clone(),
                players: trade.players.clone(),
                gives,
                after,
            },
        ))
    }

    /// The database's answer for a committing trade.
    pub(crate) fn trade_committed(&mut self, trade_id: &str, ok: bool, events: &mut Vec<Event>) {
        self.exchange_committed::<Trade>(trade_id, ok, events);
    }

    /// A player leaves the world: their requests end and their trade ends with `disconnected`
    /// (a committing trade waits for its outcome).
    pub(crate) fn trade_player_left(&mut self, id: &str, events: &mut Vec<Event>) {
        self.exchange_party_left::<Trade>(id, events);
    }

    /// A player died: an active trade ends with `player_died`.
    pub(crate) fn trade_player_died(&mut self, id: &str, events: &mut Vec<Event>) {
        if let Some(trade_id) = self.trades.active.get(id).cloned() {
            self.end_for_both::<Trade>(&trade_id, Ending::PlayerDied, events);
        }
    }

    /// Each tick: expired requests and idle trades end; offers are checked against inventories.
    pub(crate) fn advance_trades(&mut self, events: &mut Vec<Event>) {
        self.advance_exchanges::<Trade>(events);
    }
}
