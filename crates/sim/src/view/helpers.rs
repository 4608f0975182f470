//! The threads that share a tick's views with the world thread, kept from tick to tick.
//!
//! They are started once and parked between ticks instead of being started every tick: on two
//! busy cores a thread started anew ran its first view 1.4 ms after the tick asked for it on
//! average, and up to 4 ms (measured in the 2,000-player `mixed` crowd, whose whole view phase
//! takes ~10 ms), all of it time the world thread spent on the views alone. A parked thread is
//! woken instead.
//!
//! The work a tick hands over borrows the tick's state (the grid, the entities, the viewers), which
//! a thread that outlives the tick cannot hold by type. [`Helpers::run`] therefore hands each
//! helper a pointer to the work and neither returns nor unwinds before every helper it woke has
//! finished with it: the `unsafe` below rests on that one rule.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// The work of one run: called once with each worker's number (0 is the calling thread).
pub(crate) type Work<'a> = dyn Fn(usize) + Sync + 'a;

/// A helper's turn, as the calling thread and the helper hand it back and forth.
enum Turn {
    /// Parked, waiting for work.
    Idle,
    /// Work to do. The pointer's lifetime is erased: it is valid until the helper reports
    /// `Done`, since [`Helpers::run`] waits for that before its borrow of the work ends.
    Work(*const Work<'static>),
    /// Finished, with the panic the work ended in, if it did.
    Done(Option<Box<dyn Any + Send>>),
    /// The pool is dropped: the helper ends.
    Stop,
}

// SAFETY: the pointer in `Turn::Work` is to a `Sync` closure, dereferenced only by the helper it is
// handed to, and only while `Helpers::run` keeps the closure alive (see the module's rule).
unsafe impl Send for Turn {}

/// One helper's turn and the signal that it changed (both ways).
struct Slot {
    turn: Mutex<Turn>,
    changed: Condvar,
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, Turn> {
        // Nothing panics while holding the lock (the work runs outside it).
        self.turn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, Turn>) -> MutexGuard<'a, Turn> {
        self.changed
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }
}

struct Helper {
    slot: Arc<Slot>,
    thread: Option<JoinHandle<()>>,
}

/// Parked threads for the views of a tick, started as the first tick that needs them asks.
#[derive(Default)]
pub(crate) struct Helpers {
    helpers: Vec<Helper>,
}

impl std::fmt::Debug for Helpers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Helpers")
            .field("threads", &self.helpers.len())
            .finish()
    }
}

