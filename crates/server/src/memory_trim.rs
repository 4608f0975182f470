//! Giving the allocator's slack back after a join storm. Thousands of joins in a few seconds
//! allocate transient buffers (the first views and entry messages, the HTTP requests that
//! created the accounts, the save batches) on several threads; glibc keeps the freed pages in its
//! arenas, so resident memory after the storm stays about 2 KiB a player above what is live
//! (BENCHMARKS.md, issue 33). Once the joins stop, `malloc_trim(0)` returns every whole free page
//! of every arena to the system.
//!
//! Only after a burst that has settled: trimming during steady play would free pages that the
//! next ticks allocate again (measured with 1,000 agents: 15 MiB given back returned within 30 s),
//! and the trim holds each arena's lock while it walks it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Connections opened since the process started.
static CONNECTIONS: AtomicU64 = AtomicU64::new(0);

/// How often the burst is looked at.
pub const CHECK_EVERY: Duration = Duration::from_secs(5);

/// The joins since the last trim that make a burst worth trimming after.
pub const BURST_JOINS: u64 = 500;

/// Counts a connection that is entering the world.
pub fn note_connection() {
    CONNECTIONS.fetch_add(1, Ordering::Relaxed);
}

/// When to trim: after at least [`BURST_JOINS`] joins since the last trim, at the first check
/// that saw no join since the one before.
#[derive(Debug, Default)]
pub struct BurstWatch {
    seen_at_last_check: u64,
    seen_at_last_trim: u64,
}

impl BurstWatch {
    /// Given the connections counted so far, whether to trim now (and if so, the trim is noted).
    pub fn check(&mut self, seen: u64) -> bool {
        let quiet = seen == self.seen_at_last_check;
        self.seen_at_last_check = seen;
        if quiet && seen.saturating_sub(self.seen_at_last_trim) >= BURST_JOINS {
            self.seen_at_last_trim = seen;
            true
        } else {
            false
        }
    }
}

/// Watches the joins for the life of the process and trims after each settled burst.
pub async fn run() {
    let mut watch = BurstWatch::default();
    let mut every = tokio::time::interval(CHECK_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if watch.check(CONNECTIONS.load(Ordering::Relaxed)) {
            // Off the runtime's workers: a trim of a large heap takes milliseconds.
            let _ = tokio::task::spawn_blocking(trim).await;
        }
    }
}

/// Returns the allocator's free pages to the system and logs what it gave back.
fn trim() {
    let before = crate::process_stats::sample().map(|s| s.rss_bytes);
    let started = Instant::now();
    let released = release_free_pages();
    let after = crate::process_stats::sample().map(|s| s.rss_bytes);
    tracing::info!(
        released,
        rss_before = before,
        rss_after = after,
        took_ms = started.elapsed().as_secs_f64() * 1000.0,
        "allocator trimmed after a join burst"
    );
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_free_pages() -> bool {
    // SAFETY: `malloc_trim` only walks glibc's own arenas under their locks; it has no
    // preconditions on the caller.
    unsafe { libc::malloc_trim(0) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_pages() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_once_a_burst_has_settled() {
        let mut watch = BurstWatch::default();
        // Joining: no trim while the count still moves.
        assert!(!watch.check(200));
        assert!(!watch.check(BURST_JOINS + 10));
        // Settled: one trim.
        assert!(watch.check(BURST_JOINS + 10));
        // Still quiet: no second trim.
        assert!(!watch.check(BURST_JOINS + 10));
    }

    #[test]
    fn a_burst_is_at_least_burst_joins() {
        let mut watch = BurstWatch::default();
        // The last too few: never.
        assert!(!watch.check(BURST_JOINS - 1));
        assert!(!watch.check(BURST_JOINS - 1));
        // The first enough: once settled.
        assert!(!watch.check(BURST_JOINS));
        assert!(watch.check(BURST_JOINS));
        // A later burst counts from the last trim.
        assert!(!watch.check(2 * BURST_JOINS - 1));
        assert!(!watch.check(2 * BURST_JOINS - 1));
        assert!(!watch.check(2 * BURST_JOINS));
        assert!(watch.check(2 * BURST_JOINS));
    }
}
