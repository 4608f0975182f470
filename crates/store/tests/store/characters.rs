use wayfarer_protocol::Skill;
use wayfarer_store::{test_both_backends, NewCharacter, NewUser, Store, StoreError};

async fn account(store: &Store) -> String {
    store.users().create(&NewUser::default()).await.unwrap().id
}

test_both_backends!(new_character_has_the_record_defaults, |store| {
    let account_id = account(&store).await;
    let c = store
        .characters()
        .create(&NewCharacter {
            account_id: account_id.clone(),
            name: "Bob".into(),
            position: None,
        })
        .await
        .unwrap();
    assert_eq!(c.account_id, account_id);
    assert_eq!(c.combat_level, 3);
    assert_eq!(c.health, 100);
    assert_eq!(c.coins, 0);
    assert_eq!(c.position, [0.0, 10.0, 0.0]);
    for skill in Skill::ALL {
        let s = c.skills[&skill];
        if skill == Skill::Constitution {
            assert_eq!((s.level, s.xp), (10, 1154));
        } else {
            assert_eq!((s.level, s.xp), (1, 0), "{skill}");
        }
    }
});

test_both_backends!(names_are_unique_ignoring_case, |store| {
    let account_id = account(&store).await;
    let new = |name: &str| NewCharacter {
        account_id: account_id.clone(),
        name: name.into(),
        position: Some([5.5, 0.0, 7.5]),
    };
    let first = store.characters().create(&new("Zed")).await.unwrap();
    let err = store.characters().create(&new("zED")).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let found = store
        .characters()
        .find_by_name("ZED")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.id, first.id);
    assert_eq!(found.position, [5.5, 0.0, 7.5]);
});

test_both_backends!(save_writes_every_mutable_field, |store| {
    let account_id = account(&store).await;
    let mut c = store
        .characters()
        .create(&NewCharacter {
            account_id,
            name: "Saver".into(),
            position: None,
        })
        .await
        .unwrap();
    c.position = [12.5, 1.25, -3.5];
    c.health = 42;
    c.max_health = 120;
    c.coins = 9_000_000_000;
    c.combat_level = 17;
    c.combat_style = "aggressive".into();
    for (i, skill) in Skill::ALL.into_iter().enumerate() {
        let s = c.skills.get_mut(&skill).unwrap();
        s.level = 2 + i as i64;
        s.xp = 200_000_000 - i as i64;
    }
    store.characters().save(&c).await.unwrap();
    let loaded = store.characters().get(&c.id).await.unwrap().unwrap();
    assert_eq!(loaded, c);
});

test_both_backends!(list_rename_and_delete, |store| {
    let account_id = account(&store).await;
    let other = account(&store).await;
    for name in ["One", "Two"] {
        store
            .characters()
            .create(&NewCharacter {
                account_id: account_id.clone(),
                name: name.into(),
                position: None,
            })
            .await
            .unwrap();
    }
    store
        .characters()
        .create(&NewCharacter {
            account_id: other,
            name: "Three".into(),
            position: None,
        })
        .await
        .unwrap();
    let mine = store
        .characters()
        .list_for_account(&account_id)
        .await
        .unwrap();
    assert_eq!(
        mine.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        vec!["One", "Two"]
    );
    store.characters().rename(&mine[0].id, "Uno").await.unwrap();
    assert!(matches!(
        store.characters().rename(&mine[1].id, "three").await,
        Err(StoreError::Conflict(_))
    ));
    store.characters().delete(&mine[1].id).await.unwrap();
    let mine = store
        .characters()
        .list_for_account(&account_id)
        .await
        .unwrap();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].name, "Uno");
    assert!(matches!(
        store.characters().delete("missing").await,
        Err(StoreError::NotFound(_))
    ));
});
