//! Giving the allocator's slack back after a join storm. Thousands of joins in a few seconds
//! allocate transient buffers (the first views and entry messages, the HTTP requests that
//! created the accounts, the save batches) on several threads; glibc keeps the freed pages in its
//! arenas, so resident memory after the storm stays about 2 KiB a player above what is live
//! (BENCHMARKS.md, issue 33). Once the joins stop, `malloc_trim(0)` returns every whole free page
//! of every arena to the system.
//!
//! After a burst that has settled, and when the resident slack has grown: steady play slowly
//! scatters free chunks over glibc's arenas (one per thread that allocates, 11 for 9 threads in
//! the soak), so resident memory climbed 10 % in 30 minutes of the 2,000 `mixed` crowd while the
//! live bytes stayed flat (BENCHMARKS.md, the soak of 2026-12-06). Not on a timer alone: trimming
//! during steady play frees pages that the next ticks allocate again (measured with 1,000 agents:
//! 15 MiB given back returned within 30 s), and the trim holds each arena's lock while it walks
//! it; so at most once a [`SLACK_CHECK_EVERY`], and only past [`SLACK_GROWTH_BYTES`] (or a tenth
//! of the live bytes) more resident slack than the last trim left.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Connections opened since the process started.
static CONNECTIONS: AtomicU64 = AtomicU64::new(0);

/// How often the burst is looked at.
pub const CHECK_EVERY: Duration = Duration::from_secs(5);

/// The joins since the last trim that make a burst worth trimming after.
pub const BURST_JOINS: u64 = 500;

/// How often the resident slack is looked at.
pub const SLACK_CHECK_EVERY: Duration = Duration::from_secs(60);

/// Growth of the resident slack (resident bytes the allocator's live bytes do not explain) since
/// the last trim that makes a trim worth its arena walk.
pub const SLACK_GROWTH_BYTES: u64 = 8 << 20;

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

/// When the resident slack calls for a trim: it grew past [`SLACK_GROWTH_BYTES`] (or a tenth of
/// the live bytes, whichever is more) over what the last trim left, or over the first reading.
#[derive(Debug, Default)]
pub struct SlackWatch {
    baseline: Option<u64>,
}

impl SlackWatch {
    /// Given resident and live bytes now, whether to trim.
    pub fn check(&mut self, rss: u64, live: u64) -> bool {
        let slack = rss.saturating_sub(live);
        match self.baseline {
            None => {
                self.baseline = Some(slack);
                false
            }
            Some(base) => slack > base + SLACK_GROWTH_BYTES.max(live / 10),
        }
    }

    /// A trim left `rss` resident beside `live` bytes: the new baseline.
    pub fn trimmed(&mut self, rss: u64, live: u64) {
        self.baseline = Some(rss.saturating_sub(live));
    }
}

/// Resident and live bytes now, where the platform says both.
fn resident_and_live() -> Option<(u64, u64)> {
    let sample = crate::process_stats::sample()?;
    Some((sample.rss_bytes, sample.heap?.in_use_bytes))
}

/// Watches the joins and the resident slack for the life of the process, and trims after each
/// settled burst and when the slack has grown.
pub async fn run() {
    let mut bursts = BurstWatch::default();
    let mut slack = SlackWatch::default();
    let mut every = tokio::time::interval(CHECK_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let slack_every = (SLACK_CHECK_EVERY.as_secs() / CHECK_EVERY.as_secs()).max(1);
    for check in 1u64.. {
        every.tick().await;
        let reason = if bursts.check(CONNECTIONS.load(Ordering::Relaxed)) {
            Some("after a join burst")
        } else if check % slack_every == 0
            && resident_and_live().is_some_and(|(rss, live)| slack.check(rss, live))
        {
            Some("resident slack grew")
        } else {
            None
        };
        if let Some(reason) = reason {
            // Off the runtime's workers: a trim of a large heap takes milliseconds.
            let _ = tokio::task::spawn_blocking(move || trim(reason)).await;
            if let Some((rss, live)) = resident_and_live() {
                slack.trimmed(rss, live);
            }
        }
    }
}

/// Returns the allocator's free pages to the system and logs what it gave back.
fn trim(reason: &'static str) {
    let before = crate::process_stats::sample().map(|s| s.rss_bytes);
    let started = Instant::now();
    let released = release_free_pages();
    let after = crate::process_stats::sample().map(|s| s.rss_bytes);
    metrics::counter!("memory_trims_total", "reason" => reason).increment(1);
    tracing::info!(
        reason,
        released,
        rss_before = before,
        rss_after = after,
        took_ms = started.elapsed().as_secs_f64() * 1000.0,
        "allocator trimmed"
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
    fn slack_trims_past_its_growth_and_counts_from_the_last_trim() {
        const MIB: u64 = 1 << 20;
        let mut watch = SlackWatch::default();
        // The first reading is the baseline: 20 MiB of slack beside 50 MiB live.
        assert!(!watch.check(70 * MIB, 50 * MIB));
        // Up to the growth allowed: no trim; one byte past it: a trim.
        assert!(!watch.check(70 * MIB + SLACK_GROWTH_BYTES, 50 * MIB));
        assert!(watch.check(70 * MIB + SLACK_GROWTH_BYTES + 1, 50 * MIB));
        // The trim left 22 MiB of slack: growth counts from there.
        watch.trimmed(72 * MIB, 50 * MIB);
        assert!(!watch.check(72 * MIB + SLACK_GROWTH_BYTES, 50 * MIB));
        assert!(watch.check(72 * MIB + SLACK_GROWTH_BYTES + 1, 50 * MIB));
        // A large heap allows a tenth of its live bytes: 20 MiB for 200 MiB live.
        let mut big = SlackWatch::default();
        assert!(!big.check(250 * MIB, 200 * MIB));
        assert!(!big.check(270 * MIB, 200 * MIB));
        assert!(big.check(270 * MIB + 1, 200 * MIB));
        // Live bytes growing is not slack.
        assert!(!big.check(400 * MIB, 350 * MIB));
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
