//! Short ways to write the client messages tests send often, where the protocol crate has no
//! builder of its own (chat lines on each channel, an action on an entity), and ids and slots
//! from what earlier messages said.

use serde_json::Value;
use wayfarer_protocol::ws::{
    ActionRequest, ChatChannel, ChatRequest, ClientMessage, MoveRequest, SlotNumber,
};

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

/// `player:action` of `action` alone (`stop`, `flee`).
pub fn act(action: &str) -> ClientMessage {
    ClientMessage::Action(ActionRequest::new(action))
}

/// `player:action` of `action` on the entity `target` (`gather`, `attack`, `interact`).
pub fn act_on(action: &str, target: impl IntoId) -> ClientMessage {
    ClientMessage::Action(ActionRequest::new(action).with_target(to_id(target)))
}

/// An id or a name as the protocol's messages hold it, from what a test has at hand: a string, or
/// a JSON string read from an earlier message (an entity's `id`, a `tradeId`).
pub fn to_id(value: impl IntoId) -> String {
    value.into_id()
}

/// An inventory slot from a number, or from a slot number read from an earlier message.
pub fn to_slot(value: impl IntoSlot) -> SlotNumber {
    value.into_slot()
}

/// What [`to_id`] takes.
pub trait IntoId {
    fn into_id(self) -> String;
}

impl IntoId for &str {
    fn into_id(self) -> String {
        self.to_owned()
    }
}

impl IntoId for String {
    fn into_id(self) -> String {
        self
    }
}

impl IntoId for &&str {
    fn into_id(self) -> String {
        (*self).to_owned()
    }
}

impl IntoId for &String {
    fn into_id(self) -> String {
        self.clone()
    }
}

impl IntoId for &Value {
    fn into_id(self) -> String {
        match self.as_str() {
            Some(id) => id.to_owned(),
            None => panic!("an id is a string, not {self}"),
        }
    }
}

impl IntoId for Value {
    fn into_id(self) -> String {
        (&self).into_id()
    }
}

/// What [`to_slot`] takes.
pub trait IntoSlot {
    fn into_slot(self) -> SlotNumber;
}

impl IntoSlot for i32 {
    fn into_slot(self) -> SlotNumber {
        SlotNumber::from(i64::from(self))
    }
}

impl IntoSlot for usize {
    fn into_slot(self) -> SlotNumber {
        SlotNumber::from(self)
    }
}

impl IntoSlot for u64 {
    fn into_slot(self) -> SlotNumber {
        SlotNumber::from(self)
    }
}

impl IntoSlot for i64 {
    fn into_slot(self) -> SlotNumber {
        SlotNumber::from(self)
    }
}

/// A borrowed number is a slot as the number is.
macro_rules! slot_by_reference {
    ($($number:ty),*) => {$(
        impl IntoSlot for &$number {
            fn into_slot(self) -> SlotNumber {
                (*self).into_slot()
            }
        }
    )*};
}

slot_by_reference!(i32, usize, u64, i64);

impl IntoSlot for &Value {
    fn into_slot(self) -> SlotNumber {
        match self.as_number() {
            Some(number) => SlotNumber::new(number.clone())
                .unwrap_or_else(|err| panic!("not a slot number: {self}: {err}")),
            None => panic!("a slot is a number, not {self}"),
        }
    }
}

impl IntoSlot for Value {
    fn into_slot(self) -> SlotNumber {
        (&self).into_slot()
    }
}

/// `player:move` walking to tile (`x`, `z`) (as tests read tiles: `i64` from JSON).
pub fn walk_to(x: i64, z: i64) -> ClientMessage {
    let coordinate = |c: i64| i32::try_from(c).unwrap_or_else(|_| panic!("no tile at {c}"));
    ClientMessage::Move(MoveRequest {
        x: coordinate(x),
        z: coordinate(z),
        run: false,
    })
}

/// The id of the first entity of content type `type_id` among a `world:update`'s `added` (`update`
/// is the message's `data`), if any.
pub fn added_of_type(update: &Value, type_id: &str) -> Option<String> {
    update["added"]
        .as_array()?
        .iter()
        .find(|e| e["typeId"] == type_id)
        .and_then(|e| e["id"].as_str())
        .map(str::to_owned)
}
