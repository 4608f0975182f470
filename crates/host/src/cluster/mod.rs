//! Several worlds on one PostgreSQL and one NATS (issue 19). Present only when `NATS_URL` is set:
//! a single world never builds a [`Cluster`] and no code here runs.
//!
//! PostgreSQL is the truth and NATS carries notifications. A character's lease
//! (`character_leases`, `store::repo::leases`) says which world may hold it; NATS is how a world
//! asks another to let a character go, and how worlds tell each other who they are, private
//! messages and friends' news. Losing NATS never risks an item: every ownership decision is a
//! conditional statement in the database, and saves refuse characters whose lease the world lost.
//!
//! Subjects (JSON payloads):
//! - `wayfarer.worlds`: each world's [`WorldAnnouncement`], every [`ANNOUNCE_EVERY`];
//! - `wayfarer.world.<id>.release`: request — close this character's connection (4000), save it,
//!   release its lease, then reply;
//! - `wayfarer.world.<id>.kick`: request — an admin's kick or ban of a character on that world;
//! - `wayfarer.world.<id>.deliver`: messages for players on that world (private messages);
//! - `wayfarer.notify`: messages for players on whichever world they are (friends' news, lists);
//! - `wayfarer.chat.global`: global chat lines, when `CROSS_WORLD_GLOBAL_CHAT` is on
//!   ([`global_chat`]);
//! - `wayfarer.tokens.revoked`: logged-out tokens, so every world refuses them and closes their
//!   sockets ([`revocations`]; the database is read too, for a world that missed one).
//!
//! A world announces itself only once its subscriptions are made: a world that lists another
//! knows that messages for it are heard (NATS drops what nobody is subscribed to).

pub mod global_chat;
pub mod revocations;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_nats::connection::State;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;
use wayfarer_protocol::ws::{codes, ServerMessage};
use wayfarer_store::{LeaseOutcome, Store};

use crate::connections::{CloseRequest, Connections, CLOSE_BANNED, CLOSE_KICKED, CLOSE_REPLACED};
use crate::online::OnlinePlayers;
use crate::world_thread::{WorldInput, WorldSender};

/// How often a world announces itself.
pub const ANNOUNCE_EVERY: Duration = Duration::from_secs(2);
/// A world not heard from for this long is dropped from the list (three missed announcements and
/// a margin: one late packet must not make a world blink out).
pub const WORLD_SILENCE: Duration = Duration::from_secs(7);
/// The longest a world waits for another to release a character: its final save
/// (`FINAL_SAVE_WAIT`) and a margin. Past it the entering connection is refused (1013).
pub const RELEASE_WAIT: Duration = Duration::from_secs(35);
/// Between two attempts at a lease another world holds.
const LEASE_RETRY: Duration = Duration::from_millis(100);
/// The longest a publish may wait: when NATS is away the client's buffer may be full, and a
/// socket task must never hang on it.
const PUBLISH_WAIT: Duration = Duration::from_millis(500);
/// Subject prefix of everything the worlds say to each other.
const SUBJECT_WORLDS: &str = "wayfarer.worlds";
const SUBJECT_NOTIFY: &str = "wayfarer.notify";

/// What a world says about itself, and what `GET /api/worlds` lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorldAnnouncement {
    /// The world's number (`WORLD_ID`).
    pub id: i64,
    /// What players see in the list (`WORLD_NAME`).
    pub name: String,
    /// The world's game socket (`PUBLIC_WS_URL`), null when unset.
    pub ws_url: Option<String>,
    /// The world's HTTP base (`PUBLIC_API_URL`), null when unset.
    pub api_url: Option<String>,
    /// Players online there now.
    pub players: u64,
    /// Population at which it counts as full (`WORLD_CAPACITY`).
    pub capacity: u64,
    /// `players >= capacity`.
    pub full: bool,
}

/// A request to another world about one character.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CharacterRequest {
    character_id: String,
    /// `kick`: whether the account was banned (closes with 4003 instead of 4001).
    #[serde(default)]
    banned: bool,
}

/// The answer to a [`CharacterRequest`].
#[derive(Debug, Serialize, Deserialize)]
struct CharacterReply {
    /// `release`: the lease is free; `kick`: the connection was asked to close.
    done: bool,
}

