//! Starting grants per address: at most `max_accounts` accounts of one address receive grants in
//! the window, counted in the creating transaction, so concurrent creations cannot beat it.

use wayfarer_store::{
    test_both_backends, AccountLimits, Creation, CreationGrant, GrantOrigin, NewCharacter, NewUser,
    Store, Withheld,
};

const LIMITS: AccountLimits = AccountLimits {
    max_characters: Some(3),
    max_grants: Some(3),
};
const DAY_MS: i64 = 24 * 60 * 60 * 1000;
const NOW: i64 = 1_000 * DAY_MS;

fn origin(address: &str, now_ms: i64) -> GrantOrigin {
    GrantOrigin {
        address: address.into(),
        max_accounts: Some(3),
        window_ms: DAY_MS,
        now_ms,
    }
}

fn grant() -> CreationGrant {
    CreationGrant {
        inventory: vec![crate::slot(0, "coins", 500)],
        coins: 500,
        reason: "starterKit",
    }
}

async fn account(store: &Store) -> String {
    store.users().create(&NewUser::default()).await.unwrap().id
}

/// Creates `name` for the account from `origin`; (granted, withheld, coins).
async fn create(
    store: &Store,
    account_id: &str,
    name: &str,
    origin: &GrantOrigin,
) -> (bool, Option<Withheld>, i64) {
    match store
        .characters()
        .create_from(
            &NewCharacter {
                account_id: account_id.into(),
                name: name.into(),
                position: None,
            },
            LIMITS,
            Some(origin),
            grant(),
            |_| {},
        )
        .await
        .unwrap()
    {
        Creation::Created {
            character,
            granted,
            withheld,
        } => (granted, withheld, character.coins),
        Creation::AccountFull => panic!("{name}: account full"),
    }
}

test_both_backends!(
    an_address_grants_three_accounts_a_day_and_their_later_characters,
    |store| {
        let here = origin("203.0.113.9", NOW);
        let mut accounts = Vec::new();
        for n in 0..3 {
            let id = account(&store).await;
            assert_eq!(
                create(&store, &id, &format!("First{n}"), &here).await,
                (true, None, 500)
            );
            accounts.push(id);
        }
        // A fourth account from the address: its character, but no grant.
        let fourth = account(&store).await;
        assert_eq!(
            create(&store, &fourth, "Fourth", &here).await,
            (false, Some(Withheld::Address), 0)
        );
        // An account the address already granted keeps its own three.
        assert_eq!(
            create(&store, &accounts[0], "Second0", &here).await,
            (true, None, 500)
        );
        // Another address has its own.
        let elsewhere = account(&store).await;
        assert_eq!(
            create(
                &store,
                &elsewhere,
                "Elsewhere",
                &origin("198.51.100.7", NOW)
            )
            .await,
            (true, None, 500)
        );
        // An exempt request (the rule off) is granted and recorded, but not counted.
        let exempt = GrantOrigin {
            max_accounts: None,
            ..origin("192.0.2.1", NOW)
        };
        for n in 0..4 {
            let id = account(&store).await;
            assert!(create(&store, &id, &format!("Bot{n}"), &exempt).await.0);
        }
        let id = account(&store).await;
        assert!(
            create(&store, &id, "Counted", &origin("192.0.2.1", NOW))
                .await
                .0
        );
        // A day later the address may grant again.
        let tomorrow = origin("203.0.113.9", NOW + DAY_MS + 1);
        assert_eq!(
            create(&store, &fourth, "Tomorrow", &tomorrow).await,
            (true, None, 500)
        );

        let top = store
            .address_grants()
            .top_since(NOW - DAY_MS, 10)
            .await
            .unwrap();
        let of = |address: &str| top.iter().find(|s| s.address == address).unwrap().counts;
        let busy = of("203.0.113.9");
        assert_eq!(
            (busy.accounts, busy.grants, busy.coins, busy.withheld),
            (4, 5, 2_500, 1)
        );
        assert_eq!(top[0].address, "203.0.113.9", "most grants first: {top:?}");
        let bots = of("192.0.2.1");
        assert_eq!((bots.grants, bots.exempt, bots.accounts), (5, 4, 5));
    }
);

test_both_backends!(
    concurrent_sign_ups_from_one_address_get_three_accounts_grants,
    |store| {
        let here = origin("2001:db8:1:2::", NOW);
        let mut accounts = Vec::new();
        for _ in 0..20 {
            accounts.push(account(&store).await);
        }
        // Every creation spawned at once: on PostgreSQL they run on separate connections.
        let mut tasks = tokio::task::JoinSet::new();
        for (n, id) in accounts.into_iter().enumerate() {
            let store = store.clone();
            let here = here.clone();
            tasks.spawn(async move { create(&store, &id, &format!("Racer{n}"), &here).await });
        }
        let outcomes = tasks.join_all().await;
        let granted = outcomes.iter().filter(|o| o.0).count();
        assert_eq!(granted, 3, "{outcomes:?}");
        assert!(outcomes
            .iter()
            .filter(|o| !o.0)
            .all(|o| *o == (false, Some(Withheld::Address), 0)));
    }
);
