//! Scheduling priority of the server's threads. The world thread is the one whose lateness players
//! feel (every tick waits for it); the async runtime's threads (sockets, HTTP, JSON encoding) carry
//! more total work but none of it is due at a fixed time. So the runtime's threads run a few steps
//! nicer than the world thread: when the cores are busy, the tick is not preempted by the work it
//! just handed out. Lowering a thread's priority needs no privileges; raising one needs
//! `CAP_SYS_NICE` (or an `RLIMIT_NICE` that allows it), so the world thread asks to be raised and
//! keeps its priority when refused.

/// Niceness added to each async runtime thread.
pub const RUNTIME_NICENESS: i32 = 5;

/// Niceness the world thread asks for (its view threads, started from it, inherit it): ahead of
/// whatever else shares the machine's cores at the default 0 (a database, a load generator, other
/// services). On two cores with the load generator beside it, a 2,000-player crowd's tick lost
/// a core to the generator's threads for milliseconds at a time (BENCHMARKS.md, issue 33).
pub const WORLD_THREAD_NICENESS: i32 = -5;

/// Makes the calling thread `by` steps nicer (lower priority). Best effort: on failure, or off
/// Linux, the thread keeps its priority and the reason is logged.
pub fn lower_current_thread(by: i32) {
    if let Err(error) = renice_current_thread(|current| (current + by).min(19)) {
        tracing::debug!(%error, "could not lower a runtime thread's priority");
    }
}

/// Gives the calling thread (the world thread) [`WORLD_THREAD_NICENESS`]. Best effort: without
/// the privilege to raise a priority the thread keeps its own, and says so once in the log.
pub fn raise_world_thread() {
    match renice_current_thread(|_| WORLD_THREAD_NICENESS) {
        Ok(niceness) => tracing::info!(niceness, "world thread priority raised"),
        Err(error) => tracing::info!(
            %error,
            "world thread keeps its priority (raising it needs CAP_SYS_NICE or RLIMIT_NICE)"
        ),
    }
}

/// Sets the calling thread's niceness to `to(current)`, returning the niceness it then has.
fn renice_current_thread(to: impl FnOnce(i32) -> i32) -> std::io::Result<i32> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain system calls on the calling thread's id; no memory is shared with them.
        // On Linux, PRIO_PROCESS with a thread id sets that thread's niceness alone.
        unsafe {
            let tid = libc::gettid() as libc::id_t;
            *libc::__errno_location() = 0;
            let current = libc::getpriority(libc::PRIO_PROCESS, tid);
            if current == -1 && *libc::__errno_location() != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let wanted = to(current);
            if libc::setpriority(libc::PRIO_PROCESS, tid, wanted) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(wanted)
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = to;
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "thread priorities are set on Linux only",
        ))
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn niceness() -> i32 {
        // SAFETY: reads the calling thread's niceness.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
    }

    #[test]
    fn lowers_only_the_calling_thread() {
        let main_before = niceness();
        let (before, after) = std::thread::spawn(|| {
            let before = niceness();
            lower_current_thread(RUNTIME_NICENESS);
            (before, niceness())
        })
        .join()
        .unwrap();
        assert_eq!(after, (before + RUNTIME_NICENESS).min(19));
        assert_eq!(niceness(), main_before, "other threads keep theirs");
    }

    #[test]
    fn the_world_thread_is_raised_when_allowed_and_kept_as_it_is_when_not() {
        let (before, result, after) = std::thread::spawn(|| {
            let before = niceness();
            let result = renice_current_thread(|_| WORLD_THREAD_NICENESS);
            (before, result, niceness())
        })
        .join()
        .unwrap();
        match result {
            Ok(niceness) => {
                assert_eq!(niceness, WORLD_THREAD_NICENESS);
                assert_eq!(after, WORLD_THREAD_NICENESS);
            }
            Err(error) => {
                assert_eq!(
                    error.kind(),
                    std::io::ErrorKind::PermissionDenied,
                    "{error}"
                );
                assert_eq!(after, before, "refused: the thread keeps its priority");
            }
        }
    }
}
