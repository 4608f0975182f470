//! The live WebSocket connections by character: one per character (a newer connection replaces the
//! older, which is saved first), and the handle admins use to kick.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};

/// Close code for a connection replaced by a newer one of the same character (CONTRACT.md section 3).
pub const CLOSE_REPLACED: u16 = 4000;
/// Close code for a connection an admin kicked.
pub const CLOSE_KICKED: u16 = 4001;
/// Close code for a connection whose token was revoked while it played (logged out).
pub const CLOSE_TOKEN_REVOKED: u16 = 4002;
/// Close code for a connection whose account was banned while it played.
pub const CLOSE_BANNED: u16 = 4003;
/// How long a new connection waits for the one it replaces to be saved. Longer than the old
/// connection can take to leave (its sends and close are bounded, then a tick, then at most
/// [`FINAL_SAVE_WAIT`]), so a wait that runs out means something is stuck, not slow.
pub const REPLACE_WAIT: Duration = Duration::from_secs(60);
/// How long a leaving connection waits for its final save to be reported.
pub const FINAL_SAVE_WAIT: Duration = Duration::from_secs(30);
/// Game sockets that may be entering the world at once (from checking the token to joining the
/// world thread: about a dozen reads and a write). The others wait their turn, first come first
/// served. Without a bound, 10,000 players reconnecting after a restart all queued for the
/// database together: each entry's next read waited behind every other entry's, so nobody was
/// back before nearly everyone was (the fastest of 10,000 took 6.8 s, the median 10.4 s, the
/// last 12.8 s). Taking turns, they come back in order (5.2 s, 7.4 s, 10.7 s: BENCHMARKS.md). Well
/// above the entries a steady stream of joins has on its way at once.
pub const ENTRIES_AT_ONCE: usize = 64;

/// A reason to close, sent to a connection's task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloseRequest {
    pub code: u16,
    pub reason: &'static str,
}

impl CloseRequest {
    /// An admin's kick.
    pub const KICKED: CloseRequest = CloseRequest {
        code: CLOSE_KICKED,
        reason: "kicked by an admin",
    };
    /// The account was banned.
    pub const BANNED: CloseRequest = CloseRequest {
        code: CLOSE_BANNED,
        reason: "account banned",
    };
    /// The token the connection was opened with was revoked.
    pub const TOKEN_REVOKED: CloseRequest = CloseRequest {
        code: CLOSE_TOKEN_REVOKED,
        reason: "logged out: the token was revoked",
    };
    /// The server is shutting down (RFC 6455's "going away").
    pub const SHUTDOWN: CloseRequest = CloseRequest {
        code: 1001,
        reason: "server shutting down",
    };
}

/// Whose token opened a connection: a revocation closes the connections its tokens opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opener {
    pub account_id: Box<str>,
    /// The token's id (`auth::revocation::TokenStamp::id`).
    pub token_id: Box<str>,
    /// When the token was issued (epoch ms).
    pub token_issued_at_ms: i64,
}

/// Which connections a revocation closes.
#[derive(Debug, Clone, Copy)]
pub enum Revoked<'a> {
    /// Those opened with this one token.
    Token(&'a str),
    /// Those of this account opened with a token issued before this time (epoch ms).
    AccountBefore(&'a str, i64),
}

impl Revoked<'_> {
    fn covers(&self, opener: &Opener) -> bool {
        match *self {
            Revoked::Token(id) => *opener.token_id == *id,
            Revoked::AccountBefore(account, before_ms) => {
                *opener.account_id == *account && opener.token_issued_at_ms < before_ms
            }
        }
    }
}

struct Handle {
    connection: u64,
    name_lower: String,
    opener: Opener,
    /// Taken by the first request to close: a connection closes once, so one slot is enough. A
    /// oneshot, not an mpsc queue: an mpsc channel allocates a block of 32 slots up front (about
    /// 1 KiB for every idle player, for a message that almost never comes).
    close: Option<oneshot::Sender<CloseRequest>>,
    /// Fires once this connection's final state is saved (dropped unsent when it could not be, so
    /// the connection waiting on it is refused). A oneshot for the same reason: only the
    /// connection that replaces this one ever waits on it (a watch channel is 344 bytes a player).
    saved: oneshot::Receiver<()>,
}

