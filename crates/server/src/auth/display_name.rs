//! Account display names (`POST /api/auth/guest {"name"}`): a label of the account, never shown to
//! other players and never looked up, so not the character-name rule: any script, punctuation and
//! up to 32 characters (clients ask for it before any character exists, and send the player's own
//! wording). What it shares with character names is what protects readers: invisible and control
//! characters are taken out (`wayfarer_protocol::text`, the one list), staff words
//! (`characters::name::STAFF_WORDS`) are refused on the folded name (`characters::name::staff_word`:
//! `Adm1n`, a Cyrillic `Аdmin`), and it cannot carry markup (`<` or `>`), so no page that ever
//! shows it can be made to run it.

use wayfarer_protocol::text::strip_invisible;

use crate::characters::name::staff_word;

/// Longest display name, in characters (after invisible characters are taken out and the ends
/// trimmed).
pub const MAX_CHARS: usize = 32;

/// The name of an account that gave none.
pub const DEFAULT: &str = "Guest";

/// Why a display name was refused (the message after "name: ").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DisplayNameError {
    #[error("1-{MAX_CHARS} visible characters")]
    Length,
    #[error("no markup (< or >)")]
    Markup,
    #[error("\"{word}\" is reserved for staff")]
    Staff { word: &'static str },
}

/// `raw` as the account's display name: invisible and control characters taken out, the ends
/// trimmed, then checked.
pub fn parse(raw: &str) -> Result<String, DisplayNameError> {
    let visible = strip_invisible(raw);
    let name = visible.trim();
    if name.is_empty() || name.chars().count() > MAX_CHARS {
        return Err(DisplayNameError::Length);
    }
    if name.contains(['<', '>']) {
        return Err(DisplayNameError::Markup);
    }
    if let Some(word) = staff_word(name) {
        return Err(DisplayNameError::Staff { word });
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_taken_out_and_the_rest_checked() {
        assert_eq!(parse("  Zoë\u{202E} O'Brien ").unwrap(), "Zoë O'Brien");
        assert_eq!(parse("\u{200B}"), Err(DisplayNameError::Length));
        assert_eq!(parse(&"x".repeat(32)).unwrap(), "x".repeat(32));
        assert_eq!(parse(&"x".repeat(33)), Err(DisplayNameError::Length));
        // The limit counts what is left: invisible characters do not use it up.
        assert_eq!(
            parse(&format!("{}\u{200B}", "x".repeat(32))).unwrap(),
            "x".repeat(32)
        );
    }

    #[test]
    fn markup_and_staff_words_are_refused() {
        assert_eq!(parse("<script>"), Err(DisplayNameError::Markup));
        assert_eq!(parse("a > b"), Err(DisplayNameError::Markup));
        assert_eq!(
            parse("Admin"),
            Err(DisplayNameError::Staff { word: "admin" })
        );
        assert_eq!(
            parse("[MOD] Ann"),
            Err(DisplayNameError::Staff { word: "mod" })
        );
        assert_eq!(parse("Modest Sysadmina").unwrap(), "Modest Sysadmina");
    }

    /// Issue 50: a guest display name with a Cyrillic "А" and U+202E was accepted.
    #[test]
    fn staff_words_are_refused_on_the_folded_name() {
        for (name, word) in [
            ("Adm1n", "admin"),
            ("M0D", "mod"),
            ("5ystem", "system"),
            ("\u{0410}dmin", "admin"),
            ("\u{0410}d\u{202E}min", "admin"),
            ("the m.o.d", "mod"),
        ] {
            assert_eq!(
                parse(name),
                Err(DisplayNameError::Staff { word }),
                "{name:?}"
            );
        }
    }
}
