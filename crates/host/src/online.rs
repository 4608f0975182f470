//! Who is online and where: written by the world thread, read by REST handlers. The tick never waits
//! for this lock (it uses `try_write` and keeps what it could not publish for the next tick); readers
//! hold it only to copy one entry. Where a character stands is not published through the lock at
//! all: its [`TileCell`] is shared by the world thread's record and the entry, and a step is one
//! store into it (a moving crowd takes ~1,000 steps a tick; each was a queued change with an
//! allocated id and a hash lookup under the lock).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use wayfarer_protocol::ws::TilePos;

/// One online character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlineEntry {
    pub account_id: String,
    pub name: String,
    pub tile: TilePos,
    pub combat_level: i64,
}

/// The tile an online character stands on, written by the world thread as it moves and read by
/// REST handlers without a lock. The two coordinates are one atomic word, so a reader never sees
/// half of a step.
#[derive(Debug)]
pub struct TileCell(AtomicU64);

impl TileCell {
    pub fn new(tile: TilePos) -> Arc<TileCell> {
        Arc::new(TileCell(AtomicU64::new(pack(tile))))
    }

    pub fn set(&self, tile: TilePos) {
        self.0.store(pack(tile), Ordering::Relaxed);
    }

    pub fn get(&self) -> TilePos {
        let word = self.0.load(Ordering::Relaxed);
        TilePos {
            x: (word >> 32) as u32 as i32,
            z: word as u32 as i32,
        }
    }
}

fn pack(tile: TilePos) -> u64 {
    (u64::from(tile.x as u32) << 32) | u64::from(tile.z as u32)
}

/// An online character as the world thread lists it: its public line, with its tile shared.
#[derive(Debug, Clone)]
pub struct Listing {
    pub account_id: String,
    pub name: String,
    /// The same cell as the world thread's record of the character (see [`TileCell`]).
    pub tile: Arc<TileCell>,
    pub combat_level: i64,
}

impl Listing {
    fn entry(&self) -> OnlineEntry {
        OnlineEntry {
            account_id: self.account_id.clone(),
            name: self.name.clone(),
            tile: self.tile.get(),
            combat_level: self.combat_level,
        }
    }
}

/// The online characters by id.
#[derive(Debug, Default)]
pub struct OnlinePlayers {
    inner: RwLock<HashMap<String, Listing>>,
}

/// A change the world thread publishes (a step is not one: see [`TileCell`]).
#[derive(Debug, Clone)]
pub enum Presence {
    Joined(String, Listing),
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
            .map(Listing::entry)
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

    /// Ann's listing on tile (1, 2), and her tile's cell.
    fn ann() -> (Listing, Arc<TileCell>) {
        let tile = TileCell::new(TilePos { x: 1, z: 2 });
        let listing = Listing {
            account_id: "a".into(),
            name: "Ann".into(),
            tile: Arc::clone(&tile),
            combat_level: 3,
        };
        (listing, tile)
    }

    #[test]
    fn publishes_when_free_and_keeps_pending_when_busy() {
        let online = OnlinePlayers::default();
        let (listing, _) = ann();
        let mut pending = vec![Presence::Joined("c1".into(), listing.clone())];
        {
            let _reader = online.inner.read().unwrap();
            online.try_publish(&mut pending);
            assert_eq!(pending.len(), 1, "kept while a reader holds the lock");
        }
        online.try_publish(&mut pending);
        assert!(pending.is_empty());
        assert_eq!(online.get("c1"), Some(listing.entry()));
        let mut pending = vec![Presence::Left("c1".into())];
        online.try_publish(&mut pending);
        assert!(!online.is_online("c1"));
    }

    #[test]
    fn a_step_is_read_at_once_through_the_shared_cell() {
        let online = OnlinePlayers::default();
        let (listing, tile) = ann();
        // A step taken before the join is published is there once it is.
        tile.set(TilePos { x: -7, z: 40 });
        online.try_publish(&mut vec![Presence::Joined("c1".into(), listing)]);
        assert_eq!(online.get("c1").unwrap().tile, TilePos { x: -7, z: 40 });
        // And a step after it, with nothing queued.
        tile.set(TilePos {
            x: i32::MIN,
            z: i32::MAX,
        });
        assert_eq!(
            online.get("c1").unwrap().tile,
            TilePos {
                x: i32::MIN,
                z: i32::MAX
            },
            "both coordinates, signs and extremes kept"
        );
    }
}
