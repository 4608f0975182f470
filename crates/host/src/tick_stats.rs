//! The tick figures the world thread publishes for HTTP (`/status`, `/api/v1/world`) and the
//! benchmarks: tick time percentiles overall and per phase, entity counts, outbound queue depths.
//! Written with relaxed atomics by the world thread, read without locks by handlers, so a slow
//! reader can never hold up a tick.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use wayfarer_protocol::rest::{SyncReplyStatus, SYNC_REPLY_WINDOW};

/// How many recent ticks the percentiles cover (10 minutes at 600 ms).
pub const TICK_WINDOW: usize = 1_000;

/// The phases timed each tick, in order: the sim's five, then the server's own two.
pub const PHASES: [&str; 7] = [
    "input", "npcs", "movement", "actions", "view", "dispatch", "persist",
];

/// Percentiles are recomputed every this many ticks (each costs a sort of the windows).
const PUBLISH_EVERY_TICKS: u64 = 10;

/// p50, p95 and p99 of one series, in microseconds.
#[derive(Debug, Default)]
struct Percentiles {
    p50: AtomicU64,
    p95: AtomicU64,
    p99: AtomicU64,
}

impl Percentiles {
    fn store(&self, [p50, p95, p99]: [u64; 3]) {
        self.p50.store(p50, Ordering::Relaxed);
        self.p95.store(p95, Ordering::Relaxed);
        self.p99.store(p99, Ordering::Relaxed);
    }

    fn load_ms(&self) -> PhasePercentiles {
        let ms = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64 / 1000.0;
        PhasePercentiles {
            p50_ms: ms(&self.p50),
            p95_ms: ms(&self.p95),
            p99_ms: ms(&self.p99),
        }
    }
}

/// Percentiles of one phase, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PhasePercentiles {
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
}

/// Tick figures shared with HTTP handlers.
#[derive(Debug, Default)]
pub struct TickStats {
    number: AtomicU64,
    last_us: AtomicU64,
    total: Percentiles,
    phases: [Percentiles; PHASES.len()],
    players_online: AtomicU64,
    late_ticks: AtomicU64,
    npcs: AtomicU64,
    resources: AtomicU64,
    ground_items: AtomicU64,
    outbound_max: AtomicU64,
    outbound_total: AtomicU64,
    /// `player:sync` reply times, recorded by the connections.
    sync_replies: Mutex<SyncReplies>,
}

/// The last [`SYNC_REPLY_WINDOW`] `player:sync` replies: total and beyond the tick wait, in
/// microseconds. Connections add to it after each reply; percentiles are worked out only when
/// `/status` asks (a sort of the window), so the replies themselves cost a lock and a store.
#[derive(Debug, Default)]
struct SyncReplies {
    total: Vec<u32>,
    beyond: Vec<u32>,
    next: usize,
}

/// A consistent-enough copy of the tick figures for one response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TickSnapshot {
    pub number: u64,
    pub last_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub players_online: u64,
    pub late_ticks: u64,
    /// Per phase, in [`PHASES`] order.
    pub phases: [PhasePercentiles; PHASES.len()],
    /// The fullest connection's outbound queue, in messages.
    pub outbound_max: u64,
    /// Messages waiting in all outbound queues.
    pub outbound_total: u64,
}

/// Entity counts for `GET /api/v1/world`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldCounts {
    pub players: u64,
    pub npcs: u64,
    pub resources: u64,
    pub ground_items: u64,
}

impl TickStats {
    /// Reads the current figures.
    pub fn snapshot(&self) -> TickSnapshot {
        let total = self.total.load_ms();
        let mut phases = [PhasePercentiles::default(); PHASES.len()];
        for (out, p) in phases.iter_mut().zip(&self.phases) {
            *out = p.load_ms();
        }
        TickSnapshot {
            number: self.number.load(Ordering::Relaxed),
            last_ms: self.last_us.load(Ordering::Relaxed) as f64 / 1000.0,
            p50_ms: total.p50_ms,
            p95_ms: total.p95_ms,
            p99_ms: total.p99_ms,
            players_online: self.players_online.load(Ordering::Relaxed),
            late_ticks: self.late_ticks.load(Ordering::Relaxed),
            phases,
            outbound_max: self.outbound_max.load(Ordering::Relaxed),
            outbound_total: self.outbound_total.load(Ordering::Relaxed),
        }
    }

