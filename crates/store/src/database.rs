//! The connection pool and the engine behind it.

use std::path::Path;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, ConnectOptions, Connection, Executor};

use crate::repo::{
    bans::Bans, characters::Characters, deaths::Deaths, friends::Friends, ignores::Ignores,
    inventory::Inventories, sessions::Sessions, users::Users,
};
use crate::StoreError;

/// Which engine a store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// Picks the engine from a connection URL.
    pub fn from_url(url: &str) -> Result<Backend, StoreError> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else {
            Err(StoreError::InvalidUrl(redact_url(url)))
        }
    }

    /// A short name for logs and metrics.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

/// The store's connections, divided by what they serve so that one kind of work cannot starve
/// another of connections (issue 52: at 10,000 players a join wave's logins, the saves and REST
/// shared one pool, and requests waited 10 s for a connection and failed). Each pool has its own
/// size and its own wait: past it an operation fails with [`StoreError::Busy`], which the server
/// answers with back-pressure (503 `server_busy` with `Retry-After`, or a socket entry that waits
/// its turn), never a 500.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSettings {
    /// Connections for REST reads and everything else that reads outside a game entry.
    pub rest_connections: u32,
    /// How long a REST read waits for one of them.
    pub rest_acquire: Duration,
    /// Connections for the reads of a game entry (the character's whole record).
    pub entry_connections: u32,
    /// How long an entry's read waits for one of them.
    pub entry_acquire: Duration,
    /// Connections for writes on PostgreSQL (saves' group commits, logins, trades, purchases). On
    /// SQLite always one: writers queue for it in the process instead of racing for the file's
    /// write lock (see `Store::writer`).
    pub write_connections: u32,
    /// How long a write waits for the writer.
    pub write_acquire: Duration,
}

impl PoolSettings {
    /// How long start-up's work (the migrations) waits for a connection at the least.
    pub const START_UP_WAIT: Duration = Duration::from_secs(30);

    /// These settings with every wait at least [`Self::START_UP_WAIT`].
    pub fn for_start_up(self) -> PoolSettings {
        PoolSettings {
            rest_acquire: self.rest_acquire.max(Self::START_UP_WAIT),
            entry_acquire: self.entry_acquire.max(Self::START_UP_WAIT),
            write_acquire: self.write_acquire.max(Self::START_UP_WAIT),
            ..self
        }
    }

    /// The defaults for `backend` (docs/operations.md, "The database's connections").
    pub fn defaults(backend: Backend) -> PoolSettings {
        let (rest, entry, write) = match backend {
            // Reads in WAL mode never wait for the writer; more than two readers a kind buy
            // nothing on a 2-core machine.
            Backend::Sqlite => (2, 2, 1),
            // Ten in all, as the one pool was before the division: a PostgreSQL server's
            // default `max_connections` (100) then holds several worlds and their tools.
            Backend::Postgres => (3, 3, 4),
        };
        PoolSettings {
            rest_connections: rest,
            rest_acquire: Duration::from_secs(3),
            entry_connections: entry,
            entry_acquire: Duration::from_secs(5),
            write_connections: write,
            write_acquire: Duration::from_secs(10),
        }
    }
}
/// SQLite waits this long on a locked database before reporting busy.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 5_000;
/// Each pooled SQLite connection's page cache, in KiB (SQLite's default is 2,000). At 10,000
/// players the default caches filled with the tables' pages: 8 MB over the four connections,
/// 0.8 KiB of memory per player, for reads the operating system's file cache answers anyway (a
/// page missed here is a `pread` of a page the kernel holds, not a disk read). The B-tree's inner
/// pages, the part every lookup walks, fit many times over.
pub const SQLITE_CACHE_KIB: i64 = 512;

