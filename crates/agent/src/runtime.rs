//! One agent: its socket (reconnecting with backoff), its model, one action at a time, the brain
//! that picks the next, and the control events a host sends it (goal, stop, resume, message).
//! No statics: any number of agents run in one process, each a task.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage, ServerMessage};

use crate::account::Login;
use crate::actions::{self, Ctx, Planned};
use crate::brain::llm::{self, Answer, LlmFailure, ToolCall, Usage};
use crate::brain::{Brain, Breaker, Budget, Fallback, ModelStats};
use crate::control_plane;
use crate::goals::{Goal, GoalKind};
use crate::http::{Http, Request};
use crate::knowledge::Knowledge;
use crate::model::{ref_text, Model};
use crate::outcome::Outcome;
use crate::planner::{Decision, Planner};
use crate::procedure::{Poll, Procedure};
use crate::providers;

/// First reconnect delay; doubled after each failure.
pub const BACKOFF_START: Duration = Duration::from_secs(1);
/// Longest reconnect delay.
pub const BACKOFF_CAP: Duration = Duration::from_secs(30);
/// Decisions kept for the status.
pub const RECENT_DECISIONS: usize = 20;
/// Ticks between two status updates when nothing else published one.
pub const STATUS_EVERY_TICKS: u64 = 5;
/// Tick length assumed when the server does not say.
pub const DEFAULT_TICK_MS: u64 = 600;
/// The socket's read buffer. Server messages are a few KiB; tungstenite's default (128 KiB a
/// connection) would be most of an agent's memory when a process runs a thousand of them.
pub const READ_BUFFER_BYTES: usize = 8 * 1024;

/// Logs a per-agent line at info, or at debug for a host that runs many agents (`Host::quiet`):
/// a thousand agents' decisions would drown everything else.
macro_rules! chatty {
    ($quiet:expr, $($arg:tt)+) => {
        if $quiet {
            tracing::debug!($($arg)+)
        } else {
            tracing::info!($($arg)+)
        }
    };
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How to run an agent.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The server's HTTP address (`http://127.0.0.1:5555`); the socket is `/ws` there.
    pub server: String,
    pub login: Login,
    /// The goal to start with; `None`: the agent chooses.
    pub goal: Option<Goal>,
    pub brain: Brain,
    /// A label for logs (the character name when known).
    pub label: String,
}

/// What a host may tell a running agent.
#[derive(Debug)]
pub enum Control {
    /// A new goal; refused while paused (the control plane answers 409).
    /// (Boxed: the channel's slots are sized for the largest event, and a thousand agents each
    /// hold a block of them.)
    SetGoal(Box<Goal>, oneshot::Sender<Result<(), String>>),
    /// Pause: the running action and the movement path are stopped at once; no goal-setting until resume.
    Stop,
    /// Back to autonomous play.
    Resume,
    /// A message from the owner: an action command (`chopTree {"targetId":"res-3"}`) runs even
    /// while paused, then the agent returns to idle; other text goes to the model's next prompt.
    Message(String),
    /// The full providers' state now (every provider, not only the status's three): for a host
    /// or a test that needs entity ids, the dialogue or the trade; computed only when asked.
    Inspect(oneshot::Sender<Value>),
    /// Leave the world and end the task.
    Shutdown,
    /// Lockstep ([`Host::lockstep`]): the world has run a tick; take one step and answer once
    /// the world holds what the step sent (and a model's answer, when it asked one). The status
    /// is published before the answer, so it shows the step and every message read before it.
    Step(oneshot::Sender<()>),
    /// A fence without a step: answered once the world holds everything the agent sent (an
    /// owner's command included) and the agent has read everything the world sent before, with
    /// the status published. For a host stepping a manual world, before it runs the next tick.
    Sync(oneshot::Sender<()>),
}

/// One decision as the status keeps it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionRecord {
    pub number: u64,
    pub tick: u64,
    pub goal: Option<String>,
    pub action: &'static str,
    /// As JSON text: a parsed map costs a tree node of several hundred bytes per decision, and
    /// a record's parameters are only ever written out again.
    pub params: Box<RawValue>,
    pub reason: String,
    /// planner, llm, reflex or owner.
    pub by: &'static str,
    pub outcome: Option<Outcome>,
}

/// What an agent reports about itself.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentStatus {
    pub label: String,
    pub character_id: Option<String>,
    pub connected: bool,
    pub reconnects: u64,
    pub goal: Option<Value>,
    pub paused: bool,
    pub brain: String,
    pub current_action: Option<String>,
    pub model: ModelStats,
    pub outcomes: std::collections::BTreeMap<&'static str, u64>,
    pub recent_decisions: VecDeque<DecisionRecord>,
    /// The providers' state at the last status update (gameState, inventory, skills).
    pub state: Value,
    /// How many steps the agent has run (its own tick clock) and sent what they decided; moves
    /// with every step, so a test stepping the server's clock can wait for the agent's answer.
    pub steps: u64,
}

/// A running agent, as its host holds it.
pub struct AgentHandle {
    pub control: mpsc::Sender<Control>,
    /// The agent's status, updated every few ticks while someone holds this receiver (a host
    /// that drops it spares the agent the work and the memory).
    pub status: watch::Receiver<AgentStatus>,
    pub task: JoinHandle<()>,
}

impl AgentHandle {
    /// Asks the agent to leave and waits for it.
    pub async fn shutdown(self) {
        let _ = self.control.send(Control::Shutdown).await;
        let _ = self.task.await;
    }
}

