use wayfarer_store::{test_both_backends, NewCharacter, NewUser};

test_both_backends!(sessions_open_close_and_recover_after_a_crash, |store| {
    let account = store.users().create(&NewUser::default()).await.unwrap();
    let character = store
        .characters()
        .create(&NewCharacter {
            account_id: account.id.clone(),
            name: "Sess".into(),
            position: None,
        })
        .await
        .unwrap();
    let first = store
        .sessions()
        .open(&character.id, &account.id, Some("127.0.0.1"))
        .await
        .unwrap();
    store.sessions().close(&first, "logout").await.unwrap();
    // Closing twice keeps the first logout.
    store.sessions().close(&first, "shutdown").await.unwrap();
    let second = store
        .sessions()
        .open(&character.id, &account.id, None)
        .await
        .unwrap();
    // The process dies here; the next start closes what was left open.
    assert_eq!(store.sessions().close_dangling().await.unwrap(), 1);
    assert_eq!(store.sessions().close_dangling().await.unwrap(), 0);
    let sessions = store.sessions().for_character(&character.id).await.unwrap();
    assert_eq!(sessions.len(), 2);
    let by_id = |id: &str| sessions.iter().find(|s| s.id == id).unwrap();
    assert_eq!(by_id(&first).close_reason.as_deref(), Some("logout"));
    assert_eq!(by_id(&first).address.as_deref(), Some("127.0.0.1"));
    assert_eq!(
        by_id(&second).close_reason.as_deref(),
        Some("crash_recovered")
    );
    assert!(by_id(&second).logout_at_ms.is_some());
});
