//! Test support: a fresh database per test on SQLite (a temporary file) or PostgreSQL (a new database
//! on the server named by `TEST_DATABASE_URL`). Without that variable PostgreSQL tests are skipped with a
//! printed reason, except under `CI=true`, where a missing PostgreSQL fails the run.

use std::sync::atomic::{AtomicU64, Ordering};

use sqlx::Connection;

use crate::Store;

/// A database that exists for one test and is removed when dropped.
pub struct FreshDatabase {
    /// The URL to connect to it.
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    pg: Option<PgCleanup>,
}

struct PgCleanup {
    admin_url: String,
    name: String,
}

/// Whether the run is under CI, where skipping a backend is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").map(|v| v == "true").unwrap_or(false)
}

/// The PostgreSQL server for tests, or `None` (with the reason printed) when there is none outside CI.
pub fn test_database_url() -> Option<String> {
    match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                !in_ci(),
                "TEST_DATABASE_URL is not set but CI=true: PostgreSQL tests must run in CI"
            );
            eprintln!(
                "skipped: TEST_DATABASE_URL is not set, so this PostgreSQL test does not run"
            );
            None
        }
    }
}

impl FreshDatabase {
    /// A new SQLite file in a temporary directory.
    pub fn sqlite() -> FreshDatabase {
        let dir = tempfile::tempdir().expect("temporary directory for a test database");
        let url = format!("sqlite://{}", dir.path().join("test.db").display());
        FreshDatabase {
            url,
            _dir: Some(dir),
            pg: None,
        }
    }

    /// A new, empty PostgreSQL database, or `None` when PostgreSQL tests are skipped.
    pub async fn postgres() -> Option<FreshDatabase> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let admin_url = test_database_url()?;
        let name = format!(
            "wf_test_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            crate::now_ms()
        );
        let mut admin = sqlx::PgConnection::connect(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to TEST_DATABASE_URL: {e}"));
        sqlx::raw_sql(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
        let _ = admin.close().await;
        Some(FreshDatabase {
            url: with_database(&admin_url, &name),
            _dir: None,
            pg: Some(PgCleanup { admin_url, name }),
        })
    }
}

impl Drop for FreshDatabase {
    fn drop(&mut self) {
        let Some(pg) = self.pg.take() else { return };
        // Drop runs inside the test's runtime, which cannot be blocked on; a short-lived thread with its
        // own runtime removes the database (FORCE ends connections a pool may still hold).
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async {
                if let Ok(mut admin) = sqlx::PgConnection::connect(&pg.admin_url).await {
                    let _ =
                        sqlx::raw_sql(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", pg.name))
                            .execute(&mut admin)
                            .await;
                    let _ = admin.close().await;
                }
            });
        })
        .join();
    }
}

/// `url` with its database name replaced by `database`.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.find('?') {
        Some(q) => (&url[..q], &url[q..]),
        None => (url, ""),
    };
    let authority_start = base.find("://").map(|i| i + 3).unwrap_or(0);
    let host_part = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    format!("{host_part}/{database}{query}")
}

/// A migrated store on a fresh database, kept alive as long as this value.
pub struct TestDb {
    pub store: Store,
    pub db: FreshDatabase,
}

impl TestDb {
    /// A migrated store on a fresh SQLite file.
    pub async fn sqlite() -> TestDb {
        TestDb::open(FreshDatabase::sqlite()).await
    }

    /// A migrated store on a fresh PostgreSQL database, or `None` when skipped.
    pub async fn postgres() -> Option<TestDb> {
        Some(TestDb::open(FreshDatabase::postgres().await?).await)
    }

    async fn open(db: FreshDatabase) -> TestDb {
        let (store, _) = Store::connect_migrated(&db.url)
            .await
            .expect("connect and migrate the test database");
        TestDb { store, db }
    }
}

/// Defines a test module running `$body` once on SQLite and once on PostgreSQL, with `$store` bound to
/// a migrated [`Store`] on a fresh database.
#[macro_export]
macro_rules! test_both_backends {
    ($name:ident, |$store:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test]
            async fn sqlite() {
                let db = $crate::testing::TestDb::sqlite().await;
                let $store = db.store.clone();
                $body
            }

            #[tokio::test]
            async fn postgres() {
                let Some(db) = $crate::testing::TestDb::postgres().await else {
                    return;
                };
                let $store = db.store.clone();
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn database_name_is_replaced() {
        assert_eq!(
            with_database("postgres://u:p@localhost:5432/base", "x"),
            "postgres://u:p@localhost:5432/x"
        );
        assert_eq!(
            with_database("postgres://u@localhost/base?sslmode=disable", "x"),
            "postgres://u@localhost/x?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres://localhost", "x"),
            "postgres://localhost/x"
        );
    }
}
