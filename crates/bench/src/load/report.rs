//! The result of a load run: a summary table for people and JSON for tools.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::stats::{
    total, BotStats, CoinLedger, Counts, LatencySummary, ReconnectStats, TradeStats,
};
use super::{LoadError, Scenario};

/// What a load run measured. Rates are totals divided by `durationSeconds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadReport {
    /// The server's base URL.
    pub url: String,
    /// What the bots did.
    pub scenario: Scenario,
    /// Bots asked for.
    pub bots: u64,
    /// Bots started (fewer than `bots` when the run was stopped during the ramp).
    pub bots_started: u64,
    /// The run's planned length, in seconds.
    pub seconds: u64,
    /// The ramp, in seconds.
    pub ramp_seconds: u64,
    /// From the first bot's start to the end of acting (the deadline, or an early stop).
    pub duration_seconds: f64,
    /// Whether the run was stopped before its deadline.
    pub stopped_early: bool,
    /// Bots that entered the world.
    pub connected: u64,
    /// Bots that never entered.
    pub failed_connects: u64,
    /// Failed connects by step and reason (e.g. `guest: HTTP 429 rate_limited`).
    pub connect_failures: Counts,
    /// Bots that lost their connection before the end (server close or socket error).
    pub disconnects: u64,
    /// Disconnects by close code or cause (e.g. `closed 1008`).
    pub disconnect_reasons: Counts,
    /// Bots whose close at the end the server did not answer within the close timeout.
    pub unclean_closes: u64,
    /// From the guest request to the first `player:sync`, per connected bot.
    pub connect_ms: LatencySummary,
    /// Round trip of a `player:sync` request to its `player:sync` reply.
    pub rtt_ms: LatencySummary,
    /// Sync probes not answered within the probe timeout.
    pub rtt_timeouts: u64,
    /// Frames sent.
    pub messages_out: u64,
    /// Frames received.
    pub messages_in: u64,
    /// `messagesOut / durationSeconds`.
    pub messages_out_per_second: f64,
    /// `messagesIn / durationSeconds`.
    pub messages_in_per_second: f64,
    /// Frames sent by type.
    pub messages_out_by_type: Counts,
    /// Frames received by type.
    pub messages_in_by_type: Counts,
    /// Text bytes sent.
    pub bytes_out: u64,
    /// Text bytes received.
    pub bytes_in: u64,
    /// `error` messages received, in all.
    pub errors: u64,
    /// `error` messages received, by code.
    pub errors_by_code: Counts,
    /// Character names refused as taken and retried.
    pub name_retries: u64,
    /// 503 `server_busy` answers waited out and `server_busy` entry notices (back-pressure, not
    /// errors).
    #[serde(default)]
    pub busy_retries: u64,
    /// What the server's `/status` said during the run (absent when it could not be read).
    #[serde(default)]
    pub server: Option<crate::load::ServerFigures>,
    /// The `trade` scenario's trades and coin check (absent for other scenarios).
    #[serde(default)]
    pub trades: Option<TradeReport>,
    /// With several worlds, each one's bots and server figures (empty for one server, whose
    /// figures are `server`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worlds: Vec<WorldReport>,
    /// The `reconnect-storm` scenario's reconnects (absent for other scenarios).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconnect: Option<ReconnectReport>,
}

/// How the bots of a `reconnect-storm` got back in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconnectReport {
    /// Bots back in (their new socket had its `player:sync`).
    pub reconnected: u64,
    /// Bots that did not get back in.
    pub failed: u64,
    /// Those by step and reason.
    pub failures: Counts,
    /// From dropping the socket to the new `player:sync`.
    pub reconnect_ms: LatencySummary,
    /// From dropping the socket to the first `world:update` after it.
    pub first_update_ms: LatencySummary,
}

impl ReconnectReport {
    fn new(stats: ReconnectStats) -> Self {
        ReconnectReport {
            reconnected: stats.times.len() as u64,
            failed: total(&stats.failures),
            failures: stats.failures,
            reconnect_ms: stats.times.summary(),
            first_update_ms: stats.first_update.summary(),
        }
    }
}

/// One world of a run over several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorldReport {
    /// The world's base URL.
    pub url: String,
    /// Bots that played there (started).
    pub bots: u64,
    /// Of those, the ones that entered.
    pub connected: u64,
    /// Bots that never entered.
    pub failed_connects: u64,
    /// Bots that lost their connection before the end.
    pub disconnects: u64,
    /// `error` messages its bots received, by code.
    pub errors_by_code: Counts,
    /// What its `/status` said during the run (absent when it could not be read).
    #[serde(default)]
    pub server: Option<crate::load::ServerFigures>,
}

