//! Each connection's outbound queue: the world thread pushes without waiting, the connection's task
//! awaits. A bounded tokio mpsc channel did this, but it allocates a 32-slot block up front and pads
//! its state to cache lines: 1,568 bytes for every idle player (heaptrack, 3,000 idle players). This
//! queue is one small shared allocation plus a `VecDeque` that holds room only while something is
//! waiting.
//!
//! One sender (the world thread's record) and one receiver (the connection task). Like the mpsc
//! channel: a full queue refuses (the world thread then drops the slow client), a queue whose
//! receiver is gone refuses as closed, and the receiver gets what is left and then `None` once the
//! sender is gone.
//!
//! The oldest message waits in a slot of its own, outside the `VecDeque`: a connection that keeps
//! up has at most one batch waiting (the tick's), so its queue never allocates. Through the
//! `VecDeque` alone, each tick's batch to each player allocated the deque's room on the world
//! thread and freed it on the socket's: 2,000 of each a tick in a crowd, inside the dispatch.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

use crate::world_thread::{Outbound, OUTBOUND_QUEUE};

/// Why [`OutboundSender::try_send`] refused a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrySendError {
    /// [`OUTBOUND_QUEUE`] messages are waiting.
    Full,
    /// The receiver is gone (the connection is leaving).
    Closed,
}

struct Shared {
    state: Mutex<State>,
    /// Wakes the receiver; `notify_one` keeps a permit when it is not waiting, so a push between
    /// its check of the queue and its wait is not missed.
    wake: Notify,
}

#[derive(Default)]
struct State {
    /// The oldest message waiting; `None` only when nothing waits.
    first: Option<Outbound>,
    /// The messages after `first`, in order.
    rest: VecDeque<Outbound>,
    sender_gone: bool,
    receiver_gone: bool,
}

impl State {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    fn push(&mut self, message: Outbound) {
        if self.first.is_none() {
            self.first = Some(message);
        } else {
            self.rest.push_back(message);
        }
    }

    fn pop(&mut self) -> Option<Outbound> {
        let message = self.first.take()?;
        self.first = self.rest.pop_front();
        if self.rest.is_empty() && self.rest.capacity() > 0 {
            // An idle connection keeps no room (its last burst's would stay otherwise).
            self.rest = VecDeque::new();
        }
        Some(message)
    }

    /// Frees every waiting message.
    fn clear(&mut self) {
        self.first = None;
        self.rest = VecDeque::new();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The world thread's end.
pub struct OutboundSender {
    shared: Arc<Shared>,
}

/// Wakes one queue's receiver (see [`OutboundSender::try_send_unwoken`]).
pub struct OutboundWaker {
    shared: Arc<Shared>,
}

impl OutboundWaker {
    /// Wakes the receiver if it waits; else its next receive goes straight through.
    pub fn wake(&self) {
        self.shared.wake.notify_one();
    }
}

/// The connection task's end.
pub struct OutboundReceiver {
    shared: Arc<Shared>,
}

/// A new, empty queue of at most [`OUTBOUND_QUEUE`] messages.
pub fn channel() -> (OutboundSender, OutboundReceiver) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State::default()),
        wake: Notify::new(),
    });
    (
        OutboundSender {
            shared: shared.clone(),
        },
        OutboundReceiver { shared },
    )
}

impl OutboundSender {
    /// Queues `message` without waiting.
    pub fn try_send(&self, message: Outbound) -> Result<(), TrySendError> {
        self.try_send_unwoken(message)?;
        self.shared.wake.notify_one();
        Ok(())
    }

    /// Queues `message` like [`Self::try_send`] but leaves waking the receiver to
    /// [`OutboundWaker::wake`]: the world thread queues a whole tick's batches, in order, and
    /// hands the wake-ups to its waking thread (each one goes through the runtime's shared queue
    /// and often a futex call, ~2,000 of them a tick in a crowd: not work for the world thread).
    /// A receiver that is not waiting sees the message at its next receive either way.
    pub fn try_send_unwoken(&self, message: Outbound) -> Result<(), TrySendError> {
        let mut state = self.shared.lock();
        if state.receiver_gone {
            return Err(TrySendError::Closed);
        }
        if state.len() >= OUTBOUND_QUEUE {
            return Err(TrySendError::Full);
        }
        state.push(message);
        Ok(())
    }

    /// What wakes this queue's receiver later (see [`Self::try_send_unwoken`]).
    pub fn waker(&self) -> OutboundWaker {
        OutboundWaker {
            shared: self.shared.clone(),
        }
    }

