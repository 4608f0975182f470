//! The `moved` list of a `world:update` as picks from one table of the tick's moves.
//!
//! Why: in a crowd every entity that moved is listed in the updates of the hundreds of players who
//! see it. Each viewer's list used to hold its own `Moved` (a shared id whose reference count every
//! view thread and every socket writer touched: the same cache lines fought over by all cores) and
//! each socket writer encoded every entry again. Now the world encodes each move once a tick into a
//! [`TickMoves`] table and a viewer's [`MovedList`] is a list of 4-byte indices into it: the view
//! threads write plain integers and a socket writer copies ready bytes.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::encode::write_moved;
use super::Moved;

/// Every move of one tick, each with its `moved` entry's JSON (`{"id":…,"x":…,"z":…}`, the bytes
/// serde writes for [`Moved`]).
#[derive(Debug, Default)]
pub struct TickMoves {
    entries: Vec<Moved>,
    /// All entries' JSON back to back; entry `i` ends at `ends[i]` and starts where `i - 1` ended.
    json: Vec<u8>,
    ends: Vec<u32>,
}

impl TickMoves {
    /// An empty table with room for `moves` entries.
    pub fn with_capacity(moves: usize) -> TickMoves {
        TickMoves {
            entries: Vec::with_capacity(moves),
            // An entry with a UUID id and two short numbers is about 60 bytes.
            json: Vec::with_capacity(moves * 64),
            ends: Vec::with_capacity(moves),
        }
    }

    /// Adds a move, returning its index for [`MovedList::push`].
    pub fn push(&mut self, moved: Moved) -> u32 {
        write_moved(&moved, &mut self.json);
        self.ends.push(self.json.len() as u32);
        self.entries.push(moved);
        (self.entries.len() - 1) as u32
    }

    /// Moves in the table.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing moved.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The move at `index`.
    pub fn get(&self, index: u32) -> Option<&Moved> {
        self.entries.get(index as usize)
    }

    /// The encoded entry at `index` (empty for an index out of range, which
    /// [`MovedList::push`] refuses in debug builds).
    fn json_of(&self, index: u32) -> &[u8] {
        let i = index as usize;
        let Some(&end) = self.ends.get(i) else {
            return &[];
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.json[start as usize..end as usize]
    }
}

/// The moves one client is told of: indices into a shared [`TickMoves`].
#[derive(Debug, Clone)]
pub struct MovedList {
    table: Arc<TickMoves>,
    picks: Vec<u32>,
}

/// One empty table for every list made without one (defaults, deserialised empty lists).
fn empty_table() -> Arc<TickMoves> {
    static EMPTY: OnceLock<Arc<TickMoves>> = OnceLock::new();
    Arc::clone(EMPTY.get_or_init(|| Arc::new(TickMoves::default())))
}

impl MovedList {
    /// A list picking from `table`, empty so far.
    pub fn new(table: Arc<TickMoves>) -> MovedList {
        MovedList {
            table,
            picks: Vec::new(),
        }
    }

    /// Adds the table's move at `index`. Inlined: the view diff calls it for every entity in
    /// view that moved (a crowd's ~200 a view), from another crate, and the call was the push's
    /// own cost again.
    #[inline]
    pub fn push(&mut self, index: u32) {
        debug_assert!(
            (index as usize) < self.table.len(),
            "a move of another table"
        );
        self.picks.push(index);
    }

    /// Room for `more` picks.
    #[inline]
    pub fn reserve(&mut self, more: usize) {
        self.picks.reserve(more);
    }

    /// Gives back spare room when it is more than the picks use (see the view diff).
    pub fn shrink_if_mostly_spare(&mut self) {
        if self.picks.capacity() > 2 * self.picks.len() + 8 {
            self.picks.shrink_to_fit();
        }
    }

    /// Moves listed.
    pub fn len(&self) -> usize {
        self.picks.len()
    }

    /// True when no move is listed.
    pub fn is_empty(&self) -> bool {
        self.picks.is_empty()
    }