/// Connections taken by [`Store::hold_connections`], given back when dropped.
#[cfg(feature = "testing")]
pub struct HeldConnections(#[allow(dead_code)] Vec<sqlx::pool::PoolConnection<sqlx::Any>>);

/// A handle to the database; cheap to clone.
#[derive(Clone)]
pub struct Store {
    /// Every read but an entry's ([`PoolSettings::rest_connections`]).
    pool: AnyPool,
    /// A game entry's reads ([`PoolSettings::entry_connections`]).
    entry: AnyPool,
    /// Every write: on SQLite a pool of its own with ONE connection, so writers queue in order
    /// for it in the process instead of racing for the file's write lock. Racing, each loser
    /// sleeps in SQLite's busy handler (1, 2, 5, … 100 ms, growing), and the lock stands idle
    /// while they sleep: 10,000 players joining over 30 s (three write transactions each) made
    /// 20,000 such sleeps and a connect p99 of 3.5–6 s, though each transaction takes well under
    /// a millisecond. On PostgreSQL (row locks, no file lock) a pool of
    /// [`PoolSettings::write_connections`].
    writer: AnyPool,
    backend: Backend,
    /// Set when several worlds share the database: saves write only characters whose lease this
    /// world holds (`repo::leases`).
    lease_world: Option<i64>,
    /// Commits of group transactions still to fail on purpose (the fault hook of tests,
    /// [`Store::fail_next_group_commits`]); shared by every clone.
    group_commit_faults: Arc<AtomicU32>,
    /// Group rounds written batch by batch because writing the group together failed (see
    /// `repo::group_commit`); shared by every clone, read by tests.
    group_rounds_one_by_one: Arc<AtomicU64>,
    /// The queue of logins to write together (`repo::sessions`), started by the first.
    session_openings: crate::repo::sessions::Openings,
    /// Transactions of logins written so far; shared by every clone, read by tests.
    session_batches: Arc<AtomicU64>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend)
            .finish()
    }
}

