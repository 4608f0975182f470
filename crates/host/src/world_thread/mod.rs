//! The world thread: advances the sim every `TICK_MS` on a dedicated OS thread (never on the async
//! runtime), with drift correction. It owns the online players' records, turns socket messages into sim
//! commands, routes the sim's events into each connection's bounded outbound queue (a full queue
//! disconnects that client, it never slows the tick), publishes presence for REST, and hands dirty
//! characters to the save task. Timings go out through atomics and histograms that `/status` and
//! `/metrics` read without taking any lock the tick holds.
//!
//! This file holds the thread, its schedule and the tick; the submodules each hold one concern of it
//! (see docs/architecture.md, "The tick").

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc as tokio_mpsc, oneshot};
use wayfarer_content::Content;
use wayfarer_protocol::ws::{Player, ServerMessage};
use wayfarer_sim::{Command, Phase, World};
use wayfarer_store::CharacterSnapshot;

use crate::deaths::DeathBook;
use crate::online::{OnlinePlayers, Presence, TileCell};
use crate::outbound_queue::{OutboundSender, OutboundWaker};
use crate::player_view;
use crate::saver::SaveJob;

mod admission;
mod bookkeeping;
mod clock;
mod immediate_saves;
mod inbound;
mod inputs;
mod messages;
mod queries;
mod routing;
mod saves;
mod sessions;
mod trade_book;
mod trade_commits;

pub use clock::{Step, StepError, TickClock, MAX_TICKS_PER_STEP};
pub use immediate_saves::{ImmediateOutcome, ImmediateWaiters};
pub use queries::{
    admit_private_elsewhere, arena_fights, ground_totals, live_snapshot, surroundings, tally,
    NoAnswer, Surroundings, Tally,
};
use sessions::{DeferredLeave, PendingLeave};
use trade_book::TradeBook;
pub use trade_book::TradeOutcome;

/// Close code for a connection refused because the character's previous session is not saved yet
/// (RFC 6455 1013, "try again later").
pub const CLOSE_TRY_AGAIN: u16 = 1013;
/// The close reason of a client that does not read (its outbound queue stayed full, or a socket
/// write did not finish in time): its session closes as `slow_client`.
pub const TOO_SLOW: &str = "too slow";
/// Most inputs taken from the queue in one tick; the rest wait for the next, so a flood cannot
/// stretch a tick.
const MAX_INPUTS_PER_TICK: usize = 50_000;
/// Capacity of the inbound queue shared by every connection.
pub const INBOUND_QUEUE: usize = 65_536;
/// Capacity of each connection's outbound queue, in entries: a tick's messages for a player are one
/// entry (a batch), replies between ticks one each (up to 60 a second: the message rate). A client
/// that stops reading is dropped when it fills (within about a minute at 600 ms ticks, sooner
/// when it keeps asking).
pub const OUTBOUND_QUEUE: usize = 128;

