//! The harness, `wayfarer-testkit` (shared with the `worlds` and the agent's tests), under the
//! name these tests use.

pub use wayfarer_testkit::*;
