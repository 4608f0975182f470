//! Player-to-player trading (CONTRACT.md section 5): a request, Screen 1 (offers), Screen 2
//! (confirmation) and a two-phase completion.
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

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use wayfarer_protocol::trade::{
    codes, reasons, Offer, OfferItem, ReceivedItem, TradeCancelled, TradeCompleted,
    TradeConfirmScreen, TradeError, TradeIncoming, TradeStarted, TradeUpdated, TradeValues,
};
use wayfarer_protocol::ws::ServerMessage;

use crate::commands::Command;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::inventory::{Inventory, Stack};
use crate::map::chebyshev;
use crate::offers::OfferedSlots;
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Requested,
    Screen1,
    Screen2,
    Committing,
}

#[derive(Debug)]
struct Trade {
    id: String,
    /// Requester, target.
    players: [String; 2],
    stage: Stage,
    offers: [OfferedSlots; 2],
    accepted: [bool; 2],
    /// The tick at which the trade times out (request expiry or inactivity).
    deadline: u64,
    /// While committing: the inventories before and after the swap, and what each side gives.
    before: Option<[Inventory; 2]>,
    plan: Option<TradeCommit>,
    /// A request the target never saw (they ignore the requester): it can only expire.
    silenced: bool,
}

impl Trade {
    fn side(&self, id: &str) -> Option<usize> {
        self.players.iter().position(|p| p == id)
    }
}

/// Every open trade and request of a world.
#[derive(Debug, Default)]
pub(crate) struct Trades {
    next: u64,
    by_id: BTreeMap<String, Trade>,
    /// Player → their active (Screen 1, Screen 2, committing) trade.
    active: HashMap<String, String>,
    /// Requester → their pending request.
    outgoing: HashMap<String, String>,
}

fn message_for(to: &str, message: ServerMessage) -> Event {
    Event::Trade {
        to: to.to_owned(),
        message: Box::new(message),
    }
}

fn trade_error(
    to: &str,
    code: &str,
    message: impl Into<String>,
    trade_id: Option<&str>,
    reference: Option<u64>,
) -> Event {
    message_for(
        to,
        ServerMessage::TradeError(TradeError {
            code: code.to_owned(),
            message: message.into(),
            trade_id: trade_id.map(str::to_owned),
            reference: reference.map(Value::from),
        }),
    )
}

