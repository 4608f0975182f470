//! Scheduling priority of the server's threads. The world thread is the one whose lateness players
//! feel (every tick waits for it); the async runtime's threads (sockets, HTTP, JSON encoding) carry
//! more total work but none of it is due at a fixed time. So the runtime's threads run a few steps
//! nicer than the world thread, and under Linux's batch policy (`SCHED_BATCH`): a thread woken
//! under that policy never preempts the thread running on its core, it waits for the core's next
//! turn. Niceness alone does not stop that: in the 2,000-player `mixed` crowd on two cores, each
//! hand-over from the world thread to the runtime (waking the connections, a save) stopped the tick
//! for 1.5-7 ms in one tick of three, and the world thread waited ~1.2 ms a tick for a core during
//! its dispatch; with the batch policy those waits fell to ~0.2 ms. Lowering a thread's priority
//! and choosing the batch policy need no privileges; raising a priority would.

/// Niceness added to each async runtime thread.
pub const RUNTIME_NICENESS: i32 = 5;

/// Makes the calling thread `by` steps nicer (lower priority) and puts it under the batch policy
/// (see the module). Best effort: on failure, or off Linux, the thread keeps its priority or
/// policy and the reason is logged.
pub fn lower_current_thread(by: i32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain system calls on the calling thread's id; no memory is shared with them.
        // On Linux, PRIO_PROCESS with a thread id sets that thread's niceness alone.
        let result = unsafe {
            let tid = libc::gettid() as libc::id_t;
            *libc::__errno_location() = 0;
            let current = libc::getpriority(libc::PRIO_PROCESS, tid);
            if current == -1 && *libc::__errno_location() != 0 {
                -1
            } else {
                libc::setpriority(libc::PRIO_PROCESS, tid, (current + by).min(19))
            }
        };
        if result != 0 {
            tracing::debug!(error = %std::io::Error::last_os_error(), "could not lower a runtime thread's priority");
        }
        // SAFETY: a plain system call on the calling thread (pid 0), with a parameter it only reads.
        let result = unsafe {
            let param = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_BATCH, &param)
        };
        if result != 0 {
            tracing::debug!(error = %std::io::Error::last_os_error(), "could not put a runtime thread under the batch policy");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = by;
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn niceness() -> i32 {
        // SAFETY: reads the calling thread's niceness.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
    }

    fn policy() -> i32 {
        // SAFETY: reads the calling thread's scheduling policy.
        unsafe { libc::sched_getscheduler(0) }
    }

    #[test]
    fn lowers_only_the_calling_thread() {
        let main_before = (niceness(), policy());
        let (before, after, batch) = std::thread::spawn(|| {
            let before = niceness();
            lower_current_thread(RUNTIME_NICENESS);
            (before, niceness(), policy())
        })
        .join()
        .unwrap();
        assert_eq!(after, (before + RUNTIME_NICENESS).min(19));
        assert_eq!(
            batch,
            libc::SCHED_BATCH,
            "woken, it waits for its core's turn"
        );
        assert_eq!(
            (niceness(), policy()),
            main_before,
            "other threads keep theirs"
        );
    }
}