/// Messages for players, wherever they are.
#[derive(Debug, Serialize, Deserialize)]
struct Delivery {
    /// The sending world: its own broadcasts come back to it and were delivered there already.
    from_world: i64,
    to: Vec<String>,
    message: ServerMessage,
}

/// Why something across worlds could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// NATS is down or unreachable.
    #[error("the other worlds cannot be reached right now; try again")]
    Unavailable,
    /// Another world holds the character and did not let it go in time.
    #[error("the character is still online in world {0}; try again")]
    HeldElsewhere(i64),
    /// The database failed.
    #[error("the character's lease could not be checked: {0}")]
    Store(String),
}

impl ClusterError {
    /// The wire code for an `error` message.
    pub fn code(&self) -> &'static str {
        match self {
            ClusterError::Unavailable => codes::CROSS_WORLD_UNAVAILABLE,
            ClusterError::HeldElsewhere(_) => "character_online_elsewhere",
            ClusterError::Store(_) => "server_error",
        }
    }
}

/// What a world of a group needs to join it: the server's `NATS_URL`, the announcement made of
/// `WORLD_ID`, `WORLD_NAME`, `PUBLIC_WS_URL`, `PUBLIC_API_URL` and `WORLD_CAPACITY`,
/// `WORLD_LEASE_SECS` and `CROSS_WORLD_GLOBAL_CHAT` (`Config::cluster_settings` in the server).
#[derive(Debug, Clone)]
pub struct ClusterSettings {
    pub nats_url: String,
    /// This world as it announces itself (`players` and `full` are filled in at each announcement).
    pub me: WorldAnnouncement,
    pub lease_ttl_ms: i64,
    /// Whether global chat lines go to the other worlds ([`global_chat`]).
    pub global_chat: bool,
}

/// The parts of this world the cluster's tasks act on: the database (leases, revocations), the
/// world's queue (deliveries, relayed lines), the online count (announcements), the live
/// connections (kicks, releases) and what applies a revocation heard from another world (the
/// server's token service: [`revocations::ApplyRevocation`]).
#[derive(Clone)]
pub struct HostHandles {
    pub store: Store,
    pub world: WorldSender,
    pub online: Arc<OnlinePlayers>,
    pub connections: Arc<Connections>,
    pub revocations: Arc<dyn revocations::ApplyRevocation>,
}

/// This world's part in a group of worlds.
pub struct Cluster {
    pub world_id: i64,
    me: WorldAnnouncement,
    lease_ttl_ms: i64,
    client: async_nats::Client,
    connected: Arc<AtomicBool>,
    /// Other worlds by id, with when they last spoke.
    worlds: Mutex<HashMap<i64, (WorldAnnouncement, Instant)>>,
    leases: Mutex<Leases>,
}

/// The leases this world holds, by character: `held` are committed (the heartbeat must find each
/// of them renewed, or it was lost); `taking` are being acquired (a release request for one of them
/// must wait, not treat the row as an orphan).
#[derive(Default)]
struct Leases {
    held: HashMap<String, String>,
    taking: HashSet<String>,
}

impl Cluster {
    /// Connects to NATS in the background (a world starts and plays while NATS is away) and
    /// returns at once.
    pub async fn connect(
        settings: &ClusterSettings,
    ) -> Result<Arc<Cluster>, async_nats::ConnectError> {
        let connected = Arc::new(AtomicBool::new(false));
        let flag = connected.clone();
        let world_id = settings.me.id;
        metrics::gauge!("nats_connected").set(0.0);
        let client = async_nats::ConnectOptions::new()
            .name(format!("wayfarer-world-{world_id}"))
            .retry_on_initial_connect()
            // Reconnect forever, at most a second apart: NATS coming back must be noticed quickly.
            .max_reconnects(None)
            .reconnect_delay_callback(|attempts| {
                Duration::from_millis((attempts as u64 * 100).min(1000))
            })
            .connection_timeout(Duration::from_secs(2))
            .event_callback(move |event| {
                let flag = flag.clone();
                async move {
                    match event {
                        async_nats::Event::Connected => {
                            flag.store(true, Ordering::Relaxed);
                            metrics::gauge!("nats_connected").set(1.0);
                            tracing::info!(world = world_id, "NATS connected");
                        }
                        async_nats::Event::Disconnected => {
                            flag.store(false, Ordering::Relaxed);
                            metrics::gauge!("nats_connected").set(0.0);
                            metrics::counter!("nats_disconnects_total").increment(1);
                            tracing::warn!(
                                world = world_id,
                                "NATS disconnected: cross-world features unavailable until it is back"
                            );
                        }
                        other => tracing::debug!(world = world_id, event = %other, "NATS event"),
                    }
                }
            })
            .connect(settings.nats_url.as_str())
            .await?;
        Ok(Arc::new(Cluster {
            world_id,
            me: settings.me.clone(),
            lease_ttl_ms: settings.lease_ttl_ms,
            client,
            connected,
            worlds: Mutex::default(),
            leases: Mutex::default(),
        }))
    }

