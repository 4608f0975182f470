use wayfarer_store::{test_both_backends, SaveBatch, StoredQuest};

use crate::{new_character_with, slot};

fn quest(
    id: &str,
    status: &str,
    stage: Option<&str>,
    progress: i64,
    completions: i64,
) -> StoredQuest {
    StoredQuest {
        quest_id: id.into(),
        status: status.into(),
        stage: stage.map(Into::into),
        progress,
        completions,
    }
}

test_both_backends!(
    quest_progress_is_saved_with_the_items_in_one_transaction,
    |store| {
        let mut snapshot = new_character_with(&store, "Quester", vec![slot(0, "coins", 5)]).await;
        let id = snapshot.character.id.clone();
        assert!(store.quests().list(&id).await.unwrap().is_empty());
        snapshot.quests = vec![
            quest("rat_trouble", "in_progress", Some("rats"), 1, 0),
            quest("first_catch", "completed", None, 0, 1),
        ];
        snapshot.character.prayer_points = Some(3);
        store
            .inventories()
            .save_batch(&[snapshot.clone()])
            .await
            .unwrap();
        assert_eq!(
            store.quests().list(&id).await.unwrap(),
            vec![
                quest("first_catch", "completed", None, 0, 1),
                quest("rat_trouble", "in_progress", Some("rats"), 1, 0),
            ]
        );
        assert_eq!(
            store
                .characters()
                .get(&id)
                .await
                .unwrap()
                .unwrap()
                .prayer_points,
            Some(3)
        );
        // A completion with its reward: both or neither. A batch that fails (a death take from a
        // lock that does not exist) writes neither the reward nor the status.
        let mut rewarded = snapshot.clone();
        rewarded.inventory.push(slot(1, "trophy", 1));
        rewarded.quests[0] = quest("rat_trouble", "completed", None, 0, 1);
        let failing = SaveBatch {
            snapshots: vec![rewarded.clone()],
            death_takes: vec![wayfarer_store::DeathTake {
                death_id: "no-such-death".into(),
                item_id: "coins".into(),
                quantity: 1,
            }],
            ..SaveBatch::default()
        };
        assert!(store.inventories().save(&failing).await.is_err());
        assert_eq!(
            store.quests().list(&id).await.unwrap()[1],
            quest("rat_trouble", "in_progress", Some("rats"), 1, 0)
        );
        assert_eq!(store.inventories().get(&id).await.unwrap().len(), 1);
        store
            .inventories()
            .save_batch(&[rewarded.clone()])
            .await
            .unwrap();
        assert_eq!(
            store.quests().list(&id).await.unwrap()[1],
            quest("rat_trouble", "completed", None, 0, 1)
        );
        assert_eq!(store.inventories().get(&id).await.unwrap().len(), 2);
    }
);
