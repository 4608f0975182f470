//! The `trade` scenario's logic, free of sockets: who trades with whom, what a bot says to each
//! trade message (CONTRACT.md section 5), what it counts, and the coins it holds.
//!
//! Bots are paired: bot `2k` (the requester) trades with bot `2k + 1` (the responder); with an odd
//! number of bots the last one has no partner and only probes. One cycle:
//!
//! 1. the requester sends `tradeRequest {targetPlayerId}` (its partner's character id, shared
//!    through the generator once the partner has entered);
//! 2. the responder answers `tradeIncoming` with `tradeRequestRespond {tradeId, accept: true}`;
//! 3. on `tradeStarted` each offers one coin: `tradeAddItem {tradeId, inventorySlot, quantity: 1}`,
//!    the slot being where its last `player:sync` or `inventory:update` showed its coins;
//! 4. each sends `tradeAccept` once on the first `tradeUpdated` that shows both offers, and once on
//!    `tradeConfirmScreen`;
//! 5. on `tradeCompleted` the requester records the trade's duration (request sent → completed) and
//!    requests the next trade after [`NEXT_TRADE_AFTER`].
//!
//! A `tradeCancelled` or `tradeError` is counted by reason or code; an error about the open trade
//! cancels it (`tradeCancel`), and the cycle starts again after [`RETRY_AFTER`]. A cycle without
//! progress for [`STALL_TIMEOUT`] is counted as a stall, cancelled and restarted, so a bot never
//! wedges.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use tokio::time::Instant;
use wayfarer_protocol::trade::{
    Offer, TradeAddItem, TradeCancelled, TradeConfirmScreen, TradeError, TradeIdOnly,
    TradeIncoming, TradeRequest, TradeRequestRespond, TradeStarted, TradeUpdated,
};
use wayfarer_protocol::ws::ClientMessage;

use super::scenario::Rng;
use super::stats::{bump, TradeStats};
use super::Scenario;

/// The requester's pause between a completed trade and its next request.
pub const NEXT_TRADE_AFTER: (Duration, Duration) = (Duration::ZERO, Duration::from_millis(200));
/// `trade-pairs`: the next request as soon as the last trade completed.
pub const NEXT_TRADE_AT_ONCE: (Duration, Duration) = (Duration::ZERO, Duration::ZERO);

/// The requester's pause between a completed trade and its next request in `scenario`.
pub fn next_pause(scenario: Scenario) -> (Duration, Duration) {
    if scenario == Scenario::TradePairs {
        NEXT_TRADE_AT_ONCE
    } else {
        NEXT_TRADE_AFTER
    }
}

/// The requester's pause after a cancelled or refused trade before it asks again.
pub const RETRY_AFTER: (Duration, Duration) =
    (Duration::from_millis(500), Duration::from_millis(1000));
/// How often a requester whose partner has not entered yet looks again.
pub const PARTNER_POLL: Duration = Duration::from_millis(100);
/// A trade cycle with no trade message for this long is a stall: cancelled and started again.
/// (A trade takes about six ticks, 3.6 s at the default 600 ms.)
pub const STALL_TIMEOUT: Duration = Duration::from_secs(20);
/// The item a trading bot offers.
pub const COINS: &str = "coins";

/// A bot's part in its pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Bot `2k`: asks bot `2k + 1` to trade.
    Requester,
    /// Bot `2k + 1`: accepts bot `2k`'s requests.
    Responder,
    /// The last bot of an odd count: nobody to trade with.
    Unpaired,
}

impl Role {
    /// The role of bot `index` out of `bots`.
    pub fn of(index: usize, bots: usize) -> Role {
        match partner_of(index, bots) {
            None => Role::Unpaired,
            Some(_) if index.is_multiple_of(2) => Role::Requester,
            Some(_) => Role::Responder,
        }
    }
}

/// The other bot of `index`'s pair, if it has one.
pub fn partner_of(index: usize, bots: usize) -> Option<usize> {
    let partner = index ^ 1;
    (index < bots && partner < bots).then_some(partner)
}

/// The coins a bot holds, as the server last told it, and where they are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purse {
    /// Coins in the first inventory seen (the entry `player:sync`).
    pub start: Option<i64>,
    /// Coins in the latest inventory seen.
    pub now: Option<i64>,
    /// The slot of the (first) coin stack in the latest inventory.
    pub slot: Option<i64>,
}

