//! Chat: `local` reaches the players who see the sender (within view distance, and among the
//! nearest [`crate::view::MAX_VISIBLE_PLAYERS`] in a crowd: a line is heard by whoever sees its
//! speaker, as the speech above a head is seen), `global` everyone,
//! `private` one named player (with an echo to the sender); `system` messages come from the server.
//! Receivers never get local or global messages from someone they ignore, and a private message to
//! someone who ignores the sender is refused with `ignored`.

use wayfarer_protocol::ws::{codes, ChatChannel, ChatMessage, MAX_CHAT_CHARS};

use crate::entities::{slot_index, Handle};
use crate::events::{Event, Heard};
use crate::world::World;

/// `fromId` of system messages.
pub const SYSTEM_SENDER_ID: &str = "system";
/// `fromName` of system messages.
pub const SYSTEM_SENDER_NAME: &str = "System";

/// The text to send: control and invisible characters stripped (`wayfarer_protocol::text`), then
/// trimmed; `None` unless 1 to [`MAX_CHAT_CHARS`] characters remain.
pub fn clean_chat_text(text: &str) -> Option<String> {
    let stripped = wayfarer_protocol::text::strip_invisible(text);
    let trimmed = stripped.trim();
    let chars = trimmed.chars().count();
    (1..=MAX_CHAT_CHARS)
        .contains(&chars)
        .then(|| trimmed.to_owned())
}

fn rejected(id: &str, code: &'static str, message: &str, reference: Option<u64>) -> Event {
    Event::Rejected {
        to: id.to_owned(),
        code,
        message: message.to_owned(),
        reference,
    }
}

impl World {
    /// `player:chat` from player `id`.
    pub(crate) fn chat(
        &mut self,
        id: &str,
        channel: ChatChannel,
        text: &str,
        to: Option<&str>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let Some(text) = clean_chat_text(text) else {
            events.push(rejected(
                id,
                codes::INVALID_TEXT,
                &format!(
                    "chat text must be 1 to {MAX_CHAT_CHARS} characters after trimming and removing control and invisible characters"
                ),
                reference,
            ));
            return;
        };
        let sender = &self.players[index];
        let Some(sender_body) = self.entities.get(sender.handle) else {
            return;
        };
        let message = ChatMessage {
            channel,
            from_id: id.to_owned(),
            from_name: sender_body.wire.name.clone().unwrap_or_default(),
            text,
            ts: 0,
            world: None,
        };
        let sender_key = sender.name_key.as_str();
        let recipients = match channel {
            ChatChannel::Local => {
                // Who hears it is decided once every command of the tick is in
                // ([`World::hear_local_chat`]), from the views as the clients know them.
                self.local_lines.push(LocalLine {
                    speaker: sender.handle,
                    sender_key: sender.name_key.clone(),
                    message,
                });
                return;
            }
            ChatChannel::Global => self
                .players
                .iter()
                .filter(|p| p.handle == sender.handle || !p.ignored.contains(sender_key))
                .map(|p| p.shared_id.clone())
                .collect(),
            ChatChannel::Private => {
                let Some(name) = to.map(str::trim).filter(|n| !n.is_empty()) else {
                    events.push(rejected(
                        id,
                        codes::INVALID_TARGET,
                        "a private message needs `to`, the recipient's name",
                        reference,
                    ));
                    return;
                };
                let target = self
                    .names
                    .get(&name.to_lowercase())
                    .and_then(|target_id| self.player_index.get(target_id))
                    .map(|&i| &self.players[i]);
                let Some(target) = target else {
                    events.push(rejected(
                        id,
                        codes::PLAYER_OFFLINE,
                        &format!("{name} is not online"),
                        reference,
                    ));
                    return;
                };
                if target.id != id && target.ignored.contains(sender_key) {
                    events.push(rejected(
                        id,
                        codes::IGNORED,
                        &format!("{name} is not receiving your messages"),
                        reference,
                    ));
                    return;
                }
                if target.id == id {
                    vec![sender.shared_id.clone()]
                } else {
                    vec![target.shared_id.clone(), sender.shared_id.clone()]
                }
            }
            ChatChannel::System => {
                events.push(rejected(
                    id,
                    codes::FORBIDDEN,
                    "players cannot send on the system channel",
                    reference,
                ));
                return;
            }
        };
        events.push(Event::Chat {
            to: recipients,
            message,
        });
    }