impl Helpers {
    /// Calls `work(0)` on this thread and `work(1)` to `work(n)` on `n` helpers at once (fewer
    /// if the system refuses a new thread: the work must not depend on how many run), and returns
    /// once every one has returned. A panic in any of them is resumed here, after all have ended.
    pub fn run(&mut self, n: usize, work: &Work<'_>) {
        self.start(n);
        let n = n.min(self.helpers.len());
        // SAFETY: only the lifetime is erased (the layouts are the same); every helper handed the
        // pointer reports `Done` before the waits below end, and they end before this borrow does,
        // whether the calling thread's own share returns or panics (it is caught).
        let shared: *const Work<'static> = unsafe { std::mem::transmute(work as *const Work<'_>) };
        for helper in &self.helpers[..n] {
            *helper.slot.lock() = Turn::Work(shared);
            helper.slot.changed.notify_all();
        }
        let mine = panic::catch_unwind(AssertUnwindSafe(|| work(0)));
        let mut theirs = None;
        for helper in &self.helpers[..n] {
            let mut turn = helper.slot.lock();
            loop {
                match std::mem::replace(&mut *turn, Turn::Idle) {
                    Turn::Done(panicked) => {
                        theirs = theirs.or(panicked);
                        break;
                    }
                    other => {
                        *turn = other;
                        turn = helper.slot.wait(turn);
                    }
                }
            }
        }
        if let Err(panicked) = mine {
            panic::resume_unwind(panicked);
        }
        if let Some(panicked) = theirs {
            panic::resume_unwind(panicked);
        }
    }

    /// How many helper threads are running.
    #[cfg(test)]
    fn started(&self) -> usize {
        self.helpers.len()
    }

    /// Starts helpers until there are `n` (or the system refuses one).
    fn start(&mut self, n: usize) {
        while self.helpers.len() < n {
            let number = self.helpers.len() + 1;
            let slot = Arc::new(Slot {
                turn: Mutex::new(Turn::Idle),
                changed: Condvar::new(),
            });
            let theirs = Arc::clone(&slot);
            let spawned = std::thread::Builder::new()
                .name(format!("view-{number}"))
                .spawn(move || serve(&theirs, number));
            match spawned {
                Ok(thread) => self.helpers.push(Helper {
                    slot,
                    thread: Some(thread),
                }),
                // The views run on the threads there are.
                Err(_) => return,
            }
        }
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        for helper in &self.helpers {
            *helper.slot.lock() = Turn::Stop;
            helper.slot.changed.notify_all();
        }
        for helper in &mut self.helpers {
            if let Some(thread) = helper.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

/// A helper's life: parked until handed work, doing it, reporting it done.
fn serve(slot: &Slot, number: usize) {
    let mut turn = slot.lock();
    loop {
        match &*turn {
            Turn::Work(work) => {
                let work = *work;
                drop(turn);
                // SAFETY: `Helpers::run` keeps the work alive until this helper reports `Done`.
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| unsafe { (*work)(number) }));
                turn = slot.lock();
                *turn = Turn::Done(outcome.err());
                slot.changed.notify_all();
            }
            Turn::Stop => return,
            Turn::Idle | Turn::Done(_) => turn = slot.wait(turn),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn each_worker_runs_once_a_run_and_the_threads_are_kept_across_runs() {
        let mut helpers = Helpers::default();
        for run in 0..200 {
            let calls: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
            helpers.run(3, &|number| {
                calls[number].fetch_add(1, Ordering::SeqCst);
            });
            let counts: Vec<usize> = calls.iter().map(|c| c.load(Ordering::SeqCst)).collect();
            assert_eq!(counts, vec![1, 1, 1, 1], "run {run}");
        }
        assert_eq!(helpers.started(), 3, "started once, not every run");
        // A run wanting fewer leaves the others parked; one wanting more starts the difference.
        let calls = AtomicUsize::new(0);
        helpers.run(1, &|_| {
            calls.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        helpers.run(5, &|_| {
            calls.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(calls.load(Ordering::SeqCst), 8);
        assert_eq!(helpers.started(), 5);
    }

    #[test]
    fn the_work_borrowed_from_the_caller_is_done_when_run_returns() {
        let mut helpers = Helpers::default();
        let mut totals = vec![0u64; 3];
        {
            let cells: Vec<Mutex<&mut u64>> = totals.iter_mut().map(Mutex::new).collect();
            helpers.run(2, &|number| {
                // Slow helpers: `run` must still wait for them.
                std::thread::sleep(std::time::Duration::from_millis(5));
                **cells[number].lock().unwrap() += number as u64 + 10;
            });
        }
        assert_eq!(totals, vec![10, 11, 12]);
    }

    #[test]
    fn a_helpers_panic_surfaces_in_the_caller_after_every_worker_ended() {
        let mut helpers = Helpers::default();
        let finished = AtomicUsize::new(0);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            helpers.run(2, &|number| {
                if number == 1 {
                    panic!("a view bug");
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
                finished.fetch_add(1, Ordering::SeqCst);
            })
        }));
        let message = outcome.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"a view bug"));
        assert_eq!(
            finished.load(Ordering::SeqCst),
            2,
            "the others ran to their end first"
        );
        // The pool still works after a panic.
        let calls = AtomicUsize::new(0);
        helpers.run(2, &|_| {
            calls.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn the_callers_own_panic_waits_for_the_helpers_too() {
        let mut helpers = Helpers::default();
        let finished = AtomicUsize::new(0);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            helpers.run(2, &|number| {
                if number == 0 {
                    panic!("the caller's share");
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
                finished.fetch_add(1, Ordering::SeqCst);
            })
        }));
        assert!(outcome.is_err());
        assert_eq!(finished.load(Ordering::SeqCst), 2);
    }
}
