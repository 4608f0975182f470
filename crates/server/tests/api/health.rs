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

/// A production server for the tests below (`env` added last).
async fn production(env: &[(&'static str, &str)]) -> TestApp {
    let mut all: Vec<(&'static str, String)> = vec![
        ("NODE_ENV", "production".into()),
        ("JWT_SECRET", "0123456789abcdef0123456789abcdef".into()),
        ("METRICS_ADDR", "127.0.0.1:0".into()),
    ];
    all.extend(env.iter().map(|(k, v)| (*k, (*v).to_owned())));
    TestApp::spawn_with(crate::support::AppOptions {
        env: all,
        ..Default::default()
    })
    .await
}

/// Issue 50: `/metrics` (44 KB of the server's insides) needed no login. In production the main
/// port serves it only to the metrics token (404 without one configured), and the
/// `METRICS_ADDR` listener serves it to anyone who can reach it (loopback by default).
#[tokio::test]
async fn production_metrics_need_the_token_or_their_own_listener() {
    let app = production(&[]).await;
    let response = app.get("/metrics").await;
    assert_eq!(response.status(), 404);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"], "not_found");
    let apart = app
        .metrics_addr()
        .expect("a metrics listener in production");
    let response = app
        .client
        .get(format!("http://{apart}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response
        .text()
        .await
        .unwrap()
        .contains("http_requests_total"));

    let app = production(&[("METRICS_TOKEN", "scrape-0123456789")]).await;
    for token in [None, Some("guess"), Some("scrape-012345678")] {
        let mut request = app.client.get(app.url("/metrics"));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{token:?}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["error"], "unauthorized");
    }
    let response = app
        .client
        .get(app.url("/metrics"))
        .bearer_auth("scrape-0123456789")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // Outside production the main port serves them to anyone, as before.
    let dev = TestApp::spawn().await;
    assert_eq!(dev.get("/metrics").await.status(), 200);
    assert_eq!(dev.metrics_addr(), None);
}

/// Issue 50: `/status` stays public, but production shows what CONTRACT.md section 2 lists and
/// none of the insides (phases, queues, connections, memory).
#[tokio::test]
async fn production_status_is_the_contracts_fields_alone() {
    let app = production(&[]).await;
    let body: serde_json::Value = app.get("/status").await.json().await.unwrap();
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "commit",
            "database",
            "playersOnline",
            "status",
            "tick",
            "uptimeSeconds",
            "version"
        ],
        "{body}"
    );
    let mut tick: Vec<&str> = body["tick"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    tick.sort_unstable();
    assert_eq!(tick, ["lastMs", "number", "p99Ms"], "{body}");
    assert_eq!(body["status"], "ok");
    assert_eq!(body["database"], "ok");
}

/// Issue 50: `/status` had no rate limit: 60 a minute per address, then 429 with `Retry-After`.
#[tokio::test]
async fn status_is_limited_per_address() {
    // A window long enough that no request is given back while the test runs.
    let app = TestApp::spawn_with(crate::support::AppOptions {
        env: vec![
            ("DISABLE_RATE_LIMIT", "false".into()),
            ("RATE_LIMIT_WINDOW_SECS", "6000".into()),
        ],
        ..Default::default()
    })
    .await;
    for n in 0..wayfarer_server::rate_limit::STATUS_PER_WINDOW {
        assert_eq!(app.get("/status").await.status(), 200, "request {n}");
    }
    let response = app.get("/status").await;
    assert_eq!(response.status(), 429);
    assert!(response.headers().contains_key("retry-after"));
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"], "rate_limited");
    // The liveness check stays unlimited.
    assert_eq!(app.get("/health").await.status(), 200);
}
