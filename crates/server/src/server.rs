//! Start-up and shutdown: the order in which the parts come up and go down. `RunningServer::start`
//! names the steps; each is a function beside what it starts.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use wayfarer_host::cluster::{global_chat, Cluster, ClusterTasks, HostHandles};
use wayfarer_host::economy::EconomyCounters;
use wayfarer_host::online::OnlinePlayers;
use wayfarer_host::running::{self, RunningHost};
use wayfarer_host::world_thread::WorldContext;
use wayfarer_store::Store;

use crate::agents::embedded::{self, EmbeddedAgents};
use crate::app::{self, AppState, WorldView};
use crate::auth::AuthService;
use crate::config::Config;
use crate::content_sync::RunningContent;
use crate::http::listener::Bound;
use crate::local_postgres::LocalPostgres;
use crate::rate_limit::Limits;
use crate::world_lock::WorldLock;

/// How long in-flight requests get to finish once shutdown starts.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// A server that is up and listening.
pub struct RunningServer {
    /// The address it listens on (the real port when `PORT=0`).
    pub addr: SocketAddr,
    /// Where the `METRICS_ADDR` listener serves `/metrics` (the real port when its port is 0),
    /// when there is one.
    pub metrics_addr: Option<SocketAddr>,
    /// The database it uses.
    pub store: Store,
    /// What the handlers reach, for in-process callers such as embedded agents, which register
    /// through `agents::registration` without an HTTP request.
    pub state: AppState,
    /// The embedded agents in lockstep with a manual world (`EmbeddedAgents::crowd`).
    embedded_crowd: Option<wayfarer_agent::lockstep::Crowd>,
    stop_tx: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl RunningServer {
    /// Starts every part in order: world directory, database (and migrations), tokens and
    /// limits, content, the game host (saves and the world thread), the listener, several
    /// worlds' link, the shared state, the background tasks and the router.
    pub async fn start(config: Config) -> anyhow::Result<RunningServer> {
        let started = Instant::now();
        // Install the metrics recorder before anything records.
        crate::http::metrics::handle();
        let world_lock = lock_world_dir(&config)?;
        let (store, local_postgres) = open_store(&config).await?;
        let auth = Arc::new(AuthService::start(&config, &store).await?);
        let limits = Arc::new(Limits::from_config(&config));
        let content = crate::content_sync::start(&config, &store).await;
        let trimmer = tokio::spawn(crate::memory_trim::run());
        let cluster_settings = config.cluster_settings();
        let (global_chat, global_lines) = cluster_settings
            .as_ref()
            .and_then(global_chat::relay)
            .unzip();
        let (host, online, economy) = start_host(&config, &store, &content, global_chat).await?;
        let content_forwarder =
            crate::content_sync::forward(content.updates, host.sender(), store.clone());
        let bound = Bound::bind(&config).await?;
        let addr = bound.addr;
        let cluster = match &cluster_settings {
            Some(settings) => Some(
                Cluster::connect(settings)
                    .await
                    .context("cannot set up the NATS client")?,
            ),
            None => None,
        };
        let web = crate::http::web_assets::WebAssets::new(config.web_dir.clone());
        let agents = crate::agents::AgentPlane {
            store: store.clone(),
            world: host.sender(),
            hub: Arc::default(),
            tokens: auth.clone(),
        };
        let state = AppState::new(app::AppShared {
            config: Arc::new(config),
            store: store.clone(),
            world: WorldView::new(host.world().stats()),
            started,
            auth,
            limits,
            content: content.holder.clone(),
            world_sender: host.sender(),
            online,
            connections: Arc::default(),
            cpu: Arc::default(),
            economy,
            web,
            terrain: Arc::default(),
            agents,
            cluster: cluster.clone(),
        });
        let cluster_tasks =
            cluster.map(|c| wayfarer_host::cluster::spawn(c, host_handles(&state), global_lines));
        let pruner = spawn_pruner(&state);
        // Embedded agents connect to this listener; they wait until it answers.
        let embedded = embedded::start(&state, addr);
        let embedded_crowd = embedded.as_ref().and_then(EmbeddedAgents::crowd);
        let apart = crate::http::metrics::serve_apart(&state).await?;
        let metrics_addr = apart.as_ref().map(|(bound, _)| *bound);
        let router = app::router(state.clone());
        let mut tasks = vec![pruner, content.refresher, trimmer, content_forwarder];
        tasks.extend(apart.map(|(_, task)| task));
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let stopping = Stopping {
            embedded,
            connections: state.connections.clone(),
            tasks,
            host,
            cluster_tasks,
            store: store.clone(),
            local_postgres,
            world_lock,
        };
        let task = tokio::spawn(serve_until_stopped(bound, router, stop_rx, stopping));
        tracing::info!(
            %addr,
            startup_ms = started.elapsed().as_millis() as u64,
            "listening for HTTP and WebSocket"
        );
        Ok(RunningServer {
            addr,
            metrics_addr,
            store,
            state,
            embedded_crowd,
            stop_tx: Some(stop_tx),
            task,
        })
    }

    /// On the manual clock, the embedded agents, to step in lockstep with the world (`None` on a
    /// timed clock or without embedded agents).
    pub fn embedded_agents(&self) -> Option<wayfarer_agent::lockstep::Crowd> {
        self.embedded_crowd.clone()
    }

    /// Graceful shutdown: stop accepting, finish requests in flight, stop the world, close the database.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.stop_tx.take() {
            let _ = tx.send(());
        }
        self.wait().await
    }

    /// Waits until the server has stopped (after [`RunningServer::shutdown`] or a fatal error).
    pub async fn wait(self) -> anyhow::Result<()> {
        self.task.await.context("server task panicked")?
    }

    /// The world's clock: with `TICK_MS=manual` (tests), [`TickClock::step`] runs ticks and
    /// returns once they are done; on the timed clock it refuses.
    ///
    /// [`TickClock::step`]: wayfarer_host::world_thread::TickClock::step
    pub fn clock(&self) -> wayfarer_host::world_thread::TickClock {
        self.state.clock()
    }

    /// A sender that begins graceful shutdown, for signal handlers.
    pub fn shutdown_trigger(&mut self) -> Option<oneshot::Sender<()>> {
        self.stop_tx.take()
    }
}

