//! The world's one inbound queue, bounded at [`INBOUND_QUEUE`](super::INBOUND_QUEUE) inputs. A
//! `std::sync::mpsc::sync_channel` of that size allocated its whole ring up front (65,536 slots
//! of a `WorldInput`: 7.3 MB), and a join storm cycles through every slot, so all of it became
//! resident: 0.7 KiB of every idle player's share at 10,000. This is the unbounded channel, which
//! holds blocks only while inputs wait, with the bound kept by a count.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::sync::Arc;
use std::time::Duration;

use super::WorldInput;

/// A new queue of at most `capacity` waiting inputs.
pub(super) fn channel(capacity: usize) -> (InboundSender, InboundReceiver) {
    let (tx, rx) = mpsc::channel();
    let waiting = Arc::new(AtomicUsize::new(0));
    (
        InboundSender {
            tx,
            waiting: Arc::clone(&waiting),
            capacity,
        },
        InboundReceiver { rx, waiting },
    )
}

/// A sending end; clone it for every sender.
#[derive(Clone)]
pub(super) struct InboundSender {
    tx: mpsc::Sender<WorldInput>,
    waiting: Arc<AtomicUsize>,
    capacity: usize,
}

impl InboundSender {
    /// Queues without waiting; `false` when `capacity` inputs wait or the world has stopped.
    pub(super) fn try_send(&self, input: WorldInput) -> bool {
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.capacity {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        if self.tx.send(input).is_err() {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        true
    }
}

/// The world thread's end.
pub(super) struct InboundReceiver {
    rx: mpsc::Receiver<WorldInput>,
    waiting: Arc<AtomicUsize>,
}

impl InboundReceiver {
    pub(super) fn try_recv(&self) -> Result<WorldInput, TryRecvError> {
        self.rx.try_recv().inspect(|_| self.taken())
    }

    pub(super) fn recv_timeout(&self, wait: Duration) -> Result<WorldInput, RecvTimeoutError> {
        self.rx.recv_timeout(wait).inspect(|_| self.taken())
    }

    fn taken(&self) {
        self.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> WorldInput {
        WorldInput::Sim(wayfarer_sim::Command::Stop { id: "c1".into() })
    }

    #[test]
    fn the_bound_refuses_the_first_input_over_it_and_frees_a_place_per_input_taken() {
        let (tx, rx) = channel(3);
        assert!(tx.try_send(input()) && tx.clone().try_send(input()) && tx.try_send(input()));
        assert!(!tx.try_send(input()), "the fourth is refused");
        assert!(rx.try_recv().is_ok());
        assert!(tx.try_send(input()), "one taken, one place");
        assert!(!tx.try_send(input()));
        for _ in 0..3 {
            assert!(rx.recv_timeout(Duration::from_millis(1)).is_ok());
        }
        assert!(matches!(rx.try_recv(), Err(TryRecvError::Empty)));
        drop(rx);
        assert!(!tx.try_send(input()), "a stopped world takes nothing");
    }
}