/// A message for one connection.
#[derive(Debug, Clone)]
pub enum Outbound {
    Message(Arc<ServerMessage>),
    /// A message already encoded: one sent to many players (chat, hits, notices) is encoded once.
    Text(Arc<str>),
    /// Some of a tick's shared texts, in order: a listener's local chat lines are one entry
    /// holding the tick's lines once and the listener's picks (the sim's own list), rather than a
    /// reference-counted copy per line per listener (~37 lines to each of 2,000 players a tick).
    Picks {
        texts: Arc<[Arc<str>]>,
        picks: Vec<u32>,
    },
    /// Close the socket with this code and reason.
    Close(u16, &'static str),
    /// A `player:sync` reply, with what its timing needs (see [`TickStats::record_sync_reply`]).
    Reply {
        message: Arc<ServerMessage>,
        /// When the connection read the request.
        asked_at: Instant,
        /// How long the request waited for a running tick.
        tick_wait: Duration,
    },
    /// Everything one tick has for a player, in order: one queue slot, one wake-up and one socket
    /// write per player per tick instead of one per message.
    Batch(Vec<Outbound>),
}

/// What sockets and the server send to the world thread.
pub enum WorldInput {
    /// A player enters with their loaded state, what the sim needs of it (built from that state by
    /// the connection, off the tick: `character_state::joining`) and their outbound queue. At most
    /// `JOINS_PER_TICK` enter a tick; the others wait in order (`admission.rs`).
    Join {
        snapshot: Box<CharacterSnapshot>,
        joining: Box<wayfarer_sim::Joining>,
        session_id: String,
        outbound: OutboundSender,
    },
    /// A connection leaves. Only the session that owns the character's record takes it out of
    /// the world (a connection refused entry has nothing to take out); `done` fires once the final
    /// state is saved, with whether it was written.
    Leave {
        id: String,
        session_id: String,
        reason: &'static str,
        done: Option<oneshot::Sender<bool>>,
    },
    /// A command for the sim.
    Sim(Command),
    /// `player:sync`: the player's full state.
    Sync {
        id: String,
        /// When the connection read the request (for the reply's timing).
        asked_at: Instant,
    },
    /// Admin `/give`.
    Give {
        id: String,
        item_id: String,
        quantity: i64,
    },
    /// New content, applied at the next tick boundary.
    ReplaceContent(Arc<Content>),
    /// An online player's live record (what the sim has reported up to the last tick, with the
    /// tile written into the position), for REST routes that show a character; `None` when the
    /// character is not in the world. Answered between ticks.
    Snapshot {
        id: String,
        reply: oneshot::Sender<Option<Box<CharacterSnapshot>>>,
    },
    /// The units of each item lying on the ground outside death piles (whose items the store
    /// counts in their death locks), for the economy audit; answered between ticks.
    GroundTotals {
        reply: oneshot::Sender<Vec<(String, i64)>>,
    },
    /// The arena's fights not yet finished, each with its start time (ms since the epoch), for
    /// `GET /api/v1/arena/fights`; answered between ticks.
    ArenaFights {
        reply: oneshot::Sender<Vec<(wayfarer_sim::ArenaFight, i64)>>,
    },
    /// What is around an online player (its tile, inventory and the entities within a radius),
    /// for an agent's quick actions; `None` when it is not in the world. Answered between ticks.
    Surroundings {
        id: String,
        radius_tiles: i32,
        reply: oneshot::Sender<Option<Box<Surroundings>>>,
    },
    /// A private message to a player in another world, to count against the sender's chat
    /// limits (`World::admit_private_elsewhere`): answered after the next tick, so it counts
    /// after the lines the connection sent before it (and after the sender's entry).
    AdmitPrivateElsewhere {
        id: String,
        to: String,
        text: String,
        reply: oneshot::Sender<Result<String, Option<wayfarer_sim::Refusal>>>,
    },
    /// Messages for players who are online (others are skipped), sent after the next tick's
    /// events, so a player entering gets `player:sync` and `world:update` before them.
    Notify {
        to: Vec<String>,
        message: Arc<ServerMessage>,
    },
    /// Run ticks now (the manual clock only, see [`TickClock`]); a timed world refuses it.
    Step(Step),
    /// A character's kills and deaths since the world started (the manual clock only: a timed
    /// world answers an empty tally). Answered between ticks, once the trade and duel commits in
    /// flight are written (so what a caller reads from the store next includes them).
    Tally {
        id: String,
        reply: oneshot::Sender<queries::Tally>,
    },
}

/// The sending side of the inbound queue.
#[derive(Clone)]
pub struct WorldSender {
    tx: inbound::InboundSender,
}

impl WorldSender {
    /// Queues without waiting; `false` when the queue is full or the world has stopped.
    pub fn send(&self, input: WorldInput) -> bool {
        self.tx.try_send(input)
    }
}

use crate::tick_stats::{PhaseTimes, TickFigures, TickRecorder, PHASES};
pub use crate::tick_stats::{TickSnapshot, TickStats, WorldCounts};

/// What the world thread needs besides the world.
pub struct WorldContext {
    /// The tick length: the timed clock's period, and what counts time in ticks (the save cycle)
    /// on either clock.
    pub tick: Duration,
    /// `TICK_MS=manual`: the world ticks only when stepped ([`TickClock`]).
    pub manual: bool,
    pub save_interval: Duration,
    /// Most players taken into the world in one tick (`JOINS_PER_TICK`, see `admission.rs`).
    pub joins_per_tick: usize,
    /// The most the join budget grows to while ticks run fast and players wait
    /// (`JOINS_PER_TICK_MAX`; equal to `joins_per_tick`, the budget is fixed).
    pub joins_per_tick_max: usize,
    pub content: Arc<Content>,
    pub online: Arc<OnlinePlayers>,
    pub saves: tokio_mpsc::UnboundedSender<SaveJob>,
    /// Economy audit counters (shop trades, expired death piles).
    pub economy: Arc<crate::economy::EconomyCounters>,
    /// Where global lines said here go to reach the other worlds (`CROSS_WORLD_GLOBAL_CHAT`).
    pub global_chat: Option<crate::cluster::global_chat::GlobalChatRelay>,
    /// Ask for real-time priority for the timed world thread and its view helpers
    /// (`WORLD_THREAD_REALTIME`, `priority::make_current_thread_realtime`).
    pub realtime: bool,
}

/// The running world thread.
pub struct WorldThread {
    stats: Arc<TickStats>,
    sender: WorldSender,
    stop: Arc<AtomicBool>,
    join: Option<JoinHandle<World>>,
}

impl WorldThread {
    /// Starts ticking `world`.
    pub fn spawn(world: World, context: WorldContext) -> std::io::Result<WorldThread> {
        let stats = Arc::new(TickStats::default());
        let (tx, rx) = inbound::channel(INBOUND_QUEUE);
        let thread_stats = stats.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = stop.clone();
        // The thread that wakes connections for the world thread (see `Runner::wake`). A batch
        // thread: handing it a tick's wake-ups never preempts the world thread. (A task on the
        // runtime did this before; the runtime thread woken for it took the world thread's core
        // for 1-6 ms in one tick of seven in the 2,000-player mixed crowd.) It ends when the
        // world thread's runner, holding the sending end, is dropped.
        let (wakes, batches) = std::sync::mpsc::channel::<Vec<OutboundWaker>>();
        std::thread::Builder::new()
            .name("wakes".into())
            .spawn(move || {
                crate::priority::make_current_thread_batch();
                while let Ok(batch) = batches.recv() {
                    for waker in batch {
                        waker.wake();
                    }
                }
            })?;
        let join = std::thread::Builder::new().name("world".into()).spawn({
            move || {
                let mut runner = Runner::new(world, context, thread_stats);
                runner.wakes = Some(wakes);
                runner.run(&rx, &thread_stop)
            }
        })?;
        Ok(WorldThread {
            stats,
            sender: WorldSender { tx },
            stop,
            join: Some(join),
        })
    }

    /// The shared tick figures.
    pub fn stats(&self) -> Arc<TickStats> {
        self.stats.clone()
    }

    /// A sender for the inbound queue.
    pub fn sender(&self) -> WorldSender {
        self.sender.clone()
    }

