//! Character names: the one rule for a name given to a character, wherever one is accepted
//! (`POST /api/character`, `POST /api/v1/player` creating or renaming, `POST /api/agent/register`
//! with a name, the embedded agents' names).
//!
//! Invisible and control characters are taken out first ([`strip_invisible`], the rule chat and
//! display names use too), so every check sees what a reader would see: `Ad\u{200B}min` is refused
//! as a staff name, a name of only U+200B as empty. A name that had any such character is then
//! refused rather than stored changed, so the player knows exactly what everyone else reads. What
//! remains must be 1–12 ASCII letters, digits and single spaces, with no leading or trailing space
//! (ASCII only: look-alike letters from other scripts cannot imitate another player). A name with
//! a staff word ([`STAFF_WORDS`]) alone or as one of its words, in any letter case, is refused
//! unless an admin gives it. Uniqueness ignoring case is the store's (a unique index).

use wayfarer_protocol::text::strip_invisible;

/// Longest character name, in characters.
pub const MAX_CHARS: usize = 12;

/// Words that make a name read as staff; refused as a word of any player-chosen name (character
/// names, and guest display names in `auth::display_name`).
pub const STAFF_WORDS: [&str; 5] = ["admin", "mod", "moderator", "jmod", "system"];

/// A character name that passed [`CharacterName::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CharacterName(String);

/// Who gives the name: staff words are an admin's to give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namer {
    Player,
    Admin,
}

impl Namer {
    /// `Admin` for an account with the admin role, else `Player`.
    pub fn admin_if(is_admin: bool) -> Namer {
        if is_admin {
            Namer::Admin
        } else {
            Namer::Player
        }
    }
}

/// Why a name was refused (the message after "invalid name: ").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("1-{MAX_CHARS} characters")]
    Length,
    #[error("no leading or trailing space")]
    EdgeSpace,
    #[error("single spaces only")]
    DoubleSpace,
    #[error("letters, digits and spaces only")]
    NotAlphanumeric,
    #[error("invisible or control characters are not allowed (without them it reads {visible:?})")]
    Invisible { visible: String },
    #[error("\"{word}\" is reserved for staff")]
    Staff { word: &'static str },
}

impl CharacterName {
    /// Checks `raw` against the rule (see the module's comment); `namer` decides whether staff
    /// words may be used.
    pub fn parse(raw: &str, namer: Namer) -> Result<CharacterName, NameError> {
        let visible = strip_invisible(raw);
        if visible.is_empty() && !raw.is_empty() {
            return Err(NameError::Invisible { visible });
        }
        if visible.is_empty() || visible.chars().count() > MAX_CHARS {
            return Err(NameError::Length);
        }
        if visible.starts_with(' ') || visible.ends_with(' ') {
            return Err(NameError::EdgeSpace);
        }
        if visible.contains("  ") {
            return Err(NameError::DoubleSpace);
        }
        if !visible
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ' ')
        {
            return Err(NameError::NotAlphanumeric);
        }
        if namer == Namer::Player {
            if let Some(word) = staff_word(&visible) {
                return Err(NameError::Staff { word });
            }
        }
        if visible != raw {
            return Err(NameError::Invisible { visible });
        }
        Ok(CharacterName(visible))
    }

    /// The name as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for CharacterName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The first staff word that is a word of `text` (words are split at every character that is not
/// a letter or digit), ignoring letter case.
pub fn staff_word(text: &str) -> Option<&'static str> {
    text.split(|c: char| !c.is_alphanumeric()).find_map(|word| {
        let word = word.to_lowercase();
        STAFF_WORDS.iter().copied().find(|staff| *staff == word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(raw: &str) -> Result<String, NameError> {
        CharacterName::parse(raw, Namer::Player).map(|n| n.as_str().to_owned())
    }

    #[test]
    fn the_length_rule_allows_twelve_and_refuses_thirteen_and_none() {
        assert_eq!(player("A").unwrap(), "A");
        assert_eq!(player("Abcdefghijkl").unwrap(), "Abcdefghijkl");
        assert_eq!(player("Abcdefghijklm"), Err(NameError::Length));
        assert_eq!(player(""), Err(NameError::Length));
    }

    #[test]
    fn spaces_are_single_and_inside() {
        assert_eq!(player("Ann Lee").unwrap(), "Ann Lee");
        assert_eq!(player(" Ann"), Err(NameError::EdgeSpace));
        assert_eq!(player("Ann "), Err(NameError::EdgeSpace));
        assert_eq!(player("Ann  Lee"), Err(NameError::DoubleSpace));
        assert_eq!(player("Ann_Lee"), Err(NameError::NotAlphanumeric));
        assert_eq!(player("Zoë"), Err(NameError::NotAlphanumeric));
    }

    #[test]
    fn invisible_characters_are_refused_after_the_rule_sees_the_visible_name() {
        assert_eq!(
            player("Ann\u{202E}Lee"),
            Err(NameError::Invisible {
                visible: "AnnLee".into()
            })
        );
        assert_eq!(
            player("\u{200B}"),
            Err(NameError::Invisible {
                visible: String::new()
            })
        );
        assert_eq!(
            player("Ad\u{200B}min"),
            Err(NameError::Staff { word: "admin" })
        );
        assert_eq!(
            player("\u{3164}Bob"),
            Err(NameError::Invisible {
                visible: "Bob".into()
            })
        );
        assert_eq!(
            player("Bob\tLee"),
            Err(NameError::Invisible {
                visible: "BobLee".into()
            })
        );
    }

    #[test]
    fn staff_words_alone_or_as_a_word_are_refused_to_players_only() {
        for name in [
            "Admin",
            "ADMIN",
            "System",
            "Mod Admin",
            "mod",
            "Jmod",
            "A Moderator",
            "Mod 1",
        ] {
            assert!(
                matches!(player(name), Err(NameError::Staff { .. })),
                "{name}"
            );
            assert_eq!(
                CharacterName::parse(name, Namer::Admin).unwrap().as_str(),
                name
            );
        }
        for name in [
            "Modest",
            "Sysadmina",
            "Admiral",
            "Systems",
            "Jmodder",
            "Admin2",
        ] {
            assert_eq!(player(name).unwrap(), name);
        }
    }

    #[test]
    fn staff_words_are_found_between_any_separators() {
        assert_eq!(staff_word("[Mod] Ann"), Some("mod"));
        assert_eq!(staff_word("sys-admin"), Some("admin"));
        assert_eq!(staff_word("Sysadmin"), None);
    }
}
