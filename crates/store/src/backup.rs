//! Backups of a SQLite world (`wayfarer backup` and `wayfarer restore`, docs/operations.md
//! "Backups"). A backup is SQLite's `VACUUM INTO`: one read transaction copies the database as of
//! one commit into a new file, while the running server's writer goes on committing (WAL mode:
//! the reader sees a snapshot, the writer is never blocked). Every economic operation is one
//! transaction, so the copy holds each trade, purchase and save wholly or not at all. PostgreSQL
//! has its own tools (`pg_dump`, `pg_restore`, WAL archiving) and nothing here touches it.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{ConnectOptions, Connection, Row, SqliteConnection};

use crate::{Backend, Store, StoreError, MIGRATIONS};

/// What a backup file holds, as checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupSummary {
    /// The newest migration applied to it.
    pub schema_version: i64,
    pub accounts: i64,
    pub characters: i64,
    pub bytes: u64,
}

/// Why a file cannot be restored (or a backup was not written).
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0} is not a SQLite database")]
    NotSqlite(PathBuf),
    #[error("{path} is not a Wayfarer database: {why}")]
    NotWayfarer { path: PathBuf, why: String },
    #[error(
        "{path} has migration {version} ({name}), newer than this binary's latest ({latest}): restore it with the wayfarer that wrote it"
    )]
    TooNew {
        path: PathBuf,
        version: i64,
        name: String,
        latest: i64,
    },
    #[error("{path} failed SQLite's integrity check: {report}")]
    Damaged { path: PathBuf, report: String },
    #[error("{0} exists: choose a new file (a backup never overwrites one)")]
    Exists(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for BackupError {
    fn from(err: sqlx::Error) -> Self {
        BackupError::Store(err.into())
    }
}

/// The file a `sqlite:` URL names; `None` for another engine or an in-memory database.
pub fn sqlite_path(url: &str) -> Option<PathBuf> {
    if Backend::from_url(url).ok()? != Backend::Sqlite
        || url.contains(":memory:")
        || url.contains("mode=memory")
    {
        return None;
    }
    let options = SqliteConnectOptions::from_str(url).ok()?;
    let path = options.get_filename();
    (!path.as_os_str().is_empty()).then(|| path.to_path_buf())
}

/// Writes a consistent copy of `store`'s SQLite database to `out`, which must not exist: first to
/// a temporary file beside it, checked, then renamed, so `out` never names a partial backup.
/// The copy is private (0600) and a single file (rollback journal, no `-wal`).
pub async fn backup_sqlite(store: &Store, out: &Path) -> Result<BackupSummary, BackupError> {
    if store.backend() != Backend::Sqlite {
        return Err(StoreError::InvalidUrl("backup_sqlite needs a SQLite store".into()).into());
    }
    if out.exists() {
        return Err(BackupError::Exists(out.into()));
    }
    let partial = with_suffix(out, &format!(".partial-{}", std::process::id()));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BackupError::Io { path, source }
    };
    // VACUUM INTO writes into an empty file: made here first so that it is private.
    let _ = std::fs::remove_file(&partial);
    crate::private_file::create(&partial).map_err(io(&partial))?;
    let result = async {
        sqlx::query("VACUUM INTO $1")
            .bind(partial.to_string_lossy().into_owned())
            .execute(store.pool())
            .await?;
        let summary = inspect_sqlite(&partial).await?;
        std::fs::File::open(&partial)
            .and_then(|f| f.sync_all())
            .map_err(io(&partial))?;
        if out.exists() {
            return Err(BackupError::Exists(out.into()));
        }
        std::fs::rename(&partial, out).map_err(io(out))?;
        sync_parent(out);
        Ok(summary)
    }
    .await;
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// Checks that `path` is a sound Wayfarer database this binary can run: a SQLite file, its
/// integrity check clean, Wayfarer's migrations (each the version and name this binary knows) and
/// none newer than this binary's latest. Leaves it in rollback-journal mode (one file).
pub async fn inspect_sqlite(path: &Path) -> Result<BackupSummary, BackupError> {
    let bytes = std::fs::metadata(path)
        .map_err(|source| BackupError::Io {
            path: path.into(),
            source,
        })?
        .len();
    let mut header = [0u8; 16];
    let read = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header))
        .is_ok();
    if !read || &header != b"SQLite format 3\0" {
        return Err(BackupError::NotSqlite(path.into()));
    }
    let mut conn = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(false)
        .journal_mode(SqliteJournalMode::Delete)
        .connect()
        .await?;
    let result = check(&mut conn, path, bytes).await;
    let _ = conn.close().await;
    result
}

