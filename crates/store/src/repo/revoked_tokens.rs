//! Tokens revoked one by one (`revoked_tokens`): a logged-out token, kept by its id only until the
//! token's own expiry. The server keeps the live ones in memory; this is what survives a restart
//! and what other worlds read to catch up.

use sqlx::Row;

use crate::{now_ms, Store, StoreError};

/// One revoked token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevokedToken {
    /// The token's `jti` (or a digest of a token without one).
    pub token_id: String,
    pub account_id: String,
    /// When the token expires (epoch ms); the row is useless after it.
    pub expires_at_ms: i64,
    /// When it was revoked (epoch ms).
    pub revoked_at_ms: i64,
}

/// The `revoked_tokens` repository.
pub struct RevokedTokens<'a> {
    store: &'a Store,
}

impl<'a> RevokedTokens<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Revokes one token until `expires_at_ms`; revoking it again changes nothing.
    pub async fn revoke(
        &self,
        token_id: &str,
        account_id: &str,
        expires_at_ms: i64,
    ) -> Result<RevokedToken, StoreError> {
        let revoked = RevokedToken {
            token_id: token_id.to_owned(),
            account_id: account_id.to_owned(),
            expires_at_ms,
            revoked_at_ms: now_ms(),
        };
        sqlx::query(
            r#"INSERT INTO revoked_tokens ("tokenId", "accountId", "expiresAt", "revokedAt")
               VALUES ($1, $2, $3, $4) ON CONFLICT ("tokenId") DO NOTHING"#,
        )
        .bind(&revoked.token_id)
        .bind(&revoked.account_id)
        .bind(revoked.expires_at_ms)
        .bind(revoked.revoked_at_ms)
        .execute(self.store.writer())
        .await?;
        Ok(revoked)
    }

    /// Every revoked token not yet expired at `now_ms` (loaded at start).
    pub async fn unexpired(&self, now_ms: i64) -> Result<Vec<RevokedToken>, StoreError> {
        self.select(r#""expiresAt" > $1"#, now_ms).await
    }

    /// Tokens revoked at or after `since_ms` (other worlds catching up).
    pub async fn revoked_since(&self, since_ms: i64) -> Result<Vec<RevokedToken>, StoreError> {
        self.select(r#""revokedAt" >= $1"#, since_ms).await
    }

    /// Deletes the rows of tokens expired by `now_ms`; how many.
    pub async fn purge_expired(&self, now_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(r#"DELETE FROM revoked_tokens WHERE "expiresAt" <= $1"#)
            .bind(now_ms)
            .execute(self.store.writer())
            .await?;
        Ok(done.rows_affected())
    }

    async fn select(&self, filter: &str, at_ms: i64) -> Result<Vec<RevokedToken>, StoreError> {
        let rows = sqlx::query(&format!(
            r#"SELECT "tokenId", "accountId", "expiresAt", "revokedAt" FROM revoked_tokens
               WHERE {filter} ORDER BY "revokedAt""#
        ))
        .bind(at_ms)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(RevokedToken {
                    token_id: row.try_get("tokenId")?,
                    account_id: row.try_get("accountId")?,
                    expires_at_ms: row.try_get("expiresAt")?,
                    revoked_at_ms: row.try_get("revokedAt")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }
}