    /// Reads the entity counts.
    pub fn counts(&self) -> WorldCounts {
        WorldCounts {
            players: self.players_online.load(Ordering::Relaxed),
            npcs: self.npcs.load(Ordering::Relaxed),
            resources: self.resources.load(Ordering::Relaxed),
            ground_items: self.ground_items.load(Ordering::Relaxed),
        }
    }

    /// Adds one `player:sync` reply: `total` from reading the request to writing the reply,
    /// `tick_wait` of it spent waiting for a running tick.
    pub fn record_sync_reply(&self, total: Duration, tick_wait: Duration) {
        let us = |d: Duration| u32::try_from(d.as_micros()).unwrap_or(u32::MAX);
        let (total, beyond) = (us(total), us(total.saturating_sub(tick_wait)));
        let mut r = self.sync_replies.lock().unwrap_or_else(|p| p.into_inner());
        if r.total.len() < SYNC_REPLY_WINDOW {
            r.total.push(total);
            r.beyond.push(beyond);
        } else {
            let at = r.next;
            r.total[at] = total;
            r.beyond[at] = beyond;
        }
        r.next = (r.next + 1) % SYNC_REPLY_WINDOW;
    }

    /// Percentiles of the recent `player:sync` replies.
    pub fn sync_replies(&self) -> SyncReplyStatus {
        let (mut total, mut beyond) = {
            let r = self.sync_replies.lock().unwrap_or_else(|p| p.into_inner());
            (r.total.clone(), r.beyond.clone())
        };
        let [p50, p95, p99] = percentiles_ms(&mut total);
        let [b50, b95, b99] = percentiles_ms(&mut beyond);
        SyncReplyStatus {
            count: total.len() as u64,
            p50_ms: p50,
            p95_ms: p95,
            p99_ms: p99,
            beyond_tick_wait_p50_ms: b50,
            beyond_tick_wait_p95_ms: b95,
            beyond_tick_wait_p99_ms: b99,
        }
    }

    /// Counts a tick that started late.
    pub(crate) fn count_late_tick(&self) {
        self.late_ticks.fetch_add(1, Ordering::Relaxed);
    }
}

/// A ring of the last [`TICK_WINDOW`] samples.
#[derive(Debug, Default)]
struct Window {
    samples: Vec<u64>,
    next: usize,
}

impl Window {
    fn push(&mut self, value: u64) {
        if self.samples.len() < TICK_WINDOW {
            self.samples.push(value);
        } else {
            self.samples[self.next] = value;
        }
        self.next = (self.next + 1) % TICK_WINDOW;
    }

    /// p50, p95, p99 (nearest rank) of the window; zeros when empty.
    fn percentiles(&self, scratch: &mut Vec<u64>) -> [u64; 3] {
        scratch.clear();
        scratch.extend_from_slice(&self.samples);
        nearest_ranks(scratch)
    }
}

/// p50, p95 and p99 (nearest rank) of `samples`, which it sorts; zeros when empty.
fn nearest_ranks<T: Copy + Ord + Default>(samples: &mut [T]) -> [T; 3] {
    if samples.is_empty() {
        return [T::default(); 3];
    }
    samples.sort_unstable();
    let rank = |p: usize| samples[(samples.len() * p).div_ceil(100).saturating_sub(1)];
    [rank(50), rank(95), rank(99)]
}

/// [`nearest_ranks`] of microsecond samples, in milliseconds.
fn percentiles_ms(samples: &mut [u32]) -> [f64; 3] {
    nearest_ranks(samples).map(|us| f64::from(us) / 1000.0)
}

/// The durations of one tick's phases, in microseconds, in [`PHASES`] order.
pub type PhaseTimes = [u64; PHASES.len()];

/// What one tick adds to the figures.
#[derive(Debug, Clone, Copy)]
pub struct TickFigures {
    pub number: u64,
    pub elapsed_us: u64,
    pub phases: PhaseTimes,
    pub players: u64,
    pub npcs: u64,
    pub resources: u64,
    pub ground_items: u64,
    pub outbound_max: u64,
    pub outbound_total: u64,
}

