//! The world thread: advances the sim every `TICK_MS` on a dedicated OS thread (never on the async
//! runtime), with drift correction. It owns the online players' records, turns socket messages into sim
//! commands, routes the sim's events into each connection's bounded outbound queue (a full queue
//! disconnects that client, it never slows the tick), publishes presence for REST, and hands dirty
//! characters to the save task. Timings go out through atomics and histograms that `/status` and
//! `/metrics` read without taking any lock the tick holds.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc as tokio_mpsc, oneshot};
use wayfarer_content::Content;
use wayfarer_protocol::ws::{
    DialogueClose, InventoryUpdate, Player, PrayerUpdate, QuestComplete, QuestList, QuestRewards,
    QuestSummary, RewardItem, ServerMessage, ShopClosed,
};
use wayfarer_sim::{Command, Event, Phase, World};
use wayfarer_store::CharacterSnapshot;

use crate::character_state;
use crate::deaths::DeathBook;
use crate::online::{OnlineEntry, OnlinePlayers, Presence};
use crate::outbound_queue::{OutboundSender, OutboundWaker, TrySendError};
use crate::player_view;
use crate::saver::SaveJob;
use crate::trades::TradeBook;

/// A player who left while trading: saved once their trade is settled.
struct DeferredLeave {
    record: PlayerRecord,
    done: Vec<oneshot::Sender<bool>>,
    reason: &'static str,
}

/// A leave taken between ticks. The player's `Command::Leave` runs in the next tick after every
/// command their connection sent before leaving, and the final save is made from the record as
/// that tick left it (see [`Runner::finish_leaves`]): saving at once would write a state older than
/// commands already accepted, while the sim still applied them (a drop raced by a new connection
/// put the item on the ground and kept it in the saved inventory).
struct PendingLeave {
    reason: &'static str,
    /// Fired with whether the final save was written.
    done: Vec<oneshot::Sender<bool>>,
}

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
    /// A player enters with their loaded state and outbound queue.
    Join {
        snapshot: Box<CharacterSnapshot>,
        session_id: String,
        ignored: Vec<String>,
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
    /// An immediate save (bank, shop) could not be written: these characters leave the world
    /// without saving, so the store keeps their last durable state and nothing of the failed
    /// operation survives (their connection is closed with 1011).
    SaveFailed { ids: Vec<String> },
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
    /// Messages for players who are online (others are skipped), sent after the next tick's
    /// events, so a player entering gets `player:sync` and `world:update` before them.
    Notify {
        to: Vec<String>,
        message: Arc<ServerMessage>,
    },
}

/// The sending side of the inbound queue.
#[derive(Clone)]
pub struct WorldSender {
    tx: mpsc::SyncSender<WorldInput>,
}

impl WorldSender {
    /// Queues without waiting; `false` when the queue is full or the world has stopped.
    pub fn send(&self, input: WorldInput) -> bool {
        self.tx.try_send(input).is_ok()
    }
}

use crate::tick_stats::{PhaseTimes, TickFigures, TickRecorder, PHASES};
pub use crate::tick_stats::{TickSnapshot, TickStats, WorldCounts};