    /// Stops after the current tick, saving every online player, and hands back the world. Blocks until
    /// the thread has finished; call from a blocking context.
    pub fn stop(mut self) -> Option<World> {
        // Connections hold senders too, so a closed channel cannot be the signal: a flag is, checked
        // at least every `STOP_POLL`.
        self.stop.store(true, Ordering::SeqCst);
        self.join.take().and_then(|j| j.join().ok())
    }
}

/// Every how many ticks the outbound queues' depths are read (3 s at the default 600 ms tick).
const OUTBOUND_SAMPLE_TICKS: u64 = 5;

/// How often a waiting world thread looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(50);

/// One online player's state held by the world thread.
struct PlayerRecord {
    snapshot: CharacterSnapshot,
    session_id: String,
    outbound: OutboundSender,
    dirty: bool,
    /// Which tick of the save cycle saves this player (see [`Runner::save_turn`]).
    save_turn: u64,
    /// This tick's messages for the player, queued as one batch when the dispatch ends.
    pending: RefCell<Vec<Outbound>>,
    /// Where the player stands, shared with the online list that REST reads (`online.rs`).
    tile: Arc<TileCell>,
    /// Marks the player as not getting the message to everyone being delivered (its `except`),
    /// for that delivery only (`routing.rs`): false at every other time.
    left_out: Cell<bool>,
}

/// The online players by character id. foldhash, not SipHash: ids are server-made UUIDs (nothing to
/// defend against), and dispatch looks one up for every recipient of every message. Records are
/// boxed: a table of 10,000 has 16,384 buckets, and an inline record (about 700 bytes) would keep
/// the empty ones' room resident too (issue 33: memory per idle player).
type Players = HashMap<String, Box<PlayerRecord>, foldhash::fast::RandomState>;

struct Runner {
    world: World,
    context: WorldContext,
    stats: Arc<TickStats>,
    players: Players,
    presence: Vec<Presence>,
    commands: Vec<Command>,
    recorder: TickRecorder,
    /// This tick's deaths, death-item takes and kills, written as one job.
    deaths: DeathBook,
    /// Notices for players, sent after the next dispatch.
    notices: Vec<(Vec<String>, Arc<ServerMessage>)>,
    /// This tick's phase durations in microseconds.
    phase_us: PhaseTimes,
    /// Committing trades, their held records and the channel of their outcomes.
    trades: TradeBook,
    /// Final saves of players who left while trading, until the trade is settled.
    deferred: HashMap<String, DeferredLeave>,
    /// Leaves taken since the last tick; their final saves follow the next tick.
    leaving: HashMap<String, PendingLeave>,
    /// Players waiting to enter (the join budget, `admission.rs`).
    joins: admission::JoinQueue,
    /// When the last tick ran (the wait it caused the requests that came in meanwhile).
    last_tick: TickSpan,
    /// Players entered, dealing out save turns in order.
    entered: u64,
    /// The online players by save turn (`saves.rs`).
    save_turns: saves::SaveTurns,
    /// The outbound queues' depths (fullest, total) at the last sample (`record_timing`).
    outbound_depths: (u64, u64),
    /// Players whose bank, shop or sale changes wait for their save, with their messages.
    immediate: immediate_saves::ImmediateSaves,
    /// To the thread that wakes connections after a dispatch (none in the unit tests' runners:
    /// they wake them here).
    wakes: Option<std::sync::mpsc::Sender<Vec<OutboundWaker>>>,
    /// The connections this tick's dispatch queued a batch for, woken when the tick ends
    /// ([`Runner::wake_dispatched`]).
    dispatched: Vec<OutboundWaker>,
    /// Private messages to other worlds waiting to be counted after the next tick.
    admissions: Vec<queries::Admission>,
    /// Kills and deaths by character since the start, kept on the manual clock only (the agent
    /// bench checks its tasks with them: `WorldInput::Tally`); a timed world counts them in the
    /// store alone.
    tally: Option<HashMap<String, queries::Tally>>,
}

impl Runner {
    fn new(mut world: World, context: WorldContext, stats: Arc<TickStats>) -> Self {
        // Fight ids must never repeat across restarts (the store keys finished fights, and later
        // wagers, by them): the process's start time, in base 36, prefixes them.
        world.set_arena_prefix(format!("fight-{}", base36(now_ms().max(0) as u64)));
        Self {
            world,
            stats,
            players: Players::default(),
            presence: Vec::new(),
            commands: Vec::new(),
            recorder: TickRecorder::default(),
            notices: Vec::new(),
            deaths: DeathBook::default(),
            phase_us: [0; PHASES.len()],
            last_tick: TickSpan::default(),
            entered: 0,
            save_turns: saves::SaveTurns::default(),
            outbound_depths: (0, 0),
            trades: TradeBook::default(),
            deferred: HashMap::new(),
            leaving: HashMap::new(),
            joins: admission::JoinQueue::default(),
            immediate: immediate_saves::ImmediateSaves::default(),
            wakes: None,
            dispatched: Vec::new(),
            admissions: Vec::new(),
            tally: context.manual.then(HashMap::new),
            context,
        }
    }

    fn run(self, rx: &inbound::InboundReceiver, stop: &AtomicBool) -> World {
        if self.context.manual {
            self.run_manual(rx, stop)
        } else {
            self.run_timed(rx, stop)
        }
    }

    /// Takes the inputs queued before a tick, at most [`MAX_INPUTS_PER_TICK`]; a step that comes
    /// meanwhile goes to `steps` (the manual clock's queue of them). `false` once every sender is
    /// gone.
    fn take_inputs(
        &mut self,
        rx: &inbound::InboundReceiver,
        mut steps: Option<&mut std::collections::VecDeque<clock::Step>>,
    ) -> bool {
        for _ in 0..MAX_INPUTS_PER_TICK {
            match rx.try_recv() {
                Ok(WorldInput::Step(step)) if steps.is_some() => {
                    if let Some(steps) = steps.as_deref_mut() {
                        steps.push_back(step);
                    }
                }
                Ok(input) => self.accept(input),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return false,
            }
        }
        true
    }

    /// Runs one tick now, taking first the inputs queued before it (their taking counts in the
    /// tick's time), and notes when it ran. `false` once every sender is gone (no tick ran).
    fn tick_now(
        &mut self,
        rx: &inbound::InboundReceiver,
        steps: Option<&mut std::collections::VecDeque<clock::Step>>,
    ) -> bool {
        let started = Instant::now();
        if !self.take_inputs(rx, steps) {
            return false;
        }
        self.step(started);
        self.last_tick = TickSpan {
            started,
            ended: Instant::now(),
        };
        true
    }

