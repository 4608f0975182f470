//! Inventory (28 slots) and equipment rows, and the batched save of whole characters: every write of a
//! character's items happens in one transaction with its record, so a save is all or nothing.

use sqlx::any::AnyRow;
use sqlx::{Any, FromRow, Row, Transaction};

use crate::repo::characters::Character;
use crate::repo::deaths::{self, DeathLock, DeathTake, NpcKill};
use crate::repo::snapshot_writes;
use crate::repo::trades::{self, TradeAudit};
use crate::repo::{character_rows, PerCharacter};
use crate::{Store, StoreError};

/// Slots in an inventory.
pub const INVENTORY_SLOTS: u8 = 28;

/// One occupied inventory slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSlot {
    pub slot: u8,
    pub item_id: String,
    pub quantity: i64,
}

/// One worn item.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredEquipment {
    #[sqlx(rename = "slotType")]
    pub slot_type: String,
    #[sqlx(rename = "itemId")]
    pub item_id: String,
    pub quantity: i64,
}

/// One banked item (`bank` rows; `position` is the bank order).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredBankItem {
    #[sqlx(rename = "itemId")]
    pub item_id: String,
    pub quantity: i64,
}

/// Everything saved about a character at once.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterSnapshot {
    pub character: Character,
    pub inventory: Vec<StoredSlot>,
    pub equipment: Vec<StoredEquipment>,
    /// The bank, in bank order (written with the inventory, in the same transaction).
    pub bank: Vec<StoredBankItem>,
    /// Quests started or done (written with the items, in the same transaction).
    pub quests: Vec<crate::repo::quests::StoredQuest>,
    /// When the current XP of a skill was reached (epoch ms), for skills whose XP changed while
    /// online: written to `skill_records` with the record, for the hiscores' tie-break. Empty when
    /// read from the store.
    pub xp_reached_at: std::collections::BTreeMap<wayfarer_protocol::Skill, i64>,
}

/// Everything one save writes, in one transaction (see [`Inventories::save`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SaveBatch {
    /// Characters to save whole (record, inventory, equipment).
    pub snapshots: Vec<CharacterSnapshot>,
    /// New death locks (with the dying character's snapshot, without the items, in `snapshots`).
    pub new_deaths: Vec<DeathLock>,
    /// Items leaving death locks (with the picker's snapshot in `snapshots`).
    pub death_takes: Vec<DeathTake>,
    /// NPC kills to count.
    pub kills: Vec<NpcKill>,
    /// A completed trade's audit row, written with both participants' post-swap snapshots (in
    /// `snapshots`).
    pub trade: Option<TradeAudit>,
    /// A finished duel's audit row, written with both duelists' post-result snapshots (in
    /// `snapshots`).
    pub duel: Option<crate::repo::duels::DuelAudit>,
    /// World chunks whose persisted state changed, written with the records of the players whose
    /// drops and pickups changed them (`repo::world_chunks`).
    pub chunks: Vec<crate::repo::world_chunks::ChunkWrite>,
}

impl SaveBatch {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.snapshots.is_empty()
            && self.new_deaths.is_empty()
            && self.death_takes.is_empty()
            && self.kills.is_empty()
            && self.trade.is_none()
            && self.duel.is_none()
            && self.chunks.is_empty()
    }
}

/// The inventory and equipment repository.
pub struct Inventories<'a> {
    store: &'a Store,
}

