//! Characters outside any one route: the rule for their names, and their creation and deletion
//! with what those do to the account's limits and to the economy audit.

pub mod creation;
pub mod deletion;
pub mod name;

pub use name::{CharacterName, NameError, Namer};
