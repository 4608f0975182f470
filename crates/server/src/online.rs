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
    pub combat_level: i64,
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
    /// The combat level changed (published only on a change, not on every health change).
    CombatLevel(String, i64),
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

    /// The online characters' public lines, by name (any letter case), one page of them: `(name,
    /// combat level)` sorted by name, and how many there are in all.
    pub fn page(&self, offset: usize, limit: usize) -> (Vec<(String, i64)>, usize) {
        let map = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let mut all: Vec<(String, i64)> = map
            .values()
            .map(|e| (e.name.clone(), e.combat_level))
            .collect();
        drop(map);
        all.sort_by_cached_key(|(name, _)| name.to_lowercase());
        let total = all.len();
        (all.into_iter().skip(offset).take(limit).collect(), total)
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
                Presence::CombatLevel(id, level) => {
                    if let Some(entry) = map.get_mut(&id) {
                        entry.combat_level = level;
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
            combat_level: 3,
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