/// The world thread's side: windows of recent ticks, published into a [`TickStats`].
#[derive(Debug, Default)]
pub struct TickRecorder {
    total: Window,
    phases: [Window; PHASES.len()],
    scratch: Vec<u64>,
}

impl TickRecorder {
    /// Adds a tick and publishes (percentiles every few ticks, everything else at once).
    pub fn record(&mut self, stats: &TickStats, tick: TickFigures) {
        self.total.push(tick.elapsed_us);
        for (window, us) in self.phases.iter_mut().zip(tick.phases) {
            window.push(us);
        }
        if tick.number % PUBLISH_EVERY_TICKS == 1 || self.total.samples.len() < 2 {
            stats.total.store(self.total.percentiles(&mut self.scratch));
            for (published, window) in stats.phases.iter().zip(&self.phases) {
                published.store(window.percentiles(&mut self.scratch));
            }
        }
        stats.number.store(tick.number, Ordering::Relaxed);
        stats.last_us.store(tick.elapsed_us, Ordering::Relaxed);
        stats.players_online.store(tick.players, Ordering::Relaxed);
        stats.npcs.store(tick.npcs, Ordering::Relaxed);
        stats.resources.store(tick.resources, Ordering::Relaxed);
        stats
            .ground_items
            .store(tick.ground_items, Ordering::Relaxed);
        stats
            .outbound_max
            .store(tick.outbound_max, Ordering::Relaxed);
        stats
            .outbound_total
            .store(tick.outbound_total, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(number: u64, elapsed_us: u64) -> TickFigures {
        TickFigures {
            number,
            elapsed_us,
            phases: [elapsed_us / 7; PHASES.len()],
            players: 1,
            npcs: 2,
            resources: 3,
            ground_items: 4,
            outbound_max: 5,
            outbound_total: 6,
        }
    }

    #[test]
    fn percentiles_cover_the_last_thousand_ticks() {
        let stats = TickStats::default();
        let mut recorder = TickRecorder::default();
        // 1..=100 ms, then again: the p99 of 1..=100 is 99.
        for n in 1..=200u64 {
            recorder.record(&stats, figures(n, ((n - 1) % 100 + 1) * 1000));
        }
        recorder.record(&stats, figures(201, 50_000));
        let s = stats.snapshot();
        assert_eq!(s.number, 201);
        assert_eq!(s.last_ms, 50.0);
        assert_eq!(s.p50_ms, 50.0);
        assert_eq!(s.p99_ms, 99.0);
        assert!(s.phases.iter().all(|p| p.p99_ms > 0.0));
        assert_eq!((s.outbound_max, s.outbound_total), (5, 6));
        // The window forgets: after 1,000 fast ticks the slow ones are gone.
        for n in 202..=1201u64 {
            recorder.record(&stats, figures(n, 1000));
        }
        assert_eq!(stats.snapshot().p99_ms, 1.0);
    }

    #[test]
    fn sync_replies_are_split_into_total_and_beyond_the_tick_wait_over_a_window() {
        let stats = TickStats::default();
        assert_eq!(stats.sync_replies(), SyncReplyStatus::default());
        // 1..=100 ms each, of which 40 ms waited for a tick when the reply took more than 50 ms.
        for ms in 1..=100u64 {
            let wait = if ms > 50 { 40 } else { 0 };
            stats.record_sync_reply(Duration::from_millis(ms), Duration::from_millis(wait));
        }
        let r = stats.sync_replies();
        assert_eq!(r.count, 100);
        assert_eq!((r.p50_ms, r.p99_ms), (50.0, 99.0));
        assert_eq!(r.beyond_tick_wait_p99_ms, 59.0);
        // A wait longer than the reply (clock edges) counts as nothing beyond.
        stats.record_sync_reply(Duration::from_millis(1), Duration::from_millis(5));
        // The window forgets the oldest.
        for _ in 0..SYNC_REPLY_WINDOW {
            stats.record_sync_reply(Duration::from_millis(2), Duration::ZERO);
        }
        let r = stats.sync_replies();
        assert_eq!(r.count, SYNC_REPLY_WINDOW as u64);
        assert_eq!((r.p99_ms, r.beyond_tick_wait_p99_ms), (2.0, 2.0));
    }
}
