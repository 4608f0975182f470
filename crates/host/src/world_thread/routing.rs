//! Routing the sim's events to connections. The dispatch of a tick hands each event to the books
//! (`bookkeeping.rs`: records, saves, metrics, economy, relay) and then its messages
//! (`messages.rs`, pure) to the players they are for: one batch per player per tick, queued
//! without waking anyone; the world thread's waking thread does the wake-ups.

use std::sync::Arc;

use wayfarer_protocol::ws::ServerMessage;
use wayfarer_sim::Event;

use crate::outbound_queue::{OutboundWaker, TrySendError};

use super::messages::{messages, Delivery, Reading};
use super::{now_ms, Outbound, Players, Runner, TOO_SLOW};

impl From<Arc<ServerMessage>> for Outbound {
    fn from(message: Arc<ServerMessage>) -> Self {
        Outbound::Message(message)
    }
}

/// Adds `message` to what player `to` gets at the end of this dispatch (see [`Runner::flush_pending`]).
pub(super) fn send_to(players: &Players, to: &str, message: impl Into<Outbound>) {
    if let Some(record) = players.get(to) {
        record.pending.borrow_mut().push(message.into());
    }
}

/// A message for many players, encoded once.
pub(super) fn encode_once(message: &ServerMessage) -> Outbound {
    Outbound::Text(encoded(message))
}

/// The frame text of a message, to share.
pub(super) fn encoded(message: &ServerMessage) -> Arc<str> {
    Arc::from(message.to_json())
}

impl Runner {
    /// The tick's events: each does what it asks of the books (`bookkeeping.rs`), then its
    /// messages (`messages.rs`) are added to their recipients' batches; then the saves the tick
    /// asked for at once are handed over, and every batch is queued.
    pub(super) fn dispatch(&mut self, events: Vec<Event>) {
        let content = Arc::clone(&self.context.content);
        let reading = Reading {
            content: &content,
            now_ms: now_ms(),
            tick_ms: i64::try_from(self.context.tick.as_millis()).unwrap_or(i64::MAX),
            world_id: self.context.global_chat.as_ref().map(|r| r.world_id()),
        };
        // Records to save at once, in one job (bank operations, purchases, sales).
        let mut save_now: Vec<String> = Vec::new();
        for event in events {
            self.keep_books(&event, &reading, &mut save_now);
            self.deliver(messages(event, &reading));
        }
        self.save_at_once(&save_now);
        self.save_deaths();
        for (to, message) in std::mem::take(&mut self.notices) {
            let text = encode_once(&message);
            for id in &to {
                // A player waiting to enter gets it after the tick it enters in (`admission.rs`).
                if !self.joins.hold_notice(id, &message) {
                    send_to(&self.players, id, text.clone());
                }
            }
        }
        let mut slow: Vec<String> = Vec::new();
        self.flush_pending(&mut slow);
        self.settle_immediate_on_manual_clock();
        // Players who left while trading and whose trade ended without committing.
        self.settle_deferred();
        // A client whose queue stays full is dropped; the tick never waits for it.
        for id in slow {
            if let Some(record) = self.players.get(&id) {
                tracing::warn!(character = %id, "outbound queue full: disconnecting a slow client");
                metrics::counter!("ws_slow_client_disconnects_total").increment(1);
                // The close travels out of band: the queue is full, so a closed channel is the signal.
                let _ = record.outbound.try_send(Outbound::Close(1008, TOO_SLOW));
            }
            if let Some(session_id) = self.players.get(&id).map(|r| r.session_id.clone()) {
                self.leave(&id, &session_id, "slow_client", None);
            }
        }
    }

