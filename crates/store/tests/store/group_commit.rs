//! Group commit: several batches in one transaction, each atomic on its own. A refused batch
//! leaves the others committed; a failed commit reports every batch of its group failed and moves
//! nothing; a group is only reported committed once its transaction committed.

use std::time::Duration;

use crate::{new_character_with, slot, trade_swap};
use wayfarer_store::{
    test_both_backends, CharacterSnapshot, GroupOutcome, GroupPolicy, SaveBatch, Store, StoreError,
};

/// No waiting between attempts: the tests count rounds, not time.
const POLICY: GroupPolicy = GroupPolicy {
    attempts: 3,
    retry_pause: Duration::ZERO,
};

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
        let (pair, batch) = trade_swap(&store, n).await;
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
        let (first_pair, first) = trade_swap(&store, 1).await;
        let (bad_pair, mut bad) = trade_swap(&store, 2).await;
        let (last_pair, last) = trade_swap(&store, 3).await;
        // The bad trade reuses the first's audit id: its row is refused (a unique key) after both of
        // its records were written, so those must be undone with it.
        bad.trade.as_mut().unwrap().id = first.trade.as_ref().unwrap().id.clone();
        // And a batch with a slot past the inventory's end (a CHECK constraint).
        let (slot_pair, mut bad_slot) = trade_swap(&store, 4).await;
        bad_slot.snapshots[1].inventory = vec![slot(28, "coins", 40)];
        let coins_before = coins(&store).await;

        let batches = [first.clone(), bad, bad_slot, last.clone()];
        let outcomes = store.inventories().save_group(&batches, POLICY).await;
        // Written together first, refused, then batch by batch: two rounds told the bad apart.
        assert!(store.group_rounds_one_by_one() >= 1);

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
                let (pair, batch) = trade_swap(&store, n).await;
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
    let (pair_a, a) = trade_swap(&store, 1).await;
    let (pair_b, b) = trade_swap(&store, 2).await;
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

test_both_backends!(
    a_character_in_several_batches_of_a_group_ends_as_the_last_left_it,
    |store| {
        use wayfarer_protocol::Skill;
        let banker = new_character_with(&store, "Banker", vec![slot(0, "coins", 100)]).await;
        // A deposit, then a purchase with the rest: two batches of one character in one group,
        // both dating the same skill's XP (one row per character and skill in the end).
        let mut deposit = banker.clone();
        deposit.inventory = vec![slot(0, "coins", 40)];
        deposit.bank = vec![wayfarer_store::StoredBankItem {
            item_id: "coins".into(),
            quantity: 60,
        }];
        deposit
            .character
            .skills
            .get_mut(&Skill::Fishing)
            .unwrap()
            .xp = 10;
        deposit.xp_reached_at.insert(Skill::Fishing, 1_000);
        let mut purchase = deposit.clone();
        purchase.inventory = vec![slot(0, "coins", 39), slot(1, "bronze_arrow", 1)];
        purchase
            .character
            .skills
            .get_mut(&Skill::Fishing)
            .unwrap()
            .xp = 20;
        purchase.xp_reached_at.insert(Skill::Fishing, 2_000);
        let (pair, trade) = trade_swap(&store, 1).await;
        let batches = [
            SaveBatch {
                snapshots: vec![deposit],
                ..SaveBatch::default()
            },
            trade.clone(),
            SaveBatch {
                snapshots: vec![purchase.clone()],
                ..SaveBatch::default()
            },
        ];

        let outcomes = store.inventories().save_group(&batches, POLICY).await;
        assert!(
            outcomes.iter().all(GroupOutcome::is_committed),
            "{outcomes:?}"
        );
        assert_eq!(
            store.group_rounds_one_by_one(),
            0,
            "written together, in one round"
        );
        let id = &banker.character.id;
        assert_eq!(
            store.inventories().get(id).await.unwrap(),
            purchase.inventory
        );
        assert_eq!(store.inventories().bank(id).await.unwrap(), purchase.bank);
        let stored = store.characters().get(id).await.unwrap().unwrap();
        assert_eq!(stored.skills[&Skill::Fishing].xp, 20);
        assert_eq!(inventories(&store, &pair).await, after(&trade));
    }
);

test_both_backends!(
    a_group_with_more_rows_than_a_statement_holds_is_written_whole,
    |store| {
        // 128 records are the most one statement writes; 130 characters with two slots and a
        // banked item each are several statements a table.
        let mut batches = Vec::new();
        for n in 0..130 {
            let c =
                new_character_with(&store, &format!("Saver{n}"), vec![slot(0, "coins", 10)]).await;
            let mut saved = c.clone();
            saved.inventory = vec![slot(0, "coins", 5), slot(27, "logs", n + 1)];
            saved.bank = vec![wayfarer_store::StoredBankItem {
                item_id: "coins".into(),
                quantity: 5,
            }];
            saved.character.position = [n as f64, 10.0, 0.5];
            batches.push(SaveBatch {
                snapshots: vec![saved],
                ..SaveBatch::default()
            });
        }
        let coins_before = coins(&store).await;

        let outcomes = store.inventories().save_group(&batches, POLICY).await;
        assert!(
            outcomes.iter().all(GroupOutcome::is_committed),
            "{outcomes:?}"
        );
        assert_eq!(store.group_rounds_one_by_one(), 0);
        for batch in &batches {
            let saved = &batch.snapshots[0];
            let id = &saved.character.id;
            assert_eq!(store.inventories().get(id).await.unwrap(), saved.inventory);
            assert_eq!(store.inventories().bank(id).await.unwrap(), saved.bank);
            let stored = store.characters().get(id).await.unwrap().unwrap();
            assert_eq!(stored.position, saved.character.position);
        }
        assert_eq!(coins(&store).await, coins_before, "coins are conserved");
    }
);
