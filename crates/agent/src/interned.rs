//! One shared copy of each entity id, name and type the agents of a process have in view.
//!
//! A host running a thousand agents in one crowd (`serve --agents N`) would otherwise keep a
//! thousand copies of every player's id and name, one per agent that sees them, and the view's
//! strings were most of an agent's memory (BENCHMARKS.md, "Embedded agents"). Every agent's
//! model takes its strings from here instead, so a string seen by many agents is held once.
//!
//! Strings nobody else holds any more (players who left every view, ground items taken) are
//! dropped whenever the table has doubled since the last sweep, so it stays within twice what
//! is in some view, at an amortised cost of one pass per insertion.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// An interned string: cloning it is a reference count, comparing and hashing read the text.
pub type Name = Arc<str>;

/// The table is never swept below this size (sweeping a small table often would be waste).
const MIN_SWEEP_AT: usize = 4096;

struct Table {
    names: HashSet<Name>,
    /// The size at which the next sweep runs.
    sweep_at: usize,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

/// The shared copy of `text`, made at first need.
pub fn intern(text: &str) -> Name {
    let mut table = TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let table = table.get_or_insert_with(|| Table {
        names: HashSet::new(),
        sweep_at: MIN_SWEEP_AT,
    });
    if let Some(name) = table.names.get(text) {
        return Name::clone(name);
    }
    if table.names.len() >= table.sweep_at {
        // Only the table holds these: nobody has them in view any more.
        table.names.retain(|name| Arc::strong_count(name) > 1);
        table.sweep_at = (table.names.len() * 2).max(MIN_SWEEP_AT);
    }
    let name: Name = Arc::from(text);
    table.names.insert(Name::clone(&name));
    name
}

/// How many strings the table holds now (for tests and diagnostics).
pub fn held() -> usize {
    TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .as_ref()
        .map_or(0, |table| table.names.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_is_one_copy_and_unheld_copies_are_swept() {
        let a = intern("interned-test-a");
        let b = intern("interned-test-a");
        assert!(Arc::ptr_eq(&a, &b), "one copy for equal text");
        assert_eq!(&*a, "interned-test-a");
        // Fill the table past its sweep size with strings nobody keeps: the sweep drops them and
        // keeps `a`, which is still held.
        for n in 0..(MIN_SWEEP_AT * 3) {
            intern(&format!("interned-test-drop-{n}"));
        }
        assert!(
            held() < MIN_SWEEP_AT * 3,
            "unheld strings were swept: {}",
            held()
        );
        assert!(
            Arc::ptr_eq(&a, &intern("interned-test-a")),
            "a held string survives a sweep"
        );
    }
}
