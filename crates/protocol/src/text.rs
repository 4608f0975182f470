//! Text players write that other players read (chat, character and display names): the one rule for
//! which characters are taken out before it is checked and shown.
//!
//! Control characters (Unicode category Cc) go, and so do the characters that draw nothing or
//! reorder what follows them: zero-width spaces and joiners, the bidirectional overrides and
//! isolates (U+202E can make `gnp.exe` read as `exe.png`), the word joiner and invisible operators,
//! the byte-order mark, soft hyphen, and the fillers that render as blank (Hangul fillers, the
//! Mongolian vowel separator, the combining grapheme joiner). A line of only such characters is then
//! empty, and refused where an empty text is refused. The list is written out rather than taken from
//! a Unicode table crate: it is short, stable, and what impersonation and spoofing actually use.

/// Whether `c` is taken out of player-written text.
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'              // soft hyphen
            | '\u{034F}'            // combining grapheme joiner
            | '\u{061C}'            // Arabic letter mark
            | '\u{115F}' | '\u{1160}' // Hangul choseong and jungseong fillers
            | '\u{17B4}' | '\u{17B5}' // Khmer inherent vowels
            | '\u{180B}'..='\u{180F}' // Mongolian variation selectors and vowel separator
            | '\u{200B}'..='\u{200F}' // zero-width space, non-joiner, joiner, LRM, RLM
            | '\u{2028}' | '\u{2029}' // line and paragraph separators
            | '\u{202A}'..='\u{202E}' // bidirectional embeddings and overrides
            | '\u{2060}'..='\u{206F}' // word joiner, invisible operators, isolates, deprecated formats
            | '\u{3164}'            // Hangul filler
            | '\u{FE00}'..='\u{FE0F}' // variation selectors
            | '\u{FEFF}'            // byte-order mark, zero-width no-break space
            | '\u{FFA0}'            // halfwidth Hangul filler
            | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation
            | '\u{E0000}'..='\u{E007F}' // tags
        )
}

/// `text` without the characters [`is_invisible`] names (nothing else changes: trimming and length
/// are the caller's rule).
pub fn strip_invisible(text: &str) -> String {
    text.chars().filter(|&c| !is_invisible(c)).collect()
}

/// Most characters of a client-given id (a recipe, a spell, a target, a rule …) an error message
/// repeats back: enough to recognise it, while a 16 KiB id is not echoed whole.
pub const MAX_ECHOED_CHARS: usize = 64;

/// `id` as an error message quotes it: in quotes and escaped as Rust's `{:?}` writes it, cut to
/// [`MAX_ECHOED_CHARS`] characters with `…` marking the cut. Every message that names an id the
/// client sent uses this, so none repeats more than that.
pub fn quoted(id: &str) -> String {
    format!("{:?}", cut(id))
}

/// `id` cut to [`MAX_ECHOED_CHARS`] characters with `…` marking the cut, unquoted (for messages
/// that put it in backticks); unchanged when short enough.
pub fn cut(id: &str) -> std::borrow::Cow<'_, str> {
    match id.char_indices().nth(MAX_ECHOED_CHARS) {
        None => std::borrow::Cow::Borrowed(id),
        Some((at, _)) => std::borrow::Cow::Owned(format!("{}…", &id[..at])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_ids_are_cut_to_64_characters() {
        assert_eq!(
            quoted("smithing:bronze_dagger"),
            "\"smithing:bronze_dagger\""
        );
        let long = "x".repeat(10_000);
        let echoed = quoted(&long);
        assert_eq!(echoed, format!("\"{}…\"", "x".repeat(MAX_ECHOED_CHARS)));
        // Characters, not bytes: a multi-byte id is cut on a character boundary.
        let wide = "é".repeat(100);
        assert_eq!(
            quoted(&wide),
            format!("\"{}…\"", "é".repeat(MAX_ECHOED_CHARS))
        );
        assert_eq!(quoted(&"y".repeat(64)), format!("\"{}\"", "y".repeat(64)));
    }

    #[test]
    fn direction_overrides_and_zero_width_characters_are_taken_out() {
        assert_eq!(strip_invisible("a\u{202E}gnp.exe"), "agnp.exe");
        assert_eq!(strip_invisible("\u{200B}\u{200C}\u{200D}\u{FEFF}"), "");
        assert_eq!(strip_invisible("Ad\u{00AD}min"), "Admin");
        assert_eq!(strip_invisible("x\u{2066}y\u{2069}z"), "xyz");
        assert_eq!(strip_invisible("tab\there\nnew"), "tabherenew");
        assert_eq!(strip_invisible("\u{3164}"), "");
    }

    #[test]
    fn visible_text_is_untouched() {
        for text in [
            "Hello there",
            "héllo wörld",
            "日本語",
            "emoji 🎉",
            "a b  c",
            "שלום",
        ] {
            assert_eq!(strip_invisible(text), text);
        }
    }
}