/// What a host running many agents in one process gives them to share, so that each agent costs
/// only its own state: one HTTP client (connection pool, TLS roots), the public knowledge read
/// once (it is the same for every player, and reading it per agent would also spend the REST
/// rate limit of the account they share), and the tick length.
#[derive(Debug, Clone, Default)]
pub struct Host {
    /// The client for REST and model calls (`wayfarer-agent-http`); `None`: the agent can make
    /// no request, so it must be given its token (`Login::Token`, `Login::Mint`), the knowledge
    /// and the tick length, and play with the planner.
    pub http: Option<Http>,
    /// The manifests and areas; `None`: the agent reads them at its first connection.
    pub knowledge: Option<Arc<Knowledge>>,
    /// The server's tick length; `None`: asked of `/api/config` at each connection.
    pub tick_ms: Option<u64>,
    /// Per-agent lines (decisions, outcomes, goals, start and stop) at debug instead of info.
    pub quiet: bool,
    /// The world waits for the brain (`wayfarer bench-agents`): the agent steps only when told
    /// (`Control::Step`, after each tick of a manual world), never on its own clock, and each step
    /// is fenced on both sides by a `player:sync` the world answers between ticks. The first makes
    /// sure every message of the tick has been read before the step decides; the second that
    /// everything the step sent is in the world's queue before the next tick. A model's answer
    /// is waited for within the step. So a run is the same every time for the same dice.
    pub lockstep: bool,
    /// The node claims the host's agents share (`planner::claims`), so they spread over the
    /// nodes; `None`: this agent's own.
    pub claims: Option<crate::planner::claims::Claims>,
}

/// Starts an agent on the current tokio runtime, making its requests through `http`.
pub fn spawn(config: AgentConfig, http: Http) -> AgentHandle {
    spawn_hosted(
        config,
        Host {
            http: Some(http),
            ..Host::default()
        },
    )
}

/// Starts an agent that uses what its host shares ([`Host`]).
pub fn spawn_hosted(config: AgentConfig, host: Host) -> AgentHandle {
    let (control_tx, control_rx) = mpsc::channel(32);
    let (status_tx, status_rx) = watch::channel(AgentStatus {
        label: config.label.clone(),
        brain: config.brain.describe(),
        ..AgentStatus::default()
    });
    let task = tokio::spawn(Agent::new(config, host, status_tx).run(control_rx));
    AgentHandle {
        control: control_tx,
        status: status_rx,
        task,
    }
}

/// The action running now.
struct Running {
    decision: Decision,
    number: u64,
    by: &'static str,
    procedure: Procedure,
    /// The refs its messages went with.
    refs: HashSet<String>,
}

/// A model call in flight.
struct Thinking {
    number: u64,
    task: JoinHandle<Answer>,
}

struct Agent {
    config: AgentConfig,
    http: Http,
    model: Model,
    /// Shared with the other agents of a [`Host`], else this agent's own.
    knowledge: Arc<Knowledge>,
    /// Whether `knowledge` is loaded (given by the host, or read at a connection).
    knows: bool,
    /// The host's tick length, when it gave one.
    host_tick_ms: Option<u64>,
    /// Per-agent lines at debug ([`Host::quiet`]).
    quiet: bool,
    planner: Planner,
    goal: Goal,
    paused: bool,
    running: Option<Running>,
    /// Ticks left of an `idle`.
    idle_until: u64,
    /// The agent's tick clock (counted locally at the server's tick length).
    now: u64,
    decisions: u64,
    next_ref: u64,
    status: watch::Sender<AgentStatus>,
    recent: VecDeque<DecisionRecord>,
    outcomes: std::collections::BTreeMap<&'static str, u64>,
    // The language model, when chosen.
    llm: Option<Arc<llm::LlmConfig>>,
    budget: Budget,
    breaker: Breaker,
    stats: ModelStats,
    thinking: Option<Thinking>,
    /// The entities' names in this agent's prompts (`brain::prompt::Aliases`).
    aliases: crate::brain::prompt::Aliases,
    owner_notes: VecDeque<String>,
    /// After an owner's command while paused, the agent goes back to idle.
    reconnects: u64,
    /// Whether this connection is a registered agent's (it heard `agent:goal`): only then does it
    /// report `agent:status`.
    control_plane: bool,
    /// The id of the goal the server sent, while the agent pursues it.
    server_goal_id: Option<String>,
    /// The number of the last decision reported in an `agent:status`.
    reported_up_to: u64,
    /// What the brain was doing when its owner stopped it: taken up again, on the same target, at
    /// resume.
    stopped_on: Option<Decision>,
    /// The stopped decision a resume brings back once what runs now (a reflex) is done.
    resume_next: Option<Decision>,
    /// Lockstep ([`Host::lockstep`]).
    lockstep: bool,
    /// The server's tick length, once connected: with `lockstep`, the game time the model's
    /// budget and breaker count is the steps taken at this length ([`Agent::clock`]).
    tick_ms: u64,
    /// When the agent started: the origin of its game time in lockstep.
    epoch: Instant,
    /// `player:sync` fences sent and not yet answered.
    fences: u32,
    /// The lockstep step asked for and where it is.
    stepping: Option<(Fence, oneshot::Sender<()>)>,
    /// Lockstep: the model's answer (its decision number and result), held until the fence sent
    /// with the call is answered, so the answer is read after every reply to what the step sent
    /// before it, whatever the model's speed (a replay answers in microseconds, a model in
    /// seconds: read at once, an answer raced those replies and a replay strayed).
    held_answer: Option<HeldAnswer>,
}

/// A model's answer waiting for its step's fence: its decision number and the result.
type HeldAnswer = (u64, Result<(ToolCall, Usage), LlmFailure>);

/// Where a lockstep step is: waiting for the tick's messages, for the model, or for the world
/// to hold what the step sent; or a fence alone ([`Control::Sync`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fence {
    Read,
    Think,
    Sent,
    Alone,
}

