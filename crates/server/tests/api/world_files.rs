//! The files of the world directory that hold secrets (the database, the generated token secret,
//! the layout seed) are readable by the server's user only (issue 27 point 8).

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{player, AppOptions, TestApp};

/// The files checked, by name in the world directory.
const PRIVATE: [&str; 5] = [
    "wayfarer.db",
    "wayfarer.db-wal",
    "wayfarer.db-shm",
    "jwt-secret",
    "world-seed",
];

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

async fn fresh_world() -> TestApp {
    TestApp::spawn_with(AppOptions {
        // No WORLD_SEED: the seed is generated and kept in the world directory.
        env: vec![("WORLD_SEED", String::new())],
        ..Default::default()
    })
    .await
}

#[tokio::test]
async fn a_fresh_world_directory_keeps_the_database_and_the_secrets_private() {
    let app = fresh_world().await;
    // Something written, so the database has its WAL files.
    player(&app, "Private").await;
    for name in PRIVATE {
        assert_eq!(mode(&app.world_dir.join(name)), 0o600, "{name}");
    }
}

#[tokio::test]
async fn files_left_readable_by_an_older_version_are_made_private_at_start() {
    let app = fresh_world().await;
    player(&app, "Older").await;
    let stopped = app.stop().await;
    for name in ["wayfarer.db", "jwt-secret", "world-seed"] {
        let path = stopped.world_dir.join(name);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("WORLD_SEED", String::new())],
        world_dir: Some(stopped.world_dir.clone()),
        database_url: Some(stopped.database_url.clone()),
        ..Default::default()
    })
    .await;
    player(&app, "Newer").await;
    for name in PRIVATE {
        assert_eq!(mode(&app.world_dir.join(name)), 0o600, "{name}");
    }
}