    /// The timed clock's loop: a tick every `TICK_MS`, inputs taken as they come between ticks.
    fn run_timed(mut self, rx: &inbound::InboundReceiver, stop: &AtomicBool) -> World {
        let tick = self.context.tick;
        if self.context.realtime {
            // Only on the timed clock: the manual one ticks when a test steps it.
            match crate::priority::make_current_thread_realtime() {
                Ok(()) => tracing::info!("world thread runs at real-time priority"),
                Err(error) => tracing::info!(
                    %error,
                    "world thread keeps the ordinary priority (real-time scheduling not allowed)"
                ),
            }
        }
        let mut next_deadline = Instant::now() + tick;
        tracing::info!(tick_ms = tick.as_millis() as u64, "world thread started");
        'ticks: loop {
            // Wait for the deadline, taking inputs as they come (cheap bookkeeping only).
            loop {
                if stop.load(Ordering::SeqCst) {
                    break 'ticks;
                }
                let wait = next_deadline.saturating_duration_since(Instant::now());
                if wait.is_zero() {
                    break;
                }
                match rx.recv_timeout(wait.min(STOP_POLL)) {
                    Ok(input) => self.accept(input),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break 'ticks,
                }
            }
            if !self.tick_now(rx, None) {
                break 'ticks;
            }

            // Drift correction: the schedule advances by whole ticks from its start. A tick that
            // starts more than a tick late is logged and the schedule re-based on now, so a stall
            // never turns into a burst of catch-up ticks.
            next_deadline += tick;
            let now = Instant::now();
            if now > next_deadline {
                let late_by = now - next_deadline;
                self.stats.count_late_tick();
                metrics::counter!("tick_late_total").increment(1);
                tracing::warn!(
                    tick = self.world.tick_number(),
                    late_ms = late_by.as_millis() as u64,
                    "late tick: schedule re-based"
                );
                next_deadline = now + tick;
            }
        }
        self.shutdown();
        tracing::info!(tick = self.world.tick_number(), "world thread stopped");
        self.world
    }

    fn step(&mut self, started: Instant) {
        self.take_trade_outcomes();
        self.take_immediate_outcomes();
        let commands = std::mem::take(&mut self.commands);
        // The leaves whose `Command::Leave` is in this tick (leaves taken during the dispatch
        // below, such as slow clients', go into the next).
        let leaving = std::mem::take(&mut self.leaving);
        let mut phase_started = started;
        let mut current: Option<Phase> = None;
        let mut phase_us: PhaseTimes = [0; PHASES.len()];
        let mut close = |done: Phase, now: Instant, since: Instant| {
            let elapsed = now - since;
            metrics::histogram!("tick_phase_ms", "phase" => phase_name(done))
                .record(elapsed.as_secs_f64() * 1000.0);
            phase_us[phase_index(done)] = elapsed.as_micros() as u64;
        };
        let mut observe = |next: Phase| {
            let now = Instant::now();
            if let Some(done) = current {
                close(done, now, phase_started);
            }
            current = Some(next);
            phase_started = now;
        };
        let events = self.world.tick_observed(commands, &mut observe);
        if let Some(done) = current {
            close(done, Instant::now(), phase_started);
        }
        let dispatch_started = Instant::now();
        self.dispatch(events);
        self.finish_leaves(leaving);
        self.answer_admissions();
        let dispatch = dispatch_started.elapsed();
        metrics::histogram!("tick_phase_ms", "phase" => PHASES[DISPATCH])
            .record(dispatch.as_secs_f64() * 1000.0);
        phase_us[DISPATCH] = dispatch.as_micros() as u64;

        let persist_started = Instant::now();
        // The next tick's newcomers (their presence goes out with this publish).
        self.admit_waiting(started.elapsed());
        self.context.online.try_publish(&mut self.presence);
        // The hand-offs come last: the connections to wake, then this turn's saves. A thread
        // woken here may take the world thread's core; whatever of the tick came after it would
        // wait for a core back (on two cores, a save handed over before the rest of the tail took
        // 1.5-7 ms in one tick of three to eight in the mixed crowd, ~50 us otherwise). The
        // wake-ups go to a batch thread, which never preempts on waking (see `WorldThread::spawn`).
        self.wake_dispatched();
        self.save_turn();
        let persist = persist_started.elapsed();
        metrics::histogram!("tick_phase_ms", "phase" => PHASES[PERSIST])
            .record(persist.as_secs_f64() * 1000.0);
        phase_us[PERSIST] = persist.as_micros() as u64;
        self.phase_us = phase_us;

        let elapsed = started.elapsed();
        self.record_timing(elapsed);
    }

    fn record_timing(&mut self, elapsed: Duration) {
        let counts = self.world.counts();
        // Queue depth = capacity used; a connection's queue only grows when its client reads slowly.
        // Read every `OUTBOUND_SAMPLE_TICKS` ticks, not every tick: each read locks every
        // connection's queue (2,000 locks a tick in a crowd, on the world thread between ticks),
        // and a gauge for the health page and the metrics needs no more.
        if self
            .world
            .tick_number()
            .is_multiple_of(OUTBOUND_SAMPLE_TICKS)
        {
            let (mut max, mut total) = (0u64, 0u64);
            for record in self.players.values() {
                let used = record.outbound.len() as u64;
                max = max.max(used);
                total += used;
            }
            self.outbound_depths = (max, total);
        }
        let (outbound_max, outbound_total) = self.outbound_depths;
        // Each tick's phases, for finding what makes the slowest ticks slow (the percentiles say
        // how slow, not why): `RUST_LOG=wayfarer_server::tick=debug`.
        let [input, npcs, movement, actions, view, dispatch, persist] = self.phase_us;
        tracing::debug!(
            target: "wayfarer_server::tick",
            tick = self.world.tick_number(),
            elapsed_us = elapsed.as_micros() as u64,
            input, npcs, movement, actions, view, dispatch, persist,
            players = self.players.len(),
            "tick"
        );
        self.recorder.record(
            &self.stats,
            TickFigures {
                number: self.world.tick_number(),
                elapsed_us: elapsed.as_micros() as u64,
                phases: self.phase_us,
                players: self.players.len() as u64,
                npcs: counts.npcs as u64,
                resources: counts.resources as u64,
                ground_items: counts.ground_items as u64,
                outbound_max,
                outbound_total,
            },
        );
        metrics::histogram!("tick_duration_ms").record(elapsed.as_secs_f64() * 1000.0);
        metrics::gauge!("tick_number").set(self.world.tick_number() as f64);
        metrics::gauge!("players_online").set(self.players.len() as f64);
        metrics::gauge!("ws_outbound_queue_max").set(outbound_max as f64);
        metrics::gauge!("ws_outbound_queue_total").set(outbound_total as f64);
    }