    /// Messages waiting.
    pub fn len(&self) -> usize {
        self.shared.lock().len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for OutboundSender {
    fn drop(&mut self) {
        self.shared.lock().sender_gone = true;
        self.shared.wake.notify_one();
    }
}

impl OutboundReceiver {
    /// The next message; `None` once the sender is gone and nothing is left. Cancel-safe: a message
    /// is taken only when it is returned.
    pub async fn recv(&mut self) -> Option<Outbound> {
        loop {
            {
                let mut state = self.shared.lock();
                if let Some(message) = state.pop() {
                    return Some(message);
                }
                if state.sender_gone {
                    return None;
                }
            }
            self.shared.wake.notified().await;
        }
    }
}

impl Drop for OutboundReceiver {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.receiver_gone = true;
        // What the connection will never send is freed now, not when the world drops its record.
        state.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Outbound {
        Outbound::Text(Arc::from(s))
    }

    fn as_text(message: Option<Outbound>) -> Option<String> {
        match message {
            Some(Outbound::Text(t)) => Some(t.to_string()),
            Some(other) => panic!("unexpected {other:?}"),
            None => None,
        }
    }

    #[tokio::test]
    async fn messages_arrive_in_order_then_none_once_the_sender_is_gone() {
        let (tx, mut rx) = channel();
        tx.try_send(text("a")).unwrap();
        tx.try_send(text("b")).unwrap();
        assert_eq!(tx.len(), 2);
        drop(tx);
        assert_eq!(as_text(rx.recv().await).as_deref(), Some("a"));
        assert_eq!(as_text(rx.recv().await).as_deref(), Some("b"));
        assert_eq!(as_text(rx.recv().await), None);
    }

    #[tokio::test]
    async fn order_holds_across_the_first_slot_and_a_drained_queue_keeps_no_room() {
        let (tx, mut rx) = channel();
        // One message at a time: the first slot alone, no room taken.
        tx.try_send(text("a")).unwrap();
        assert_eq!(rx.shared.lock().rest.capacity(), 0);
        assert_eq!(as_text(rx.recv().await).as_deref(), Some("a"));
        // Sends and receives interleaved across the slot and the rest.
        for s in ["b", "c", "d"] {
            tx.try_send(text(s)).unwrap();
        }
        assert_eq!(as_text(rx.recv().await).as_deref(), Some("b"));
        tx.try_send(text("e")).unwrap();
        assert_eq!(tx.len(), 3);
        for s in ["c", "d", "e"] {
            assert_eq!(as_text(rx.recv().await).as_deref(), Some(s));
        }
        assert!(tx.is_empty());
        assert_eq!(rx.shared.lock().rest.capacity(), 0);
    }

    #[tokio::test]
    async fn a_full_queue_refuses_and_a_closed_one_says_so() {
        let (tx, mut rx) = channel();
        for _ in 0..OUTBOUND_QUEUE {
            tx.try_send(text("x")).unwrap();
        }
        assert_eq!(tx.try_send(text("y")), Err(TrySendError::Full));
        rx.recv().await.unwrap();
        assert_eq!(tx.try_send(text("y")), Ok(()));
        drop(rx);
        assert_eq!(tx.try_send(text("z")), Err(TrySendError::Closed));
        assert!(tx.is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiting_receiver_wakes_for_messages_sent_from_another_thread() {
        let (tx, mut rx) = channel();
        let sender = std::thread::spawn(move || {
            for i in 0..1_000 {
                while tx.try_send(text(&i.to_string())) == Err(TrySendError::Full) {
                    std::thread::yield_now();
                }
                if i % 100 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        });
        for i in 0..1_000 {
            let got = tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
                .await
                .expect("woken");
            assert_eq!(as_text(got), Some(i.to_string()));
        }
        sender.join().unwrap();
        assert_eq!(as_text(rx.recv().await), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn messages_queued_unwoken_arrive_once_woken_and_in_order() {
        let (tx, mut rx) = channel();
        let waiting = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(m) = rx.recv().await {
                got.push(as_text(Some(m)).unwrap_or_default());
            }
            got
        });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        tx.try_send_unwoken(text("a")).unwrap();
        tx.try_send(text("b")).unwrap();
        tx.try_send_unwoken(text("c")).unwrap();
        tx.waker().wake();
        drop(tx);
        let got = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("woken")
            .unwrap();
        assert_eq!(got, vec!["a", "b", "c"]);
        // Unwoken sends refuse like the others.
        let (tx, rx) = channel();
        for _ in 0..OUTBOUND_QUEUE {
            tx.try_send_unwoken(text("x")).unwrap();
        }
        assert_eq!(tx.try_send_unwoken(text("y")), Err(TrySendError::Full));
        drop(rx);
        assert_eq!(tx.try_send_unwoken(text("z")), Err(TrySendError::Closed));
    }

    #[tokio::test]
    async fn a_cancelled_receive_loses_nothing() {
        let (tx, mut rx) = channel();
        // A receive abandoned while waiting (as in `select!`) takes nothing.
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(5), rx.recv())
                .await
                .is_err()
        );
        tx.try_send(text("kept")).unwrap();
        assert_eq!(as_text(rx.recv().await).as_deref(), Some("kept"));
    }
}