impl Agent {
    fn new(config: AgentConfig, host: Host, status: watch::Sender<AgentStatus>) -> Agent {
        let llm = match &config.brain {
            Brain::Llm(c) => Some(Arc::new(c.clone())),
            Brain::Planner => None,
        };
        let (calls, tokens, failures, open) =
            llm.as_ref()
                .map_or((0, 0, 3, Duration::from_secs(60)), |c| {
                    (
                        c.calls_per_minute,
                        c.tokens_per_hour,
                        c.breaker_failures,
                        c.breaker_open,
                    )
                });
        Agent {
            goal: config
                .goal
                .clone()
                .unwrap_or_else(|| Goal::choose(&Model::default())),
            config,
            http: host.http.unwrap_or_default(),
            model: Model::default(),
            knows: host.knowledge.is_some(),
            knowledge: host.knowledge.unwrap_or_default(),
            host_tick_ms: host.tick_ms,
            quiet: host.quiet,
            planner: Planner::sharing(host.claims.clone().unwrap_or_default()),
            paused: false,
            running: None,
            idle_until: 0,
            now: 0,
            decisions: 0,
            next_ref: 0,
            status,
            recent: VecDeque::new(),
            outcomes: Default::default(),
            llm,
            budget: Budget::new(calls, tokens),
            breaker: Breaker::new(failures, open),
            stats: ModelStats::default(),
            thinking: None,
            aliases: Default::default(),
            owner_notes: VecDeque::new(),
            reconnects: 0,
            control_plane: false,
            server_goal_id: None,
            reported_up_to: 0,
            stopped_on: None,
            resume_next: None,
            lockstep: host.lockstep,
            tick_ms: DEFAULT_TICK_MS,
            epoch: Instant::now(),
            fences: 0,
            stepping: None,
            held_answer: None,
        }
    }

    async fn run(mut self, mut control: mpsc::Receiver<Control>) {
        chatty!(self.quiet, agent = %self.config.label, brain = %self.config.brain.describe(), "agent starting");
        let mut backoff = BACKOFF_START;
        loop {
            let reason = match self.session(&mut control).await {
                SessionEnd::Shutdown => break,
                SessionEnd::Lost(reason) => reason,
                SessionEnd::Synced(reason) => {
                    // It played on that connection: the backoff starts over.
                    backoff = BACKOFF_START;
                    reason
                }
            };
            self.reconnects += 1;
            tracing::warn!(agent = %self.config.label, %reason, retry_in_s = backoff.as_secs(), "connection lost");
            self.connection_lost();
            let sleep = tokio::time::sleep(backoff);
            tokio::pin!(sleep);
            // Control events still count while waiting to reconnect.
            loop {
                tokio::select! {
                    _ = &mut sleep => break,
                    event = control.recv() => match event {
                        None | Some(Control::Shutdown) => return,
                        Some(other) => self.on_control(other, None),
                    },
                }
            }
            backoff = (backoff * 2).min(BACKOFF_CAP);
        }
        chatty!(self.quiet, agent = %self.config.label, "agent stopped");
    }

    /// Logs in, reads what is needed once (the tick length, the public knowledge) and opens the
    /// socket: the socket and the tick length, or why not.
    async fn connect(&mut self) -> Result<(Socket, u64), String> {
        let base = self.config.server.trim_end_matches('/').to_owned();
        let token = match self.config.login.token(&self.http, &base).await {
            Ok(token) => token,
            Err(e) => return Err(format!("login: {e}")),
        };
        let tick_ms = match self.host_tick_ms {
            Some(ms) => ms.max(10),
            None => self.tick_ms(&base).await,
        };
        if !self.knows {
            match Knowledge::fetch(&self.http, &base, &token).await {
                Ok(k) => {
                    self.knowledge = Arc::new(k);
                    self.knows = !self.knowledge.items.is_empty();
                }
                Err(e) => return Err(format!("knowledge: {e}")),
            }
        }
        let ws_url = format!("{}/ws?token={token}", base.replacen("http", "ws", 1));
        let ws_config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
        let connect =
            tokio_tungstenite::connect_async_with_config(ws_url.as_str(), Some(ws_config), true);
        match connect.await {
            Ok((socket, _)) => Ok((socket, tick_ms)),
            Err(e) => Err(format!("connect: {e}")),
        }
    }

