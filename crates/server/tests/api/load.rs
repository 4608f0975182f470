//! The load generator (`wayfarer load`) against a real server: ten bots play the mixed scenario
//! for three seconds, and everything they counted adds up.

use std::time::{Duration, Instant};

use wayfarer_bench::load::{run, LoadError, LoadOptions, LoadReport, Scenario};

use crate::support::TestApp;

const BOTS: u64 = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_bots_play_and_the_counts_add_up() {
    let app = TestApp::spawn().await;
    let mut options = LoadOptions::new(app.base.clone());
    options.bots = BOTS as usize;
    options.seconds = 3;
    options.ramp_seconds = 1;
    options.scenario = Scenario::Mixed;

    let started = Instant::now();
    let report = run(options).await.expect("the load run completes");
    let took = started.elapsed();
    println!("{report}");

    // Bounded: the run lasts its three seconds plus the closing handshakes, not more.
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_secs(10),
        "{took:?}"
    );
    assert!(
        (2.9..=3.5).contains(&report.duration_seconds),
        "{}",
        report.duration_seconds
    );
    assert!(!report.stopped_early);

    // Every bot entered, stayed, and left cleanly, and nothing it sent was refused.
    assert_eq!(report.bots, BOTS);
    assert_eq!(report.bots_started, BOTS);
    assert_eq!(
        report.connected, BOTS,
        "connect failures: {:?}",
        report.connect_failures
    );
    assert_eq!(report.failed_connects, 0, "{:?}", report.connect_failures);
    assert_eq!(report.disconnects, 0, "{:?}", report.disconnect_reasons);
    assert_eq!(report.errors, 0, "{:?}", report.errors_by_code);
    assert_eq!(report.unclean_closes, 0);
    assert_eq!(report.rtt_timeouts, 0);
    assert!(report.is_clean());

    // Connect times: one per bot.
    assert_eq!(report.connect_ms.count, BOTS);
    assert_ordered("connect", &report.connect_ms);

    // Round trips: each bot probes within its first second and plays at least two seconds.
    assert!(report.rtt_ms.count >= BOTS, "{:?}", report.rtt_ms);
    assert_ordered("rtt", &report.rtt_ms);

    // Messages out: the totals are the sum of the types, and each bot probed, moved and chatted
    // (the first move comes within 1 s and the first chat within 2 s of entering).
    let out = &report.messages_out_by_type;
    assert_eq!(report.messages_out, out.values().sum::<u64>());
    let sent = |kind: &str| out.get(kind).copied().unwrap_or(0);
    assert!(sent("player:sync") >= BOTS, "{out:?}");
    assert!(sent("player:move") >= BOTS, "{out:?}");
    assert!(sent("player:chat") > 0, "{out:?}");
    // At most one probe per bot is still in flight at the deadline.
    assert!(
        (report.rtt_ms.count..=report.rtt_ms.count + BOTS).contains(&sent("player:sync")),
        "{out:?} {:?}",
        report.rtt_ms
    );
    assert!(report.messages_out >= BOTS * 2, "{}", report.messages_out);
    assert_eq!(out.len(), 3, "only the mixed scenario's messages: {out:?}");

    // Messages in: every bot got its entry sync, one sync per probe, world updates and chat.
    let inbound = &report.messages_in_by_type;
    assert_eq!(report.messages_in, inbound.values().sum::<u64>());
    let got = |kind: &str| inbound.get(kind).copied().unwrap_or(0);
    // (A reply to a probe in flight at the deadline may still arrive while the bot closes.)
    assert!(
        (BOTS + report.rtt_ms.count..=BOTS + sent("player:sync")).contains(&got("player:sync")),
        "{inbound:?}"
    );
    assert!(got("world:update") >= BOTS, "{inbound:?}");
    assert!(got("chat:message") > 0, "{inbound:?}");
    assert_eq!(got("error"), 0);
    assert!(report.bytes_out > 0 && report.bytes_in > report.bytes_out);

    // Rates are the totals over the duration.
    let rate = report.messages_out as f64 / report.duration_seconds;
    assert!((report.messages_out_per_second - rate).abs() < 1e-6);
    let rate = report.messages_in as f64 / report.duration_seconds;
    assert!((report.messages_in_per_second - rate).abs() < 1e-6);

    // The bots logged out: the server soon counts nobody online.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let status: serde_json::Value = app.get("/status").await.json().await.unwrap();
        if status["playersOnline"] == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "bots still online: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The server's own figures were sampled while the bots played.
    let server = report.server.as_ref().expect("/status was sampled");
    assert!(server.samples >= 1, "{server:?}");
    assert!(server.at_peak.players_online >= 1, "{server:?}");
    assert!(server.at_peak.rss_bytes > 0 || !cfg!(target_os = "linux"));

    // The JSON report says the same.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("load.json");
    report.write_json(&path).unwrap();
    let back: LoadReport = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // JSON keeps every figure; a float may come back one unit in the last place off.
    assert_eq!(
        rounded(serde_json::to_value(&back).unwrap()),
        rounded(serde_json::to_value(&report).unwrap())
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["connected"], BOTS);
    assert_eq!(json["scenario"], "mixed");
}

#[tokio::test]
async fn scenarios_the_server_cannot_play_are_refused() {
    let app = TestApp::spawn().await;
    for scenario in [Scenario::Trade] {
        let mut options = LoadOptions::new(app.base.clone());
        options.scenario = scenario;
        let err = run(options).await.unwrap_err();
        assert!(
            matches!(err, LoadError::UnsupportedScenario(s) if s == scenario),
            "{err}"
        );
    }
    let status: serde_json::Value = app.get("/status").await.json().await.unwrap();
    assert_eq!(status["playersOnline"], 0, "no bot connected");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gathering_bots_chop_trees_and_idle_bots_only_listen() {
    let app = TestApp::spawn().await;
    let mut options = LoadOptions::new(app.base.clone());
    options.bots = 4;
    options.seconds = 4;
    options.scenario = Scenario::Gather;
    let report = run(options).await.expect("the gather run completes");
    println!("{report}");
    assert_eq!(report.connected, 4);
    assert_eq!(report.disconnects, 0, "{:?}", report.disconnect_reasons);
    assert!(
        report.messages_out_by_type.get("player:action").copied() > Some(0),
        "{report:?}"
    );
    assert!(
        report.messages_in_by_type.get("skill:xp").copied() > Some(0),
        "the bots chopped: {:?}",
        report.messages_in_by_type
    );

    let mut options = LoadOptions::new(app.base.clone());
    options.bots = 3;
    options.seconds = 2;
    options.scenario = Scenario::Idle;
    let report = run(options).await.expect("the idle run completes");
    assert_eq!(report.connected, 3);
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.messages_out, 0, "idle bots send nothing");
    assert!(report.messages_in > 0, "but they are sent the world");
}

fn assert_ordered(what: &str, l: &wayfarer_bench::load::LatencySummary) {
    assert!(
        l.min <= l.p50 && l.p50 <= l.p95 && l.p95 <= l.p99 && l.p99 <= l.max,
        "{what}: {l:?}"
    );
    assert!(
        l.min > 0.0 && l.mean >= l.min && l.mean <= l.max,
        "{what}: {l:?}"
    );
}

/// Every float in `value` rounded to 6 decimals, so a JSON round trip compares equal.
fn rounded(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or_default();
            serde_json::json!((x * 1e6).round() / 1e6)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(rounded).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, rounded(v))).collect())
        }
        other => other,
    }
}