    /// The moves, in order.
    pub fn iter(&self) -> Moves<'_> {
        Moves {
            table: &self.table,
            picks: self.picks.iter(),
        }
    }

    /// Bytes of the entries' JSON with their separating commas.
    pub(super) fn encoded_len(&self) -> usize {
        self.picks
            .iter()
            .map(|&i| self.table.json_of(i).len() + 1)
            .sum()
    }

    /// Appends the entries' JSON separated by commas (the inside of the array).
    pub(super) fn write_entries(&self, out: &mut Vec<u8>) {
        for (n, &i) in self.picks.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(self.table.json_of(i));
        }
    }
}

/// The moves of a [`MovedList`], in order.
#[derive(Debug, Clone)]
pub struct Moves<'a> {
    table: &'a TickMoves,
    picks: std::slice::Iter<'a, u32>,
}

impl<'a> Iterator for Moves<'a> {
    type Item = &'a Moved;

    fn next(&mut self) -> Option<&'a Moved> {
        self.picks.find_map(|&i| self.table.get(i))
    }
}

impl<'a> IntoIterator for &'a MovedList {
    type Item = &'a Moved;
    type IntoIter = Moves<'a>;

    fn into_iter(self) -> Moves<'a> {
        self.iter()
    }
}

impl Default for MovedList {
    fn default() -> Self {
        MovedList::new(empty_table())
    }
}

impl From<Vec<Moved>> for MovedList {
    /// A list of its own table (tests, benchmarks, messages read from JSON).
    fn from(moves: Vec<Moved>) -> Self {
        if moves.is_empty() {
            return MovedList::default();
        }
        let mut table = TickMoves::with_capacity(moves.len());
        let picks = moves.into_iter().map(|m| table.push(m)).collect();
        MovedList {
            table: Arc::new(table),
            picks,
        }
    }
}

impl PartialEq for MovedList {
    /// Equal when they list the same moves in the same order, whatever their tables.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Serialize for MovedList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for MovedList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Moved>::deserialize(deserializer).map(MovedList::from)
    }
}

// On the wire a list of moves is a plain array of `Moved` (the serde impls above).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for MovedList {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MovedList".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<Vec<super::Moved>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(id: &str, x: i32, z: i32) -> Moved {
        Moved {
            id: id.into(),
            x,
            z,
        }
    }

    #[test]
    fn picks_read_back_the_table_entries_in_pick_order() {
        let mut table = TickMoves::with_capacity(3);
        let a = table.push(moved("a", 1, 2));
        table.push(moved("b", -3, 4));
        let c = table.push(moved("c\"q", 5, -6));
        let table = Arc::new(table);
        let mut list = MovedList::new(Arc::clone(&table));
        list.push(c);
        list.push(a);
        assert_eq!(list.len(), 2);
        assert_eq!(
            list.iter().cloned().collect::<Vec<_>>(),
            vec![moved("c\"q", 5, -6), moved("a", 1, 2)]
        );
        assert_eq!(
            list,
            MovedList::from(vec![moved("c\"q", 5, -6), moved("a", 1, 2)])
        );
        assert_ne!(list, MovedList::from(vec![moved("a", 1, 2)]));
        let mut out = Vec::new();
        list.write_entries(&mut out);
        let expected = format!(
            "{},{}",
            serde_json::to_string(&moved("c\"q", 5, -6)).unwrap(),
            serde_json::to_string(&moved("a", 1, 2)).unwrap()
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(list.encoded_len(), expected.len() + 1);
    }

    #[test]
    fn serialises_as_a_plain_array_and_reads_back() {
        let list = MovedList::from(vec![moved("a", 1, 2), moved("b", 3, 4)]);
        let text = serde_json::to_string(&list).unwrap();
        assert_eq!(text, r#"[{"id":"a","x":1,"z":2},{"id":"b","x":3,"z":4}]"#);
        let back: MovedList = serde_json::from_str(&text).unwrap();
        assert_eq!(back, list);
        let empty: MovedList = serde_json::from_str("[]").unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty, MovedList::default());
    }
}
