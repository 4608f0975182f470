use std::time::{Duration, Instant};

use wayfarer_protocol::ws::ClientMessage;

use crate::support::TestApp;

#[tokio::test]
async fn health_reports_ok_with_iso_timestamp_and_version() {
    let app = TestApp::spawn().await;
    let response = app.get("/health").await;
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    let ts = body["timestamp"].as_str().unwrap();
    assert!(
        time::OffsetDateTime::parse(ts, &time::format_description::well_known::Rfc3339).is_ok(),
        "{ts} is ISO 8601"
    );
    assert!(ts.ends_with('Z'), "UTC: {ts}");
    assert_eq!(body.as_object().unwrap().len(), 3, "{body}");
}

#[tokio::test]
async fn status_reports_every_contract_field_and_a_running_tick() {
    let app = TestApp::spawn().await;
    let first: serde_json::Value = app.get("/status").await.json().await.unwrap();
    for key in [
        "status",
        "version",
        "commit",
        "uptimeSeconds",
        "playersOnline",
        "tick",
        "database",
    ] {
        assert!(first.get(key).is_some(), "missing {key}: {first}");
    }
    assert_eq!(first["status"], "ok");
    assert_eq!(first["database"], "ok");
    assert_eq!(first["playersOnline"], 0);
    assert!(first["tick"]["lastMs"].is_number());
    assert!(first["tick"]["p99Ms"].is_number());
    // TICK_MS=50 in tests: the tick number must move.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let now: serde_json::Value = app.get("/status").await.json().await.unwrap();
        if now["tick"]["number"].as_u64() > first["tick"]["number"].as_u64() {
            break;
        }
        assert!(Instant::now() < deadline, "tick never advanced");
        app.pass_time().await;
    }
}

#[tokio::test]
async fn status_reports_phase_percentiles_connections_queues_and_the_process() {
    let app = TestApp::spawn().await;
    let (token, _) = crate::support::player(&app, "Counted").await;
    let (mut ws, _) = crate::support::enter(&app, &token).await;
    // Three sync round trips, so the reply figures have something to show.
    for _ in 0..3 {
        ws.send(ClientMessage::Sync, None).await;
        ws.expect_type("player:sync").await;
    }
    // Percentiles are published every ten ticks; wait for a tick past the first publication.
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        let status: serde_json::Value = app.get("/status").await.json().await.unwrap();
        if status["tick"]["number"].as_u64() >= Some(12) && status["playersOnline"] == 1 {
            break status;
        }
        assert!(Instant::now() < deadline, "tick never advanced: {status}");
        app.pass_time().await;
    };
    let tick = &status["tick"];
    for key in ["p50Ms", "p95Ms", "p99Ms", "lateTicks"] {
        assert!(tick[key].is_number(), "{key}: {status}");
    }
    assert!(tick["p50Ms"].as_f64() <= tick["p99Ms"].as_f64(), "{status}");
    for phase in [
        "input", "npcs", "movement", "actions", "view", "dispatch", "persist",
    ] {
        let p = &tick["phases"][phase];
        assert!(
            p["p99Ms"].as_f64().is_some_and(|v| v >= 0.0),
            "{phase}: {status}"
        );
        assert!(
            p["p50Ms"].as_f64() <= p["p99Ms"].as_f64(),
            "{phase}: {status}"
        );
    }
    assert_eq!(status["connections"], 1, "{status}");
    assert!(status["outboundQueue"]["max"].is_u64(), "{status}");
    assert!(status["outboundQueue"]["total"].is_u64(), "{status}");
    let sync = &status["syncReply"];
    // The test's three, and the test kit's own while it stepped the world for the entry.
    assert!(sync["count"].as_u64() >= Some(3), "{status}");
    for key in ["p50Ms", "p95Ms", "p99Ms"] {
        let total = sync[key].as_f64().unwrap_or(-1.0);
        let beyond = sync[format!("beyondTickWait{}", &key[..1].to_uppercase()) + &key[1..]]
            .as_f64()
            .unwrap_or(-1.0);
        assert!(
            total > 0.0 && (0.0..=total).contains(&beyond),
            "{key}: {status}"
        );
    }
    if cfg!(target_os = "linux") {
        let rss = status["process"]["rssBytes"].as_u64().unwrap_or(0);
        assert!(rss > 1 << 20, "{status}");
        assert!(
            status["process"]["cpuSeconds"].as_f64() > Some(0.0),
            "{status}"
        );
    }
    let metrics = app.get("/metrics").await.text().await.unwrap();
    for name in [
        "process_resident_memory_bytes",
        "tick_phase_p99_ms{phase=\"view\"}",
        "ws_open_connections",
        "ws_outbound_queue_max",
    ] {
        assert!(metrics.contains(name), "{name} missing");
    }
}

#[tokio::test]
async fn status_reports_the_configured_commit() {
    let app = TestApp::spawn_with(crate::support::AppOptions {
        env: vec![("COMMIT_HASH", "deadbeef".into())],
        ..Default::default()
    })
    .await;
    let body: serde_json::Value = app.get("/status").await.json().await.unwrap();
    assert_eq!(body["commit"], "deadbeef");
}

#[tokio::test]
async fn metrics_count_requests_by_route_and_status() {
    let app = TestApp::spawn().await;
    app.get("/health").await;
    app.get("/api/definitely-missing").await;
    // Tick histograms appear once the world has ticked.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let status: serde_json::Value = app.get("/status").await.json().await.unwrap();
        if status["tick"]["number"].as_u64() >= Some(1) {
            break;
        }
        assert!(Instant::now() < deadline, "tick never advanced");
        app.pass_time().await;
    }
    let response = app.get("/metrics").await;
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = response.text().await.unwrap();
    let has = |needle: &str| text.lines().any(|l| l.contains(needle));
    assert!(
        has(r#"http_requests_total{method="GET",route="/health",status="200"}"#),
        "{text}"
    );
    assert!(
        has(r#"http_requests_total{method="GET",route="unmatched",status="404"}"#),
        "{text}"
    );
    assert!(has("http_request_duration_seconds_bucket"), "{text}");
    assert!(has("tick_duration_ms"), "{text}");
    assert!(has("db_pool_connections"), "{text}");
}
