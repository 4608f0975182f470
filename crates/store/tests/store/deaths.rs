//! Death locks and kill counts: a death and the character losing its items are one write; each item
//! leaves the lock in the same write that gives it to its picker; a refused take changes nothing.

use crate::{locked, new_character_with, slot};
use wayfarer_store::{
    test_both_backends, DeathLock, DeathTake, LockedItem, NpcKill, SaveBatch, Store, StoreError,
};

fn lock(id: &str, character: &str, items: Vec<LockedItem>) -> DeathLock {
    DeathLock {
        id: id.into(),
        character_id: character.into(),
        died_at_ms: 1_000,
        tile_x: 3,
        tile_z: -4,
        area_id: Some("town".into()),
        pvp: false,
        items,
    }
}

/// Every coin and sword in the database: inventories plus open locks.
async fn count(store: &Store, characters: &[&str], item: &str) -> i64 {
    let mut total = 0;
    for c in characters {
        total += store
            .inventories()
            .get(c)
            .await
            .unwrap()
            .iter()
            .filter(|s| s.item_id == item)
            .map(|s| s.quantity)
            .sum::<i64>();
    }
    for l in store.deaths().locked().await.unwrap() {
        total += l
            .items
            .iter()
            .filter(|i| i.item_id == item)
            .map(|i| i.quantity)
            .sum::<i64>();
    }
    total
}

test_both_backends!(
    a_death_moves_items_into_a_lock_and_pickups_take_them_out,
    |store| {
        let mut dead = new_character_with(
            &store,
            "Fallen",
            vec![slot(0, "coins", 40), slot(1, "sword", 1)],
        )
        .await;
        let mut picker = new_character_with(&store, "Finder", vec![]).await;
        let ids = [dead.character.id.as_str(), picker.character.id.as_str()];
        let (dead_id, picker_id) = (ids[0].to_owned(), ids[1].to_owned());
        assert_eq!(count(&store, &ids, "coins").await, 40);

        // Death: the lock and the emptied character in one write.
        dead.inventory.clear();
        store
            .inventories()
            .save(&SaveBatch {
                snapshots: vec![dead.clone()],
                new_deaths: vec![lock(
                    "d1",
                    &dead_id,
                    vec![locked("coins", 40), locked("sword", 1)],
                )],
                ..SaveBatch::default()
            })
            .await
            .unwrap();
        assert!(store.inventories().get(&dead_id).await.unwrap().is_empty());
        let locks = store.deaths().locked().await.unwrap();
        assert_eq!(locks.len(), 1);
        assert_eq!(locks[0].tile_x, 3);
        assert_eq!(locks[0].tile_z, -4);
        assert_eq!(count(&store, &ids, "coins").await, 40);
        assert_eq!(count(&store, &ids, "sword").await, 1);

        // A pickup: the picker's save and the take together.
        picker.inventory = vec![slot(0, "coins", 40)];
        store
            .inventories()
            .save(&SaveBatch {
                snapshots: vec![picker.clone()],
                death_takes: vec![DeathTake {
                    death_id: "d1".into(),
                    item_id: "coins".into(),
                    quantity: 40,
                }],
                ..SaveBatch::default()
            })
            .await
            .unwrap();
        assert_eq!(count(&store, &ids, "coins").await, 40);
        assert_eq!(
            store.deaths().status("d1").await.unwrap().as_deref(),
            Some("locked")
        );

        // Taking more than the lock holds is refused and nothing of the batch is written.
        let mut greedy = picker.clone();
        greedy.inventory.push(slot(1, "sword", 1));
        greedy.inventory.push(slot(2, "sword", 1));
        let err = store
            .inventories()
            .save(&SaveBatch {
                snapshots: vec![greedy],
                death_takes: vec![DeathTake {
                    death_id: "d1".into(),
                    item_id: "sword".into(),
                    quantity: 2,
                }],
                ..SaveBatch::default()
            })
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
        assert_eq!(count(&store, &ids, "sword").await, 1);
        assert_eq!(store.inventories().get(&picker_id).await.unwrap().len(), 1);

        // The last item vanishing from the ground releases the lock.
        store
            .inventories()
            .save(&SaveBatch {
                death_takes: vec![DeathTake {
                    death_id: "d1".into(),
                    item_id: "sword".into(),
                    quantity: 1,
                }],
                ..SaveBatch::default()
            })
            .await
            .unwrap();
        assert_eq!(
            store.deaths().status("d1").await.unwrap().as_deref(),
            Some("released")
        );
        assert!(store.deaths().locked().await.unwrap().is_empty());

        // A released lock gives nothing more.
        let err = store
            .inventories()
            .save(&SaveBatch {
                death_takes: vec![DeathTake {
                    death_id: "d1".into(),
                    item_id: "sword".into(),
                    quantity: 1,
                }],
                ..SaveBatch::default()
            })
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    }
);