impl<'a> Inventories<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// A character's occupied slots, by slot.
    pub async fn get(&self, character_id: &str) -> Result<Vec<StoredSlot>, StoreError> {
        character_rows(self.store.pool(), character_id).await
    }

    /// A character's worn items.
    pub async fn equipment(&self, character_id: &str) -> Result<Vec<StoredEquipment>, StoreError> {
        character_rows(self.store.pool(), character_id).await
    }

    /// A character's bank, in bank order.
    pub async fn bank(&self, character_id: &str) -> Result<Vec<StoredBankItem>, StoreError> {
        character_rows(self.store.pool(), character_id).await
    }

    /// Units of every item held by all characters: `(item id, in inventories, worn, banked)`, by
    /// item id (the economy audit; open death locks come from `Deaths::locked`).
    pub async fn item_totals(&self) -> Result<Vec<(String, i64, i64, i64)>, StoreError> {
        let mut totals: std::collections::BTreeMap<String, (i64, i64, i64)> = Default::default();
        for (table, column) in [("inventory", 0), ("equipment", 1), ("bank", 2)] {
            let rows = sqlx::query(&format!(
                r#"SELECT "itemId", CAST(SUM(quantity) AS BIGINT) AS total FROM {table} GROUP BY "itemId""#
            ))
            .fetch_all(self.store.pool())
            .await?;
            for r in &rows {
                let item: String = r.try_get("itemId")?;
                let total: i64 = r.try_get("total")?;
                let entry = totals.entry(item).or_default();
                match column {
                    0 => entry.0 += total,
                    1 => entry.1 += total,
                    _ => entry.2 += total,
                }
            }
        }
        Ok(totals
            .into_iter()
            .map(|(item, (i, e, b))| (item, i, e, b))
            .collect())
    }

    /// Saves every snapshot in one transaction: all are written or none.
    pub async fn save_batch(&self, snapshots: &[CharacterSnapshot]) -> Result<(), StoreError> {
        self.save(&SaveBatch {
            snapshots: snapshots.to_vec(),
            ..SaveBatch::default()
        })
        .await
    }

    /// Writes several batches in order, together: group commit (`repo::group_commit`), one
    /// transaction for all of them with each batch atomic under its own savepoint; an outcome per
    /// batch, in order, each `Committed` only once its transaction committed.
    pub async fn save_group(
        &self,
        batches: &[SaveBatch],
        policy: crate::GroupPolicy,
    ) -> Vec<crate::GroupOutcome> {
        crate::repo::group_commit::save_group(self.store, batches, policy).await
    }

    /// Writes a whole batch in one transaction: the snapshots, the death locks, what left the
    /// locks and the kills. Any failure (e.g. taking from a released lock) rolls all of it back.
    pub async fn save(&self, batch: &SaveBatch) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin_write().await?;
        write_in(&mut tx, self.store, &[batch], crate::now_ms()).await?;
        tx.commit().await?;
        Ok(())
    }
}

/// Writes whole batches inside `tx`, in order, as if one after the other (see
/// [`Inventories::save`]): the characters of all of them together, in as few statements as their
/// rows allow (`repo::snapshot_writes`; the last snapshot of a character is what it leaves), then
/// each batch's death locks, kills, audit rows and chunks. A group commit passes its whole group,
/// or one batch at a time under savepoints when one of them must be told apart
/// (`repo::group_commit`).
pub(crate) async fn write_in(
    tx: &mut Transaction<'static, Any>,
    store: &Store,
    batches: &[&SaveBatch],
    now: i64,
) -> Result<(), StoreError> {
    let snapshots: Vec<&CharacterSnapshot> =
        batches.iter().flat_map(|batch| &batch.snapshots).collect();
    snapshot_writes::write(tx, store, &snapshots, now).await?;
    // Death locks, like chunks, belong to this store's world (its ground holds the pile).
    let world = store.world_id();
    for batch in batches {
        for lock in &batch.new_deaths {
            deaths::insert_in(tx, world, lock).await?;
        }
        for take in &batch.death_takes {
            deaths::take_in(tx, world, take, now).await?;
        }
        for kill in &batch.kills {
            deaths::kill_in(tx, kill).await?;
        }
        if let Some(duel) = &batch.duel {
            crate::repo::duels::insert_in(tx, duel).await?;
        }
        crate::repo::world_chunks::write_in(tx, world, &batch.chunks, now).await?;
    }
    let trades: Vec<&TradeAudit> = batches.iter().filter_map(|b| b.trade.as_ref()).collect();
    trades::insert_in(tx, &trades).await
}

/// Rewrites a character's inventory, equipment, bank and quest rows inside `tx`.
pub(crate) async fn replace_items(
    tx: &mut Transaction<'static, Any>,
    snapshot: &CharacterSnapshot,
) -> Result<(), StoreError> {
    snapshot_writes::replace_items(tx, &[snapshot], crate::now_ms()).await
}

impl PerCharacter for StoredSlot {
    const SQL: &'static str =
        r#"SELECT slot, "itemId", quantity FROM inventory WHERE "characterId" = $1 ORDER BY slot"#;

    fn read(row: &AnyRow) -> Result<StoredSlot, sqlx::Error> {
        Ok(StoredSlot {
            slot: u8::try_from(row.try_get::<i64, _>("slot")?).unwrap_or(u8::MAX),
            item_id: row.try_get("itemId")?,
            quantity: row.try_get("quantity")?,
        })
    }
}

impl PerCharacter for StoredEquipment {
    const SQL: &'static str = r#"SELECT "slotType", "itemId", quantity FROM equipment WHERE "characterId" = $1 ORDER BY "slotType""#;

    fn read(row: &AnyRow) -> Result<StoredEquipment, sqlx::Error> {
        StoredEquipment::from_row(row)
    }
}

impl PerCharacter for StoredBankItem {
    const SQL: &'static str = r#"SELECT "itemId", quantity FROM bank WHERE "characterId" = $1 ORDER BY position, "itemId""#;

    fn read(row: &AnyRow) -> Result<StoredBankItem, sqlx::Error> {
        StoredBankItem::from_row(row)
    }
}
