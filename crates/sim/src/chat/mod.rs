//! Chat: `local` reaches the players who see the sender (within view distance, and among the
//! nearest [`crate::view::MAX_VISIBLE_PLAYERS`] in a crowd: a line is heard by whoever sees its
//! speaker, as the speech above a head is seen), `global` everyone,
//! `private` one named player (with an echo to the sender); `system` messages come from the server.
//! Receivers never get local or global messages from someone they ignore, and a private message to
//! someone who ignores the sender is refused with `ignored`.

use wayfarer_protocol::ws::{codes, ChatChannel, ChatMessage, MAX_CHAT_CHARS};

use crate::entities::Handle;
use crate::events::Event;
use crate::world::World;

pub(crate) mod hearing;
pub(crate) mod limits;
pub(crate) mod to_all;

pub use limits::{
    line_rate, LineRate, GLOBAL_LINE_RATE, LOCAL_LINE_RATE, NOTICE_GAP_DECIS, PRIVATE_LINE_RATE,
};

/// `fromId` of system messages.
pub const SYSTEM_SENDER_ID: &str = "system";
/// `fromName` of system messages.
pub const SYSTEM_SENDER_NAME: &str = "System";

/// The text to send: control and invisible characters stripped (`wayfarer_protocol::text`), then
/// trimmed; `None` unless 1 to [`MAX_CHAT_CHARS`] characters remain. Every path that takes text
/// to show other players as chat uses it (with [`invalid_chat_text`] as the refusal).
pub fn clean_chat_text(text: &str) -> Option<String> {
    let stripped = wayfarer_protocol::text::strip_invisible(text);
    let trimmed = stripped.trim();
    let chars = trimmed.chars().count();
    (1..=MAX_CHAT_CHARS)
        .contains(&chars)
        .then(|| trimmed.to_owned())
}

/// What a sender is told when [`clean_chat_text`] leaves nothing (or too much).
pub fn invalid_chat_text() -> String {
    format!(
        "chat text must be 1 to {MAX_CHAT_CHARS} characters after trimming and removing control and invisible characters"
    )
}

