//! Storage of everything that has a place in the world (players, NPCs, resources): a generational
//! slab addressed by [`Handle`]s, holding each entity in its wire shape plus when it last moved or
//! changed.

use std::sync::Arc;

use wayfarer_protocol::ws::{Changed, Entity, Moved, TickMoves, TilePos};

/// A reference to a stored entity: slot index in the high 32 bits, slot generation in the low 32.
/// A handle of a removed entity never matches the slot's next occupant.
pub(crate) type Handle = u64;

fn handle(index: u32, generation: u32) -> Handle {
    (u64::from(index) << 32) | u64::from(generation)
}

/// The slot of a handle: dense and small, for tables indexed by entity.
pub(crate) fn slot_index(handle: Handle) -> usize {
    split(handle).0
}

/// The slot of a handle as kept in compact lists (a viewer's shown entities).
pub(crate) fn slot_of(handle: Handle) -> u32 {
    (handle >> 32) as u32
}

fn split(handle: Handle) -> (usize, u32) {
    ((handle >> 32) as usize, handle as u32)
}

/// One stored entity.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    /// The entity as clients first see it; `x`/`z` are its current tile. Shared with the views
    /// that list it as added (change it through [`Body::wire_mut`], which copies only when shared).
    pub wire: Arc<Entity>,
    /// The fields that changed in the tick of its [`Mark::changed_at`].
    pub change: Changed,
}

impl Body {
    /// The entity for changing; copied first if a view still holds it.
    pub fn wire_mut(&mut self) -> &mut Entity {
        Arc::make_mut(&mut self.wire)
    }

    /// The current tile.
    pub fn tile(&self) -> TilePos {
        TilePos {
            x: self.wire.x,
            z: self.wire.z,
        }
    }
}

/// What a view's diff reads of each entity it keeps, packed by slot apart from the bodies: a
/// crowd's diff reads hundreds of kept entities per viewer, in slot order, and reading them from
/// the bodies (large, the tile behind another pointer) missed the cache several times each.
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    generation: u32,
    alive: bool,
    /// Tick in which the tile last changed.
    pub moved_at: u64,
    /// The move's index in the table of tick `moved_at`'s moves ([`Entities::tick_moves`]).
    pub moved_index: u32,
    /// Tick in which the body's `change` was recorded.
    pub changed_at: u64,
    /// The current tile (the wire entity's `x`/`z`).
    pub tile: TilePos,
    /// `wire.id`, shared: every view that lists the entity as moved or removed holds a reference,
    /// not a copy. Kept after the entity is removed until its slot is reused ([`Entities::id_in_slot`]).
    pub id: Arc<str>,
}

#[derive(Debug)]
struct Slot {
    generation: u32,
    alive: bool,
    /// Kept after removal until [`Entities::release_retired`], so views can still name what left.
    body: Option<Body>,
}

/// The slab.
#[derive(Debug, Default)]
pub(crate) struct Entities {
    slots: Vec<Slot>,
    /// By slot, beside `slots` (see [`Mark`]).
    marks: Vec<Mark>,
    free: Vec<u32>,
    retired: Vec<u32>,
    /// Wire id → handle of every live entity (actions name their targets by id).
    by_id: std::collections::HashMap<String, Handle>,
    /// By slot, what the last [`Entities::tick_moves`] found ([`TickFlags`]).
    tick_flags: Vec<u32>,
}

/// What a view's diff reads of a kept entity, one `u32` by slot: a crowd's viewer keeps ~500
/// entities, and reading this dense table (4 bytes each, a few kilobytes for a town) instead of
/// each entity's [`Mark`] (tens of bytes, scattered) keeps the diff's reads in the cache.
pub(crate) struct TickFlags;

impl TickFlags {
    /// The entity changed a field this tick (its body's `change` is this tick's).
    pub const CHANGED: u32 = 1 << 31;
    /// The bits holding the index of its move in the tick's table of moves.
    pub const MOVE: u32 = !Self::CHANGED;
    /// In [`Self::MOVE`]: it did not move this tick.
    pub const NOT_MOVED: u32 = Self::MOVE;
}

impl Entities {
    /// Stores a new entity.
    pub fn insert(&mut self, wire: Entity) -> Handle {
        let id = wire.id.clone();
        let handle = self.insert_body(wire);
        self.by_id.insert(id, handle);
        handle
    }

