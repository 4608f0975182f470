use crate::slot;
use wayfarer_store::{
    test_both_backends, CharacterSnapshot, NewCharacter, NewUser, StoreError, StoredEquipment,
};

test_both_backends!(starter_items_are_written_with_the_character, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let character = store
        .characters()
        .create_with_items(
            &NewCharacter {
                account_id: user.id,
                name: "Kit".into(),
                position: None,
            },
            vec![slot(0, "bronze_hatchet", 1), slot(1, "coins", 25)],
        )
        .await
        .unwrap();
    let items = store.inventories().get(&character.id).await.unwrap();
    assert_eq!(
        items,
        vec![slot(0, "bronze_hatchet", 1), slot(1, "coins", 25)]
    );
});

test_both_backends!(a_bad_starter_kit_leaves_no_character_behind, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let err = store
        .characters()
        .create_with_items(
            &NewCharacter {
                account_id: user.id.clone(),
                name: "Broken".into(),
                position: None,
            },
            vec![slot(28, "coins", 1)],
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Database(_)), "{err:?}");
    assert!(store
        .characters()
        .list_for_account(&user.id)
        .await
        .unwrap()
        .is_empty());
});

test_both_backends!(save_batch_is_all_or_nothing, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let mut snapshots = Vec::new();
    for name in ["Ann", "Ben"] {
        let character = store
            .characters()
            .create(&NewCharacter {
                account_id: user.id.clone(),
                name: name.into(),
                position: None,
            })
            .await
            .unwrap();
        snapshots.push(CharacterSnapshot {
            character,
            inventory: vec![slot(3, "logs", 1)],
            equipment: vec![StoredEquipment {
                slot_type: "weapon".into(),
                item_id: "bronze_sword".into(),
                quantity: 1,
            }],
            bank: vec![],
            quests: vec![],
            xp_reached_at: Default::default(),
        });
    }
    snapshots[0].character.position = [1.5, 0.0, 2.5];
    store.inventories().save_batch(&snapshots).await.unwrap();
    let ann = &snapshots[0].character.id.clone();
    assert_eq!(
        store.inventories().get(ann).await.unwrap(),
        vec![slot(3, "logs", 1)]
    );
    assert_eq!(store.inventories().equipment(ann).await.unwrap().len(), 1);
    assert_eq!(
        store.characters().get(ann).await.unwrap().unwrap().position,
        [1.5, 0.0, 2.5]
    );

    // One invalid row (quantity 0 breaks the CHECK) rolls the whole batch back.
    snapshots[0].inventory = vec![slot(0, "ore", 5)];
    snapshots[1].inventory = vec![slot(0, "ore", 0)];
    assert!(store.inventories().save_batch(&snapshots).await.is_err());
    assert_eq!(
        store.inventories().get(ann).await.unwrap(),
        vec![slot(3, "logs", 1)]
    );

    // Slots are unique per character and slot.
    snapshots[1].inventory = vec![slot(0, "ore", 1), slot(0, "ore", 2)];
    assert!(store
        .inventories()
        .save_batch(&snapshots[1..])
        .await
        .is_err());
});

fn banked(item: &str, quantity: i64) -> wayfarer_store::StoredBankItem {
    wayfarer_store::StoredBankItem {
        item_id: item.into(),
        quantity,
    }
}

test_both_backends!(
    bank_rows_are_saved_with_the_inventory_in_bank_order,
    |store| {
        let user = store.users().create(&NewUser::default()).await.unwrap();
        let character = store
            .characters()
            .create_with_items(
                &NewCharacter {
                    account_id: user.id,
                    name: "Banker".into(),
                    position: None,
                },
                vec![slot(0, "coins", 100)],
            )
            .await
            .unwrap();
        assert!(store
            .inventories()
            .bank(&character.id)
            .await
            .unwrap()
            .is_empty());
        let mut snapshot = CharacterSnapshot {
            character: character.clone(),
            inventory: vec![slot(4, "logs", 1)],
            equipment: vec![],
            bank: vec![banked("zinc", 3), banked("coins", 100), banked("apple", 7)],
            quests: vec![],
            xp_reached_at: Default::default(),
        };
        store
            .inventories()
            .save_batch(&[snapshot.clone()])
            .await
            .unwrap();
        assert_eq!(
            store.inventories().bank(&character.id).await.unwrap(),
            snapshot.bank
        );
        assert_eq!(
            store.inventories().get(&character.id).await.unwrap(),
            vec![slot(4, "logs", 1)]
        );
        // A withdrawal: both sides change in the next save.
        snapshot.bank = vec![banked("zinc", 3), banked("apple", 7)];
        snapshot.inventory = vec![slot(0, "coins", 100), slot(4, "logs", 1)];
        store
            .inventories()
            .save_batch(&[snapshot.clone()])
            .await
            .unwrap();
        assert_eq!(
            store.inventories().bank(&character.id).await.unwrap(),
            snapshot.bank
        );
        // A bad bank row (quantity 0) fails the whole save: the inventory stays as it was.
        let mut bad = snapshot.clone();
        bad.inventory = vec![];
        bad.bank = vec![banked("zinc", 0)];
        assert!(store.inventories().save_batch(&[bad]).await.is_err());
        assert_eq!(
            store.inventories().get(&character.id).await.unwrap(),
            snapshot.inventory
        );
        assert_eq!(
            store.inventories().bank(&character.id).await.unwrap(),
            snapshot.bank
        );
        // The economy totals count every table.
        let totals = store.inventories().item_totals().await.unwrap();
        assert!(
            totals.contains(&("coins".to_string(), 100, 0, 0)),
            "{totals:?}"
        );
        assert!(
            totals.contains(&("zinc".to_string(), 0, 0, 3)),
            "{totals:?}"
        );
    }
);

