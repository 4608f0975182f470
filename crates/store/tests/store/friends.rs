//! Friends and ignore lists: requests, counter-requests as acceptance, both directions written
//! together, removal, and the 99 limits at their boundary.

use crate::new_character;
use wayfarer_store::{test_both_backends, RequestOutcome, StoreError, MAX_FRIENDS, MAX_IGNORED};

fn names(contacts: Vec<wayfarer_store::Contact>) -> Vec<String> {
    contacts.into_iter().map(|c| c.name).collect()
}

test_both_backends!(requests_become_friendships_in_both_directions, |store| {
    let ada = new_character(&store, "Ada").await;
    let bob = new_character(&store, "Bob").await;
    let cat = new_character(&store, "Cat").await;
    let f = store.friends();
    assert_eq!(f.request(&ada, &bob).await.unwrap(), RequestOutcome::Sent);
    assert_eq!(
        f.request(&ada, &bob).await.unwrap(),
        RequestOutcome::AlreadySent
    );
    assert_eq!(names(f.incoming(&bob).await.unwrap()), vec!["Ada"]);
    assert_eq!(names(f.outgoing(&ada).await.unwrap()), vec!["Bob"]);
    f.respond(&bob, &ada, true).await.unwrap();
    assert_eq!(names(f.list(&ada).await.unwrap()), vec!["Bob"]);
    assert_eq!(names(f.list(&bob).await.unwrap()), vec!["Ada"]);
    assert!(f.incoming(&bob).await.unwrap().is_empty());
    assert_eq!(
        f.request(&bob, &ada).await.unwrap(),
        RequestOutcome::AlreadyFriends
    );
    // Answering a request that does not exist.
    assert!(matches!(
        f.respond(&bob, &ada, true).await.unwrap_err(),
        StoreError::NotFound(_)
    ));

    // A counter-request is an acceptance.
    assert_eq!(f.request(&cat, &ada).await.unwrap(), RequestOutcome::Sent);
    assert_eq!(
        f.request(&ada, &cat).await.unwrap(),
        RequestOutcome::Befriended
    );
    assert_eq!(names(f.list(&ada).await.unwrap()), vec!["Bob", "Cat"]);
    assert_eq!(names(f.list(&cat).await.unwrap()), vec!["Ada"]);

    // Declining forgets; removing ends both directions.
    assert_eq!(f.request(&bob, &cat).await.unwrap(), RequestOutcome::Sent);
    f.respond(&cat, &bob, false).await.unwrap();
    assert!(f.incoming(&cat).await.unwrap().is_empty());
    assert!(f.list(&cat).await.unwrap().iter().all(|c| c.name != "Bob"));
    assert!(f.remove(&bob, &ada).await.unwrap());
    assert_eq!(names(f.list(&ada).await.unwrap()), vec!["Cat"]);
    assert!(f.list(&bob).await.unwrap().is_empty());
    assert!(!f.remove(&bob, &ada).await.unwrap());
});

test_both_backends!(
    ninety_nine_friends_and_ninety_nine_ignored_at_most,
    |store| {
        let me = new_character(&store, "Popular").await;
        let mut others = Vec::new();
        for n in 0..=MAX_FRIENDS {
            others.push(new_character(&store, &format!("Fan{n}")).await);
        }
        let f = store.friends();
        for other in &others[..MAX_FRIENDS] {
            f.request(other, &me).await.unwrap();
            f.respond(&me, other, true).await.unwrap();
        }
        assert_eq!(f.list(&me).await.unwrap().len(), MAX_FRIENDS);
        // The hundredth: refused whichever way it comes.
        let last = &others[MAX_FRIENDS];
        assert!(matches!(
            f.request(&me, last).await.unwrap_err(),
            StoreError::Conflict(_)
        ));
        f.request(last, &me).await.unwrap();
        assert!(matches!(
            f.respond(&me, last, true).await.unwrap_err(),
            StoreError::Conflict(_)
        ));
        assert_eq!(f.list(&me).await.unwrap().len(), MAX_FRIENDS);
        assert!(f.list(last).await.unwrap().is_empty());

        let ig = store.ignores();
        for other in &others[..MAX_IGNORED] {
            ig.add(&me, other).await.unwrap();
        }
        // Adding one already ignored is fine; the hundredth is refused.
        ig.add(&me, &others[0]).await.unwrap();
        assert!(matches!(
            ig.add(&me, &others[MAX_IGNORED]).await.unwrap_err(),
            StoreError::Conflict(_)
        ));
        assert_eq!(ig.list(&me).await.unwrap().len(), MAX_IGNORED);
        assert!(ig.ignores(&me, &others[0]).await.unwrap());
        assert!(!ig.ignores(&me, &others[MAX_IGNORED]).await.unwrap());
    }
);

