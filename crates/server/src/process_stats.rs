//! The server process's own resident memory and CPU time, for `/status` and `/metrics` (the load
//! benchmark reads them). Linux reads `/proc/self`; elsewhere the figures are absent.

use std::sync::Mutex;
use std::time::Instant;

/// Clock ticks per second of `/proc/<pid>/stat` times (`sysconf(_SC_CLK_TCK)`, 100 on every Linux
/// platform we run on).
const CLOCK_TICKS_PER_SECOND: f64 = 100.0;

/// One reading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessSample {
    /// Resident set size in bytes.
    pub rss_bytes: u64,
    /// User plus system CPU time since the process started, in seconds.
    pub cpu_seconds: f64,
    /// The allocator's bytes in use and held free (`None` where it does not say).
    pub heap: Option<HeapSample>,
}

/// What the allocator holds: live allocations, and free memory kept in its arenas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeapSample {
    pub in_use_bytes: u64,
    pub free_bytes: u64,
}

/// glibc's totals over every arena (`mallinfo2` walks each arena's free lists under its lock:
/// a fraction of a millisecond, read only when `/status` or `/metrics` is).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn heap() -> Option<HeapSample> {
    // SAFETY: mallinfo2 takes no arguments and returns a plain struct; it only reads the
    // allocator's state under the allocator's own locks.
    let info = unsafe { libc::mallinfo2() };
    Some(HeapSample {
        // Small chunks (`uordblks`) and chunks mapped on their own (`hblkhd`).
        in_use_bytes: (info.uordblks + info.hblkhd) as u64,
        free_bytes: info.fordblks as u64,
    })
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap() -> Option<HeapSample> {
    None
}

/// Reads the current figures (`None` where `/proc` is not there).
pub fn sample() -> Option<ProcessSample> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    Some(ProcessSample {
        rss_bytes: parse_statm_rss_pages(&statm)? * page_size(),
        cpu_seconds: parse_stat_cpu_ticks(&stat)? as f64 / CLOCK_TICKS_PER_SECOND,
        heap: heap(),
    })
}

fn page_size() -> u64 {
    // 4 KiB on the x86-64 and aarch64 Linux machines we target.
    4096
}

/// The second field of `statm`: resident pages.
fn parse_statm_rss_pages(statm: &str) -> Option<u64> {
    statm.split_whitespace().nth(1)?.parse().ok()
}

/// `utime + stime` (fields 14 and 15) of `stat`; the command name (field 2) may hold spaces and
/// parentheses, so fields are counted after its closing parenthesis.
fn parse_stat_cpu_ticks(stat: &str) -> Option<u64> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    // After ")": field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// CPU use between successive readings, as a percentage of one core.
#[derive(Debug, Default)]
pub struct CpuMeter {
    last: Mutex<Option<(Instant, f64)>>,
}

impl CpuMeter {
    /// The CPU percentage since the previous call (`None` on the first), given a new sample.
    pub fn percent(&self, sample: &ProcessSample) -> Option<f64> {
        let now = Instant::now();
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let previous = last.replace((now, sample.cpu_seconds));
        let (then, cpu) = previous?;
        let wall = now.duration_since(then).as_secs_f64();
        (wall > 0.0).then(|| ((sample.cpu_seconds - cpu) / wall * 100.0).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read_past_a_command_name_with_spaces() {
        let stat = "1234 (my (odd) server) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 8 0 100 1000000 300";
        assert_eq!(parse_stat_cpu_ticks(stat), Some(300));
        assert_eq!(
            parse_statm_rss_pages("5000 1200 300 10 0 900 0"),
            Some(1200)
        );
        assert_eq!(parse_statm_rss_pages(""), None);
    }

    #[test]
    fn this_process_has_memory_and_cpu_time() {
        if let Some(s) = sample() {
            assert!(s.rss_bytes > 1024 * 1024, "{s:?}");
            assert!(s.cpu_seconds >= 0.0);
            // A live allocation is counted in use, and the heap is not larger than what is resident
            // plus what was never touched (nothing to assert on that side: only that it reads).
            if let Some(before) = s.heap {
                let held = vec![7u8; 4 << 20];
                let after = heap().expect("read once, readable again");
                assert!(
                    after.in_use_bytes >= before.in_use_bytes + (4 << 20) - (1 << 20),
                    "{before:?} → {after:?}"
                );
                drop(held);
            }
            let meter = CpuMeter::default();
            assert_eq!(meter.percent(&s), None);
            assert!(meter.percent(&s).is_some());
        }
    }
}
