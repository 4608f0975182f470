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
//! a staff word ([`STAFF_WORDS`]) as one of its words — or spelt across words, or disguised — is
//! refused unless an admin gives it ([`staff_word`] says how names are folded for that check).
//! Uniqueness ignoring case is the store's (a unique index).

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
        // Staff words first: a look-alike of "Admin" is refused for what it imitates.
        if namer == Namer::Player {
            if let Some(word) = staff_word(&visible) {
                return Err(NameError::Staff { word });
            }
        }
        if !visible
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ' ')
        {
            return Err(NameError::NotAlphanumeric);
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

/// The first staff word `text` reads as, on its folded form: invisible and bidirectional
/// characters taken out, every other character read as the Latin letters it can pass for
/// ([`look_alikes`]: letter case, digits and symbols for letters, Cyrillic and Greek look-alikes,
/// accents and full-width forms), and the rest (spaces, punctuation) separating words. A staff
/// word is refused as a word of the name or spelt across consecutive words with the separators
/// removed (`A.d.m.i.n`, `M 0 D`); inside a longer word it is not (`Modest`, `Sysadmina`).
pub fn staff_word(text: &str) -> Option<&'static str> {
    let visible = wayfarer_protocol::text::strip_invisible(text);
    let mut words: Vec<Vec<&'static str>> = Vec::new();
    let mut word: Vec<&'static str> = Vec::new();
    for c in visible.chars() {
        match look_alikes(c) {
            Some(letters) => word.push(letters),
            None if word.is_empty() => {}
            None => words.push(std::mem::take(&mut word)),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let longest = STAFF_WORDS.iter().map(|w| w.len()).max().unwrap_or(0);
    for start in 0..words.len() {
        let mut joined: Vec<&'static str> = Vec::new();
        for next in &words[start..] {
            joined.extend(next);
            if joined.len() > longest {
                break;
            }
            let staff = STAFF_WORDS.iter().copied().find(|staff| {
                staff.len() == joined.len()
                    && staff
                        .chars()
                        .zip(&joined)
                        .all(|(letter, could_be)| could_be.contains(letter))
            });
            if staff.is_some() {
                return staff;
            }
        }
    }
    None
}

/// The lower-case Latin letters `c` can pass for in a name, or `None` for a separator (a space,
/// punctuation, a symbol that looks like no letter). A character of any other script passes for
/// nothing a staff word is made of: it is returned as an impossible letter (`"\u{0}"`), keeping
/// the word whole.
fn look_alikes(c: char) -> Option<&'static str> {
    const NOTHING: &str = "\u{0}";
    // Full-width forms (U+FF01–U+FF5E) read as their ASCII originals.
    let c = match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    };
    if c.is_ascii_alphabetic() {
        const LETTERS: [&str; 26] = [
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
            "r", "s", "t", "u", "v", "w", "x", "y", "z",
        ];
        return Some(LETTERS[usize::from(c.to_ascii_lowercase() as u8 - b'a')]);
    }
    let letters = match c {
        // Digits and symbols for letters.
        '0' => "o",
        '1' | '|' | '!' => "il",
        '3' => "e",
        '4' | '@' => "a",
        '5' | '$' => "s",
        '6' | '9' => "g",
        '7' | '+' => "t",
        '8' => "b",
        '2' => "z",
        // Latin letters with accents.
        'à'..='å' | 'À'..='Å' | 'ā' | 'Ā' | 'ą' | 'Ą' => "a",
        'ç' | 'Ç' | 'ć' | 'Ć' | 'č' | 'Č' => "c",
        'ď' | 'Ď' | 'đ' | 'Đ' => "d",
        'è'..='ë' | 'È'..='Ë' | 'ē' | 'Ē' | 'ė' | 'Ė' | 'ę' | 'Ę' | 'ě' | 'Ě' => "e",
        'ì'..='ï' | 'Ì'..='Ï' | 'ī' | 'Ī' | 'į' | 'Į' | 'ı' | 'İ' => "i",
        'ñ' | 'Ñ' | 'ń' | 'Ń' | 'ň' | 'Ň' => "n",
        'ò'..='ö' | 'Ò'..='Ö' | 'ø' | 'Ø' | 'ō' | 'Ō' | 'ő' | 'Ő' => "o",
        'ś' | 'Ś' | 'š' | 'Š' | 'ş' | 'Ş' | 'ß' => "s",
        'ť' | 'Ť' | 'ţ' | 'Ţ' => "t",
        'ù'..='ü' | 'Ù'..='Ü' | 'ū' | 'Ū' | 'ů' | 'Ů' | 'ű' | 'Ű' => "u",
        'ý' | 'ÿ' | 'Ý' | 'Ÿ' => "y",
        'ž' | 'Ž' | 'ź' | 'Ź' | 'ż' | 'Ż' => "z",
        // Cyrillic look-alikes of Latin letters.
        'а' | 'А' => "a",
        'в' | 'В' | 'ь' | 'Ь' => "b",
        'с' | 'С' => "c",
        'ԁ' => "d",
        'е' | 'Е' | 'ё' | 'Ё' | 'є' | 'Є' => "e",
        'н' | 'Н' => "h",
        'і' | 'І' | 'ї' | 'Ї' | 'ӏ' | 'Ӏ' => "il",
        'ј' | 'Ј' => "j",
        'к' | 'К' => "k",
        'м' | 'М' => "m",
        'п' | 'П' | 'и' | 'И' => "n",
        'о' | 'О' => "o",
        'р' | 'Р' => "p",
        'ѕ' | 'Ѕ' => "s",
        'т' | 'Т' => "t",
        'у' | 'У' => "y",
        'х' | 'Х' => "x",
        'ѡ' | 'Ѡ' | 'ш' | 'Ш' => "w",
        // Greek look-alikes of Latin letters.
        'α' | 'Α' | 'ά' | 'Ά' => "a",
        'β' | 'Β' => "b",
        'δ' => "d",
        'ε' | 'Ε' | 'έ' | 'Έ' => "e",
        'η' | 'Η' | 'ή' | 'Ή' => "hn",
        'ι' | 'Ι' | 'ί' | 'Ί' | 'ϊ' | 'Ϊ' => "il",
        'κ' | 'Κ' => "k",
        'μ' | 'Μ' => "mu",
        'ν' | 'Ν' => "nv",
        'ο' | 'Ο' | 'ό' | 'Ό' | 'σ' => "o",
        'ρ' | 'Ρ' => "p",
        'τ' | 'Τ' => "t",
        'υ' | 'Υ' | 'ύ' | 'Ύ' => "uy",
        'χ' | 'Χ' => "x",
        'ω' => "w",
        'Ζ' => "z",
        c if c.is_alphanumeric() => NOTHING,
        _ => return None,
    };
    Some(letters)
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

    /// Issue 50: staff words were matched as written, so `Adm1n` passed.
    #[test]
    fn staff_words_are_matched_on_the_folded_name() {
        for (name, word) in [
            ("Adm1n", "admin"),
            ("M0D", "mod"),
            ("5ystem", "system"),
            ("\u{0410}dmin", "admin"), // a Cyrillic capital A
            ("Ad\u{202E}min", "admin"),
            ("\u{0410}dm\u{202E}1n", "admin"),
            ("SYST3M", "system"),
            ("@dmin", "admin"),
            ("A.d.m.i.n", "admin"),
            ("M o d", "mod"),
            ("\u{041C}\u{043E}d", "mod"), // Cyrillic М and о
            ("\u{039C}\u{039F}D", "mod"), // Greek Μ and Ο
            ("\u{FF21}dmin", "admin"),    // a full-width A
            ("J\u{200B}m0d", "jmod"),
            ("Ann Adm1n", "admin"),
        ] {
            assert_eq!(staff_word(name), Some(word), "{name:?}");
        }
        for name in [
            "Modest",
            "Sysadmina",
            "Admiral",
            "Systems",
            "Admin2",
            "Bob",
            "Zoë",
        ] {
            assert_eq!(staff_word(name), None, "{name:?}");
        }
        // Character names: refused as staff words, whatever else is wrong with them.
        for name in ["Adm1n", "M0D", "5ystem", "\u{0410}dmin", "Ad\u{202E}min"] {
            assert!(
                matches!(player(name), Err(NameError::Staff { .. })),
                "{name:?}: {:?}",
                player(name)
            );
        }
    }

    #[test]
    fn staff_words_are_found_between_any_separators() {
        assert_eq!(staff_word("[Mod] Ann"), Some("mod"));
        assert_eq!(staff_word("sys-admin"), Some("admin"));
        assert_eq!(staff_word("Sysadmin"), None);
    }
}
