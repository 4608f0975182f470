//! The audit of completed trades (`trades`). A row is written in the same transaction that saves
//! both participants with the swapped items ([`SaveBatch::trade`](super::inventory::SaveBatch)), so
//! a trade is either wholly in the database (both records and its row) or not at all.

use sqlx::{Any, Row, Transaction};

use crate::repo::deaths::LockedItem;
use crate::{Store, StoreError};

/// One completed trade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradeAudit {
    /// Unique id of the row.
    pub id: String,
    pub player_a: String,
    pub player_b: String,
    /// What went from A to B.
    pub items_a_to_b: Vec<LockedItem>,
    /// What went from B to A.
    pub items_b_to_a: Vec<LockedItem>,
    pub completed_at_ms: i64,
}

/// The `trades` reader.
pub struct Trades<'a> {
    store: &'a Store,
}

impl<'a> Trades<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// The trades a character took part in, oldest first.
    pub async fn of(&self, character_id: &str) -> Result<Vec<TradeAudit>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT id, "playerA", "playerB", "itemsAToB", "itemsBToA", "completedAt" FROM trades
               WHERE "playerA" = $1 OR "playerB" = $1 ORDER BY "completedAt", id"#,
        )
        .bind(character_id)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter().map(read).collect()
    }

    /// How many trades are recorded.
    pub async fn count(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM trades")
            .fetch_one(self.store.pool())
            .await?;
        Ok(row.try_get("n")?)
    }
}

fn read(r: &sqlx::any::AnyRow) -> Result<TradeAudit, StoreError> {
    let parse = |text: String| -> Result<Vec<LockedItem>, StoreError> {
        serde_json::from_str(&text)
            .map_err(|e| StoreError::Corrupt(format!("trades items are not an item list: {e}")))
    };
    Ok(TradeAudit {
        id: r.try_get("id")?,
        player_a: r.try_get("playerA")?,
        player_b: r.try_get("playerB")?,
        items_a_to_b: parse(r.try_get("itemsAToB")?)?,
        items_b_to_a: parse(r.try_get("itemsBToA")?)?,
        completed_at_ms: r.try_get("completedAt")?,
    })
}

/// Writes audit rows inside `tx`, several a statement.
pub(crate) async fn insert_in(
    tx: &mut Transaction<'static, Any>,
    trades: &[&TradeAudit],
) -> Result<(), StoreError> {
    use crate::repo::snapshot_writes::{insert_rows, Value};
    let json = |items: &[LockedItem]| serde_json::to_string(items).unwrap_or_else(|_| "[]".into());
    let rows: Vec<[Value; 6]> = trades
        .iter()
        .map(|trade| {
            [
                Value::Text(&trade.id),
                Value::Text(&trade.player_a),
                Value::Text(&trade.player_b),
                Value::Owned(json(&trade.items_a_to_b)),
                Value::Owned(json(&trade.items_b_to_a)),
                Value::Int(trade.completed_at_ms),
            ]
        })
        .collect();
    insert_rows(
        tx,
        r#"trades (id, "playerA", "playerB", "itemsAToB", "itemsBToA", "completedAt")"#,
        "",
        &rows,
    )
    .await
}