impl WorldReport {
    /// An empty line for the world at `url`.
    pub fn new(url: &str) -> WorldReport {
        WorldReport {
            url: url.to_owned(),
            bots: 0,
            connected: 0,
            failed_connects: 0,
            disconnects: 0,
            errors_by_code: Counts::default(),
            server: None,
        }
    }

    /// Counts one of its bots.
    pub(crate) fn count(&mut self, bot: &BotStats) {
        self.bots += 1;
        self.connected += bot.connected;
        self.failed_connects += total(&bot.connect_failures);
        self.disconnects += total(&bot.disconnects);
        for (code, n) in &bot.errors {
            *self.errors_by_code.entry(code.clone()).or_default() += n;
        }
    }

    /// `error` messages, in all.
    pub fn errors(&self) -> u64 {
        total(&self.errors_by_code)
    }
}

/// Trades of a `trade` run, and whether the coins add up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TradeReport {
    /// Trades completed (`tradeCompleted`, counted once per trade).
    pub completed: u64,
    /// `completed / durationSeconds`.
    pub completed_per_second: f64,
    /// The steady window: from the end of the ramp (every bot started) to the end of the run.
    pub steady_seconds: f64,
    /// Trades completed in the steady window.
    pub steady_completed: u64,
    /// `steadyCompleted / steadySeconds`.
    pub steady_per_second: f64,
    /// From `tradeRequest` sent to `tradeCompleted` received, per completed trade.
    pub duration_ms: LatencySummary,
    /// `tradeCancelled` received, in all.
    pub cancels: u64,
    /// `tradeCancelled` received, by reason.
    pub cancel_reasons: Counts,
    /// `tradeError` received (and bot-side trade problems), in all.
    pub errors: u64,
    /// Trade errors by code.
    pub errors_by_code: Counts,
    /// Trade cycles given up (and cancelled) after no progress for the stall timeout.
    pub stalls: u64,
    /// The coins of the bots, at the start and at the end.
    pub coins: CoinCheck,
}

/// Coins only move between the two bots of a pair, so a pair's total at the end must equal its
/// total at the start. Counted are the pairs whose two bots both entered, stayed connected until
/// they closed at the end (every inventory the server sent them before their close was read, up
/// to the server's answer) and saw their inventory; a pair with a bot that failed to connect or
/// lost its connection during the run is left out (its last known count may be stale) and
/// counted in `pairsExcluded`. A trade that commits after its bots closed is invisible to them,
/// but it moves one coin each way, so it cannot unbalance the totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoinCheck {
    /// Pairs counted.
    pub pairs_counted: u64,
    /// Pairs left out (a bot not connected to the end, or without a known inventory).
    pub pairs_excluded: u64,
    /// Coins of the counted bots at the start.
    pub start: i64,
    /// Coins of the counted bots at the end.
    pub end: i64,
    /// `start == end`.
    pub balanced: bool,
}

impl CoinCheck {
    /// The check over every trading bot's ledger; `pairs` is how many pairs the run had.
    pub fn of(ledger: &[CoinLedger], pairs: u64) -> CoinCheck {
        let mut by_pair = std::collections::BTreeMap::<usize, Vec<&CoinLedger>>::new();
        for entry in ledger {
            by_pair.entry(entry.bot / 2).or_default().push(entry);
        }
        let mut check = CoinCheck::default();
        for bots in by_pair.values() {
            let known: Option<Vec<(i64, i64)>> = bots
                .iter()
                .map(|b| b.stayed.then_some(b.start.zip(b.end)).flatten())
                .collect();
            if let Some(known) = known.filter(|k| k.len() == 2) {
                check.pairs_counted += 1;
                check.start += known.iter().map(|k| k.0).sum::<i64>();
                check.end += known.iter().map(|k| k.1).sum::<i64>();
            }
        }
        check.pairs_excluded = pairs.saturating_sub(check.pairs_counted);
        check.balanced = check.start == check.end;
        check
    }
}

