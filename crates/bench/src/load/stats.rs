//! What each bot counts, and how the counts of many bots are merged and summarised.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Latency samples in microseconds (exact: no histogram buckets). A sample is 8 bytes, so even
/// thousands of bots probing every 2 s for minutes stay within a few megabytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Samples {
    micros: Vec<u64>,
}

impl Samples {
    /// No samples.
    pub fn new() -> Self {
        Samples::default()
    }

    /// Records one duration.
    pub fn record(&mut self, d: Duration) {
        self.micros
            .push(u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
    }

    /// Adds another set's samples.
    pub fn merge(&mut self, other: Samples) {
        self.micros.extend(other.micros);
    }

    /// How many samples there are.
    pub fn len(&self) -> usize {
        self.micros.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.micros.is_empty()
    }

    /// Count, min, mean, percentiles and max in milliseconds; all zero without samples.
    pub fn summary(&self) -> LatencySummary {
        let mut sorted = self.micros.clone();
        sorted.sort_unstable();
        let ms = |us: u64| us as f64 / 1000.0;
        let Some((&min, &max)) = sorted.first().zip(sorted.last()) else {
            return LatencySummary::default();
        };
        let sum: u128 = sorted.iter().map(|&us| u128::from(us)).sum();
        LatencySummary {
            count: sorted.len() as u64,
            min: ms(min),
            mean: sum as f64 / sorted.len() as f64 / 1000.0,
            p50: ms(percentile(&sorted, 50.0)),
            p95: ms(percentile(&sorted, 95.0)),
            p99: ms(percentile(&sorted, 99.0)),
            max: ms(max),
        }
    }
}

/// The nearest-rank percentile of ascending `sorted` values: the smallest value with at least `p`
/// percent of the values at or below it. 0 for no values; `p` is clamped to 0..=100.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let p = p.clamp(0.0, 100.0);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A latency distribution, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LatencySummary {
    /// Number of samples.
    pub count: u64,
    /// Fastest sample.
    pub min: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Slowest sample.
    pub max: f64,
}

/// Counts by a key (message type, error code, close reason), in a stable order.
pub type Counts = BTreeMap<String, u64>;

/// Adds one to `key` of `counts`.
pub fn bump(counts: &mut Counts, key: &str) {
    add(counts, key, 1);
}

/// Adds `n` to `key` of `counts`.
pub fn add(counts: &mut Counts, key: &str, n: u64) {
    match counts.get_mut(key) {
        Some(count) => *count += n,
        None => {
            counts.insert(key.to_owned(), n);
        }
    }
}

/// Adds every count of `from` to `into`.
pub fn merge_counts(into: &mut Counts, from: Counts) {
    for (key, n) in from {
        add(into, &key, n);
    }
}

/// Everything one bot (or, merged, all bots) counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BotStats {
    /// Bots that entered the world (got their first `player:sync`).
    pub connected: u64,
    /// Bots that never entered, by the step and reason that failed.
    pub connect_failures: Counts,
    /// Bots whose socket the server closed (or that broke) before the end, by close code or cause.
    pub disconnects: Counts,
    /// From the guest request to the first `player:sync`.
    pub connect_times: Samples,
    /// From sending `player:sync` to receiving the next `player:sync`.
    pub rtt: Samples,
    /// Sync probes not answered within the probe timeout.
    pub rtt_timeouts: u64,
    /// Frames sent, by message type.
    pub sent: Counts,
    /// Frames received, by message type (`binary` for binary frames; close frames are not counted).
    pub received: Counts,
    /// Bytes of text sent.
    pub bytes_out: u64,
    /// Bytes of text received.
    pub bytes_in: u64,
    /// Text frames received.
    pub frames_in: u64,
    /// `error` messages received, by code.
    pub errors: Counts,
    /// Character names refused as taken (409) and retried with another.
    pub name_retries: u64,
    /// Back-pressure waited out: REST calls answered 503 `server_busy` and made again after their
    /// `Retry-After`, and `server_busy` notices of an entry waiting its turn.
    pub busy_retries: u64,
    /// Bots whose close at the end was not answered by the server in time.
    pub unclean_closes: u64,
    /// What the bots of the `trade` scenario counted.
    pub trade: TradeStats,
    /// What the bots of the `reconnect-storm` scenario counted.
    pub reconnect: ReconnectStats,
}

/// What reconnecting bots count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReconnectStats {
    /// From dropping the socket to the new socket's `player:sync`, per bot back in.
    pub times: Samples,
    /// From dropping the socket to the first `world:update` after it (the world has taken the
    /// player in again).
    pub first_update: Samples,
    /// Bots that did not get back in, by the step and reason that failed.
    pub failures: Counts,
}

/// What trading bots count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TradeStats {
    /// Trades completed, counted once each (by the requester).
    pub completed: u64,
    /// Of those, the ones completed in the steady window (after the ramp).
    pub completed_steady: u64,
    /// From sending `tradeRequest` to receiving `tradeCompleted`, per completed trade.
    pub durations: Samples,
    /// `tradeCancelled` received, by reason.
    pub cancels: Counts,
    /// `tradeError` received, by code (and problems of the bot itself, such as no coins to offer).
    pub errors: Counts,
    /// Trade cycles given up after no progress for the stall timeout.
    pub stalls: u64,
    /// Every trading bot's coins at the start and at the end.
    pub ledger: Vec<CoinLedger>,
}

