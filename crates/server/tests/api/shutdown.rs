//! SIGTERM to a real server process: it stops accepting, finishes the request in flight and exits 0.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{free_port, wait_healthy};

fn send_signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

async fn signal_finishes_in_flight_request_and_exits_zero(signal: &str) {
    let world = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .arg("serve")
        .current_dir(world.path())
        .env("WORLD", world.path())
        .env("PORT", port.to_string())
        .env("HOST", "127.0.0.1")
        .env("NODE_ENV", "test")
        .env("TICK_MS", "50")
        .env("LOG_FORMAT", "json")
        .env_remove("DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    wait_healthy(&base, Duration::from_secs(30)).await;

    let slow = tokio::spawn({
        let base = base.clone();
        async move {
            reqwest::get(format!("{base}/__test/sleep?ms=1500"))
                .await
                .map(|r| r.status().as_u16())
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    send_signal(child.id(), signal);

    assert_eq!(
        slow.await
            .unwrap()
            .expect("the in-flight request completes"),
        200
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "server did not exit after {signal}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut logs = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut logs)
        .unwrap();
    assert_eq!(status.code(), Some(0), "exit status; logs:\n{logs}");
    assert!(logs.contains("shutdown complete"), "{logs}");
    assert!(
        reqwest::get(format!("{base}/health")).await.is_err(),
        "no longer accepting"
    );
    // The database was closed cleanly: the SQLite file opens and holds the schema.
    let store = wayfarer_store::Store::open_sqlite(&world.path().join("wayfarer.db"))
        .await
        .unwrap();
    assert!(store.migrate().await.unwrap().is_empty());
}

#[tokio::test]
async fn sigterm_finishes_in_flight_requests_and_exits_zero() {
    signal_finishes_in_flight_request_and_exits_zero("TERM").await;
}

#[tokio::test]
async fn sigint_finishes_in_flight_requests_and_exits_zero() {
    signal_finishes_in_flight_request_and_exits_zero("INT").await;
}
