//! The economy's durable books: per item and reason, the units that entered the world (gathered,
//! crafted, bought, starting grants, …) and left it (eaten, sold, expired, deleted, …) over the
//! database's whole life (`economy_flows`), and where the database holds every unit now
//! ([`Economy::books`]).
//!
//! Every entry is written in the transaction that changes the holdings it accounts for: a save
//! batch carries the entries and exits owed with its records and chunks (`SaveBatch::flows`, from
//! `wayfarer_sim::World::flows_for`), a character's creation its starting grant, a deletion what
//! the character held. So in every committed state, whatever crashes, for every item:
//!
//! held (inventories + worn + banks + open death locks + ground chunks) = entered − left.
//!
//! A database that held items before the books existed opens them once ([`open_books`], run
//! after the migrations): what it held then enters as `opening`.

use std::collections::BTreeMap;

use serde::Deserialize;
use sqlx::{Any, Row, Transaction};

use crate::repo::snapshot_writes::{insert_rows, Value};
use crate::{Backend, Store, StoreError};

/// The direction recorded for items that came into the world.
pub const ENTERED: &str = "entered";
/// The direction recorded for items that went out of the world.
pub const LEFT: &str = "left";
/// The reason of the units a database held when its books opened.
pub const OPENING: &str = "opening";

/// Units of one item entering or leaving the world for one reason, to add to the books.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowDelta {
    pub item_id: String,
    /// True for an entry, false for an exit.
    pub entered: bool,
    pub reason: String,
    pub units: i64,
}

/// Where the database holds the units of one item.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Holdings {
    pub inventory: i64,
    pub equipment: i64,
    pub bank: i64,
    /// In open death locks (every world's).
    pub death_locks: i64,
    /// Lying on the ground outside death piles, as the world chunks hold it (every world's).
    pub ground: i64,
}

impl Holdings {
    /// Every unit the database holds.
    pub fn total(&self) -> i64 {
        self.inventory + self.equipment + self.bank + self.death_locks + self.ground
    }
}

/// The books as one committed state has them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Books {
    /// Item id → where it is held.
    pub held: BTreeMap<String, Holdings>,
    /// Item id → reason → units that entered, over the database's life.
    pub entered: BTreeMap<String, BTreeMap<String, i64>>,
    /// Item id → reason → units that left.
    pub left: BTreeMap<String, BTreeMap<String, i64>>,
}

impl Books {
    /// Per item, held − (entered − left), for the items where that is not zero: empty when the
    /// books balance, i.e. no item was lost or made twice.
    pub fn imbalances(&self) -> BTreeMap<String, i64> {
        let mut out: BTreeMap<String, i64> = BTreeMap::new();
        for (item, held) in &self.held {
            *out.entry(item.clone()).or_default() += held.total();
        }
        for (item, reasons) in &self.entered {
            *out.entry(item.clone()).or_default() -= reasons.values().sum::<i64>();
        }
        for (item, reasons) in &self.left {
            *out.entry(item.clone()).or_default() += reasons.values().sum::<i64>();
        }
        out.retain(|_, difference| *difference != 0);
        out
    }
}

/// The books' reader.
pub struct Economy<'a> {
    store: &'a Store,
}

impl<'a> Economy<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// The holdings and the flows, every part from one committed state (one read transaction,
    /// repeatable read on PostgreSQL), so a save landing meanwhile cannot unbalance them.
    pub async fn books(&self) -> Result<Books, StoreError> {
        let mut tx = match self.store.backend() {
            Backend::Postgres => {
                self.store
                    .pool()
                    .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    .await?
            }
            Backend::Sqlite => self.store.pool().begin().await?,
        };
        let held = holdings_in(&mut tx).await?;
        let mut books = Books {
            held,
            ..Books::default()
        };
        let rows = sqlx::query(r#"SELECT "itemId", direction, reason, units FROM economy_flows"#)
            .fetch_all(&mut *tx)
            .await?;
        for row in &rows {
            let item: String = row.try_get("itemId")?;
            let direction: String = row.try_get("direction")?;
            let reason: String = row.try_get("reason")?;
            let units: i64 = row.try_get("units")?;
            let side = if direction == ENTERED {
                &mut books.entered
            } else {
                &mut books.left
            };
            *side.entry(item).or_default().entry(reason).or_default() += units;
        }
        tx.commit().await?;
        Ok(books)
    }
}

