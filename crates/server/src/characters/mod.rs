//! Characters outside any one route: the rule for their names, and their creation and deletion
//! with what those do to the account's limits and to the economy audit.

pub mod creation;
pub mod deletion;
pub mod name;

pub use name::{CharacterName, NameError, Namer};

use crate::http::error::ApiError;
use wayfarer_protocol::ErrorCode;
use wayfarer_store::{Character, User};

/// The character an account plays when none is named: its active one, else its first; `doing`
/// words the refusal of an account without any ("create a character before <doing>").
pub fn active_or_first<'a>(
    user: &User,
    characters: &'a [Character],
    doing: &str,
) -> Result<&'a Character, ApiError> {
    user.active_character_id
        .as_ref()
        .and_then(|id| characters.iter().find(|c| &c.id == id))
        .or_else(|| characters.first())
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::Conflict,
                format!("create a character before {doing}"),
            )
        })
}
