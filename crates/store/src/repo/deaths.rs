//! Death locks (`playerDeaths`) and kill counts (`npcKills`).
//!
//! A death lock holds the items a character lost at death until they are all picked up or gone. It
//! is written in the same transaction that saves the character without those items
//! ([`SaveBatch::new_deaths`](super::inventory::SaveBatch)), and every later pickup of one of them
//! subtracts it in the same transaction that saves the picker's inventory
//! ([`SaveBatch::death_takes`](super::inventory::SaveBatch)). So at every moment each item is in
//! exactly one place in the database: a crash between any two steps can neither lose nor duplicate
//! it, and after a restart the server puts the remaining items of every open lock back on the
//! ground.
//!
//! A lock belongs to the world whose ground holds its pile (`worldId`, the store's
//! [`Store::world_id`]): with several worlds on one database each world reads and takes from its
//! own locks only, so a pile is never restored in two worlds.

use serde::{Deserialize, Serialize};
use sqlx::{Any, Row, Transaction};

use crate::{Store, StoreError};

/// One stack in a death lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockedItem {
    pub item_id: String,
    pub quantity: i64,
}

/// A death whose items are still in the world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeathLock {
    /// Unique death id (given by the world).
    pub id: String,
    pub character_id: String,
    pub died_at_ms: i64,
    pub tile_x: i32,
    pub tile_z: i32,
    pub area_id: Option<String>,
    /// Died in a PvP area (items public at once).
    pub pvp: bool,
    /// What is still unclaimed.
    pub items: Vec<LockedItem>,
}

/// Items of a death leaving its lock: picked up by someone (whose save is in the same batch) or
/// vanished from the ground.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeathTake {
    pub death_id: String,
    pub item_id: String,
    pub quantity: i64,
}

/// One NPC killed by a character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpcKill {
    pub character_id: String,
    pub npc_id: String,
    pub at_ms: i64,
}

/// The `playerDeaths` and `npcKills` reader.
pub struct Deaths<'a> {
    store: &'a Store,
}

impl<'a> Deaths<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Every lock of this store's world still holding items, oldest first.
    pub async fn locked(&self) -> Result<Vec<DeathLock>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT id, "characterId", "diedAt", "tileX", "tileZ", "areaId", pvp, items
               FROM "playerDeaths" WHERE status = 'locked' AND "worldId" = $1
               ORDER BY "diedAt", id"#,
        )
        .bind(self.store.world_id())
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|r| {
                let items: String = r.try_get("items")?;
                Ok(DeathLock {
                    id: r.try_get("id")?,
                    character_id: r.try_get("characterId")?,
                    died_at_ms: r.try_get("diedAt")?,
                    tile_x: r.try_get::<i32, _>("tileX")?,
                    tile_z: r.try_get::<i32, _>("tileZ")?,
                    area_id: r.try_get("areaId")?,
                    pvp: r.try_get::<i64, _>("pvp")? != 0,
                    items: parse_items(&items)?,
                })
            })
            .collect()
    }

    /// The status of a lock (`locked` or `released`), when it exists.
    pub async fn status(&self, death_id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(r#"SELECT status FROM "playerDeaths" WHERE id = $1"#)
            .bind(death_id)
            .fetch_optional(self.store.pool())
            .await?;
        Ok(row.map(|r| r.try_get("status")).transpose()?)
    }

    /// How many of each NPC a character has killed, by NPC id.
    pub async fn kills(&self, character_id: &str) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT "npcId", count FROM "npcKills" WHERE "characterId" = $1 ORDER BY "npcId""#,
        )
        .bind(character_id)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("npcId")?, r.try_get("count")?)))
            .collect()
    }
}

pub(crate) fn parse_items(text: &str) -> Result<Vec<LockedItem>, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::Corrupt(format!("playerDeaths.items is not an item list: {e}")))
}