#[derive(Deserialize)]
struct Frame<T> {
    data: T,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Slot {
    slot: i64,
    item_id: String,
    quantity: i64,
}

#[derive(Deserialize)]
struct WithInventory {
    #[serde(default)]
    inventory: Option<Vec<Slot>>,
}

impl Purse {
    /// Learns from a `player:sync` or `inventory:update` frame (both carry `inventory`); other
    /// frames, or frames without an inventory, change nothing.
    pub fn learn(&mut self, text: &str) {
        let Ok(frame) = serde_json::from_str::<Frame<WithInventory>>(text) else {
            return;
        };
        let Some(slots) = frame.data.inventory else {
            return;
        };
        let coins: i64 = slots
            .iter()
            .filter(|s| s.item_id == COINS)
            .map(|s| s.quantity)
            .sum();
        self.slot = slots
            .iter()
            .filter(|s| s.item_id == COINS)
            .map(|s| s.slot)
            .min();
        self.now = Some(coins);
        self.start.get_or_insert(coins);
    }
}

/// A message for the server.
pub type Outgoing = ClientMessage;

fn data<T: DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_str::<Frame<T>>(text).ok().map(|f| f.data)
}

/// Where a bot is in its trade cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// No trade; the requester asks at `next` (when set).
    Idle { next: Option<Instant> },
    /// The requester asked and waits for `tradeStarted`.
    Requested,
    /// The responder accepted `trade` and waits for `tradeStarted`.
    Answered { trade: String },
    /// In trade `trade` (Screen 1 or 2).
    Open {
        trade: String,
        /// `tradeAccept` sent on Screen 1, and on Screen 2.
        accepted: [bool; 2],
    },
}

/// One bot's trading: feed it the frames it receives and the moments it is due, send what it
/// returns.
#[derive(Debug)]
pub struct Trader {
    role: Role,
    phase: Phase,
    /// When the current request went out (the requester's trade duration starts there).
    requested_at: Option<Instant>,
    /// The last trade message or action of the current cycle (for the stall check).
    progress_at: Instant,
    /// Completions from this moment on count towards the steady rate.
    steady_from: Instant,
    /// The pause between a completed trade and the next request.
    next_pause: (Duration, Duration),
    /// What it counted.
    pub stats: TradeStats,
}

impl Trader {
    /// A bot of `role` that entered at `now`; a requester asks at once.
    pub fn new(role: Role, now: Instant, steady_from: Instant) -> Trader {
        let next = (role == Role::Requester).then_some(now);
        Trader {
            role,
            phase: Phase::Idle { next },
            requested_at: None,
            progress_at: now,
            steady_from,
            next_pause: NEXT_TRADE_AFTER,
            stats: TradeStats::default(),
        }
    }

    /// This trader with `pause` between a completed trade and the next request.
    pub fn with_next_pause(mut self, pause: (Duration, Duration)) -> Trader {
        self.next_pause = pause;
        self
    }

    /// When [`Trader::due`] should next be called: the next request, or the stall check.
    pub fn due_at(&self) -> Option<Instant> {
        match &self.phase {
            Phase::Idle { next } => *next,
            _ if self.role == Role::Unpaired => None,
            _ => Some(self.progress_at + STALL_TIMEOUT),
        }
    }

    /// Its moment came (see [`Trader::due_at`]): request a trade when the partner is known (else
    /// look again soon), or give up a stalled cycle.
    pub fn due(&mut self, now: Instant, partner: Option<&str>, rng: &mut Rng) -> Vec<Outgoing> {
        match &self.phase {
            Phase::Idle { next } => {
                if next.is_none_or(|at| at > now) || self.role != Role::Requester {
                    return Vec::new();
                }
                let Some(partner) = partner else {
                    self.phase = Phase::Idle {
                        next: Some(now + PARTNER_POLL),
                    };
                    return Vec::new();
                };
                self.phase = Phase::Requested;
                self.requested_at = Some(now);
                self.progress_at = now;
                vec![ClientMessage::TradeRequest(TradeRequest {
                    target_player_id: partner.to_owned(),
                })]
            }
            _ if now < self.progress_at + STALL_TIMEOUT => Vec::new(),
            phase => {
                self.stats.stalls += 1;
                let out = match phase {
                    Phase::Answered { trade } | Phase::Open { trade, .. } => vec![cancel(trade)],
                    _ => Vec::new(),
                };
                self.restart(now, RETRY_AFTER, rng);
                out
            }
        }
    }

