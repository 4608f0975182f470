//! The live WebSocket connections by character: one per character (a newer connection replaces the
//! older, which is saved first), and the handle admins use to kick.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

/// Close code for a connection replaced by a newer one of the same character (CONTRACT.md section 3).
pub const CLOSE_REPLACED: u16 = 4000;
/// Close code for a connection an admin kicked.
pub const CLOSE_KICKED: u16 = 4001;
/// How long a new connection waits for the one it replaces to be saved.
pub const REPLACE_WAIT: Duration = Duration::from_secs(10);

/// A reason to close, sent to a connection's task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloseRequest {
    pub code: u16,
    pub reason: &'static str,
}

struct Handle {
    connection: u64,
    name_lower: String,
    close: mpsc::Sender<CloseRequest>,
    saved: watch::Receiver<bool>,
}

/// What a connection gets when it registers.
pub struct Registration {
    pub connection: u64,
    pub close_requests: mpsc::Receiver<CloseRequest>,
    /// Set to true once this connection's final state is saved.
    pub saved: watch::Sender<bool>,
    /// The replaced connection's "saved" signal, to wait on before loading the character.
    pub replaced: Option<watch::Receiver<bool>>,
}

/// Every live connection.
#[derive(Default)]
pub struct Connections {
    next_id: AtomicU64,
    by_character: Mutex<HashMap<String, Handle>>,
}

impl Connections {
    /// Registers a connection for `character_id`, asking any older one to close as replaced.
    pub fn register(&self, character_id: &str, name: &str) -> Registration {
        let connection = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (close_tx, close_rx) = mpsc::channel(4);
        let (saved_tx, saved_rx) = watch::channel(false);
        let mut map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        let replaced = map
            .insert(
                character_id.to_owned(),
                Handle {
                    connection,
                    name_lower: name.to_lowercase(),
                    close: close_tx,
                    saved: saved_rx,
                },
            )
            .map(|old| {
                let _ = old.close.try_send(CloseRequest {
                    code: CLOSE_REPLACED,
                    reason: "replaced by a newer connection",
                });
                old.saved
            });
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

    /// Asks the connection of a character to close; false when it is not connected.
    pub fn kick(&self, character_id: &str) -> bool {
        let map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        map.get(character_id).is_some_and(|h| {
            h.close
                .try_send(CloseRequest {
                    code: CLOSE_KICKED,
                    reason: "kicked by an admin",
                })
                .is_ok()
        })
    }

    /// The character id of a connected player, by name (any letter case).
    pub fn find_by_name(&self, name: &str) -> Option<String> {
        let name = name.to_lowercase();
        let map = self.by_character.lock().unwrap_or_else(|p| p.into_inner());
        map.iter()
            .find(|(_, h)| h.name_lower == name)
            .map(|(id, _)| id.clone())
    }

    /// How many connections are live.
    pub fn count(&self) -> usize {
        self.by_character
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

/// Waits until a replaced connection reports its state saved, or the wait times out.
pub async fn wait_saved(mut saved: watch::Receiver<bool>) -> bool {
    tokio::time::timeout(REPLACE_WAIT, saved.wait_for(|s| *s))
        .await
        .map(|r| r.is_ok())
        .unwrap_or(false)
}
