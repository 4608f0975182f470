//! The chaos run (issue 50, item 6; docs/operations.md, "The chaos run"): players trading, duelling
//! for stakes, buying and selling, banking, making, eating, dropping and picking up, all at once,
//! while the server process is killed with SIGKILL at random moments and started again on the same
//! world. After every kill two checks must hold, or the run fails:
//!
//! 1. **Every item exists exactly once**, read from the database while the server is down: per
//!    item, the units it holds (inventories, worn, banks, open death locks, the ground of the world
//!    chunks) equal what its books say entered minus what left (`wayfarer_store::repo::economy`).
//!    A lost item shows as a shortfall, a duplicated one as a surplus.
//! 2. **The economy audit balances**: once restarted, `GET /api/admin/economy` reports
//!    `books.balanced` (the same books, read by the server, over the world's whole life).
//!
//! The moments of the kills and every player's choices come from one seed, printed first, so a
//! failing run can be replayed (`--seed`; the server's own timing still varies). Used by the
//! `wayfarer-chaos` binary (`scripts/chaos.sh`) and by the server's test suite
//! (`crates/server/tests/api/chaos.rs`).

mod player;
mod server;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::time::Instant;
use wayfarer_store::{Books, Store, StoreError};

use crate::load::Rng;
pub use player::{PlayerStats, STARTING_COINS};
pub use server::{free_port, ServerProcess, ServerSetup};

use player::{Player, Shared};

/// Players in a run unless told otherwise.
pub const DEFAULT_PLAYERS: usize = 12;
/// How long the players get to stop once told.
const JOIN_WAIT: Duration = Duration::from_secs(5);
/// How long a graceful stop may take at the end.
const STOP_WAIT: Duration = Duration::from_secs(30);

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum ChaosError {
    #[error("server: {0}")]
    Server(String),
    #[error("setting up the players: {0}")]
    Setup(String),
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// A check failed: what, after which kill.
    #[error("{0}")]
    Imbalance(String),
}

/// One run.
#[derive(Debug, Clone)]
pub struct ChaosOptions {
    pub server: ServerSetup,
    /// Players, in pairs (each pair trades and duels together).
    pub players: usize,
    /// Play in all, spread over `kills + 1` stretches; one kill ends each stretch but the last.
    pub play: Duration,
    pub kills: u32,
    pub seed: u64,
}

/// One kill and its checks.
#[derive(Debug, Clone)]
pub struct KillRecord {
    /// After how long (since the run's start) the process was killed.
    pub at: Duration,
    /// Items the database held, and their units.
    pub items: usize,
    pub units: i64,
    /// Units that entered and left over the world's life, by the books.
    pub entered: i64,
    pub left: i64,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct ChaosSummary {
    pub seed: u64,
    /// The players' character ids.
    pub characters: Vec<String>,
    /// Each kill's checks, then the final stop's.
    pub kills: Vec<KillRecord>,
    /// Everyone's counts together.
    pub stats: PlayerStats,
    pub elapsed: Duration,
}

impl ChaosSummary {
    /// The one-line summary `scripts/chaos.sh` prints last.
    pub fn line(&self) -> String {
        let sent: u64 = self.stats.sent.values().sum();
        let last = self.kills.last();
        format!(
            "chaos: seed {} | {} kills and the final stop, every check balanced | {} s | {} requests, {} trade and {} duel results seen | books: {} units of {} items, {} entered, {} left",
            self.seed,
            self.kills.len().saturating_sub(1),
            self.elapsed.as_secs(),
            sent,
            self.stats.trades,
            self.stats.duels,
            last.map_or(0, |k| k.units),
            last.map_or(0, |k| k.items),
            last.map_or(0, |k| k.entered),
            last.map_or(0, |k| k.left),
        )
    }
}

/// Runs the chaos: prints the seed, each kill's checks and returns the summary, or the first
/// check that failed.
pub async fn run(options: ChaosOptions) -> Result<ChaosSummary, ChaosError> {
    let started = Instant::now();
    let setup = options.server.clone();
    server::prepare_world(&setup.world)?;
    println!(
        "chaos: seed {} ({} players, {} s of play, {} kills, {})",
        options.seed,
        options.players,
        options.play.as_secs(),
        options.kills,
        wayfarer_store::redact_url(&setup.store_url())
    );
    let mut rng = Rng::seeded(options.seed);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|err| ChaosError::Setup(err.to_string()))?;
    let mut server = ServerProcess::start(&setup, &http).await?;
    let (mut players, ids) = sign_up(&http, &setup.base(), options.players, &mut rng).await?;
    let admin = admin_token(&http, &setup).await?;
    let shared = Arc::new(Shared {
        summons: Mutex::new(vec![None; ids.len()]),
        ids,
        admin_code: setup.admin_code.clone(),
        ws_url: format!("ws://127.0.0.1:{}/ws", setup.port),
    });