/// What the world thread needs besides the world.
pub struct WorldContext {
    pub tick: Duration,
    pub save_interval: Duration,
    pub content: Arc<Content>,
    pub online: Arc<OnlinePlayers>,
    pub saves: tokio_mpsc::UnboundedSender<SaveJob>,
    /// Economy audit counters (shop trades, expired death piles).
    pub economy: Arc<crate::economy::EconomyCounters>,
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
        let (tx, rx) = mpsc::sync_channel(INBOUND_QUEUE);
        let thread_stats = stats.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = stop.clone();
        // The task that wakes connections for the world thread (see `Runner::wake`).
        let wakes = tokio::runtime::Handle::try_current().ok().map(|runtime| {
            let (wakes, mut batches) = tokio_mpsc::unbounded_channel::<Vec<OutboundWaker>>();
            runtime.spawn(async move {
                while let Some(batch) = batches.recv().await {
                    for waker in batch {
                        waker.wake();
                    }
                }
            });
            wakes
        });
        let join = std::thread::Builder::new().name("world".into()).spawn({
            let own = WorldSender { tx: tx.clone() };
            move || {
                let mut runner = Runner::new(world, context, thread_stats);
                runner.own_sender = Some(own);
                runner.wakes = wakes;
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
}

/// The online players by character id. foldhash, not SipHash: ids are server-made UUIDs (nothing to
/// defend against), and dispatch looks one up for every recipient of every message.
type Players = HashMap<String, PlayerRecord, foldhash::fast::RandomState>;

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
    /// When the last tick ran (the wait it caused the requests that came in meanwhile).
    last_tick: TickSpan,
    /// Players entered, dealing out save turns in order.
    entered: u64,
    /// The world's own inbound queue, for save jobs that report failure back.
    own_sender: Option<WorldSender>,
    /// To the runtime task that wakes connections after a dispatch (none outside a runtime).
    wakes: Option<tokio_mpsc::UnboundedSender<Vec<OutboundWaker>>>,
}

impl Runner {
    fn new(world: World, context: WorldContext, stats: Arc<TickStats>) -> Self {
        Self {
            world,
            context,
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
            trades: TradeBook::default(),
            deferred: HashMap::new(),
            leaving: HashMap::new(),
            own_sender: None,
            wakes: None,
        }
    }

    fn run(mut self, rx: &mpsc::Receiver<WorldInput>, stop: &AtomicBool) -> World {
        let tick = self.context.tick;
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
            let started = Instant::now();
            for _ in 0..MAX_INPUTS_PER_TICK {
                match rx.try_recv() {
                    Ok(input) => self.accept(input),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => break 'ticks,
                }
            }
            self.step(started);
            self.last_tick = TickSpan {
                started,
                ended: Instant::now(),
            };

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

    /// Takes one input: bookkeeping here, game changes as commands for the next tick.
    fn accept(&mut self, input: WorldInput) {
        match input {
            WorldInput::Join {
                snapshot,
                session_id,
                ignored,
                outbound,
            } => {
                let c = &snapshot.character;
                let id = c.id.clone();
                if self.players.contains_key(&id)
                    || self.leaving.contains_key(&id)
                    || self.deferred.contains_key(&id)
                {
                    self.refuse_join(&id, &session_id, &outbound);
                    return;
                }
                let requested = player_view::tile_of(c.position);
                self.commands
                    .push(Command::Join(Box::new(character_state::joining(
                        &snapshot, ignored,
                    ))));
                self.presence.push(Presence::Joined(
                    id.clone(),
                    OnlineEntry {
                        account_id: c.account_id.clone(),
                        name: c.name.clone(),
                        tile: requested,
                        combat_level: c.combat_level,
                    },
                ));
                self.entered += 1;
                self.players.insert(
                    id,
                    PlayerRecord {
                        snapshot: *snapshot,
                        session_id,
                        outbound,
                        dirty: false,
                        save_turn: self.entered,
                        pending: RefCell::new(Vec::new()),
                    },
                );
            }
            WorldInput::Leave {
                id,
                session_id,
                reason,
                done,
            } => self.leave(&id, &session_id, reason, done),
            WorldInput::Sim(command) => self.commands.push(command),
            WorldInput::Sync { id, asked_at } => {
                if let Some(record) = self.players.get(&id) {
                    let sync = self.player_sync(record);
                    let _ = record.outbound.try_send(Outbound::Reply {
                        message: Arc::new(ServerMessage::PlayerSync(Box::new(sync))),
                        asked_at,
                        tick_wait: self.last_tick.wait_of(asked_at),
                    });
                }
            }
            WorldInput::Give {
                id,
                item_id,
                quantity,
            } => self.commands.push(Command::Give {
                id,
                item_id,
                quantity: u32::try_from(quantity.max(0)).unwrap_or(u32::MAX),
            }),
            WorldInput::Notify { to, message } => self.notices.push((to, message)),
            WorldInput::Snapshot { id, reply } => {
                let live = self
                    .players
                    .get(&id)
                    .map(|record| Box::new(self.finished_snapshot(record.snapshot.clone())));
                let _ = reply.send(live);
            }
            WorldInput::GroundTotals { reply } => {
                let mut totals: HashMap<String, i64> = HashMap::new();
                for item in self.world.ground_items() {
                    if item.death.is_none() {
                        *totals.entry(item.stack.item_id).or_default() +=
                            i64::from(item.stack.quantity);
                    }
                }
                let _ = reply.send(totals.into_iter().collect());
            }
            WorldInput::SaveFailed { ids } => {
                for id in ids {
                    if let Some(record) = self.players.remove(&id) {
                        tracing::error!(character = %id, "save failed: the player leaves unsaved");
                        self.commands.push(Command::Leave { id: id.clone() });
                        self.presence.push(Presence::Left(id));
                        let _ = record
                            .outbound
                            .try_send(Outbound::Close(1011, "save failed"));
                    }
                }
            }
            WorldInput::ReplaceContent(content) => {
                self.world.replace_content(content.clone());
                self.context.content = content;
                tracing::info!(
                    tick = self.world.tick_number(),
                    "content replaced at a tick boundary"
                );
            }
        }
    }

    /// A join for a character whose previous session is not yet saved (its record is still here,
    /// leaving, or waiting on a trade). The connection normally waits for that save before loading
    /// (`connections::wait_saved`), so this is the guard behind it: the database snapshot it loaded
    /// may be older than the live record, so it must not enter. Its socket closes with 1013.
    fn refuse_join(&self, id: &str, session_id: &str, outbound: &OutboundSender) {
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
        let _ = self.context.saves.send(job);
    }

    /// Takes a leave: the player's `Command::Leave` goes into the next tick behind the commands
    /// already queued, and their final save follows that tick (see [`PendingLeave`]).
    fn leave(
        &mut self,
        id: &str,
        session_id: &str,
        reason: &'static str,
        done: Option<oneshot::Sender<bool>>,
    ) {
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
    /// they sent before leaving and reported what it changed, so their records are final.
    fn finish_leaves(&mut self, leaving: HashMap<String, PendingLeave>) {
        for (id, leave) in leaving {
            match self.players.remove(&id) {
                Some(record) => self.save_or_defer(record, leave.done, leave.reason),
                // Taken out meanwhile (a failed save): nothing of theirs is left to write.
                None => leave
                    .done
                    .into_iter()
                    .for_each(|done| self.after_queued_saves(done)),
            }
        }
    }

    /// Fires `done` once every save job queued so far is written (the save task runs jobs in
    /// order), so a replacing connection never loads before a final save still in the queue.
    fn after_queued_saves(&self, done: oneshot::Sender<bool>) {
        let job = SaveJob {
            done: vec![done],
            ..SaveJob::default()
        };
        if let Err(unsent) = self.context.saves.send(job) {
            for done in unsent.0.done {
                let _ = done.send(false);
            }
        }
    }

    /// A leaving player's final save, unless a trade may still change their items: then it waits
    /// (see `trades.rs`) and happens once the trade ended or has its outcome.
    fn save_or_defer(
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
    fn settle_deferred(&mut self) {
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

    /// Takes the outcomes of committed trades: the sim learns them at the next tick; held records
    /// take the post-swap items when the trade committed.
    fn take_trade_outcomes(&mut self) {
        while let Ok((trade_id, ok)) = self.trades.outcomes_rx.try_recv() {
            self.on_trade_outcome(&trade_id, ok);
        }
    }

    fn on_trade_outcome(&mut self, trade_id: &str, ok: bool) {
        let Some(pending) = self.trades.finish(trade_id) else {
            return;
        };
        if ok {
            metrics::counter!("trades_completed_total").increment(1);
        } else {
            tracing::error!(
                trade = trade_id,
                "a trade's transaction failed; trade cancelled"
            );
        }
        for player in &pending.players {
            let Some(after) = pending.after_of(player) else {
                continue;
            };
            let record = match self.deferred.get_mut(player) {
                Some(leave) => Some(&mut leave.record),
                None => self.players.get_mut(player),
            };
            if let Some(record) = record {
                if ok {
                    record.snapshot.inventory = after.to_vec();
                    record.snapshot.character.coins =
                        player_view::coins_in(&record.snapshot.inventory);
                }
                // Both are written again (together, by the next periodic save): a write reported
                // failed that did commit is undone whole rather than half.
                record.dirty = true;
            }
        }
        self.commands.push(Command::TradeCommitted {
            trade_id: trade_id.to_owned(),
            ok,
        });
        self.settle_deferred();
    }

    /// Both accepted on Screen 2: one job writes both post-swap records and the audit row; the
    /// records stay held until the outcome.
    fn commit_trade(&mut self, commit: &wayfarer_sim::TradeCommit) {
        let audit = self.trades.begin(commit, now_ms());
        let mut job = SaveJob {
            trade: Some(audit),
            trade_outcome: Some((commit.trade_id.clone(), self.trades.outcomes_tx.clone())),
            ..SaveJob::default()
        };
        for (side, player) in commit.players.iter().enumerate() {
            let record = match self.deferred.get(player) {
                Some(leave) => Some(&leave.record),
                None => self.players.get(player),
            };
            let Some(record) = record else {
                tracing::error!(trade = %commit.trade_id, character = %player, "a committing trade's player has no record");
                continue;
            };
            let mut snapshot = self.finished_snapshot(record.snapshot.clone());
            snapshot.inventory = crate::trades::rows(commit.after[side].stacks());
            snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
            job.snapshots.push(snapshot);
        }
        if job.snapshots.len() != 2 {
            // Cannot happen (both were online when the sim planned the swap); refuse the trade.
            let _ = self
                .trades
                .outcomes_tx
                .send((commit.trade_id.clone(), false));
            return;
        }
        if let Err(err) = self.context.saves.send(job) {
            tracing::error!("the save task has stopped; a trade could not be written");
            if let Some((trade_id, tx)) = err.0.trade_outcome {
                let _ = tx.send((trade_id, false));
            }
        }
    }

    /// Hands final states to the save task, closing their sessions.
    fn save_now(
        &self,
        records: Vec<PlayerRecord>,
        done: Vec<oneshot::Sender<bool>>,
        reason: &'static str,
    ) {
        let mut job = SaveJob::default();
        for record in records {
            job.sessions_to_close
                .push((record.session_id.clone(), reason));
            job.snapshots.push(self.finished_snapshot(record.snapshot));
        }
        job.done = done;
        if let Err(unsent) = self.context.saves.send(job) {
            tracing::error!("the save task has stopped; final states could not be saved");
            for done in unsent.0.done {
                let _ = done.send(false);
            }
        }
    }

    /// The snapshot with the live tile written into the record's position.
    fn finished_snapshot(&self, mut snapshot: CharacterSnapshot) -> CharacterSnapshot {
        if let Some(tile) = self.world.player_tile(&snapshot.character.id) {
            snapshot.character.position[0] = f64::from(tile.x) + 0.5;
            snapshot.character.position[2] = f64::from(tile.z) + 0.5;
        }
        snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
        snapshot
    }

    fn step(&mut self, started: Instant) {
        self.take_trade_outcomes();
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
        let dispatch = dispatch_started.elapsed();
        metrics::histogram!("tick_phase_ms", "phase" => "dispatch")
            .record(dispatch.as_secs_f64() * 1000.0);
        phase_us[5] = dispatch.as_micros() as u64;

        let persist_started = Instant::now();
        self.save_turn();
        self.context.online.try_publish(&mut self.presence);
        let persist = persist_started.elapsed();
        metrics::histogram!("tick_phase_ms", "phase" => "persist")
            .record(persist.as_secs_f64() * 1000.0);
        phase_us[6] = persist.as_micros() as u64;
        self.phase_us = phase_us;

        let elapsed = started.elapsed();
        self.record_timing(elapsed);
    }

    fn dispatch(&mut self, events: Vec<Event>) {
        let mut slow: Vec<String> = Vec::new();
        // Records to save at once, in one job (bank operations, purchases, sales).
        let mut save_now: Vec<String> = Vec::new();
        for event in events {
            match event {
                Event::View { to, update } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::WorldUpdate(update)),
                    );
                }
                Event::Chat { to, mut message } => {
                    message.ts = now_ms();
                    let text = encode_once(&ServerMessage::Chat(message));
                    for id in &to {
                        send_to(&self.players, id.as_ref(), text.clone());
                    }
                }
                Event::LocalChat { lines, heard } => {
                    let ts = now_ms();
                    let texts: Arc<[Arc<str>]> = lines
                        .into_iter()
                        .map(|mut message| {
                            message.ts = ts;
                            encoded(&ServerMessage::Chat(message))
                        })
                        .collect();
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
                Event::Rejected {
                    to,
                    code,
                    message,
                    reference,
                } => {
                    let reference = reference.map(serde_json::Value::from);
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::error(code, message, reference)),
                    );
                }
                Event::Inventory { to, slots } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        character_state::mirror_inventory(&mut record.snapshot, &slots);
                        record.dirty = true;
                        let update = InventoryUpdate {
                            inventory: player_view::inventory_view(
                                &self.context.content,
                                &record.snapshot.inventory,
                            ),
                            coins: record.snapshot.character.coins,
                        };
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::InventoryUpdate(update)),
                        );
                    }
                }
                Event::Equipment { to, worn } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        let update = character_state::mirror_equipment(&mut record.snapshot, &worn);
                        record.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::EquipmentUpdate(update)),
                        );
                    }
                }
                Event::Xp { to, skill, gain } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        let xp = character_state::mirror_xp(
                            &mut record.snapshot,
                            skill,
                            &gain,
                            now_ms(),
                        );
                        record.dirty = true;
                        send_to(&self.players, &to, Arc::new(ServerMessage::SkillXp(xp)));
                    }
                }
                Event::Stats { id, stats } => {
                    if let Some(record) = self.players.get_mut(&id) {
                        let level = record.snapshot.character.combat_level;
                        character_state::mirror_stats(&mut record.snapshot, &stats);
                        record.dirty = true;
                        if record.snapshot.character.combat_level != level {
                            self.presence.push(Presence::CombatLevel(
                                id,
                                record.snapshot.character.combat_level,
                            ));
                        }
                    }
                }
                Event::CombatHit { to, hit } => {
                    let text = encode_once(&ServerMessage::CombatHit(hit));
                    for id in &to {
                        send_to(&self.players, id, text.clone());
                    }
                }
                Event::PlayerDied {
                    id,
                    death_id,
                    tile,
                    items,
                    pvp,
                } => {
                    tracing::info!(character = %id, x = tile.x, z = tile.z, items = items.len(), pvp, "player died");
                    metrics::counter!("player_deaths_total").increment(1);
                    self.deaths.died(&id, death_id, tile, &items, pvp, now_ms());
                }
                Event::DeathItemTaken {
                    death_id,
                    by,
                    stack,
                } => self.deaths.taken(&death_id, &by, &stack),
                Event::DeathItemExpired { death_id, stack } => {
                    self.deaths.expired(&death_id, &stack)
                }
                Event::ItemFlows(flows) => {
                    for flow in &flows {
                        self.context.economy.flow(flow);
                    }
                }
                Event::Bank { to, items } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        let update = character_state::mirror_bank(&mut record.snapshot, &items);
                        record.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::BankUpdate(update)),
                        );
                    }
                }
                Event::SaveNow { id } => {
                    if !save_now.contains(&id) {
                        save_now.push(id);
                    }
                }
                Event::Prayer {
                    to,
                    points,
                    max_points,
                    active,
                } => {
                    if let Some(record) = self.players.get_mut(&to) {
                        record.snapshot.character.prayer_points = Some(i64::from(points));
                        record.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::PrayerUpdate(PrayerUpdate {
                                points,
                                max_points,
                                active,
                            })),
                        );
                    }
                }
                Event::DialogueOpened { to, view } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::DialogueOpen(view)),
                    );
                }
                Event::DialogueClosed { to, npc_id, reason } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::DialogueClose(DialogueClose {
                            npc_id,
                            reason: reason.as_str().to_owned(),
                        })),
                    );
                }
                Event::QuestUpdated { to, record, count } => {
                    if let Some(record_of) = self.players.get_mut(&to) {
                        let update =
                            character_state::mirror_quest(&mut record_of.snapshot, &record, count);
                        record_of.dirty = true;
                        send_to(
                            &self.players,
                            &to,
                            Arc::new(ServerMessage::QuestUpdate(update)),
                        );
                    }
                }
                Event::QuestCompleted {
                    to,
                    quest_id,
                    rewards,
                    quest_points,
                } => {
                    tracing::info!(character = %to, quest = %quest_id, "quest completed");
                    metrics::counter!("quests_completed_total").increment(1);
                    let message = QuestComplete {
                        quest_id,
                        rewards: QuestRewards {
                            quest_points: rewards.quest_points,
                            items: rewards
                                .items
                                .into_iter()
                                .map(|(item_id, quantity)| RewardItem { item_id, quantity })
                                .collect(),
                            xp: rewards.xp.into_iter().collect(),
                        },
                        quest_points,
                    };
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::QuestComplete(message)),
                    );
                }
                Event::QuestList {
                    to,
                    quests,
                    quest_points,
                } => {
                    let list = QuestList {
                        quests: quests
                            .into_iter()
                            .map(|(quest_id, name, record)| QuestSummary {
                                quest_id,
                                name,
                                status: record
                                    .as_ref()
                                    .map_or("not_started", |r| r.status.as_str())
                                    .to_owned(),
                                stage_id: record.as_ref().and_then(|r| r.stage_id.clone()),
                                progress: record
                                    .as_ref()
                                    .filter(|r| r.stage_id.is_some())
                                    .map(|r| r.progress),
                            })
                            .collect(),
                        quest_points,
                    };
                    send_to(&self.players, &to, Arc::new(ServerMessage::QuestList(list)));
                }
                Event::ShopOpened { to, view } => {
                    send_to(&self.players, &to, Arc::new(ServerMessage::ShopOpen(view)));
                }
                Event::ShopUpdated { to, view } => {
                    let message = Arc::new(ServerMessage::ShopUpdate(view));
                    for id in &to {
                        send_to(&self.players, id, message.clone());
                    }
                }
                Event::ShopClosed { to, store_id } => {
                    send_to(
                        &self.players,
                        &to,
                        Arc::new(ServerMessage::ShopClose(ShopClosed { store_id })),
                    );
                }
                Event::ShopTrade {
                    id,
                    store_id,
                    item_id,
                    quantity,
                    coins,
                    sold,
                } => {
                    tracing::info!(character = %id, store = %store_id, item = %item_id, quantity, coins, sold, "shop trade");
                    metrics::counter!("shop_trades_total", "kind" => if sold { "sale" } else { "purchase" }).increment(1);
                    self.context
                        .economy
                        .shop_trade(&item_id, quantity, coins, sold);
                }
                Event::NpcKilled { killer, npc_id } => {
                    metrics::counter!("npc_kills_total").increment(1);
                    self.deaths.killed(&killer, &npc_id, now_ms());
                }
                Event::Trade { to, message } => {
                    send_to(&self.players, &to, Arc::from(message));
                }
                Event::TradeCommit(commit) => self.commit_trade(&commit),
                Event::Left { id, tile } => {
                    if let Some(record) = self.players.get_mut(&id) {
                        record.snapshot.character.position[0] = f64::from(tile.x) + 0.5;
                        record.snapshot.character.position[2] = f64::from(tile.z) + 0.5;
                    }
                }
                Event::PlayerMoved { id, tile } => {
                    if let Some(record) = self.players.get_mut(&id) {
                        record.dirty = true;
                        record.snapshot.character.position[0] = f64::from(tile.x) + 0.5;
                        record.snapshot.character.position[2] = f64::from(tile.z) + 0.5;
                    }
                    self.presence.push(Presence::Moved(id, tile));
                }
            }
        }
        // Bank operations, purchases and sales are durable at once: the records they changed, as
        // this tick left them (inventory and bank), in one transaction.
        if !save_now.is_empty() {
            let mut job = SaveJob {
                on_failure: self.own_sender.clone().map(|s| (s, save_now.clone())),
                ..SaveJob::default()
            };
            for id in &save_now {
                if let Some(record) = self.players.get_mut(id) {
                    record.dirty = false;
                    let snapshot = record.snapshot.clone();
                    job.snapshots.push(self.finished_snapshot(snapshot));
                }
            }
            if !job.snapshots.is_empty() {
                metrics::counter!("character_saves_total").increment(job.snapshots.len() as u64);
                if self.context.saves.send(job).is_err() {
                    tracing::error!(
                        "the save task has stopped; a bank or shop change could not be saved"
                    );
                }
            }
        }
        // Deaths and what left their piles: one transaction, with the records it concerns as they
        // stand after this tick (the dead emptied, the pickers holding what they took).
        if let Some((mut job, characters)) = self.deaths.take_job() {
            for id in characters {
                if let Some(record) = self.players.get(&id) {
                    job.snapshots
                        .push(self.finished_snapshot(record.snapshot.clone()));
                }
            }
            if self.context.saves.send(job).is_err() {
                tracing::error!("the save task has stopped; a death could not be recorded");
            }
        }
        for (to, message) in std::mem::take(&mut self.notices) {
            let text = encode_once(&message);
            for id in &to {
                send_to(&self.players, id, text.clone());
            }
        }
        self.flush_pending(&mut slow);
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

    /// Queues each player's messages of this dispatch as one batch, without waiting; a full queue
    /// marks the player slow (the tick never waits for a client).
    fn flush_pending(&self, slow: &mut Vec<String>) {
        let mut woken = Vec::new();
        for (id, record) in &self.players {
            let mut pending = record.pending.borrow_mut();
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
        self.wake(woken);
    }

    /// Wakes the connections whose batches were queued, from the runtime when there is one (see
    /// [`OutboundSender::try_send_unwoken`]), else here.
    fn wake(&self, wakers: Vec<OutboundWaker>) {
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

    /// Saves the changed players whose turn it is. Each player is saved once every
    /// `SAVE_INTERVAL` as before, but the players are spread over the ticks of that interval, so
    /// no tick copies and queues everyone at once (2,000 snapshots were ~8 ms of one tick a minute,
    /// the worst tick of a busy world).
    fn save_turn(&mut self) {
        let cycle = (self.context.save_interval.as_millis() / self.context.tick.as_millis().max(1))
            .max(1) as u64;
        // The world's tick count is the clock of the save cycle.
        let tick = self.world.tick_number();
        let mut job = SaveJob::default();
        let held = &self.trades;
        for record in self.players.values_mut().filter(|r| {
            r.dirty
                && saves_now(r.save_turn, tick, cycle)
                && !held.is_held(&r.snapshot.character.id)
        }) {
            record.dirty = false;
            let mut snapshot = record.snapshot.clone();
            snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
            job.snapshots.push(snapshot);
        }
        if !job.snapshots.is_empty() {
            metrics::counter!("character_saves_total").increment(job.snapshots.len() as u64);
            let _ = self.context.saves.send(job);
        }
    }

    fn record_timing(&mut self, elapsed: Duration) {
        let counts = self.world.counts();
        // Queue depth = capacity used; a connection's queue only grows when its client reads slowly.
        let (mut outbound_max, mut outbound_total) = (0u64, 0u64);
        for record in self.players.values() {
            let used = record.outbound.len() as u64;
            outbound_max = outbound_max.max(used);
            outbound_total += used;
        }
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
        let tile = self
            .world
            .player_tile(&c.id)
            .unwrap_or_else(|| player_view::tile_of(c.position));
        player_view::player(
            &self.context.content,
            &record.snapshot,
            player_view::centre_of(tile, c.position[1]),
            Some(tile),
            true,
        )
    }

    /// Saves everyone still online as the world stops.
    fn shutdown(&mut self) {
        // Committing trades first get their outcome, so no record is written from before it.
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.trades.pending.is_empty() {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.trades.outcomes_rx.recv_timeout(wait) {
                Ok((trade_id, ok)) => self.on_trade_outcome(&trade_id, ok),
                Err(_) => {
                    tracing::error!(
                        trades = self.trades.pending.len(),
                        "no outcome for committing trades; their players are not saved again"
                    );
                    break;
                }
            }
        }
        let deferred: Vec<DeferredLeave> = self.deferred.drain().map(|(_, d)| d).collect();
        for leave in deferred {
            if !self.trades.is_held(&leave.record.snapshot.character.id) {
                self.save_now(vec![leave.record], leave.done, leave.reason);
            }
        }
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
            .map(|(_, r)| r)
            .filter(|r| !held.is_held(&r.snapshot.character.id))
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
        // One job even with no records, so that the leaves' `done` fire after the saves before it.
        self.save_now(records, leaving_done, "shutdown");
    }
}

fn phase_name(phase: Phase) -> &'static str {
    PHASES[phase_index(phase)]
}

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