    /// Back to idle; the requester asks again after a pause drawn from `pause`.
    fn restart(&mut self, now: Instant, pause: (Duration, Duration), rng: &mut Rng) {
        let next = (self.role == Role::Requester).then(|| now + rng.duration(pause));
        self.phase = Phase::Idle { next };
        self.requested_at = None;
        self.progress_at = now;
    }

    /// The trade in progress, if any.
    fn trade_id(&self) -> Option<&str> {
        match &self.phase {
            Phase::Answered { trade } | Phase::Open { trade, .. } => Some(trade),
            _ => None,
        }
    }

    /// Reacts to a received frame of type `kind`; `purse` says where the coins are.
    pub fn receive(
        &mut self,
        kind: &str,
        text: &str,
        purse: &Purse,
        now: Instant,
        rng: &mut Rng,
    ) -> Vec<Outgoing> {
        match kind {
            "tradeIncoming" => {
                let Some(incoming) = data::<TradeIncoming>(text) else {
                    return Vec::new();
                };
                if self.role != Role::Responder || self.trade_id().is_some() {
                    // Not ours to accept (only the responder is asked, one trade at a time).
                    return Vec::new();
                }
                self.phase = Phase::Answered {
                    trade: incoming.trade_id.clone(),
                };
                self.progress_at = now;
                vec![ClientMessage::TradeRequestRespond(TradeRequestRespond {
                    trade_id: incoming.trade_id,
                    accept: true,
                })]
            }
            "tradeStarted" => {
                let Some(started) = data::<TradeStarted>(text) else {
                    return Vec::new();
                };
                self.phase = Phase::Open {
                    trade: started.trade_id.clone(),
                    accepted: [false; 2],
                };
                self.progress_at = now;
                match purse.slot {
                    Some(slot) => vec![ClientMessage::TradeAddItem(TradeAddItem {
                        trade_id: started.trade_id,
                        inventory_slot: slot.into(),
                        quantity: Some(1),
                    })],
                    None => {
                        bump(&mut self.stats.errors, "no coins to offer");
                        vec![cancel(&started.trade_id)]
                    }
                }
            }
            "tradeUpdated" => {
                let Some(updated) = data::<TradeUpdated>(text) else {
                    return Vec::new();
                };
                let settled = offers_settled(&updated.my_offer, &updated.their_offer);
                self.accept(&updated.trade_id, 0, settled, now)
            }
            "tradeConfirmScreen" => {
                let Some(confirm) = data::<TradeConfirmScreen>(text) else {
                    return Vec::new();
                };
                self.accept(&confirm.trade_id, 1, true, now)
            }
            "tradeCompleted" => {
                if self.role == Role::Requester {
                    self.stats.completed += 1;
                    if now >= self.steady_from {
                        self.stats.completed_steady += 1;
                    }
                    if let Some(at) = self.requested_at {
                        self.stats
                            .durations
                            .record(now.saturating_duration_since(at));
                    }
                }
                self.restart(now, self.next_pause, rng);
                Vec::new()
            }
            "tradeCancelled" => {
                let cancelled = data::<TradeCancelled>(text);
                let reason = cancelled
                    .as_ref()
                    .map_or("unreadable", |c| c.reason.as_str());
                bump(&mut self.stats.cancels, reason);
                // The requester learns a trade's id only when it starts: any cancel ends its
                // request. An open trade ends only with its own cancel (not a late one of an
                // earlier trade).
                let ends = match (&self.phase, &cancelled) {
                    (Phase::Requested, _) => true,
                    (Phase::Answered { trade } | Phase::Open { trade, .. }, Some(c)) => {
                        *trade == c.trade_id
                    }
                    _ => false,
                };
                if ends {
                    self.restart(now, RETRY_AFTER, rng);
                }
                Vec::new()
            }
            "tradeError" => {
                let error = data::<TradeError>(text);
                let code = error
                    .as_ref()
                    .map_or_else(|| "unreadable".to_owned(), |e| e.code.clone());
                bump(&mut self.stats.errors, &code);
                match (&self.phase, error.and_then(|e| e.trade_id)) {
                    // The request was refused: no trade to end.
                    (Phase::Requested, _) => {
                        self.restart(now, RETRY_AFTER, rng);
                        Vec::new()
                    }
                    // About the open trade: end it (its `tradeCancelled` restarts the cycle).
                    (Phase::Answered { trade } | Phase::Open { trade, .. }, Some(about))
                        if *trade == about =>
                    {
                        let out = vec![cancel(trade)];
                        self.restart(now, RETRY_AFTER, rng);
                        out
                    }
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// `tradeAccept` once per screen (`screen` 0 or 1) of the open trade `trade_id`, when `ready`.
    fn accept(
        &mut self,
        trade_id: &str,
        screen: usize,
        ready: bool,
        now: Instant,
    ) -> Vec<Outgoing> {
        let Phase::Open { trade, accepted } = &mut self.phase else {
            return Vec::new();
        };
        if trade != trade_id {
            return Vec::new();
        }
        self.progress_at = now;
        if !ready || accepted[screen] {
            return Vec::new();
        }
        accepted[screen] = true;
        vec![ClientMessage::TradeAccept(TradeIdOnly {
            trade_id: trade_id.to_owned(),
        })]
    }
}

/// Both offers hold something: the coins of both sides are in.
fn offers_settled(mine: &Offer, theirs: &Offer) -> bool {
    !mine.items.is_empty() && !theirs.items.is_empty()
}

fn cancel(trade_id: &str) -> Outgoing {
    ClientMessage::TradeCancel(TradeIdOnly {
        trade_id: trade_id.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn frame(kind: &str, data: Value) -> String {
        json!({ "type": kind, "data": data }).to_string()
    }

    fn purse() -> Purse {
        let mut purse = Purse::default();
        purse.learn(&frame(
            "player:sync",
            json!({"id": "c1", "inventory": [
                {"slot": 0, "itemId": "bronze_hatchet", "name": "Bronze hatchet", "quantity": 1},
                {"slot": 3, "itemId": "coins", "name": "Coins", "quantity": 25}
            ]}),
        ));
        purse
    }

    fn offer(items: usize) -> Value {
        let items: Vec<Value> = (0..items)
            .map(|_| json!({"inventorySlot": 3, "itemId": "coins", "name": "Coins", "quantity": 1}))
            .collect();
        json!({"items": items, "accepted": false})
    }

    fn kinds(out: &[Outgoing]) -> Vec<&'static str> {
        out.iter().map(ClientMessage::kind).collect()
    }

    /// Each message as its type and the `data` written on the wire.
    fn sent(out: &[Outgoing]) -> Vec<(&'static str, Value)> {
        out.iter()
            .map(|m| (m.kind(), serde_json::to_value(m).unwrap()["data"].take()))
            .collect()
    }

    #[test]
    fn bots_pair_up_even_with_odd() {
        assert_eq!(partner_of(0, 4), Some(1));
        assert_eq!(partner_of(1, 4), Some(0));
        assert_eq!(partner_of(3, 4), Some(2));
        assert_eq!(partner_of(4, 5), None, "the last of an odd count");
        assert_eq!(partner_of(0, 1), None);
        assert_eq!(partner_of(7, 4), None);
        assert_eq!(Role::of(2, 4), Role::Requester);
        assert_eq!(Role::of(3, 4), Role::Responder);
        assert_eq!(Role::of(4, 5), Role::Unpaired);
    }

    #[test]
    fn the_purse_follows_the_coins() {
        let mut purse = purse();
        assert_eq!(
            purse,
            Purse {
                start: Some(25),
                now: Some(25),
                slot: Some(3)
            }
        );
        // An update moves and changes them; the start stays.
        purse.learn(&frame(
            "inventory:update",
            json!({"inventory": [{"slot": 5, "itemId": "coins", "name": "Coins", "quantity": 24}], "coins": 24}),
        ));
        assert_eq!(
            (purse.start, purse.now, purse.slot),
            (Some(25), Some(24), Some(5))
        );
        // Frames without an inventory change nothing; an inventory without coins holds none.
        purse.learn(&frame("world:update", json!({"tick": 3, "added": []})));
        assert_eq!(purse.now, Some(24));
        purse.learn(&frame(
            "inventory:update",
            json!({"inventory": [], "coins": 0}),
        ));
        assert_eq!((purse.now, purse.slot), (Some(0), None));
    }

    #[test]
    fn a_whole_trade_cycle_from_both_sides() {
        let mut rng = Rng::seeded(1);
        let t0 = Instant::now();
        let purse = purse();
        let mut a = Trader::new(Role::Requester, t0, t0);
        let mut b = Trader::new(Role::Responder, t0, t0);
        assert_eq!(b.due_at(), None, "the responder waits to be asked");
        assert_eq!(a.due_at(), Some(t0));

        // The partner has not entered yet: look again soon.
        assert!(a.due(t0, None, &mut rng).is_empty());
        assert_eq!(a.due_at(), Some(t0 + PARTNER_POLL));
        let t1 = t0 + PARTNER_POLL;
        let out = a.due(t1, Some("c2"), &mut rng);
        assert_eq!(
            sent(&out),
            vec![("tradeRequest", json!({"targetPlayerId": "c2"}))]
        );
        assert_eq!(a.due_at(), Some(t1 + STALL_TIMEOUT));

        let incoming = frame(
            "tradeIncoming",
            json!({"tradeId": "trade-1", "fromPlayerId": "c1", "fromPlayerName": "B0"}),
        );
        let out = b.receive("tradeIncoming", &incoming, &purse, t1, &mut rng);
        assert_eq!(
            sent(&out),
            vec![(
                "tradeRequestRespond",
                json!({"tradeId": "trade-1", "accept": true})
            )]
        );

        let started = frame(
            "tradeStarted",
            json!({"tradeId": "trade-1", "partnerId": "c2", "partnerName": "B1"}),
        );
        for bot in [&mut a, &mut b] {
            let out = bot.receive("tradeStarted", &started, &purse, t1, &mut rng);
            assert_eq!(
                sent(&out),
                vec![(
                    "tradeAddItem",
                    json!({"tradeId": "trade-1", "inventorySlot": 3, "quantity": 1})
                )]
            );
        }

        // One offer in: not yet. Both in: accept, once.
        let half = frame(
            "tradeUpdated",
            json!({"tradeId": "trade-1", "myOffer": offer(1), "theirOffer": offer(0)}),
        );
        assert!(a
            .receive("tradeUpdated", &half, &purse, t1, &mut rng)
            .is_empty());
        let both = frame(
            "tradeUpdated",
            json!({"tradeId": "trade-1", "myOffer": offer(1), "theirOffer": offer(1)}),
        );
        let out = a.receive("tradeUpdated", &both, &purse, t1, &mut rng);
        assert_eq!(
            sent(&out),
            vec![("tradeAccept", json!({"tradeId": "trade-1"}))]
        );
        assert!(a
            .receive("tradeUpdated", &both, &purse, t1, &mut rng)
            .is_empty());
        // Another trade's update is not ours.
        let other = frame(
            "tradeUpdated",
            json!({"tradeId": "trade-9", "myOffer": offer(1), "theirOffer": offer(1)}),
        );
        assert!(b
            .receive("tradeUpdated", &other, &purse, t1, &mut rng)
            .is_empty());

        let confirm = frame(
            "tradeConfirmScreen",
            json!({"tradeId": "trade-1", "myOffer": offer(1), "theirOffer": offer(1),
                   "values": {"mine": 1, "theirs": 1}}),
        );
        let out = a.receive("tradeConfirmScreen", &confirm, &purse, t1, &mut rng);
        assert_eq!(kinds(&out), ["tradeAccept"]);
        assert!(a
            .receive("tradeConfirmScreen", &confirm, &purse, t1, &mut rng)
            .is_empty());

        let done = frame(
            "tradeCompleted",
            json!({"tradeId": "trade-1", "receivedItems": [{"itemId": "coins", "quantity": 1}]}),
        );
        let t2 = t1 + Duration::from_millis(300);
        assert!(a
            .receive("tradeCompleted", &done, &purse, t2, &mut rng)
            .is_empty());
        assert!(b
            .receive("tradeCompleted", &done, &purse, t2, &mut rng)
            .is_empty());
        assert_eq!(a.stats.completed, 1);
        assert_eq!(a.stats.completed_steady, 1);
        assert_eq!(
            b.stats.completed, 0,
            "a trade is counted once, by its requester"
        );
        assert_eq!(
            a.stats.durations.summary().p50,
            300.0,
            "request sent → completed"
        );
        // The next request comes within the pause.
        let next = a.due_at().unwrap();
        assert!(next >= t2 && next <= t2 + NEXT_TRADE_AFTER.1, "{next:?}");
        assert_eq!(b.due_at(), None);
        assert_eq!(kinds(&a.due(next, Some("c2"), &mut rng)), ["tradeRequest"]);
    }

    #[test]
    fn trade_pairs_ask_again_as_soon_as_a_trade_completed() {
        assert_eq!(next_pause(Scenario::TradePairs), NEXT_TRADE_AT_ONCE);
        assert_eq!(next_pause(Scenario::Trade), NEXT_TRADE_AFTER);
        let mut rng = Rng::seeded(3);
        let t0 = Instant::now();
        let purse = purse();
        let mut a = Trader::new(Role::Requester, t0, t0).with_next_pause(NEXT_TRADE_AT_ONCE);
        assert_eq!(kinds(&a.due(t0, Some("c2"), &mut rng)), ["tradeRequest"]);
        let done = frame(
            "tradeCompleted",
            json!({"tradeId": "trade-1", "receivedItems": []}),
        );
        let t1 = t0 + Duration::from_millis(700);
        assert!(a
            .receive("tradeCompleted", &done, &purse, t1, &mut rng)
            .is_empty());
        assert_eq!(a.due_at(), Some(t1), "no pause before the next request");
        assert_eq!(kinds(&a.due(t1, Some("c2"), &mut rng)), ["tradeRequest"]);
    }

    #[test]
    fn cancels_errors_and_stalls_restart_the_cycle() {
        let mut rng = Rng::seeded(2);
        let t0 = Instant::now();
        let purse = purse();
        let mut a = Trader::new(Role::Requester, t0, t0 + Duration::from_secs(60));
        assert_eq!(kinds(&a.due(t0, Some("c2"), &mut rng)), ["tradeRequest"]);

        // A refused request: counted, asked again after the retry pause.
        let refused = frame(
            "tradeError",
            json!({"code": "too_far", "message": "you must stand within 2 tiles"}),
        );
        assert!(a
            .receive("tradeError", &refused, &purse, t0, &mut rng)
            .is_empty());
        assert_eq!(a.stats.errors["too_far"], 1);
        let next = a.due_at().unwrap();
        assert!(next >= t0 + RETRY_AFTER.0 && next <= t0 + RETRY_AFTER.1);
        assert!(a.due(t0, Some("c2"), &mut rng).is_empty(), "not yet");

        // An error about the open trade cancels it.
        assert_eq!(kinds(&a.due(next, Some("c2"), &mut rng)), ["tradeRequest"]);
        let started = frame(
            "tradeStarted",
            json!({"tradeId": "trade-2", "partnerId": "c2", "partnerName": "B1"}),
        );
        a.receive("tradeStarted", &started, &purse, next, &mut rng);
        let error = frame(
            "tradeError",
            json!({"code": "not_on_screen", "message": "x", "tradeId": "trade-2"}),
        );
        let out = a.receive("tradeError", &error, &purse, next, &mut rng);
        assert_eq!(
            sent(&out),
            vec![("tradeCancel", json!({"tradeId": "trade-2"}))]
        );

        // A cancel: counted by reason.
        let cancelled = frame(
            "tradeCancelled",
            json!({"tradeId": "trade-2", "reason": "cancelled", "byPlayerId": "c1"}),
        );
        a.receive("tradeCancelled", &cancelled, &purse, next, &mut rng);
        assert_eq!(a.stats.cancels["cancelled"], 1);
        assert_eq!(a.stats.completed, 0);

        // A cycle that goes quiet is a stall: cancelled and started again.
        let at = a.due_at().unwrap();
        a.due(at, Some("c2"), &mut rng);
        a.receive("tradeStarted", &started, &purse, at, &mut rng);
        let stall = a.due_at().unwrap();
        assert_eq!(stall, at + STALL_TIMEOUT);
        assert!(a
            .due(stall - Duration::from_millis(1), Some("c2"), &mut rng)
            .is_empty());
        let out = a.due(stall, Some("c2"), &mut rng);
        assert_eq!(
            sent(&out),
            vec![("tradeCancel", json!({"tradeId": "trade-2"}))]
        );
        assert_eq!(a.stats.stalls, 1);
        assert!(a.due_at().unwrap() >= stall + RETRY_AFTER.0);

        // A completion before the steady window counts in the total only.
        a.receive(
            "tradeCompleted",
            &frame(
                "tradeCompleted",
                json!({"tradeId": "t", "receivedItems": []}),
            ),
            &purse,
            stall,
            &mut rng,
        );
        assert_eq!((a.stats.completed, a.stats.completed_steady), (1, 0));
    }

    #[test]
    fn a_bot_without_coins_cancels_instead_of_offering() {
        let mut rng = Rng::seeded(3);
        let t0 = Instant::now();
        let mut b = Trader::new(Role::Responder, t0, t0);
        let started = frame(
            "tradeStarted",
            json!({"tradeId": "trade-3", "partnerId": "c1", "partnerName": "B0"}),
        );
        let out = b.receive("tradeStarted", &started, &Purse::default(), t0, &mut rng);
        assert_eq!(kinds(&out), ["tradeCancel"]);
        assert_eq!(b.stats.errors["no coins to offer"], 1);
    }
}
