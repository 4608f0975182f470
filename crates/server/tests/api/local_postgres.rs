//! `USE_LOCAL_POSTGRES=true` starts a PostgreSQL of the server's own under the world directory.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wayfarer_server::local_postgres::find_bin_dir;

#[tokio::test]
async fn local_postgres_starts_under_the_world_and_stops_with_the_server() {
    if find_bin_dir(None).is_none() {
        crate::support::skip("initdb/pg_ctl are not installed (CI installs PostgreSQL)");
        return;
    }
    // Under /tmp with traversable permissions: as root the server runs PostgreSQL as `postgres`.
    let world = tempfile::Builder::new()
        .prefix("wf-localpg")
        .tempdir_in("/tmp")
        .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(world.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_wayfarer"))
            .arg("serve")
            .current_dir(world.path())
            .env("WORLD", world.path())
            .env("PORT", port.to_string())
            .env("HOST", "127.0.0.1")
            .env("NODE_ENV", "development")
            .env("USE_LOCAL_POSTGRES", "true")
            .env_remove("DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let base = format!("http://127.0.0.1:{port}");
    for round in 0..2 {
        // The second round reuses the initialised cluster and its port.
        let mut child = spawn();
        let deadline = Instant::now() + Duration::from_secs(60);
        let status: serde_json::Value = loop {
            if let Some(exit) = child.try_wait().unwrap() {
                let mut err = String::new();
                use std::io::Read;
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                panic!("server exited early ({exit}) in round {round}: {err}");
            }
            if let Ok(r) = reqwest::get(format!("{base}/status")).await {
                break r.json().await.unwrap();
            }
            assert!(Instant::now() < deadline, "server never came up");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(status["database"], "ok");
        assert!(world.path().join("postgres/PG_VERSION").exists());
        assert!(world.path().join("postgres/postmaster.pid").exists());
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let exit = loop {
            if let Some(exit) = child.try_wait().unwrap() {
                break exit;
            }
            assert!(Instant::now() < deadline, "server did not stop");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(exit.code(), Some(0));
        assert!(
            !world.path().join("postgres/postmaster.pid").exists(),
            "PostgreSQL stopped with the server"
        );
    }
}
