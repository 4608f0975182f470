//! The audit of finished duels (`duels`). A row is written in the same transaction that saves both
//! duelists with the loser's stake moved to the winner ([`SaveBatch::duel`](super::inventory::SaveBatch)),
//! so a duel's result is either wholly in the database (both records and its row) or not at all.

use sqlx::{Any, Row, Transaction};

use crate::repo::deaths::LockedItem;
use crate::{Store, StoreError};

/// One finished duel.
#[derive(Debug, Clone, PartialEq)]
pub struct DuelAudit {
    /// Unique id of the row.
    pub id: String,
    pub winner_id: String,
    pub loser_id: String,
    /// The loser's stake, now the winner's.
    pub items_won: Vec<LockedItem>,
    /// The winner's own stake (it never left them).
    pub winner_stake: Vec<LockedItem>,
    /// The rules fought under.
    pub rules: Vec<String>,
    pub completed_at_ms: i64,
    /// A ladder fight's result (issue 55), written with the duel's row in its transaction. Not
    /// read back here (`Store::arena` reads it).
    pub arena: Option<crate::repo::arena::ArenaResult>,
}

/// The `duels` reader.
pub struct Duels<'a> {
    store: &'a Store,
}

impl<'a> Duels<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// The duels a character fought, oldest first.
    pub async fn of(&self, character_id: &str) -> Result<Vec<DuelAudit>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT id, "winnerId", "loserId", "itemsWon", "winnerStake", rules, "completedAt"
               FROM duels WHERE "winnerId" = $1 OR "loserId" = $1 ORDER BY "completedAt", id"#,
        )
        .bind(character_id)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter().map(read).collect()
    }

    /// How many duels are recorded.
    pub async fn count(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM duels")
            .fetch_one(self.store.pool())
            .await?;
        Ok(row.try_get("n")?)
    }
}

fn read(r: &sqlx::any::AnyRow) -> Result<DuelAudit, StoreError> {
    fn parse<T: serde::de::DeserializeOwned>(text: String) -> Result<T, StoreError> {
        serde_json::from_str(&text)
            .map_err(|e| StoreError::Corrupt(format!("a duels column is not its JSON list: {e}")))
    }
    Ok(DuelAudit {
        id: r.try_get("id")?,
        winner_id: r.try_get("winnerId")?,
        loser_id: r.try_get("loserId")?,
        items_won: parse(r.try_get("itemsWon")?)?,
        winner_stake: parse(r.try_get("winnerStake")?)?,
        rules: parse(r.try_get("rules")?)?,
        completed_at_ms: r.try_get("completedAt")?,
        arena: None,
    })
}

/// Writes the audit row inside `tx`.
pub(crate) async fn insert_in(
    tx: &mut Transaction<'static, Any>,
    duel: &DuelAudit,
) -> Result<(), StoreError> {
    fn json<T: serde::Serialize>(value: &T) -> String {
        serde_json::to_string(value).unwrap_or_else(|_| "[]".into())
    }
    sqlx::query(
        r#"INSERT INTO duels (id, "winnerId", "loserId", "itemsWon", "winnerStake", rules, "completedAt")
           VALUES ($1, $2, $3, $4, $5, $6, $7)"#,
    )
    .bind(&duel.id)
    .bind(&duel.winner_id)
    .bind(&duel.loser_id)
    .bind(json(&duel.items_won))
    .bind(json(&duel.winner_stake))
    .bind(json(&duel.rules))
    .bind(duel.completed_at_ms)
    .execute(&mut **tx)
    .await?;
    if let Some(fight) = &duel.arena {
        crate::repo::arena::insert_in(tx, fight).await?;
    }
    Ok(())
}