test_both_backends!(a_death_id_is_written_once, |store| {
    let dead = new_character_with(&store, "Twice", vec![slot(0, "coins", 5)]).await;
    let id = dead.character.id.clone();
    let batch = SaveBatch {
        snapshots: vec![dead],
        new_deaths: vec![lock("d2", &id, vec![locked("coins", 5)])],
        ..SaveBatch::default()
    };
    store.inventories().save(&batch).await.unwrap();
    // Replaying the same death (a retried save) cannot lock the items twice.
    let err = store.inventories().save(&batch).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(store.deaths().locked().await.unwrap().len(), 1);
});

test_both_backends!(kills_are_counted_per_character_and_npc, |store| {
    let hunter = new_character_with(&store, "Hunter", vec![]).await;
    let id = hunter.character.id.clone();
    let kill = |npc: &str, at| NpcKill {
        character_id: id.clone(),
        npc_id: npc.into(),
        at_ms: at,
    };
    store
        .inventories()
        .save(&SaveBatch {
            kills: vec![kill("goblin", 1), kill("goblin", 2), kill("cow", 3)],
            ..SaveBatch::default()
        })
        .await
        .unwrap();
    store
        .inventories()
        .save(&SaveBatch {
            kills: vec![kill("goblin", 4)],
            ..SaveBatch::default()
        })
        .await
        .unwrap();
    assert_eq!(
        store.deaths().kills(&id).await.unwrap(),
        vec![("cow".to_string(), 1), ("goblin".to_string(), 3)]
    );
});

test_both_backends!(
    each_world_reads_and_takes_only_its_own_death_locks,
    |store| {
        // World 1 is the plain store (a single world); world 2 shares the database.
        let two = store.clone().with_lease_world(2);
        let mut ann = new_character_with(&store, "Annis", vec![slot(0, "coins", 7)]).await;
        let mut bob = new_character_with(&store, "Bobbin", vec![slot(0, "sword", 1)]).await;
        let ids = [ann.character.id.clone(), bob.character.id.clone()];
        let refs = [ids[0].as_str(), ids[1].as_str()];
        // World 2 saves only what it leases.
        two.leases()
            .acquire(&ids[1], 2, "bob-session", 60_000)
            .await
            .unwrap();

        ann.inventory.clear();
        store
            .inventories()
            .save(&SaveBatch {
                snapshots: vec![ann.clone()],
                new_deaths: vec![lock("w1-death", &ids[0], vec![locked("coins", 7)])],
                ..SaveBatch::default()
            })
            .await
            .unwrap();
        bob.inventory.clear();
        two.inventories()
            .save(&SaveBatch {
                snapshots: vec![bob.clone()],
                new_deaths: vec![lock("w2-death", &ids[1], vec![locked("sword", 1)])],
                ..SaveBatch::default()
            })
            .await
            .unwrap();
        let ids_of = |locks: Vec<DeathLock>| locks.into_iter().map(|l| l.id).collect::<Vec<_>>();
        assert_eq!(ids_of(store.deaths().locked().await.unwrap()), ["w1-death"]);
        assert_eq!(ids_of(two.deaths().locked().await.unwrap()), ["w2-death"]);

        // World 2 cannot take world 1's coins (its ground never showed them): nothing is written.
        let mut grabbing = bob.clone();
        grabbing.inventory = vec![slot(0, "coins", 7)];
        let err = two
            .inventories()
            .save(&SaveBatch {
                snapshots: vec![grabbing],
                death_takes: vec![DeathTake {
                    death_id: "w1-death".into(),
                    item_id: "coins".into(),
                    quantity: 7,
                }],
                ..SaveBatch::default()
            })
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
        assert!(two.inventories().get(&ids[1]).await.unwrap().is_empty());
        assert_eq!(
            store.deaths().status("w1-death").await.unwrap().as_deref(),
            Some("locked")
        );
        // Every coin and sword is in the database once: in its world's lock.
        for (item, units) in [("coins", 7), ("sword", 1)] {
            let held = count(&store, &refs, item).await + count(&two, &[], item).await;
            assert_eq!(held, units, "{item}");
        }
    }
);
