//! The `added` and `removed` lists of a `world:update` as picks from one table of the entities a
//! view thread added to or removed from views in one tick.
//!
//! Why: a crowd's viewer gains and loses a couple of dozen entities at the edge of its view every
//! tick, and each of them used to be a reference count taken on the entity (an `Arc` clone) by a
//! view thread and dropped by a socket writer: ~90,000 atomic operations a tick on cache lines
//! that every view thread and every writer fought over (two in five of the diff's samples). Now a
//! view thread takes each entity once a tick into a [`TickEntities`] table and an update's lists
//! are 4-byte indices into it.
//!
//! The cost: a client that stops reading holds its queue's updates, and with them every table of
//! those ticks, until its queue fills (128 ticks, then it is dropped), where it held only its own
//! picks before. In the 2,000-player crowd that is ~100 KB of references a tick and the earlier
//! versions of the entities that moved since (a moved entity is copied when a table still holds
//! it): ~30 MB at most, the same for one stalled reader or many, since they hold the same tables.
//! For that reason the entities are not kept encoded in the table (as [`super::TickMoves`] keeps
//! its moves): their JSON would be ~800 KB a tick, ~100 MB more.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::encode::{write_entity, write_str, REMOVED_OVERHEAD_BYTES};
use super::Entity;

/// Entities added to or removed from views in one tick (by one view thread): the added ones
/// whole, the removed ones by their ids.
#[derive(Debug, Default)]
pub struct TickEntities {
    added: Vec<Arc<Entity>>,
    removed: Vec<Arc<str>>,
}

impl TickEntities {
    /// Adds an entity for [`AddedList`]s, returning its index.
    pub fn push_added(&mut self, entity: Arc<Entity>) -> u32 {
        self.added.push(entity);
        (self.added.len() - 1) as u32
    }

    /// Adds a removed entity's id for [`RemovedList`]s, returning its index.
    pub fn push_removed(&mut self, id: Arc<str>) -> u32 {
        self.removed.push(id);
        (self.removed.len() - 1) as u32
    }

    /// Added entities in the table.
    pub fn added_len(&self) -> usize {
        self.added.len()
    }

    /// Removed ids in the table.
    pub fn removed_len(&self) -> usize {
        self.removed.len()
    }
}

/// One empty table for every list made without one (defaults, deserialised empty lists).
fn empty_table() -> Arc<TickEntities> {
    static EMPTY: OnceLock<Arc<TickEntities>> = OnceLock::new();
    Arc::clone(EMPTY.get_or_init(|| Arc::new(TickEntities::default())))
}

/// The entities one client is told were added: indices into a shared [`TickEntities`].
#[derive(Clone)]
pub struct AddedList {
    table: Arc<TickEntities>,
    picks: Vec<u32>,
}

impl AddedList {
    /// The table's added entities at `picks`, in that order.
    pub fn picking(table: Arc<TickEntities>, picks: Vec<u32>) -> AddedList {
        debug_assert!(
            picks.iter().all(|&i| (i as usize) < table.added.len()),
            "an entity of another table"
        );
        AddedList { table, picks }
    }

    /// Entities listed.
    pub fn len(&self) -> usize {
        self.picks.len()
    }

    /// True when none is listed.
    pub fn is_empty(&self) -> bool {
        self.picks.is_empty()
    }

    /// The `n`th entity listed.
    pub fn get(&self, n: usize) -> Option<&Arc<Entity>> {
        self.table.added.get(*self.picks.get(n)? as usize)
    }

    /// The entities, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Entity>> + '_ {
        self.picks
            .iter()
            .filter_map(|&i| self.table.added.get(i as usize))
    }

    /// Appends the entries' JSON separated by commas (the inside of the array).
    pub(super) fn write_entries(&self, out: &mut Vec<u8>) {
        for (n, entity) in self.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_entity(entity, out);
        }
    }
}

impl Default for AddedList {
    fn default() -> Self {
        AddedList {
            table: empty_table(),
            picks: Vec::new(),
        }
    }
}

