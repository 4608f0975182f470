//! The tick figures the world thread publishes for HTTP (`/status`, `/api/v1/world`) and the
//! benchmarks: tick time percentiles overall and per phase, entity counts, outbound queue depths.
//! Written with relaxed atomics by the world thread, read without locks by handlers, so a slow
//! reader can never hold up a tick.

use std::sync::atomic::{AtomicU64, Ordering};

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
        if self.samples.is_empty() {
            return [0; 3];
        }
        scratch.clear();
        scratch.extend_from_slice(&self.samples);
        scratch.sort_unstable();
        let rank = |p: usize| scratch[(scratch.len() * p).div_ceil(100).saturating_sub(1)];
        [rank(50), rank(95), rank(99)]
    }
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
}