    /// One connection, from login to its end.
    async fn session(&mut self, control: &mut mpsc::Receiver<Control>) -> SessionEnd {
        // Boxed: logging in and connecting (HTTP requests, the handshake) are large futures
        // needed once a connection, and unboxed they would be part of this future, so of every
        // agent's task, for its whole life.
        let (mut socket, tick_ms) = match Box::pin(self.connect()).await {
            Ok(connected) => connected,
            Err(reason) => return SessionEnd::Lost(reason),
        };
        self.model.reset_for_reconnect();
        self.tick_ms = tick_ms;
        let mut ticker = tokio::time::interval(Duration::from_millis(tick_ms));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut synced_once = false;
        // The last frame read, held until the next one arrives. The socket's read buffer grows to
        // the largest frame (the `world:update` on entering a crowd is tens of KiB) and, were the
        // frame dropped at once, would keep that size for the connection's life, being the only
        // owner of its memory. While the previous frame still shares that memory, the buffer's
        // next growth takes a fresh allocation of its usual size instead, and the large one is
        // freed with the frame (bytes' BytesMut::reserve). A thousand agents in one process
        // spent 45 KiB each on this (heaptrack, BENCHMARKS.md "Embedded agents").
        let mut _held_frame = None;
        loop {
            tokio::select! {
                frame = socket.next() => {
                    let text = match frame {
                        Some(Ok(Message::Text(text))) => text,
                        Some(Ok(Message::Close(close))) => {
                            return self.lost(synced_once, format!("closed: {close:?}"));
                        }
                        Some(Ok(_)) => continue,
                        Some(Err(e)) => return self.lost(synced_once, format!("read: {e}")),
                        None => return self.lost(synced_once, "closed".into()),
                    };
                    let event = self.on_message(text.as_str());
                    _held_frame = Some(text);
                    let mut out = Vec::new();
                    if let Some(event) = event {
                        self.on_plane(event, &mut out);
                    }
                    out.extend(self.lockstep_progress());
                    if let Err(reason) = send_all(&mut socket, out).await {
                        return self.lost(synced_once, reason);
                    }
                    if self.model.synced && !synced_once {
                        synced_once = true;
                        if self.config.label.is_empty() || self.config.label != self.model.me.name {
                            chatty!(self.quiet, agent = %self.config.label, character = %self.model.me.name, "in the world");
                        }
                        if self.config.goal.is_none() && self.goal.chosen_by_agent {
                            self.goal = Goal::choose(&self.model);
                            chatty!(self.quiet, agent = %self.config.label, goal = %self.goal.description, "chose a goal");
                        }
                        // In the status at once (a lockstep host waits for this before its first
                        // step; the clock would show it within a few ticks otherwise).
                        self.publish(true);
                    }
                }
                _ = ticker.tick(), if !self.lockstep => {
                    self.now += 1;
                    let mut frames = self.step();
                    if self.now.is_multiple_of(STATUS_EVERY_TICKS) {
                        self.publish(true);
                        if self.control_plane {
                            frames.push(self.status_report());
                        }
                    }
                    if let Err(reason) = send_all(&mut socket, frames).await {
                        return self.lost(synced_once, reason);
                    }
                    self.count_step();
                }
                answer = async { (&mut self.thinking.as_mut().expect("guarded").task).await }, if self.thinking.is_some() => {
                    let number = self.thinking.take().map_or(0, |t| t.number);
                    let answer = answer.unwrap_or_else(|e| Answer { result: Err(LlmFailure::Transport(e.to_string())), latency_ms: 0 });
                    self.stats.record_latency(answer.latency_ms);
                    let frames = if matches!(self.stepping, Some((Fence::Think, _))) {
                        // Lockstep: read once the step's fence is answered.
                        self.held_answer = Some((number, answer.result));
                        self.lockstep_progress()
                    } else {
                        self.on_answer(number, answer.result)
                    };
                    if let Err(reason) = send_all(&mut socket, frames).await {
                        return self.lost(synced_once, reason);
                    }
                }
                event = control.recv() => {
                    match event {
                        None | Some(Control::Shutdown) => {
                            let _ = socket.close(None).await;
                            return SessionEnd::Shutdown;
                        }
                        Some(Control::Step(reply)) | Some(Control::Sync(reply)) if !self.model.synced => {
                            // Not in the world yet: nothing to step or fence.
                            let _ = reply.send(());
                        }
                        Some(Control::Step(reply)) => {
                            if let Err(reason) = self.fence_first(&mut socket, Fence::Read, reply).await {
                                return self.lost(synced_once, reason);
                            }
                        }
                        Some(Control::Sync(reply)) => {
                            if let Err(reason) = self.fence_first(&mut socket, Fence::Alone, reply).await {
                                return self.lost(synced_once, reason);
                            }
                        }
                        Some(event) => {
                            let mut out = Vec::new();
                            self.on_control(event, Some(&mut out));
                            // An owner's pause may drop the call a lockstep step waits for.
                            out.extend(self.lockstep_progress());
                            if let Err(reason) = send_all(&mut socket, out).await {
                                return self.lost(synced_once, reason);
                            }
                        }
                    }
                }
            }
        }
    }

    fn lost(&self, synced: bool, reason: String) -> SessionEnd {
        if synced {
            return SessionEnd::Synced(reason);
        }
        SessionEnd::Lost(reason)
    }

    /// Starts a lockstep step or a fence alone (`phase`): a fence goes out first, and the host
    /// hears `reply` once the step it starts is done ([`Agent::lockstep_progress`]).
    async fn fence_first(
        &mut self,
        socket: &mut Socket,
        phase: Fence,
        reply: oneshot::Sender<()>,
    ) -> Result<(), String> {
        self.stepping = Some((phase, reply));
        let fence = self.fence();
        send_all(socket, vec![fence]).await
    }

    /// A `player:sync` fence (lockstep): the world answers it between ticks, behind everything
    /// queued for this connection before it.
    fn fence(&mut self) -> String {
        self.fences += 1;
        let (text, _) = self.encode_with_ref(ClientMessage::Sync);
        text
    }

    /// Moves a lockstep step on once its fences are answered: runs the step after the tick's
    /// messages are read, and answers the host once the world holds what it sent.
    fn lockstep_progress(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if self.fences > 0 {
            return out;
        }
        match self.stepping.as_ref().map(|(phase, _)| *phase) {
            Some(Fence::Read) => {
                self.now += 1;
                out = self.step();
                if self.now.is_multiple_of(STATUS_EVERY_TICKS) {
                    self.publish(true);
                    if self.control_plane {
                        out.push(self.status_report());
                    }
                }
                self.count_step();
                // A fence either way: thinking, it marks the end of the replies to what the step
                // sent before the call, which are read before the answer is.
                out.push(self.fence());
                let phase = if self.thinking.is_some() {
                    Fence::Think
                } else {
                    Fence::Sent
                };
                if let Some((p, _)) = self.stepping.as_mut() {
                    *p = phase;
                }
            }
            Some(Fence::Think) if self.held_answer.is_some() || self.thinking.is_none() => {
                // The answer (or no call any more: the owner dropped it), after every reply the
                // step's fence stood behind; then the fence for what the answer sent.
                if let Some((number, result)) = self.held_answer.take() {
                    out = self.on_answer(number, result);
                }
                out.push(self.fence());
                if let Some((p, _)) = self.stepping.as_mut() {
                    *p = Fence::Sent;
                }
            }
            Some(Fence::Sent | Fence::Alone) => {
                self.publish(true);
                if let Some((_, reply)) = self.stepping.take() {
                    let _ = reply.send(());
                }
            }
            Some(Fence::Think) | None => {}
        }
        out
    }