    fn player_sync(&self, record: &PlayerRecord) -> Player {
        let c = &record.snapshot.character;
        let live = self.world.player_tile_and_run_energy(&c.id);
        let tile = live
            .and_then(|(tile, _)| tile)
            .unwrap_or_else(|| player_view::tile_of(c.position));
        let mut sync = player_view::player(
            &self.context.content,
            &record.snapshot,
            player_view::centre_of(tile, c.position[1]),
            Some(tile),
            true,
        );
        // Run energy lives only in the sim (it is not saved): a sync asked for later reads it there.
        sync.stamina = live.map(|(_, energy)| energy).or(sync.stamina);
        // The home teleport's cooldown as the sim counts it, for a player online.
        if let Some(ticks) = self.world.home_teleport_cooldown_ticks(&c.id) {
            let ms = ticks.saturating_mul(wayfarer_content::ticks::TICK_MS);
            sync.home_teleport_cooldown = Some(ms.div_ceil(1000));
        }
        sync
    }

    /// Saves everyone still online as the world stops.
    fn shutdown(&mut self) {
        // Committing trades first get their outcome, so no record is written from before it.
        if !self.await_trade_outcomes(Duration::from_secs(30)) {
            tracing::error!(
                trades = self.trades.pending.len(),
                "no outcome for committing trades; their players are not saved again"
            );
        }
        let deferred: Vec<DeferredLeave> = self.deferred.drain().map(|(_, d)| d).collect();
        for leave in deferred {
            if !self.trades.is_held(&leave.record.snapshot.character.id) {
                self.save_now(vec![leave.record], leave.done, leave.reason);
            }
        }
        // Players still waiting to enter: nothing of theirs changed; their sessions close below.
        let waiting: Vec<PlayerRecord> = self.joins.drain().into_iter().map(|w| w.record).collect();
        // Leaves not yet ticked: their players are saved below with everyone else.
        let leaving_done: Vec<oneshot::Sender<bool>> = self
            .leaving
            .drain()
            .flat_map(|(_, leave)| leave.done)
            .collect();
        let held = &self.trades;
        let records: Vec<PlayerRecord> = self
            .players
            .drain()
            .map(|(_, r)| *r)
            .filter(|r| !held.is_held(&r.snapshot.character.id))
            // Written as loaded: the same state, and their sessions closed with everyone's.
            .chain(waiting)
            .collect();
        if !records.is_empty() {
            tracing::info!(
                players = records.len(),
                "saving every online player before stopping"
            );
            for record in &records {
                let _ = record
                    .outbound
                    .try_send(Outbound::Close(1001, "server shutting down"));
            }
        }
        // One job even with no records, so that the leaves' `done` fire after the saves before it;
        // it writes every changed world chunk with the times left as the world stops.
        self.world.persist_everything_next();
        self.save_now(records, leaving_done, "shutdown");
    }
}

fn phase_name(phase: Phase) -> &'static str {
    PHASES[phase_index(phase)]
}

/// The position in [`PHASES`] of the server's own phase after the sim's five: handing the tick's
/// events to the connections (with the leaves and admissions answered).
const DISPATCH: usize = Phase::ALL.len();
/// The position in [`PHASES`] of the server's last phase: admitting newcomers, publishing
/// presence, waking the connections and handing over the saves.
const PERSIST: usize = DISPATCH + 1;

/// The sim phase's position in [`PHASES`].
fn phase_index(phase: Phase) -> usize {
    match phase {
        Phase::Input => 0,
        Phase::Npcs => 1,
        Phase::Movement => 2,
        Phase::Actions => 3,
        Phase::View => 4,
    }
}

/// When a tick started and ended.
#[derive(Debug, Clone, Copy)]
struct TickSpan {
    started: Instant,
    ended: Instant,
}

impl Default for TickSpan {
    fn default() -> Self {
        let now = Instant::now();
        TickSpan {
            started: now,
            ended: now,
        }
    }
}

impl TickSpan {
    /// How long a request read at `asked_at` and answered after this tick waited for it: none if
    /// it came after the tick, else until the tick's end (from its start at most).
    fn wait_of(&self, asked_at: Instant) -> Duration {
        if asked_at >= self.ended {
            return Duration::ZERO;
        }
        self.ended - asked_at.max(self.started)
    }
}

fn now_ms() -> i64 {
    wayfarer_store::now_ms()
}