test_both_backends!(
    friend_requests_succeed_while_saves_commit_beside_them,
    |store| {
        // A request reads, then writes; saves commit on other connections meanwhile. On SQLite a
        // deferred transaction failed outright (SQLITE_BUSY_SNAPSHOT) when a save committed between
        // its read and its write; writing transactions now take the write lock first.
        let target = new_character(&store, "Target").await;
        let saved = crate::new_character_with(&store, "Saver", vec![]).await;
        let mut askers = Vec::new();
        for i in 0..12 {
            askers.push(new_character(&store, &format!("Asker{i}")).await);
        }
        let saver = {
            let store = store.clone();
            tokio::spawn(async move {
                for _ in 0..60 {
                    store
                        .inventories()
                        .save_batch(std::slice::from_ref(&saved))
                        .await
                        .unwrap();
                }
            })
        };
        let requests: Vec<_> = askers
            .into_iter()
            .map(|asker| {
                let store = store.clone();
                let target = target.clone();
                tokio::spawn(async move {
                    for _ in 0..3 {
                        store.friends().request(&asker, &target).await.unwrap();
                        store.friends().remove(&asker, &target).await.unwrap();
                        store.friends().respond(&target, &asker, false).await.ok();
                    }
                })
            })
            .collect();
        for request in requests {
            request.await.unwrap();
        }
        saver.await.unwrap();
    }
);

test_both_backends!(the_four_lists_at_once_are_the_four_lists_apart, |store| {
    let me = new_character(&store, "Mia").await;
    let [zed, bob, cat, dan, eve] = [
        new_character(&store, "Zed").await,
        new_character(&store, "Bob").await,
        new_character(&store, "Cat").await,
        new_character(&store, "Dan").await,
        new_character(&store, "Eve").await,
    ];
    let f = store.friends();
    for friend in [&zed, &bob] {
        f.request(friend, &me).await.unwrap();
        f.respond(&me, friend, true).await.unwrap();
    }
    f.request(&cat, &me).await.unwrap();
    f.request(&me, &dan).await.unwrap();
    store.ignores().add(&me, &eve).await.unwrap();
    // Someone else's lists stay out of mine.
    f.request(&eve, &cat).await.unwrap();

    let lists = f.lists(&me).await.unwrap();
    assert_eq!(lists.friends, f.list(&me).await.unwrap());
    assert_eq!(names(lists.friends), vec!["Bob", "Zed"], "by name");
    assert_eq!(lists.incoming, f.incoming(&me).await.unwrap());
    assert_eq!(names(lists.incoming), vec!["Cat"]);
    assert_eq!(lists.outgoing, f.outgoing(&me).await.unwrap());
    assert_eq!(names(lists.outgoing), vec!["Dan"]);
    assert_eq!(lists.ignored, store.ignores().list(&me).await.unwrap());
    assert_eq!(names(lists.ignored), vec!["Eve"]);
    assert_eq!(
        f.lists(&zed).await.unwrap(),
        wayfarer_store::ContactLists {
            friends: f.list(&zed).await.unwrap(),
            ..Default::default()
        }
    );
});

test_both_backends!(
    mutual_requests_at_the_same_instant_make_one_friendship,
    |store| {
        // Issue 50: two requests sent each other at once each looked for the other before it was
        // committed (PostgreSQL, READ COMMITTED), both were inserted, and the pair stayed pending
        // for good. Raced on two tasks at offsets from 0 to 50 ms, each pair ends as one
        // friendship, both directions, nothing pending, one request `Befriended`.
        for (round, offset_ms) in [0u64, 0, 0, 0, 1, 2, 5, 10, 25, 50].into_iter().enumerate() {
            let a = new_character(&store, &format!("Racea{round}")).await;
            let b = new_character(&store, &format!("Raceb{round}")).await;
            let first = {
                let (store, a, b) = (store.clone(), a.clone(), b.clone());
                tokio::spawn(async move { store.friends().request(&a, &b).await.unwrap() })
            };
            let second = {
                let (store, a, b) = (store.clone(), a.clone(), b.clone());
                tokio::spawn(async move {
                    if offset_ms > 0 {
                        tokio::time::sleep(std::time::Duration::from_millis(offset_ms)).await;
                    }
                    store.friends().request(&b, &a).await.unwrap()
                })
            };
            let mut outcomes = [first.await.unwrap(), second.await.unwrap()];
            outcomes.sort_by_key(|o| *o == RequestOutcome::Befriended);
            assert_eq!(
                outcomes,
                [RequestOutcome::Sent, RequestOutcome::Befriended],
                "round {round} (+{offset_ms} ms)"
            );
            for (me, other) in [(&a, &b), (&b, &a)] {
                let lists = store.friends().lists(me).await.unwrap();
                let ids: Vec<&str> = lists.friends.iter().map(|c| c.id.as_str()).collect();
                assert_eq!(ids, [other.as_str()], "round {round} (+{offset_ms} ms)");
                assert!(
                    lists.incoming.is_empty() && lists.outgoing.is_empty(),
                    "round {round} (+{offset_ms} ms): {lists:?}"
                );
            }
        }
    }
);
