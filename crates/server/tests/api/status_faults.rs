//! `/status` answers within 3 seconds when the database hangs or goes away, and recovers after.

use std::time::{Duration, Instant};

use wayfarer_store::testing::FreshDatabase;

use crate::support::{AppOptions, FaultProxy, TestApp};

/// The platform restarts an instance whose probe takes longer than this.
const PROBE_DEADLINE: Duration = Duration::from_secs(3);

/// `url` with its host and port replaced by `127.0.0.1:port`.
fn through_port(url: &str, port: u16) -> (String, String) {
    let start = url
        .find('@')
        .map(|i| i + 1)
        .unwrap_or_else(|| url.find("://").unwrap() + 3);
    let end = start + url[start..].find('/').unwrap();
    (
        url[start..end].to_owned(),
        format!("{}127.0.0.1:{port}{}", &url[..start], &url[end..]),
    )
}

async fn timed_status(app: &TestApp) -> (Duration, serde_json::Value) {
    let started = Instant::now();
    let response = app
        .client
        .get(app.url("/status"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    (started.elapsed(), response.json().await.unwrap())
}

async fn wait_for_database(app: &TestApp, expected: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, body) = timed_status(app).await;
        if body["database"] == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "database never became {expected}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn status_answers_in_time_when_the_database_hangs_then_goes_away() {
    let Some(db) = FreshDatabase::postgres().await else {
        return;
    };
    let (upstream, _) = through_port(&db.url, 0);
    let proxy = FaultProxy::start(upstream).await;
    let (_, proxied_url) = through_port(&db.url, proxy.port);
    let app = TestApp::spawn_with(AppOptions {
        database_url: Some(proxied_url),
        ..Default::default()
    })
    .await;

    let (_, body) = timed_status(&app).await;
    assert_eq!(body["database"], "ok");

    proxy.freeze();
    for _ in 0..3 {
        let (elapsed, body) = timed_status(&app).await;
        assert!(
            elapsed < PROBE_DEADLINE,
            "status took {elapsed:?} with a hung database"
        );
        assert_eq!(body["database"], "degraded");
        assert_eq!(body["status"], "ok");
    }
    assert_eq!(app.get("/health").await.status(), 200);

    proxy.unfreeze();
    wait_for_database(&app, "ok").await;

    proxy.cut();
    for _ in 0..3 {
        let (elapsed, body) = timed_status(&app).await;
        assert!(
            elapsed < PROBE_DEADLINE,
            "status took {elapsed:?} with the database gone"
        );
        assert_eq!(body["database"], "degraded");
    }
}

#[test]
fn url_rewrite_keeps_credentials_and_database() {
    let (upstream, rewritten) = through_port("postgres://u:p@db.host:5432/name?x=1", 7);
    assert_eq!(upstream, "db.host:5432");
    assert_eq!(rewritten, "postgres://u:p@127.0.0.1:7/name?x=1");
}
