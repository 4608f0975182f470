use wayfarer_store::{test_both_backends, NewCharacter, NewUser, Store};

async fn character(store: &Store, name: &str) -> String {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    store
        .characters()
        .create(&NewCharacter {
            account_id: user.id,
            name: name.into(),
            position: None,
        })
        .await
        .unwrap()
        .id
}

test_both_backends!(ignore_lists_hold_names_and_survive_repeats, |store| {
    let me = character(&store, "Me").await;
    let pest = character(&store, "Pest").await;
    let troll = character(&store, "TROLL").await;
    store.ignores().add(&me, &pest).await.unwrap();
    store.ignores().add(&me, &pest).await.unwrap();
    store.ignores().add(&me, &troll).await.unwrap();
    assert_eq!(
        store.ignores().names(&me).await.unwrap(),
        vec!["pest", "troll"]
    );
    store.ignores().remove(&me, &pest).await.unwrap();
    assert_eq!(store.ignores().names(&me).await.unwrap(), vec!["troll"]);
    assert!(store.ignores().names(&pest).await.unwrap().is_empty());
});
