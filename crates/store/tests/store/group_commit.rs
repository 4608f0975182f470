//! Group commit: several batches in one transaction, each atomic on its own. A refused batch
//! leaves the others committed; a failed commit reports every batch of its group failed and moves
//! nothing; a group is only reported committed once its transaction committed.

use std::time::Duration;

use crate::{locked, new_character_with, slot};
use wayfarer_store::{
    test_both_backends, CharacterSnapshot, GroupOutcome, GroupPolicy, SaveBatch, Store, StoreError,
    TradeAudit,
};

/// No waiting between attempts: the tests count rounds, not time.
const POLICY: GroupPolicy = GroupPolicy {
    attempts: 3,
    retry_pause: Duration::ZERO,
};

/// A pair where A holds 100 coins and B a sword, and the batch of their trade: A gives 40 coins
/// for the sword.
async fn trade_pair(store: &Store, n: u32) -> ([CharacterSnapshot; 2], SaveBatch) {
    let a = new_character_with(store, &format!("Seller{n}"), vec![slot(0, "coins", 100)]).await;
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
            id: format!("trade-{n}"),
            player_a: a.character.id.clone(),
            player_b: b.character.id.clone(),
            items_a_to_b: vec![locked("coins", 40)],
            items_b_to_a: vec![locked("bronze_sword", 1)],
            completed_at_ms: 1_000,
        }),
        ..SaveBatch::default()
    };
    ([a, b], batch)
}

/// What the database holds for each character of `pair`.
async fn inventories(
    store: &Store,
    pair: &[CharacterSnapshot; 2],
) -> Vec<Vec<wayfarer_store::StoredSlot>> {
    let mut held = Vec::new();
    for c in pair {
        held.push(store.inventories().get(&c.character.id).await.unwrap());
    }
    held
}

fn before(pair: &[CharacterSnapshot; 2]) -> Vec<Vec<wayfarer_store::StoredSlot>> {
    pair.iter().map(|c| c.inventory.clone()).collect()
}

fn after(batch: &SaveBatch) -> Vec<Vec<wayfarer_store::StoredSlot>> {
    batch
        .snapshots
        .iter()
        .map(|s| s.inventory.clone())
        .collect()
}

/// Coins held by all characters, the conservation check.
async fn coins(store: &Store) -> i64 {
    store
        .inventories()
        .item_totals()
        .await
        .unwrap()
        .into_iter()
        .filter(|(item, ..)| item == "coins")
        .map(|(_, i, e, b)| i + e + b)
        .sum()
}

test_both_backends!(a_group_commits_every_batch_in_one_transaction, |store| {
    let mut pairs = Vec::new();
    let mut batches = Vec::new();
    for n in 0..5 {
        let (pair, batch) = trade_pair(&store, n).await;
        pairs.push(pair);
        batches.push(batch);
    }
    // A bank deposit in the same group: 60 of a fresh character's coins go to its bank.
    let banker = new_character_with(&store, "Banker", vec![slot(3, "coins", 100)]).await;
    let mut deposit = banker.clone();
    deposit.inventory = vec![slot(3, "coins", 40)];
    deposit.bank = vec![wayfarer_store::StoredBankItem {
        item_id: "coins".into(),
        quantity: 60,
    }];
    batches.push(SaveBatch {
        snapshots: vec![deposit],
        ..SaveBatch::default()
    });
    let coins_before = coins(&store).await;

    let outcomes = store.inventories().save_group(&batches, POLICY).await;
    assert_eq!(outcomes.len(), batches.len());
    assert!(
        outcomes.iter().all(GroupOutcome::is_committed),
        "{outcomes:?}"
    );
    for (pair, batch) in pairs.iter().zip(&batches) {
        assert_eq!(inventories(&store, pair).await, after(batch));
    }
    assert_eq!(
        store
            .inventories()
            .bank(&banker.character.id)
            .await
            .unwrap()[0]
            .quantity,
        60
    );
    assert_eq!(store.trades().count().await.unwrap(), 5);
    assert_eq!(coins(&store).await, coins_before, "coins are conserved");
});