impl Store {
    /// Connects to `url` (`sqlite://path` or `postgres://…`). A SQLite file is created when missing
    /// (mode 0600, and made 0600 when found more open: `sqlite_file`) and switched to WAL mode so
    /// readers never block the writer.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        let backend = Backend::from_url(url)?;
        Store::connect_with(url, PoolSettings::defaults(backend)).await
    }

    /// [`Store::connect`] with the pools as `pools` says.
    pub async fn connect_with(url: &str, pools: PoolSettings) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = Backend::from_url(url)?;
        let url = match backend {
            // `mode=rwc` creates the file on first start.
            Backend::Sqlite if !url.contains("mode=") => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!("{url}{sep}mode=rwc")
            }
            _ => url.to_owned(),
        };
        if backend == Backend::Sqlite {
            crate::sqlite_file::make_private(&url)?;
        }
        let options: AnyConnectOptions = url
            .parse::<AnyConnectOptions>()
            .map_err(|_| StoreError::InvalidUrl(redact_url(&url)))?
            .log_statements(tracing::log::LevelFilter::Trace)
            .log_slow_statements(tracing::log::LevelFilter::Warn, Duration::from_millis(500));
        let pool = Store::pool_options(backend, pools.rest_connections, pools.rest_acquire)
            .connect_with(options.clone())
            .await?;
        let entry = Store::pool_options(backend, pools.entry_connections, pools.entry_acquire)
            .connect_with(options.clone())
            .await?;
        let writers = match backend {
            Backend::Sqlite => 1,
            Backend::Postgres => pools.write_connections,
        };
        let writer = Store::pool_options(backend, writers, pools.write_acquire)
            .connect_with(options)
            .await?;
        Ok(Store {
            pool,
            entry,
            writer,
            backend,
            lease_world: None,
            group_commit_faults: Arc::default(),
            group_rounds_one_by_one: Arc::default(),
            session_openings: Arc::default(),
            session_batches: Arc::default(),
        })
    }

    /// How this store's pools connect and release: SQLite's pragmas on every new connection, and
    /// a connection left in a transaction SQLite had ended closed rather than pooled.
    fn pool_options(backend: Backend, max_connections: u32, acquire: Duration) -> AnyPoolOptions {
        AnyPoolOptions::new()
            .max_connections(max_connections.max(1))
            .acquire_timeout(acquire)
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        // FULL: in WAL mode every commit syncs the log before it returns, so a
                        // commit the server reports (a trade, a purchase) survives a power cut;
                        // NORMAL only synced at checkpoints. Group commit pays one sync for many.
                        conn.execute("PRAGMA synchronous = FULL").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                        conn.execute(
                            format!("PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}").as_str(),
                        )
                        .await?;
                        // Negative: a size in KiB, not in pages.
                        conn.execute(format!("PRAGMA cache_size = -{SQLITE_CACHE_KIB}").as_str())
                            .await?;
                    }
                    Ok(())
                })
            })
            .after_release(move |conn, _meta| {
                Box::pin(async move {
                    if backend != Backend::Sqlite || !conn.is_in_transaction() {
                        return Ok(true);
                    }
                    // A transaction dropped without its end queues a ROLLBACK to the connection's
                    // worker; a ping is answered after it, so the depth it leaves is the truth.
                    // Still in a transaction then means SQLite ended it by itself (it rolls a
                    // transaction back on SQLITE_BUSY, FULL, IOERR or NOMEM in a statement), sqlx's
                    // own ROLLBACK failed ("no transaction is active") and its depth stayed at 1:
                    // every later `BEGIN IMMEDIATE` on that connection would fail ("begin_with at
                    // non-zero transaction depth"), so a "database is locked" on a loaded machine
                    // would stop saves for good. Such a connection is closed, not pooled.
                    conn.ping().await?;
                    let healthy = !conn.is_in_transaction();
                    if !healthy {
                        tracing::warn!("a pooled SQLite connection left in a transaction SQLite had ended; closed");
                    }
                    Ok(healthy)
                })
            })
    }

    /// Connects to `url` and applies the pending migrations; returns the store and the versions
    /// applied. On SQLite, when migrations changed the schema, the pool is opened again, so that
    /// every connection the caller gets was opened on the final schema: a connection that lived
    /// through an `ALTER TABLE` can describe a statement with the old columns (sqlx keeps a
    /// statement's columns per connection; CI once saw `ColumnNotFound("prayerPoints")` right after
    /// the migration that added it).
    pub async fn connect_migrated(url: &str) -> Result<(Store, Vec<i64>), StoreError> {
        let backend = Backend::from_url(url)?;
        Store::connect_migrated_with(url, PoolSettings::defaults(backend)).await
    }

    /// [`Store::connect_migrated`] with the pools as `pools` says.
    pub async fn connect_migrated_with(
        url: &str,
        pools: PoolSettings,
    ) -> Result<(Store, Vec<i64>), StoreError> {
        // Migrations wait as long as start-up may, not as a request under back-pressure does:
        // with short request waits (`DB_*_WAIT_MS`) on a loaded machine, a start failed with
        // "no connection came free in time" before it served anyone. The store the caller gets
        // has the waits it asked for.
        let migrating = pools.for_start_up();
        let store = Store::connect_with(url, migrating).await?;
        let applied = store.migrate().await?;
        if migrating == pools && (applied.is_empty() || store.backend != Backend::Sqlite) {
            return Ok((store, applied));
        }
        store.close().await;
        Ok((Store::connect_with(url, pools).await?, applied))
    }

    /// Connects to the SQLite file at `path`, creating it when missing.
    pub async fn open_sqlite(path: &Path) -> Result<Store, StoreError> {
        Store::connect(&format!("sqlite://{}", path.display())).await
    }

    /// This store, saving only characters leased to `world_id` (several worlds on one database).
    pub fn with_lease_world(mut self, world_id: i64) -> Store {
        self.lease_world = Some(world_id);
        self
    }

    /// The world whose leases guard saves, when several worlds share the database.
    pub fn lease_world(&self) -> Option<i64> {
        self.lease_world
    }

    /// The world whose own rows (world chunks, death locks) this store reads and writes: its
    /// lease world with several worlds, else 1, a single world's id.
    pub fn world_id(&self) -> i64 {
        self.lease_world.unwrap_or(1)
    }

    /// The engine behind this store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool to read on, for repositories.
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The pool of a game entry's reads, for repositories.
    pub(crate) fn entry_pool(&self) -> &AnyPool {
        &self.entry
    }

    /// The pool to write on, for repositories: every statement that changes a row runs here,
    /// in [`Store::begin_write`]'s transactions or on its own (see `Store::writer`'s field).
    pub(crate) fn writer(&self) -> &AnyPool {
        &self.writer
    }

    /// A transaction that will write. On SQLite it takes the write lock at once (`BEGIN
    /// IMMEDIATE`), waiting up to the busy timeout for it: a deferred transaction that reads and
    /// then writes fails outright (`SQLITE_BUSY_SNAPSHOT`, no waiting) when another connection
    /// commits in between — a character save landing during a friend request did.
    pub(crate) async fn begin_write(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Any>, StoreError> {
        Ok(match self.backend {
            Backend::Sqlite => self.writer.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.writer.begin().await?,
        })
    }

    /// Makes the next `n` group transactions fail at their commit, rolled back instead (the fault
    /// hook of tests: the database refusing a commit, as a full disk or a lost connection does).
    #[cfg(feature = "testing")]
    pub fn fail_next_group_commits(&self, n: u32) {
        self.group_commit_faults.store(n, Ordering::SeqCst);
    }

    /// Takes every connection of the pools named (`rest`, `entry`, `write`) and holds them until
    /// the returned value is dropped: the fault hook of tests of a saturated store (every other
    /// caller of those pools waits its pool's time and fails with [`StoreError::Busy`]).
    #[cfg(feature = "testing")]
    pub async fn hold_connections(&self, pools: &[&str]) -> HeldConnections {
        let mut held = Vec::new();
        for name in pools {
            let pool = match *name {
                "rest" => &self.pool,
                "entry" => &self.entry,
                "write" => &self.writer,
                other => panic!("no pool {other:?}"),
            };
            for _ in 0..pool.options().get_max_connections() {
                held.push(pool.acquire().await.expect("a connection to hold"));
            }
        }
        HeldConnections(held)
    }

    /// Group rounds so far that were written batch by batch, each under its savepoint, because
    /// writing the whole group together failed (a refused batch; `repo::group_commit`).
    #[cfg(feature = "testing")]
    pub fn group_rounds_one_by_one(&self) -> u64 {
        self.group_rounds_one_by_one.load(Ordering::SeqCst)
    }

    /// Transactions of logins written so far (`Sessions::open` writes those that arrive
    /// together in one).
    #[cfg(feature = "testing")]
    pub fn session_batches(&self) -> u64 {
        self.session_batches.load(Ordering::SeqCst)
    }

    pub(crate) fn note_session_batch(&self) {
        self.session_batches.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn session_openings(&self) -> &crate::repo::sessions::Openings {
        &self.session_openings
    }

    /// This store without the login queue: the handle of the task that empties it.
    pub(crate) fn without_session_openings(&self) -> Store {
        Store {
            session_openings: Arc::default(),
            ..self.clone()
        }
    }

    /// Counts a group round written batch by batch.
    pub(crate) fn note_group_round_one_by_one(&self) {
        self.group_rounds_one_by_one.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether this commit is to fail on purpose ([`Store::fail_next_group_commits`]); counts it.
    pub(crate) fn take_group_commit_fault(&self) -> bool {
        self.group_commit_faults
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    /// Runs every migration not yet applied; returns the versions applied now.
    pub async fn migrate(&self) -> Result<Vec<i64>, StoreError> {
        let applied = crate::migrations::run(self).await?;
        crate::repo::economy::open_books(self).await?;
        Ok(applied)
    }

    /// A round trip to the database (`SELECT 1`); callers put their own deadline around it.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// How durable a commit is, as the database reports it on one of this store's connections
    /// (SQLite: its journal mode and `synchronous`, 2 being FULL; PostgreSQL: `synchronous_commit`
    /// and `fsync`), for benchmarks and start-up logs.
    pub async fn durability(&self) -> Result<String, StoreError> {
        use sqlx::Row as _;
        let mut conn = self.pool.acquire().await?;
        let text = |row: sqlx::any::AnyRow| -> Result<String, StoreError> {
            Ok(row
                .try_get::<String, _>(0)
                .or_else(|_| row.try_get::<i64, _>(0).map(|n| n.to_string()))?)
        };
        let queries: [(&str, &str); 2] = match self.backend {
            Backend::Sqlite => [
                ("journal_mode", "PRAGMA journal_mode"),
                ("synchronous", "PRAGMA synchronous"),
            ],
            Backend::Postgres => [
                ("synchronous_commit", "SHOW synchronous_commit"),
                ("fsync", "SHOW fsync"),
            ],
        };
        let mut parts = Vec::new();
        for (name, query) in queries {
            let row = sqlx::query(query).fetch_one(&mut *conn).await?;
            parts.push(format!("{name}={}", text(row)?));
        }
        Ok(parts.join(", "))
    }

    /// SQLite's `PRAGMA cache_size` on one of this store's pooled connections (negative: KiB,
    /// `-SQLITE_CACHE_KIB` as every connection sets it); `None` on PostgreSQL, whose cache is the
    /// server's own.
    pub async fn sqlite_cache_size(&self) -> Result<Option<i64>, StoreError> {
        use sqlx::Row as _;
        if self.backend != Backend::Sqlite {
            return Ok(None);
        }
        let row = sqlx::query("PRAGMA cache_size")
            .fetch_one(&self.pool)
            .await?;
        Ok(Some(row.try_get::<i64, _>(0)?))
    }

    /// Waits for in-flight queries and closes every connection.
    pub async fn close(&self) {
        self.pool.close().await;
        self.entry.close().await;
        self.writer.close().await;
    }

    /// Connections open and idle, for metrics (every pool's).
    pub fn pool_stats(&self) -> (u32, usize) {
        let pools = [&self.pool, &self.entry, &self.writer];
        (
            pools.iter().map(|p| p.size()).sum(),
            pools.iter().map(|p| p.num_idle()).sum(),
        )
    }

    /// Each pool's connections open and idle, by the name of what it serves (`rest`, `entry`,
    /// `write`), for metrics and `/status`.
    pub fn pools(&self) -> [(&'static str, u32, usize); 3] {
        [
            ("rest", self.pool.size(), self.pool.num_idle()),
            ("entry", self.entry.size(), self.entry.num_idle()),
            ("write", self.writer.size(), self.writer.num_idle()),
        ]
    }

    /// Accounts.
    pub fn users(&self) -> Users<'_> {
        Users::new(self)
    }

    /// Characters and their skills.
    pub fn characters(&self) -> Characters<'_> {
        Characters::new(self)
    }

    /// Agent registrations and their control state.
    pub fn agents(&self) -> crate::repo::agents::Agents<'_> {
        crate::repo::agents::Agents::new(self)
    }

    /// Account bans.
    pub fn bans(&self) -> Bans<'_> {
        Bans::new(self)
    }

    /// Inventories, equipment and batched character saves.
    pub fn inventories(&self) -> Inventories<'_> {
        Inventories::new(self)
    }

    /// Friendships and friend requests.
    pub fn friends(&self) -> Friends<'_> {
        Friends::new(self)
    }

    /// Death locks and kill counts.
    pub fn deaths(&self) -> Deaths<'_> {
        Deaths::new(self)
    }

    /// The economy's durable books.
    pub fn economy(&self) -> crate::repo::economy::Economy<'_> {
        crate::repo::economy::Economy::new(self)
    }

    /// Starting grants per client address.
    pub fn address_grants(&self) -> crate::repo::address_grants::AddressGrants<'_> {
        crate::repo::address_grants::AddressGrants::new(self)
    }

    /// The audit of completed trades.
    pub fn trades(&self) -> crate::repo::trades::Trades<'_> {
        crate::repo::trades::Trades::new(self)
    }

    /// The arena's ladder: ratings and finished fights.
    pub fn arena(&self) -> crate::repo::arena::Arena<'_> {
        crate::repo::arena::Arena::new(self)
    }

    /// The audit of finished duels.
    pub fn duels(&self) -> crate::repo::duels::Duels<'_> {
        crate::repo::duels::Duels::new(self)
    }

    /// The persistent world modifications, by chunk.
    pub fn world_chunks(&self) -> crate::repo::world_chunks::WorldChunks<'_> {
        crate::repo::world_chunks::WorldChunks::new(self)
    }

    /// The item catalogue: the active content's item definitions, for SQL queries by name.
    pub fn catalog(&self) -> crate::repo::catalog::Catalog<'_> {
        crate::repo::catalog::Catalog::new(self)
    }

    /// Ranks per skill among all characters.
    pub fn hiscores(&self) -> crate::repo::hiscores::Hiscores<'_> {
        crate::repo::hiscores::Hiscores::new(self)
    }

    /// Ignore lists.
    pub fn ignores(&self) -> Ignores<'_> {
        Ignores::new(self)
    }

    /// Quest progress.
    pub fn quests(&self) -> crate::repo::quests::Quests<'_> {
        crate::repo::quests::Quests::new(self)
    }

    /// Which world holds each online character (several worlds on one database).
    pub fn leases(&self) -> crate::repo::leases::Leases<'_> {
        crate::repo::leases::Leases::new(self)
    }

    /// Login and logout records.
    pub fn sessions(&self) -> Sessions<'_> {
        Sessions::new(self)
    }

    /// Tokens revoked one by one (logged out), until they expire.
    pub fn revoked_tokens(&self) -> crate::repo::revoked_tokens::RevokedTokens<'_> {
        crate::repo::revoked_tokens::RevokedTokens::new(self)
    }
}

