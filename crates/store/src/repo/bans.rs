//! Account bans (`user_bans`), permanent or until a time; lifting keeps the row as history.

use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{new_id, now_ms, Store, StoreError};

/// One ban of an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ban {
    pub id: String,
    pub account_id: String,
    pub reason: String,
    pub banned_by: Option<String>,
    pub created_at_ms: i64,
    /// `None`: permanent.
    pub expires_at_ms: Option<i64>,
    pub lifted_at_ms: Option<i64>,
}

fn from_row(row: &AnyRow) -> Result<Ban, sqlx::Error> {
    Ok(Ban {
        id: row.try_get("id")?,
        account_id: row.try_get("accountId")?,
        reason: row.try_get("reason")?,
        banned_by: row.try_get("bannedBy")?,
        created_at_ms: row.try_get("createdAt")?,
        expires_at_ms: row.try_get("expiresAt")?,
        lifted_at_ms: row.try_get("liftedAt")?,
    })
}

/// The `user_bans` repository.
pub struct Bans<'a> {
    store: &'a Store,
}

impl<'a> Bans<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Bans an account, until `expires_at_ms` or for good.
    pub async fn create(
        &self,
        account_id: &str,
        reason: &str,
        banned_by: Option<&str>,
        expires_at_ms: Option<i64>,
    ) -> Result<Ban, StoreError> {
        let ban = Ban {
            id: new_id(),
            account_id: account_id.to_owned(),
            reason: reason.to_owned(),
            banned_by: banned_by.map(str::to_owned),
            created_at_ms: now_ms(),
            expires_at_ms,
            lifted_at_ms: None,
        };
        sqlx::query(
            r#"INSERT INTO user_bans (id, "accountId", reason, "bannedBy", "createdAt", "expiresAt")
               VALUES ($1, $2, $3, $4, $5, $6)"#,
        )
        .bind(&ban.id)
        .bind(&ban.account_id)
        .bind(&ban.reason)
        .bind(&ban.banned_by)
        .bind(ban.created_at_ms)
        .bind(ban.expires_at_ms)
        .execute(self.store.writer())
        .await?;
        Ok(ban)
    }

    /// The ban in force at `now_ms` that ends last (a permanent one first), if any.
    pub async fn active(&self, account_id: &str, now_ms: i64) -> Result<Option<Ban>, StoreError> {
        let row = sqlx::query(
            r#"SELECT id, "accountId", reason, "bannedBy", "createdAt", "expiresAt", "liftedAt"
               FROM user_bans
               WHERE "accountId" = $1 AND "liftedAt" IS NULL AND ("expiresAt" IS NULL OR "expiresAt" > $2)
               ORDER BY CASE WHEN "expiresAt" IS NULL THEN 1 ELSE 0 END DESC, "expiresAt" DESC
               LIMIT 1"#,
        )
        .bind(account_id)
        .bind(now_ms)
        .fetch_optional(self.store.pool())
        .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// Lifts every ban in force on the account; returns how many.
    pub async fn lift(&self, account_id: &str) -> Result<u64, StoreError> {
        let now = now_ms();
        let done = sqlx::query(
            r#"UPDATE user_bans SET "liftedAt" = $1
               WHERE "accountId" = $2 AND "liftedAt" IS NULL AND ("expiresAt" IS NULL OR "expiresAt" > $1)"#,
        )
        .bind(now)
        .bind(account_id)
        .execute(self.store.writer())
        .await?;
        Ok(done.rows_affected())
    }
}
