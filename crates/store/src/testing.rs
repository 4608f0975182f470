//! Test support: a fresh database per test on SQLite (a temporary file) or PostgreSQL (a new database
//! on the server named by `TEST_DATABASE_URL`), [`both_databases!`](crate::both_databases) to run a
//! test on each, [`skip`], the one rule for a test that cannot run here, and
//! [`reference_manifests`], where the reference game's files are. Without
//! `TEST_DATABASE_URL` PostgreSQL tests skip, except under `CI=true`, where a skip fails the run.

use std::io::Write;
use std::path::PathBuf;
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

/// Where skipped tests are listed (`<test>: <reason>`, a line each): `WAYFARER_SKIP_LOG`, else
/// `skipped-tests.log` in the target directory the test binary runs from (`target/`), which
/// `.ci/run` summarises; `None` when neither can be found.
pub fn skip_log_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("WAYFARER_SKIP_LOG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    // Test binaries live in <target>/<profile>/deps/.
    let exe = std::env::current_exe().ok()?;
    let deps = exe.ancestors().find(|dir| dir.ends_with("deps"))?;
    Some(deps.parent()?.parent()?.join("skipped-tests.log"))
}

/// The running test as libtest names it (its thread's name), after the test binary's name:
/// `store::users::postgres`.
fn running_test() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|stem| match stem.rsplit_once('-') {
            // Cargo names test binaries `<name>-<hash>`.
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
            _ => stem,
        })
        .unwrap_or_default();
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("(unnamed test)");
    format!("{binary}::{test}")
}

/// The one rule for a test that cannot run here (no PostgreSQL, no `nats-server`, no reference
/// corpus): under `CI=true` it fails the test, since CI provides everything; otherwise it prints
/// the reason and appends `<test>: <reason>` to [`skip_log_path`], so a run that skipped says so
/// (the test runner hides a passing test's output). The caller then returns.
#[track_caller]
pub fn skip(reason: &str) {
    let test = running_test();
    assert!(!in_ci(), "{test} cannot run, and CI=true: {reason}");
    eprintln!("skipped: {test}: {reason}");
    if let Some(path) = skip_log_path() {
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            // One write per line: concurrent tests' lines do not interleave.
            .and_then(|mut log| log.write_all(format!("{test}: {reason}\n").as_bytes()));
        if let Err(err) = appended {
            eprintln!("could not note the skip in {}: {err}", path.display());
        }
    }
}

/// The reference game's manifests (`../shared/reference-content/hyperscape-manifests` beside the
/// repository), or `None` (the test [`skip`]s) when they are not there. They are third-party data,
/// read in place and never copied into the repository.
pub fn reference_manifests() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference-content/hyperscape-manifests"
    ));
    if dir.is_dir() {
        return Some(dir);
    }
    skip(&format!("the reference corpus is not at {}", dir.display()));
    None
}

/// The PostgreSQL server for tests, or `None` (the test [`skip`]s) when there is none.
pub fn test_database_url() -> Option<String> {
    match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            skip("TEST_DATABASE_URL is not set, so this PostgreSQL test does not run");
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
        // own runtime removes the database (FORCE ends connections a pool may still hold). The test
        // waits for it at most `DROP_WAIT`, not to its end: PostgreSQL's DROP DATABASE waits until
        // every backend of the cluster has taken its signal, and a backend still authenticating a
        // connection that comes through a task of this (blocked) runtime, such as the fault proxy
        // (`testkit::FaultProxy`), takes it only at `authentication_timeout`, a minute later, with
        // every other test's CREATE DATABASE queued behind. Once the test's runtime is gone, so is
        // that connection, and the drop finishes.
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let _ = std::thread::spawn(move || {
            let _done = done_tx;
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
        });
        // Disconnected (the thread ended) or timed out: either way the test goes on.
        let _ = done_rx.recv_timeout(DROP_WAIT);
    }
}

/// How long a test's end waits for its PostgreSQL database to be dropped (see `FreshDatabase`'s
/// `Drop`).
const DROP_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

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

    /// A migrated store on `db`.
    pub async fn open(db: FreshDatabase) -> TestDb {
        let (store, _) = Store::connect_migrated(&db.url)
            .await
            .expect("connect and migrate the test database");
        TestDb { store, db }
    }
}

/// A test on both databases: `both_databases!(name, |db| future)` defines `name::sqlite` and
/// `name::postgres`, each running `future` with `db` a [`FreshDatabase`] of its kind (its `url` to
/// connect to; the database lives as long as `db`). The PostgreSQL test [`skip`]s without
/// `TEST_DATABASE_URL`. Every test run on both databases, in every crate, comes from here.
#[macro_export]
macro_rules! both_databases {
    ($name:ident, |$db:ident| $future:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test]
            async fn sqlite() {
                let $db = $crate::testing::FreshDatabase::sqlite();
                $future.await
            }

            #[tokio::test]
            async fn postgres() {
                let Some($db) = $crate::testing::FreshDatabase::postgres().await else {
                    return;
                };
                $future.await
            }
        }
    };
}

/// A repository test on both databases: [`both_databases!`](crate::both_databases) with `$store`
/// bound to a migrated [`Store`] on the fresh database.
#[macro_export]
macro_rules! test_both_backends {
    ($name:ident, |$store:ident| $body:block) => {
        $crate::both_databases!($name, |db| async move {
            let test_db = $crate::testing::TestDb::open(db).await;
            let $store = test_db.store.clone();
            $body
        });
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