async fn check(
    conn: &mut SqliteConnection,
    path: &Path,
    bytes: u64,
) -> Result<BackupSummary, BackupError> {
    let report: Vec<String> = sqlx::query("PRAGMA integrity_check")
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|row| row.try_get::<String, _>(0))
        .collect::<Result<_, _>>()?;
    if report != ["ok"] {
        return Err(BackupError::Damaged {
            path: path.into(),
            report: report.join("; "),
        });
    }
    let not_wayfarer = |why: String| BackupError::NotWayfarer {
        path: path.into(),
        why,
    };
    let tables: Vec<String> = sqlx::query("SELECT name FROM sqlite_master WHERE type = 'table'")
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|row| row.try_get::<String, _>(0))
        .collect::<Result<_, _>>()?;
    for table in ["schema_migrations", "users", "characters"] {
        if !tables.iter().any(|t| t == table) {
            return Err(not_wayfarer(format!("it has no `{table}` table")));
        }
    }
    let applied = sqlx::query("SELECT version, name FROM schema_migrations ORDER BY version")
        .fetch_all(&mut *conn)
        .await?;
    let latest = MIGRATIONS.last().map_or(0, |m| m.version);
    let mut schema_version = 0;
    for row in &applied {
        let version: i64 = row.try_get(0)?;
        let name: String = row.try_get(1)?;
        match MIGRATIONS.iter().find(|m| m.version == version) {
            Some(known) if known.name == name => {}
            Some(known) => {
                return Err(not_wayfarer(format!(
                    "its migration {version} is `{name}`, Wayfarer's is `{}`",
                    known.name
                )))
            }
            None if version > latest => {
                return Err(BackupError::TooNew {
                    path: path.into(),
                    version,
                    name,
                    latest,
                })
            }
            None => {
                return Err(not_wayfarer(format!(
                    "unknown migration {version} `{name}`"
                )))
            }
        }
        schema_version = schema_version.max(version);
    }
    if schema_version == 0 {
        return Err(not_wayfarer("no migration was ever applied to it".into()));
    }
    let mut counts = [0i64; 2];
    for (count, table) in counts.iter_mut().zip(["users", "characters"]) {
        *count = sqlx::query(&format!("SELECT COUNT(*) FROM {table}"))
            .fetch_one(&mut *conn)
            .await?
            .try_get(0)?;
    }
    let [accounts, characters] = counts;
    Ok(BackupSummary {
        schema_version,
        accounts,
        characters,
        bytes,
    })
}

/// Replaces the SQLite database at `target` with a checked copy of `backup`. The caller holds
/// the world's lock exclusively (no server runs on it). The copy is made and checked beside the
/// target first; the database it replaces, if any, is kept as `<target>.before-restore-<ms>`
/// (with its `-wal`, whose commits belong to it), and a stale `-shm` is removed, so the restored
/// file is never read with another database's log. Returns what the restored file holds and where
/// the replaced one went.
pub async fn restore_sqlite(
    backup: &Path,
    target: &Path,
) -> Result<(BackupSummary, Option<PathBuf>), BackupError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BackupError::Io { path, source }
    };
    if !backup.is_file() {
        return Err(BackupError::Io {
            path: backup.into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    }
    let incoming = with_suffix(target, &format!(".restoring-{}", std::process::id()));
    let _ = std::fs::remove_file(&incoming);
    crate::private_file::create(&incoming).map_err(io(&incoming))?;
    let result = async {
        std::fs::copy(backup, &incoming).map_err(io(&incoming))?;
        let summary = inspect_sqlite(&incoming).await?;
        std::fs::File::open(&incoming)
            .and_then(|f| f.sync_all())
            .map_err(io(&incoming))?;
        let kept = if target.exists() {
            let aside = with_suffix(target, &format!(".before-restore-{}", crate::now_ms()));
            std::fs::rename(target, &aside).map_err(io(target))?;
            let wal = with_suffix(target, "-wal");
            if wal.exists() {
                std::fs::rename(&wal, with_suffix(&aside, "-wal")).map_err(io(&wal))?;
            }
            Some(aside)
        } else {
            None
        };
        let shm = with_suffix(target, "-shm");
        if shm.exists() {
            std::fs::remove_file(&shm).map_err(io(&shm))?;
        }
        std::fs::rename(&incoming, target).map_err(io(target))?;
        sync_parent(target);
        Ok((summary, kept))
    }
    .await;
    if result.is_err() {
        let _ = std::fs::remove_file(&incoming);
    }
    result
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Makes a rename durable: the directory entry is synced too (best effort).
fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(dir) = std::fs::File::open(dir) {
            let _ = dir.sync_all();
        }
    }
}
