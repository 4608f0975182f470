use wayfarer_store::{test_both_backends, NewUser, StoreError};

test_both_backends!(user_round_trips_with_roles_and_identity, |store| {
    let created = store
        .users()
        .create(&NewUser {
            name: "Ada".into(),
            identity_id: Some("did:privy:abc".into()),
            roles: vec!["admin".into()],
        })
        .await
        .unwrap();
    let loaded = store.users().get(&created.id).await.unwrap().unwrap();
    assert_eq!(loaded, created);
    assert!(loaded.has_role("admin"));
    let by_identity = store
        .users()
        .find_by_identity("did:privy:abc")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_identity.id, created.id);
    assert!(store.users().get("nope").await.unwrap().is_none());
});

test_both_backends!(identity_id_is_unique, |store| {
    let new = NewUser {
        name: "A".into(),
        identity_id: Some("same".into()),
        roles: vec![],
    };
    store.users().create(&new).await.unwrap();
    let err = store.users().create(&new).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
});

test_both_backends!(guests_have_no_identity_and_no_roles, |store| {
    let a = store.users().create(&NewUser::default()).await.unwrap();
    let b = store.users().create(&NewUser::default()).await.unwrap();
    assert_ne!(a.id, b.id);
    let a = store.users().get(&a.id).await.unwrap().unwrap();
    assert!(a.identity_id.is_none());
    assert!(a.roles.is_empty());
    assert_eq!(store.users().count().await.unwrap(), 2);
});

test_both_backends!(roles_and_active_character_update, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    store
        .users()
        .set_roles(&user.id, &["admin".into(), "moderator".into()])
        .await
        .unwrap();
    store
        .users()
        .set_active_character(&user.id, Some("c1"))
        .await
        .unwrap();
    store.users().touch_login(&user.id).await.unwrap();
    let user = store.users().get(&user.id).await.unwrap().unwrap();
    assert_eq!(user.roles, vec!["admin", "moderator"]);
    assert_eq!(user.active_character_id.as_deref(), Some("c1"));
    assert!(user.last_login_at_ms.is_some());
    assert!(matches!(
        store.users().set_roles("missing", &[]).await,
        Err(StoreError::NotFound(_))
    ));
});
