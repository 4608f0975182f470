//! The load generator (`wayfarer load`) against a real server: ten bots play the mixed scenario
//! for three seconds, six trade with each other, and everything they counted adds up.

use std::time::{Duration, Instant};

use wayfarer_bench::load::{run, LoadOptions, LoadReport, Scenario};

use crate::support::TestApp;

const BOTS: u64 = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_bots_play_and_the_counts_add_up() {
    let app = TestApp::spawn_timed().await;
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

    assert_clean_and_counted(&report, BOTS);

    // Round trips: each bot probes within its first second and plays at least two seconds.
    assert!(report.rtt_ms.count >= BOTS, "{:?}", report.rtt_ms);
    assert_ordered("rtt", &report.rtt_ms);

    // Each bot probed, moved and chatted (the first move comes within 1 s and the first chat
    // within 2 s of entering).
    let out = &report.messages_out_by_type;
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

    all_logged_out(&app).await;

    // The server's own figures were sampled while the bots played.
    let server = report.server.as_ref().expect("/status was sampled");
    assert!(server.samples >= 1, "{server:?}");
    assert!(server.at_peak.players_online >= 1, "{server:?}");
    assert!(server.at_peak.rss_bytes > 0 || !cfg!(target_os = "linux"));

    let json = json_round_trip(&report);
    assert_eq!(json["connected"], BOTS);
    assert_eq!(json["scenario"], "mixed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trading_bots_complete_trades_and_the_coins_add_up() {
    const TRADERS: u64 = 6;
    const PAIRS: u64 = TRADERS / 2;
    // The starter kit's coins.
    const COINS_EACH: i64 = 25;
    let app = TestApp::spawn_timed().await;
    let mut options = LoadOptions::new(app.base.clone());
    options.bots = TRADERS as usize;
    options.seconds = 4;
    options.ramp_seconds = 1;
    options.scenario = Scenario::Trade;
    let report = run(options).await.expect("the trade run completes");
    println!("{report}");
    assert_clean_and_counted(&report, TRADERS);

    // Trades completed, none refused, cancelled or stalled, and every pair's coins add up.
    let trades = report
        .trades
        .as_ref()
        .expect("a trade run reports its trades");
    assert!(trades.completed >= PAIRS, "{trades:?}");
    assert!(trades.steady_completed > 0 && trades.steady_completed <= trades.completed);
    assert_eq!(trades.errors, 0, "{:?}", trades.errors_by_code);
    assert_eq!(trades.cancels, 0, "{:?}", trades.cancel_reasons);
    assert_eq!(trades.stalls, 0);
    assert_eq!(trades.coins.pairs_counted, PAIRS, "{:?}", trades.coins);
    assert_eq!(trades.coins.pairs_excluded, 0);
    assert_eq!(trades.coins.start, TRADERS as i64 * COINS_EACH);
    assert_eq!(trades.coins.end, trades.coins.start);
    assert!(trades.coins.balanced);
    assert_eq!(
        trades.duration_ms.count, trades.completed,
        "one duration per trade"
    );
    assert_ordered("trade", &trades.duration_ms);
    let rate = trades.completed as f64 / report.duration_seconds;
    assert!((trades.completed_per_second - rate).abs() < 1e-6);

    // The messages of each completed trade: a request, an answer, two offers, four accepts and
    // two completions; at most one more trade per pair was under way at the deadline.
    let out = &report.messages_out_by_type;
    let sent = |kind: &str| out.get(kind).copied().unwrap_or(0);
    let inbound = &report.messages_in_by_type;
    let got = |kind: &str| inbound.get(kind).copied().unwrap_or(0);
    let done = trades.completed;
    for (kind, per_trade, count) in [
        ("tradeRequest", 1, sent("tradeRequest")),
        ("tradeRequestRespond", 1, sent("tradeRequestRespond")),
        ("tradeAddItem", 2, sent("tradeAddItem")),
        ("tradeAccept", 4, sent("tradeAccept")),
        ("tradeIncoming", 1, got("tradeIncoming")),
        ("tradeStarted", 2, got("tradeStarted")),
        ("tradeCompleted", 2, got("tradeCompleted")),
    ] {
        assert!(
            (per_trade * done..=per_trade * (done + PAIRS)).contains(&count),
            "{kind}: {count} for {done} trades; out {out:?}, in {inbound:?}"
        );
    }
    assert_eq!(sent("tradeCancel"), 0);
    assert_eq!(got("tradeCancelled") + got("tradeError"), 0);
    assert_eq!(sent("player:move"), 0, "traders stay where they entered");
    // Each trade swaps a coin each way: an inventory update for both.
    assert!(got("inventory:update") >= 2 * done, "{inbound:?}");

    all_logged_out(&app).await;
    let json = json_round_trip(&report);
    assert_eq!(json["scenario"], "trade");
    assert_eq!(json["trades"]["completed"], done);
    assert_eq!(json["trades"]["coins"]["balanced"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gathering_bots_chop_trees_and_idle_bots_only_listen() {
    let app = TestApp::spawn_timed().await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_storm_brings_every_bot_back_into_the_world() {
    let app = TestApp::spawn_timed().await;
    let mut options = LoadOptions::new(app.base.clone());
    options.bots = 6;
    options.seconds = 4;
    options.ramp_seconds = 1;
    options.scenario = Scenario::ReconnectStorm;
    let report = run(options).await.expect("the storm run completes");
    println!("{report}");
    assert_eq!(report.connected, 6);
    assert_eq!(report.disconnects, 0, "{:?}", report.disconnect_reasons);
    let storm = report.reconnect.as_ref().expect("the storm's figures");
    assert_eq!(
        (storm.reconnected, storm.failed),
        (6, 0),
        "{:?}",
        storm.failures
    );
    assert_eq!(storm.reconnect_ms.count, 6);
    assert_eq!(
        storm.first_update_ms.count, 6,
        "each was in the world again"
    );
    assert!(storm.reconnect_ms.p50 <= storm.first_update_ms.p50);
    assert!(report.is_clean(), "{report}");
    // Each bot read two entry syncs (one per socket) and sent nothing.
    assert_eq!(
        report.messages_in_by_type.get("player:sync").copied(),
        Some(12)
    );
    assert_eq!(report.messages_out, 0);
    // The storm's figures are in the JSON report, and only for this scenario.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["reconnect"]["reconnected"], 6);
    assert_eq!(json["scenario"], "reconnect-storm");
}

/// Every bot entered, stayed, and left cleanly, nothing it sent was refused, and the report's
/// totals are the sums of its parts.
fn assert_clean_and_counted(report: &LoadReport, bots: u64) {
    assert_eq!(report.bots, bots);
    assert_eq!(report.bots_started, bots);
    assert_eq!(
        report.connected, bots,
        "connect failures: {:?}",
        report.connect_failures
    );
    assert_eq!(report.failed_connects, 0, "{:?}", report.connect_failures);
    assert_eq!(report.disconnects, 0, "{:?}", report.disconnect_reasons);
    assert_eq!(report.errors, 0, "{:?}", report.errors_by_code);
    assert_eq!(report.unclean_closes, 0);
    assert_eq!(report.rtt_timeouts, 0);
    assert!(report.is_clean(), "{report}");

    // Connect times: one per bot.
    assert_eq!(report.connect_ms.count, bots);
    assert_ordered("connect", &report.connect_ms);

    // Messages: the totals are the sums of the types, the rates the totals over the duration.
    assert_eq!(
        report.messages_out,
        report.messages_out_by_type.values().sum::<u64>()
    );
    assert_eq!(
        report.messages_in,
        report.messages_in_by_type.values().sum::<u64>()
    );
    let rate = report.messages_out as f64 / report.duration_seconds;
    assert!((report.messages_out_per_second - rate).abs() < 1e-6);
    let rate = report.messages_in as f64 / report.duration_seconds;
    assert!((report.messages_in_per_second - rate).abs() < 1e-6);
}

/// The bots logged out: the server soon counts nobody online.
async fn all_logged_out(app: &TestApp) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let status: serde_json::Value = app.get("/status").await.json().await.unwrap();
        if status["playersOnline"] == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "bots still online: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Writes the report as JSON, checks that reading it back gives the same report, and returns it.
fn json_round_trip(report: &LoadReport) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("load.json");
    report.write_json(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let back: LoadReport = serde_json::from_str(&text).unwrap();
    // JSON keeps every figure; a float may come back one unit in the last place off.
    assert_eq!(
        rounded(serde_json::to_value(&back).unwrap()),
        rounded(serde_json::to_value(report).unwrap())
    );
    serde_json::from_str(&text).unwrap()
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
