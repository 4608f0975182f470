//! The item catalogue (`items`): the item definitions of the active content, rewritten whole when the
//! content changes, so operators can query inventories, banks and trades by item name and value in
//! SQL (`JOIN items ON items.id = inventory."itemId"`). The game never reads it: the content is the
//! truth, this is its copy for people.

use sqlx::Row;

use crate::{now_ms, Store, StoreError};

/// One item definition as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogItem {
    pub id: String,
    pub name: String,
    /// The content's item type (`weapon`, `resource`, `currency`, …).
    pub kind: String,
    /// Base value in coins.
    pub value: i64,
    pub stackable: bool,
    pub tradeable: bool,
    /// The whole definition as JSON (stats, bonuses, requirements).
    pub data: String,
}

/// The `items` repository.
pub struct Catalog<'a> {
    store: &'a Store,
}

impl<'a> Catalog<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Replaces the whole catalogue with `items`, in one transaction (a reader sees the old set or
    /// the new, never a mix).
    pub async fn replace_all(&self, items: &[CatalogItem]) -> Result<(), StoreError> {
        let now = now_ms();
        let mut tx = self.store.begin_write().await?;
        sqlx::query("DELETE FROM items").execute(&mut *tx).await?;
        for item in items {
            sqlx::query(
                r#"INSERT INTO items (id, name, type, value, stackable, tradeable, data, "updatedAt")
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"#,
            )
            .bind(&item.id)
            .bind(&item.name)
            .bind(&item.kind)
            .bind(item.value)
            .bind(i64::from(item.stackable))
            .bind(i64::from(item.tradeable))
            .bind(&item.data)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every stored definition, by id.
    pub async fn all(&self) -> Result<Vec<CatalogItem>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, name, type, value, stackable, tradeable, data FROM items ORDER BY id",
        )
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(CatalogItem {
                    id: row.try_get("id")?,
                    name: row.try_get("name")?,
                    kind: row.try_get("type")?,
                    value: row.try_get("value")?,
                    stackable: row.try_get::<i64, _>("stackable")? != 0,
                    tradeable: row.try_get::<i64, _>("tradeable")? != 0,
                    data: row.try_get("data")?,
                })
            })
            .collect()
    }
}