    // The play is cut into `kills + 1` stretches; kill k comes at a random moment of stretch k
    // after its first third (so everyone has reconnected and started something), the graceful
    // stop at the end of the play. Times count play only, not the restarts between.
    let stretch_ms = options.play.as_millis() as u64 / u64::from(options.kills + 1);
    let mut played_ms = 0;
    let mut kills = Vec::new();
    for round in 0..=options.kills {
        let last = round == options.kills;
        let end_ms = if last {
            options.play.as_millis() as u64
        } else {
            let low = stretch_ms / 3;
            u64::from(round) * stretch_ms + low + rng.below(stretch_ms - low + 1)
        };
        let length = Duration::from_millis(end_ms.saturating_sub(played_ms));
        played_ms = end_ms.max(played_ms);
        play_then_end(&mut players, &shared, length, server, last).await;
        let at = started.elapsed();
        let event = if last {
            "the final stop".to_owned()
        } else {
            format!("kill {}", round + 1)
        };
        // Check 1: the database as the crash (or the stop) left it.
        let record = check_database(&setup, at).await.map_err(|err| match err {
            ChaosError::Imbalance(what) => ChaosError::Imbalance(format!(
                "after {event} (at {:.1} s, seed {}): {what}",
                at.as_secs_f64(),
                options.seed
            )),
            other => other,
        })?;
        println!(
            "chaos: {event} at {:.1} s: the database holds {} units of {} items = {} entered - {} left: every item exactly once",
            at.as_secs_f64(),
            record.units,
            record.items,
            record.entered,
            record.left
        );
        // Check 2: restarted on the same world, the audit balances.
        server = ServerProcess::start(&setup, &http).await?;
        check_audit(&http, &setup, &admin)
            .await
            .map_err(|err| match err {
                ChaosError::Imbalance(what) => ChaosError::Imbalance(format!(
                    "the audit after {event}'s restart (seed {}): {what}",
                    options.seed
                )),
                other => other,
            })?;
        println!("chaos: restarted after {event}: the economy audit balances");
        kills.push(record);
    }
    server.stop(STOP_WAIT).await;
    let mut stats = PlayerStats::default();
    for player in &players {
        stats.merge(&player.stats);
    }
    Ok(ChaosSummary {
        seed: options.seed,
        characters: shared.ids.clone(),
        kills,
        stats,
        elapsed: started.elapsed(),
    })
}

/// Everyone plays for `length`; then, with everyone still playing, the server is killed with
/// SIGKILL (or, `graceful`, stopped with SIGTERM), and the players are told to stop (those whose
/// socket closed are reconnecting).
async fn play_then_end(
    players: &mut Vec<Player>,
    shared: &Arc<Shared>,
    length: Duration,
    server: ServerProcess,
    graceful: bool,
) {
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut tasks = Vec::new();
    for mut player in players.drain(..) {
        let shared = shared.clone();
        let stop = stop_rx.clone();
        tasks.push(tokio::spawn(async move {
            player.play(shared, stop).await;
            player
        }));
    }
    tokio::time::sleep(length).await;
    if graceful {
        server.stop(STOP_WAIT).await;
    } else {
        server.kill().await;
    }
    let _ = stop_tx.send(true);
    for task in tasks {
        match tokio::time::timeout(JOIN_WAIT, task).await {
            Ok(Ok(player)) => players.push(player),
            // A player that will not stop is a bug of this driver: the run cannot go on.
            _ => panic!("a chaos player did not stop within {JOIN_WAIT:?}"),
        }
    }
    players.sort_by_key(|p| p.index);
}

/// Check 1, on the database directly (the server is down): the books balance.
pub async fn check_database(setup: &ServerSetup, at: Duration) -> Result<KillRecord, ChaosError> {
    let store = Store::connect(&setup.store_url()).await?;
    let books = store.economy().books().await;
    store.close().await;
    let books = books?;
    record_of(&books, at)
}

