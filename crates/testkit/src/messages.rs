//! Short ways to write the client messages tests send often, where the protocol crate has no
//! builder of its own: chat lines on each channel and an admin command.

use wayfarer_protocol::ws::{ChatChannel, ChatRequest, ClientMessage};

/// `player:chat` of `text` on the default channel (local; a `/command` is read as one).
pub fn chat(text: impl Into<String>) -> ClientMessage {
    chat_request(text.into(), None, None)
}

/// `player:chat` of `text` on `channel`.
pub fn chat_on(channel: ChatChannel, text: impl Into<String>) -> ClientMessage {
    chat_request(text.into(), Some(channel), None)
}

/// `player:chat` of `text` to the player named `to` (the private channel).
pub fn private(to: impl Into<String>, text: impl Into<String>) -> ClientMessage {
    chat_request(text.into(), Some(ChatChannel::Private), Some(to.into()))
}

fn chat_request(text: String, channel: Option<ChatChannel>, to: Option<String>) -> ClientMessage {
    ClientMessage::Chat(ChatRequest { text, channel, to })
}
