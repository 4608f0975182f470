//! The game's narration (CONTRACT.md section 9): what a player starts, finishes or fails, told in
//! words as `chat:message {channel: "game"}` to that player alone. Refusals stay on the `system`
//! channel (and in `error`s). Text names things by content's names, never by internal ids; the
//! helpers here make those names read as English inside a sentence.

use wayfarer_protocol::ws::{ChatChannel, ChatMessage};

use crate::chat::{SYSTEM_SENDER_ID, SYSTEM_SENDER_NAME};
use crate::events::Event;
use crate::world::World;

impl World {
    /// Tells player `index` what just happened, on the `game` channel.
    pub(crate) fn narrate(&self, index: usize, text: String, events: &mut Vec<Event>) {
        events.push(Event::Chat {
            to: vec![self.players[index].shared_id.clone()],
            message: ChatMessage {
                channel: ChatChannel::Game,
                from_id: SYSTEM_SENDER_ID.to_owned(),
                from_name: SYSTEM_SENDER_NAME.to_owned(),
                text,
                ts: 0,
                world: None,
            },
        });
    }

    /// An item's name as it reads inside a sentence: content's name in lower case ("bronze
    /// dagger"); an item content lacks reads as its id with spaces.
    pub(crate) fn item_words(&self, item_id: &str) -> String {
        self.item_name(item_id).to_lowercase()
    }

    /// `quantity` of an item, in words: "a bronze dagger", "an iron bar", "15 bronze arrowtips".
    pub(crate) fn how_many(&self, quantity: u64, item_id: &str) -> String {
        let name = self.item_words(item_id);
        match quantity {
            1 => with_article(&name),
            n => format!("{n} {}", plural(&name)),
        }
    }
}

/// "a" or "an" before `words`; "some" before a name that reads as a plural ("leather gloves",
/// "logs", "bronze arrowtips": never "a leather gloves"), which ends in one `s` ("bass", "glass"
/// and "cactus" are single things).
pub(crate) fn article(words: &str) -> &'static str {
    let lower = words.to_lowercase();
    if lower.ends_with('s') && !lower.ends_with("ss") && !lower.ends_with("us") {
        return "some";
    }
    match words.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

/// `words` after their article ("a bronze hatchet", "an iron bar", "some leather gloves").
pub(crate) fn with_article(words: &str) -> String {
    format!("{} {words}", article(words))
}

/// The plural of a name by the plain English rules ("shrimps", "leather bodies", "arrowtips",
/// "boxes"); names already ending in `s` stay as they are.
pub(crate) fn plural(name: &str) -> String {
    let last_two: Vec<char> = name.chars().rev().take(2).collect();
    match last_two.as_slice() {
        ['s', ..] => name.to_owned(),
        ['y', before, ..] if !"aeiou".contains(*before) => {
            format!("{}ies", &name[..name.len() - 1])
        }
        ['x' | 'z', ..] | ['h', 's' | 'c'] => format!("{name}es"),
        _ => format!("{name}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_and_articles_read_as_english() {
        assert_eq!(plural("shrimp"), "shrimps");
        assert_eq!(plural("leather body"), "leather bodies");
        assert_eq!(plural("bronze arrowtips"), "bronze arrowtips");
        assert_eq!(plural("box"), "boxes");
        assert_eq!(plural("bronze bar"), "bronze bars");
        assert_eq!(plural("key"), "keys");
        assert_eq!(plural("torch"), "torches");
        assert_eq!(article("iron bar"), "an");
        assert_eq!(article("bronze dagger"), "a");
        assert_eq!(article("leather gloves"), "some");
        assert_eq!(article("Logs"), "some");
        assert_eq!(article("bass"), "a");
        assert_eq!(article("cactus"), "a");
    }
}
