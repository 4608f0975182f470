//! What the agent sees, by id, in a table whose entries are their own keys.
//!
//! A `HashMap<Name, Seen>` spent 16 of its 88 bytes a slot on a second copy of the id, which the
//! [`Seen`] already holds. A crowded view is several hundred entries and a host runs a thousand
//! agents, so the table is keyed by the entry's own id instead.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;

use crate::model::Seen;

/// Room the table may keep beyond twice its length before it gives it back.
pub const SPARE_ENTRIES: usize = 32;

/// The entities in view (other than the agent itself), by id.
#[derive(Debug, Clone, Default)]
pub struct InView {
    table: HashTable<Seen>,
    hasher: RandomState,
}

impl InView {
    fn hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    /// The entity `id`, if in view.
    pub fn get(&self, id: &str) -> Option<&Seen> {
        self.table.find(self.hash(id), |e| e.id() == id)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Seen> {
        let hash = self.hash(id);
        self.table.find_mut(hash, |e| e.id() == id)
    }

    pub fn contains_key(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// Adds `seen`, replacing an entry of the same id.
    pub fn insert(&mut self, seen: Seen) {
        let hash = self.hash(seen.id());
        let hasher = &self.hasher;
        match self.table.entry(
            hash,
            |e| e.id() == seen.id(),
            |e: &Seen| hasher.hash_one(e.id()),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut slot) => *slot.get_mut() = seen,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(seen);
            }
        }
    }

    /// Takes `id` out of view.
    pub fn remove(&mut self, id: &str) -> Option<Seen> {
        let hash = self.hash(id);
        match self.table.find_entry(hash, |e| e.id() == id) {
            Ok(slot) => Some(slot.remove().0),
            Err(_) => None,
        }
    }

    /// Every entity in view, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &Seen> {
        self.table.iter()
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Entries the table holds room for.
    pub fn capacity(&self) -> usize {
        self.table.capacity()
    }

    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Shrinks the table to fit once more than half its room is spare. An agent that walked
    /// through a crowd or a pile of loot would otherwise keep room for all of it: with a thousand
    /// agents, each holding the room of its busiest moment grew the process steadily for as long
    /// as it ran (heaptrack: the model's tables were 64 MiB after 4 minutes, 112 after 13). A
    /// table that grows again doubles, so a view hovering about one size rehashes rarely.
    pub fn give_back_spare_room(&mut self) {
        let len = self.table.len();
        if self.table.capacity() > 2 * len + SPARE_ENTRIES {
            let hasher = &self.hasher;
            self.table
                .shrink_to(len, |e: &Seen| hasher.hash_one(e.id()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_protocol::ws::{Entity, EntityKind};

    fn rock(id: &str, x: i32) -> Seen {
        Seen::of(&Entity {
            id: id.into(),
            kind: EntityKind::Resource,
            x,
            z: 0,
            name: Some("Rock".into()),
            health: None,
            max_health: None,
            item_id: None,
            quantity: None,
            resource_type: Some("rock".into()),
            depleted: Some(false),
            type_id: Some("rock_copper".into()),
            worn: None,
            open: None,
            side: None,
            quest: None,
        })
    }

    #[test]
    fn entries_are_found_replaced_and_removed_by_their_own_id() {
        let mut view = InView::default();
        for i in 0..100 {
            view.insert(rock(&format!("res-{i}"), i));
        }
        assert_eq!(view.len(), 100);
        assert_eq!(view.get("res-42").map(|e| e.x), Some(42));
        view.insert(rock("res-42", -1));
        assert_eq!(view.len(), 100, "replaced, not added");
        assert_eq!(view.get("res-42").map(|e| e.x), Some(-1));
        if let Some(e) = view.get_mut("res-7") {
            e.depleted = Some(true);
        }
        assert_eq!(view.get("res-7").and_then(|e| e.depleted), Some(true));
        assert_eq!(view.remove("res-7").map(|e| e.x), Some(7));
        assert!(view.remove("res-7").is_none());
        assert!(!view.contains_key("res-7") && view.contains_key("res-8"));
        assert_eq!(view.values().count(), 99);
        view.clear();
        assert!(view.is_empty() && view.get("res-8").is_none());
    }
}
