//! The economy's durable books (`repo::economy`): entries and exits written with the holdings they
//! account for balance in every committed state; a write without its entry is caught; a database
//! from before the books opens them with what it holds.

use std::collections::BTreeMap;

use wayfarer_store::{both_databases, test_both_backends, FlowDelta, SaveBatch, Store};

use crate::{new_character_with, slot};

fn gathered(item: &str, units: i64) -> FlowDelta {
    FlowDelta {
        item_id: item.into(),
        entered: true,
        reason: "gathered".into(),
        units,
    }
}

async fn imbalances(store: &Store) -> BTreeMap<String, i64> {
    store.economy().books().await.unwrap().imbalances()
}

test_both_backends!(
    entries_written_with_their_records_balance_and_a_bare_write_is_caught,
    |store| {
        let ann = new_character_with(
            &store,
            "Ann",
            vec![slot(0, "coins", 25), slot(1, "logs", 2)],
        )
        .await;
        let books = store.economy().books().await.unwrap();
        assert_eq!(books.entered["coins"]["fixture"], 25, "{books:?}");
        assert_eq!(books.held["logs"].inventory, 2, "{books:?}");
        assert!(books.imbalances().is_empty(), "{books:?}");

        // A save carrying the log it gathered, in one batch with the record holding it.
        let mut after = ann.clone();
        after.inventory[1].quantity = 3;
        store
            .inventories()
            .save(&SaveBatch {
                snapshots: vec![after.clone()],
                flows: vec![gathered("logs", 1)],
                ..SaveBatch::default()
            })
            .await
            .unwrap();
        assert!(imbalances(&store).await.is_empty());

        // Deleting a character: what it held leaves in the same transaction.
        let bob = new_character_with(&store, "Bob", vec![slot(0, "bronze_sword", 1)]).await;
        store.characters().delete(&bob.character.id).await.unwrap();
        let books = store.economy().books().await.unwrap();
        assert_eq!(books.left["bronze_sword"]["deleted"], 1, "{books:?}");
        assert!(books.imbalances().is_empty(), "{books:?}");

        // A record written with one more log and no entry for it: a log made from nothing.
        let mut doubled = after.clone();
        doubled.inventory.push(slot(5, "logs", 3));
        store.inventories().save_batch(&[doubled]).await.unwrap();
        assert_eq!(
            imbalances(&store).await,
            BTreeMap::from([("logs".to_owned(), 3)])
        );
    }
);

both_databases!(
    a_database_from_before_the_books_opens_them_with_what_it_holds,
    |db| async move {
        let store = Store::connect(&db.url).await.unwrap();
        store.migrate().await.unwrap();
        new_character_with(&store, "Cat", vec![slot(0, "coins", 40)]).await;
        // As the database stood before migration 14 filled anything in.
        let by_hand = sqlx::AnyPool::connect(&db.url).await.unwrap();
        for statement in ["DELETE FROM economy_flows", "DELETE FROM economy_books"] {
            sqlx::query(statement).execute(&by_hand).await.unwrap();
        }
        by_hand.close().await;
        assert_eq!(
            imbalances(&store).await,
            BTreeMap::from([("coins".to_owned(), 40)])
        );
        store.migrate().await.unwrap();
        let books = store.economy().books().await.unwrap();
        assert_eq!(books.entered["coins"]["opening"], 40, "{books:?}");
        assert!(books.imbalances().is_empty(), "{books:?}");
        // Opened once: a later start adds nothing.
        store.migrate().await.unwrap();
        assert_eq!(store.economy().books().await.unwrap(), books);
        store.close().await;
    }
);