/// What a connection gets when it registers.
pub struct Registration {
    pub connection: u64,
    pub close_requests: oneshot::Receiver<CloseRequest>,
    /// Sent once this connection's final state is saved.
    pub saved: oneshot::Sender<()>,
    /// The replaced connection's "saved" signal, to wait on before loading the character.
    pub replaced: Option<oneshot::Receiver<()>>,
}

/// Every live connection.
pub struct Connections {
    next_id: AtomicU64,
    by_character: Mutex<HashMap<String, Handle>>,
    /// Game sockets upgraded but not yet in the world, by character (see [`Connections::begin_entry`]).
    entering: Mutex<HashMap<String, usize>>,
    /// Set by [`Connections::shut_down`] (written and read under `by_character`'s lock): a
    /// connection registering afterwards is asked to close at once.
    shutting_down: AtomicBool,
    /// Turns to enter the world, [`ENTRIES_AT_ONCE`] of them (see [`Connections::entry_turn`]).
    entry_turns: Arc<Semaphore>,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            next_id: AtomicU64::default(),
            by_character: Mutex::default(),
            entering: Mutex::default(),
            shutting_down: AtomicBool::default(),
            entry_turns: Arc::new(Semaphore::new(ENTRIES_AT_ONCE)),
        }
    }
}

/// A game socket's turn to enter the world (see [`ENTRIES_AT_ONCE`]): held until it is in the
/// world or gave up, inside its [`PendingEntry`] ([`PendingEntry::hold`]).
pub struct EntryTurn(
    // `None` only if the turns were closed, which nothing does: the entry then goes without one.
    #[expect(dead_code, reason = "held for its drop")] Option<OwnedSemaphorePermit>,
);

/// A game socket of a character on its way into the world; dropped once it is in (or gave up).
pub struct PendingEntry {
    connections: Arc<Connections>,
    character_id: String,
    /// The entry's turn once it has one; given back when the entry is dropped.
    turn: Option<EntryTurn>,
}

impl PendingEntry {
    /// Keeps `turn` until the entry is dropped (in the world, or given up).
    pub fn hold(&mut self, turn: EntryTurn) {
        self.turn = Some(turn);
    }
}

impl Drop for PendingEntry {
    fn drop(&mut self) {
        let mut entering = self
            .connections
            .entering
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(count) = entering.get_mut(&self.character_id) {
            *count -= 1;
            if *count == 0 {
                entering.remove(&self.character_id);
            }
        }
    }
}

impl Connections {
    /// Waits for a turn to enter the world (see [`ENTRIES_AT_ONCE`]).
    pub async fn entry_turn(&self) -> EntryTurn {
        EntryTurn(Arc::clone(&self.entry_turns).acquire_owned().await.ok())
    }

    /// Counts a game socket of `character_id` as entering, unless `limit` of them are already on
    /// their way in: each new one replaces the one before and waits for its save, so a burst of
    /// upgrades for one character (500 in half a second was seen) would queue a chain of loads
    /// and saves for nothing.
    pub fn begin_entry(self: &Arc<Self>, character_id: &str, limit: usize) -> Option<PendingEntry> {
        let mut entering = self.entering.lock().unwrap_or_else(|p| p.into_inner());
        let count = entering.entry(character_id.to_owned()).or_insert(0);
        if *count >= limit {
            return None;
        }
        *count += 1;
        Some(PendingEntry {
            connections: self.clone(),
            character_id: character_id.to_owned(),
            turn: None,
        })
    }

