//! What of the world outlives a restart, by chunk: depleted resources with the time left before
//! they respawn, and ground items (outside death piles, which the server keeps in death locks)
//! with their owner and the time left before they go public and before they vanish. Lit fires do
//! not: they are short and burn out.
//!
//! The world keeps a **ledger**: the state the database holds (or will hold once the save jobs
//! already handed out are written). It changes as things happen (a depletion, a respawn, loot
//! appearing, an item vanishing), and each change marks its chunk dirty; the server takes the dirty
//! chunks with every save job ([`World::persist_for`]), so nothing here scans the world.
//!
//! Items moved by players follow their records, so an item is never in the database twice or not
//! at all, whatever crashes:
//! - an item a player **drops** is still in that player's saved record: it enters the ledger only
//!   in the save job that writes the record without it (until then it is *pending* on the
//!   dropper, and nobody else may take it, even past its private minute; one tick before that
//!   minute ends the world asks for the dropper's save with [`Event::SaveNow`]);
//! - an item picked up **from the ledger** stays in it until the save job that writes the picker's
//!   record with it; a pending item picked up again by its dropper never touches the database.
//!
//! Loot and ashes come from nowhere, and an item vanishing goes nowhere: those changes can ride on
//! any save job.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use wayfarer_protocol::ws::TilePos;

use crate::grid::CELL_TILES;
use crate::inventory::Stack;
use crate::world::World;

/// Side of a persisted chunk in tiles: the sim's grid cell, so a chunk is a cell.
pub const CHUNK_TILES: i32 = CELL_TILES;

/// A chunk's coordinates (tile coordinates divided by [`CHUNK_TILES`], rounded down).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkKey {
    /// Chunk column.
    pub x: i32,
    /// Chunk row.
    pub z: i32,
}

impl ChunkKey {
    /// The chunk holding `tile`.
    pub fn of(tile: TilePos) -> ChunkKey {
        ChunkKey {
            x: tile.x.div_euclid(CHUNK_TILES),
            z: tile.z.div_euclid(CHUNK_TILES),
        }
    }
}

/// A depleted resource as persisted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepletedResource {
    /// The placement key (`<area>/resource/<n>`, stable across restarts of the same content).
    pub key: String,
    /// The gathering node it is (checked again at restore: the content may have changed).
    pub resource_id: String,
    /// Ticks until it respawns.
    pub ticks_left: u64,
}

/// A ground item as persisted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersistedGroundItem {
    /// What and how many (one entity).
    pub stack: Stack,
    /// Where it lies.
    pub tile: TilePos,
    /// Who may take it while it is private.
    pub owner: Option<String>,
    /// Ticks until anyone may take it (0: public).
    pub private_ticks_left: u64,
    /// Ticks until it vanishes.
    pub ticks_left: u64,
}

/// One chunk's persistent state; empty when the chunk is pristine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkState {
    /// Which chunk.
    pub chunk: ChunkKey,
    /// Its depleted resources.
    pub depleted: Vec<DepletedResource>,
    /// Its ground items.
    pub ground: Vec<PersistedGroundItem>,
}

impl ChunkState {
    /// True when nothing in the chunk differs from a fresh world.
    pub fn is_pristine(&self) -> bool {
        self.depleted.is_empty() && self.ground.is_empty()
    }
}

/// What [`World::restore_chunks`] put back, and what it skipped (and why).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    /// Resources depleted again.
    pub resources: usize,
    /// Ground items put back.
    pub ground_items: usize,
    /// One line per entry skipped (a resource or item the content no longer has).
    pub skipped: Vec<String>,
}

/// A ground item in the ledger, with absolute ticks (turned into time left when written).
#[derive(Debug, Clone)]
pub(crate) struct LedgerItem {
    pub stack: Stack,
    pub tile: TilePos,
    pub owner: Option<String>,
    pub public_at: u64,
    pub despawn_at: u64,
}

/// One chunk of the ledger.
#[derive(Debug, Default)]
struct LedgerChunk {
    /// Placement key → (resource id, respawn tick).
    depleted: BTreeMap<String, (String, u64)>,
    /// Ground item key → item.
    ground: BTreeMap<u64, LedgerItem>,
}

impl LedgerChunk {
    fn is_empty(&self) -> bool {
        self.depleted.is_empty() && self.ground.is_empty()
    }
}

