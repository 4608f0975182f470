//! Start-up and shutdown: the order in which the parts come up and go down.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use wayfarer_sim::World;
use wayfarer_store::Store;

use crate::app::{self, AppState, WorldView};
use crate::auth::idp::IdpVerifier;
use crate::auth::revocation::Revocations;
use crate::auth::tokens::ServerTokens;
use crate::auth::AuthService;
use crate::config::Config;
use crate::content_state::ContentHolder;
use crate::local_postgres::LocalPostgres;
use crate::online::OnlinePlayers;
use crate::rate_limit::Limits;
use crate::world_thread::{WorldContext, WorldInput, WorldThread};

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
    stop_tx: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl RunningServer {
    /// Starts every part in order: world directory, database (and migrations), world thread, listener.
    pub async fn start(config: Config) -> anyhow::Result<RunningServer> {
        let started = Instant::now();
        // Install the metrics recorder before anything records.
        crate::http::metrics::handle();
        std::fs::create_dir_all(&config.world_dir).with_context(|| {
            format!(
                "cannot create the world directory {}",
                config.world_dir.display()
            )
        })?;
        // Marks the world as running until the server has stopped (closed its database), so
        // `wayfarer restore` cannot replace the database under it.
        let world_lock = crate::world_lock::WorldLock::serve(&config.world_dir)?;

        let local_postgres = if config.use_local_postgres {
            Some(LocalPostgres::start(&config).await?)
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

        let secret = crate::auth::secret::resolve(&config)?;
        // Logged-out tokens stay refused across a restart; rows of expired tokens go.
        let purged = store
            .revoked_tokens()
            .purge_expired(wayfarer_store::now_ms())
            .await?;
        let revoked = Revocations::load(&store, wayfarer_store::now_ms()).await?;
        tracing::info!(
            revoked_tokens = revoked.len(),
            expired_purged = purged,
            "token revocations loaded"
        );
        let auth = Arc::new(AuthService {
            tokens: ServerTokens::new(&secret),
            idp: IdpVerifier::from_config(&config)?,
            revoked,
        });
        if config.disable_rate_limit && !config.rate_limits_disabled() {
            tracing::warn!("DISABLE_RATE_LIMIT is refused in production: rate limits stay on");
        }
        let limits = Arc::new(Limits::new(
            Duration::from_secs(config.rate_limit_window_secs),
            config.rate_limits_disabled(),
        ));

        let (active, content_options, validators) = crate::content_sync::load(&config).await;
        crate::content_sync::write_catalog(&store, &active.content).await;
        let (content_updates, content_rx) = tokio::sync::watch::channel(active.content.clone());
        let content = Arc::new(ContentHolder::new(active));
        let refresher = tokio::spawn(crate::content_sync::refresh_loop(
            content_options,
            validators,
            content.clone(),
            content_updates,
            Duration::from_secs(config.manifest_refresh_secs),
            config.world_seed,
        ));

        let trimmer = tokio::spawn(crate::memory_trim::run());
        let online = Arc::new(OnlinePlayers::default());
        let economy = Arc::new(crate::economy::EconomyCounters::default());
        let (save_tx, save_rx) = tokio::sync::mpsc::unbounded_channel();
        let saver = tokio::spawn(crate::saver::run(store.clone(), save_rx));
        let initial_content = content.get().content.clone();
        let layout_seed = crate::world_seed::resolve(&config)?;
        let mut world = World::with_seeds(
            initial_content.clone(),
            layout_seed,
            config.dice_seed.unwrap_or_else(crate::world_seed::dice),
        );
        // The chat limits go with the other rate limits: off only outside production.
        world.set_chat_limits(!config.rate_limits_disabled());
        world.set_tick_threads(config.tick_threads);
        // What of the world outlived the last run (depleted resources, ground items) goes back
        // before the first tick.
        crate::world_chunks::restore(&store, &mut world)
            .await
            .context("cannot restore the world chunks")?;
        let (global_chat, global_lines) = crate::cluster::global_chat::relay(&config).unzip();
        let world = WorldThread::spawn(
            world,
            WorldContext {
                tick: Duration::from_millis(config.tick_ms),
                manual: config.manual_clock,
                save_interval: Duration::from_secs(config.save_interval_secs),
                joins_per_tick: usize::try_from(config.joins_per_tick).unwrap_or(usize::MAX),
                joins_per_tick_max: usize::try_from(config.joins_per_tick_max)
                    .unwrap_or(usize::MAX),
                content: initial_content,
                online: online.clone(),
                saves: save_tx,
                economy: economy.clone(),
                global_chat,
                realtime: config.world_thread_realtime,
            },
        )
        .context("cannot start the world thread")?;
        // Items of deaths still locked (a crash or stop before they were picked up) go back on
        // the ground before anyone can enter.
        crate::deaths::restore(
            &store,
            &world.sender(),
            Duration::from_millis(config.tick_ms),
            wayfarer_store::now_ms(),
        )
        .await
        .context("cannot restore death piles")?;
        // New content from the CDN reaches the world at its next tick boundary.
        let content_forwarder = {
            let sender = world.sender();
            let mut updates = content_rx;
            let store = store.clone();
            tokio::spawn(async move {
                while updates.changed().await.is_ok() {
                    let next = updates.borrow_and_update().clone();
                    crate::content_sync::write_catalog(&store, &next).await;
                    if !sender.send(WorldInput::ReplaceContent(next)) {
                        tracing::error!(
                            "could not hand new content to the world: its queue is full"
                        );
                    }
                }
            })
        };
        let listener = tokio::net::TcpListener::bind((config.host.as_str(), config.port))
            .await
            .with_context(|| format!("cannot listen on {}:{}", config.host, config.port))?;
        let addr = listener.local_addr()?;
        // Connections are capped below the open-file limit, so `accept` never runs out of files
        // and `/health` keeps answering whatever one address holds open.
        let open_file_limit = crate::http::connection_limits::raise_open_file_limit();
        let connection_settings = config.connections.clone();
        let connection_tracker = Arc::new(crate::http::connection_limits::ConnectionTracker::new(
            &connection_settings,
            connection_settings.global_cap(open_file_limit, config.embedded_agents),
            config.trusted_proxies.clone(),
        ));

        let web = crate::http::web_assets::WebAssets::new(config.web_dir.clone());
        let cluster = crate::cluster::Cluster::connect(&config)
            .await
            .context("cannot set up the NATS client")?;
        let state = AppState::new(app::AppShared {
            config: Arc::new(config),
            store: store.clone(),
            world: WorldView::new(world.stats()),
            started,
            auth,
            limits: limits.clone(),
            content,
            world_sender: world.sender(),
            online,
            connections: Arc::new(crate::connections::Connections::default()),
            cpu: Arc::default(),
            economy,
            web,
            terrain: Arc::default(),
            agents: Arc::default(),
            cluster: cluster.clone(),
        });
        let cluster_tasks = cluster.map(|c| crate::cluster::spawn(c, state.clone(), global_lines));
        let lease_world = store.lease_world();
        // Idle rate-limit keys, and revocations of tokens that have expired since, are forgotten
        // once a window so memory (and the revoked_tokens table) stays bounded.
        let pruner = {
            let auth = state.auth.clone();
            let store = store.clone();
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
        };
        let in_process = state.clone();
        // Embedded agents connect to this listener; they wait until it answers.
        let embedded = crate::agents::embedded::EmbeddedAgents::start(state.clone(), addr);
        let connections = state.connections.clone();
        // Production's figures on a listener of their own (`http::metrics`); a taken address
        // stops start-up like a taken main port.
        let (metrics_addr, metrics_task) = match in_process.config.metrics_addr {
            Some(wanted) => {
                let listener = tokio::net::TcpListener::bind(wanted)
                    .await
                    .with_context(|| {
                        format!("cannot listen on METRICS_ADDR {wanted} (set another, or off)")
                    })?;
                let bound = listener.local_addr()?;
                let router = crate::http::metrics::apart_router(state.clone());
                let task = tokio::spawn(async move {
                    if let Err(err) = axum::serve(listener, router).await {
                        tracing::error!(error = %err, "the metrics listener stopped");
                    }
                });
                tracing::info!(addr = %bound, "serving /metrics apart");
                (Some(bound), Some(task))
            }
            None => (None, None),
        };
        let router = app::router(state);
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let task_store = store.clone();
        let task = tokio::spawn(async move {
            let (drained_tx, drained_rx) = oneshot::channel::<()>();
            let serve = crate::http::listener::serve(
                listener,
                router,
                connection_tracker,
                connection_settings,
                async move {
                    let _ = stop_rx.await;
                    tracing::info!(
                        "shutting down: no new connections, finishing requests in flight"
                    );
                    // Embedded agents leave first, like players closing their clients: their
                    // characters are saved on leaving, before the world stops.
                    if let Some(embedded) = embedded {
                        embedded.stop().await;
                    }
                    // Game sockets are upgraded connections the HTTP server no longer tracks: tell them.
                    let asked = connections.shut_down();
                    tracing::info!(connections = asked, "game sockets asked to close");
                    let _ = drained_tx.send(());
                },
            );
            let serve = tokio::spawn(serve);
            // Once shutdown begins, in-flight requests get a bounded grace period.
            let finished = async {
                let _ = drained_rx.await;
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            };
            let mut serve = serve;
            tokio::select! {
                result = &mut serve => {
                    result.context("HTTP server task failed")?;
                }
                () = finished => {
                    tracing::warn!(grace_secs = SHUTDOWN_GRACE.as_secs(), "requests still in flight after the grace period; closing");
                    serve.abort();
                }
            }
            pruner.abort();
            if let Some(metrics) = metrics_task {
                metrics.abort();
            }
            refresher.abort();
            trimmer.abort();
            content_forwarder.abort();
            // Joining the world thread waits at most for the tick in progress.
            if let Ok(Some(world)) = tokio::task::spawn_blocking(move || world.stop()).await {
                tracing::info!(tick = world.tick_number(), "world stopped");
            }
            // The world saved everyone still online; once it is gone the save task drains and ends.
            if tokio::time::timeout(SHUTDOWN_GRACE, saver).await.is_err() {
                tracing::error!("pending saves did not finish in time");
            }
            if let Some(tasks) = cluster_tasks {
                tasks.abort();
            }
            // Everyone still online was saved (or could not be): their leases go, so they can
            // enter another world at once instead of after the lease time.
            if let Some(world) = lease_world {
                match task_store.leases().clear_world(world).await {
                    Ok(released) => tracing::info!(world, released, "character leases released"),
                    Err(err) => {
                        tracing::error!(world, error = %err, "releasing character leases failed; they expire by themselves")
                    }
                }
            }
            task_store.close().await;
            if let Some(pg) = local_postgres {
                pg.stop().await;
            }
            tracing::info!("shutdown complete");
            drop(world_lock);
            Ok(())
        });
        tracing::info!(
            %addr,
            startup_ms = started.elapsed().as_millis() as u64,
            "listening for HTTP and WebSocket"
        );
        Ok(RunningServer {
            addr,
            metrics_addr,
            store,
            state: in_process,
            stop_tx: Some(stop_tx),
            task,
        })
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
    /// [`TickClock::step`]: crate::world_thread::TickClock::step
    pub fn clock(&self) -> crate::world_thread::TickClock {
        self.state.clock()
    }

    /// A sender that begins graceful shutdown, for signal handlers.
    pub fn shutdown_trigger(&mut self) -> Option<oneshot::Sender<()>> {
        self.stop_tx.take()
    }
}
