//! Who is online and where: written by the world thread, read by REST handlers. The tick never waits
//! for this lock (it uses `try_write` and keeps what it could not publish for the next tick); readers
//! hold it only to copy one entry.

use std::collections::HashMap;
use std::sync::RwLock;

use wayfarer_protocol::ws::TilePos;

/// One online character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlineEntry {
    pub account_id: String,
    pub name: String,
    pub tile: TilePos,
}

/// The online characters by id.
#[derive(Debug, Default)]
pub struct OnlinePlayers {
    inner: RwLock<HashMap<String, OnlineEntry>>,
}

/// A change the world thread publishes.
#[derive(Debug, Clone)]
pub enum Presence {
    Joined(String, OnlineEntry),
    Moved(String, TilePos),
    Left(String),
}

impl OnlinePlayers {
    /// The entry of an online character.
    pub fn get(&self, id: &str) -> Option<OnlineEntry> {
        self.inner
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    /// Whether the character is online.
    pub fn is_online(&self, id: &str) -> bool {
        self.inner
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    /// How many characters are online.
    pub fn count(&self) -> usize {
        self.inner.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Applies `pending` if the lock is free right now; otherwise leaves it for the next try.
    /// Called from the world thread, which must never block on a reader.
    pub fn try_publish(&self, pending: &mut Vec<Presence>) {
        if pending.is_empty() {
            return;
        }
        let Ok(mut map) = self.inner.try_write() else {
            return;
        };
        for change in pending.drain(..) {
            match change {
                Presence::Joined(id, entry) => {
                    map.insert(id, entry);
                }
                Presence::Moved(id, tile) => {
                    if let Some(entry) = map.get_mut(&id) {
                        entry.tile = tile;
                    }
                }
                Presence::Left(id) => {
                    map.remove(&id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publishes_when_free_and_keeps_pending_when_busy() {
        let online = OnlinePlayers::default();
        let entry = OnlineEntry {
            account_id: "a".into(),
            name: "Ann".into(),
            tile: TilePos { x: 1, z: 2 },
        };
        let mut pending = vec![Presence::Joined("c1".into(), entry.clone())];
        {
            let _reader = online.inner.read().unwrap();
            online.try_publish(&mut pending);
            assert_eq!(pending.len(), 1, "kept while a reader holds the lock");
        }
        online.try_publish(&mut pending);
        assert!(pending.is_empty());
        assert_eq!(online.get("c1"), Some(entry));
        let mut pending = vec![
            Presence::Moved("c1".into(), TilePos { x: 5, z: 5 }),
            Presence::Left("c1".into()),
        ];
        online.try_publish(&mut pending);
        assert!(!online.is_online("c1"));
    }
}
