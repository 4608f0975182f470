//! `wayfarer load`: many real WebSocket clients that behave like players, and what they measured.
//!
//! Each bot, started evenly over the ramp, creates a guest account (`POST /api/auth/guest`, with
//! `x-load-test-key` when a key is given, so that a server configured with `LOAD_TEST_KEY` lets
//! thousands of bots from one address past the per-address limits), creates a character
//! (`POST /api/v1/player`, another name on 409, with the key too), connects `/ws?token=…`, reads its `player:sync`, then
//! acts until the deadline:
//!
//! - `wander`: a first walk up to 120 tiles away (players spread out over the world), then
//!   `player:move` to a random tile within 10 tiles every 1–3 s;
//! - `chat`: `player:chat`, local (one in a hundred global), every 2–5 s;
//! - `mixed`: both, each on its own timer;
//! - `gather`: every 3–6 s, `player:action gather` on the nearest standing tree it has seen in its
//!   `world:update`s (the server walks it there), dropping a log when the inventory is full;
//! - `idle`: nothing at all after entering (no probes either): the cost of connected players;
//! - `spread`: one bot in ten wanders and chats in a crowd at the spawn; the others travel (legs of
//!   at most 150 tiles) to the world's towns, read once from `GET /api/map` and dealt round-robin,
//!   and there wander and chat (four in nine) or chop trees in the outskirts and chat (five in
//!   nine): the spread of a living world (`spread` module);
//! - `reconnect-storm`: idle, then every bot drops its socket at the same moment (a third of the
//!   way from the ramp's end to the deadline) and reconnects at once with the same account, as
//!   after a restart; the report adds the reconnect times (to `player:sync` and to the first
//!   `world:update`) and failures;
//! - `trade`: bots `2k` and `2k + 1` trade one coin each way, over and over, where they entered
//!   (everyone enters at the spawn point, within trading distance); see the `trade` module for
//!   the cycle. The report adds trades completed (overall and after the ramp), their durations,
//!   cancels and trade errors, and checks that the coins of the bots add up at the end.
//!
//! Several worlds (`url` lists them, comma-separated): bots are spread round-robin (trading
//! pairs stay together), each world's `/status` is watched, and the report adds a line per world
//! with its bots, errors and tick p99.
//!
//! Every bot but the idle ones also sends `player:sync` about every 2 s and times the reply (the round trip). At the
//! end every bot closes its socket normally and waits for the server's close.
//!
//! ```no_run
//! # async fn example() -> Result<(), wayfarer_bench::load::LoadError> {
//! use wayfarer_bench::load::{run, LoadOptions, Scenario};
//! let mut options = LoadOptions::new("http://127.0.0.1:5601");
//! options.bots = 200;
//! options.seconds = 20;
//! options.ramp_seconds = 5;
//! options.scenario = Scenario::Mixed;
//! let report = run(options).await?;
//! println!("{report}");
//! # Ok(()) }
//! ```
//!
//! Many bots need many sockets: raise the open-file limit (`ulimit -n`) for more than about 500.

mod bot;
mod options;
mod report;
mod scenario;
mod server_figures;
pub mod spread;
mod stats;
mod trade;
mod woods;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::{sleep_until, timeout, Instant};

pub use bot::{
    enter_world, Socket, CLOSE_TIMEOUT, CONNECT_TIMEOUT, LOAD_TEST_KEY_HEADER, NAME_ATTEMPTS,
    PROBE_TIMEOUT, SEND_TIMEOUT,
};
pub use options::{
    parse_chat_every, world_of, Endpoints, LoadOptions, Scenario, UnknownScenario, CHAT_EVERY_MAX,
    CHAT_EVERY_MIN,
};
pub use report::{CoinCheck, LoadReport, ReconnectReport, TradeReport, WorldReport};
pub use scenario::{
    base36, bot_name, Rng, CHAT_EVERY, FIRST_SYNC_WITHIN, GLOBAL_CHAT_ONE_IN, MAX_NAME_CHARS,
    MOVE_EVERY, SPREAD_CHAT_EVERY, SYNC_EVERY, WANDER_RADIUS_TILES,
};
pub use server_figures::{ServerFigures, StatusSample};
pub use stats::{percentile, LatencySummary, ReconnectStats, Samples};
pub use trade::{
    partner_of, Role, NEXT_TRADE_AFTER, PARTNER_POLL, RETRY_AFTER,
    STALL_TIMEOUT as TRADE_STALL_TIMEOUT,
};