    /// Whether NATS is reachable now.
    pub fn is_connected(&self) -> bool {
        self.connected.load(Ordering::Relaxed) && self.client.connection_state() == State::Connected
    }

    fn subject(world: i64, what: &str) -> String {
        format!("wayfarer.world.{world}.{what}")
    }

    /// This world's announcement with the current population.
    pub fn announcement(&self, players: u64) -> WorldAnnouncement {
        WorldAnnouncement {
            players,
            full: players >= self.me.capacity,
            ..self.me.clone()
        }
    }

    /// Every live world, this one first, then by id.
    pub fn worlds(&self, players: u64) -> Vec<WorldAnnouncement> {
        let mut out = vec![self.announcement(players)];
        let mut others: Vec<WorldAnnouncement> = lock(&self.worlds)
            .values()
            .filter(|(_, heard)| heard.elapsed() < WORLD_SILENCE)
            .map(|(w, _)| w.clone())
            .filter(|w| w.id != self.world_id)
            .collect();
        others.sort_by_key(|w| w.id);
        out.extend(others);
        out
    }

    /// The name of a live world, when known.
    pub fn world_name(&self, id: i64) -> Option<String> {
        if id == self.world_id {
            return Some(self.me.name.clone());
        }
        lock(&self.worlds).get(&id).map(|(w, _)| w.name.clone())
    }

    async fn publish(&self, subject: String, payload: Vec<u8>) -> Result<(), ClusterError> {
        if !self.is_connected() {
            return Err(ClusterError::Unavailable);
        }
        match tokio::time::timeout(PUBLISH_WAIT, self.client.publish(subject, payload.into())).await
        {
            Ok(Ok(())) => Ok(()),
            _ => Err(ClusterError::Unavailable),
        }
    }

    async fn request(
        &self,
        subject: String,
        body: &CharacterRequest,
        wait: Duration,
    ) -> Result<Option<CharacterReply>, ClusterError> {
        if !self.is_connected() {
            return Err(ClusterError::Unavailable);
        }
        let payload = serde_json::to_vec(body).map_err(|e| ClusterError::Store(e.to_string()))?;
        match tokio::time::timeout(wait, self.client.request(subject, payload.into())).await {
            Ok(Ok(reply)) => Ok(serde_json::from_slice(&reply.payload).ok()),
            // No responder (that world is gone) or no answer in time: the caller decides.
            Ok(Err(err)) => {
                tracing::debug!(error = %err, "NATS request unanswered");
                Ok(None)
            }
            Err(_) => Ok(None),
        }
    }

    /// Takes the lease of `character_id` for this world, asking the world that holds it to let
    /// it go (it saves the character first). Returns the lease's holder token, to release with.
    pub async fn take_lease(
        &self,
        store: &Store,
        character_id: &str,
    ) -> Result<String, ClusterError> {
        let token = uuid::Uuid::now_v7().to_string();
        lock(&self.leases).taking.insert(character_id.to_owned());
        let taken = self.take_lease_as(store, character_id, &token).await;
        let mut leases = lock(&self.leases);
        leases.taking.remove(character_id);
        if taken.is_ok() {
            leases.held.insert(character_id.to_owned(), token.clone());
        }
        taken.map(|()| token)
    }

