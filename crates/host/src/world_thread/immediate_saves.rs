//! Bank operations, purchases and sales are answered only once they are durable. The tick that
//! changed a player's bank or inventory hands the record to the save task at once
//! (`Runner::save_at_once`) and from then on the player's messages are *held*, that tick's and
//! every later one's, in order, until the save's group has committed: then they go out as one
//! batch. When the save fails, the held messages (the `bank:update` or shop update that would
//! have told of a change that is not in the database) are dropped, the player is told `error
//! {code: "internal"}` and taken out of the world unsaved (close 1011), so the change is undone:
//! entering again loads the record as the database has it, where nothing moved. The outcome
//! comes back on this book's channel, as a trade's does, and is taken at the start of the next
//! tick.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::Arc;

use wayfarer_protocol::ws::ServerMessage;
use wayfarer_sim::Command;

use crate::online::Presence;

use super::{Outbound, Runner};

/// How long a tick on the manual clock waits for its immediate saves (3 attempts 500 ms apart
/// take about a second when the database fails them).
const MANUAL_SETTLE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// An immediate save's outcome: the characters it wrote, each with the session it was written
/// for, and whether it committed.
pub type ImmediateOutcome = (Vec<(String, String)>, bool);

/// Where an immediate save's outcome goes, and the (character, session) pairs it writes.
pub type ImmediateWaiters = (mpsc::Sender<ImmediateOutcome>, Vec<(String, String)>);

/// The players waiting for immediate saves, and the channel of the outcomes.
pub(super) struct ImmediateSaves {
    pub outcomes_tx: mpsc::Sender<ImmediateOutcome>,
    outcomes_rx: mpsc::Receiver<ImmediateOutcome>,
    /// By character: the saves not yet answered and the messages held behind them.
    waiting: HashMap<String, Held>,
}

/// A session's messages waiting for its saves. Keyed by session as well as character: a
/// connection replacing another must get neither the old one's held messages nor its outcomes.
struct Held {
    session: String,
    saves: u32,
    messages: Vec<Outbound>,
    /// Ticks whose messages are in `messages`.
    ticks: usize,
}

impl Default for ImmediateSaves {
    fn default() -> Self {
        let (outcomes_tx, outcomes_rx) = mpsc::channel();
        ImmediateSaves {
            outcomes_tx,
            outcomes_rx,
            waiting: HashMap::new(),
        }
    }
}

impl ImmediateSaves {
    /// A save of `sessions` (character, session) was handed to the save task: their messages
    /// wait for it.
    pub fn begin(&mut self, sessions: &[(String, String)]) {
        for (id, session) in sessions {
            let fresh = || Held {
                session: session.clone(),
                saves: 0,
                messages: Vec::new(),
                ticks: 0,
            };
            let held = self.waiting.entry(id.clone()).or_insert_with(fresh);
            if held.session != *session {
                // The session that waited is gone; what it held was for its closed socket.
                *held = fresh();
            }
            held.saves += 1;
        }
    }

    /// Whether the messages of `id` in `session` wait for a save.
    pub fn is_waiting(&self, id: &str, session: &str) -> bool {
        self.waiting.get(id).is_some_and(|h| h.session == session)
    }

    /// Keeps a tick's `messages` for `id`, behind the save it waits for
    /// ([`ImmediateSaves::is_waiting`]); `true` when it now holds more ticks than a connection's
    /// queue does ([`OUTBOUND_QUEUE`](super::OUTBOUND_QUEUE)): a database that does not answer
    /// makes the player a slow client, as a socket that does not drain does, rather than grow
    /// its held messages without bound.
    pub fn hold(&mut self, id: &str, messages: Vec<Outbound>) -> bool {
        let Some(held) = self.waiting.get_mut(id) else {
            return false;
        };
        held.messages.extend(messages);
        held.ticks += 1;
        held.ticks > super::OUTBOUND_QUEUE
    }

    /// One save of `id` in `session` answered: its held messages when none is left to wait for.
    fn settle(&mut self, id: &str, session: &str) -> Option<Vec<Outbound>> {
        let held = self.waiting.get_mut(id).filter(|h| h.session == session)?;
        held.saves = held.saves.saturating_sub(1);
        if held.saves > 0 {
            return None;
        }
        self.waiting.remove(id).map(|h| h.messages)
    }

    /// Whether any message waits for a save.
    fn any_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Forgets whatever `id` waited for in `session` (its save failed).
    fn forget(&mut self, id: &str, session: &str) {
        if self.waiting.get(id).is_some_and(|h| h.session == session) {
            self.waiting.remove(id);
        }
    }
}

impl Runner {
    /// Takes the outcomes of immediate saves: a committed one releases its players' messages, a
    /// failed one takes its players out of the world unsaved.
    pub(super) fn take_immediate_outcomes(&mut self) {
        while let Ok((ids, ok)) = self.immediate.outcomes_rx.try_recv() {
            if ok {
                self.release_held(&ids);
            } else {
                self.drop_unsaved(&ids);
            }
        }
    }

