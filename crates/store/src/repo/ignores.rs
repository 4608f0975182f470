//! Ignore lists (`ignore_lists`): whom a character ignores.

use sqlx::Row;

use crate::{now_ms, Store, StoreError};

/// The `ignore_lists` repository.
pub struct Ignores<'a> {
    store: &'a Store,
}

impl<'a> Ignores<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// `character_id` ignores `ignored_id` (adding twice changes nothing).
    pub async fn add(&self, character_id: &str, ignored_id: &str) -> Result<(), StoreError> {
        sqlx::query(
            r#"INSERT INTO ignore_lists ("characterId", "ignoredId", "createdAt") VALUES ($1, $2, $3)
               ON CONFLICT ("characterId", "ignoredId") DO NOTHING"#,
        )
        .bind(character_id)
        .bind(ignored_id)
        .bind(now_ms())
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Stops ignoring.
    pub async fn remove(&self, character_id: &str, ignored_id: &str) -> Result<(), StoreError> {
        sqlx::query(r#"DELETE FROM ignore_lists WHERE "characterId" = $1 AND "ignoredId" = $2"#)
            .bind(character_id)
            .bind(ignored_id)
            .execute(self.store.pool())
            .await?;
        Ok(())
    }

    /// The lower-cased names of the characters `character_id` ignores.
    pub async fn names(&self, character_id: &str) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT c.name FROM ignore_lists i JOIN characters c ON c.id = i."ignoredId"
               WHERE i."characterId" = $1 ORDER BY c.name"#,
        )
        .bind(character_id)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|r| r.try_get::<String, _>(0).map(|n| n.to_lowercase()))
            .collect::<Result<_, _>>()
            .map_err(Into::into)
    }
}
