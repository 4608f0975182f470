//! `wayfarer backup --out FILE` and `wayfarer restore FILE` (docs/operations.md, "Backups").
//!
//! On SQLite a backup is an online copy (`VACUUM INTO`, `wayfarer_store::backup`), consistent while
//! the world runs and saves; a restore replaces the world's database with a checked copy of a
//! backup, refused while a server runs on the world directory (`world_lock`). PostgreSQL has its
//! own tools, which an operator runs against the server with the right credentials and options
//! for the installation: both commands say so and fail rather than guess.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use wayfarer_store::backup::{self, BackupSummary};
use wayfarer_store::{redact_url, Backend, Store};

use crate::config::Config;
use crate::world_lock::WorldLock;

/// The SQLite file the configuration names, or the reason there is none.
fn sqlite_file(config: &Config, verb: &str) -> anyhow::Result<PathBuf> {
    let url = config.effective_database_url();
    if config.use_local_postgres || Backend::from_url(&url)? == Backend::Postgres {
        let tool = if verb == "backup" {
            "pg_dump --format=custom --file FILE \"$DATABASE_URL\""
        } else {
            "pg_restore --clean --if-exists --dbname \"$DATABASE_URL\" FILE"
        };
        bail!(
            "the database is PostgreSQL ({}): wayfarer {verb} handles SQLite worlds only; use {tool} (docs/operations.md, \"Backups\")",
            redact_url(&url)
        );
    }
    backup::sqlite_path(&url)
        .with_context(|| format!("{} names no database file", redact_url(&url)))
}

fn describe(summary: &BackupSummary) -> String {
    format!(
        "schema version {}, {} accounts, {} characters, {} bytes",
        summary.schema_version, summary.accounts, summary.characters, summary.bytes
    )
}

/// `wayfarer backup --out FILE`: returns the line to print.
pub async fn backup(config: &Config, out: &Path) -> anyhow::Result<String> {
    let database = sqlite_file(config, "backup")?;
    if !database.is_file() {
        bail!("no database at {}: nothing to back up", database.display());
    }
    // Connecting never creates or migrates anything here: the file exists, and a backup copies
    // the schema as it is.
    let store = Store::connect(&config.effective_database_url()).await?;
    let result = backup::backup_sqlite(&store, out).await;
    store.close().await;
    let summary = result?;
    Ok(format!(
        "backed up {} to {} ({})",
        database.display(),
        out.display(),
        describe(&summary)
    ))
}

/// `wayfarer restore FILE`: returns the line to print.
pub async fn restore(config: &Config, file: &Path) -> anyhow::Result<String> {
    let database = sqlite_file(config, "restore")?;
    // Held until the restored file is in place: no server can start on a half-written database.
    let _lock = WorldLock::exclusive(&config.world_dir)?;
    let (summary, kept) = backup::restore_sqlite(file, &database).await?;
    let kept = match kept {
        Some(path) => format!("; the database it replaced is kept as {}", path.display()),
        None => String::new(),
    };
    Ok(format!(
        "restored {} from {} ({}){kept}",
        database.display(),
        file.display(),
        describe(&summary)
    ))
}
