//! The test clock (`TICK_MS=manual`, tests only): the world ticks when it is told to, never on time.
//!
//! A step is an input like any other ([`WorldInput::Step`]), so it waits in the one inbound queue
//! behind what was queued before it: inputs already in the queue are in the first stepped tick. The
//! world answers the step once its ticks ran, their messages were queued to the connections and
//! their saves handed to the save task, with the tick number reached.
//!
//! Between steps a manual world takes its inputs as they come, as a timed world does between two
//! ticks: joins and leaves are booked, queries (a live record, the ground's totals, what is around a
//! player) and `player:sync` are answered at once, sim commands wait for the next step. What a timed
//! world answers "after the next tick" (notices, private messages to other worlds, a leave's final
//! save) waits for the next step.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use tokio::sync::oneshot;
use wayfarer_sim::World;

use super::{Runner, WorldInput, WorldSender, STOP_POLL};

/// Most ticks one step may ask for (the test route and the in-process handle alike): about ten
/// minutes of game time at the classic tick, and a bounded wait for whoever asked.
pub const MAX_TICKS_PER_STEP: u32 = 1_000;

/// How long a step waits for the world's answer before giving up (a stepped tick is milliseconds;
/// a world that does not answer has stopped or is stuck, and the caller hears so).
const STEP_WAIT: Duration = Duration::from_secs(120);

/// A request to run ticks on the manual clock.
pub struct Step {
    pub ticks: u32,
    /// The tick number reached once they ran.
    pub reply: oneshot::Sender<u64>,
}

/// Why a step was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// The world ticks on time (`TICK_MS` is a number): only a manual world is stepped.
    #[error("the world ticks on its own (TICK_MS is not manual)")]
    NotManual,
    /// More ticks than [`MAX_TICKS_PER_STEP`] at once.
    #[error("at most {MAX_TICKS_PER_STEP} ticks a step, not {0}")]
    TooMany(u32),
    /// The world did not take or answer the step (its queue is full, or it has stopped).
    #[error("the world did not answer the step")]
    Unavailable,
}

/// Drives a manual world (`RunningServer::clock`, `POST /__test/ticks`).
#[derive(Clone)]
pub struct TickClock {
    world: WorldSender,
    manual: bool,
}

impl TickClock {
    /// The clock of the world behind `world`; `manual` as configured (`TICK_MS=manual`).
    pub fn new(world: WorldSender, manual: bool) -> TickClock {
        TickClock { world, manual }
    }

    /// Whether the world ticks only when stepped.
    pub fn is_manual(&self) -> bool {
        self.manual
    }

    /// Runs `ticks` ticks (0 runs none and answers the tick the world is at) and returns the tick
    /// number reached, once those ticks ran, their messages were queued to the connections and
    /// their saves handed to the save task.
    pub async fn step(&self, ticks: u32) -> Result<u64, StepError> {
        if !self.manual {
            return Err(StepError::NotManual);
        }
        if ticks > MAX_TICKS_PER_STEP {
            return Err(StepError::TooMany(ticks));
        }
        let (reply, reached) = oneshot::channel();
        if !self.world.send(WorldInput::Step(Step { ticks, reply })) {
            return Err(StepError::Unavailable);
        }
        match tokio::time::timeout(STEP_WAIT, reached).await {
            Ok(Ok(tick)) => Ok(tick),
            _ => Err(StepError::Unavailable),
        }
    }
}

impl Runner {
    /// The manual clock's loop: wait for a step, taking inputs meanwhile; run its ticks, each
    /// taking the inputs queued before it; answer it. Steps that arrive while another runs are
    /// run after it, in order.
    pub(super) fn run_manual(
        mut self,
        rx: &super::inbound::InboundReceiver,
        stop: &AtomicBool,
    ) -> World {
        tracing::info!("world thread started on the manual clock: it ticks when a test steps it");
        let mut steps: VecDeque<Step> = VecDeque::new();
        'steps: loop {
            let step = match steps.pop_front() {
                Some(step) => step,
                None => loop {
                    if stop.load(Ordering::SeqCst) {
                        break 'steps;
                    }
                    match rx.recv_timeout(STOP_POLL) {
                        Ok(WorldInput::Step(step)) => break step,
                        Ok(input) => self.accept(input),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break 'steps,
                    }
                },
            };
            for _ in 0..step.ticks {
                // A step cut short by shutdown is not answered: its caller hears the world stopped.
                if stop.load(Ordering::SeqCst) || !self.tick_now(rx, Some(&mut steps)) {
                    break 'steps;
                }
            }
            let _ = step.reply.send(self.world.tick_number());
        }
        self.shutdown();
        tracing::info!(tick = self.world.tick_number(), "world thread stopped");
        self.world
    }
}

/// Takes what `rx` delivers, applying each with `apply`, while `in_flight` says commits are still
/// out, for at most `wait`: `false` when some were still out at the end. The manual clock's wait
/// for the database (a stepped tick ends only when its trades, duels and immediate saves are
/// answered, so a stepped world's messages do not depend on the database's pace); bounded, so a
/// save task that never answers delays a test, not hangs it.
pub(super) fn drain_in_flight<T>(
    runner: &mut Runner,
    wait: Duration,
    rx: fn(&Runner) -> &std::sync::mpsc::Receiver<T>,
    in_flight: fn(&Runner) -> bool,
    mut apply: impl FnMut(&mut Runner, T),
) -> bool {
    let deadline = std::time::Instant::now() + wait;
    while in_flight(runner) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx(runner).recv_timeout(left) {
            Ok(outcome) => apply(runner, outcome),
            Err(_) => return false,
        }
    }
    true
}