    /// The running action's fate is unknown once the socket is gone.
    fn connection_lost(&mut self) {
        self.fences = 0;
        self.stepping = None;
        self.held_answer = None;
        if let Some(running) = self.running.take() {
            self.finish(running, Outcome::Unknown);
        }
        self.thinking = None;
        self.publish(false);
    }

    async fn tick_ms(&self, base: &str) -> u64 {
        let answer = self
            .http
            .send(Request::get(format!("{base}/api/config")))
            .await;
        match answer {
            Ok(response) => serde_json::from_slice::<Value>(&response.body)
                .ok()
                .and_then(|v| v.get("tickMs").and_then(Value::as_u64))
                .unwrap_or(DEFAULT_TICK_MS),
            Err(_) => DEFAULT_TICK_MS,
        }
        .max(10)
    }

    /// Applies a server message; a control-plane event is handed back for the session to run.
    fn on_message(&mut self, text: &str) -> Option<control_plane::PlaneEvent> {
        let message: ServerMessage = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => {
                tracing::debug!(agent = %self.config.label, error = %e, "a message this agent does not read");
                return None;
            }
        };
        if let Some(event) = control_plane::event_of(&message) {
            return Some(event);
        }
        if self.fences > 0 && self.model.synced && matches!(message, ServerMessage::PlayerSync(_)) {
            // A lockstep fence's answer: the state the agent already has, not news.
            self.fences -= 1;
            return None;
        }
        self.model.apply(&message);
        let refused = match &message {
            ServerMessage::Error(e) => e
                .reference
                .as_ref()
                .map(|r| (ref_text(r), e.code.clone(), e.message.clone())),
            ServerMessage::TradeError(e) => e
                .reference
                .as_ref()
                .map(|r| (ref_text(r), e.code.clone(), e.message.clone())),
            // A duel's refusals (too far, busy, not on that screen) end its action as refused.
            ServerMessage::DuelError(e) => e
                .reference
                .as_ref()
                .map(|r| (ref_text(r), e.code.clone(), e.message.clone())),
            _ => None,
        };
        if let Some((reference, code, text)) = refused {
            let ours = self
                .running
                .as_ref()
                .is_some_and(|r| r.refs.contains(&reference));
            if ours {
                let outcome = self
                    .running
                    .as_mut()
                    .and_then(|r| r.procedure.on_rejected(&code, &text));
                if let Some(outcome) = outcome {
                    let running = self.running.take().expect("checked above");
                    self.finish(running, outcome);
                }
            }
        }
        None
    }

    /// One tick of the agent: reflexes, the running action, and a new decision when idle.
    fn step(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.model.synced {
            return out;
        }
        let ctx = Ctx {
            model: &self.model,
            knowledge: &self.knowledge,
        };
        if let Some(reflex) = self.planner.reflex(ctx, self.now) {
            let same = self
                .running
                .as_ref()
                .is_some_and(|r| r.decision.action == reflex.action);
            if !same {
                if let Some(running) = self.running.take() {
                    self.finish(
                        running,
                        Outcome::Failed {
                            reason: format!("preempted by the {} reflex", reflex.action),
                        },
                    );
                }
                self.thinking = None;
                self.start(reflex, "reflex", &mut out);
            }
        }
        if let Some(running) = self.running.as_mut() {
            let mut frames = Vec::new();
            let poll = running.procedure.poll(&self.model, self.now, &mut frames);
            for frame in frames {
                out.push(self.encode(frame));
            }
            if let Poll::Done(outcome) = poll {
                let running = self.running.take().expect("polled above");
                self.finish(running, outcome);
            }
        }
        if self.running.is_none() && !self.paused {
            if let Some(decision) = self.resume_next.take() {
                self.start(decision, "planner", &mut out);
            }
        }
        if self.running.is_some()
            || self.thinking.is_some()
            || self.now < self.idle_until
            || self.paused
        {
            return out;
        }
        if self.goal.is_reached(&self.model) {
            chatty!(self.quiet, agent = %self.config.label, goal = %self.goal.description, "goal reached");
            self.goal = Goal::choose(&self.model);
            chatty!(self.quiet, agent = %self.config.label, goal = %self.goal.description, "chose a goal");
        }
        if self.llm.is_some() {
            if let Some(frames) = self.think() {
                out.extend(frames);
            }
            return out;
        }
        self.plan_next(&mut out);
        out
    }

    /// Asks the planner for the next decision and starts it.
    fn plan_next(&mut self, out: &mut Vec<String>) {
        let ctx = Ctx {
            model: &self.model,
            knowledge: &self.knowledge,
        };
        let decision = self.planner.decide(ctx, &self.goal, self.now);
        self.start(decision, "planner", out);
    }

    /// Starts a model call, or falls back to the planner for this step (counted).
    fn think(&mut self) -> Option<Vec<String>> {
        let config = Arc::clone(self.llm.as_ref()?);
        let now = self.clock();
        let failure = if !self.breaker.allows(now) {
            Some(LlmFailure::CircuitOpen)
        } else if !self.budget.try_call(now) {
            Some(LlmFailure::BudgetExhausted)
        } else {
            None
        };
        if let Some(failure) = failure {
            return Some(self.fall_back(failure));
        }
        let ctx = Ctx {
            model: &self.model,
            knowledge: &self.knowledge,
        };
        let prompt = crate::brain::prompt::build(
            ctx,
            &self.goal,
            &self.recent,
            &self.owner_notes,
            &mut self.aliases,
        );
        tracing::debug!(agent = %self.config.label, tokens = crate::brain::prompt::prompt_tokens(&prompt), user_bytes = prompt.user.len(), "model prompt");
        self.owner_notes.clear();
        self.decisions += 1;
        let number = self.decisions;
        self.stats.calls += 1;
        let http = self.http.clone();
        let task = tokio::spawn(async move { llm::ask(&http, &config, &prompt).await });
        self.thinking = Some(Thinking { number, task });
        None
    }

    /// The model answered (or failed): its action, checked by the table, or the planner's.
    fn on_answer(
        &mut self,
        number: u64,
        answer: Result<(ToolCall, Usage), LlmFailure>,
    ) -> Vec<String> {
        let now = self.clock();
        if let Ok((_, usage)) = &answer {
            self.stats.input_tokens += usage.input;
            self.stats.output_tokens += usage.output;
            self.stats.cached_tokens += usage.cached;
            self.budget.spend(now, usage.input + usage.output);
        }
        // A late answer (the goal changed, a reflex took over, the agent paused) is dropped.
        if number != self.decisions || self.running.is_some() || self.paused {
            tracing::debug!(agent = %self.config.label, number, "a stale model answer dropped");
            return Vec::new();
        }
        let mut call = match answer {
            Ok((call, _)) => call,
            Err(failure) => {
                self.breaker.record(false, now);
                return self.fall_back(failure);
            }
        };
        self.aliases.resolve(&mut call.arguments);
        let ctx = Ctx {
            model: &self.model,
            knowledge: &self.knowledge,
        };
        let offered = actions::find(&call.name).is_some_and(|a| {
            a.name == "setGoal" || a.name == "idle" || (a.available)(ctx).is_some()
        });
        let refusal = if !offered {
            Some(Outcome::refused(
                "not_offered",
                format!("{} is not possible now", call.name),
            ))
        } else {
            actions::plan(ctx, &call.name, &call.arguments).err()
        };
        // The model answered: the breaker, which guards against a model that cannot answer (an
        // outage, garbage), hears a success even when the table refuses the action; a refusal is
        // the model's mistake, counted among its invalid answers, and must not shut it out.
        self.breaker.record(true, now);
        if let Some(refusal) = refusal {
            let failure = LlmFailure::Refused(refusal.to_string());
            if self.fallback() == Fallback::Wait {
                // The model's choice is its decision, refused: counted among the refusals and
                // shown in its next prompt, as any refused action is.
                let action = actions::find(&call.name).map_or("invalid", |a| a.name);
                let decision = Decision {
                    action,
                    params: call.arguments,
                    reason: "the model's choice".into(),
                    reflex: false,
                };
                self.settle(decision, number, "llm", refusal, false);
            }
            return self.fall_back(failure);
        }
        self.stats.decisions += 1;
        let name = actions::find(&call.name).map_or("idle", |a| a.name);
        let decision = Decision {
            action: name,
            params: call.arguments,
            reason: "the model's choice".into(),
            reflex: false,
        };
        let mut out = Vec::new();
        self.start(decision, "llm", &mut out);
        out
    }

    /// A step the model did not serve, counted by why, played by the configured [`Fallback`]:
    /// the planner's decision, or nothing (the agent waits; the next step asks again).
    fn fall_back(&mut self, failure: LlmFailure) -> Vec<String> {
        *self.stats.fallbacks.entry(failure.kind()).or_default() += 1;
        self.stats.breaker_opened = self.breaker.opened;
        let fallback = self.fallback();
        chatty!(self.quiet, agent = %self.config.label, why = failure.kind(), detail = ?failure, fallback = fallback.name(), "the model's step fell back");
        let mut out = Vec::new();
        if fallback == Fallback::Planner {
            self.plan_next(&mut out);
        }
        out
    }

    /// The model's [`Fallback`] (the planner's own steps never fall back).
    fn fallback(&self) -> Fallback {
        self.llm.as_ref().map_or(Fallback::Planner, |c| c.fallback)
    }

    /// Plans `decision` with the table and starts it (or records its refusal).
    fn start(&mut self, decision: Decision, by: &'static str, out: &mut Vec<String>) {
        if by != "llm" {
            self.decisions += 1;
        }
        let number = self.decisions;
        chatty!(
            self.quiet,
            agent = %self.config.label,
            goal = %self.goal.description,
            action = decision.action,
            params = %decision.params,
            reason = %decision.reason,
            by,
            "decided"
        );
        let ctx = Ctx {
            model: &self.model,
            knowledge: &self.knowledge,
        };
        match actions::plan(ctx, decision.action, &decision.params) {
            Err(refusal) => {
                self.settle(decision, number, by, refusal, true);
            }
            Ok(Planned::Goal(goal)) => {
                let outcome = if self.paused {
                    Outcome::refused("paused", "goals are not set while paused")
                } else {
                    self.goal = goal;
                    Outcome::Accepted {
                        detail: format!("goal: {}", self.goal.description),
                    }
                };
                self.settle(decision, number, by, outcome, true);
            }
            Ok(Planned::Wait(ticks)) => {
                self.idle_until = self.now + ticks;
                let outcome = Outcome::Accepted {
                    detail: format!("idle {ticks} ticks"),
                };
                self.settle(decision, number, by, outcome, true);
            }
            Ok(Planned::Run(mut procedure)) => {
                let mut frames = Vec::new();
                let poll = procedure.poll(&self.model, self.now, &mut frames);
                let mut running = Running {
                    decision,
                    number,
                    by,
                    procedure,
                    refs: HashSet::new(),
                };
                for frame in frames {
                    let (text, reference) = self.encode_with_ref(frame);
                    running.refs.insert(reference);
                    out.push(text);
                }
                match poll {
                    Poll::Pending => self.running = Some(running),
                    Poll::Done(outcome) => self.finish(running, outcome),
                }
            }
        }
        self.publish(true);
    }

    /// The time the model's budget and circuit breaker count: the wall clock, or in lockstep the
    /// game's (the steps taken at the server's tick length), which a stepped world follows.
    fn clock(&self) -> Instant {
        if self.lockstep {
            self.epoch + Duration::from_millis(self.now.saturating_mul(self.tick_ms))
        } else {
            Instant::now()
        }
    }

    fn encode(&mut self, message: ClientMessage) -> String {
        let (text, reference) = self.encode_with_ref(message);
        if let Some(running) = self.running.as_mut() {
            running.refs.insert(reference);
        }
        text
    }

    fn encode_with_ref(&mut self, message: ClientMessage) -> (String, String) {
        self.next_ref += 1;
        let reference = format!("a{}", self.next_ref);
        let text = message.frame(Some(Value::String(reference.clone())));
        (text, reference)
    }

    /// Records `decision` as ended at once with `outcome` (nothing sent, nothing to wait for);
    /// `learn` as in [`Agent::finish_learning`].
    fn settle(
        &mut self,
        decision: Decision,
        number: u64,
        by: &'static str,
        outcome: Outcome,
        learn: bool,
    ) {
        let running = Running {
            decision,
            number,
            by,
            procedure: Procedure::Finished(outcome.clone()),
            refs: HashSet::new(),
        };
        self.finish_learning(running, outcome, learn);
    }

    fn finish(&mut self, running: Running, outcome: Outcome) {
        self.finish_learning(running, outcome, true);
    }

    /// Records the end of `running`; `learn`: the planner remembers a failure (a target it
    /// avoids for a while). An action the owner interrupted did not fail on its target.
    fn finish_learning(&mut self, running: Running, outcome: Outcome, learn: bool) {
        chatty!(
            self.quiet,
            agent = %self.config.label,
            action = running.decision.action,
            outcome = outcome.kind(),
            detail = %outcome,
            "outcome"
        );
        if learn {
            self.planner.observe(&running.decision, &outcome, self.now);
        }
        *self.outcomes.entry(outcome.kind()).or_default() += 1;
        if self.recent.len() == RECENT_DECISIONS {
            self.recent.pop_front();
        }
        self.recent.push_back(DecisionRecord {
            number: running.number,
            tick: self.model.tick,
            goal: Some(self.goal.description.clone()),
            action: running.decision.action,
            params: serde_json::value::to_raw_value(&running.decision.params)
                .unwrap_or_else(|_| RawValue::NULL.to_owned()),
            reason: running.decision.reason,
            by: running.by,
            outcome: Some(outcome),
        });
    }

    fn on_control(&mut self, event: Control, out: Option<&mut Vec<String>>) {
        let mut frames = Vec::new();
        match event {
            Control::SetGoal(goal, reply) => {
                let answer = if self.paused {
                    Err("paused".to_owned())
                } else {
                    chatty!(self.quiet, agent = %self.config.label, goal = %goal.description, "goal set by the owner");
                    self.goal = *goal;
                    self.drop_plan();
                    Ok(())
                };
                let _ = reply.send(answer);
            }
            Control::Stop => {
                self.paused = true;
                self.stopped_on = self
                    .running
                    .as_ref()
                    .filter(|r| matches!(r.by, "planner" | "llm"))
                    .map(|r| r.decision.clone());
                self.drop_plan();
                // The movement path stops now, not when the next decision would have.
                let (text, _) =
                    self.encode_with_ref(ClientMessage::Action(ActionRequest::new("stop")));
                frames.push(text);
                chatty!(self.quiet, agent = %self.config.label, "paused");
            }
            Control::Resume => {
                let was_paused = std::mem::replace(&mut self.paused, false);
                chatty!(self.quiet, agent = %self.config.label, "resumed");
                // Back to the goal and the target it had, not a fresh pick that avoids it.
                if let Some(decision) = self.stopped_on.take().filter(|_| was_paused) {
                    let decision = Decision {
                        reason: format!("resumed: {}", decision.reason),
                        ..decision
                    };
                    if self.running.is_none() {
                        self.start(decision, "planner", &mut frames);
                    } else {
                        // A reflex runs even while paused (closing a dialogue in the way,
                        // eating): the stopped decision comes back once it is done, rather than
                        // being forgotten (a resume that came while a reflex ran was lost).
                        self.resume_next = Some(decision);
                    }
                }
            }
            Control::Message(text) => match crate::commands::parse(&text) {
                Some((def, params)) => {
                    self.drop_plan();
                    let params = params.map_err(|why| Outcome::refused("invalid_params", why));
                    let decision = Decision {
                        action: def.name,
                        params: params.as_ref().map_or(json!({}), Clone::clone),
                        reason: "the owner's command".into(),
                        reflex: false,
                    };
                    match params {
                        Ok(_) => self.start(decision, "owner", &mut frames),
                        Err(refusal) => self.refuse(decision, "owner", refusal),
                    }
                }
                None => {
                    chatty!(self.quiet, agent = %self.config.label, %text, "owner message");
                    self.answer(&text);
                    if self.owner_notes.len() == 5 {
                        self.owner_notes.pop_front();
                    }
                    self.owner_notes.push_back(text);
                }
            },
            Control::Inspect(reply) => {
                let ctx = Ctx {
                    model: &self.model,
                    knowledge: &self.knowledge,
                };
                let _ = reply.send(providers::all(ctx));
            }
            Control::Shutdown => {}
            // Only a connected session steps or fences (it is handled there); while reconnecting
            // the host hears at once that there was nothing to do.
            Control::Step(reply) | Control::Sync(reply) => {
                let _ = reply.send(());
            }
        }
        if let Some(out) = out {
            out.extend(frames);
        }
        self.publish(true);
    }

    /// A control-plane event from the server: the owner's goal, stop, resume or message, run as
    /// the in-process control of the same name.
    fn on_plane(&mut self, event: control_plane::PlaneEvent, out: &mut Vec<String>) {
        use control_plane::PlaneEvent;
        self.control_plane = true;
        match event {
            PlaneEvent::Goal { id, goal, paused } => {
                if paused && !self.paused {
                    self.on_control(Control::Stop, Some(out));
                } else if !paused && self.paused {
                    self.on_control(Control::Resume, Some(out));
                }
                if let Some(goal) = goal {
                    let same = self.server_goal_id.is_some() && self.server_goal_id == id;
                    if !same {
                        chatty!(self.quiet, agent = %self.config.label, goal = %goal.description, "goal from the owner");
                        self.goal = goal;
                        self.drop_plan();
                    }
                    self.server_goal_id = id;
                } else {
                    self.server_goal_id = None;
                }
                self.publish(true);
            }
            PlaneEvent::Stop => self.on_control(Control::Stop, Some(out)),
            PlaneEvent::Resume => self.on_control(Control::Resume, Some(out)),
            PlaneEvent::Message(text) => self.on_control(Control::Message(text), Some(out)),
        }
    }

    /// Records `decision` as refused before anything was sent (an owner's command whose
    /// arguments do not read).
    fn refuse(&mut self, decision: Decision, by: &'static str, refusal: Outcome) {
        self.decisions += 1;
        self.settle(decision, self.decisions, by, refusal, false);
    }

    /// Answers an owner's plain message in the decisions the owner reads (`GET …/decisions`): a
    /// model reads it in its next prompt; the planner says what it can do with it.
    fn answer(&mut self, text: &str) {
        let reply = if self.llm.is_some() {
            "noted: the model reads it at its next decision".to_owned()
        } else {
            crate::planner::answer(text)
        };
        self.decisions += 1;
        let decision = Decision {
            action: "reply",
            params: json!({"to": text.chars().take(80).collect::<String>()}),
            reason: reply.clone(),
            reflex: false,
        };
        self.settle(
            decision,
            self.decisions,
            if self.llm.is_some() { "llm" } else { "planner" },
            Outcome::Accepted { detail: reply },
            false,
        );
    }

    /// The `agent:status` report for the server, with the decisions since the last one.
    fn status_report(&mut self) -> String {
        let tokens = self.stats.input_tokens + self.stats.output_tokens;
        let mut frame = control_plane::status_frame(
            &self.goal,
            self.server_goal_id.as_deref(),
            &self.model,
            self.paused,
            &self.recent,
            self.reported_up_to,
            tokens,
        );
        if let ClientMessage::AgentStatus(status) = &mut frame {
            status.model = self.stats.report();
        }
        if let Some(last) = self.recent.back() {
            self.reported_up_to = last.number;
        }
        // Not the running action's ref: the server's answer to a report is no verdict on it.
        self.encode_with_ref(frame).0
    }

    /// Abandons the running action and any model call (a goal change or a pause).
    fn drop_plan(&mut self) {
        self.resume_next = None;
        if let Some(running) = self.running.take() {
            self.finish_learning(
                running,
                Outcome::Failed {
                    reason: "interrupted by the owner".into(),
                },
                false,
            );
        }
        self.thinking = None;
        self.decisions += 1;
        self.idle_until = 0;
    }

    /// Shows the step just run in the status (only the counter: the rest waits for `publish`).
    fn count_step(&self) {
        if self.status.is_closed() {
            return;
        }
        let steps = self.now;
        self.status.send_modify(|status| status.steps = steps);
    }

    /// Updates the status its host reads; skipped when the host dropped its reader (a host of
    /// many agents that never reads them saves a copy of the state and decisions per agent).
    fn publish(&self, connected: bool) {
        if self.status.is_closed() {
            return;
        }
        let ctx = Ctx {
            model: &self.model,
            knowledge: &self.knowledge,
        };
        let mut stats = self.stats.clone();
        stats.breaker_opened = self.breaker.opened;
        let status = AgentStatus {
            label: self.config.label.clone(),
            character_id: (!self.model.me.id.is_empty()).then(|| self.model.me.id.clone()),
            connected,
            reconnects: self.reconnects,
            goal: Some(self.goal.to_json(&self.model)),
            paused: self.paused,
            brain: self.config.brain.describe(),
            current_action: self.running.as_ref().map(|r| r.decision.action.to_owned()),
            model: stats,
            outcomes: self.outcomes.clone(),
            recent_decisions: self.recent.clone(),
            state: json!({
                "gameState": providers::game_state(ctx),
                "inventory": providers::inventory(ctx),
                "skills": providers::skills(ctx),
            }),
            steps: self.now,
        };
        let _ = self.status.send(status);
    }
}

/// Writes `frames` in order; the first write error ends the session (its reason for the log).
async fn send_all(socket: &mut Socket, frames: Vec<String>) -> Result<(), String> {
    for frame in frames {
        socket
            .send(Message::text(frame))
            .await
            .map_err(|e| format!("write: {e}"))?;
    }
    Ok(())
}

enum SessionEnd {
    Shutdown,
    /// Never got in: back off longer.
    Lost(String),
    /// Played, then lost the connection: reconnect from the shortest delay.
    Synced(String),
}

/// The goal kind name of a goal (`skill`, `bank`, …).
pub fn goal_kind(goal: &Goal) -> &'static str {
    match goal.kind {
        GoalKind::Skill { .. } => "skill",
        GoalKind::Combat { .. } => "combat",
        GoalKind::Gather { .. } => "gather",
        GoalKind::Cook { .. } => "cook",
        GoalKind::Bank => "bank",
        GoalKind::Earn { .. } => "earn",
        GoalKind::Follow { .. } => "follow",
        GoalKind::Explore { .. } => "explore",
        GoalKind::Idle => "idle",
        GoalKind::Duel { .. } => "duel",
    }
}