    /// A global line from another world: everyone here but those ignoring its sender (by name,
    /// as ignore lists are kept).
    pub(crate) fn relayed_global_chat(&mut self, message: ChatMessage, events: &mut Vec<Event>) {
        let Some(text) = clean_chat_text(&message.text) else {
            return;
        };
        let sender_key = message.from_name.to_lowercase();
        let recipients: Vec<std::sync::Arc<str>> = self
            .players
            .iter()
            .filter(|p| p.id != message.from_id && !p.ignored.contains(&sender_key))
            .map(|p| p.shared_id.clone())
            .collect();
        if recipients.is_empty() {
            return;
        }
        events.push(Event::Chat {
            to: recipients,
            message: ChatMessage {
                channel: ChatChannel::Global,
                text,
                ts: 0,
                ..message
            },
        });
    }

    /// A system message to one player (by character id) or to everyone.
    pub(crate) fn system_message(
        &mut self,
        to: Option<&str>,
        text: String,
        events: &mut Vec<Event>,
    ) {
        let recipients: Vec<std::sync::Arc<str>> = match to {
            Some(id) => match self.player_index.get(id) {
                Some(&i) => vec![self.players[i].shared_id.clone()],
                None => return,
            },
            None => self.players.iter().map(|p| p.shared_id.clone()).collect(),
        };
        if recipients.is_empty() {
            return;
        }
        events.push(Event::Chat {
            to: recipients,
            message: ChatMessage {
                channel: ChatChannel::System,
                from_id: SYSTEM_SENDER_ID.to_owned(),
                from_name: SYSTEM_SENDER_NAME.to_owned(),
                text,
                ts: 0,
                world: None,
            },
        });
    }
}

/// A local line of this tick waiting for its listeners.
#[derive(Debug)]
pub(crate) struct LocalLine {
    pub speaker: Handle,
    /// The speaker's lower-cased name, for the listeners' ignore lists.
    pub sender_key: String,
    pub message: ChatMessage,
}

