//! The persistent world modifications (`worldChunks`): one row per chunk of the map that differs
//! from its pristine state, its `data` an opaque JSON text the server owns (versioned there). Rows
//! are written inside a save batch's transaction, with the records of the players whose drops and
//! pickups changed them, so the ground and the characters never disagree about an item.
//! Rows belong to a world (`worldId`): several worlds on one database each keep their own ground.
//! A single world is world 1, the default of `WORLD_ID`.

use sqlx::{Any, Row, Transaction};

use crate::{Store, StoreError};

/// One stored chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredChunk {
    pub chunk_x: i32,
    pub chunk_z: i32,
    pub data: String,
}

/// A chunk to write: its new data, or `None` when it is back to pristine (the row is deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkWrite {
    pub chunk_x: i32,
    pub chunk_z: i32,
    pub data: Option<String>,
}

/// The `worldChunks` repository.
pub struct WorldChunks<'a> {
    store: &'a Store,
}

impl<'a> WorldChunks<'a> {
    pub(crate) fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Every stored chunk of this store's world, by coordinates.
    pub async fn all(&self) -> Result<Vec<StoredChunk>, StoreError> {
        let rows = sqlx::query(
            r#"SELECT "chunkX", "chunkZ", data FROM "worldChunks" WHERE "worldId" = $1
               ORDER BY "chunkX", "chunkZ""#,
        )
        .bind(self.store.world_id())
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(StoredChunk {
                    chunk_x: i32::try_from(row.try_get::<i64, _>("chunkX")?).unwrap_or(i32::MAX),
                    chunk_z: i32::try_from(row.try_get::<i64, _>("chunkZ")?).unwrap_or(i32::MAX),
                    data: row.try_get("data")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    /// Writes `chunks` in one transaction of their own.
    pub async fn write(&self, chunks: &[ChunkWrite]) -> Result<(), StoreError> {
        let mut tx = self.store.begin_write().await?;
        write_in(&mut tx, self.store.world_id(), chunks, crate::now_ms()).await?;
        tx.commit().await?;
        Ok(())
    }
}

/// Writes (or deletes) each of `world`'s chunk rows inside `tx`.
pub(crate) async fn write_in(
    tx: &mut Transaction<'static, Any>,
    world: i64,
    chunks: &[ChunkWrite],
    now: i64,
) -> Result<(), StoreError> {
    for chunk in chunks {
        match &chunk.data {
            Some(data) => {
                sqlx::query(
                    r#"INSERT INTO "worldChunks" ("worldId", "chunkX", "chunkZ", data, "updatedAt")
                       VALUES ($1, $2, $3, $4, $5)
                       ON CONFLICT ("worldId", "chunkX", "chunkZ")
                       DO UPDATE SET data = excluded.data, "updatedAt" = excluded."updatedAt""#,
                )
                .bind(world)
                .bind(i64::from(chunk.chunk_x))
                .bind(i64::from(chunk.chunk_z))
                .bind(data)
                .bind(now)
                .execute(&mut **tx)
                .await?;
            }
            None => {
                sqlx::query(
                    r#"DELETE FROM "worldChunks"
                       WHERE "worldId" = $1 AND "chunkX" = $2 AND "chunkZ" = $3"#,
                )
                .bind(world)
                .bind(i64::from(chunk.chunk_x))
                .bind(i64::from(chunk.chunk_z))
                .execute(&mut **tx)
                .await?;
            }
        }
    }
    Ok(())
}