    /// The live entity with wire id `id`.
    pub fn find(&self, id: &str) -> Option<Handle> {
        self.by_id.get(id).copied()
    }

    fn insert_body(&mut self, wire: Entity) -> Handle {
        let index = self.free.pop().unwrap_or(self.slots.len() as u32);
        let generation = self.slots.get(index as usize).map_or(0, |s| s.generation);
        let mark = Mark {
            generation,
            alive: true,
            moved_at: 0,
            moved_index: 0,
            changed_at: 0,
            tile: TilePos {
                x: wire.x,
                z: wire.z,
            },
            id: Arc::from(wire.id.as_str()),
        };
        let body = Some(Body {
            wire: Arc::new(wire),
            change: Changed::default(),
        });
        match self.slots.get_mut(index as usize) {
            Some(slot) => {
                slot.alive = true;
                slot.body = body;
                self.marks[index as usize] = mark;
            }
            None => {
                self.slots.push(Slot {
                    generation,
                    alive: true,
                    body,
                });
                self.marks.push(mark);
            }
        }
        handle(index, generation)
    }

    /// A live entity.
    pub fn get(&self, handle: Handle) -> Option<&Body> {
        let (index, generation) = split(handle);
        let slot = self.slots.get(index)?;
        if slot.alive && slot.generation == generation {
            slot.body.as_ref()
        } else {
            None
        }
    }

    /// The [`Mark`] of a live entity.
    pub fn mark(&self, handle: Handle) -> Option<&Mark> {
        let (index, generation) = split(handle);
        self.marks
            .get(index)
            .filter(|m| m.alive && m.generation == generation)
    }

    /// A live entity, mutably.
    pub fn get_mut(&mut self, handle: Handle) -> Option<&mut Body> {
        let (index, generation) = split(handle);
        let slot = self.slots.get_mut(index)?;
        if slot.alive && slot.generation == generation {
            slot.body.as_mut()
        } else {
            None
        }
    }

    /// The wire id of the entity in `slot`, live or removed since the last release (or since,
    /// until the slot is reused): what a viewer that keeps slots ([`slot_of`]) names as removed.
    /// Every view showing a removed entity drops it in the tick it was removed, before its slot is
    /// released, so the id read is always the removed entity's.
    pub fn id_in_slot(&self, slot: u32) -> Option<&Arc<str>> {
        self.marks.get(slot as usize).map(|m| &m.id)
    }

    /// Removes an entity, returning its last tile; its id stays readable (for `removed` lists) until
    /// [`Self::release_retired`].
    pub fn retire(&mut self, handle: Handle) -> Option<TilePos> {
        let (index, generation) = split(handle);
        let slot = self.slots.get_mut(index)?;
        if !slot.alive || slot.generation != generation {
            return None;
        }
        slot.alive = false;
        self.marks[index].alive = false;
        self.retired.push(index as u32);
        if let Some(body) = slot.body.as_ref() {
            if self.by_id.get(&body.wire.id) == Some(&handle) {
                self.by_id.remove(&body.wire.id);
            }
        }
        slot.body.as_ref().map(Body::tile)
    }

    /// Frees the slots of retired entities for reuse; called after every view has been computed.
    pub fn release_retired(&mut self) {
        for index in self.retired.drain(..) {
            let slot = &mut self.slots[index as usize];
            slot.body = None;
            slot.generation = slot.generation.wrapping_add(1);
            // The mark keeps its id allocation until the slot is reused; it reads as gone.
            self.marks[index as usize].generation = slot.generation;
            self.free.push(index);
        }
    }

    /// Moves a live entity to `tile`, stamping the move with tick `now`. Returns the old tile.
    pub fn set_tile(&mut self, handle: Handle, tile: TilePos, now: u64) -> Option<TilePos> {
        let (body, mark) = self.body_and_mark(handle)?;
        let old = body.tile();
        if old != tile {
            let wire = body.wire_mut();
            wire.x = tile.x;
            wire.z = tile.z;
            mark.tile = tile;
            mark.moved_at = now;
        }
        Some(old)
    }