/// The persisted state of the world as the database has it (see the module documentation).
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    chunks: HashMap<ChunkKey, LedgerChunk>,
    /// Chunks changed since they were last handed out.
    dirty: BTreeSet<ChunkKey>,
    /// Dropper → items they dropped that their saved record still holds (key and item).
    drops: HashMap<String, Vec<(u64, LedgerItem)>>,
    /// Picker → ledger items they took that their saved record does not hold yet.
    takes: HashMap<String, Vec<(ChunkKey, u64)>>,
}

impl Ledger {
    fn chunk(&mut self, key: ChunkKey) -> &mut LedgerChunk {
        self.dirty.insert(key);
        self.chunks.entry(key).or_default()
    }

    /// A resource was depleted until `respawn_at`.
    pub fn depleted(&mut self, tile: TilePos, key: &str, resource_id: &str, respawn_at: u64) {
        self.chunk(ChunkKey::of(tile))
            .depleted
            .insert(key.to_owned(), (resource_id.to_owned(), respawn_at));
    }

    /// A resource is back (or gone).
    pub fn respawned(&mut self, tile: TilePos, key: &str) {
        let chunk = ChunkKey::of(tile);
        if let Some(c) = self.chunks.get_mut(&chunk) {
            if c.depleted.remove(key).is_some() {
                self.dirty.insert(chunk);
            }
        }
    }

    /// An item came from nowhere (loot, ashes, a restore): persisted with the next job.
    pub fn appeared(&mut self, key: u64, item: LedgerItem) {
        self.chunk(ChunkKey::of(item.tile)).ground.insert(key, item);
    }

    /// `by` dropped an item: it is theirs in the database until their record is written.
    pub fn dropped(&mut self, by: &str, key: u64, item: LedgerItem) {
        self.drops
            .entry(by.to_owned())
            .or_default()
            .push((key, item));
    }

    /// Whether item `key` dropped by `owner` is still in `owner`'s saved record.
    pub fn is_pending(&self, key: u64, owner: &str) -> bool {
        self.drops
            .get(owner)
            .is_some_and(|items| items.iter().any(|(k, _)| *k == key))
    }

    fn unpend(&mut self, key: u64, owner: &str) -> bool {
        let Some(items) = self.drops.get_mut(owner) else {
            return false;
        };
        let Some(position) = items.iter().position(|(k, _)| *k == key) else {
            return false;
        };
        items.swap_remove(position);
        if items.is_empty() {
            self.drops.remove(owner);
        }
        true
    }

    /// Item `key` vanished from the ground.
    pub fn vanished(&mut self, key: u64, tile: TilePos, owner: Option<&str>) {
        if owner.is_some_and(|o| self.unpend(key, o)) {
            return;
        }
        let chunk = ChunkKey::of(tile);
        if let Some(c) = self.chunks.get_mut(&chunk) {
            if c.ground.remove(&key).is_some() {
                self.dirty.insert(chunk);
            }
        }
    }

    /// `by` picked item `key` up. A pending item goes back into its dropper's hands (only the
    /// dropper may take it) and never reaches the database; a ledger item stays in the ledger until
    /// `by`'s record is written.
    pub fn taken(&mut self, key: u64, tile: TilePos, owner: Option<&str>, by: &str) {
        if owner.is_some_and(|o| self.unpend(key, o)) {
            return;
        }
        let chunk = ChunkKey::of(tile);
        if self
            .chunks
            .get(&chunk)
            .is_some_and(|c| c.ground.contains_key(&key))
        {
            self.takes
                .entry(by.to_owned())
                .or_default()
                .push((chunk, key));
        }
    }

