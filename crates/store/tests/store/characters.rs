use wayfarer_protocol::Skill;
use wayfarer_store::{
    test_both_backends, AccountLimits, Creation, CreationGrant, NewCharacter, NewUser, Store,
    StoreError,
};

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
    // Health from the Constitution level a new character has (10), not the old default of 100.
    assert_eq!(c.health, 10);
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

const LIMITS: AccountLimits = AccountLimits {
    max_characters: Some(3),
    max_grants: Some(3),
};

fn grant() -> CreationGrant {
    CreationGrant {
        inventory: vec![crate::slot(0, "coins", 500), crate::slot(1, "hammer", 1)],
        coins: 500,
        reason: "starterKit",
    }
}

/// Creates `name` on the account under [`LIMITS`], with its Smithing set to 20 by the shaping step.
async fn try_create(store: &Store, account_id: &str, name: &str) -> Result<Creation, StoreError> {
    store
        .characters()
        .create_for_account(
            &NewCharacter {
                account_id: account_id.into(),
                name: name.into(),
                position: None,
            },
            LIMITS,
            grant(),
            |c| c.skills.get_mut(&Skill::Smithing).unwrap().level = 20,
        )
        .await
}

async fn create_limited(store: &Store, account_id: &str, name: &str) -> Creation {
    try_create(store, account_id, name).await.unwrap()
}

/// Asserts that creating `name` on the account is refused as a taken name.
async fn assert_name_taken(store: &Store, account_id: &str, name: &str) {
    let err = try_create(store, account_id, name).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{name}: {err:?}");
}

test_both_backends!(
    an_account_gets_grants_for_three_characters_over_its_life,
    |store| {
        let account_id = account(&store).await;
        let mut made = Vec::new();
        for name in ["One", "Two", "Three"] {
            let Creation::Created {
                character, granted, ..
            } = create_limited(&store, &account_id, name).await
            else {
                panic!("{name} is within the limit");
            };
            assert!(granted, "{name}");
            assert_eq!(character.coins, 500);
            assert_eq!(
                store.inventories().get(&character.id).await.unwrap(),
                grant().inventory
            );
            made.push(character);
        }
        // The fourth at once: the account is full, and nothing is written.
        assert_eq!(
            create_limited(&store, &account_id, "Four").await,
            Creation::AccountFull
        );
        assert!(store
            .characters()
            .find_by_name("Four")
            .await
            .unwrap()
            .is_none());
        // Deleting one makes room but gives no grant back: the next one starts with the adjusted
        // record (its skills) and no items or coins, and so does every later one.
        for (round, name) in ["Four", "Five"].into_iter().enumerate() {
            store.characters().delete(&made[round].id).await.unwrap();
            let Creation::Created {
                character, granted, ..
            } = create_limited(&store, &account_id, name).await
            else {
                panic!("{name} has room");
            };
            assert!(!granted, "{name}");
            assert_eq!(character.coins, 0);
            assert_eq!(character.skills[&Skill::Smithing].level, 20);
            let stored = store
                .characters()
                .get(&character.id)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (stored.coins, stored.skills[&Skill::Smithing].level),
                (0, 20)
            );
            assert!(store
                .inventories()
                .get(&character.id)
                .await
                .unwrap()
                .is_empty());
        }
        // Another account has its own grants.
        let other = account(&store).await;
        assert!(matches!(
            create_limited(&store, &other, "Six").await,
            Creation::Created { granted: true, .. }
        ));
    }
);

test_both_backends!(
    a_created_character_is_the_accounts_active_one_in_the_same_commit,
    |store| {
        let active = |account_id: String| {
            let store = store.clone();
            async move {
                store
                    .users()
                    .get(&account_id)
                    .await
                    .unwrap()
                    .unwrap()
                    .active_character_id
            }
        };
        let account_id = account(&store).await;
        assert_eq!(active(account_id.clone()).await, None);
        let Creation::Created {
            character: first, ..
        } = create_limited(&store, &account_id, "First").await
        else {
            panic!("room");
        };
        assert_eq!(active(account_id.clone()).await, Some(first.id.clone()));
        let Creation::Created {
            character: second, ..
        } = create_limited(&store, &account_id, "Second").await
        else {
            panic!("room");
        };
        assert_eq!(active(account_id.clone()).await, Some(second.id.clone()));
        // A refused creation (the name is taken) changes nothing, the active character included.
        assert_name_taken(&store, &account_id, "FIRST").await;
        assert_eq!(active(account_id.clone()).await, Some(second.id));
    }
);