impl TradeReport {
    fn new(stats: TradeStats, facts: &RunFacts) -> TradeReport {
        let rate = |n: u64, seconds: f64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        let steady_seconds = (facts.duration_seconds - facts.ramp_seconds as f64).max(0.0);
        TradeReport {
            completed: stats.completed,
            completed_per_second: rate(stats.completed, facts.duration_seconds),
            steady_seconds,
            steady_completed: stats.completed_steady,
            steady_per_second: rate(stats.completed_steady, steady_seconds),
            duration_ms: stats.durations.summary(),
            cancels: total(&stats.cancels),
            cancel_reasons: stats.cancels,
            errors: total(&stats.errors),
            errors_by_code: stats.errors,
            stalls: stats.stalls,
            coins: CoinCheck::of(&stats.ledger, facts.bots / 2),
        }
    }

    /// No cancel, error or stall, and the coins add up.
    pub fn is_clean(&self) -> bool {
        self.cancels == 0 && self.errors == 0 && self.stalls == 0 && self.coins.balanced
    }
}

/// The run's facts that are not counts.
pub(crate) struct RunFacts {
    pub url: String,
    pub scenario: Scenario,
    pub bots: u64,
    pub bots_started: u64,
    pub seconds: u64,
    pub ramp_seconds: u64,
    pub duration_seconds: f64,
    pub stopped_early: bool,
}

impl LoadReport {
    /// A report from every bot's merged counts.
    pub(crate) fn new(facts: RunFacts, stats: BotStats) -> LoadReport {
        let trades = facts
            .scenario
            .trades()
            .then(|| TradeReport::new(stats.trade, &facts));
        let reconnect = (facts.scenario == Scenario::ReconnectStorm)
            .then(|| ReconnectReport::new(stats.reconnect));
        let messages_out = total(&stats.sent);
        let messages_in = total(&stats.received);
        let per_second = |n: u64| {
            if facts.duration_seconds > 0.0 {
                n as f64 / facts.duration_seconds
            } else {
                0.0
            }
        };
        LoadReport {
            url: facts.url,
            scenario: facts.scenario,
            bots: facts.bots,
            bots_started: facts.bots_started,
            seconds: facts.seconds,
            ramp_seconds: facts.ramp_seconds,
            duration_seconds: facts.duration_seconds,
            stopped_early: facts.stopped_early,
            connected: stats.connected,
            failed_connects: total(&stats.connect_failures),
            connect_failures: stats.connect_failures,
            disconnects: total(&stats.disconnects),
            disconnect_reasons: stats.disconnects,
            unclean_closes: stats.unclean_closes,
            connect_ms: stats.connect_times.summary(),
            rtt_ms: stats.rtt.summary(),
            rtt_timeouts: stats.rtt_timeouts,
            messages_out,
            messages_in,
            messages_out_per_second: per_second(messages_out),
            messages_in_per_second: per_second(messages_in),
            messages_out_by_type: stats.sent,
            messages_in_by_type: stats.received,
            bytes_out: stats.bytes_out,
            bytes_in: stats.bytes_in,
            errors: total(&stats.errors),
            errors_by_code: stats.errors,
            name_retries: stats.name_retries,
            busy_retries: stats.busy_retries,
            server: None,
            trades,
            worlds: Vec::new(),
            reconnect,
        }
    }

    /// Writes the report as pretty JSON to `path`.
    pub fn write_json(&self, path: &Path) -> Result<(), LoadError> {
        let write_error = |source| LoadError::WriteReport {
            path: path.to_path_buf(),
            source,
        };
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| write_error(std::io::Error::other(e)))?;
        std::fs::write(path, text + "\n").map_err(write_error)
    }

    /// Whether every started bot connected and stayed connected, without errors or lost probes,
    /// and, trading, without cancelled, refused or stalled trades and with the coins adding up.
    pub fn is_clean(&self) -> bool {
        self.connected == self.bots_started
            && self.failed_connects == 0
            && self.disconnects == 0
            && self.errors == 0
            && self.rtt_timeouts == 0
            && self.trades.as_ref().is_none_or(TradeReport::is_clean)
            && self.reconnect.as_ref().is_none_or(|r| r.failed == 0)
    }
}