/// One trading bot's coins, as the server told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoinLedger {
    /// The bot's index (its pair is `index / 2`).
    pub bot: usize,
    /// Coins in its first inventory (the entry `player:sync`).
    pub start: Option<i64>,
    /// Coins in the last inventory it received, up to the server's close.
    pub end: Option<i64>,
    /// Whether it stayed connected until it closed at the end (no disconnect during the run).
    pub stayed: bool,
}

impl TradeStats {
    /// Adds another bot's counts.
    pub fn merge(&mut self, other: TradeStats) {
        self.completed += other.completed;
        self.completed_steady += other.completed_steady;
        self.durations.merge(other.durations);
        merge_counts(&mut self.cancels, other.cancels);
        merge_counts(&mut self.errors, other.errors);
        self.stalls += other.stalls;
        self.ledger.extend(other.ledger);
    }
}

impl BotStats {
    /// Adds another bot's counts.
    pub fn merge(&mut self, other: BotStats) {
        self.connected += other.connected;
        merge_counts(&mut self.connect_failures, other.connect_failures);
        merge_counts(&mut self.disconnects, other.disconnects);
        self.connect_times.merge(other.connect_times);
        self.rtt.merge(other.rtt);
        self.rtt_timeouts += other.rtt_timeouts;
        merge_counts(&mut self.sent, other.sent);
        merge_counts(&mut self.received, other.received);
        self.bytes_out += other.bytes_out;
        self.bytes_in += other.bytes_in;
        self.frames_in += other.frames_in;
        merge_counts(&mut self.errors, other.errors);
        self.name_retries += other.name_retries;
        self.busy_retries += other.busy_retries;
        self.unclean_closes += other.unclean_closes;
        self.trade.merge(other.trade);
        self.reconnect.times.merge(other.reconnect.times);
        self.reconnect
            .first_update
            .merge(other.reconnect.first_update);
        merge_counts(&mut self.reconnect.failures, other.reconnect.failures);
    }
}

/// The sum of all counts.
pub fn total(counts: &Counts) -> u64 {
    counts.values().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&values, 50.0), 50);
        assert_eq!(percentile(&values, 95.0), 95);
        assert_eq!(percentile(&values, 99.0), 99);
        assert_eq!(percentile(&values, 100.0), 100);
        assert_eq!(percentile(&values, 0.0), 1);
        assert_eq!(percentile(&[7], 50.0), 7);
        assert_eq!(percentile(&[7], 99.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
        // Ten values: p50 is the 5th, p95 and p99 the 10th.
        let ten: Vec<u64> = (1..=10).map(|v| v * 10).collect();
        assert_eq!(percentile(&ten, 50.0), 50);
        assert_eq!(percentile(&ten, 95.0), 100);
        assert_eq!(percentile(&ten, 99.0), 100);
        assert_eq!(percentile(&ten, 150.0), 100);
        assert_eq!(percentile(&ten, -5.0), 10);
    }

    #[test]
    fn summaries_are_in_milliseconds_and_ordered() {
        let mut samples = Samples::new();
        assert_eq!(samples.summary(), LatencySummary::default());
        for ms in [5u64, 1, 3, 2, 4, 100, 2, 3, 3, 1] {
            samples.record(Duration::from_millis(ms));
        }
        let s = samples.summary();
        assert_eq!(s.count, 10);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 100.0);
        assert_eq!(s.p50, 3.0);
        assert_eq!(s.p95, 100.0);
        assert!((s.mean - 12.4).abs() < 1e-9, "{}", s.mean);
        assert!(s.min <= s.p50 && s.p50 <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.max);
    }

    #[test]
    fn sub_millisecond_samples_keep_their_precision() {
        let mut samples = Samples::new();
        samples.record(Duration::from_micros(250));
        assert_eq!(samples.summary().p50, 0.25);
    }

    #[test]
    fn bot_stats_merge_by_adding() {
        let mut a = BotStats {
            connected: 1,
            ..BotStats::default()
        };
        bump(&mut a.sent, "player:move");
        bump(&mut a.errors, "rate_limited");
        a.rtt.record(Duration::from_millis(2));
        let mut b = BotStats {
            connected: 1,
            ..BotStats::default()
        };
        add(&mut b.sent, "player:move", 2);
        bump(&mut b.sent, "player:chat");
        bump(&mut b.disconnects, "1008");
        b.rtt.record(Duration::from_millis(4));
        b.rtt_timeouts = 1;
        b.bytes_in = 10;
        a.merge(b);
        assert_eq!(a.connected, 2);
        assert_eq!(a.sent["player:move"], 3);
        assert_eq!(a.sent["player:chat"], 1);
        assert_eq!(total(&a.sent), 4);
        assert_eq!(a.errors["rate_limited"], 1);
        assert_eq!(a.disconnects["1008"], 1);
        assert_eq!(a.rtt.len(), 2);
        assert_eq!(a.rtt_timeouts, 1);
        assert_eq!(a.bytes_in, 10);
    }
}
