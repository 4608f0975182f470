//! The join budget: at most `JOINS_PER_TICK` players enter the world in one tick; the others
//! wait in a queue, in the order their joins arrived, and enter in the next ticks. A mass join (a
//! restart: everyone reconnects at once) then spreads its first views, entry messages and
//! bookkeeping over many ticks instead of stretching one. The client has its `player:sync`
//! already (the connection sends it before joining); it waits a little longer for its first
//! `world:update`.
//!
//! A waiting player is not in the sim yet, but the connection does not know it: its commands are
//! held and go into the tick right behind its `Command::Join`, in the order they came, so nothing
//! it sent is lost or reordered; notices for it (its friends list) are held the same way and sent
//! after the tick it enters in; `player:sync` and the REST reads of a live record answer from the
//! loaded record; and a leave takes it out of the queue, closing its session (nothing changed, so
//! nothing is saved). A second join of the same character is refused while one waits, as while one
//! is in the world (see "One owner per character").
//!
//! The budget adapts on the timed clock (`next_budget`): while players wait and ticks take under a
//! twelfth of their period, it grows by `JOINS_PER_TICK` a tick up to `JOINS_PER_TICK_MAX`; a tick
//! over a sixth of its period halves it, never below `JOINS_PER_TICK`; with nobody waiting it
//! falls back towards the floor, so a sudden burst meets the small budget first. A restart's
//! players then come in as fast as the tick can take them without a slow tick, instead of at the
//! floor's fixed pace (10,000 in a minute at 100). The stepped clock of tests keeps the floor:
//! there a tick's wall time means nothing, and admissions stay deterministic.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use wayfarer_protocol::ws::ServerMessage;
use wayfarer_sim::{Command, Joining};

use crate::online::{Listing, Presence};
use crate::saver::SaveJob;

use super::{PlayerRecord, Runner};

/// A player waiting to enter: the record it will have, and what came for it meanwhile.
pub(super) struct Waiting {
    pub(super) record: PlayerRecord,
    joining: Box<Joining>,
    /// Its commands that arrived while it waited, in order.
    held: Vec<Command>,
    /// Notices for it that arrived while it waited, in order.
    notices: Vec<Arc<ServerMessage>>,
    /// Its place in the queue.
    number: u64,
}

/// The players waiting to enter, in arrival order.
#[derive(Default)]
pub(super) struct JoinQueue {
    /// Ids with the numbers of their joins: a place whose join left (and maybe came back later,
    /// with a later number) is skipped when reached.
    order: VecDeque<(String, u64)>,
    by_id: HashMap<String, Waiting, foldhash::fast::RandomState>,
    /// Joins queued so far, numbering them.
    queued: u64,
    /// Players taken in since the last tick ran.
    admitted: usize,
    /// This tick's budget (`next_budget`); 0 until the first tick sets it from the context.
    budget: usize,
}

/// The join budget after a tick that took `took` of its `period`: grows by `floor` while players
/// wait and the tick took under a twelfth of the period, halves (to no less than `floor`) once a
/// tick takes over a sixth or when nobody waits, else stays. At the 600 ms tick: grow below 50 ms,
/// shrink above 100 ms (the tick p99 the mass join must keep).
pub(super) fn next_budget(
    current: usize,
    floor: usize,
    ceiling: usize,
    took: Duration,
    period: Duration,
    waiting: bool,
) -> usize {
    let current = current.clamp(floor, ceiling.max(floor));
    if took > period / 6 || !waiting {
        (current / 2).max(floor)
    } else if took < period / 12 {
        current.saturating_add(floor).min(ceiling.max(floor))
    } else {
        current
    }
}

impl JoinQueue {
    pub(super) fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    pub(super) fn get(&self, id: &str) -> Option<&Waiting> {
        self.by_id.get(id)
    }

    pub(super) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Holds `command` for a waiting player; gives it back when its player is not waiting.
    pub(super) fn hold(&mut self, command: Command) -> Option<Command> {
        let waiting = command.player_id().and_then(|id| self.by_id.get_mut(id));
        match waiting {
            Some(waiting) => {
                waiting.held.push(command);
                None
            }
            None => Some(command),
        }
    }

    /// Holds a notice for `id` when it waits; `false` when it does not.
    pub(super) fn hold_notice(&mut self, id: &str, message: &Arc<ServerMessage>) -> bool {
        match self.by_id.get_mut(id) {
            Some(waiting) => {
                waiting.notices.push(Arc::clone(message));
                true
            }
            None => false,
        }
    }