    /// The records of `ids` are being written: their drops enter the ledger, their takes leave it.
    pub fn flush<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            if let Some(items) = self.drops.remove(id) {
                for (key, item) in items {
                    self.appeared(key, item);
                }
            }
            if let Some(takes) = self.takes.remove(id) {
                for (chunk, key) in takes {
                    if let Some(c) = self.chunks.get_mut(&chunk) {
                        c.ground.remove(&key);
                    }
                    self.dirty.insert(chunk);
                }
            }
        }
    }

    /// Every chunk with something in it is written again (at shutdown, so the times left are
    /// those of the moment the world stopped).
    pub fn mark_all_dirty(&mut self) {
        self.dirty.extend(self.chunks.keys().copied());
    }

    /// Forgets which chunks are dirty (after a restore: the database already holds them).
    pub fn clean(&mut self) {
        self.dirty.clear();
    }

    /// Marks one chunk dirty.
    pub fn touch(&mut self, chunk: ChunkKey) {
        self.dirty.insert(chunk);
    }

    /// The dirty chunks as they stand at tick `now`, in chunk order; pristine ones are forgotten.
    pub fn drain(&mut self, now: u64) -> Vec<ChunkState> {
        let mut out = Vec::with_capacity(self.dirty.len());
        for key in std::mem::take(&mut self.dirty) {
            let state = match self.chunks.get(&key) {
                Some(c) => ChunkState {
                    chunk: key,
                    depleted: c
                        .depleted
                        .iter()
                        .map(|(k, (resource_id, at))| DepletedResource {
                            key: k.clone(),
                            resource_id: resource_id.clone(),
                            ticks_left: at.saturating_sub(now).max(1),
                        })
                        .collect(),
                    ground: c
                        .ground
                        .values()
                        .map(|g| PersistedGroundItem {
                            stack: g.stack.clone(),
                            tile: g.tile,
                            owner: g.owner.clone(),
                            private_ticks_left: g.public_at.saturating_sub(now),
                            ticks_left: g.despawn_at.saturating_sub(now).max(1),
                        })
                        .collect(),
                },
                None => ChunkState {
                    chunk: key,
                    depleted: Vec::new(),
                    ground: Vec::new(),
                },
            };
            if self.chunks.get(&key).is_some_and(LedgerChunk::is_empty) {
                self.chunks.remove(&key);
            }
            out.push(state);
        }
        out
    }
}

impl World {
    /// The save job about to write the records of `ids`: their drops and pickups enter the ledger,
    /// and every chunk changed since the last job is returned, as it stands now, to be written in
    /// the same transaction as those records.
    pub fn persist_for<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) -> Vec<ChunkState> {
        self.ledger.flush(ids);
        let now = self.now();
        self.ledger.drain(now)
    }

    /// Whether some chunk changed since the last [`World::persist_for`].
    pub fn has_chunks_to_persist(&self) -> bool {
        !self.ledger.dirty.is_empty()
    }

    /// Every chunk that is not pristine will be returned by the next [`World::persist_for`] (at
    /// shutdown: the times left are written as the world stops).
    pub fn persist_everything_next(&mut self) {
        self.ledger.mark_all_dirty();
    }

    /// Puts persisted chunks back into a fresh world (before its first tick): resources depleted
    /// again for their time left, ground items back with their owner and times. A resource or
    /// item the content no longer has is skipped (reported, and the chunk is written again
    /// without it).
    pub fn restore_chunks(&mut self, chunks: &[ChunkState]) -> RestoreReport {
        let mut report = RestoreReport::default();
        let by_key: HashMap<String, usize> = self
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| (r.placement.key.clone(), i))
            .collect();
        let mut rewrite = Vec::new();
        for chunk in chunks {
            let skipped_before = report.skipped.len();
            for resource in &chunk.depleted {
                match by_key.get(&resource.key) {
                    Some(&position)
                        if self.resources[position].placement.resource_id
                            == resource.resource_id =>
                    {
                        let ticks = u32::try_from(resource.ticks_left).unwrap_or(u32::MAX);
                        self.deplete(position, ticks);
                        report.resources += 1;
                    }
                    _ => report.skipped.push(format!(
                        "resource {} ({}) is not in the content",
                        resource.key, resource.resource_id
                    )),
                }
            }
            for item in &chunk.ground {
                if item.stack.quantity == 0
                    || !self.content.items.contains_key(item.stack.item_id.as_str())
                {
                    report.skipped.push(format!(
                        "ground item {} x{} is not in the content",
                        item.stack.item_id, item.stack.quantity
                    ));
                    continue;
                }
                self.spawn_ground_items(
                    item.tile,
                    item.stack.clone(),
                    item.owner.as_deref(),
                    item.private_ticks_left,
                    item.ticks_left.max(1),
                    crate::ground::Spill::Appeared,
                );
                report.ground_items += 1;
            }
            if report.skipped.len() > skipped_before {
                rewrite.push(chunk.chunk);
            }
        }
        // The database holds what was restored; only chunks that lost something are rewritten.
        self.ledger.clean();
        for chunk in rewrite {
            self.ledger.touch(chunk);
        }
        report
    }
}
