use wayfarer_store::{now_ms, test_both_backends, NewUser};

test_both_backends!(bans_apply_until_they_expire_or_are_lifted, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let now = now_ms();
    assert!(store.bans().active(&user.id, now).await.unwrap().is_none());

    let temporary = store
        .bans()
        .create(&user.id, "spam", Some("admin-1"), Some(now + 60_000))
        .await
        .unwrap();
    let active = store.bans().active(&user.id, now).await.unwrap().unwrap();
    assert_eq!(active, temporary);
    // At and after the end, it no longer applies.
    assert!(store
        .bans()
        .active(&user.id, now + 60_000)
        .await
        .unwrap()
        .is_none());

    // A permanent ban outranks the temporary one.
    let permanent = store
        .bans()
        .create(&user.id, "cheating", None, None)
        .await
        .unwrap();
    let active = store.bans().active(&user.id, now).await.unwrap().unwrap();
    assert_eq!(active.id, permanent.id);
    assert!(active.expires_at_ms.is_none());

    assert_eq!(store.bans().lift(&user.id).await.unwrap(), 2);
    assert!(store.bans().active(&user.id, now).await.unwrap().is_none());
    assert_eq!(store.bans().lift(&user.id).await.unwrap(), 0);
});