    /// Registers a connection for `character_id`, opened by `opener`, asking any older one to close
    /// as replaced.
    pub fn register(&self, character_id: &str, name: &str, opener: Opener) -> Registration {
        let connection = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (close_tx, close_rx) = oneshot::channel();
        let (saved_tx, saved_rx) = oneshot::channel();
        let mut map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        let replaced = map
            .insert(
                character_id.to_owned(),
                Handle {
                    connection,
                    name_lower: name.to_lowercase(),
                    opener,
                    close: Some(close_tx),
                    saved: saved_rx,
                },
            )
            .map(|mut old| {
                if let Some(close) = old.close.take() {
                    let _ = close.send(CloseRequest {
                        code: CLOSE_REPLACED,
                        reason: "replaced by a newer connection",
                    });
                }
                old.saved
            });
        if self.shutting_down.load(Ordering::Relaxed) {
            // Upgraded while the server stopped: it closes as soon as it would serve.
            if let Some(close) = map.get_mut(character_id).and_then(|h| h.close.take()) {
                let _ = close.send(CloseRequest::SHUTDOWN);
            }
        }
        Registration {
            connection,
            close_requests: close_rx,
            saved: saved_tx,
            replaced,
        }
    }

    /// Removes the registration if it is still this connection's.
    pub fn unregister(&self, character_id: &str, connection: u64) {
        let mut map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        if map
            .get(character_id)
            .is_some_and(|h| h.connection == connection)
        {
            map.remove(character_id);
        }
    }

    /// Asks the connection of a character to close as kicked; false when it is not connected,
    /// which includes a connection already asked to close (it is on its way out: a second kick is
    /// refused).
    pub fn kick(&self, character_id: &str) -> bool {
        self.close(character_id, CloseRequest::KICKED)
    }

    /// Asks the connection of a character to close with `request` (it leaves the world and is
    /// saved as on any logout); false when it is not connected or already asked to close.
    pub fn close(&self, character_id: &str, request: CloseRequest) -> bool {
        let mut map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        map.get_mut(character_id)
            .is_some_and(|h| match h.close.take() {
                Some(close) => close.send(request).is_ok(),
                None => false,
            })
    }

    /// Asks every connection a revocation covers to close (4002: each leaves the world and is saved
    /// as on any logout); how many were asked. A scan of every connection: revocations are rare.
    pub fn close_revoked(&self, revoked: Revoked<'_>) -> usize {
        let mut map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        map.values_mut()
            .filter(|h| revoked.covers(&h.opener))
            .filter_map(|h| h.close.take())
            .map(|close| close.send(CloseRequest::TOKEN_REVOKED))
            .filter(Result::is_ok)
            .count()
    }

    /// Asks every connection, and every one that registers from now on, to close with 1001 (each
    /// leaves the world and is saved as on any logout); how many were asked. Game sockets are
    /// upgraded connections the HTTP server no longer tracks, so shutdown tells them here. Through
    /// each connection's close request, not a channel every connection also waits on: a
    /// `watch` wait is 150 bytes in every idle player's task.
    pub fn shut_down(&self) -> usize {
        let mut map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        self.shutting_down.store(true, Ordering::Relaxed);
        map.values_mut()
            .filter_map(|h| h.close.take())
            .map(|close| close.send(CloseRequest::SHUTDOWN))
            .filter(Result::is_ok)
            .count()
    }

    /// The character id of a connected player, by name (any letter case).
    pub fn find_by_name(&self, name: &str) -> Option<String> {
        let name = name.to_lowercase();
        let map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        map.iter()
            .find(|(_, h)| h.name_lower == name)
            .map(|(id, _)| id.clone())
    }

    /// Whether a character has a live connection here.
    pub fn is_connected(&self, character_id: &str) -> bool {
        self.by_character
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(character_id)
    }

