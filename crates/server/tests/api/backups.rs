//! `wayfarer backup` and `wayfarer restore` (docs/operations.md, "Backups"): a backup taken while
//! players trade, disconnect and save holds every item exactly once, and restored into a fresh
//! world directory it runs a server whose economy audit balances. A restore is refused while a
//! server runs on the world, and for a file that is not a Wayfarer database or is newer than the
//! binary.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use wayfarer_store::Store;

use crate::auth::SECRET;
use crate::character_churn::Audit;
use crate::death_crash::owned;
use crate::support::{enter, player, AppOptions, TestApp};
use crate::trade::trade_rounds;

/// Runs `wayfarer <args>` on the world directory `world` (its SQLite database).
async fn wayfarer(world: &Path, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(args)
        .current_dir(world)
        .env("WORLD", world)
        .env_remove("DATABASE_URL")
        .env("NODE_ENV", "test")
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("the wayfarer binary runs")
}

fn text(output: &std::process::Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Every item the characters own in the database at `store`.
async fn holdings(store: &Store, ids: &[String]) -> BTreeMap<String, i64> {
    let mut all = BTreeMap::new();
    for id in ids {
        for (item, units) in owned(store, id).await {
            *all.entry(item).or_default() += units;
        }
    }
    all
}

fn app_options(world: Option<std::path::PathBuf>) -> AppOptions {
    AppOptions {
        // One signing secret for both servers: the restored world accepts the players' tokens.
        env: vec![("JWT_SECRET", SECRET.into())],
        world_dir: world,
        ..AppOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_under_load_restores_into_a_world_whose_audit_balances() {
    let app = Arc::new(TestApp::spawn_with(app_options(None)).await);
    let mut pairs = Vec::new();
    let mut ids = Vec::new();
    for n in 0..4 {
        let (a_token, a_id) = player(&app, &format!("Seller{n}")).await;
        let (b_token, b_id) = player(&app, &format!("Buyer{n}")).await;
        ids.extend([a_id.clone(), b_id.clone()]);
        pairs.push((a_token, a_id, b_token, b_id));
    }
    let tokens: BTreeMap<String, String> = pairs
        .iter()
        .flat_map(|(at, a, bt, b)| [(a.clone(), at.clone()), (b.clone(), bt.clone())])
        .collect();
    let before = holdings(app.store(), &ids).await;
    assert!(before.get("coins").copied().unwrap_or(0) > 0, "{before:?}");

    // Four pairs trade (completing, cancelling, disconnecting mid-trade and coming back, each a
    // save) until told to stop; `rounds` counts the rounds played.
    let stop = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(AtomicUsize::new(0));
    let progress = Arc::new(tokio::sync::Notify::new());
    let mut tasks = Vec::new();
    for (n, (a_token, a_id, b_token, b_id)) in pairs.into_iter().enumerate() {
        let (app, stop, rounds, progress) =
            (app.clone(), stop.clone(), rounds.clone(), progress.clone());
        tasks.push(tokio::spawn(async move {
            let (mut a, _) = enter(&app, &a_token).await;
            let (mut b, _) = enter(&app, &b_token).await;
            let mut seed = n as u64 + 1;
            while !stop.load(Ordering::SeqCst) {
                let played = trade_rounds(
                    &app,
                    (a, a_id.clone()),
                    (b, b_id.clone(), b_token.clone()),
                    1,
                    seed,
                )
                .await;
                (a, b) = (played.1, played.2);
                seed += 101;
                rounds.fetch_add(1, Ordering::SeqCst);
                progress.notify_waiters();
            }
            a.close().await;
            b.close().await;
        }));
    }
    // Waits until the pairs have played `more` rounds beyond now.
    let played_more = |more: usize| {
        let (rounds, progress) = (rounds.clone(), progress.clone());
        async move {
            let target = rounds.load(Ordering::SeqCst) + more;
            while rounds.load(Ordering::SeqCst) < target {
                let notified = progress.notified();
                if rounds.load(Ordering::SeqCst) >= target {
                    break;
                }
                tokio::time::timeout(crate::support::WAIT, notified)
                    .await
                    .expect("the traders keep trading");
            }
        }
    };

    // Three backups, each while the trading goes on.
    let backups = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for n in 0..3 {
        played_more(2).await;
        let file = backups.path().join(format!("world-{n}.db"));
        let out = wayfarer(&app.world_dir, &["backup", "--out", file.to_str().unwrap()]).await;
        assert!(out.status.success(), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("8 characters"),
            "{}",
            text(&out)
        );
        files.push(file);
    }
    // A backup never overwrites a file.
    let again = wayfarer(
        &app.world_dir,
        &["backup", "--out", files[0].to_str().unwrap()],
    )
    .await;
    assert!(!again.status.success(), "{}", text(&again));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
    played_more(2).await;

    // While the world runs, restoring onto it is refused and changes nothing.
    let refused = wayfarer(&app.world_dir, &["restore", files[0].to_str().unwrap()]).await;
    assert!(!refused.status.success(), "{}", text(&refused));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("a world is running"),
        "{}",
        text(&refused)
    );

    stop.store(true, Ordering::SeqCst);
    for task in tasks {
        task.await.unwrap();
    }
    assert!(app.store().trades().count().await.unwrap() > 0);

    // Each backup is one moment of the world: every item of the players exactly once.
    for file in &files {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "a backup holds every account: private");
        }
        let copy = backups.path().join("inspect.db");
        std::fs::copy(file, &copy).unwrap();
        let store = Store::open_sqlite(&copy).await.unwrap();
        assert_eq!(holdings(&store, &ids).await, before, "{}", file.display());
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
        }
    }

    // Restored into a fresh world directory, a server runs on it.
    let restored_world = tempfile::tempdir().unwrap();
    let chosen = files[1].to_str().unwrap();
    let out = wayfarer(restored_world.path(), &["restore", chosen]).await;
    assert!(out.status.success(), "{}", text(&out));
    let restored = TestApp::spawn_with(app_options(Some(restored_world.path().into()))).await;
    assert_eq!(holdings(restored.store(), &ids).await, before);
    let audit = Audit::begin(&restored).await;
    let report = audit.balanced(&restored, "restored").await;
    for (item, units) in &before {
        assert_eq!(
            report["items"][item]["inWorld"].as_i64(),
            Some(*units),
            "{item}: {report}"
        );
    }
    // The restored players enter and trade; the audit still balances, nothing made or lost.
    let (a_id, b_id) = (&ids[0], &ids[1]);
    let (a, _) = enter(&restored, &tokens[a_id]).await;
    let (b, _) = enter(&restored, &tokens[b_id]).await;
    let (_, a, b) = trade_rounds(
        &restored,
        (a, a_id.clone()),
        (b, b_id.clone(), tokens[b_id].clone()),
        3,
        7,
    )
    .await;
    a.close().await;
    b.close().await;
    audit.balanced(&restored, "after trading").await;
    assert_eq!(holdings(restored.store(), &ids).await, before);

    // Restoring over a world keeps the database it replaces beside it.
    let restored_dir = restored.world_dir.clone();
    drop(restored.stop().await);
    let out = wayfarer(&restored_dir, &["restore", files[2].to_str().unwrap()]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("before-restore"),
        "{}",
        text(&out)
    );
}