    async fn take_lease_as(
        &self,
        store: &Store,
        character_id: &str,
        token: &str,
    ) -> Result<(), ClusterError> {
        let deadline = Instant::now() + RELEASE_WAIT;
        let mut asked = None;
        loop {
            let outcome = store
                .leases()
                .acquire(character_id, self.world_id, token, self.lease_ttl_ms)
                .await
                .map_err(|e| ClusterError::Store(e.to_string()))?;
            let holder = match outcome {
                LeaseOutcome::Taken => return Ok(()),
                LeaseOutcome::HeldBy(holder) => holder,
            };
            if Instant::now() >= deadline {
                return Err(ClusterError::HeldElsewhere(holder.world_id));
            }
            // Ask once per holding world; then wait for the lease to be released, or (a world
            // killed with -9 answers nobody) to expire.
            if asked != Some(holder.world_id) {
                asked = Some(holder.world_id);
                tracing::info!(
                    character = character_id,
                    holder_world = holder.world_id,
                    "character online in another world: asking it to save and release"
                );
                let started = Instant::now();
                let reply = self
                    .request(
                        Self::subject(holder.world_id, "release"),
                        &CharacterRequest {
                            character_id: character_id.to_owned(),
                            banned: false,
                        },
                        deadline.saturating_duration_since(Instant::now()),
                    )
                    .await?;
                metrics::histogram!("cross_world_release_seconds")
                    .record(started.elapsed().as_secs_f64());
                tracing::debug!(
                    character = character_id,
                    answered = reply.is_some(),
                    "release asked"
                );
                continue;
            }
            tokio::time::sleep(LEASE_RETRY).await;
        }
    }

    /// Releases a lease taken with [`Cluster::take_lease`], after the character's final save.
    pub async fn release_lease(&self, store: &Store, character_id: &str, token: &str) {
        {
            // Out of `held` first: a heartbeat between the delete and this must not see it as lost.
            let mut leases = lock(&self.leases);
            if leases.held.get(character_id).map(String::as_str) == Some(token) {
                leases.held.remove(character_id);
            }
        }
        if let Err(err) = store.leases().release(character_id, token).await {
            // It expires by itself once the heartbeat stops renewing it... but the heartbeat
            // renews every row of this world, so say so loudly: the next start clears it.
            tracing::error!(character = character_id, error = %err, "releasing a character lease failed");
        }
    }

    /// Sends messages to players on any world (friends' news): delivered here directly, and
    /// published for the others. A world that cannot reach NATS still delivers its own.
    pub async fn notify_everywhere(
        &self,
        world: &WorldSender,
        to: Vec<String>,
        message: ServerMessage,
    ) {
        let payload = serde_json::to_vec(&Delivery {
            from_world: self.world_id,
            to: to.clone(),
            message: message.clone(),
        });
        world.send(WorldInput::Notify {
            to,
            message: Arc::new(message),
        });
        if let Ok(payload) = payload {
            if self
                .publish(SUBJECT_NOTIFY.to_owned(), payload)
                .await
                .is_err()
            {
                tracing::debug!("friends' news not sent to the other worlds: NATS unavailable");
            }
        }
    }

    /// Delivers `message` to `to` on world `world` (a private message).
    pub async fn deliver(
        &self,
        world: i64,
        to: Vec<String>,
        message: ServerMessage,
    ) -> Result<(), ClusterError> {
        let payload = serde_json::to_vec(&Delivery {
            from_world: self.world_id,
            to,
            message,
        })
        .map_err(|e| ClusterError::Store(e.to_string()))?;
        self.publish(Self::subject(world, "deliver"), payload).await
    }

