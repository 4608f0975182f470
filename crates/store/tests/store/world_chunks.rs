//! World chunks: rows written, rewritten and deleted (back to pristine), and written in the same
//! transaction as the records of a save batch: a batch that fails writes no chunk either.

use crate::{new_character_with, slot};
use wayfarer_store::{test_both_backends, ChunkWrite, SaveBatch, StoredChunk};

fn write(x: i32, z: i32, data: Option<&str>) -> ChunkWrite {
    ChunkWrite {
        chunk_x: x,
        chunk_z: z,
        data: data.map(str::to_owned),
    }
}

fn stored(x: i32, z: i32, data: &str) -> StoredChunk {
    StoredChunk {
        chunk_x: x,
        chunk_z: z,
        data: data.into(),
    }
}

test_both_backends!(chunks_round_trip_and_pristine_chunks_leave, |store| {
    let chunks = store.world_chunks();
    assert!(chunks.all().await.unwrap().is_empty());
    chunks
        .write(&[write(3, -2, Some(r#"{"v":1}"#)), write(-7, 0, Some("a"))])
        .await
        .unwrap();
    assert_eq!(
        chunks.all().await.unwrap(),
        vec![stored(-7, 0, "a"), stored(3, -2, r#"{"v":1}"#)]
    );
    // Rewritten in place; a chunk back to pristine is deleted (deleting a missing row is fine).
    chunks
        .write(&[
            write(3, -2, Some("b")),
            write(-7, 0, None),
            write(9, 9, None),
        ])
        .await
        .unwrap();
    assert_eq!(chunks.all().await.unwrap(), vec![stored(3, -2, "b")]);
});

test_both_backends!(chunks_are_written_with_the_batch_or_not_at_all, |store| {
    let snapshot = new_character_with(&store, "Dropper", vec![slot(0, "logs", 1)]).await;
    let id = snapshot.character.id.clone();
    // The drop: the record without the logs and the chunk with them, together.
    let mut dropped = snapshot.clone();
    dropped.inventory.clear();
    store
        .inventories()
        .save(&SaveBatch {
            snapshots: vec![dropped.clone()],
            chunks: vec![write(1, 1, Some("logs"))],
            ..SaveBatch::default()
        })
        .await
        .unwrap();
    assert!(store.inventories().get(&id).await.unwrap().is_empty());
    assert_eq!(
        store.world_chunks().all().await.unwrap(),
        vec![stored(1, 1, "logs")]
    );
    // A batch refused on its merits (a take from a lock that does not exist) writes neither.
    let failing = SaveBatch {
        snapshots: vec![snapshot.clone()],
        chunks: vec![write(1, 1, None)],
        death_takes: vec![wayfarer_store::DeathTake {
            death_id: "no-such-death".into(),
            item_id: "logs".into(),
            quantity: 1,
        }],
        ..SaveBatch::default()
    };
    assert!(store.inventories().save(&failing).await.is_err());
    assert!(store.inventories().get(&id).await.unwrap().is_empty());
    assert_eq!(
        store.world_chunks().all().await.unwrap(),
        vec![stored(1, 1, "logs")]
    );
    // A batch of chunks alone is not empty.
    let only_chunks = SaveBatch {
        chunks: vec![write(1, 1, None)],
        ..SaveBatch::default()
    };
    assert!(!only_chunks.is_empty());
    store.inventories().save(&only_chunks).await.unwrap();
    assert!(store.world_chunks().all().await.unwrap().is_empty());
});

test_both_backends!(each_world_keeps_its_own_chunks, |store| {
    let two = store.clone().with_lease_world(2);
    store
        .world_chunks()
        .write(&[write(0, 0, Some("one"))])
        .await
        .unwrap();
    two.world_chunks()
        .write(&[write(0, 0, Some("two")), write(5, 5, Some("two"))])
        .await
        .unwrap();
    assert_eq!(
        store.world_chunks().all().await.unwrap(),
        vec![stored(0, 0, "one")]
    );
    assert_eq!(
        two.world_chunks().all().await.unwrap(),
        vec![stored(0, 0, "two"), stored(5, 5, "two")]
    );
    // Back to pristine in world 2 leaves world 1's row alone.
    two.world_chunks()
        .write(&[write(0, 0, None)])
        .await
        .unwrap();
    assert_eq!(
        store.world_chunks().all().await.unwrap(),
        vec![stored(0, 0, "one")]
    );
});