    /// Every live entity that moved in tick `now`, each encoded once, and each one's index in the
    /// table noted in its mark for the views' `moved` lists.
    pub fn tick_moves(&mut self, now: u64) -> Arc<TickMoves> {
        let moving = |m: &Mark| m.alive && m.moved_at == now;
        let mut table = TickMoves::with_capacity(self.marks.iter().filter(|m| moving(m)).count());
        self.tick_flags.clear();
        for mark in self.marks.iter_mut() {
            let mut flags = TickFlags::NOT_MOVED;
            if moving(mark) {
                mark.moved_index = table.push(Moved {
                    id: Arc::clone(&mark.id),
                    x: mark.tile.x,
                    z: mark.tile.z,
                });
                flags = mark.moved_index & TickFlags::MOVE;
            }
            if mark.alive && mark.changed_at == now {
                flags |= TickFlags::CHANGED;
            }
            self.tick_flags.push(flags);
        }
        Arc::new(table)
    }

    /// By slot, whether each entity moved (and its move's index) or changed in the tick of the
    /// last [`Self::tick_moves`]; a slot beyond it did neither.
    pub fn tick_flags(&self) -> &[u32] {
        &self.tick_flags
    }

    /// Records changed fields of a live entity in tick `now` (merged with earlier changes that tick).
    pub fn record_change(&mut self, handle: Handle, now: u64, apply: impl FnOnce(&mut Changed)) {
        let Some((body, mark)) = self.body_and_mark(handle) else {
            return;
        };
        if mark.changed_at != now {
            mark.changed_at = now;
            body.change = Changed {
                id: body.wire.id.clone(),
                ..Changed::default()
            };
        }
        apply(&mut body.change);
    }

    /// A live entity and its mark, both mutably.
    fn body_and_mark(&mut self, handle: Handle) -> Option<(&mut Body, &mut Mark)> {
        let (index, generation) = split(handle);
        let slot = self.slots.get_mut(index)?;
        if !slot.alive || slot.generation != generation {
            return None;
        }
        Some((slot.body.as_mut()?, self.marks.get_mut(index)?))
    }
}

/// A bare NPC named `id` at the origin, for the crate's unit tests.
#[cfg(test)]
pub(crate) fn test_npc(id: &str) -> Entity {
    Entity::at(id, wayfarer_protocol::ws::EntityKind::Npc, 0, 0)
}

#[cfg(test)]
mod tests {
    use super::test_npc as entity;
    use super::*;

    #[test]
    fn retired_ids_stay_readable_until_released_and_handles_do_not_alias() {
        let mut entities = Entities::default();
        let a = entities.insert(entity("a"));
        entities.retire(a);
        assert!(entities.get(a).is_none());
        assert!(entities.mark(a).is_none());
        assert_eq!(entities.id_in_slot(slot_of(a)).map(|id| &**id), Some("a"));
        entities.release_retired();
        let b = entities.insert(entity("b"));
        assert_eq!(slot_of(a), slot_of(b), "the slot is reused");
        assert_eq!(entities.id_in_slot(slot_of(b)).map(|id| &**id), Some("b"));
        assert_ne!(a, b, "the reused slot has a new generation");
        assert!(entities.get(a).is_none());
        assert!(entities.mark(a).is_none());
        assert_eq!(entities.get(b).map(|b| b.wire.id.as_str()), Some("b"));
        assert_eq!(entities.mark(b).map(|m| &*m.id), Some("b"));
    }

    #[test]
    fn moves_and_changes_are_stamped_with_their_tick() {
        let mut entities = Entities::default();
        let a = entities.insert(entity("a"));
        entities.set_tile(a, TilePos { x: 1, z: 2 }, 7);
        let body = entities.get(a).unwrap();
        let mark = entities.mark(a).unwrap();
        assert_eq!(
            (body.tile(), mark.tile, mark.moved_at),
            (TilePos { x: 1, z: 2 }, TilePos { x: 1, z: 2 }, 7)
        );
        entities.record_change(a, 8, |c| c.health = Some(3));
        entities.record_change(a, 8, |c| c.max_health = Some(5));
        let body = entities.get(a).unwrap();
        assert_eq!(entities.mark(a).unwrap().changed_at, 8);
        assert_eq!(body.change.health, Some(3));
        assert_eq!(body.change.max_health, Some(5));
        assert_eq!(body.change.id, "a");
    }
}