    /// How many connections are live.
    pub fn count(&self) -> usize {
        self.by_character
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

/// Waits until a replaced connection reports its state saved: false when it reports that it could
/// not be saved or the wait times out. The replacing connection must then not load the character
/// (the database may hold a state older than commands the old session had accepted).
pub async fn wait_saved(saved: oneshot::Receiver<()>) -> bool {
    matches!(tokio::time::timeout(REPLACE_WAIT, saved).await, Ok(Ok(())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opener(account: &str, token: &str, issued_at_ms: i64) -> Opener {
        Opener {
            account_id: account.into(),
            token_id: token.into(),
            token_issued_at_ms: issued_at_ms,
        }
    }

    #[tokio::test]
    async fn entries_take_turns_and_give_them_back_when_in_or_given_up() {
        let connections = Arc::new(Connections::default());
        let mut entries = Vec::new();
        for i in 0..ENTRIES_AT_ONCE {
            let mut entry = connections
                .begin_entry(&format!("c{i}"), 1)
                .expect("entering");
            entry.hold(connections.entry_turn().await);
            entries.push(entry);
        }
        // Every turn is out: the next entry waits.
        let wait = Duration::from_millis(20);
        assert!(tokio::time::timeout(wait, connections.entry_turn())
            .await
            .is_err());
        // One entry done (in the world, or gone): its turn goes to the next.
        entries.pop();
        let turn = tokio::time::timeout(wait, connections.entry_turn())
            .await
            .expect("a turn given back");
        assert_eq!(connections.entry_turns.available_permits(), 0);
        drop(turn);
        entries.clear();
        assert_eq!(connections.entry_turns.available_permits(), ENTRIES_AT_ONCE);
    }

    #[test]
    fn a_revocation_closes_exactly_the_connections_its_tokens_opened() {
        let connections = Connections::default();
        let mut a1 = connections.register("c-a1", "A1", opener("a", "t-old", 1_000));
        let mut a2 = connections.register("c-a2", "A2", opener("a", "t-new", 2_000));
        let mut b = connections.register("c-b", "B", opener("b", "t-b", 1_000));

        assert_eq!(connections.close_revoked(Revoked::Token("t-new")), 1);
        assert_eq!(
            a2.close_requests.try_recv().unwrap(),
            CloseRequest::TOKEN_REVOKED
        );
        assert!(a1.close_requests.try_recv().is_err());

        // Everything of account `a` issued before 2,000: the old token, not another account's.
        assert_eq!(
            connections.close_revoked(Revoked::AccountBefore("a", 2_000)),
            1
        );
        assert_eq!(
            a1.close_requests.try_recv().unwrap(),
            CloseRequest::TOKEN_REVOKED
        );
        assert!(b.close_requests.try_recv().is_err());
        // A connection already asked to close is not asked twice.
        assert_eq!(
            connections.close_revoked(Revoked::AccountBefore("a", 9_000)),
            0
        );
    }

    #[test]
    fn shutting_down_closes_every_connection_and_each_that_registers_later() {
        let connections = Connections::default();
        let mut kicked = connections.register("c-k", "K", opener("k", "t-k", 1_000));
        let mut idle = connections.register("c-i", "I", opener("i", "t-i", 1_000));
        assert!(connections.kick("c-k"));

        // The kicked one was asked already: it keeps its kick.
        assert_eq!(connections.shut_down(), 1);
        assert_eq!(
            kicked.close_requests.try_recv().unwrap(),
            CloseRequest::KICKED
        );
        assert_eq!(
            idle.close_requests.try_recv().unwrap(),
            CloseRequest::SHUTDOWN
        );
        assert_eq!(CloseRequest::SHUTDOWN.code, 1001);

        // Upgraded while the server stops: asked to close as it registers, a new character's
        // connection and one replacing a connection alike.
        let mut late = connections.register("c-l", "L", opener("l", "t-l", 1_000));
        assert_eq!(
            late.close_requests.try_recv().unwrap(),
            CloseRequest::SHUTDOWN
        );
        let mut again = connections.register("c-i", "I", opener("i", "t-i2", 2_000));
        assert_eq!(
            again.close_requests.try_recv().unwrap(),
            CloseRequest::SHUTDOWN
        );
        assert_eq!(connections.shut_down(), 0, "nobody is asked twice");
    }
}