/// A line refused, for its sender: an error code and what to tell them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// One of `wayfarer_protocol::ws::codes`.
    pub code: &'static str,
    /// Human text.
    pub message: String,
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
    /// Switches the chat limits ([`limits`]) on or off (on by default; the server switches them
    /// off with its other rate limits in development and test).
    pub fn set_chat_limits(&mut self, on: bool) {
        self.chat_limits_on = on;
    }

    /// Counts a line of player `index` on `channel` against their limits. `Err` when it is held,
    /// with the notice to give unless one was given within the last second.
    fn count_line(
        &mut self,
        index: usize,
        channel: ChatChannel,
        text: &str,
        recipient_key: Option<&str>,
    ) -> Result<(), Option<Refusal>> {
        if !self.chat_limits_on {
            return Ok(());
        }
        let now = limits::decis_of_tick(self.now());
        let key = limits::line_key(text, recipient_key);
        let limits = &mut self.players[index].chat_limits;
        limits.count(channel, key, now).map_err(|held| {
            limits.notice(now).then(|| Refusal {
                code: codes::RATE_LIMITED,
                message: held.message(channel),
            })
        })
    }

    /// The limits player `id` enters with: those they left with, if these still count.
    pub(crate) fn chat_limits_on_entry(&mut self, id: &str) -> limits::ChatLimits {
        let now = limits::decis_of_tick(self.now());
        self.left_chat_limits.take(id, now)
    }

    /// Keeps the limits of a player who leaves, while they still count.
    pub(crate) fn keep_chat_limits(&mut self, id: &str, chat_limits: limits::ChatLimits) {
        let now = limits::decis_of_tick(self.now());
        self.left_chat_limits.keep(id, chat_limits, now);
    }

    /// A private message from player `id` to `to`, who is online in another world: the text as
    /// it may be sent, counted against the sender's private limit like one within this world
    /// (the server delivers it). `Err(None)`: held without a notice (one was given within the
    /// second), or the sender is not in this world.
    pub fn admit_private_elsewhere(
        &mut self,
        id: &str,
        to: &str,
        text: &str,
    ) -> Result<String, Option<Refusal>> {
        let Some(&index) = self.player_index.get(id) else {
            return Err(None);
        };
        let Some(text) = clean_chat_text(text) else {
            return Err(Some(Refusal {
                code: codes::INVALID_TEXT,
                message: invalid_chat_text(),
            }));
        };
        let recipient = to.trim().to_lowercase();
        self.count_line(index, ChatChannel::Private, &text, Some(&recipient))?;
        Ok(text)
    }

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
                &invalid_chat_text(),
                reference,
            ));
            return;
        };
        // Whom it is for, checked before the line counts against the sender: a refused line
        // reaches nobody.
        let target = match channel {
            ChatChannel::Local | ChatChannel::Global => None,
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
                    .copied();
                let Some(target) = target else {
                    events.push(rejected(
                        id,
                        codes::PLAYER_OFFLINE,
                        &format!("{name} is not online"),
                        reference,
                    ));
                    return;
                };
                let sender_key = self.players[index].name_key.as_str();
                if target != index && self.players[target].ignored.contains(sender_key) {
                    events.push(rejected(
                        id,
                        codes::IGNORED,
                        &format!("{name} is not receiving your messages"),
                        reference,
                    ));
                    return;
                }
                Some(target)
            }
            ChatChannel::System | ChatChannel::Game => {
                events.push(rejected(
                    id,
                    codes::FORBIDDEN,
                    "players cannot send on the system or game channel",
                    reference,
                ));
                return;
            }
        };
        let recipient_key = target.map(|t| self.players[t].name_key.clone());
        if let Err(notice) = self.count_line(index, channel, &text, recipient_key.as_deref()) {
            if let Some(notice) = notice {
                events.push(rejected(id, notice.code, &notice.message, reference));
            }
            return;
        }
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
        let recipients = match (channel, target) {
            (ChatChannel::Local, _) => {
                // Who hears it is decided once every command of the tick is in
                // (`hearing`), from the views as the clients know them.
                self.local_lines.push(LocalLine {
                    speaker: sender.handle,
                    sender_key: sender.name_key.clone(),
                    message,
                });
                return;
            }
            // Private: the recipient, and the sender's echo.
            (_, Some(target)) if target == index => vec![sender.shared_id.clone()],
            (_, Some(target)) => vec![
                self.players[target].shared_id.clone(),
                sender.shared_id.clone(),
            ],
            // Global: everyone but those ignoring the sender.
            _ => {
                let except = self.ignoring(sender_key, Some(id));
                self.say_to_all(except, message, events);
                return;
            }
        };
        events.push(Event::Chat {
            to: recipients,
            message,
        });
    }

    /// A global line from another world: everyone here but those ignoring its sender (by name,
    /// as ignore lists are kept), and but a player here with its sender's id.
    pub(crate) fn relayed_global_chat(&mut self, message: ChatMessage, events: &mut Vec<Event>) {
        let Some(text) = clean_chat_text(&message.text) else {
            return;
        };
        let sender_key = message.from_name.to_lowercase();
        let mut except = self.ignoring(&sender_key, None);
        let sender_here = self
            .player_index
            .get(&message.from_id)
            .map(|&i| &self.players[i]);
        if let Some(sender) = sender_here {
            if !except.contains(&sender.shared_id) {
                except.push(sender.shared_id.clone());
            }
        }
        if except.len() == self.players.len() {
            return;
        }
        let message = ChatMessage {
            channel: ChatChannel::Global,
            text,
            ts: 0,
            ..message
        };
        self.say_to_all(except, message, events);
    }

    /// A system message to one player (by character id) or to everyone.
    pub(crate) fn system_message(
        &mut self,
        to: Option<&str>,
        text: String,
        events: &mut Vec<Event>,
    ) {
        let message = ChatMessage {
            channel: ChatChannel::System,
            from_id: SYSTEM_SENDER_ID.to_owned(),
            from_name: SYSTEM_SENDER_NAME.to_owned(),
            text,
            ts: 0,
            world: None,
        };
        match to {
            Some(id) => {
                let Some(&i) = self.player_index.get(id) else {
                    return;
                };
                events.push(Event::Chat {
                    to: vec![self.players[i].shared_id.clone()],
                    message,
                });
            }
            None if self.players.is_empty() => {}
            None => self.say_to_all(Vec::new(), message, events),
        }
    }

    /// The players in the world who ignore the name `sender_key`, but `sender_id` (nobody's
    /// line is kept from themselves): only those who ignore anyone are asked.
    fn ignoring(&self, sender_key: &str, sender_id: Option<&str>) -> Vec<std::sync::Arc<str>> {
        self.to_all
            .ignorers()
            .filter(|&id| Some(id) != sender_id)
            .filter_map(|id| self.player_index.get(id).map(|&i| &self.players[i]))
            .filter(|p| p.ignored.contains(sender_key))
            .map(|p| p.shared_id.clone())
            .collect()
    }

    /// Emits a line for everyone in the world now but `except`; who came or went in the tick is
    /// added to `except` once the tick's commands have all run ([`to_all::ToAll::settle`]).
    fn say_to_all(
        &mut self,
        except: Vec<std::sync::Arc<str>>,
        message: ChatMessage,
        events: &mut Vec<Event>,
    ) {
        events.push(Event::ChatToAll { except, message });
        self.to_all.said(events);
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