fn counts_line(counts: &Counts) -> String {
    if counts.is_empty() {
        return "none".to_owned();
    }
    counts
        .iter()
        .map(|(key, n)| format!("{key} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn latency_line(l: &LatencySummary) -> String {
    if l.count == 0 {
        return "no samples".to_owned();
    }
    format!(
        "n={:<7} min {:>8.2}  p50 {:>8.2}  p95 {:>8.2}  p99 {:>8.2}  max {:>8.2}  mean {:>8.2}",
        l.count, l.min, l.p50, l.p95, l.p99, l.max, l.mean
    )
}

fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

impl fmt::Display for LoadReport {
    /// A summary table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = |f: &mut fmt::Formatter<'_>, label: &str, value: String| {
            writeln!(f, "  {label:<20}{value}")
        };
        writeln!(
            f,
            "Load test against {}: {} bots, scenario {}, {} s (ramp {} s){}",
            self.url,
            self.bots,
            self.scenario,
            self.seconds,
            self.ramp_seconds,
            if self.stopped_early {
                ", stopped early"
            } else {
                ""
            }
        )?;
        row(f, "duration", format!("{:.1} s", self.duration_seconds))?;
        row(
            f,
            "bots",
            format!(
                "{} started, {} connected, {} failed to connect, {} disconnected",
                self.bots_started, self.connected, self.failed_connects, self.disconnects
            ),
        )?;
        row(f, "connect (ms)", latency_line(&self.connect_ms))?;
        row(f, "round trip (ms)", latency_line(&self.rtt_ms))?;
        row(f, "probe timeouts", self.rtt_timeouts.to_string())?;
        row(
            f,
            "messages out",
            format!(
                "{} ({:.1}/s): {}",
                self.messages_out,
                self.messages_out_per_second,
                counts_line(&self.messages_out_by_type)
            ),
        )?;
        row(
            f,
            "messages in",
            format!(
                "{} ({:.1}/s): {}",
                self.messages_in,
                self.messages_in_per_second,
                counts_line(&self.messages_in_by_type)
            ),
        )?;
        row(
            f,
            "bytes",
            format!("out {}, in {}", bytes(self.bytes_out), bytes(self.bytes_in)),
        )?;
        row(
            f,
            "errors",
            format!("{}: {}", self.errors, counts_line(&self.errors_by_code)),
        )?;
        row(f, "connect failures", counts_line(&self.connect_failures))?;
        row(f, "disconnects", counts_line(&self.disconnect_reasons))?;
        row(f, "unclean closes", self.unclean_closes.to_string())?;
        row(f, "name retries", self.name_retries.to_string())?;
        row(f, "busy retries", self.busy_retries.to_string())?;
        if let Some(reconnect) = &self.reconnect {
            row(
                f,
                "reconnected",
                format!(
                    "{} back in, {} failed: {}",
                    reconnect.reconnected,
                    reconnect.failed,
                    counts_line(&reconnect.failures)
                ),
            )?;
            row(f, "reconnect (ms)", latency_line(&reconnect.reconnect_ms))?;
            row(
                f,
                "to first update (ms)",
                latency_line(&reconnect.first_update_ms),
            )?;
        }
        if let Some(trades) = &self.trades {
            row(
                f,
                "trades completed",
                format!(
                    "{} ({:.1}/s); steady window {:.1} s: {} ({:.1}/s)",
                    trades.completed,
                    trades.completed_per_second,
                    trades.steady_seconds,
                    trades.steady_completed,
                    trades.steady_per_second
                ),
            )?;
            if self.scenario == Scenario::TradePairs {
                // One transaction per trade, and `tradeCompleted` only after it committed.
                row(
                    f,
                    "durable commits",
                    format!(
                        "{:.1}/s in the steady window (a trade each, told after its commit)",
                        trades.steady_per_second
                    ),
                )?;
            }
            row(f, "trade (ms)", latency_line(&trades.duration_ms))?;
            row(
                f,
                "trade cancels",
                format!(
                    "{}: {}",
                    trades.cancels,
                    counts_line(&trades.cancel_reasons)
                ),
            )?;
            row(
                f,
                "trade errors",
                format!("{}: {}", trades.errors, counts_line(&trades.errors_by_code)),
            )?;
            row(f, "trade stalls", trades.stalls.to_string())?;
            let coins = &trades.coins;
            row(
                f,
                "coins",
                format!(
                    "start {}, end {} over {} pairs ({} left out): {}",
                    coins.start,
                    coins.end,
                    coins.pairs_counted,
                    coins.pairs_excluded,
                    if coins.balanced {
                        "conserved"
                    } else {
                        "NOT CONSERVED"
                    }
                ),
            )?;
        }
        for world in &self.worlds {
            let tick = world.server.as_ref().map_or_else(
                || "status unreadable".to_owned(),
                |s| {
                    format!(
                        "tick p99 at peak {:.2} ms, worst {:.2} ms, {} late ticks, {} players at peak",
                        s.at_peak.tick_p99_ms,
                        s.worst_tick_p99_ms,
                        s.late_ticks,
                        s.at_peak.players_online
                    )
                },
            );
            row(
                f,
                "world",
                format!(
                    "{}: {} bots, {} connected, {} failed, {} disconnected, errors {}: {}; {tick}",
                    world.url,
                    world.bots,
                    world.connected,
                    world.failed_connects,
                    world.disconnects,
                    world.errors(),
                    counts_line(&world.errors_by_code)
                ),
            )?;
        }
        if let Some(server) = &self.server {
            row(
                f,
                "server at peak",
                format!(
                    "{} players, RSS {} ({} per player), tick p50 {:.2} ms p99 {:.2} ms",
                    server.at_peak.players_online,
                    bytes(server.at_peak.rss_bytes),
                    server
                        .bytes_per_player
                        .map_or_else(|| "?".to_owned(), bytes),
                    server.at_peak.tick_p50_ms,
                    server.at_peak.tick_p99_ms
                ),
            )?;
            row(
                f,
                "server replies",
                format!(
                    "player:sync request read to reply written p50 {:.2} ms p99 {:.2} ms; beyond the tick wait p99 {:.2} ms",
                    server.at_peak.sync_p50_ms,
                    server.at_peak.sync_p99_ms,
                    server.at_peak.sync_beyond_tick_wait_p99_ms
                ),
            )?;
            row(
                f,
                "server during run",
                format!(
                    "worst tick p99 {:.2} ms, {} late ticks, fullest outbound queue {}, {} samples",
                    server.worst_tick_p99_ms,
                    server.late_ticks,
                    server.outbound_queue_max,
                    server.samples
                ),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::stats::bump;
    use std::time::Duration;

    fn facts() -> RunFacts {
        RunFacts {
            url: "http://127.0.0.1:1".into(),
            scenario: Scenario::Mixed,
            bots: 2,
            bots_started: 2,
            seconds: 4,
            ramp_seconds: 1,
            duration_seconds: 4.0,
            stopped_early: false,
        }
    }

    fn stats() -> BotStats {
        let mut s = BotStats {
            connected: 2,
            ..BotStats::default()
        };
        for _ in 0..6 {
            bump(&mut s.sent, "player:sync");
        }
        bump(&mut s.sent, "player:move");
        bump(&mut s.sent, "player:chat");
        for _ in 0..10 {
            bump(&mut s.received, "world:update");
        }
        bump(&mut s.received, "error");
        bump(&mut s.errors, "move_too_far");
        s.rtt.record(Duration::from_millis(3));
        s.connect_times.record(Duration::from_millis(20));
        s.bytes_in = 4096;
        s
    }

    #[test]
    fn reports_add_up() {
        let r = LoadReport::new(facts(), stats());
        assert_eq!(r.messages_out, 8);
        assert_eq!(r.messages_in, 11);
        assert_eq!(r.messages_out_per_second, 2.0);
        assert_eq!(r.messages_in_per_second, 2.75);
        assert_eq!(r.errors, 1);
        assert_eq!(r.failed_connects, 0);
        assert_eq!(r.rtt_ms.count, 1);
        assert!(!r.is_clean(), "an error makes the run unclean");
        let text = r.to_string();
        assert!(text.contains("2 connected"), "{text}");
        assert!(text.contains("move_too_far 1"), "{text}");
        assert!(text.contains("4.0 KiB"), "{text}");
    }

    #[test]
    fn reports_round_trip_through_json() {
        let r = LoadReport::new(facts(), stats());
        let dir = std::env::temp_dir().join(format!("wayfarer-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("report.json");
        r.write_json(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["rttMs"]["p50"], 3.0);
        assert_eq!(v["messagesOutByType"]["player:sync"], 6);
        assert_eq!(v["scenario"], "mixed");
        let back: LoadReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(
            r.write_json(&dir.join("missing").join("r.json")),
            Err(LoadError::WriteReport { .. })
        ));
    }

    fn ledger(bot: usize, start: i64, end: i64, stayed: bool) -> CoinLedger {
        CoinLedger {
            bot,
            start: Some(start),
            end: Some(end),
            stayed,
        }
    }

    #[test]
    fn coins_are_checked_over_whole_pairs_that_stayed() {
        // Pair 0 swapped coins (and balances), pair 1 lost a bot, pair 2 is missing one bot
        // (it never connected), pair 3 holds one coin fewer at the end.
        let entries = [
            ledger(0, 25, 24, true),
            ledger(1, 25, 26, true),
            ledger(2, 25, 25, true),
            ledger(3, 25, 99, false),
            ledger(4, 25, 25, true),
            ledger(6, 25, 25, true),
            ledger(7, 25, 24, true),
        ];
        let check = CoinCheck::of(&entries[..5], 3);
        assert_eq!(
            check,
            CoinCheck {
                pairs_counted: 1,
                pairs_excluded: 2,
                start: 50,
                end: 50,
                balanced: true
            }
        );
        let check = CoinCheck::of(&entries, 4);
        assert_eq!((check.pairs_counted, check.start, check.end), (2, 100, 99));
        assert!(!check.balanced);
        let unknown = CoinLedger {
            end: None,
            ..ledger(1, 25, 25, true)
        };
        assert_eq!(
            CoinCheck::of(&[ledger(0, 25, 25, true), unknown], 1).pairs_counted,
            0
        );
    }

    /// A run of four trading bots, 10 s with a 2 s ramp, that completed `completed` trades
    /// (`steady` of them after the ramp) and ended with every bot's 25 coins.
    fn trade_run(scenario: Scenario, completed: u64, steady: u64) -> (RunFacts, BotStats) {
        let mut f = f_trade();
        f.scenario = scenario;
        f.bots_started = 4;
        f.duration_seconds = 10.0;
        f.ramp_seconds = 2;
        let mut s = BotStats {
            connected: 4,
            ..BotStats::default()
        };
        s.trade.completed = completed;
        s.trade.completed_steady = steady;
        s.trade.ledger = (0..4).map(|bot| ledger(bot, 25, 25, true)).collect();
        (f, s)
    }

    #[test]
    fn trade_runs_report_trades_and_fail_on_unbalanced_coins() {
        let (f, mut s) = trade_run(Scenario::Trade, 30, 24);
        s.trade.durations.record(Duration::from_millis(400));
        let r = LoadReport::new(f, s.clone());
        let trades = r.trades.as_ref().expect("a trade run reports trades");
        assert_eq!(trades.completed_per_second, 3.0);
        assert_eq!(trades.steady_seconds, 8.0);
        assert_eq!(trades.steady_per_second, 3.0);
        assert_eq!(trades.duration_ms.p50, 400.0);
        assert_eq!(trades.coins.pairs_counted, 2);
        assert!(r.is_clean(), "{r}");
        let text = r.to_string();
        assert!(text.contains("trades completed    30 (3.0/s)"), "{text}");
        assert!(
            text.contains("start 100, end 100 over 2 pairs (0 left out): conserved"),
            "{text}"
        );

        s.trade.ledger[3].end = Some(26);
        bump(&mut s.trade.cancels, "timeout");
        let r = LoadReport::new(f_trade(), s);
        assert!(!r.is_clean());
        assert!(r.to_string().contains("NOT CONSERVED"));
        assert!(r.to_string().contains("timeout 1"));
        assert!(LoadReport::new(facts(), stats()).trades.is_none());
    }

    #[test]
    fn trade_pairs_runs_report_durable_commits_and_the_coin_check() {
        let (f, s) = trade_run(Scenario::TradePairs, 40, 32);
        let r = LoadReport::new(f, s);
        assert!(r.is_clean(), "{r}");
        let text = r.to_string();
        assert!(text.contains("durable commits     4.0/s"), "{text}");
        assert!(text.contains("conserved"), "{text}");
        // The plain trade scenario has no such line.
        assert!(!LoadReport::new(f_trade(), BotStats::default())
            .to_string()
            .contains("durable commits"));
    }

    fn f_trade() -> RunFacts {
        let mut f = facts();
        f.scenario = Scenario::Trade;
        f.bots = 4;
        f
    }

    #[test]
    fn empty_runs_have_no_rates() {
        let mut f = facts();
        f.duration_seconds = 0.0;
        let r = LoadReport::new(f, BotStats::default());
        assert_eq!(r.messages_out_per_second, 0.0);
        assert!(r.to_string().contains("no samples"));
    }
}