#[tokio::test]
async fn a_restore_checks_the_file_and_a_postgres_world_is_sent_to_its_tools() {
    let app = TestApp::spawn().await;
    player(&app, "Keeper").await;
    let dir = tempfile::tempdir().unwrap();
    let backup = dir.path().join("good.db");
    let out = wayfarer(
        &app.world_dir,
        &["backup", "--out", backup.to_str().unwrap()],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    drop(app.stop().await);

    let target = tempfile::tempdir().unwrap();
    let restore = |file: std::path::PathBuf| {
        let target = target.path().to_path_buf();
        async move { wayfarer(&target, &["restore", file.to_str().unwrap()]).await }
    };
    let refused = |out: &std::process::Output, says: &str| {
        assert!(!out.status.success(), "{}", text(out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{says}: {}",
            text(out)
        );
        assert!(
            !target.path().join("wayfarer.db").exists(),
            "a refused restore writes nothing"
        );
    };
    // Not SQLite at all.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, "not a database").unwrap();
    refused(&restore(junk).await, "not a SQLite database");
    // SQLite, but not Wayfarer's.
    let other = dir.path().join("other.db");
    let store = Store::open_sqlite(&other).await.unwrap();
    store.close().await;
    refused(&restore(other).await, "not a Wayfarer database");
    // Wayfarer's, from a newer binary.
    let newer = dir.path().join("newer.db");
    std::fs::copy(&backup, &newer).unwrap();
    let store = Store::open_sqlite(&newer).await.unwrap();
    store.close().await;
    let conn_url = format!("sqlite://{}", newer.display());
    {
        use sqlx::{Connection, Executor};
        let mut conn = sqlx::SqliteConnection::connect(&conn_url).await.unwrap();
        conn.execute(
            "INSERT INTO schema_migrations (version, name, \"appliedAt\") VALUES (9999, 'from_the_future', 0)",
        )
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    refused(&restore(newer).await, "newer than this binary");
    // A missing file.
    refused(
        &restore(dir.path().join("missing.db")).await,
        "no such file",
    );
    // The good one.
    let out = restore(backup).await;
    assert!(out.status.success(), "{}", text(&out));

    // PostgreSQL: pg_dump and pg_restore are the tools; both commands say so and fail.
    for args in [
        &["backup", "--out", "x.dump"][..],
        &["restore", "x.dump"][..],
    ] {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_wayfarer"))
            .args(args)
            .current_dir(target.path())
            .env("WORLD", target.path())
            .env(
                "DATABASE_URL",
                "postgres://wayfarer:secret@127.0.0.1:1/wayfarer",
            )
            .env("NODE_ENV", "test")
            .output()
            .await
            .unwrap();
        assert!(!out.status.success(), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tool = if args[0] == "backup" {
            "pg_dump"
        } else {
            "pg_restore"
        };
        assert!(stderr.contains(tool), "{}", text(&out));
        assert!(
            !stderr.contains("secret"),
            "the password is redacted: {stderr}"
        );
    }
}
