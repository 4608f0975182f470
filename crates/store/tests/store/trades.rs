//! Trades: both participants' post-swap records and the audit row are one write; a refused write
//! changes neither record.

use crate::{locked, new_character_with, slot};
use wayfarer_store::{
    test_both_backends, CharacterSnapshot, SaveBatch, Store, StoreError, TradeAudit,
};

/// A gives 40 coins, B gives a sword.
async fn swap(store: &Store, n: u32) -> (CharacterSnapshot, CharacterSnapshot, SaveBatch) {
    let a = new_character_with(store, &format!("Trader{n}"), vec![slot(0, "coins", 100)]).await;
    let b = new_character_with(
        store,
        &format!("Buyer{n}"),
        vec![slot(0, "bronze_sword", 1)],
    )
    .await;
    let mut a_after = a.clone();
    a_after.inventory = vec![slot(0, "coins", 60), slot(1, "bronze_sword", 1)];
    let mut b_after = b.clone();
    b_after.inventory = vec![slot(1, "coins", 40)];
    let batch = SaveBatch {
        snapshots: vec![a_after, b_after],
        trade: Some(TradeAudit {
            id: "t-1".into(),
            player_a: a.character.id.clone(),
            player_b: b.character.id.clone(),
            items_a_to_b: vec![locked("coins", 40)],
            items_b_to_a: vec![locked("bronze_sword", 1)],
            completed_at_ms: 1_000,
        }),
        ..SaveBatch::default()
    };
    (a, b, batch)
}

test_both_backends!(a_trade_writes_both_records_and_its_audit_row, |store| {
    let (a, b, batch) = swap(&store, 1).await;
    store.inventories().save(&batch).await.unwrap();
    let a_items = store.inventories().get(&a.character.id).await.unwrap();
    let b_items = store.inventories().get(&b.character.id).await.unwrap();
    assert_eq!(a_items, batch.snapshots[0].inventory);
    assert_eq!(b_items, batch.snapshots[1].inventory);
    let rows = store.trades().of(&b.character.id).await.unwrap();
    assert_eq!(rows, vec![batch.trade.clone().unwrap()]);
    assert_eq!(store.trades().of(&a.character.id).await.unwrap().len(), 1);
    assert_eq!(store.trades().count().await.unwrap(), 1);
});

test_both_backends!(a_refused_trade_write_changes_nothing, |store| {
    let (a, b, batch) = swap(&store, 1).await;
    store.inventories().save(&batch).await.unwrap();
    // The same trade again (a retried write) is refused whole: neither record moves.
    let mut again = batch.clone();
    again.snapshots[0].inventory = vec![slot(0, "coins", 999)];
    again.snapshots[1].inventory = vec![];
    let err = store.inventories().save(&again).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(
        store.inventories().get(&a.character.id).await.unwrap(),
        batch.snapshots[0].inventory
    );
    assert_eq!(
        store.inventories().get(&b.character.id).await.unwrap(),
        batch.snapshots[1].inventory
    );
    assert_eq!(store.trades().count().await.unwrap(), 1);
    // A fresh pair whose trade fails on its second record keeps its first record too.
    let (c, _d, mut bad) = swap(&store, 2).await;
    bad.trade.as_mut().unwrap().id = "t-2".into();
    bad.snapshots[1].inventory = vec![slot(3, "coins", 1), slot(3, "coins", 2)];
    assert!(store.inventories().save(&bad).await.is_err());
    assert_eq!(
        store.inventories().get(&c.character.id).await.unwrap(),
        vec![slot(0, "coins", 100)]
    );
    assert_eq!(store.trades().count().await.unwrap(), 1);
});
