//! Characters outside any one route: the rule for their names, and their creation and deletion
//! with what those do to the account's limits and to the economy audit.

pub mod creation;
pub mod deletion;
pub mod name;

pub use name::{CharacterName, NameError, Namer};

use wayfarer_store::{Character, User};

/// An account with no character where one is needed; the reply says for what.
#[derive(Debug, thiserror::Error)]
#[error("create a character before {doing}")]
pub struct NoCharacter {
    /// What the character was needed for ("entering the world").
    pub doing: &'static str,
}

/// The character an account plays when none is named: its active one, else its first; `doing`
/// words the refusal of an account without any ("create a character before <doing>").
pub fn active_or_first<'a>(
    user: &User,
    characters: &'a [Character],
    doing: &'static str,
) -> Result<&'a Character, NoCharacter> {
    user.active_character_id
        .as_ref()
        .and_then(|id| characters.iter().find(|c| &c.id == id))
        .or_else(|| characters.first())
        .ok_or(NoCharacter { doing })
}
