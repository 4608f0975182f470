//! Character leases (`character_leases`): which world holds each online character when several
//! worlds share one PostgreSQL. The row is the final word: two worlds racing for a character run
//! the same conditional upsert and the database lets exactly one of them hold it.
//!
//! Every time is the database's own clock (`NOW_MS`), so a world with a skewed clock can neither
//! keep a lease alive too long nor steal one early.

use std::collections::HashMap;

use sqlx::Row;

use crate::{Backend, Store, StoreError};

/// Who holds a character's lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseHolder {
    pub world_id: i64,
    /// The holding connection's token (unique per connection).
    pub holder: String,
}

/// What [`Leases::acquire`] came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaseOutcome {
    /// The caller holds the lease now.
    Taken,
    /// Another world holds a live lease.
    HeldBy(LeaseHolder),
}

/// The database's clock in epoch milliseconds, as SQL for each engine.
fn now_ms_sql(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
        Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
    }
}

/// The `character_leases` repository.
pub struct Leases<'a> {
    store: &'a Store,
}

impl<'a> Leases<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Takes the lease of `character_id` for `world_id` unless another world holds a live one.
    /// One statement: an insert, or an update of a row that is this world's own (a newer
    /// connection of the same world; ordering within a world is the connection registry's job)
    /// or expired. Two worlds racing both run it; the row lock makes the second see the first's
    /// row and its condition fail.
    pub async fn acquire(
        &self,
        character_id: &str,
        world_id: i64,
        holder: &str,
        ttl_ms: i64,
    ) -> Result<LeaseOutcome, StoreError> {
        let now = now_ms_sql(self.store.backend());
        let sql = format!(
            r#"INSERT INTO character_leases ("characterId", "worldId", holder, "expiresAt")
               VALUES ($1, $2, $3, {now} + $4)
               ON CONFLICT ("characterId") DO UPDATE
                 SET "worldId" = excluded."worldId", holder = excluded.holder,
                     "expiresAt" = excluded."expiresAt"
                 WHERE character_leases."worldId" = excluded."worldId"
                    OR character_leases."expiresAt" < {now}
               RETURNING holder"#
        );
        // Twice at most: the holder may release between our upsert and our read of it.
        for _ in 0..2 {
            let taken = sqlx::query(&sql)
                .bind(character_id)
                .bind(world_id)
                .bind(holder)
                .bind(ttl_ms)
                .fetch_optional(self.store.writer())
                .await?;
            if taken.is_some() {
                return Ok(LeaseOutcome::Taken);
            }
            if let Some(holder) = self.holder(character_id).await? {
                return Ok(LeaseOutcome::HeldBy(holder));
            }
        }
        Err(StoreError::Conflict(
            "the character's lease changed hands twice while being taken".to_owned(),
        ))
    }

    /// The live holder of a character's lease, if any.
    pub async fn holder(&self, character_id: &str) -> Result<Option<LeaseHolder>, StoreError> {
        let now = now_ms_sql(self.store.backend());
        let row = sqlx::query(&format!(
            r#"SELECT "worldId", holder FROM character_leases WHERE "characterId" = $1 AND "expiresAt" >= {now}"#
        ))
        .bind(character_id)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.map(|r| LeaseHolder {
            world_id: r.get(0),
            holder: r.get(1),
        }))
    }

    /// The worlds holding live leases of `character_ids` (absent: offline everywhere).
    pub async fn worlds_of(
        &self,
        character_ids: &[String],
    ) -> Result<HashMap<String, i64>, StoreError> {
        if character_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let now = now_ms_sql(self.store.backend());
        let placeholders: Vec<String> =
            (1..=character_ids.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            r#"SELECT "characterId", "worldId" FROM character_leases WHERE "expiresAt" >= {now} AND "characterId" IN ({})"#,
            placeholders.join(", ")
        );
        let mut query = sqlx::query(&sql);
        for id in character_ids {
            query = query.bind(id);
        }
        let rows = query.fetch_all(self.store.pool()).await?;
        Ok(rows
            .iter()
            .map(|r| (r.get::<String, _>(0), r.get::<i64, _>(1)))
            .collect())
    }

    /// Extends every lease `world_id` holds by `ttl_ms` from now; returns the characters renewed
    /// (a character the world thinks it holds and is not among them was lost to another world).
    pub async fn renew(&self, world_id: i64, ttl_ms: i64) -> Result<Vec<String>, StoreError> {
        let now = now_ms_sql(self.store.backend());
        let rows = sqlx::query(&format!(
            r#"UPDATE character_leases SET "expiresAt" = {now} + $2 WHERE "worldId" = $1 RETURNING "characterId""#
        ))
        .bind(world_id)
        .bind(ttl_ms)
        .fetch_all(self.store.writer())
        .await?;
        Ok(rows.iter().map(|r| r.get::<String, _>(0)).collect())
    }

    /// Gives the lease up, if `holder` still holds it (a newer connection's lease is kept).
    pub async fn release(&self, character_id: &str, holder: &str) -> Result<bool, StoreError> {
        let done =
            sqlx::query(r#"DELETE FROM character_leases WHERE "characterId" = $1 AND holder = $2"#)
                .bind(character_id)
                .bind(holder)
                .execute(self.store.writer())
                .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Drops every lease of `world_id`: at start (a world that crashed held them for sessions that
    /// no longer exist) and after a clean shutdown's final saves.
    pub async fn clear_world(&self, world_id: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(r#"DELETE FROM character_leases WHERE "worldId" = $1"#)
            .bind(world_id)
            .execute(self.store.writer())
            .await?;
        Ok(done.rows_affected())
    }
}

/// Inside a save transaction: refuses (`Conflict`) to write a character whose lease `world_id`
/// does not hold. On PostgreSQL the row is locked until the save commits, so a takeover by another
/// world waits for this save and then loads what it wrote, never the state before it.
pub(crate) async fn check_held_in(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    backend: Backend,
    character_id: &str,
    world_id: i64,
) -> Result<(), StoreError> {
    let sql = match backend {
        Backend::Postgres => {
            r#"SELECT "worldId" FROM character_leases WHERE "characterId" = $1 FOR UPDATE"#
        }
        // SQLite's write transactions (BEGIN IMMEDIATE) already exclude every other writer.
        Backend::Sqlite => r#"SELECT "worldId" FROM character_leases WHERE "characterId" = $1"#,
    };
    let held = sqlx::query(sql)
        .bind(character_id)
        .fetch_optional(&mut **tx)
        .await?
        .map(|r| r.get::<i64, _>(0));
    if held == Some(world_id) {
        Ok(())
    } else {
        Err(StoreError::Conflict(format!(
            "character {character_id} is not leased to world {world_id} (held by {held:?}): not saved"
        )))
    }
}
