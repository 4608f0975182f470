//! One shared copy of each entity id, each look ([`crate::model::Look`]: name and content ids) and
//! each entity's whole identity ([`crate::model::Ident`]: id, kind and look, so an agent's slot
//! for it is one pointer) that the agents of a process have in view.
//!
//! A host running a thousand agents in one crowd (`serve --agents N`) would otherwise keep a
//! thousand copies of every player's id and name, one per agent that sees them, and the view's
//! strings were most of an agent's memory (BENCHMARKS.md, "Embedded agents"). Every agent's
//! model takes them from here instead, so what many agents see is held once.
//!
//! Values nobody else holds any more (players who left every view, ground items taken) are
//! dropped whenever a table has doubled since its last sweep, so it stays within about twice
//! what is in some view, at an amortised cost of one pass per insertion.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use crate::model::{Ident, Look};

/// An interned string: cloning it is a reference count, comparing and hashing read the text.
pub type Name = Arc<str>;

/// A table is never swept below this size (sweeping a small table often would be waste).
const MIN_SWEEP_AT: usize = 4096;

struct Table<T: ?Sized> {
    values: HashSet<Arc<T>>,
    /// The size at which the next sweep runs.
    sweep_at: usize,
}

impl<T: ?Sized + Hash + Eq> Table<T> {
    /// The shared copy of `value`, made by `make` at first need.
    fn get<Q>(&mut self, value: &Q, make: impl FnOnce(&Q) -> Arc<T>) -> Arc<T>
    where
        Arc<T>: Borrow<Q>,
        Q: ?Sized + Hash + Eq,
    {
        if let Some(shared) = self.values.get(value) {
            return Arc::clone(shared);
        }
        self.admit(make(value))
    }

    /// Adds a value the table does not hold yet.
    fn admit(&mut self, shared: Arc<T>) -> Arc<T> {
        if self.values.len() >= self.sweep_at {
            // Only the table holds these: nobody has them in view any more.
            self.values.retain(|shared| Arc::strong_count(shared) > 1);
            self.sweep_at = (self.values.len() * 2).max(MIN_SWEEP_AT);
        }
        self.values.insert(Arc::clone(&shared));
        shared
    }
}

impl<T: Hash + Eq> Table<T> {
    /// The shared copy of `value`; at first need, `value` itself becomes it (no copy is made).
    fn get_owned(&mut self, value: T) -> Arc<T> {
        if let Some(shared) = self.values.get(&value) {
            return Arc::clone(shared);
        }
        self.admit(Arc::new(value))
    }
}

/// A table behind a lock, made at first use.
struct Shared<T: ?Sized>(Mutex<Option<Table<T>>>);

impl<T: ?Sized + Hash + Eq> Shared<T> {
    const fn new() -> Shared<T> {
        Shared(Mutex::new(None))
    }

    fn with<R>(&self, f: impl FnOnce(&mut Table<T>) -> R) -> R {
        let mut table = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(table.get_or_insert_with(|| Table {
            values: HashSet::new(),
            sweep_at: MIN_SWEEP_AT,
        }))
    }
}

static NAMES: Shared<str> = Shared::new();
static LOOKS: Shared<Look> = Shared::new();
static IDENTS: Shared<Ident> = Shared::new();

/// The shared copy of `text`.
pub fn intern(text: &str) -> Name {
    NAMES.with(|table| table.get(text, |text: &str| Arc::from(text)))
}

/// The shared copy of `look`.
pub fn intern_look(look: Look) -> Arc<Look> {
    LOOKS.with(|table| table.get_owned(look))
}

/// The shared copy of `ident`.
pub fn intern_ident(ident: Ident) -> Arc<Ident> {
    IDENTS.with(|table| table.get_owned(ident))
}

/// How many strings the table holds now (for tests and diagnostics).
pub fn names_held() -> usize {
    NAMES.with(|table| table.values.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_value_is_one_copy_and_unheld_copies_are_swept() {
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
            names_held() < MIN_SWEEP_AT * 3,
            "unheld strings were swept: {}",
            names_held()
        );
        assert!(
            Arc::ptr_eq(&a, &intern("interned-test-a")),
            "a held string survives a sweep"
        );

        let look = || Look {
            name: Some(intern("Goblin")),
            type_id: Some(intern("goblin")),
            ..Look::default()
        };
        assert!(Arc::ptr_eq(&intern_look(look()), &intern_look(look())));
        let other = Look {
            name: Some(intern("Goblin chief")),
            ..look()
        };
        assert!(!Arc::ptr_eq(&intern_look(look()), &intern_look(other)));
    }
}
