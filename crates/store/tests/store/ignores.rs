use crate::new_character;
use wayfarer_store::test_both_backends;

test_both_backends!(ignore_lists_hold_names_and_survive_repeats, |store| {
    let me = new_character(&store, "Me").await;
    let pest = new_character(&store, "Pest").await;
    let troll = new_character(&store, "TROLL").await;
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