impl World {
    /// Emits this tick's local lines as one [`Event::LocalChat`]: each heard by the speaker and by
    /// every player whose client has been shown the speaker (the views of the tick before, which
    /// is what the clients know: whoever sees a head sees the speech above it), minus those
    /// ignoring the speaker.
    ///
    /// Asking each listener's view once (a walk over its sorted list against a table of this
    /// tick's speakers by slot) costs the same however many lines there are; asking, per line, who
    /// around the speaker sees them cost a scan of the crowd per line. It stays on one thread:
    /// split over the view threads it measured slower (4.4 against 2.9 ms for a 2,000-player
    /// crowd, `input/crowd_2000_players_330_local_lines`), the per-listener work being small and
    /// allocating.
    pub(crate) fn hear_local_chat(&mut self, events: &mut Vec<Event>) {
        if self.local_lines.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.local_lines);
        let mut by_speaker: Vec<(Handle, u32)> = lines
            .iter()
            .enumerate()
            .map(|(i, line)| (line.speaker, i as u32))
            .collect();
        by_speaker.sort_unstable();
        // Slot → 1 + the speaker's first entry in `by_speaker` (0: silent this tick), so a
        // listener finds a speaker's lines without searching.
        let speaking = &mut self.speaking_by_slot;
        for (at, &(speaker, _)) in by_speaker.iter().enumerate().rev() {
            let slot = slot_index(speaker);
            if speaking.len() <= slot {
                speaking.resize(slot + 1, 0);
            }
            speaking[slot] = at as u32 + 1;
        }
        let speaking = &self.speaking_by_slot;
        // One bit per slot that speaks this tick: a listener's walk over its ~250 shown handles
        // tests a bit in a table that stays in the first-level cache (a few hundred bytes), and
        // only the few speakers take the lookup of their lines.
        let mut speaks_bits = vec![0u64; speaking.len().div_ceil(64)];
        for &(speaker, _) in &by_speaker {
            let slot = slot_index(speaker);
            speaks_bits[slot / 64] |= 1 << (slot % 64);
        }
        let speaks = |handle: Handle| {
            let slot = slot_index(handle);
            speaks_bits
                .get(slot / 64)
                .is_some_and(|bits| bits & (1 << (slot % 64)) != 0)
        };
        let lines_of = |speaker: Handle| {
            let first = match speaking.get(slot_index(speaker)) {
                Some(&n) if n > 0 => n as usize - 1,
                _ => return &by_speaker[..0],
            };
            let count = by_speaker[first..]
                .iter()
                .take_while(|&&(h, _)| h == speaker)
                .count();
            &by_speaker[first..first + count]
        };
        // The lines the listener at hand hears, one bit per line of the tick: setting bits and
        // reading them back in order gives the order spoken without sorting, and the buffers are
        // kept across listeners, so each listener's own list is one allocation of the right size.
        let mut heard_bits = vec![0u64; lines.len().div_ceil(64)];
        let mut mine: Vec<u32> = Vec::new();
        let mut heard = Vec::new();
        for player in &self.players {
            let mut any = false;
            let mut hear = |speaker: Handle| {
                for &(_, i) in lines_of(speaker) {
                    let ignoring = speaker != player.handle
                        && !player.ignored.is_empty()
                        && player.ignored.contains(&lines[i as usize].sender_key);
                    if !ignoring {
                        heard_bits[i as usize / 64] |= 1 << (i % 64);
                        any = true;
                    }
                }
            };
            let shown = player.viewer.shown();
            for &handle in shown {
                if speaks(handle) {
                    hear(handle);
                }
            }
            // A player whose view starts over this tick has been shown nobody, itself included, but
            // hears itself.
            if speaks(player.handle) && shown.binary_search(&player.handle).is_err() {
                hear(player.handle);
            }
            if !any {
                continue;
            }
            mine.clear();
            for (word, bits) in heard_bits.iter_mut().enumerate() {
                while *bits != 0 {
                    let bit = bits.trailing_zeros();
                    mine.push(word as u32 * 64 + bit);
                    *bits &= *bits - 1;
                }
            }
            heard.push(Heard {
                to: player.shared_id.clone(),
                lines: mine.clone(),
            });
        }
        for &(speaker, _) in &by_speaker {
            self.speaking_by_slot[slot_index(speaker)] = 0;
        }
        events.push(Event::LocalChat {
            lines: lines.into_iter().map(|line| line.message).collect(),
            heard,
        });
    }
}

impl World {
    /// Whether player `who` ignores player `other` (both character ids; false when either is
    /// offline). Ignoring silences chat, private messages and trade requests.
    pub(crate) fn ignores(&self, who: &str, other: &str) -> bool {
        let (Some(&a), Some(&b)) = (self.player_index.get(who), self.player_index.get(other))
        else {
            return false;
        };
        self.players[a]
            .ignored
            .contains(self.players[b].name_key.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_stripped_then_trimmed_and_bounded() {
        assert_eq!(clean_chat_text("  hi  "), Some("hi".to_owned()));
        assert_eq!(clean_chat_text("\u{7} a\nb \t"), Some("ab".to_owned()));
        assert_eq!(clean_chat_text("   "), None);
        assert_eq!(clean_chat_text("\u{0}\u{1b}"), None);
        assert_eq!(
            clean_chat_text(&"é".repeat(200)).map(|t| t.chars().count()),
            Some(200)
        );
        assert_eq!(clean_chat_text(&"x".repeat(201)), None);
    }
}