use bot::Shared;
use report::RunFacts;
use stats::BotStats;

/// Timeout of each REST request a bot makes.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(10);
/// Timeout of the `/health` check before any bot starts.
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a load run could not run (problems of single bots are counted in the report instead).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Options that make no sense (no bots, no time, a ramp as long as the run).
    #[error("invalid load options: {0}")]
    InvalidOptions(String),
    /// The server URL is not `http://host:port`.
    #[error("invalid server URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `GET /health` failed before any bot started.
    #[error("server {url} is not reachable: {reason}")]
    Unreachable {
        /// The health URL.
        url: String,
        /// What happened.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("could not build the HTTP client: {0}")]
    Client(String),
    /// A bot's task panicked (a bug in the load generator).
    #[error("a bot task failed: {0}")]
    BotTask(String),
    /// The JSON report could not be written.
    #[error("could not write the report to {}: {source}", path.display())]
    WriteReport {
        /// Where it was to go.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
}

/// Runs a load test to its end and reports what the bots measured.
pub async fn run(options: LoadOptions) -> Result<LoadReport, LoadError> {
    run_until(options, std::future::pending()).await
}

/// Like [`run`], but ends early when `stop` completes (e.g. `tokio::signal::ctrl_c()`): bots not yet
/// started stay unstarted, the others close their sockets, and the report covers the time run.
pub async fn run_until(
    options: LoadOptions,
    stop: impl Future<Output = ()>,
) -> Result<LoadReport, LoadError> {
    let worlds = options.validate()?;
    let http = reqwest::Client::builder()
        .timeout(HTTP_TIMEOUT)
        .connect_timeout(HEALTH_TIMEOUT)
        .build()
        .map_err(|e| LoadError::Client(e.to_string()))?;
    let mut before = Vec::with_capacity(worlds.len());
    for world in &worlds {
        check_health(&http, world).await?;
        before.push(server_figures::sample(&http, &world.http_base).await);
    }

    let places = spread_places(&http, &worlds, options.scenario).await?;

    let start = Instant::now();
    let deadline = start + Duration::from_secs(options.seconds);
    let ramp = Duration::from_secs(options.ramp_seconds);
    let count = options.bots;
    let shared = Arc::new(Shared {
        worlds,
        http,
        key: options.key.clone(),
        scenario: options.scenario,
        chat_every: options.chat_every(),
        deadline,
        bots: count,
        character_ids: if options.scenario.trades() {
            (0..count).map(|_| std::sync::OnceLock::new()).collect()
        } else {
            Vec::new()
        },
        steady_from: start + ramp,
        places,
        storm_at: (options.scenario == Scenario::ReconnectStorm)
            .then(|| storm_at(start + ramp, deadline)),
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let (watch_done_tx, watch_done_rx) = watch::channel(false);
    // One watcher of `/status` per world.
    let watchers: Vec<_> = shared
        .worlds
        .iter()
        .zip(before)
        .map(|(world, before)| {
            before.map(|before| {
                tokio::spawn(server_figures::watch_server(
                    shared.http.clone(),
                    world.http_base.clone(),
                    before,
                    watch_done_rx.clone(),
                ))
            })
        })
        .collect();
    let mut stop = std::pin::pin!(stop);
    let mut stopped_at: Option<Instant> = None;
    let mut bots = JoinSet::new();
    tracing::info!(
        bots = count,
        seconds = options.seconds,
        ramp = options.ramp_seconds,
        scenario = %options.scenario,
        url = %options.url,
        "load test starting"
    );

    let mut started = 0usize;
    for index in 0..count {
        // Evenly over the ramp: bot i starts at ramp * i / bots.
        let at = start + ramp.mul_f64(index as f64 / count as f64);
        tokio::select! {
            () = sleep_until(at) => {}
            () = &mut stop => {
                stopped_at = Some(Instant::now());
                stop_tx.send_replace(true);
                break;
            }
        }
        let world = options::world_of(options.scenario, index, shared.worlds.len());
        let bot = bot::run_bot(index, shared.clone(), stop_rx.clone());
        bots.spawn(async move { (world, bot.await) });
        started += 1;
    }

    let mut total = BotStats::default();
    // Each world's bots' outcomes, for the per-world lines of the report.
    let mut by_world: Vec<WorldReport> = shared
        .worlds
        .iter()
        .map(|w| WorldReport::new(&w.http_base))
        .collect();
    let mut failure = None;
    loop {
        let next = if stopped_at.is_some() {
            bots.join_next().await
        } else {
            tokio::select! {
                next = bots.join_next() => next,
                () = &mut stop => {
                    // Completed futures are never polled again: `stopped_at` is set from here on.
                    stopped_at = Some(Instant::now());
                    stop_tx.send_replace(true);
                    continue;
                }
            }
        };
        match next {
            Some(Ok((world, stats))) => {
                by_world[world].count(&stats);
                total.merge(stats);
            }
            Some(Err(e)) => failure = Some(e.to_string()),
            None => break,
        }
    }
    if let Some(e) = failure {
        return Err(LoadError::BotTask(e));
    }

    let ended = stopped_at.unwrap_or(deadline).min(Instant::now());
    watch_done_tx.send_replace(true);
    let mut servers = Vec::with_capacity(watchers.len());
    for watcher in watchers {
        servers.push(match watcher {
            Some(task) => task.await.ok(),
            None => None,
        });
    }
    let mut report = LoadReport::new(
        RunFacts {
            url: shared
                .worlds
                .iter()
                .map(|w| w.http_base.as_str())
                .collect::<Vec<_>>()
                .join(","),
            scenario: options.scenario,
            bots: count as u64,
            bots_started: started as u64,
            seconds: options.seconds,
            ramp_seconds: options.ramp_seconds,
            duration_seconds: ended.saturating_duration_since(start).as_secs_f64(),
            stopped_early: stopped_at.is_some_and(|at| at < deadline),
        },
        total,
    );
    if servers.len() == 1 {
        report.server = servers.pop().flatten();
    } else {
        for (world, server) in by_world.iter_mut().zip(servers) {
            world.server = server;
        }
        report.worlds = by_world;
    }
    tracing::info!(
        connected = report.connected,
        failed = report.failed_connects,
        disconnects = report.disconnects,
        errors = report.errors,
        "load test finished"
    );
    Ok(report)
}

/// The `spread` scenario's places of each world (`GET /api/map`); none for other scenarios.
async fn spread_places(
    http: &reqwest::Client,
    worlds: &[Endpoints],
    scenario: Scenario,
) -> Result<Vec<spread::Places>, LoadError> {
    let mut places = Vec::new();
    if scenario == Scenario::Spread {
        for world in worlds {
            let found = spread::fetch_places(http, &world.http_base)
                .await
                .map_err(|reason| LoadError::Unreachable {
                    url: format!("{}/api/map", world.http_base),
                    reason,
                })?;
            tracing::info!(world = %world.http_base, towns = found.towns.len(), "spread: places read");
            places.push(found);
        }
    }
    Ok(places)
}

/// When the bots of `reconnect-storm` all drop and reconnect: a third of the way from the ramp's
/// end to the deadline, so everyone is in before and the rest of the run sees them back.
fn storm_at(ramp_end: Instant, deadline: Instant) -> Instant {
    ramp_end + deadline.saturating_duration_since(ramp_end) / 3
}

/// `GET /health`, so that a wrong address fails at once instead of as N failed connects.
async fn check_health(http: &reqwest::Client, endpoints: &Endpoints) -> Result<(), LoadError> {
    let url = format!("{}/health", endpoints.http_base);
    let unreachable = |reason: String| LoadError::Unreachable {
        url: url.clone(),
        reason,
    };
    let response = timeout(HEALTH_TIMEOUT, http.get(&url).send())
        .await
        .map_err(|_| unreachable("timed out".into()))?
        .map_err(|e| unreachable(e.to_string()))?;
    if !response.status().is_success() {
        return Err(unreachable(format!("HTTP {}", response.status())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_unreachable_server_fails_fast() {
        // Nothing listens on a port we just bound and released.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut options = LoadOptions::new(format!("http://127.0.0.1:{port}"));
        options.seconds = 1;
        let err = run(options).await.unwrap_err();
        assert!(matches!(err, LoadError::Unreachable { .. }), "{err}");
    }
}
