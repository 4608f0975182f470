//! Lines for everyone in the world (global chat said here or relayed from another world, and
//! system messages to everyone), as [`Event::ChatToAll`]: each names who does NOT hear it, so
//! neither the sim nor the server lists (or looks up) its thousands of listeners.
//!
//! The server hands such a line to every player record it holds at the tick's dispatch: those of
//! everyone in the world at the end of the tick and of those who left in it (their records go
//! after the dispatch). A line's `except` is therefore whoever of them did not hear it: those
//! ignoring its sender when it was said, those who joined in the tick after it, and those who
//! left in the tick before it. Joins and leaves are logged in order through the tick, each line
//! marks where in the log it was said, and the tick's lines are settled against the log once all
//! its commands have run ([`ToAll::settle`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::events::Event;

/// This tick's lines to everyone and comings and goings, and who ignores anyone.
#[derive(Debug, Default)]
pub(crate) struct ToAll {
    /// Ids of the players in the world whose ignore lists are not empty: a line asks only them
    /// whether they ignore its sender. Ordered, so `except` comes out the same on every run.
    ignorers: BTreeSet<String>,
    /// This tick's joins (`true`) and leaves (`false`), in the order they ran: only those that
    /// changed who is in the world (a join of a player already in updates it in place).
    roster: Vec<(Arc<str>, bool)>,
    /// This tick's lines to everyone: where each is in the tick's events, and how much of
    /// `roster` had run when it was said.
    lines: Vec<(usize, usize)>,
}

impl ToAll {
    /// Player `id`'s ignore list is now empty or not.
    pub(crate) fn set_ignoring(&mut self, id: &str, ignoring: bool) {
        if ignoring {
            if !self.ignorers.contains(id) {
                self.ignorers.insert(id.to_owned());
            }
        } else {
            self.ignorers.remove(id);
        }
    }

    /// The players who ignore anyone, to ask about a line's sender.
    pub(crate) fn ignorers(&self) -> impl Iterator<Item = &str> {
        self.ignorers.iter().map(String::as_str)
    }

    /// Player `id` entered the world.
    pub(crate) fn entered(&mut self, id: &Arc<str>) {
        self.roster.push((Arc::clone(id), true));
    }

    /// Player `id` left the world.
    pub(crate) fn left(&mut self, id: &Arc<str>) {
        self.ignorers.remove(&**id);
        self.roster.push((Arc::clone(id), false));
    }

    /// A line to everyone was pushed to `events` (the last event).
    pub(crate) fn said(&mut self, events: &[Event]) {
        debug_assert!(matches!(events.last(), Some(Event::ChatToAll { .. })));
        self.lines.push((events.len() - 1, self.roster.len()));
    }

    /// Adds to each of this tick's lines to everyone those who came or went in the tick and were
    /// not in the world when it was said; the tick is over for the log.
    pub(crate) fn settle(&mut self, events: &mut [Event]) {
        let lines = std::mem::take(&mut self.lines);
        if !self.roster.is_empty() {
            for (at, mark) in lines {
                let absent = absent_at(&self.roster, mark);
                match events.get_mut(at) {
                    Some(Event::ChatToAll { except, .. }) => except.extend(absent),
                    _ => debug_assert!(false, "event {at} is not a line to everyone"),
                }
            }
        }
        self.roster.clear();
    }
}

/// The players of `roster` who were not in the world after its first `mark` entries: for each,
/// the last of its entries before the mark says whether it was in (a join) or not (a leave); one
/// with none before the mark was in exactly when its first entry after it is a leave.
fn absent_at(roster: &[(Arc<str>, bool)], mark: usize) -> Vec<Arc<str>> {
    let mut present: HashMap<&str, (bool, &Arc<str>)> = HashMap::new();
    for (id, joined) in &roster[..mark] {
        present.insert(&**id, (*joined, id));
    }
    for (id, joined) in &roster[mark..] {
        present.entry(&**id).or_insert((!*joined, id));
    }
    let mut absent: Vec<Arc<str>> = present
        .into_values()
        .filter(|(present, _)| !present)
        .map(|(_, id)| Arc::clone(id))
        .collect();
    // The map's order is random: sorted, the event is the same on every run.
    absent.sort_unstable();
    absent
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roster(entries: &[(&str, bool)]) -> Vec<(Arc<str>, bool)> {
        entries.iter().map(|&(id, j)| (Arc::from(id), j)).collect()
    }

    fn names(ids: Vec<Arc<str>>) -> Vec<String> {
        ids.iter().map(|id| id.to_string()).collect()
    }

    #[test]
    fn absent_are_those_who_joined_after_or_left_before_the_mark() {
        // a joins, b leaves, [mark 2], c joins, d leaves, then b comes back.
        let log = roster(&[
            ("a", true),
            ("b", false),
            ("c", true),
            ("d", false),
            ("b", true),
        ]);
        assert_eq!(names(absent_at(&log, 2)), ["b", "c"]);
        assert_eq!(names(absent_at(&log, 0)), ["a", "c"]);
        assert_eq!(names(absent_at(&log, 5)), ["d"]);
        // Left and came back before the line: there when it was said.
        let log = roster(&[("e", false), ("e", true), ("f", true), ("f", false)]);
        assert_eq!(names(absent_at(&log, 2)), ["f"]);
        assert_eq!(names(absent_at(&log, 4)), ["f"]);
        assert!(absent_at(&log, 3).is_empty());
    }
}
