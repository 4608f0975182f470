//! Duels: both duelists' post-result records and the audit row are one write; a refused write
//! changes neither record.

use crate::{locked, new_character_with, slot};
use wayfarer_store::{test_both_backends, DuelAudit, SaveBatch, StoreError};

test_both_backends!(
    a_duel_writes_both_records_and_its_audit_row_or_nothing,
    |store| {
        let winner = new_character_with(&store, "Victor", vec![slot(0, "coins", 100)]).await;
        let loser = new_character_with(&store, "Vanquished", vec![slot(0, "coins", 50)]).await;
        let mut winner_after = winner.clone();
        winner_after.inventory = vec![slot(0, "coins", 150)];
        let mut loser_after = loser.clone();
        loser_after.inventory = vec![];
        let batch = SaveBatch {
            snapshots: vec![winner_after, loser_after],
            duel: Some(DuelAudit {
                id: "d-1".into(),
                winner_id: winner.character.id.clone(),
                loser_id: loser.character.id.clone(),
                items_won: vec![locked("coins", 50)],
                winner_stake: vec![locked("coins", 10)],
                rules: vec!["no_food".into()],
                completed_at_ms: 1_000,
                arena: None,
            }),
            ..SaveBatch::default()
        };
        store.inventories().save(&batch).await.unwrap();
        let rows = store.duels().of(&loser.character.id).await.unwrap();
        assert_eq!(rows, vec![batch.duel.clone().unwrap()]);
        assert_eq!(
            store.duels().of(&winner.character.id).await.unwrap().len(),
            1
        );
        assert_eq!(store.duels().count().await.unwrap(), 1);
        // The same result again (a retried write) is refused whole: neither record moves.
        let mut again = batch.clone();
        again.snapshots[0].inventory = vec![slot(0, "coins", 999)];
        let err = store.inventories().save(&again).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
        assert_eq!(
            store.inventories().get(&winner.character.id).await.unwrap(),
            batch.snapshots[0].inventory
        );
        assert_eq!(store.duels().count().await.unwrap(), 1);
    }
);