impl From<Vec<Arc<Entity>>> for AddedList {
    /// A list of its own table (tests, benchmarks, messages read from JSON).
    fn from(entities: Vec<Arc<Entity>>) -> Self {
        if entities.is_empty() {
            return AddedList::default();
        }
        let mut table = TickEntities::default();
        let picks = entities.into_iter().map(|e| table.push_added(e)).collect();
        AddedList::picking(Arc::new(table), picks)
    }
}

impl From<Vec<Entity>> for AddedList {
    fn from(entities: Vec<Entity>) -> Self {
        entities
            .into_iter()
            .map(Arc::new)
            .collect::<Vec<_>>()
            .into()
    }
}

impl IntoIterator for AddedList {
    type Item = Arc<Entity>;
    type IntoIter = std::vec::IntoIter<Arc<Entity>>;

    /// The entities, in order (each a reference taken; the table stays shared).
    fn into_iter(self) -> Self::IntoIter {
        self.iter().cloned().collect::<Vec<_>>().into_iter()
    }
}

impl FromIterator<Arc<Entity>> for AddedList {
    fn from_iter<I: IntoIterator<Item = Arc<Entity>>>(entities: I) -> Self {
        entities.into_iter().collect::<Vec<_>>().into()
    }
}

impl<'a> IntoIterator for &'a AddedList {
    type Item = &'a Arc<Entity>;
    type IntoIter = Box<dyn Iterator<Item = &'a Arc<Entity>> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl std::fmt::Debug for AddedList {
    /// The entities listed, as a `Vec` of them prints: not the table, which depends on the view
    /// thread that made the list.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for AddedList {
    /// Equal when they list equal entities in the same order, whatever their tables.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Serialize for AddedList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for AddedList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Entity>::deserialize(deserializer).map(AddedList::from)
    }
}

/// The ids of the entities one client is told were removed: indices into a shared
/// [`TickEntities`].
#[derive(Clone)]
pub struct RemovedList {
    table: Arc<TickEntities>,
    picks: Vec<u32>,
}

impl RemovedList {
    /// The table's removed ids at `picks`, in that order.
    pub fn picking(table: Arc<TickEntities>, picks: Vec<u32>) -> RemovedList {
        debug_assert!(
            picks.iter().all(|&i| (i as usize) < table.removed.len()),
            "an id of another table"
        );
        RemovedList { table, picks }
    }

    /// Ids listed.
    pub fn len(&self) -> usize {
        self.picks.len()
    }

    /// True when none is listed.
    pub fn is_empty(&self) -> bool {
        self.picks.is_empty()
    }

    /// The ids, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<str>> + '_ {
        self.picks
            .iter()
            .filter_map(|&i| self.table.removed.get(i as usize))
    }

    /// Bytes of the ids' JSON strings with their separating commas, at least (escapes add more).
    pub(super) fn encoded_len(&self) -> usize {
        self.iter()
            .map(|id| id.len() + REMOVED_OVERHEAD_BYTES)
            .sum()
    }

    /// Appends the ids as JSON strings separated by commas (the inside of the array).
    pub(super) fn write_entries(&self, out: &mut Vec<u8>) {
        for (n, id) in self.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_str(id, out);
        }
    }
}

impl Default for RemovedList {
    fn default() -> Self {
        RemovedList {
            table: empty_table(),
            picks: Vec::new(),
        }
    }
}

impl From<Vec<Arc<str>>> for RemovedList {
    /// A list of its own table (tests, benchmarks, messages read from JSON).
    fn from(ids: Vec<Arc<str>>) -> Self {
        if ids.is_empty() {
            return RemovedList::default();
        }
        let mut table = TickEntities::default();
        let picks = ids.into_iter().map(|id| table.push_removed(id)).collect();
        RemovedList::picking(Arc::new(table), picks)
    }
}

impl FromIterator<Arc<str>> for RemovedList {
    fn from_iter<I: IntoIterator<Item = Arc<str>>>(ids: I) -> Self {
        ids.into_iter().collect::<Vec<_>>().into()
    }
}

