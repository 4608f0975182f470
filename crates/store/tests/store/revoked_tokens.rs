use wayfarer_store::{now_ms, test_both_backends, NewUser};

test_both_backends!(revoked_tokens_are_kept_until_they_expire, |store| {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let now = now_ms();
    let tokens = store.revoked_tokens();
    let first = tokens
        .revoke("jti-1", &user.id, now + 60_000)
        .await
        .unwrap();
    tokens.revoke("jti-2", &user.id, now + 1_000).await.unwrap();
    // Revoking again keeps the first row.
    tokens
        .revoke("jti-1", &user.id, now + 99_000)
        .await
        .unwrap();
    let live = tokens.unexpired(now).await.unwrap();
    assert_eq!(
        live.iter().map(|t| t.token_id.as_str()).collect::<Vec<_>>(),
        ["jti-1", "jti-2"]
    );
    assert_eq!(live[0], first);
    assert_eq!(
        tokens
            .revoked_since(first.revoked_at_ms)
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(tokens.revoked_since(now_ms() + 1).await.unwrap().is_empty());
    // The boundary: a token expiring at `now + 1000` is gone at that instant, not before.
    assert_eq!(tokens.purge_expired(now + 999).await.unwrap(), 0);
    assert_eq!(tokens.purge_expired(now + 1_000).await.unwrap(), 1);
    assert_eq!(
        tokens
            .unexpired(now)
            .await
            .unwrap()
            .iter()
            .map(|t| t.token_id.as_str())
            .collect::<Vec<_>>(),
        ["jti-1"]
    );
});

test_both_backends!(
    an_account_logs_out_everywhere_once_and_forwards_only,
    |store| {
        let user = store.users().create(&NewUser::default()).await.unwrap();
        assert_eq!(user.tokens_valid_after_ms, None);
        let users = store.users();
        assert_eq!(
            users.revoke_tokens_before(&user.id, 5_000).await.unwrap(),
            5_000
        );
        assert_eq!(
            users
                .get(&user.id)
                .await
                .unwrap()
                .unwrap()
                .tokens_valid_after_ms,
            Some(5_000)
        );
        // An older time does not bring tokens back.
        assert_eq!(
            users.revoke_tokens_before(&user.id, 4_000).await.unwrap(),
            5_000
        );
        assert_eq!(
            users.revoke_tokens_before(&user.id, 7_000).await.unwrap(),
            7_000
        );
        assert_eq!(
            users.tokens_revoked_since(7_000).await.unwrap(),
            vec![(user.id.clone(), 7_000)]
        );
        assert!(users.tokens_revoked_since(7_001).await.unwrap().is_empty());
        assert!(matches!(
            users.revoke_tokens_before("nobody", 1).await,
            Err(wayfarer_store::StoreError::NotFound(_))
        ));
    }
);