/// The URL with any password replaced, safe for logs and errors.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let userinfo = &url[scheme_end + 3..at];
            match userinfo.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme_end + 3],
                    &userinfo[..colon],
                    &url[at..]
                ),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Start-up waits like start-up, whatever a request may wait (the store_busy tests' 200 ms
    /// waits failed migrations on a loaded machine); the sizes stay what was asked.
    #[test]
    fn start_up_waits_at_least_its_own_time_with_the_same_pools() {
        let short = PoolSettings {
            rest_connections: 1,
            rest_acquire: Duration::from_millis(200),
            entry_connections: 1,
            entry_acquire: Duration::from_millis(200),
            write_connections: 1,
            write_acquire: Duration::from_millis(200),
        };
        let start_up = short.for_start_up();
        assert_eq!(start_up.rest_acquire, PoolSettings::START_UP_WAIT);
        assert_eq!(start_up.entry_acquire, PoolSettings::START_UP_WAIT);
        assert_eq!(start_up.write_acquire, PoolSettings::START_UP_WAIT);
        assert_eq!(
            (
                start_up.rest_connections,
                start_up.entry_connections,
                start_up.write_connections
            ),
            (1, 1, 1)
        );
        let long = PoolSettings {
            write_acquire: Duration::from_secs(90),
            ..short
        };
        assert_eq!(long.for_start_up().write_acquire, Duration::from_secs(90));
    }

    #[test]
    fn backend_is_chosen_by_scheme() {
        assert_eq!(Backend::from_url("sqlite://x.db").unwrap(), Backend::Sqlite);
        assert_eq!(
            Backend::from_url("postgres://u@h/db").unwrap(),
            Backend::Postgres
        );
        assert_eq!(
            Backend::from_url("postgresql://u@h/db").unwrap(),
            Backend::Postgres
        );
        assert!(matches!(
            Backend::from_url("mysql://u:secret@h/db"),
            Err(StoreError::InvalidUrl(u)) if !u.contains("secret")
        ));
    }

    /// SQLite ends a transaction by itself on some errors (SQLITE_BUSY in a statement among
    /// them); a raw ROLLBACK inside sqlx's transaction does the same, behind its back. Each such
    /// connection is closed on release, so later write transactions still begin: with them pooled,
    /// the fifth `begin_write` (four connections) failed with "begin_with at non-zero transaction
    /// depth".
    #[tokio::test]
    async fn a_connection_whose_transaction_sqlite_ended_is_not_pooled_again() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let store = Store::connect(&url).await.unwrap();
        sqlx::query("CREATE TABLE t (n INTEGER)")
            .execute(store.pool())
            .await
            .unwrap();
        for n in 0..10 {
            let mut tx = store
                .begin_write()
                .await
                .unwrap_or_else(|err| panic!("begin_write {n} after ended transactions: {err}"));
            sqlx::query("INSERT INTO t (n) VALUES ($1)")
                .bind(n)
                .execute(&mut *tx)
                .await
                .unwrap();
            sqlx::query("ROLLBACK").execute(&mut *tx).await.unwrap();
            drop(tx);
        }
        let mut tx = store.begin_write().await.unwrap();
        sqlx::query("INSERT INTO t (n) VALUES (99)")
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM t")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(rows, 1, "only the committed row");
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact_url("postgres://wf:hunter2@localhost:5432/db"),
            "postgres://wf:***@localhost:5432/db"
        );
        assert_eq!(
            redact_url("postgres://wf@localhost/db"),
            "postgres://wf@localhost/db"
        );
        assert_eq!(redact_url("sqlite://a.db"), "sqlite://a.db");
    }
}