/// Adds `flows` to the books inside `tx` (several deltas of one item, direction and reason are
/// added together first: one row each).
pub(crate) async fn record_in(
    tx: &mut Transaction<'static, Any>,
    flows: &[&FlowDelta],
) -> Result<(), StoreError> {
    let mut sums: BTreeMap<(&str, &'static str, &str), i64> = BTreeMap::new();
    for flow in flows {
        if flow.units == 0 {
            continue;
        }
        let direction = if flow.entered { ENTERED } else { LEFT };
        *sums
            .entry((&flow.item_id, direction, &flow.reason))
            .or_default() += flow.units;
    }
    let rows: Vec<[Value; 4]> = sums
        .into_iter()
        .map(|((item, direction, reason), units)| {
            [
                Value::Text(item),
                Value::Text(direction),
                Value::Text(reason),
                Value::Int(units),
            ]
        })
        .collect();
    insert_rows(
        tx,
        r#"economy_flows ("itemId", direction, reason, units)"#,
        r#" ON CONFLICT ("itemId", direction, reason) DO UPDATE SET units = economy_flows.units + excluded.units"#,
        &rows,
    )
    .await
}

/// Opens the books of a database that has none yet, in one transaction: what it holds enters as
/// [`OPENING`] (nothing, for a new database). Run after the migrations; a no-op once opened.
pub(crate) async fn open_books(store: &Store) -> Result<(), StoreError> {
    let opened = sqlx::query("SELECT 1 FROM economy_books")
        .fetch_optional(store.pool())
        .await?;
    if opened.is_some() {
        return Ok(());
    }
    let mut tx = store.begin_write().await?;
    // Two processes starting together: the second finds the row and stops (PostgreSQL: the
    // primary key refuses the second insert, which rolls its transaction back).
    let inserted = sqlx::query(
        r#"INSERT INTO economy_books (id, "openedAt") VALUES (1, $1) ON CONFLICT (id) DO NOTHING"#,
    )
    .bind(crate::now_ms())
    .execute(&mut *tx)
    .await?;
    if inserted.rows_affected() == 0 {
        tx.rollback().await?;
        return Ok(());
    }
    let held = holdings_in(&mut tx).await?;
    let opening: Vec<FlowDelta> = held
        .into_iter()
        .map(|(item_id, h)| FlowDelta {
            item_id,
            entered: true,
            reason: OPENING.to_owned(),
            units: h.total(),
        })
        .collect();
    record_in(&mut tx, &opening.iter().collect::<Vec<_>>()).await?;
    tx.commit().await?;
    Ok(())
}

/// A world chunk's `data` as far as the books read it: its ground items (the server owns the
/// format, `server::world_chunks`; a row of another shape holds nothing here).
#[derive(Deserialize)]
struct ChunkGround {
    #[serde(default)]
    ground: Vec<GroundUnits>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GroundUnits {
    item_id: String,
    quantity: i64,
}

/// Units of every item in inventories, worn and in banks (the other places left at 0), read on
/// `conn` (a pooled connection, or a transaction's).
pub(crate) async fn table_totals(
    conn: &mut sqlx::AnyConnection,
) -> Result<BTreeMap<String, Holdings>, StoreError> {
    let mut held: BTreeMap<String, Holdings> = BTreeMap::new();
    for table in ["inventory", "equipment", "bank"] {
        let rows = sqlx::query(&format!(
            r#"SELECT "itemId", CAST(SUM(quantity) AS BIGINT) AS total FROM {table} GROUP BY "itemId""#
        ))
        .fetch_all(&mut *conn)
        .await?;
        for row in &rows {
            let item: String = row.try_get("itemId")?;
            let total: i64 = row.try_get("total")?;
            let entry = held.entry(item).or_default();
            match table {
                "inventory" => entry.inventory += total,
                "equipment" => entry.equipment += total,
                _ => entry.bank += total,
            }
        }
    }
    Ok(held)
}

/// Where every item is held, read inside `tx`.
async fn holdings_in(
    tx: &mut Transaction<'static, Any>,
) -> Result<BTreeMap<String, Holdings>, StoreError> {
    let mut held: BTreeMap<String, Holdings> = table_totals(tx).await?;
    let locks = sqlx::query(r#"SELECT items FROM "playerDeaths" WHERE status = 'locked'"#)
        .fetch_all(&mut **tx)
        .await?;
    for row in &locks {
        for item in crate::repo::deaths::parse_items(&row.try_get::<String, _>("items")?)? {
            held.entry(item.item_id).or_default().death_locks += item.quantity;
        }
    }
    let chunks = sqlx::query(r#"SELECT data FROM "worldChunks""#)
        .fetch_all(&mut **tx)
        .await?;
    for row in &chunks {
        let data: String = row.try_get("data")?;
        let Ok(chunk) = serde_json::from_str::<ChunkGround>(&data) else {
            continue;
        };
        for item in chunk.ground {
            held.entry(item.item_id).or_default().ground += item.quantity;
        }
    }
    held.retain(|_, h| *h != Holdings::default());
    Ok(held)
}
