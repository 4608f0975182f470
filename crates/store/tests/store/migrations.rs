use wayfarer_store::testing::FreshDatabase;
use wayfarer_store::{Store, MIGRATIONS, SQLITE_CACHE_KIB};

async fn migrations_are_idempotent_on(db: FreshDatabase) {
    let store = Store::connect(&db.url).await.unwrap();
    let first = store.migrate().await.unwrap();
    assert_eq!(
        first,
        MIGRATIONS.iter().map(|m| m.version).collect::<Vec<_>>()
    );
    let second = store.migrate().await.unwrap();
    assert!(second.is_empty(), "a second run applies nothing");
    store.close().await;
}

#[tokio::test]
async fn migrations_apply_once_on_sqlite() {
    migrations_are_idempotent_on(FreshDatabase::sqlite()).await;
}

#[tokio::test]
async fn migrations_apply_once_on_postgres() {
    if let Some(db) = FreshDatabase::postgres().await {
        migrations_are_idempotent_on(db).await;
    }
}

#[tokio::test]
async fn sqlite_database_is_created_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world.db");
    assert!(!path.exists());
    let store = Store::open_sqlite(&path).await.unwrap();
    store.migrate().await.unwrap();
    store.close().await;
    assert!(path.exists(), "the file is created on first start");
    // The journal mode is persistent in the file header: a fresh connection reads it back.
    use sqlx::{Connection, Row};
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let mode: String = sqlx::query("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    assert_eq!(mode, "wal");
}

/// Every pooled SQLite connection caps its page cache (memory per player at 10,000: BENCHMARKS.md);
/// PostgreSQL has no such setting here.
async fn the_page_cache_is_capped_on(db: FreshDatabase, expected: Option<i64>) {
    let store = Store::connect(&db.url).await.unwrap();
    store.migrate().await.unwrap();
    // Four at once, so the pool opens more than its first connection for them.
    let sizes = tokio::join!(
        store.sqlite_cache_size(),
        store.sqlite_cache_size(),
        store.sqlite_cache_size(),
        store.sqlite_cache_size()
    );
    for size in [sizes.0, sizes.1, sizes.2, sizes.3] {
        assert_eq!(size.unwrap(), expected);
    }
    store.close().await;
}

#[tokio::test]
async fn the_sqlite_page_cache_is_capped() {
    the_page_cache_is_capped_on(FreshDatabase::sqlite(), Some(-SQLITE_CACHE_KIB)).await;
}

#[tokio::test]
async fn postgres_has_no_sqlite_page_cache() {
    if let Some(db) = FreshDatabase::postgres().await {
        the_page_cache_is_capped_on(db, None).await;
    }
}

#[tokio::test]
async fn concurrent_migrations_on_postgres_apply_each_version_once() {
    let Some(db) = FreshDatabase::postgres().await else {
        return;
    };
    let a = Store::connect(&db.url).await.unwrap();
    let b = Store::connect(&db.url).await.unwrap();
    let (ra, rb) = tokio::join!(a.migrate(), b.migrate());
    let mut applied = ra.unwrap();
    applied.extend(rb.unwrap());
    applied.sort();
    assert_eq!(
        applied,
        MIGRATIONS.iter().map(|m| m.version).collect::<Vec<_>>()
    );
}

wayfarer_store::both_databases!(
    a_new_character_has_its_constitution_health_and_old_ones_are_corrected_once,
    |db| async move {
        let store = Store::connect(&db.url).await.unwrap();
        store.migrate().await.unwrap();
        let fresh = crate::new_character(&store, "Fresh").await;
        let read = store.characters().get(&fresh).await.unwrap().unwrap();
        assert_eq!(
            (read.health, read.max_health),
            (
                wayfarer_store::NEW_CHARACTER_HEALTH,
                wayfarer_store::NEW_CHARACTER_HEALTH
            )
        );
        // As the schema's defaults left characters before migration 15: one new (Constitution
        // XP 1,154, level 10), one trained to level 40 (37,224 XP) and hurt, and one whose 100
        // is not touched because it is not 100.
        let old = crate::new_character(&store, "Old").await;
        let trained = crate::new_character(&store, "Trained").await;
        let by_hand = sqlx::AnyPool::connect(&db.url).await.unwrap();
        for (id, xp, health, max) in [
            (&old, 1_154, 100, 100),
            (&trained, 37_224, 35, 100),
            (&fresh, 1_154, 7, 10),
        ] {
            sqlx::query(
                r#"UPDATE characters SET "constitutionXp" = $1, health = $2, "maxHealth" = $3 WHERE id = $4"#,
            )
            .bind(xp)
            .bind(health)
            .bind(max)
            .bind(id.as_str())
            .execute(&by_hand)
            .await
            .unwrap();
        }
        sqlx::query("DELETE FROM schema_migrations WHERE version = 15")
            .execute(&by_hand)
            .await
            .unwrap();
        by_hand.close().await;
        assert_eq!(store.migrate().await.unwrap(), vec![15]);
        let health = |id: String| {
            let store = &store;
            async move {
                let c = store.characters().get(&id).await.unwrap().unwrap();
                (c.health, c.max_health)
            }
        };
        assert_eq!(health(old).await, (10, 10));
        assert_eq!(health(trained).await, (35, 40));
        assert_eq!(health(fresh).await, (7, 10), "a right maximum is kept");
        store.close().await;
    }
);
