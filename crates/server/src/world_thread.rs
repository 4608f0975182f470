//! The world thread: advances the sim every `TICK_MS` on a dedicated OS thread (never on the async
//! runtime), with drift correction, and publishes its timings through atomics that `/status` and
//! `/metrics` read without taking any lock the tick holds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use wayfarer_sim::World;

/// How many recent ticks the p99 is computed over (10 minutes at 600 ms).
const TICK_WINDOW: usize = 1_000;

/// Tick figures shared with HTTP handlers.
#[derive(Debug, Default)]
pub struct TickStats {
    number: AtomicU64,
    last_us: AtomicU64,
    p99_us: AtomicU64,
    players_online: AtomicU64,
    late_ticks: AtomicU64,
}

/// A consistent-enough copy of the tick figures for one response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TickSnapshot {
    pub number: u64,
    pub last_ms: f64,
    pub p99_ms: f64,
    pub players_online: u64,
    pub late_ticks: u64,
}

impl TickStats {
    /// Reads the current figures.
    pub fn snapshot(&self) -> TickSnapshot {
        TickSnapshot {
            number: self.number.load(Ordering::Relaxed),
            last_ms: self.last_us.load(Ordering::Relaxed) as f64 / 1000.0,
            p99_ms: self.p99_us.load(Ordering::Relaxed) as f64 / 1000.0,
            players_online: self.players_online.load(Ordering::Relaxed),
            late_ticks: self.late_ticks.load(Ordering::Relaxed),
        }
    }
}

/// The running world thread; dropping it without [`WorldThread::stop`] also stops it.
pub struct WorldThread {
    stats: Arc<TickStats>,
    stop_tx: Option<mpsc::Sender<()>>,
    join: Option<JoinHandle<World>>,
}

impl WorldThread {
    /// Starts ticking `world` every `tick`.
    pub fn spawn(world: World, tick: Duration) -> std::io::Result<WorldThread> {
        let stats = Arc::new(TickStats::default());
        let (stop_tx, stop_rx) = mpsc::channel();
        let thread_stats = stats.clone();
        let join = std::thread::Builder::new()
            .name("world".into())
            .spawn(move || run(world, tick, &thread_stats, &stop_rx))?;
        Ok(WorldThread {
            stats,
            stop_tx: Some(stop_tx),
            join: Some(join),
        })
    }

    /// The shared tick figures.
    pub fn stats(&self) -> Arc<TickStats> {
        self.stats.clone()
    }

    /// Stops after the current tick and hands back the world.
    pub fn stop(mut self) -> Option<World> {
        self.stop_inner()
    }

    fn stop_inner(&mut self) -> Option<World> {
        drop(self.stop_tx.take());
        self.join.take().and_then(|j| j.join().ok())
    }
}

impl Drop for WorldThread {
    fn drop(&mut self) {
        self.stop_inner();
    }
}

fn run(mut world: World, tick: Duration, stats: &TickStats, stop_rx: &mpsc::Receiver<()>) -> World {
    // A ring of the latest tick times; `next_slot` is where the next one goes.
    let mut recent_us: Vec<u64> = Vec::with_capacity(TICK_WINDOW);
    let mut next_slot = 0;
    let mut scratch: Vec<u64> = Vec::with_capacity(TICK_WINDOW);
    let mut next_deadline = Instant::now() + tick;
    tracing::info!(tick_ms = tick.as_millis() as u64, "world thread started");
    loop {
        // Sleeping on the stop channel wakes us at once on shutdown.
        let wait = next_deadline.saturating_duration_since(Instant::now());
        match stop_rx.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
        }
        let started = Instant::now();
        world.tick();
        let elapsed = started.elapsed();
        let elapsed_us = elapsed.as_micros() as u64;

        if recent_us.len() < TICK_WINDOW {
            recent_us.push(elapsed_us);
        } else {
            recent_us[next_slot] = elapsed_us;
        }
        next_slot = (next_slot + 1) % TICK_WINDOW;
        scratch.clear();
        scratch.extend_from_slice(&recent_us);
        let p99_index = (scratch.len() * 99).div_ceil(100).saturating_sub(1);
        let (_, p99, _) = scratch.select_nth_unstable(p99_index);

        stats.number.store(world.tick_number(), Ordering::Relaxed);
        stats.last_us.store(elapsed_us, Ordering::Relaxed);
        stats.p99_us.store(*p99, Ordering::Relaxed);
        metrics::histogram!("tick_duration_ms").record(elapsed.as_secs_f64() * 1000.0);
        metrics::gauge!("tick_number").set(world.tick_number() as f64);

        // Drift correction: the schedule advances by whole ticks from its start. A tick that starts
        // more than a tick late is logged and the schedule re-based on now, so a stall never turns
        // into a burst of catch-up ticks.
        next_deadline += tick;
        let now = Instant::now();
        if now > next_deadline {
            let late_by = now - next_deadline;
            stats.late_ticks.fetch_add(1, Ordering::Relaxed);
            metrics::counter!("tick_late_total").increment(1);
            tracing::warn!(
                tick = world.tick_number(),
                late_ms = late_by.as_millis() as u64,
                tick_ms = elapsed.as_millis() as u64,
                "late tick: schedule re-based"
            );
            next_deadline = now + tick;
        }
    }
    tracing::info!(tick = world.tick_number(), "world thread stopped");
    world
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_advance_at_the_configured_rate_and_stop_promptly() {
        let thread = WorldThread::spawn(World::new(), Duration::from_millis(10)).unwrap();
        let stats = thread.stats();
        let deadline = Instant::now() + Duration::from_secs(5);
        while stats.snapshot().number < 5 {
            assert!(Instant::now() < deadline, "ticks did not advance");
            std::thread::sleep(Duration::from_millis(5));
        }
        let stopped_at = Instant::now();
        let world = thread.stop().unwrap();
        assert!(stopped_at.elapsed() < Duration::from_secs(1));
        assert!(world.tick_number() >= 5);
    }
}
