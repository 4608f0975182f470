use wayfarer_store::{test_both_backends, CatalogItem};

fn item(id: &str, name: &str, value: i64) -> CatalogItem {
    CatalogItem {
        id: id.into(),
        name: name.into(),
        kind: "resource".into(),
        value,
        stackable: id == "coins",
        tradeable: true,
        data: format!(r#"{{"id":"{id}"}}"#),
    }
}

test_both_backends!(the_catalogue_is_replaced_whole, |store| {
    assert!(store.catalog().all().await.unwrap().is_empty());
    let first = vec![item("coins", "Coins", 1), item("logs", "Logs", 5)];
    store.catalog().replace_all(&first).await.unwrap();
    assert_eq!(store.catalog().all().await.unwrap(), first);
    // New content: logs gone, a new item, a changed value.
    let second = vec![item("coins", "Coins", 1), item("oak_logs", "Oak logs", 20)];
    store.catalog().replace_all(&second).await.unwrap();
    assert_eq!(store.catalog().all().await.unwrap(), second);
});