    /// On the manual clock (tests), waits for this tick's immediate saves before the tick ends,
    /// so their messages go out in the tick that made them whatever the database's pace: a
    /// stepped world's messages are a function of its steps (the agent bench's runs of one seed
    /// give identical reports; `expect_within_ticks` counts ticks, not time). A timed world never
    /// waits: it takes the outcomes at its next tick.
    pub(super) fn settle_immediate_on_manual_clock(&mut self) {
        if !self.context.manual {
            return;
        }
        let settled = super::clock::drain_in_flight(
            self,
            MANUAL_SETTLE_WAIT,
            |runner| &runner.immediate.outcomes_rx,
            |runner| runner.immediate.any_waiting(),
            |runner, (sessions, ok)| {
                if ok {
                    runner.release_held(&sessions);
                } else {
                    runner.drop_unsaved(&sessions);
                }
            },
        );
        if !settled {
            tracing::error!("no outcome for immediate saves on the manual clock; their messages wait for a later tick");
        }
    }

    fn release_held(&mut self, sessions: &[(String, String)]) {
        let mut wakers = Vec::new();
        for (id, session) in sessions {
            let Some(messages) = self.immediate.settle(id, session) else {
                continue;
            };
            let Some(record) = self.players.get(id).filter(|r| r.session_id == *session) else {
                continue;
            };
            if messages.is_empty() {
                continue;
            }
            match record.outbound.try_send_unwoken(Outbound::Batch(messages)) {
                Ok(()) => wakers.push(record.outbound.waker()),
                Err(crate::outbound_queue::TrySendError::Full) => {
                    tracing::warn!(character = %id, "outbound queue full: disconnecting a slow client");
                    metrics::counter!("ws_slow_client_disconnects_total").increment(1);
                    let _ = record
                        .outbound
                        .try_send(Outbound::Close(1008, super::TOO_SLOW));
                    let session_id = record.session_id.clone();
                    self.leave(id, &session_id, "slow_client", None);
                }
                Err(crate::outbound_queue::TrySendError::Closed) => {}
            }
        }
        self.wake(wakers);
    }

    /// The save of `ids` failed: the change it held is not durable, so the players leave the world
    /// unsaved (the database still has them as before it) after hearing why; what they were about
    /// to be told is dropped.
    fn drop_unsaved(&mut self, sessions: &[(String, String)]) {
        let error = Arc::new(ServerMessage::error(
            "internal",
            "your last change could not be saved and was undone; enter again",
            None,
        ));
        for (id, session) in sessions {
            self.immediate.forget(id, session);
            // A newer session of the character loaded the record from the database: it keeps it.
            if self
                .players
                .get(id)
                .is_none_or(|r| r.session_id != *session)
            {
                continue;
            }
            let Some(record) = self.players.remove(id) else {
                continue;
            };
            tracing::error!(character = %id, "an immediate save failed: the player leaves unsaved");
            self.commands.push(Command::Leave { id: id.clone() });
            self.presence.push(Presence::Left(id.clone()));
            let _ = record.outbound.try_send(Outbound::Message(error.clone()));
            let _ = record
                .outbound
                .try_send(Outbound::Close(1011, "save failed"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Outbound {
        Outbound::Text(Arc::from(s))
    }

    #[test]
    fn messages_wait_for_every_save_of_their_session_in_order() {
        let mut book = ImmediateSaves::default();
        let ada = ("ada".to_owned(), "s1".to_owned());
        book.begin(std::slice::from_ref(&ada));
        book.begin(std::slice::from_ref(&ada));
        assert!(book.is_waiting("ada", "s1"));
        assert!(!book.is_waiting("ada", "s2"), "another session of ada");
        assert!(!book.is_waiting("bob", "s1"));
        assert!(!book.hold("ada", vec![text("a")]));
        assert!(!book.hold("ada", vec![text("b")]));
        // Another session's outcome releases nothing.
        assert!(book.settle("ada", "s2").is_none());
        assert!(book.settle("ada", "s1").is_none(), "one save still open");
        let released = book.settle("ada", "s1").expect("both saves answered");
        let texts: Vec<&str> = released
            .iter()
            .map(|m| match m {
                Outbound::Text(t) => &**t,
                _ => "?",
            })
            .collect();
        assert_eq!(texts, ["a", "b"]);
        assert!(!book.any_waiting());
    }

    #[test]
    fn a_new_session_drops_what_the_old_one_held() {
        let mut book = ImmediateSaves::default();
        book.begin(&[("ada".into(), "old".into())]);
        book.hold("ada", vec![text("for the old socket")]);
        book.begin(&[("ada".into(), "new".into())]);
        assert!(book.settle("ada", "old").is_none());
        assert!(book.settle("ada", "new").expect("answered").is_empty());
    }

    #[test]
    fn holding_more_ticks_than_a_connection_queue_makes_a_slow_client() {
        let mut book = ImmediateSaves::default();
        book.begin(&[("ada".into(), "s".into())]);
        for _ in 0..crate::world_thread::OUTBOUND_QUEUE {
            assert!(!book.hold("ada", vec![text("tick")]));
        }
        assert!(book.hold("ada", vec![text("one tick too many")]));
        book.forget("ada", "s");
        assert!(!book.any_waiting());
    }
}