    /// Adds an event's messages to their recipients' batches: a message for several players is
    /// encoded once, and a listener's local chat is one entry of its picks of the tick's lines.
    fn deliver(&self, delivery: Delivery) {
        match delivery {
            Delivery::Nothing => {}
            Delivery::One { to, message } => send_to(&self.players, &to, Arc::new(message)),
            Delivery::Many { to, message } => {
                let text = encode_once(&message);
                to.each(|id| send_to(&self.players, id, text.clone()));
            }
            Delivery::Everyone { except, message } => {
                // Every record, walked once, with no lookup per listener: only the few left out
                // are looked up, to mark them (`left_out` is cleared as the walk passes).
                for id in &except {
                    if let Some(record) = self.players.get(id.as_ref()) {
                        record.left_out.set(true);
                    }
                }
                let text = encode_once(&message);
                for record in self.players.values() {
                    if !record.left_out.replace(false) {
                        record.pending.borrow_mut().push(text.clone());
                    }
                }
            }
            Delivery::Lines { lines, heard } => {
                let texts: Arc<[Arc<str>]> = lines.iter().map(encoded).collect();
                // One lookup and one entry per listener, holding its picks of the lines.
                for listener in heard {
                    if let Some(record) = self.players.get(listener.to.as_ref()) {
                        record.pending.borrow_mut().push(Outbound::Picks {
                            texts: Arc::clone(&texts),
                            picks: listener.lines,
                        });
                    }
                }
            }
        }
    }

    /// Queues each player's messages of this dispatch as one batch, without waiting; a full queue
    /// marks the player slow (the tick never waits for a client). A player waiting for a bank or
    /// shop save has them held until it commits (`immediate_saves.rs`). The connections are woken
    /// when the tick ends ([`Runner::wake_dispatched`]), not here.
    pub(super) fn flush_pending(&mut self, slow: &mut Vec<String>) {
        let mut woken = std::mem::take(&mut self.dispatched);
        for (id, record) in &self.players {
            let mut pending = record.pending.borrow_mut();
            if !pending.is_empty() && self.immediate.is_waiting(id, &record.session_id) {
                if self.immediate.hold(id, std::mem::take(&mut *pending)) {
                    slow.push(id.clone());
                }
                continue;
            }
            let message = match pending.len() {
                0 => continue,
                // Taken, not popped: the emptied Vec would keep its room in every idle record.
                1 => std::mem::take(&mut *pending).pop(),
                // A busy player's next batch is likely about as long: room for it now saves
                // growing the list step by step (in a chatting crowd, ~40 messages a tick).
                n => Some(Outbound::Batch(std::mem::replace(
                    &mut *pending,
                    Vec::with_capacity(n),
                ))),
            };
            if let Some(message) = message {
                match record.outbound.try_send_unwoken(message) {
                    Ok(()) => woken.push(record.outbound.waker()),
                    Err(TrySendError::Full) => slow.push(id.clone()),
                    // A closed queue is a connection already leaving (its `Leave` is on the way),
                    // not a slow one.
                    Err(TrySendError::Closed) => {}
                }
            }
        }
        self.dispatched = woken;
    }

    /// Wakes the connections whose batches this tick queued, once the tick's own work is done:
    /// woken, they encode and write on the runtime's threads, which would otherwise take the
    /// cores from the rest of the tick (admissions, the online list, the saves handed over after) just
    /// when it runs: that tail took up to ~10 ms instead of ~0.5 in a 2,000-player crowd on two
    /// cores. A batch waits in its queue for the tick's last fraction of a millisecond instead.
    pub(super) fn wake_dispatched(&mut self) {
        let woken = std::mem::take(&mut self.dispatched);
        self.wake(woken);
    }

    /// Wakes the connections whose batches were queued, from the world thread's waking thread
    /// when there is one (see [`WorldThread::spawn`](super::WorldThread::spawn) and
    /// [`OutboundSender::try_send_unwoken`]), else here.
    pub(super) fn wake(&self, wakers: Vec<OutboundWaker>) {
        if wakers.is_empty() {
            return;
        }
        let unsent = match &self.wakes {
            Some(wakes) => match wakes.send(wakers) {
                Ok(()) => return,
                Err(unsent) => unsent.0,
            },
            None => wakers,
        };
        for waker in unsent {
            waker.wake();
        }
    }
}