test_both_backends!(a_taken_name_writes_nothing_and_uses_no_grant, |store| {
    let account_id = account(&store).await;
    create_limited(&store, &account_id, "Taken").await;
    let other = account(&store).await;
    for _ in 0..3 {
        assert_name_taken(&store, &other, "TAKEN").await;
    }
    assert!(matches!(
        create_limited(&store, &other, "Fresh").await,
        Creation::Created { granted: true, .. }
    ));
});

test_both_backends!(
    thirty_concurrent_creations_on_one_account_make_exactly_three,
    |store| {
        let account_id = account(&store).await;
        let mut tasks = tokio::task::JoinSet::new();
        for n in 0..30 {
            let store = store.clone();
            let account_id = account_id.clone();
            tasks.spawn(
                async move { create_limited(&store, &account_id, &format!("Racer{n}")).await },
            );
        }
        let mut created = 0;
        let mut full = 0;
        while let Some(outcome) = tasks.join_next().await {
            match outcome.unwrap() {
                Creation::Created { granted, .. } => {
                    assert!(granted);
                    created += 1;
                }
                Creation::AccountFull => full += 1,
            }
        }
        assert_eq!((created, full), (3, 27));
        let mine = store
            .characters()
            .list_for_account(&account_id)
            .await
            .unwrap();
        assert_eq!(mine.len(), 3);
    }
);

test_both_backends!(deleting_a_character_returns_everything_it_held, |store| {
    let account_id = account(&store).await;
    let Creation::Created { character, .. } = create_limited(&store, &account_id, "Holder").await
    else {
        panic!("room");
    };
    let snapshot = wayfarer_store::CharacterSnapshot {
        character: character.clone(),
        inventory: vec![
            crate::slot(0, "coins", 120),
            crate::slot(3, "logs", 1),
            crate::slot(4, "logs", 1),
        ],
        equipment: vec![wayfarer_store::StoredEquipment {
            slot_type: "weapon".into(),
            item_id: "bronze_sword".into(),
            quantity: 1,
        }],
        bank: vec![
            wayfarer_store::StoredBankItem {
                item_id: "coins".into(),
                quantity: 1_000,
            },
            wayfarer_store::StoredBankItem {
                item_id: "logs".into(),
                quantity: 40,
            },
        ],
        quests: vec![],
        xp_reached_at: Default::default(),
    };
    store.inventories().save_batch(&[snapshot]).await.unwrap();
    let held = store.characters().delete(&character.id).await.unwrap();
    assert_eq!(
        held.into_iter().collect::<Vec<_>>(),
        vec![
            ("bronze_sword".to_owned(), 1),
            ("coins".to_owned(), 1_120),
            ("logs".to_owned(), 42),
        ]
    );
    assert!(store
        .inventories()
        .get(&character.id)
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .inventories()
        .bank(&character.id)
        .await
        .unwrap()
        .is_empty());
});

// Writes of every kind at once (accounts, characters in their transactions, logins stamped on
// their own): on SQLite they queue for the one writer connection, none waits out a busy timeout
// or is refused, and every row lands.
test_both_backends!(a_hundred_concurrent_writers_all_land, |store| {
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..100 {
        let store = store.clone();
        tasks.spawn(async move {
            let account_id = account(&store).await;
            let Creation::Created { character, .. } =
                create_limited(&store, &account_id, &format!("Writer{n}")).await
            else {
                panic!("a new account has room");
            };
            store.users().touch_login(&account_id).await.unwrap();
            (account_id, character.id)
        });
    }
    let mut made = Vec::new();
    while let Some(done) = tasks.join_next().await {
        made.push(done.unwrap());
    }
    assert_eq!(made.len(), 100);
    for (account_id, character_id) in made {
        let user = store.users().get(&account_id).await.unwrap().unwrap();
        assert_eq!(user.active_character_id, Some(character_id.clone()));
        assert!(user.last_login_at_ms.is_some());
        assert_eq!(
            store.inventories().get(&character_id).await.unwrap(),
            grant().inventory
        );
    }
});
