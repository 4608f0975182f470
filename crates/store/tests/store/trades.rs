//! Trades: both participants' post-swap records and the audit row are one write; a refused write
//! changes neither record.

use crate::{slot, trade_swap};
use wayfarer_store::{test_both_backends, StoreError};

test_both_backends!(a_trade_writes_both_records_and_its_audit_row, |store| {
    let ([a, b], batch) = trade_swap(&store, 1).await;
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
    let ([a, b], batch) = trade_swap(&store, 1).await;
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
    let ([c, _d], mut bad) = trade_swap(&store, 2).await;
    bad.snapshots[1].inventory = vec![slot(3, "coins", 1), slot(3, "coins", 2)];
    assert!(store.inventories().save(&bad).await.is_err());
    assert_eq!(
        store.inventories().get(&c.character.id).await.unwrap(),
        vec![slot(0, "coins", 100)]
    );
    assert_eq!(store.trades().count().await.unwrap(), 1);
});