fn items_text(items: &[LockedItem]) -> String {
    // A list of plain structs always serialises.
    serde_json::to_string(items).unwrap_or_else(|_| "[]".into())
}

/// Writes a new lock of `world` inside `tx`.
pub(crate) async fn insert_in(
    tx: &mut Transaction<'static, Any>,
    world: i64,
    lock: &DeathLock,
) -> Result<(), StoreError> {
    let items: Vec<LockedItem> = lock
        .items
        .iter()
        .filter(|i| i.quantity > 0)
        .cloned()
        .collect();
    let status = if items.is_empty() {
        "released"
    } else {
        "locked"
    };
    sqlx::query(
        r#"INSERT INTO "playerDeaths" (id, "characterId", "diedAt", "tileX", "tileZ", "areaId", items, status, "releasedAt", pvp, "worldId")
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"#,
    )
    .bind(&lock.id)
    .bind(&lock.character_id)
    .bind(lock.died_at_ms)
    .bind(lock.tile_x)
    .bind(lock.tile_z)
    .bind(lock.area_id.clone())
    .bind(items_text(&items))
    .bind(status)
    .bind(items.is_empty().then_some(lock.died_at_ms))
    .bind(i64::from(lock.pvp))
    .bind(world)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Subtracts items from a lock of `world` inside `tx`, releasing it when nothing is left. Taking
/// more than the lock holds (or from a released or unknown lock, or another world's) is refused:
/// the batch rolls back.
pub(crate) async fn take_in(
    tx: &mut Transaction<'static, Any>,
    world: i64,
    take: &DeathTake,
    now_ms: i64,
) -> Result<(), StoreError> {
    let row = sqlx::query(r#"SELECT items, status, "worldId" FROM "playerDeaths" WHERE id = $1"#)
        .bind(&take.death_id)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(row) = row else {
        return Err(StoreError::Conflict(format!(
            "death lock {} does not exist",
            take.death_id
        )));
    };
    let lock_world: i64 = row.try_get("worldId")?;
    if lock_world != world {
        // Only a world that restored the pile can see its items: this is a bug, never a race.
        return Err(StoreError::Conflict(format!(
            "death lock {} belongs to world {lock_world}, not {world}",
            take.death_id
        )));
    }
    let status: String = row.try_get("status")?;
    if status != "locked" {
        return Err(StoreError::Conflict(format!(
            "death lock {} is already released",
            take.death_id
        )));
    }
    let mut items = parse_items(&row.try_get::<String, _>("items")?)?;
    let mut left = take.quantity;
    for item in items.iter_mut().filter(|i| i.item_id == take.item_id) {
        let taken = left.min(item.quantity);
        item.quantity -= taken;
        left -= taken;
    }
    if left > 0 || take.quantity <= 0 {
        return Err(StoreError::Conflict(format!(
            "death lock {} holds fewer than {} x {}",
            take.death_id, take.quantity, take.item_id
        )));
    }
    items.retain(|i| i.quantity > 0);
    let released = items.is_empty();
    sqlx::query(
        r#"UPDATE "playerDeaths" SET items = $2, status = $3, "releasedAt" = $4 WHERE id = $1"#,
    )
    .bind(&take.death_id)
    .bind(items_text(&items))
    .bind(if released { "released" } else { "locked" })
    .bind(released.then_some(now_ms))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Counts one kill inside `tx`.
pub(crate) async fn kill_in(
    tx: &mut Transaction<'static, Any>,
    kill: &NpcKill,
) -> Result<(), StoreError> {
    sqlx::query(
        r#"INSERT INTO "npcKills" ("characterId", "npcId", count, "lastKillAt") VALUES ($1, $2, 1, $3)
           ON CONFLICT ("characterId", "npcId")
           DO UPDATE SET count = "npcKills".count + 1, "lastKillAt" = excluded."lastKillAt""#,
    )
    .bind(&kill.character_id)
    .bind(&kill.npc_id)
    .bind(kill.at_ms)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
