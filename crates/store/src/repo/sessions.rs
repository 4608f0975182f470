//! Login and logout records (`playerSessions`).

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{new_id, now_ms, Store, StoreError};

/// One stay in the world, from login to logout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerSession {
    pub id: String,
    pub character_id: String,
    pub account_id: String,
    pub address: Option<String>,
    pub login_at_ms: i64,
    pub logout_at_ms: Option<i64>,
    /// Why the session closed: `logout`, `replaced`, `shutdown`, `crash_recovered`, …
    pub close_reason: Option<String>,
}

fn from_row(row: &AnyRow) -> Result<PlayerSession, sqlx::Error> {
    Ok(PlayerSession {
        id: row.try_get("id")?,
        character_id: row.try_get("characterId")?,
        account_id: row.try_get("accountId")?,
        address: row.try_get("address")?,
        login_at_ms: row.try_get("loginAt")?,
        logout_at_ms: row.try_get("logoutAt")?,
        close_reason: row.try_get("closeReason")?,
    })
}

/// The `playerSessions` repository.
pub struct Sessions<'a> {
    store: &'a Store,
}

impl<'a> Sessions<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Records a login; returns the session id to close later.
    pub async fn open(
        &self,
        character_id: &str,
        account_id: &str,
        address: Option<&str>,
    ) -> Result<String, StoreError> {
        let id = new_id();
        sqlx::query(
            r#"INSERT INTO "playerSessions" (id, "characterId", "accountId", address, "loginAt") VALUES ($1, $2, $3, $4, $5)"#,
        )
        .bind(&id)
        .bind(character_id)
        .bind(account_id)
        .bind(address)
        .bind(now_ms())
        .execute(self.store.pool())
        .await?;
        Ok(id)
    }

    /// Records a logout; closing an already closed session changes nothing.
    pub async fn close(&self, id: &str, reason: &str) -> Result<(), StoreError> {
        sqlx::query(
            r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = $2 WHERE id = $3 AND "logoutAt" IS NULL"#,
        )
        .bind(now_ms())
        .bind(reason)
        .bind(id)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Records many logouts in one transaction (one log sync, not one a session: a mass leave,
    /// after a restart or a network cut, closes thousands at once); closing an already closed
    /// session changes nothing.
    pub async fn close_many(&self, sessions: &[(String, &str)]) -> Result<(), StoreError> {
        if sessions.is_empty() {
            return Ok(());
        }
        let now = now_ms();
        let mut tx = self.store.begin_write().await?;
        for (id, reason) in sessions {
            sqlx::query(
                r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = $2 WHERE id = $3 AND "logoutAt" IS NULL"#,
            )
            .bind(now)
            .bind(*reason)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// At start-up, closes the sessions a crash left open (reason `crash_recovered`); returns how many.
    pub async fn close_dangling(&self) -> Result<u64, StoreError> {
        let done = sqlx::query(
            r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = 'crash_recovered' WHERE "logoutAt" IS NULL"#,
        )
        .bind(now_ms())
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected())
    }

    /// [`Sessions::close_dangling`] for one world of several on a database: leaves open the
    /// sessions of characters that another world holds a lease of (they are that world's, and it
    /// is alive or its leases will expire).
    pub async fn close_dangling_of_world(&self, world_id: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            r#"UPDATE "playerSessions" SET "logoutAt" = $1, "closeReason" = 'crash_recovered'
               WHERE "logoutAt" IS NULL AND "characterId" NOT IN
                 (SELECT "characterId" FROM character_leases WHERE "worldId" <> $2)"#,
        )
        .bind(now_ms())
        .bind(world_id)
        .execute(self.store.pool())
        .await?;
        Ok(done.rows_affected())
    }

    /// A character's sessions, newest first.
    pub async fn for_character(
        &self,
        character_id: &str,
    ) -> Result<Vec<PlayerSession>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT id, "characterId", "accountId", address, "loginAt", "logoutAt", "closeReason"
               FROM "playerSessions" WHERE "characterId" = $1 ORDER BY "loginAt" DESC, id DESC"#,
        )
        .bind(character_id)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
    }
}
