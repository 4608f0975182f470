//! The `worldChunks` rows: the sim's persisted chunks (`wayfarer_sim::ChunkState`) as versioned
//! JSON, written by the save task with the records they go with, and put back into a fresh world at
//! start-up, before its thread starts.
//!
//! Times are stored as ticks left, never as ticks of a run (the tick count starts again at 0): the
//! countdowns stop while the server is down and resume where they were last written. A graceful
//! shutdown writes every chunk as the world stops; after a crash a countdown resumes from the last
//! time its chunk was written.

use serde::{Deserialize, Serialize};
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::inventory::Stack;
use wayfarer_sim::{
    ChunkKey, ChunkState, DepletedResource, PersistedGroundItem, RestoreReport, World,
};
use wayfarer_store::{ChunkWrite, Store, StoreError, StoredChunk};

/// The version of the `data` format below; a row of another version is skipped with a warning.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkData {
    v: u32,
    #[serde(default)]
    resources: Vec<ResourceData>,
    #[serde(default)]
    ground: Vec<GroundData>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceData {
    key: String,
    resource_id: String,
    ticks_left: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GroundData {
    item_id: String,
    quantity: u32,
    x: i32,
    z: i32,
    #[serde(default)]
    owner: Option<String>,
    #[serde(default)]
    private_ticks_left: u64,
    ticks_left: u64,
}

/// A chunk's row: its JSON, or a delete when it is pristine again.
pub fn encode(state: &ChunkState) -> ChunkWrite {
    let data = (!state.is_pristine()).then(|| {
        let data = ChunkData {
            v: FORMAT_VERSION,
            resources: state
                .depleted
                .iter()
                .map(|r| ResourceData {
                    key: r.key.clone(),
                    resource_id: r.resource_id.clone(),
                    ticks_left: r.ticks_left,
                })
                .collect(),
            ground: state
                .ground
                .iter()
                .map(|g| GroundData {
                    item_id: g.stack.item_id.clone(),
                    quantity: g.stack.quantity,
                    x: g.tile.x,
                    z: g.tile.z,
                    owner: g.owner.clone(),
                    private_ticks_left: g.private_ticks_left,
                    ticks_left: g.ticks_left,
                })
                .collect(),
        };
        serde_json::to_string(&data).expect("chunk data serializes")
    });
    ChunkWrite {
        chunk_x: state.chunk.x,
        chunk_z: state.chunk.z,
        data,
    }
}

/// A stored row as the sim's chunk state; why not, when it cannot be read.
pub fn decode(row: &StoredChunk) -> Result<ChunkState, String> {
    let data: ChunkData = serde_json::from_str(&row.data).map_err(|e| e.to_string())?;
    if data.v != FORMAT_VERSION {
        return Err(format!("unknown format version {}", data.v));
    }
    Ok(ChunkState {
        chunk: ChunkKey {
            x: row.chunk_x,
            z: row.chunk_z,
        },
        depleted: data
            .resources
            .into_iter()
            .map(|r| DepletedResource {
                key: r.key,
                resource_id: r.resource_id,
                ticks_left: r.ticks_left,
            })
            .collect(),
        ground: data
            .ground
            .into_iter()
            .map(|g| PersistedGroundItem {
                stack: Stack {
                    item_id: g.item_id,
                    quantity: g.quantity,
                },
                tile: TilePos { x: g.x, z: g.z },
                owner: g.owner,
                private_ticks_left: g.private_ticks_left,
                ticks_left: g.ticks_left,
            })
            .collect(),
    })
}

/// Puts the stored chunks back into `world` (fresh, not yet ticking). Rows that cannot be read and
/// entries the content no longer has are skipped with a warning; the start goes on.
pub async fn restore(store: &Store, world: &mut World) -> Result<RestoreReport, StoreError> {
    let rows = store.world_chunks().all().await?;
    let mut states = Vec::with_capacity(rows.len());
    for row in &rows {
        match decode(row) {
            Ok(state) => states.push(state),
            Err(reason) => tracing::warn!(
                chunk_x = row.chunk_x,
                chunk_z = row.chunk_z,
                reason,
                "a stored world chunk cannot be read: skipped"
            ),
        }
    }
    let report = world.restore_chunks(&states);
    for reason in &report.skipped {
        tracing::warn!(reason = %reason, "a stored world change was skipped");
    }
    tracing::info!(
        chunks = rows.len(),
        resources = report.resources,
        ground_items = report.ground_items,
        skipped = report.skipped.len(),
        "world chunks restored"
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_survives_its_json_and_a_pristine_one_is_a_delete() {
        let state = ChunkState {
            chunk: ChunkKey { x: -2, z: 5 },
            depleted: vec![DepletedResource {
                key: "town/resource/3".into(),
                resource_id: "oak_tree".into(),
                ticks_left: 40,
            }],
            ground: vec![PersistedGroundItem {
                stack: Stack {
                    item_id: "logs".into(),
                    quantity: 3,
                },
                tile: TilePos { x: -9, z: 41 },
                owner: Some("c1".into()),
                private_ticks_left: 12,
                ticks_left: 150,
            }],
        };
        let write = encode(&state);
        let data = write.data.clone().unwrap();
        assert!(data.starts_with(r#"{"v":1,"#), "{data}");
        let row = StoredChunk {
            chunk_x: write.chunk_x,
            chunk_z: write.chunk_z,
            data,
        };
        assert_eq!(decode(&row).unwrap(), state);

        let pristine = ChunkState {
            chunk: ChunkKey { x: 1, z: 1 },
            depleted: vec![],
            ground: vec![],
        };
        assert_eq!(encode(&pristine).data, None);
    }

    #[test]
    fn unreadable_rows_are_refused_not_panicked_on() {
        for data in ["not json", r#"{"v":2,"ground":[]}"#, r#"{"ground":[]}"#] {
            let row = StoredChunk {
                chunk_x: 0,
                chunk_z: 0,
                data: data.into(),
            };
            assert!(decode(&row).is_err(), "{data}");
        }
    }
}