test_both_backends!(
    a_refused_batch_leaves_the_others_of_its_group_committed,
    |store| {
        let (first_pair, first) = trade_pair(&store, 1).await;
        let (bad_pair, mut bad) = trade_pair(&store, 2).await;
        let (last_pair, last) = trade_pair(&store, 3).await;
        // The bad trade reuses the first's audit id: its row is refused (a unique key) after both of
        // its records were written, so those must be undone with it.
        bad.trade.as_mut().unwrap().id = first.trade.as_ref().unwrap().id.clone();
        // And a batch with a slot past the inventory's end (a CHECK constraint).
        let (slot_pair, mut bad_slot) = trade_pair(&store, 4).await;
        bad_slot.snapshots[1].inventory = vec![slot(28, "coins", 40)];
        let coins_before = coins(&store).await;

        let batches = [first.clone(), bad, bad_slot, last.clone()];
        let outcomes = store.inventories().save_group(&batches, POLICY).await;

        assert!(outcomes[0].is_committed(), "{outcomes:?}");
        assert!(
            matches!(&outcomes[1], GroupOutcome::Refused(StoreError::Conflict(_))),
            "{outcomes:?}"
        );
        assert!(
            matches!(&outcomes[2], GroupOutcome::Refused(err) if err.is_refusal()),
            "{outcomes:?}"
        );
        assert!(outcomes[3].is_committed(), "{outcomes:?}");
        assert_eq!(inventories(&store, &first_pair).await, after(&first));
        assert_eq!(inventories(&store, &last_pair).await, after(&last));
        assert_eq!(inventories(&store, &bad_pair).await, before(&bad_pair));
        assert_eq!(inventories(&store, &slot_pair).await, before(&slot_pair));
        assert_eq!(store.trades().count().await.unwrap(), 2);
        assert_eq!(coins(&store).await, coins_before, "coins are conserved");
    }
);

test_both_backends!(
    a_failed_commit_fails_its_whole_group_and_moves_nothing,
    |store| {
        let (pairs, batches): (Vec<_>, Vec<_>) = {
            let mut pairs = Vec::new();
            let mut batches = Vec::new();
            for n in 0..3 {
                let (pair, batch) = trade_pair(&store, n).await;
                pairs.push(pair);
                batches.push(batch);
            }
            (pairs, batches)
        };
        let coins_before = coins(&store).await;
        // Every attempt's commit fails.
        store.fail_next_group_commits(POLICY.attempts);
        let outcomes = store.inventories().save_group(&batches, POLICY).await;
        assert_eq!(outcomes.len(), 3);
        assert!(
            outcomes
                .iter()
                .all(|o| matches!(o, GroupOutcome::Failed(_))),
            "{outcomes:?}"
        );
        for pair in &pairs {
            assert_eq!(
                inventories(&store, pair).await,
                before(pair),
                "nothing moved"
            );
        }
        assert_eq!(store.trades().count().await.unwrap(), 0);
        assert_eq!(coins(&store).await, coins_before);

        // The hook is spent: the next group, the same trades, commits.
        let outcomes = store.inventories().save_group(&batches, POLICY).await;
        assert!(
            outcomes.iter().all(GroupOutcome::is_committed),
            "{outcomes:?}"
        );
        for (pair, batch) in pairs.iter().zip(&batches) {
            assert_eq!(inventories(&store, pair).await, after(batch));
        }
        assert_eq!(store.trades().count().await.unwrap(), 3);
        assert_eq!(coins(&store).await, coins_before);
    }
);

test_both_backends!(a_commit_that_fails_once_is_tried_again_whole, |store| {
    let (pair_a, a) = trade_pair(&store, 1).await;
    let (pair_b, b) = trade_pair(&store, 2).await;
    // The last allowed failure: attempts - 1 failed commits still end committed.
    store.fail_next_group_commits(POLICY.attempts - 1);
    let outcomes = store
        .inventories()
        .save_group(&[a.clone(), b.clone()], POLICY)
        .await;
    assert!(
        outcomes.iter().all(GroupOutcome::is_committed),
        "{outcomes:?}"
    );
    assert_eq!(inventories(&store, &pair_a).await, after(&a));
    assert_eq!(inventories(&store, &pair_b).await, after(&b));
    assert_eq!(store.trades().count().await.unwrap(), 2);
});
