//! Joins and leaves: one owner per character. A leave runs in the tick after the connection's last
//! commands, its final save follows that tick, and a new session of the same character enters only
//! after that save (see docs/architecture.md, "One owner per character").

use std::collections::HashMap;

use tokio::sync::oneshot;
use wayfarer_sim::Command;

use crate::online::Presence;
use crate::outbound_queue::OutboundSender;
use crate::saver::SaveJob;

use super::{Outbound, PlayerRecord, Runner, CLOSE_TRY_AGAIN};

/// Most final saves of leaving players written in one transaction.
const LEAVES_PER_JOB: usize = 256;

/// A player who left while trading: saved once their trade is settled.
pub(super) struct DeferredLeave {
    pub(super) record: PlayerRecord,
    pub(super) done: Vec<oneshot::Sender<bool>>,
    pub(super) reason: &'static str,
}

/// A leave taken between ticks. The player's `Command::Leave` runs in the next tick after every
/// command their connection sent before leaving, and the final save is made from the record as
/// that tick left it (see [`Runner::finish_leaves`]): saving at once would write a state older than
/// commands already accepted, while the sim still applied them (a drop raced by a new connection
/// put the item on the ground and kept it in the saved inventory).
pub(super) struct PendingLeave {
    pub(super) reason: &'static str,
    /// Fired with whether the final save was written.
    pub(super) done: Vec<oneshot::Sender<bool>>,
}

impl Runner {
    /// A join for a character whose previous session is not yet saved (its record is still here,
    /// leaving, or waiting on a trade). The connection normally waits for that save before loading
    /// (`connections::wait_saved`), so this is the guard behind it: the database snapshot it loaded
    /// may be older than the live record, so it must not enter. Its socket closes with 1013.
    pub(super) fn refuse_join(&mut self, id: &str, session_id: &str, outbound: &OutboundSender) {
        tracing::warn!(character = %id, "a join arrived before the previous session was saved: refused");
        metrics::counter!("ws_joins_refused_total").increment(1);
        let _ = outbound.try_send(Outbound::Close(
            CLOSE_TRY_AGAIN,
            "the previous session is still being saved; try again",
        ));
        let job = SaveJob {
            sessions_to_close: vec![(session_id.to_owned(), "refused")],
            ..SaveJob::default()
        };
        let _ = self.send_job(job);
    }

    /// Takes a leave: the player's `Command::Leave` goes into the next tick behind the commands
    /// already queued, and their final save follows that tick (see [`PendingLeave`]).
    pub(super) fn leave(
        &mut self,
        id: &str,
        session_id: &str,
        reason: &'static str,
        done: Option<oneshot::Sender<bool>>,
    ) {
        if self.joins.waits(id, session_id) {
            self.leave_waiting(id, session_id, reason, done);
            return;
        }
        let owns_record = self
            .players
            .get(id)
            .is_some_and(|record| record.session_id == session_id);
        if !owns_record {
            // Never entered, refused, or already on its way out (a slow client's leave, a failed
            // save, a trade's deferred save): reported once the saves queued so far are written.
            match (self.deferred.get_mut(id), done) {
                (Some(deferred), Some(done)) if deferred.record.session_id == session_id => {
                    deferred.done.push(done)
                }
                (_, Some(done)) => self.after_queued_saves(done),
                (_, None) => {}
            }
            return;
        }
        let pending = self.leaving.entry(id.to_owned()).or_insert_with(|| {
            self.commands.push(Command::Leave { id: id.to_owned() });
            self.presence.push(Presence::Left(id.to_owned()));
            PendingLeave {
                reason,
                done: Vec::new(),
            }
        });
        pending.done.extend(done);
    }

    /// Final saves of the players who left in the tick just run: the sim has applied every command
    /// they sent before leaving and reported what it changed, so their records are final. They go
    /// to the save task together, [`LEAVES_PER_JOB`] to a transaction (everyone leaving at once, as
    /// before a restart, is a few jobs rather than one each).
    pub(super) fn finish_leaves(&mut self, leaving: HashMap<String, PendingLeave>) {
        let mut records = Vec::new();
        let mut done = Vec::new();
        for (id, leave) in leaving {
            match self.players.remove(&id).map(|record| *record) {
                Some(record)
                    if self.trades.is_held(&id)
                        || self.world.in_trade(&id)
                        || self.deferred.contains_key(&id) =>
                {
                    self.save_or_defer(record, leave.done, leave.reason)
                }
                Some(record) => {
                    records.push((record, leave.reason));
                    done.extend(leave.done);
                    if records.len() == LEAVES_PER_JOB {
                        self.save_leaves(std::mem::take(&mut records), std::mem::take(&mut done));
                    }
                }
                // Taken out meanwhile (a failed save): nothing of theirs is left to write.
                None => leave
                    .done
                    .into_iter()
                    .for_each(|done| self.after_queued_saves(done)),
            }
        }
        if !records.is_empty() {
            self.save_leaves(records, done);
        }
    }

    /// Fires `done` once every save job queued so far is written (the save task runs jobs in
    /// order), so a replacing connection never loads before a final save still in the queue.
    pub(super) fn after_queued_saves(&mut self, done: oneshot::Sender<bool>) {
        let job = SaveJob {
            done: vec![done],
            ..SaveJob::default()
        };
        if let Err(unsent) = self.send_job(job) {
            for done in unsent.0.done {
                let _ = done.send(false);
            }
        }
    }

    /// A leaving player's final save, unless a trade may still change their items: then it waits
    /// (see `trades.rs`) and happens once the trade ended or has its outcome.
    pub(super) fn save_or_defer(
        &mut self,
        record: PlayerRecord,
        done: Vec<oneshot::Sender<bool>>,
        reason: &'static str,
    ) {
        let id = record.snapshot.character.id.clone();
        if self.trades.is_held(&id) || self.world.in_trade(&id) {
            if let Some(earlier) = self.deferred.remove(&id) {
                // Two leaves of one character: the newer record is the one to keep.
                self.save_now(vec![earlier.record], earlier.done, earlier.reason);
            }
            self.deferred.insert(
                id,
                DeferredLeave {
                    record,
                    done,
                    reason,
                },
            );
            return;
        }
        self.save_now(vec![record], done, reason);
    }

    /// Saves deferred leaves whose player is no longer in a trade that could change their items.
    pub(super) fn settle_deferred(&mut self) {
        let ready: Vec<String> = self
            .deferred
            .keys()
            .filter(|id| !self.trades.is_held(id) && !self.world.in_trade(id))
            .cloned()
            .collect();
        for id in ready {
            if let Some(leave) = self.deferred.remove(&id) {
                self.save_now(vec![leave.record], leave.done, leave.reason);
            }
        }
    }
}