/// Makes the world directory and marks the world as running until the server has stopped
/// (closed its database), so `wayfarer restore` cannot replace the database under it.
fn lock_world_dir(config: &Config) -> anyhow::Result<WorldLock> {
    std::fs::create_dir_all(&config.world_dir).with_context(|| {
        format!(
            "cannot create the world directory {}",
            config.world_dir.display()
        )
    })?;
    Ok(WorldLock::serve(&config.world_dir)?)
}

/// Opens and migrates the database (a local PostgreSQL first with `USE_LOCAL_POSTGRES`), and
/// cleans up after an unclean stop: this world's leftover leases, the sessions left open.
async fn open_store(config: &Config) -> anyhow::Result<(Store, Option<LocalPostgres>)> {
    let local_postgres = if config.use_local_postgres {
        Some(LocalPostgres::start(config).await?)
    } else {
        None
    };
    let database_url = match &local_postgres {
        Some(pg) => pg.url(),
        None => config.effective_database_url(),
    };
    let pools = config.pool_settings(&database_url);
    let (store, applied) = Store::connect_migrated_with(&database_url, pools)
        .await
        .with_context(|| {
            format!(
                "cannot open and migrate the database {}",
                wayfarer_store::redact_url(&database_url)
            )
        })?;
    // Several worlds: saves write only characters leased to this world, and a world that
    // starts drops the leases it held before (a crash: no session of it survives).
    let store = match config.nats_url {
        Some(_) => {
            let cleared = store.leases().clear_world(config.world_id).await?;
            if cleared > 0 {
                tracing::warn!(
                    world = config.world_id,
                    leases = cleared,
                    "released the character leases an unclean stop left"
                );
            }
            store.with_lease_world(config.world_id)
        }
        None => store,
    };
    let recovered = match store.lease_world() {
        // Other worlds' players have open sessions too: leave those alone.
        Some(world) => store.sessions().close_dangling_of_world(world).await?,
        None => store.sessions().close_dangling().await?,
    };
    if recovered > 0 {
        tracing::warn!(
            sessions = recovered,
            "closed player sessions left open by an unclean stop"
        );
    }
    tracing::info!(
        backend = store.backend().name(),
        migrations_applied = applied.len(),
        "database ready"
    );
    Ok((store, local_postgres))
}

/// Starts the game host (`wayfarer_host::running`) on the world `config` and the content make:
/// the save task, the world thread with the schedule `config` sets, the death piles put back.
async fn start_host(
    config: &Config,
    store: &Store,
    content: &RunningContent,
    global_chat: Option<global_chat::GlobalChatRelay>,
) -> anyhow::Result<(RunningHost, Arc<OnlinePlayers>, Arc<EconomyCounters>)> {
    let online = Arc::new(OnlinePlayers::default());
    let economy = Arc::new(EconomyCounters::default());
    let initial = content.holder.get().content.clone();
    let world = crate::world_seed::world(config, initial.clone())?;
    let (saves, save_jobs) = running::save_queue();
    let context = WorldContext {
        tick: Duration::from_millis(config.tick_ms),
        manual: config.manual_clock,
        save_interval: Duration::from_secs(config.save_interval_secs),
        joins_per_tick: usize::try_from(config.joins_per_tick).unwrap_or(usize::MAX),
        joins_per_tick_max: usize::try_from(config.joins_per_tick_max).unwrap_or(usize::MAX),
        content: initial,
        online: online.clone(),
        saves,
        economy: economy.clone(),
        global_chat,
        realtime: config.world_thread_realtime,
    };
    let host = RunningHost::start(store, world, context, save_jobs).await?;
    Ok((host, online, economy))
}

