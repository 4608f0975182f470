//! Scheduling priority of the server's threads. The world thread is the one whose lateness players
//! feel (every tick waits for it); the async runtime's threads (sockets, HTTP, JSON encoding) carry
//! more total work but none of it is due at a fixed time. So the runtime's threads run a few steps
//! nicer than the world thread: when the cores are busy, the tick is not preempted by the work it
//! just handed out. Lowering a thread's priority needs no privileges; raising one would.
//!
//! Where the process may (`CAP_SYS_NICE`, or root), the world thread also asks for the lowest
//! real-time priority ([`make_current_thread_realtime`], `WORLD_THREAD_REALTIME`): niceness only
//! sets shares, and a 2,000-player crowd's tick was cut into ~1 ms slices by every thread that
//! woke on the machine (the runtime's, reading the players' messages, and any other process):
//! 2-9 ms of waiting in one tick of four (BENCHMARKS.md, "the world thread's core").

/// Makes the calling thread a batch thread (`SCHED_BATCH`, its niceness kept): the kernel never
/// lets a batch thread preempt a running one on waking (that is left to the scheduler's tick), so
/// the world thread can wake it at the end of a tick without giving up its core. Only for a thread
/// whose work can wait a few milliseconds: the runtime's threads under it took every wake-up race
/// against the load generator and the 10,000-player join's connect p99 went from 86 ms to 1.4 s
/// (BENCHMARKS.md, "the hand-offs at the end of a tick"). Best effort, as below.
pub fn make_current_thread_batch() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sets the calling thread's policy (pid 0 = the caller) from a parameter that
        // lives across the call.
        let result = unsafe {
            let param = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_BATCH, &param)
        };
        if result != 0 {
            tracing::debug!(error = %std::io::Error::last_os_error(), "could not make a thread a batch thread");
        }
    }
}

/// The lowest real-time priority (`SCHED_FIFO`, 1): above every ordinary thread, below the
/// kernel's own real-time threads.
pub const WORLD_THREAD_RT_PRIORITY: i32 = 1;

/// Makes the calling thread a real-time thread (`SCHED_FIFO` at [`WORLD_THREAD_RT_PRIORITY`]):
/// no ordinary thread preempts it, so a tick runs on its core from start to end, and the threads
/// it starts (the view helpers) inherit the policy and start at once on the other core instead of
/// waiting for a time slice. Only for a thread that sleeps between short bursts of work, as the
/// world thread does between ticks: a real-time thread that never slept would starve its core
/// (the kernel still leaves ordinary threads 5 % of each second). Best effort: without the
/// privilege the thread keeps its policy, and whether it got it is returned and logged.
pub fn make_current_thread_realtime() -> Result<(), std::io::Error> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sets the calling thread's policy (pid 0 = the caller) from a parameter that
        // lives across the call.
        let result = unsafe {
            let param = libc::sched_param {
                sched_priority: WORLD_THREAD_RT_PRIORITY,
            };
            libc::sched_setscheduler(0, libc::SCHED_FIFO, &param)
        };
        if result != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "real-time scheduling is only asked for on Linux",
    ))
}

/// Niceness added to each async runtime thread.
pub const RUNTIME_NICENESS: i32 = 5;

/// Makes the calling thread `by` steps nicer (lower priority). Best effort: on failure, or off
/// Linux, the thread keeps its priority and the reason is logged.
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
    fn a_real_time_thread_passes_its_policy_to_the_threads_it_starts_or_keeps_its_own() {
        // SAFETY: reads the calling thread's scheduling policy and priority.
        let policy = || unsafe {
            let mut param = libc::sched_param { sched_priority: 0 };
            libc::sched_getparam(0, &mut param);
            (libc::sched_getscheduler(0), param.sched_priority)
        };
        let main_before = policy();
        let (asked, mine, helper) = std::thread::spawn(move || {
            let asked = make_current_thread_realtime();
            // As a tick's view helpers are started: a plain spawn from the world thread.
            let helper = std::thread::scope(|scope| scope.spawn(policy).join().unwrap());
            (asked, policy(), helper)
        })
        .join()
        .unwrap();
        match asked {
            Ok(()) => {
                assert_eq!(mine, (libc::SCHED_FIFO, WORLD_THREAD_RT_PRIORITY));
                assert_eq!(
                    helper, mine,
                    "the view helpers run at the world thread's priority"
                );
            }
            // Without the privilege nothing changes, and the caller is told why.
            Err(error) => {
                assert_eq!(error.raw_os_error(), Some(libc::EPERM), "{error}");
                assert_eq!(mine, main_before);
                assert_eq!(helper, main_before);
            }
        }
        assert_eq!(policy(), main_before, "other threads keep theirs");
    }

    #[test]
    fn a_batch_thread_keeps_its_niceness_and_no_other_thread_changes() {
        // SAFETY: reads the calling thread's scheduling policy.
        let policy = || unsafe { libc::sched_getscheduler(0) };
        let main_before = (niceness(), policy());
        let (nice_before, nice_after, policy_after) = std::thread::spawn(move || {
            lower_current_thread(RUNTIME_NICENESS);
            let before = niceness();
            make_current_thread_batch();
            (before, niceness(), policy())
        })
        .join()
        .unwrap();
        assert_eq!(policy_after, libc::SCHED_BATCH);
        assert_eq!(
            nice_after, nice_before,
            "the batch policy keeps the niceness"
        );
        assert_eq!(
            (niceness(), policy()),
            main_before,
            "other threads keep theirs"
        );
    }
}