    /// Whether `session_id` of character `id` is waiting to enter.
    pub(super) fn waits(&self, id: &str, session_id: &str) -> bool {
        self.by_id
            .get(id)
            .is_some_and(|w| w.record.session_id == session_id)
    }

    /// The next waiting player, in arrival order.
    fn next(&mut self) -> Option<Waiting> {
        while let Some((id, number)) = self.order.pop_front() {
            if self.by_id.get(&id).is_some_and(|w| w.number == number) {
                return self.by_id.remove(&id);
            }
        }
        None
    }

    /// Everyone still waiting (the world is stopping).
    pub(super) fn drain(&mut self) -> Vec<Waiting> {
        let mut all = Vec::with_capacity(self.by_id.len());
        while let Some(waiting) = self.next() {
            all.push(waiting);
        }
        all
    }
}

impl Runner {
    /// A join the world may take: it enters with the next tick when this tick's budget has room
    /// and nobody waits before it, else it queues.
    pub(super) fn join(&mut self, record: PlayerRecord, joining: Box<Joining>) {
        let waiting = Waiting {
            record,
            joining,
            held: Vec::new(),
            notices: Vec::new(),
            number: self.joins.queued,
        };
        if self.joins.by_id.is_empty() && self.joins.admitted < self.budget() {
            self.admit(waiting);
            return;
        }
        let id = waiting.record.snapshot.character.id.clone();
        self.joins.queued += 1;
        self.joins.order.push_back((id.clone(), waiting.number));
        self.joins.by_id.insert(id, waiting);
        metrics::gauge!("joins_waiting").set(self.joins.len() as f64);
    }

    /// This tick's join budget: the floor until a timed tick has set it.
    fn budget(&self) -> usize {
        self.joins.budget.max(self.context.joins_per_tick)
    }

    /// After a tick that took `took`: the budget is set anew (on the timed clock it adapts to the
    /// tick's pace, `next_budget`), and the players waiting longest enter with the next tick, as
    /// many as it allows.
    pub(super) fn admit_waiting(&mut self, took: Duration) {
        self.joins.budget = if self.context.manual {
            self.context.joins_per_tick
        } else {
            next_budget(
                self.budget(),
                self.context.joins_per_tick,
                self.context.joins_per_tick_max,
                took,
                self.context.tick,
                !self.joins.by_id.is_empty(),
            )
        };
        metrics::gauge!("joins_budget").set(self.joins.budget as f64);
        self.joins.admitted = 0;
        while self.joins.admitted < self.budget() {
            let Some(waiting) = self.joins.next() else {
                break;
            };
            self.admit(waiting);
        }
        metrics::gauge!("joins_waiting").set(self.joins.len() as f64);
    }

    /// Takes a player into the world with the next tick: its join, then what it sent meanwhile.
    fn admit(&mut self, waiting: Waiting) {
        let Waiting {
            mut record,
            joining,
            held,
            notices,
            ..
        } = waiting;
        let c = &record.snapshot.character;
        let id = c.id.clone();
        self.presence.push(Presence::Joined(
            id.clone(),
            Listing {
                account_id: c.account_id.clone(),
                name: c.name.clone(),
                tile: Arc::clone(&record.tile),
                combat_level: c.combat_level,
            },
        ));
        self.commands.push(Command::Join(joining));
        self.commands.extend(held);
        if !notices.is_empty() {
            self.notices
                .extend(notices.into_iter().map(|n| (vec![id.clone()], n)));
        }
        self.entered += 1;
        self.joins.admitted += 1;
        record.save_turn = self.entered;
        let cycle = self.save_cycle();
        self.save_turns.add(id.clone(), self.entered, cycle);
        self.players.insert(id, Box::new(record));
    }

    /// The leave of a player waiting to enter (see [`JoinQueue::waits`]): out of the queue, its
    /// session closed (its state is as loaded, so nothing to save); `done` fires once that is
    /// written.
    pub(super) fn leave_waiting(
        &mut self,
        id: &str,
        session_id: &str,
        reason: &'static str,
        done: Option<oneshot::Sender<bool>>,
    ) {
        // Its place in `order` is skipped when reached (see `next`): no scan of the queue here.
        self.joins.by_id.remove(id);
        metrics::gauge!("joins_waiting").set(self.joins.len() as f64);
        let job = SaveJob {
            sessions_to_close: vec![(session_id.to_owned(), reason)],
            done: done.into_iter().collect(),
            ..SaveJob::default()
        };
        if let Err(unsent) = self.send_job(job) {
            for done in unsent.0.done {
                let _ = done.send(false);
            }
        }
    }
}
