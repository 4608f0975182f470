//! Ignore lists (`ignore_lists`): whom a character ignores.

use sqlx::Row;

use crate::repo::friends::Contact;
use crate::repo::rows_of;
use crate::{now_ms, Store, StoreError};

/// The most characters one may ignore.
pub const MAX_IGNORED: usize = 99;

/// The `ignore_lists` repository.
pub struct Ignores<'a> {
    store: &'a Store,
}

impl<'a> Ignores<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// `character_id` ignores `ignored_id` (adding twice changes nothing). Refused with
    /// `Conflict` beyond [`MAX_IGNORED`].
    pub async fn add(&self, character_id: &str, ignored_id: &str) -> Result<(), StoreError> {
        let count: i64 =
            sqlx::query(r#"SELECT COUNT(*) AS n FROM ignore_lists WHERE "characterId" = $1 AND "ignoredId" <> $2"#)
                .bind(character_id)
                .bind(ignored_id)
                .fetch_one(self.store.pool())
                .await?
                .try_get("n")?;
        if count as usize >= MAX_IGNORED {
            return Err(StoreError::Conflict(format!(
                "at most {MAX_IGNORED} characters may be ignored"
            )));
        }
        sqlx::query(
            r#"INSERT INTO ignore_lists ("characterId", "ignoredId", "createdAt") VALUES ($1, $2, $3)
               ON CONFLICT ("characterId", "ignoredId") DO NOTHING"#,
        )
        .bind(character_id)
        .bind(ignored_id)
        .bind(now_ms())
        .execute(self.store.writer())
        .await?;
        Ok(())
    }

    /// Stops ignoring.
    pub async fn remove(&self, character_id: &str, ignored_id: &str) -> Result<(), StoreError> {
        sqlx::query(r#"DELETE FROM ignore_lists WHERE "characterId" = $1 AND "ignoredId" = $2"#)
            .bind(character_id)
            .bind(ignored_id)
            .execute(self.store.writer())
            .await?;
        Ok(())
    }

    /// The characters `character_id` ignores, by name.
    pub async fn list(&self, character_id: &str) -> Result<Vec<Contact>, StoreError> {
        let sql = r#"SELECT c.id, c.name FROM ignore_lists i JOIN characters c ON c.id = i."ignoredId"
               WHERE i."characterId" = $1 ORDER BY c.name"#;
        rows_of(self.store.pool(), sql, character_id, Contact::read).await
    }

    /// Whether `character_id` ignores `other_id`.
    pub async fn ignores(&self, character_id: &str, other_id: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query(
            r#"SELECT 1 FROM ignore_lists WHERE "characterId" = $1 AND "ignoredId" = $2"#,
        )
        .bind(character_id)
        .bind(other_id)
        .fetch_optional(self.store.pool())
        .await?
        .is_some())
    }

    /// The lower-cased names of the characters `character_id` ignores.
    pub async fn names(&self, character_id: &str) -> Result<Vec<String>, StoreError> {
        let sql = r#"SELECT c.name FROM ignore_lists i JOIN characters c ON c.id = i."ignoredId"
               WHERE i."characterId" = $1 ORDER BY c.name"#;
        rows_of(self.store.pool(), sql, character_id, |r| {
            r.try_get::<String, _>(0).map(|n| n.to_lowercase())
        })
        .await
    }
}