    /// Asks world `world` to kick (or, `banned`, close as banned) a character; whether it was
    /// connected there.
    pub async fn kick_on(
        &self,
        world: i64,
        character_id: &str,
        banned: bool,
    ) -> Result<bool, ClusterError> {
        let reply = self
            .request(
                Self::subject(world, "kick"),
                &CharacterRequest {
                    character_id: character_id.to_owned(),
                    banned,
                },
                Duration::from_secs(3),
            )
            .await?;
        Ok(reply.is_some_and(|r| r.done))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The cluster's background tasks; aborted at shutdown.
pub struct ClusterTasks(Vec<JoinHandle<()>>);

impl ClusterTasks {
    /// Stops every task.
    pub fn abort(self) {
        for task in self.0 {
            task.abort();
        }
    }
}

/// Starts the listeners, the announcer (once the listeners are subscribed), the lease heartbeat
/// and, with `CROSS_WORLD_GLOBAL_CHAT`, the global chat relay.
pub fn spawn(
    cluster: Arc<Cluster>,
    host: HostHandles,
    global_lines: Option<global_chat::RelayLines>,
) -> ClusterTasks {
    let mut tasks = vec![
        tokio::spawn(heartbeat_loop(cluster.clone(), host.clone())),
        tokio::spawn(revocations::catch_up_loop(cluster.clone(), host.clone())),
    ];
    let mut listeners = vec![
        (SUBJECT_WORLDS.to_owned(), Listener::Worlds),
        (SUBJECT_NOTIFY.to_owned(), Listener::Deliver),
        (
            Cluster::subject(cluster.world_id, "deliver"),
            Listener::Deliver,
        ),
        (
            Cluster::subject(cluster.world_id, "release"),
            Listener::Release,
        ),
        (Cluster::subject(cluster.world_id, "kick"), Listener::Kick),
        (
            revocations::SUBJECT_REVOCATIONS.to_owned(),
            Listener::Revocations,
        ),
    ];
    if let Some(lines) = global_lines {
        listeners.push((
            global_chat::SUBJECT_GLOBAL_CHAT.to_owned(),
            Listener::GlobalChat,
        ));
        tasks.push(tokio::spawn(global_chat::relay_loop(
            cluster.clone(),
            host.clone(),
            lines,
        )));
    }
    let mut subscribed = Vec::new();
    for (subject, kind) in listeners {
        let (ready, is_ready) = tokio::sync::oneshot::channel();
        subscribed.push(is_ready);
        tasks.push(tokio::spawn(listen(
            cluster.clone(),
            host.clone(),
            subject,
            kind,
            ready,
        )));
    }
    tasks.push(tokio::spawn(announce_loop(cluster, host, subscribed)));
    ClusterTasks(tasks)
}

async fn announce_loop(
    cluster: Arc<Cluster>,
    host: HostHandles,
    subscribed: Vec<tokio::sync::oneshot::Receiver<()>>,
) {
    // The subscriptions go out on the same connection before the first announcement, so NATS
    // has them by the time another world hears of this one.
    for listener in subscribed {
        let _ = listener.await;
    }
    let mut every = tokio::time::interval(ANNOUNCE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let me = cluster.announcement(host.online.count() as u64);
        if let Ok(payload) = serde_json::to_vec(&me) {
            // Unavailable NATS is logged by the connection events; the next tick tries again.
            let _ = cluster.publish(SUBJECT_WORLDS.to_owned(), payload).await;
        }
        lock(&cluster.worlds).retain(|_, (_, heard)| heard.elapsed() < WORLD_SILENCE * 10);
    }
}

/// Renews this world's leases every third of their time. A character this world believes it
/// holds and the renewal did not find was taken by another world (this one could not renew for
/// longer than a lease): its connection is closed as replaced, and its save will be refused.
async fn heartbeat_loop(cluster: Arc<Cluster>, host: HostHandles) {
    let period = Duration::from_millis((cluster.lease_ttl_ms / 3).max(100) as u64);
    let mut every = tokio::time::interval(period);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let believed: Vec<(String, String)> = lock(&cluster.leases)
            .held
            .iter()
            .map(|(id, token)| (id.clone(), token.clone()))
            .collect();
        match host
            .store
            .leases()
            .renew(cluster.world_id, cluster.lease_ttl_ms)
            .await
        {
            Ok(renewed) => {
                metrics::gauge!("character_leases_held").set(renewed.len() as f64);
                let renewed: HashSet<String> = renewed.into_iter().collect();
                for (lost, token) in believed.iter().filter(|(id, _)| !renewed.contains(id)) {
                    {
                        // Released meanwhile, or released and taken again by a newer connection
                        // here (another token), is not a loss.
                        let mut leases = lock(&cluster.leases);
                        if leases.held.get(lost) != Some(token) {
                            continue;
                        }
                        leases.held.remove(lost);
                    }
                    tracing::error!(character = %lost, world = cluster.world_id, "character lease lost to another world: closing its connection");
                    metrics::counter!("character_leases_lost_total").increment(1);
                    host.connections.close(
                        lost,
                        CloseRequest {
                            code: CLOSE_REPLACED,
                            reason: "replaced by a login on another world",
                        },
                    );
                }
            }
            Err(err) => {
                metrics::counter!("character_lease_renewal_failures_total").increment(1);
                tracing::error!(world = cluster.world_id, error = %err, "renewing character leases failed");
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Listener {
    Worlds,
    Deliver,
    Release,
    Kick,
    GlobalChat,
    Revocations,
}

/// One subscription, kept for the life of the server (the client resubscribes after a reconnect).
async fn listen(
    cluster: Arc<Cluster>,
    host: HostHandles,
    subject: String,
    kind: Listener,
    ready: tokio::sync::oneshot::Sender<()>,
) {
    let mut subscription = loop {
        match cluster.client.subscribe(subject.clone()).await {
            Ok(s) => break s,
            Err(err) => {
                tracing::warn!(subject, error = %err, "NATS subscribe failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    };
    let _ = ready.send(());
    while let Some(message) = subscription.next().await {
        match kind {
            Listener::GlobalChat => global_chat::heard(&cluster, &host, &message.payload),
            Listener::Revocations => revocations::heard(&cluster, &host, &message.payload),
            Listener::Worlds => {
                if let Ok(world) = serde_json::from_slice::<WorldAnnouncement>(&message.payload) {
                    if world.id != cluster.world_id {
                        lock(&cluster.worlds).insert(world.id, (world, Instant::now()));
                    }
                }
            }
            Listener::Deliver => match serde_json::from_slice::<Delivery>(&message.payload) {
                Ok(delivery) => {
                    if delivery.from_world == cluster.world_id {
                        continue;
                    }
                    let local: Vec<String> = delivery
                        .to
                        .into_iter()
                        .filter(|id| host.connections.is_connected(id))
                        .collect();
                    if !local.is_empty() {
                        host.world.send(WorldInput::Notify {
                            to: local,
                            message: Arc::new(delivery.message),
                        });
                    }
                }
                Err(err) => {
                    tracing::warn!(subject, error = %err, "bad delivery from another world")
                }
            },
            Listener::Release | Listener::Kick => {
                let Ok(request) = serde_json::from_slice::<CharacterRequest>(&message.payload)
                else {
                    tracing::warn!(subject, "bad request from another world");
                    continue;
                };
                let Some(reply) = message.reply.clone() else {
                    continue;
                };
                let cluster = cluster.clone();
                let host = host.clone();
                // A release waits for a final save: answered on its own task, so requests for
                // other characters are not held up behind it.
                tokio::spawn(async move {
                    let done = match kind {
                        Listener::Release => {
                            release_for(&cluster, &host, &request.character_id).await
                        }
                        _ => host.connections.close(
                            &request.character_id,
                            if request.banned {
                                CloseRequest {
                                    code: CLOSE_BANNED,
                                    reason: "account banned",
                                }
                            } else {
                                CloseRequest {
                                    code: CLOSE_KICKED,
                                    reason: "kicked by an admin",
                                }
                            },
                        ),
                    };
                    if let Ok(payload) = serde_json::to_vec(&CharacterReply { done }) {
                        let _ = cluster.client.publish(reply, payload.into()).await;
                    }
                });
            }
        }
    }
}

/// Another world wants `character_id`: close its connection here (4000), and answer once its
/// final save is written and its lease released.
async fn release_for(cluster: &Cluster, host: &HostHandles, character_id: &str) -> bool {
    let closing = host.connections.close(
        character_id,
        CloseRequest {
            code: CLOSE_REPLACED,
            reason: "replaced by a login on another world",
        },
    );
    tracing::info!(
        character = character_id,
        connected = closing,
        "another world asked for a character"
    );
    let deadline = Instant::now() + RELEASE_WAIT;
    loop {
        let ours = {
            let leases = lock(&cluster.leases);
            leases.held.contains_key(character_id) || leases.taking.contains(character_id)
        };
        if !ours {
            // Nothing here holds it: a row of this world with no connection behind it (the
            // connection's release failed) is an orphan, and letting it go loses nothing.
            if let Ok(Some(holder)) = host.store.leases().holder(character_id).await {
                if holder.world_id == cluster.world_id {
                    let _ = host
                        .store
                        .leases()
                        .release(character_id, &holder.holder)
                        .await;
                }
            }
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