impl<'a> IntoIterator for &'a RemovedList {
    type Item = &'a Arc<str>;
    type IntoIter = Box<dyn Iterator<Item = &'a Arc<str>> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl std::fmt::Debug for RemovedList {
    /// The ids listed (not the table: see [`AddedList`]'s).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for RemovedList {
    /// Equal when they list the same ids in the same order, whatever their tables.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Serialize for RemovedList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for RemovedList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Arc<str>>::deserialize(deserializer).map(RemovedList::from)
    }
}

// On the wire the lists are plain arrays of `Entity` and of id strings (the serde impls above).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for AddedList {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AddedList".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<Vec<Entity>>()
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for RemovedList {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RemovedList".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<Vec<String>>()
    }
}

#[cfg(test)]
mod tests {
    use super::super::EntityKind;
    use super::*;

    fn player(id: &str, x: i32) -> Entity {
        Entity {
            name: Some(format!("N\"{id}")),
            health: Some(10),
            max_health: Some(10),
            ..Entity::at(id, EntityKind::Player, x, -x)
        }
    }

    #[test]
    fn picks_read_back_the_table_entries_in_pick_order_and_encode_as_serde_does() {
        let mut table = TickEntities::default();
        let a = table.push_added(Arc::new(player("a", 1)));
        table.push_added(Arc::new(player("b", 2)));
        let c = table.push_added(Arc::new(player("c", -3)));
        let gone = table.push_removed("g\"one".into());
        let left = table.push_removed("left".into());
        let table = Arc::new(table);
        let added = AddedList::picking(Arc::clone(&table), vec![c, a]);
        let removed = RemovedList::picking(Arc::clone(&table), vec![left, gone]);
        assert_eq!(
            added.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["c", "a"]
        );
        assert_eq!(
            added,
            AddedList::from(vec![player("c", -3), player("a", 1)])
        );
        assert_ne!(added, AddedList::from(vec![player("a", 1)]));
        assert_eq!(
            removed,
            RemovedList::from(vec![Arc::from("left"), Arc::from("g\"one")])
        );

        let (mut out, mut ids) = (Vec::new(), Vec::new());
        added.write_entries(&mut out);
        removed.write_entries(&mut ids);
        let expected = format!(
            "{},{}",
            serde_json::to_string(&player("c", -3)).unwrap(),
            serde_json::to_string(&player("a", 1)).unwrap()
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(String::from_utf8(ids).unwrap(), r#""left","g\"one""#);
    }

    #[test]
    fn serialise_as_plain_arrays_and_read_back() {
        let added = AddedList::from(vec![player("a", 1), player("b", 2)]);
        let text = serde_json::to_string(&added).unwrap();
        assert_eq!(
            text,
            serde_json::to_string(&vec![player("a", 1), player("b", 2)]).unwrap()
        );
        let back: AddedList = serde_json::from_str(&text).unwrap();
        assert_eq!(back, added);
        let removed = RemovedList::from(vec![Arc::from("x"), Arc::from("y")]);
        let text = serde_json::to_string(&removed).unwrap();
        assert_eq!(text, r#"["x","y"]"#);
        // The sizing hint: each id with its quotes and a comma (exact for ids needing no escape).
        assert_eq!(removed.encoded_len(), r#""x","y","#.len());
        let back: RemovedList = serde_json::from_str(&text).unwrap();
        assert_eq!(back, removed);
        let empty: AddedList = serde_json::from_str("[]").unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty, AddedList::default());
        let empty: RemovedList = serde_json::from_str("[]").unwrap();
        assert_eq!(empty, RemovedList::default());
    }

    #[test]
    fn print_as_the_lists_they_hold_whatever_their_tables() {
        let mut table = TickEntities::default();
        table.push_added(Arc::new(player("other", 9)));
        let a = table.push_added(Arc::new(player("a", 1)));
        table.push_removed("zz".into());
        let x = table.push_removed("x".into());
        let table = Arc::new(table);
        let added = AddedList::picking(Arc::clone(&table), vec![a]);
        let removed = RemovedList::picking(table, vec![x]);
        assert_eq!(
            format!("{added:?}"),
            format!("{:?}", vec![Arc::new(player("a", 1))])
        );
        assert_eq!(format!("{removed:?}"), r#"["x"]"#);
    }
}