impl From<Arc<ServerMessage>> for Outbound {
    fn from(message: Arc<ServerMessage>) -> Self {
        Outbound::Message(message)
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

/// Whether the player with save turn `turn` is saved in tick `tick` of a save cycle `cycle` ticks
/// long (≥ 1).
fn saves_now(turn: u64, tick: u64, cycle: u64) -> bool {
    turn % cycle == tick % cycle
}

/// How long a REST handler waits for the world's answer (a tick at most, normally).
const QUERY_WAIT: Duration = Duration::from_secs(5);

/// Sends the world a question (an input carrying `reply`) and waits for the answer, which it
/// gives between ticks; `service_unavailable` when the queue is full or no answer comes in time.
async fn ask<T>(
    world: &WorldSender,
    question: impl FnOnce(oneshot::Sender<T>) -> WorldInput,
) -> Result<T, crate::http::error::ApiError> {
    let (reply, answer) = oneshot::channel();
    if world.send(question(reply)) {
        if let Ok(Ok(answer)) = tokio::time::timeout(QUERY_WAIT, answer).await {
            return Ok(answer);
        }
    }
    Err(crate::http::error::ApiError::new(
        wayfarer_protocol::ErrorCode::ServiceUnavailable,
        "the world did not answer",
    ))
}

/// An online character's live record from the world thread; `None` when it is not in the world
/// (the store then holds its state).
pub async fn live_snapshot(
    world: &WorldSender,
    id: &str,
) -> Result<Option<Box<CharacterSnapshot>>, crate::http::error::ApiError> {
    let id = id.to_owned();
    ask(world, |reply| WorldInput::Snapshot { id, reply }).await
}

/// Asks the world thread for the units of each item on the ground outside death piles.
pub async fn ground_totals(
    world: &WorldSender,
) -> Result<Vec<(String, i64)>, crate::http::error::ApiError> {
    ask(world, |reply| WorldInput::GroundTotals { reply }).await
}

/// Adds `message` to what player `to` gets at the end of this dispatch (see [`Runner::flush_pending`]).
fn send_to(players: &Players, to: &str, message: impl Into<Outbound>) {
    if let Some(record) = players.get(to) {
        record.pending.borrow_mut().push(message.into());
    }
}

/// A message for many players, encoded once.
fn encode_once(message: &ServerMessage) -> Outbound {
    Outbound::Text(encoded(message))
}

/// The frame text of a message, to share.
fn encoded(message: &ServerMessage) -> Arc<str> {
    Arc::from(message.to_json())
}

fn now_ms() -> i64 {
    wayfarer_store::now_ms()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A runner without its thread, and the save task's end of the queue.
    fn runner() -> (Runner, tokio_mpsc::UnboundedReceiver<SaveJob>) {
        let content = Arc::new(wayfarer_content::load_bundled());
        let (saves, jobs) = tokio_mpsc::unbounded_channel();
        let context = WorldContext {
            tick: Duration::from_millis(50),
            save_interval: Duration::from_secs(3600),
            content: content.clone(),
            online: Arc::new(OnlinePlayers::default()),
            saves,
            economy: Arc::default(),
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
        let input = WorldInput::Join {
            snapshot: Box::new(snapshot(id)),
            session_id: session.into(),
            ignored: Vec::new(),
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
