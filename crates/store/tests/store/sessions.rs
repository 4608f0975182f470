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

test_both_backends!(
    many_sessions_close_in_one_call_and_a_closed_one_keeps_its_logout,
    |store| {
        let account = store.users().create(&NewUser::default()).await.unwrap();
        let mut ids = Vec::new();
        for n in 0..3 {
            let character = store
                .characters()
                .create(&NewCharacter {
                    account_id: account.id.clone(),
                    name: format!("Many{n}"),
                    position: None,
                })
                .await
                .unwrap();
            let session = store
                .sessions()
                .open(&character.id, &account.id, None)
                .await
                .unwrap();
            ids.push((character.id, session));
        }
        store.sessions().close(&ids[0].1, "logout").await.unwrap();
        let closing: Vec<(String, &str)> =
            ids.iter().map(|(_, s)| (s.clone(), "shutdown")).collect();
        store.sessions().close_many(&closing).await.unwrap();
        store.sessions().close_many(&[]).await.unwrap();
        let mut reasons = Vec::new();
        for (character, _) in &ids {
            let found = store.sessions().for_character(character).await.unwrap();
            assert_eq!(found.len(), 1);
            assert!(found[0].logout_at_ms.is_some());
            reasons.push(found[0].close_reason.clone().unwrap());
        }
        assert_eq!(reasons, ["logout", "shutdown", "shutdown"]);
        // Nothing was left open for a crash to close.
        assert_eq!(store.sessions().close_dangling().await.unwrap(), 0);
    }
);

test_both_backends!(
    a_burst_of_logins_is_written_together_each_with_its_own_open_session,
    |store| {
        const LOGINS: usize = 40;
        let mut logins = Vec::new();
        for n in 0..LOGINS {
            let account = store.users().create(&NewUser::default()).await.unwrap();
            let character = store
                .characters()
                .create(&NewCharacter {
                    account_id: account.id.clone(),
                    name: format!("Burst{n}"),
                    position: None,
                })
                .await
                .unwrap();
            logins.push((character.id, account.id));
        }
        let opening: Vec<_> = logins
            .iter()
            .map(|(character, account)| {
                let (store, character, account) =
                    (store.clone(), character.clone(), account.clone());
                tokio::spawn(async move {
                    store
                        .sessions()
                        .open(&character, &account, Some("10.0.0.1"))
                        .await
                })
            })
            .collect();
        let mut sessions = Vec::new();
        for task in opening {
            sessions.push(task.await.unwrap().unwrap());
        }
        assert!(
            store.session_batches() < LOGINS as u64,
            "{} transactions for {LOGINS} logins",
            store.session_batches()
        );
        for ((character, account), session) in logins.iter().zip(&sessions) {
            let found = store.sessions().for_character(character).await.unwrap();
            assert_eq!(found.len(), 1, "exactly one session row each");
            assert_eq!(&found[0].id, session);
            assert_eq!(&found[0].account_id, account);
            assert_eq!(found[0].logout_at_ms, None);
            let user = store.users().get(account).await.unwrap().unwrap();
            assert_eq!(user.last_login_at_ms, Some(found[0].login_at_ms));
        }
        // A crash now leaves them open; the next start closes every one of them.
        assert_eq!(
            store.sessions().close_dangling().await.unwrap(),
            LOGINS as u64
        );
    }
);

test_both_backends!(a_login_the_database_refuses_fails_alone, |store| {
    let account = store.users().create(&NewUser::default()).await.unwrap();
    let character = store
        .characters()
        .create(&NewCharacter {
            account_id: account.id.clone(),
            name: "Kept".into(),
            position: None,
        })
        .await
        .unwrap();
    // Queued together: the login of a character that does not exist, between two good ones.
    let opening: Vec<_> = [character.id.as_str(), "no-such-character", &character.id]
        .into_iter()
        .map(|id| {
            let (store, id, account) = (store.clone(), id.to_owned(), account.id.clone());
            tokio::spawn(async move { store.sessions().open(&id, &account, None).await })
        })
        .collect();
    let mut results = Vec::new();
    for task in opening {
        results.push(task.await.unwrap());
    }
    assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
    assert!(results[1].is_err(), "{results:?}");
    let found = store.sessions().for_character(&character.id).await.unwrap();
    assert_eq!(found.len(), 2);
});
