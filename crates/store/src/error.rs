//! What can go wrong in the store, in its own terms; the server maps these to HTTP codes.

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The connection URL names no engine we support or cannot be parsed.
    #[error("unsupported database URL: {0}")]
    InvalidUrl(String),
    /// A uniqueness or other constraint refused the write (e.g. a taken character name).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The row the operation needs does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// A migration failed; the database is left at the previous version.
    #[error("migration {version} ({name}) failed: {source}")]
    Migration {
        version: i64,
        name: &'static str,
        #[source]
        source: sqlx::Error,
    },
    /// A stored value cannot be read (e.g. a JSON column that is not what it should be).
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// The store is saturated: no connection of the operation's pool came free within its wait
    /// (`PoolSettings`), or the database stayed locked past its busy time-out. Trying again later
    /// may pass; the server answers it with back-pressure (503 `server_busy`), never a 500.
    #[error("the database is busy: {0}")]
    Busy(String),
    /// The database refused or failed an operation.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// The SQLite database file could not be created or made private (`sqlite_file`).
    #[error("cannot create or make private the database file {path}: {source}")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        if let sqlx::Error::Database(db) = &err {
            if db.is_unique_violation() {
                return StoreError::Conflict(db.message().to_owned());
            }
            // SQLite's SQLITE_BUSY (5, and its extended codes such as BUSY_SNAPSHOT, 517) and
            // SQLITE_LOCKED (6); PostgreSQL's lock_not_available and too_many_connections.
            let code = db.code().unwrap_or_default();
            let sqlite_busy = code.parse::<i32>().is_ok_and(|c| matches!(c & 0xff, 5 | 6));
            if sqlite_busy || matches!(code.as_ref(), "55P03" | "53300") {
                return StoreError::Busy(db.message().to_owned());
            }
        }
        if matches!(err, sqlx::Error::PoolTimedOut) {
            return StoreError::Busy("no connection came free in time".into());
        }
        StoreError::Database(err)
    }
}

impl StoreError {
    /// Whether the database refused the operation on its merits (a constraint, a missing row, a
    /// lease held by another world, a corrupt value): trying it again gives the same answer. Other
    /// errors (the connection, the disk, a timeout) may pass.
    pub fn is_refusal(&self) -> bool {
        match self {
            StoreError::Conflict(_) | StoreError::NotFound(_) | StoreError::Corrupt(_) => true,
            StoreError::Database(sqlx::Error::Database(db)) => {
                !matches!(db.kind(), sqlx::error::ErrorKind::Other)
            }
            _ => false,
        }
    }
}