/// The books' figures, or the imbalance.
pub fn record_of(books: &Books, at: Duration) -> Result<KillRecord, ChaosError> {
    let imbalances = books.imbalances();
    if !imbalances.is_empty() {
        let what: Vec<String> = imbalances
            .iter()
            .map(|(item, n)| {
                let held = books.held.get(item).copied().unwrap_or_default();
                format!(
                    "{item} {} {} (held {:?}, entered {:?}, left {:?})",
                    if *n > 0 { "made twice:" } else { "lost:" },
                    n.abs(),
                    held,
                    books.entered.get(item),
                    books.left.get(item)
                )
            })
            .collect();
        return Err(ChaosError::Imbalance(format!(
            "the database does not hold every item exactly once: {}",
            what.join("; ")
        )));
    }
    let sum = |side: &std::collections::BTreeMap<
        String,
        std::collections::BTreeMap<String, i64>,
    >| { side.values().flat_map(|r| r.values()).sum::<i64>() };
    Ok(KillRecord {
        at,
        items: books.held.len(),
        units: books.held.values().map(|h| h.total()).sum(),
        entered: sum(&books.entered),
        left: sum(&books.left),
    })
}

/// Check 2: the running server's audit balances.
async fn check_audit(
    http: &reqwest::Client,
    setup: &ServerSetup,
    admin: &str,
) -> Result<(), ChaosError> {
    let report: Value = http
        .get(format!("{}/api/admin/economy", setup.base()))
        .bearer_auth(admin)
        .send()
        .await
        .map_err(|err| ChaosError::Server(format!("the economy audit: {err}")))?
        .json()
        .await
        .map_err(|err| ChaosError::Server(format!("the economy audit: {err}")))?;
    if report["books"]["balanced"] != json!(true) {
        return Err(ChaosError::Imbalance(format!(
            "GET /api/admin/economy does not balance: {}",
            report["books"]["imbalances"]
        )));
    }
    Ok(())
}

/// Guest accounts with a character each; the character ids by index.
async fn sign_up(
    http: &reqwest::Client,
    base: &str,
    players: usize,
    rng: &mut Rng,
) -> Result<(Vec<Player>, Vec<String>), ChaosError> {
    let tag = crate::load::base36(rng.next_u64());
    let mut out = Vec::with_capacity(players);
    let mut ids = Vec::with_capacity(players);
    for index in 0..players {
        let guest: Value = post(http, &format!("{base}/api/auth/guest"), None, json!({})).await?;
        let token = guest["token"].as_str().unwrap_or_default().to_owned();
        // Unique on a database other runs used too: C, the player, the run's tag.
        let name: String = format!("C{index}{tag}").chars().take(12).collect();
        let created = post(
            http,
            &format!("{base}/api/v1/player"),
            Some(&token),
            json!({ "name": name }),
        )
        .await?;
        let id = created["player"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if id.is_empty() || token.is_empty() {
            return Err(ChaosError::Setup(format!("player {index}: {created}")));
        }
        ids.push(id);
        out.push(Player {
            index,
            token,
            seeded: false,
            stats: PlayerStats::default(),
            rng: Rng::seeded(rng.next_u64()),
        });
    }
    Ok((out, ids))
}

/// A guest account given the admin role in the database, for the audit.
async fn admin_token(http: &reqwest::Client, setup: &ServerSetup) -> Result<String, ChaosError> {
    let guest: Value = post(
        http,
        &format!("{}/api/auth/guest", setup.base()),
        None,
        json!({}),
    )
    .await?;
    let store = Store::connect(&setup.store_url()).await?;
    let roles = store
        .users()
        .set_roles(
            guest["accountId"].as_str().unwrap_or_default(),
            &["admin".into()],
        )
        .await;
    store.close().await;
    roles?;
    Ok(guest["token"].as_str().unwrap_or_default().to_owned())
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    body: Value,
) -> Result<Value, ChaosError> {
    let mut request = http.post(url).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request
        .send()
        .await
        .map_err(|err| ChaosError::Setup(format!("{url}: {err}")))?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .map_err(|err| ChaosError::Setup(format!("{url}: {err}")))?;
    if !status.is_success() {
        return Err(ChaosError::Setup(format!("{url}: {status} {body}")));
    }
    Ok(body)
}