/// `n` in base 36 (lower case).
fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::saves::saves_now;
    use super::*;

    mod dispatch_counts;
    mod global_lines;

    #[test]
    fn a_request_waits_for_the_tick_it_came_in_during_and_no_other() {
        let started = Instant::now();
        let span = TickSpan {
            started,
            ended: started + Duration::from_millis(40),
        };
        assert_eq!(
            span.wait_of(started + Duration::from_millis(10)),
            Duration::from_millis(30)
        );
        assert_eq!(span.wait_of(started), Duration::from_millis(40));
        assert_eq!(span.wait_of(span.ended), Duration::ZERO);
        assert_eq!(
            span.wait_of(span.ended + Duration::from_millis(5)),
            Duration::ZERO
        );
    }

    #[test]
    fn every_timed_phase_has_its_own_place_under_its_own_name() {
        for phase in Phase::ALL {
            assert_eq!(phase_name(phase), phase.name());
        }
        assert_eq!(PHASES[DISPATCH], "dispatch");
        assert_eq!(PHASES[PERSIST], "persist");
        assert_eq!(PERSIST + 1, PHASES.len(), "persist is the last phase timed");
    }

    /// A runner without its thread, and the save task's end of the queue.
    fn runner() -> (Runner, tokio_mpsc::UnboundedReceiver<SaveJob>) {
        let content = Arc::new(wayfarer_content::load_bundled());
        let (saves, jobs) = tokio_mpsc::unbounded_channel();
        let context = WorldContext {
            tick: Duration::from_millis(50),
            manual: false,
            save_interval: Duration::from_secs(3600),
            joins_per_tick: 100,
            joins_per_tick_max: 100,
            content: content.clone(),
            online: Arc::new(OnlinePlayers::default()),
            saves,
            economy: Arc::default(),
            global_chat: None,
            realtime: false,
        };
        let world = World::new(content, 1);
        (Runner::new(world, context, Arc::default()), jobs)
    }

    fn snapshot(id: &str) -> CharacterSnapshot {
        CharacterSnapshot {
            character: wayfarer_store::Character {
                id: id.into(),
                account_id: "acct".into(),
                name: "Ada".into(),
                combat_level: 3,
                skills: Default::default(),
                health: 10,
                max_health: 10,
                coins: 0,
                position: [0.5, 10.0, 0.5],
                combat_style: "accurate".into(),
                prayer_points: None,
                home_teleport_ready_at_ms: None,
                auto_retaliate: true,
                created_at_ms: 0,
                last_login_at_ms: None,
            },
            inventory: Vec::new(),
            equipment: Vec::new(),
            bank: Vec::new(),
            quests: Vec::new(),
            xp_reached_at: Default::default(),
        }
    }

    fn join(id: &str, session: &str) -> (WorldInput, crate::outbound_queue::OutboundReceiver) {
        let (outbound, rx) = crate::outbound_queue::channel();
        let snapshot = snapshot(id);
        let input = WorldInput::Join {
            joining: Box::new(crate::character_state::joining(&snapshot, Vec::new())),
            snapshot: Box::new(snapshot),
            session_id: session.into(),
            outbound,
        };
        (input, rx)
    }

    fn leave(id: &str, session: &str) -> (WorldInput, oneshot::Receiver<bool>) {
        let (done, saved) = oneshot::channel();
        let input = WorldInput::Leave {
            id: id.into(),
            session_id: session.into(),
            reason: "logout",
            done: Some(done),
        };
        (input, saved)
    }

    #[tokio::test]
    async fn one_session_owns_a_character_until_its_final_save() {
        let (mut runner, mut jobs) = runner();
        let (first, _first_rx) = join("c1", "s1");
        runner.accept(first);
        runner.step(Instant::now());
        assert!(runner.world.is_online("c1"));
        // Whatever the first tick saved (the periodic save's turn).
        while jobs.try_recv().is_ok() {}

        // A second session's join while the first's record is held: refused with 1013, its
        // session closed, the first untouched.
        let (second, mut second_rx) = join("c1", "s2");
        runner.accept(second);
        match second_rx.recv().await {
            Some(Outbound::Close(code, _)) => assert_eq!(code, CLOSE_TRY_AGAIN),
            other => panic!("expected a close, got {other:?}"),
        }
        let job = jobs.recv().await.unwrap();
        assert_eq!(job.sessions_to_close, vec![("s2".to_owned(), "refused")]);
        assert!(job.snapshots.is_empty());

        // That session's leave takes nothing out; it is answered after the saves queued so far.
        let (stray, mut stray_saved) = leave("c1", "s2");
        runner.accept(stray);
        assert!(runner.players.contains_key("c1"));
        let job = jobs.recv().await.unwrap();
        assert!(job.snapshots.is_empty() && job.done.len() == 1);
        job.done.into_iter().for_each(|d| d.send(true).unwrap());
        assert_eq!(stray_saved.try_recv(), Ok(true));
        runner.step(Instant::now());
        assert!(runner.world.is_online("c1"));
        while jobs.try_recv().is_ok() {}

        // The owner's leave: the record stays until the tick that takes the player out, then
        // its final save carries `done`.
        let (owner, mut owner_saved) = leave("c1", "s1");
        runner.accept(owner);
        assert!(runner.players.contains_key("c1"), "kept until the tick");
        assert!(jobs.try_recv().is_err(), "nothing saved before the tick");
        runner.step(Instant::now());
        assert!(!runner.players.contains_key("c1"));
        assert!(!runner.world.is_online("c1"));
        let job = jobs.recv().await.unwrap();
        assert_eq!(job.snapshots.len(), 1);
        assert_eq!(job.sessions_to_close, vec![("s1".to_owned(), "logout")]);
        assert!(
            owner_saved.try_recv().is_err(),
            "not before the save is written"
        );
        job.done.into_iter().for_each(|d| d.send(true).unwrap());
        assert_eq!(owner_saved.try_recv(), Ok(true));

        // Now a new session may enter.
        let (third, _third_rx) = join("c1", "s3");
        runner.accept(third);
        runner.step(Instant::now());
        assert!(runner.world.is_online("c1"));
    }

    /// The kinds of the messages in what a player's queue holds now, in order.
    fn kinds(rx: &mut crate::outbound_queue::OutboundReceiver) -> Vec<String> {
        fn collect(outbound: Outbound, kinds: &mut Vec<String>) {
            match outbound {
                Outbound::Batch(batch) => batch.into_iter().for_each(|o| collect(o, kinds)),
                Outbound::Message(m) | Outbound::Reply { message: m, .. } => {
                    kinds.push(m.kind().to_owned())
                }
                Outbound::Text(text) => kinds.push(text.split('"').nth(3).unwrap_or("").to_owned()),
                Outbound::Picks { .. } => kinds.push("picks".to_owned()),
                Outbound::Close(code, _) => kinds.push(format!("close {code}")),
            }
        }
        let mut kinds = Vec::new();
        use futures_util::FutureExt;
        while let Some(Some(outbound)) = rx.recv().now_or_never() {
            collect(outbound, &mut kinds);
        }
        kinds
    }

    #[test]
    fn the_join_budget_grows_while_ticks_are_fast_and_halves_when_one_is_slow() {
        use super::admission::next_budget;
        let period = Duration::from_millis(600);
        let fast = Duration::from_millis(49);
        let (middle, slow) = (Duration::from_millis(100), Duration::from_millis(101));
        // Growth by the floor while players wait, up to the ceiling.
        assert_eq!(next_budget(100, 100, 1_000, fast, period, true), 200);
        assert_eq!(next_budget(950, 100, 1_000, fast, period, true), 1_000);
        assert_eq!(
            next_budget(1_000, 100, 1_000, Duration::ZERO, period, true),
            1_000
        );
        // Between a twelfth (50 ms) and a sixth (100 ms) of the period it holds; above, it halves.
        assert_eq!(
            next_budget(400, 100, 1_000, Duration::from_millis(50), period, true),
            400
        );
        assert_eq!(next_budget(400, 100, 1_000, middle, period, true), 400);
        assert_eq!(next_budget(400, 100, 1_000, slow, period, true), 200);
        assert_eq!(
            next_budget(150, 100, 1_000, slow, period, true),
            100,
            "never below the floor"
        );
        // Nobody waiting: back towards the floor, however fast the tick.
        assert_eq!(next_budget(800, 100, 1_000, fast, period, false), 400);
        assert_eq!(next_budget(100, 100, 1_000, fast, period, false), 100);
        // A ceiling equal to the floor is a fixed budget.
        assert_eq!(next_budget(100, 100, 100, fast, period, true), 100);
    }

    #[tokio::test]
    async fn a_timed_world_lets_a_queue_in_faster_while_its_ticks_are_fast() {
        let (mut runner, _jobs) = runner();
        runner.context.tick = Duration::from_millis(600);
        runner.context.joins_per_tick = 10;
        runner.context.joins_per_tick_max = 35;
        let mut queues = Vec::new();
        for i in 0..200 {
            let (input, rx) = join(&format!("p{i:04}"), &format!("s{i}"));
            runner.accept(input);
            queues.push(rx);
        }
        assert_eq!(runner.players.len(), 10, "the floor before any tick");
        let entered = |runner: &mut Runner, took: Duration| {
            let before = runner.players.len();
            runner.admit_waiting(took);
            runner.players.len() - before
        };
        let fast = Duration::from_millis(10);
        let per_tick: Vec<usize> = (0..5).map(|_| entered(&mut runner, fast)).collect();
        assert_eq!(per_tick, [20, 30, 35, 35, 35]);
        // A slow tick halves it; the stepped clock of tests would keep the floor.
        assert_eq!(entered(&mut runner, Duration::from_millis(101)), 17);
        runner.context.manual = true;
        assert_eq!(entered(&mut runner, fast), 10);
    }

    #[tokio::test]
    async fn the_join_budget_admits_in_order_and_everyone_enters() {
        let (mut runner, mut jobs) = runner();
        let budget = runner.context.joins_per_tick;
        assert_eq!(
            runner.context.joins_per_tick_max, budget,
            "a fixed budget here"
        );
        let total = 2 * budget + 7;
        let id = |i: usize| format!("p{i:04}");
        let mut queues = Vec::new();
        for i in 0..total {
            let (input, rx) = join(&id(i), &format!("s{i}"));
            runner.accept(input);
            queues.push(rx);
        }
        // The last allowed this tick enters with it, the first over the budget waits.
        assert_eq!(runner.players.len(), budget);
        assert!(runner.players.contains_key(&id(budget - 1)));
        assert!(runner.joins.contains(&id(budget)));
        assert_eq!(runner.joins.len(), total - budget);

        // A waiting player: its commands wait with it, `player:sync` answers from its record,
        // a notice for it waits for its entry, and a second join of it is refused.
        let waiting = budget + 3;
        runner.accept(WorldInput::Sim(Command::Chat {
            id: id(waiting),
            channel: wayfarer_protocol::ws::ChatChannel::Local,
            text: "hello".into(),
            to: None,
            reference: None,
        }));
        assert!(runner
            .commands
            .iter()
            .all(|c| c.player_id() != Some(id(waiting).as_str())));
        runner.accept(WorldInput::Sync {
            id: id(waiting),
            asked_at: Instant::now(),
        });
        assert_eq!(kinds(&mut queues[waiting]), ["player:sync"]);
        let notice = Arc::new(ServerMessage::error(
            wayfarer_protocol::ws::codes::INVALID_MESSAGE,
            "a notice",
            None,
        ));
        runner.accept(WorldInput::Notify {
            to: vec![id(waiting)],
            message: notice,
        });
        let (again, mut again_rx) = join(&id(waiting), "again");
        runner.accept(again);
        assert_eq!(kinds(&mut again_rx), [format!("close {CLOSE_TRY_AGAIN}")]);
        // A waiting player who leaves is taken out of the queue, its session closed.
        let gone = total - 1;
        let (left, mut left_saved) = leave(&id(gone), &format!("s{gone}"));
        runner.accept(left);
        assert!(!runner.joins.contains(&id(gone)));
        while let Ok(job) = jobs.try_recv() {
            assert!(job.snapshots.is_empty());
            job.done.into_iter().for_each(|d| d.send(true).unwrap());
        }
        assert_eq!(left_saved.try_recv(), Ok(true));

        // Tick by tick, the players in the world are the first to have come, in order, at most
        // the budget more each tick.
        let mut ticks = 0;
        loop {
            runner.step(Instant::now());
            ticks += 1;
            let online: Vec<usize> = (0..total)
                .filter(|&i| runner.world.is_online(&id(i)))
                .collect();
            let expected = (ticks * budget).min(total - 1);
            assert_eq!(online, (0..expected).collect::<Vec<_>>(), "tick {ticks}");
            if expected == total - 1 {
                break;
            }
        }
        assert_eq!(ticks, 3);
        assert_eq!(runner.joins.len(), 0);
        // Everyone who stayed had their first update; the waiting player's chat line went into
        // the tick it entered in (right behind its join), and the notice came after that tick.
        for (i, rx) in queues.iter_mut().enumerate().take(total - 1) {
            let kinds = kinds(rx);
            assert!(kinds.iter().any(|k| k == "world:update"), "{i}: {kinds:?}");
            if i == waiting {
                let update = kinds.iter().position(|k| k == "world:update").unwrap();
                let chat = kinds
                    .iter()
                    .position(|k| k == "chat:message" || k == "picks");
                let notice = kinds.iter().position(|k| k == "error").unwrap();
                assert!(chat.is_some(), "{kinds:?}");
                assert!(update < notice, "{kinds:?}");
            }
        }
    }

    /// A world thread on the manual clock, and the save task's end of its queue.
    fn manual_thread() -> (WorldThread, tokio_mpsc::UnboundedReceiver<SaveJob>) {
        let (runner, jobs) = runner();
        let Runner {
            world, mut context, ..
        } = runner;
        context.manual = true;
        (WorldThread::spawn(world, context).unwrap(), jobs)
    }

    /// The tick numbers of the `world:update`s in what a player's queue holds now.
    fn update_ticks(rx: &mut crate::outbound_queue::OutboundReceiver) -> Vec<u64> {
        fn collect(outbound: Outbound, ticks: &mut Vec<u64>) {
            match outbound {
                Outbound::Batch(batch) => batch.into_iter().for_each(|o| collect(o, ticks)),
                Outbound::Message(message) => {
                    if let ServerMessage::WorldUpdate(update) = message.as_ref() {
                        ticks.push(update.tick);
                    }
                }
                _ => {}
            }
        }
        let mut ticks = Vec::new();
        use futures_util::FutureExt;
        while let Some(Some(outbound)) = rx.recv().now_or_never() {
            collect(outbound, &mut ticks);
        }
        ticks
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_manual_clock_ticks_only_when_stepped_and_answers_queries_between_steps() {
        let (thread, _jobs) = manual_thread();
        let clock = TickClock::new(thread.sender(), true);
        // Nothing has ticked; 0 steps answers where the world is.
        assert_eq!(clock.step(0).await, Ok(0));
        // A query is answered without a step.
        let world = thread.sender();
        assert!(live_snapshot(&world, "c1").await.unwrap().is_none());

        // A join queued before a step enters in its first tick, and that tick's update is
        // queued to the player by the time the step answers.
        let (join, mut rx) = join("c1", "s1");
        assert!(world.send(join));
        assert_eq!(clock.step(1).await, Ok(1));
        assert!(live_snapshot(&world, "c1").await.unwrap().is_some());
        assert_eq!(update_ticks(&mut rx), vec![1]);

        // N steps advance exactly N ticks, in sequence.
        assert_eq!(clock.step(3).await, Ok(4));
        assert_eq!(clock.step(1).await, Ok(5));
        assert_eq!(clock.step(1).await, Ok(6));
        // Two steps asked at once run one after the other.
        let (first, second) = tokio::join!(clock.step(2), clock.step(3));
        let mut reached = [first.unwrap(), second.unwrap()];
        reached.sort();
        assert!(reached == [8, 11] || reached == [9, 11], "{reached:?}");
        assert_eq!(thread.stats().snapshot().number, 11);

        // The bound: the last allowed is taken, the first refused is not.
        assert_eq!(
            clock.step(MAX_TICKS_PER_STEP).await,
            Ok(11 + u64::from(MAX_TICKS_PER_STEP))
        );
        assert_eq!(
            clock.step(MAX_TICKS_PER_STEP + 1).await,
            Err(StepError::TooMany(MAX_TICKS_PER_STEP + 1))
        );
        // The same world's sender on a clock that is not manual refuses before asking.
        assert_eq!(
            TickClock::new(thread.sender(), false).step(1).await,
            Err(StepError::NotManual)
        );

        let world = tokio::task::spawn_blocking(move || thread.stop())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(world.tick_number(), 11 + u64::from(MAX_TICKS_PER_STEP));
    }

    #[tokio::test]
    async fn a_timed_world_refuses_a_step() {
        let (runner, _jobs) = runner();
        let Runner { world, context, .. } = runner;
        let thread = WorldThread::spawn(world, context).unwrap();
        let (reply, reached) = oneshot::channel();
        assert!(thread
            .sender()
            .send(WorldInput::Step(Step { ticks: 1, reply })));
        assert!(reached.await.is_err(), "the reply is dropped unanswered");
        tokio::task::spawn_blocking(move || thread.stop())
            .await
            .unwrap();
    }

    #[test]
    fn every_player_is_saved_once_a_cycle_and_the_players_are_spread_over_it() {
        for (players, cycle) in [(2_000u64, 100u64), (7, 3), (1, 1), (5, 10)] {
            let mut saves = vec![0u32; players as usize];
            let mut busiest = 0;
            // Any window of `cycle` consecutive ticks, wherever the clock stands.
            for tick in 1_234..1_234 + cycle {
                let now = (0..players).filter(|&p| saves_now(p, tick, cycle)).count();
                busiest = busiest.max(now as u64);
                for p in (0..players).filter(|&p| saves_now(p, tick, cycle)) {
                    saves[p as usize] += 1;
                }
            }
            assert!(
                saves.iter().all(|&n| n == 1),
                "{players} players, cycle {cycle}"
            );
            assert_eq!(
                busiest,
                players.div_ceil(cycle),
                "{players} players, cycle {cycle}"
            );
        }
    }
}