/// What the cluster's tasks act on (`wayfarer_host::cluster`): this server's store, world queue,
/// online list and connections, and its token service for revocations from other worlds.
fn host_handles(state: &AppState) -> HostHandles {
    HostHandles {
        store: state.store.clone(),
        world: state.world_sender.clone(),
        online: state.online.clone(),
        connections: state.connections.clone(),
        revocations: Arc::new(state.clone()),
    }
}

/// Idle rate-limit keys, and revocations of tokens that have expired since, are forgotten once a
/// window so memory (and the `revoked_tokens` table) stays bounded.
fn spawn_pruner(state: &AppState) -> JoinHandle<()> {
    let (limits, auth, store) = (
        state.limits.clone(),
        state.auth.clone(),
        state.store.clone(),
    );
    tokio::spawn(async move {
        let mut every = tokio::time::interval(crate::rate_limit::WINDOW);
        loop {
            every.tick().await;
            limits.prune();
            let now = wayfarer_store::now_ms();
            auth.revoked.prune(now);
            if let Err(err) = store.revoked_tokens().purge_expired(now).await {
                tracing::warn!(error = %err, "purging expired token revocations failed");
            }
        }
    })
}

/// What shutdown stops, in [`serve_until_stopped`]'s order.
struct Stopping {
    embedded: Option<EmbeddedAgents>,
    connections: Arc<wayfarer_host::connections::Connections>,
    /// Background tasks that only stop (the pruner, the CDN refresh, memory trims, the content
    /// forwarder, the metrics listener).
    tasks: Vec<JoinHandle<()>>,
    host: RunningHost,
    cluster_tasks: Option<ClusterTasks>,
    store: Store,
    local_postgres: Option<LocalPostgres>,
    world_lock: WorldLock,
}

/// Serves until `stop` fires, then shuts down in order: embedded agents leave, game sockets are
/// asked to close, requests in flight get [`SHUTDOWN_GRACE`], the world stops and its saves
/// drain, leases are released and the database closed.
async fn serve_until_stopped(
    bound: Bound,
    router: axum::Router,
    stop: oneshot::Receiver<()>,
    stopping: Stopping,
) -> anyhow::Result<()> {
    let Stopping {
        embedded,
        connections,
        tasks,
        host,
        cluster_tasks,
        store,
        local_postgres,
        world_lock,
    } = stopping;
    let (drained_tx, drained_rx) = oneshot::channel::<()>();
    let mut serve = tokio::spawn(bound.serve(router, async move {
        let _ = stop.await;
        tracing::info!("shutting down: no new connections, finishing requests in flight");
        // Embedded agents leave first, like players closing their clients: their characters are
        // saved on leaving, before the world stops.
        if let Some(embedded) = embedded {
            embedded.stop().await;
        }
        // Game sockets are upgraded connections the HTTP server no longer tracks: tell them.
        let asked = connections.shut_down();
        tracing::info!(connections = asked, "game sockets asked to close");
        let _ = drained_tx.send(());
    }));
    // Once shutdown begins, in-flight requests get a bounded grace period.
    let finished = async {
        let _ = drained_rx.await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        result = &mut serve => {
            result.context("HTTP server task failed")?;
        }
        () = finished => {
            tracing::warn!(grace_secs = SHUTDOWN_GRACE.as_secs(), "requests still in flight after the grace period; closing");
            serve.abort();
        }
    }
    for task in tasks {
        task.abort();
    }
    // The world saves everyone still online; then the save task drains.
    host.stop(SHUTDOWN_GRACE).await;
    if let Some(tasks) = cluster_tasks {
        tasks.abort();
    }
    // Everyone still online was saved (or could not be): their leases go, so they can enter
    // another world at once instead of after the lease time.
    if let Some(world) = store.lease_world() {
        match store.leases().clear_world(world).await {
            Ok(released) => tracing::info!(world, released, "character leases released"),
            Err(err) => {
                tracing::error!(world, error = %err, "releasing character leases failed; they expire by themselves")
            }
        }
    }
    store.close().await;
    if let Some(pg) = local_postgres {
        pg.stop().await;
    }
    tracing::info!("shutdown complete");
    drop(world_lock);
    Ok(())
}