test_both_backends!(banks_across_multi_row_inserts_keep_their_order, |store| {
    let mut snapshot =
        crate::new_character_with(&store, "Hoarder", vec![slot(0, "coins", 5)]).await;
    // One statement holds 128 rows: the last that fits, the first that needs another, and more.
    for size in [128usize, 129, 300] {
        snapshot.bank = (0..size)
            .map(|i| wayfarer_store::StoredBankItem {
                item_id: format!("item_{:03}", size - i),
                quantity: i as i64 + 1,
            })
            .collect();
        snapshot.inventory = (0..28).map(|s| slot(s, "logs", 1)).collect();
        store
            .inventories()
            .save_batch(std::slice::from_ref(&snapshot))
            .await
            .unwrap();
        assert_eq!(
            store
                .inventories()
                .bank(&snapshot.character.id)
                .await
                .unwrap(),
            snapshot.bank,
            "a bank of {size}"
        );
        assert_eq!(
            store
                .inventories()
                .get(&snapshot.character.id)
                .await
                .unwrap(),
            snapshot.inventory
        );
    }
});

/// A saved record with something in every part, differing by `n`.
fn record(character: &wayfarer_store::Character, n: i64) -> CharacterSnapshot {
    let mut character = character.clone();
    character.coins = n;
    CharacterSnapshot {
        character,
        inventory: vec![slot(0, "logs", n), slot(5, "coins", 10 * n)],
        equipment: vec![StoredEquipment {
            slot_type: "weapon".into(),
            item_id: "bronze_sword".into(),
            quantity: 1,
        }],
        bank: vec![wayfarer_store::StoredBankItem {
            item_id: "oak_logs".into(),
            quantity: 100 * n,
        }],
        quests: vec![wayfarer_store::StoredQuest {
            quest_id: "goblin_trouble".into(),
            status: "in_progress".into(),
            stage: Some("kill".into()),
            progress: n,
            completions: 0,
        }],
        xp_reached_at: Default::default(),
    }
}

test_both_backends!(a_character_snapshot_reads_every_part_as_saved, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let character = store
        .characters()
        .create(&NewCharacter {
            account_id: user.id,
            name: "Whole".into(),
            position: None,
        })
        .await
        .unwrap();
    let saved = record(&character, 3);
    store
        .inventories()
        .save_batch(std::slice::from_ref(&saved))
        .await
        .unwrap();
    let read = store
        .character_snapshot(&character.id)
        .await
        .unwrap()
        .expect("the character");
    // Every part as the separate reads give it.
    assert_eq!(
        read.character,
        store
            .characters()
            .get(&character.id)
            .await
            .unwrap()
            .unwrap()
    );
    assert_eq!(read.character.coins, 3);
    assert_eq!(read.inventory, saved.inventory);
    assert_eq!(read.equipment, saved.equipment);
    assert_eq!(read.bank, saved.bank);
    assert_eq!(read.quests, saved.quests);
    assert!(store
        .character_snapshot("no-such-character")
        .await
        .unwrap()
        .is_none());
});

test_both_backends!(a_character_snapshot_never_mixes_two_saves, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let character = store
        .characters()
        .create(&NewCharacter {
            account_id: user.id,
            name: "Flicker".into(),
            position: None,
        })
        .await
        .unwrap();
    let (one, two) = (record(&character, 1), record(&character, 2));
    store
        .inventories()
        .save_batch(std::slice::from_ref(&one))
        .await
        .unwrap();
    // One task saves the two records in turn while this one reads: every read is one of them
    // whole (the parts read one by one could pair one save's inventory with the other's bank).
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            for i in 0..150 {
                let next = if i % 2 == 0 { &two } else { &one };
                store
                    .inventories()
                    .save_batch(std::slice::from_ref(next))
                    .await
                    .unwrap();
            }
        })
    };
    let mut seen = std::collections::BTreeSet::new();
    while !writer.is_finished() {
        let read = store
            .character_snapshot(&character.id)
            .await
            .unwrap()
            .unwrap();
        let n = read.character.coins;
        assert!(n == 1 || n == 2, "coins {n}");
        let whole = record(&character, n);
        assert_eq!(
            (&read.inventory, &read.bank, &read.quests),
            (&whole.inventory, &whole.bank, &whole.quests),
            "one save's parts"
        );
        seen.insert(n);
    }
    writer.await.unwrap();
    assert!(!seen.is_empty());
});