fn cancelled(to: &str, trade_id: &str, reason: &str, by: Option<&str>) -> Event {
    message_for(
        to,
        ServerMessage::TradeCancelled(TradeCancelled {
            trade_id: trade_id.to_owned(),
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
            .active
            .get(player)
            .and_then(|id| self.trades.by_id.get(id))
            .is_some_and(|t| t.stage == Stage::Committing)
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
            | Command::Shop { id, reference, .. } => (id, *reference),
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

    fn display_name(&self, id: &str) -> String {
        self.player_index
            .get(id)
            .and_then(|&i| self.entities.get(self.players[i].handle))
            .and_then(|b| b.wire.name.clone())
            .unwrap_or_default()
    }

    fn near_enough(&self, a: &str, b: &str) -> bool {
        match (self.player_tile(a), self.player_tile(b)) {
            (Some(x), Some(y)) => chebyshev(x, y) <= TRADE_DISTANCE_TILES,
            _ => false,
        }
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
            TradeCommand::Request { target } => self.trade_request(id, &target, reference, events),
            TradeCommand::Respond { trade_id, accept } => {
                self.trade_respond(id, &trade_id, accept, reference, events)
            }
            TradeCommand::AddItem {
                trade_id,
                slot,
                quantity,
            } => self.trade_add(id, &trade_id, slot, quantity, reference, events),
            TradeCommand::RemoveItem { trade_id, slot } => {
                self.trade_remove(id, &trade_id, slot, reference, events)
            }
            TradeCommand::Accept { trade_id } => {
                self.trade_accept(id, &trade_id, reference, events)
            }
            TradeCommand::Cancel { trade_id } => {
                self.trade_cancel(id, &trade_id, reference, events)
            }
        }
    }

    fn trade_request(
        &mut self,
        id: &str,
        target: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let refuse = |code: &str, message: &str, events: &mut Vec<Event>| {
            events.push(trade_error(id, code, message, None, reference));
        };
        if target == id {
            return refuse(codes::SELF_TRADE, "you cannot trade with yourself", events);
        }
        if !self.is_online(target) {
            return refuse(codes::PLAYER_OFFLINE, "that player is not online", events);
        }
        if self.in_trade(id) {
            return refuse(codes::PLAYER_BUSY, "you are already trading", events);
        }
        if self.in_trade(target) || self.in_duel(target) {
            return refuse(codes::PLAYER_BUSY, "that player is busy trading", events);
        }
        if !self.near_enough(id, target) {
            return refuse(
                codes::TOO_FAR,
                "you must stand within 2 tiles of the other player",
                events,
            );
        }
        // They asked us first: this request accepts theirs.
        if let Some(theirs) = self.trades.outgoing.get(target).cloned() {
            if self
                .trades
                .by_id
                .get(&theirs)
                .is_some_and(|t| t.players[1] == id && !t.silenced)
            {
                if let Some(mine) = self.trades.outgoing.remove(id) {
                    self.trades.by_id.remove(&mine);
                }
                return self.trade_start(&theirs, events);
            }
        }
        if let Some(earlier) = self.trades.outgoing.remove(id) {
            self.trades.by_id.remove(&earlier);
        }
        let silenced = self.ignores(target, id);
        self.trades.next += 1;
        let trade_id = format!("trade-{}", self.trades.next);
        let now = self.now();
        self.trades.by_id.insert(
            trade_id.clone(),
            Trade {
                id: trade_id.clone(),
                players: [id.to_owned(), target.to_owned()],
                stage: Stage::Requested,
                offers: Default::default(),
                accepted: [false; 2],
                deadline: now + REQUEST_TIMEOUT_TICKS,
                before: None,
                plan: None,
                silenced,
            },
        );
        self.trades.outgoing.insert(id.to_owned(), trade_id.clone());
        if silenced {
            // The ignored requester is not told: their request simply times out.
            return;
        }
        let from_player_name = self.display_name(id);
        events.push(message_for(
            target,
            ServerMessage::TradeIncoming(TradeIncoming {
                trade_id,
                from_player_id: id.to_owned(),
                from_player_name,
            }),
        ));
    }

    /// The trade `trade_id` with `id` as a participant (its side), or a `tradeError invalid_trade`.
    fn participant(
        &self,
        id: &str,
        trade_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> Option<usize> {
        let side = self.trades.by_id.get(trade_id).and_then(|t| t.side(id));
        if side.is_none() {
            events.push(trade_error(
                id,
                codes::INVALID_TRADE,
                "no such trade of yours",
                Some(trade_id),
                reference,
            ));
        }
        side
    }

    fn not_on_screen(
        id: &str,
        trade_id: &str,
        message: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        events.push(trade_error(
            id,
            codes::NOT_ON_SCREEN,
            message,
            Some(trade_id),
            reference,
        ));
    }

    fn trade_respond(
        &mut self,
        id: &str,
        trade_id: &str,
        accept: bool,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(side) = self.participant(id, trade_id, reference, events) else {
            return;
        };
        let (stage, requester) = {
            let t = &self.trades.by_id[trade_id];
            (t.stage, t.players[0].clone())
        };
        if stage != Stage::Requested || side != 1 {
            return Self::not_on_screen(
                id,
                trade_id,
                "there is no request of this trade for you to answer",
                reference,
                events,
            );
        }
        if !accept {
            self.trades.by_id.remove(trade_id);
            self.trades.outgoing.remove(&requester);
            events.push(cancelled(&requester, trade_id, reasons::DECLINED, None));
            return;
        }
        if self.in_trade(id) || self.in_trade(&requester) {
            events.push(trade_error(
                id,
                codes::PLAYER_BUSY,
                "one of you is already trading",
                Some(trade_id),
                reference,
            ));
            return;
        }
        if !self.near_enough(id, &requester) {
            events.push(trade_error(
                id,
                codes::TOO_FAR,
                "you must stand within 2 tiles of the other player",
                Some(trade_id),
                reference,
            ));
            return;
        }
        self.trade_start(trade_id, events);
    }

    /// A request becomes an active trade on Screen 1.
    fn trade_start(&mut self, trade_id: &str, events: &mut Vec<Event>) {
        let now = self.now();
        let Some(trade) = self.trades.by_id.get_mut(trade_id) else {
            return;
        };
        trade.stage = Stage::Screen1;
        trade.deadline = now + INACTIVITY_TIMEOUT_TICKS;
        let players = trade.players.clone();
        for p in &players {
            // Neither keeps a pending request of their own.
            if let Some(pending) = self.trades.outgoing.remove(p) {
                if pending != trade_id {
                    self.trades.by_id.remove(&pending);
                }
            }
            self.trades.active.insert(p.clone(), trade_id.to_owned());
            // Whatever they were doing (walking, gathering) stops: nothing else may touch the items.
            self.stop_everything(p);
        }
        for (me, other) in [(0, 1), (1, 0)] {
            let partner_name = self.display_name(&players[other]);
            events.push(message_for(
                &players[me],
                ServerMessage::TradeStarted(TradeStarted {
                    trade_id: trade_id.to_owned(),
                    partner_id: players[other].clone(),
                    partner_name,
                }),
            ));
        }
    }

    /// The side's offer as the wire shows it.
    fn offer_view(&self, trade: &Trade, side: usize) -> Offer {
        Offer {
            items: trade.offers[side]
                .iter()
                .map(|o| OfferItem {
                    inventory_slot: o.slot as u8,
                    item_id: o.item_id.clone(),
                    name: self
                        .content
                        .items
                        .get(o.item_id.as_str())
                        .map_or_else(|| o.item_id.clone(), |i| i.name.clone()),
                    quantity: i64::from(o.quantity),
                })
                .collect(),
            accepted: trade.accepted[side],
        }
    }

    fn offer_value(&self, trade: &Trade, side: usize) -> i64 {
        trade.offers[side]
            .iter()
            .map(|o| {
                let value = self
                    .content
                    .items
                    .get(o.item_id.as_str())
                    .map_or(0, |i| i.value);
                i64::try_from(value.saturating_mul(u64::from(o.quantity))).unwrap_or(i64::MAX)
            })
            .fold(0i64, i64::saturating_add)
    }

    /// `tradeUpdated` (Screen 1) or `tradeConfirmScreen` (Screen 2) to both participants.
    fn show_trade(&self, trade_id: &str, events: &mut Vec<Event>) {
        let Some(trade) = self.trades.by_id.get(trade_id) else {
            return;
        };
        for (me, other) in [(0, 1), (1, 0)] {
            let my_offer = self.offer_view(trade, me);
            let their_offer = self.offer_view(trade, other);
            let message = if trade.stage == Stage::Screen2 {
                ServerMessage::TradeConfirmScreen(TradeConfirmScreen {
                    trade_id: trade.id.clone(),
                    my_offer,
                    their_offer,
                    values: TradeValues {
                        mine: self.offer_value(trade, me),
                        theirs: self.offer_value(trade, other),
                    },
                })
            } else {
                ServerMessage::TradeUpdated(TradeUpdated {
                    trade_id: trade.id.clone(),
                    my_offer,
                    their_offer,
                })
            };
            events.push(message_for(&trade.players[me], message));
        }
    }

    /// After an offer change: acceptances reset, back to Screen 1, both told.
    fn offer_changed(&mut self, trade_id: &str, events: &mut Vec<Event>) {
        let now = self.now();
        if let Some(trade) = self.trades.by_id.get_mut(trade_id) {
            trade.accepted = [false; 2];
            trade.stage = Stage::Screen1;
            trade.deadline = now + INACTIVITY_TIMEOUT_TICKS;
        }
        self.show_trade(trade_id, events);
    }

    /// The trade's stage when `id` may change offers or accept (Screen 1 or 2), else a
    /// `not_on_screen` refusal.
    fn on_screen(
        &mut self,
        id: &str,
        trade_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> Option<(usize, Stage)> {
        let side = self.participant(id, trade_id, reference, events)?;
        let stage = self.trades.by_id[trade_id].stage;
        match stage {
            Stage::Screen1 | Stage::Screen2 => Some((side, stage)),
            Stage::Requested => {
                Self::not_on_screen(id, trade_id, "the trade has not started", reference, events);
                None
            }
            Stage::Committing => {
                Self::not_on_screen(
                    id,
                    trade_id,
                    "the trade is being completed",
                    reference,
                    events,
                );
                None
            }
        }
    }

    fn trade_add(
        &mut self,
        id: &str,
        trade_id: &str,
        slot: i64,
        quantity: Option<i64>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some((side, _)) = self.on_screen(id, trade_id, reference, events) else {
            return;
        };
        let refuse = |code: &str, message: String, events: &mut Vec<Event>| {
            events.push(trade_error(id, code, message, Some(trade_id), reference));
        };
        let Some(index) = self.player_index.get(id).copied() else {
            return;
        };
        let offered = match self.offer_from_slot(index, slot, quantity, "traded") {
            Ok(offered) => offered,
            Err((code, message)) => return refuse(code, message, events),
        };
        let Some(trade) = self.trades.by_id.get_mut(trade_id) else {
            return;
        };
        trade.offers[side].put(offered);
        self.offer_changed(trade_id, events);
    }

    fn trade_remove(
        &mut self,
        id: &str,
        trade_id: &str,
        slot: i64,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some((side, _)) = self.on_screen(id, trade_id, reference, events) else {
            return;
        };
        let Some(trade) = self.trades.by_id.get_mut(trade_id) else {
            return;
        };
        if !trade.offers[side].take_back(slot) {
            events.push(trade_error(
                id,
                codes::INVALID_SLOT,
                format!("inventory slot {slot} is not in your offer"),
                Some(trade_id),
                reference,
            ));
            return;
        }
        self.offer_changed(trade_id, events);
    }

    fn trade_accept(
        &mut self,
        id: &str,
        trade_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some((side, stage)) = self.on_screen(id, trade_id, reference, events) else {
            return;
        };
        // An offer that no longer matches the inventory changes first (and resets acceptance).
        if self.check_offers(trade_id, events) {
            return;
        }
        let now = self.now();
        let Some(trade) = self.trades.by_id.get_mut(trade_id) else {
            return;
        };
        trade.accepted[side] = true;
        trade.deadline = now + INACTIVITY_TIMEOUT_TICKS;
        if trade.accepted != [true, true] {
            return self.show_trade(trade_id, events);
        }
        if stage == Stage::Screen1 {
            trade.stage = Stage::Screen2;
            trade.accepted = [false; 2];
            return self.show_trade(trade_id, events);
        }
        match self.plan_swap(trade_id) {
            Some((before, plan)) => {
                let Some(trade) = self.trades.by_id.get_mut(trade_id) else {
                    return;
                };
                trade.stage = Stage::Committing;
                trade.before = Some(before);
                trade.plan = Some(plan.clone());
                events.push(Event::TradeCommit(Box::new(plan)));
            }
            None => {
                let Some(trade) = self.trades.by_id.get_mut(trade_id) else {
                    return;
                };
                trade.accepted = [false; 2];
                for p in trade.players.clone() {
                    events.push(trade_error(
                        &p,
                        codes::INVENTORY_FULL,
                        "one of you cannot hold what they would receive",
                        Some(trade_id),
                        if p == id { reference } else { None },
                    ));
                }
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

    /// Drops or caps offered entries whose slot no longer holds what was offered; `true` (and an
    /// offer change) when any did.
    fn check_offers(&mut self, trade_id: &str, events: &mut Vec<Event>) -> bool {
        let Some(trade) = self.trades.by_id.get(trade_id) else {
            return false;
        };
        let mut fixed = trade.offers.clone();
        let mut changed = false;
        for (side, offer) in fixed.iter_mut().enumerate() {
            let Some(&index) = self.player_index.get(&trade.players[side]) else {
                continue;
            };
            changed |= offer.follow(&self.players[index].inventory);
        }
        if changed {
            if let Some(trade) = self.trades.by_id.get_mut(trade_id) {
                trade.offers = fixed;
            }
            self.offer_changed(trade_id, events);
        }
        changed
    }

    fn end_trade(&mut self, trade_id: &str) -> Option<Trade> {
        let trade = self.trades.by_id.remove(trade_id)?;
        for p in &trade.players {
            if self.trades.active.get(p).map(String::as_str) == Some(trade_id) {
                self.trades.active.remove(p);
            }
            if self.trades.outgoing.get(p).map(String::as_str) == Some(trade_id) {
                self.trades.outgoing.remove(p);
            }
        }
        Some(trade)
    }

    fn trade_cancel(
        &mut self,
        id: &str,
        trade_id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        if self.participant(id, trade_id, reference, events).is_none() {
            return;
        }
        if self.trades.by_id[trade_id].stage == Stage::Committing {
            return Self::not_on_screen(
                id,
                trade_id,
                "the trade is being completed",
                reference,
                events,
            );
        }
        if let Some(trade) = self.end_trade(trade_id) {
            for p in &trade.players {
                events.push(cancelled(p, trade_id, reasons::CANCELLED, Some(id)));
            }
        }
    }

    /// The database's answer for a committing trade.
    pub(crate) fn trade_committed(&mut self, trade_id: &str, ok: bool, events: &mut Vec<Event>) {
        if self
            .trades
            .by_id
            .get(trade_id)
            .is_none_or(|t| t.stage != Stage::Committing)
        {
            return;
        }
        let Some(trade) = self.end_trade(trade_id) else {
            return;
        };
        let (Some(before), Some(plan)) = (trade.before, trade.plan) else {
            return;
        };
        for (me, other) in [(0usize, 1usize), (1, 0)] {
            let player = &trade.players[me];
            let Some(&index) = self.player_index.get(player) else {
                // Left while committing: the server saves their record as the outcome says.
                continue;
            };
            if !ok {
                events.push(cancelled(player, trade_id, reasons::SERVER_ERROR, None));
                continue;
            }
            // Only the inventory the swap was planned on becomes the one written; a player who
            // left and came back already holds what the database says.
            if self.players[index].inventory == before[me] {
                self.players[index].inventory = plan.after[me].clone();
                self.players[index].dirty.inventory = true;
            }
            for stack in &plan.gives[me] {
                self.flow(FlowKind::Moved, "traded", &stack.item_id, stack.quantity);
            }
            events.push(message_for(
                player,
                ServerMessage::TradeCompleted(TradeCompleted {
                    trade_id: trade_id.to_owned(),
                    received_items: merged(&plan.gives[other]),
                }),
            ));
        }
    }

    /// A player leaves the world: their requests end and their trade ends with `disconnected`
    /// (a committing trade waits for its outcome).
    pub(crate) fn trade_player_left(&mut self, id: &str, events: &mut Vec<Event>) {
        self.end_trades_of(id, reasons::DISCONNECTED, events);
    }

    /// A player died: an active trade ends with `player_died`.
    pub(crate) fn trade_player_died(&mut self, id: &str, events: &mut Vec<Event>) {
        if let Some(trade_id) = self.trades.active.get(id).cloned() {
            if let Some(trade) = self.end_trade(&trade_id) {
                for p in &trade.players {
                    events.push(cancelled(p, &trade_id, reasons::PLAYER_DIED, None));
                }
            }
        }
    }

    fn end_trades_of(&mut self, id: &str, reason: &str, events: &mut Vec<Event>) {
        let involved: Vec<String> = self
            .trades
            .by_id
            .values()
            .filter(|t| t.side(id).is_some() && t.stage != Stage::Committing)
            .map(|t| t.id.clone())
            .collect();
        for trade_id in involved {
            if let Some(trade) = self.end_trade(&trade_id) {
                for p in trade.players.iter().filter(|p| *p != id) {
                    events.push(cancelled(p, &trade_id, reason, None));
                }
            }
        }
    }

    /// Each tick: expired requests and idle trades end; offers are checked against inventories.
    pub(crate) fn advance_trades(&mut self, events: &mut Vec<Event>) {
        if self.trades.by_id.is_empty() {
            return;
        }
        let now = self.now();
        let due: Vec<String> = self
            .trades
            .by_id
            .values()
            .filter(|t| t.stage != Stage::Committing && t.deadline <= now)
            .map(|t| t.id.clone())
            .collect();
        for trade_id in due {
            if let Some(trade) = self.end_trade(&trade_id) {
                let told: &[String] = if trade.stage == Stage::Requested {
                    &trade.players[..1]
                } else {
                    &trade.players[..]
                };
                for p in told {
                    events.push(cancelled(p, &trade_id, reasons::TIMEOUT, None));
                }
            }
        }
        let open: Vec<String> = self
            .trades
            .by_id
            .values()
            .filter(|t| matches!(t.stage, Stage::Screen1 | Stage::Screen2))
            .map(|t| t.id.clone())
            .collect();
        for trade_id in open {
            self.check_offers(&trade_id, events);
        }
    }
}
