//! What a client sends: the one table of client events ([`client_messages!`] below) and all that
//! is generated from it — the [`ClientMessage`] enum, its event names ([`ClientMessage::TYPES`],
//! [`ClientMessage::kind`]), its strict reader ([`ClientMessage::parse`]), its writer (`Serialize`,
//! [`ClientMessage::frame`]) and its JSON Schema names (feature `schema`). A new client event is
//! one line of the table (and a sample in `ws::samples`, which the round-trip test asks for).

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{
    codes, ActionRequest, BankDepositRequest, BankWithdrawRequest, ChatRequest,
    DialogueCloseRequest, DialogueRespond, EmoteRequest, FriendRespond, MoveRequest, NameRequest,
    PrayerToggle, QuestAbandon, ShopBuyRequest, ShopSellRequest, UseRequest,
};
use crate::agent::AgentStatus;
use crate::duel::{
    DuelChallenge, DuelIdOnly, DuelRespond, DuelSetRule, DuelStakeRequest, DuelUnstake,
};
use crate::trade::{TradeAddItem, TradeIdOnly, TradeRemoveItem, TradeRequest, TradeRequestRespond};

/// The envelope of a client frame, before its data is read.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Envelope {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub data: Value,
    #[serde(default, rename = "ref")]
    pub reference: Option<Value>,
}

/// Why a frame could not be read; `code` is the wire error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub code: &'static str,
    pub message: String,
}

/// The data of a message that carries none (`player:sync`, `friend:list`, `bank:open`,
/// `shop:close`, `quest:list`): read from an object (its fields ignored) or `null`, written as `{}`.
#[derive(Debug, Deserialize, Serialize)]
struct Empty {}

/// Generates [`ClientMessage`] and everything that names its events from one table of
/// `"event:name" => Variant(DataType)` (or `=> Variant` for an event without data).
macro_rules! client_messages {
    ($(
        $(#[$meta:meta])*
        $name:literal => $variant:ident $(($data:ty))?,
    )*) => {
        /// A message from a client, its data already checked against the event's shape.
        ///
        /// On the wire it is `{"type": <event>, "data": {…}}` (`"data": {}` for an event without
        /// data); its JSON Schema (feature `schema`) is that frame, by the same names.
        #[derive(Debug, Clone, PartialEq)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[cfg_attr(feature = "schema", schemars(tag = "type", content = "data"))]
        pub enum ClientMessage {
            $(
                $(#[$meta])*
                #[cfg_attr(feature = "schema", schemars(rename = $name))]
                $variant $(($data))?,
            )*
        }

        impl ClientMessage {
            /// Every event name a client may send, in the order of [`ClientMessage`].
            pub const TYPES: &'static [&'static str] = &[$($name),*];

            /// The event name (`type`) of this message.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(client_messages!(@variant $variant $(($data))?) => $name,)*
                }
            }

            /// The message of event `kind` from its `data` (`null` reads as `{}`).
            fn from_parts(kind: &str, data: Value) -> Result<ClientMessage, ParseError> {
                match kind {
                    $($name => client_messages!(@read kind, data, $variant $(($data))?),)*
                    other => Err(ParseError {
                        code: codes::UNKNOWN_TYPE,
                        message: format!("unknown message type {}", crate::text::quoted(other)),
                    }),
                }
            }

            /// Writes the `data` field of the frame.
            fn serialize_data<S: SerializeStruct>(&self, frame: &mut S) -> Result<(), S::Error> {
                match self {
                    $(client_messages!(@pattern value, $variant $(($data))?) => {
                        frame.serialize_field("data", client_messages!(@data value $(($data))?))
                    })*
                }
            }
        }
    };
    (@variant $variant:ident ($data:ty)) => { ClientMessage::$variant(_) };
    (@variant $variant:ident) => { ClientMessage::$variant };
    (@pattern $value:ident, $variant:ident ($data:ty)) => { ClientMessage::$variant($value) };
    (@pattern $value:ident, $variant:ident) => { ClientMessage::$variant };
    (@read $kind:ident, $raw:ident, $variant:ident ($data:ty)) => {
        read_data::<$data>($kind, $raw).map(ClientMessage::$variant)
    };
    (@read $kind:ident, $raw:ident, $variant:ident) => {
        read_data::<Empty>($kind, $raw).map(|Empty {}| ClientMessage::$variant)
    };
    (@data $value:ident ($data:ty)) => { $value };
    (@data $value:ident) => { &Empty {} };
}

client_messages! {
    "player:move" => Move(MoveRequest),
    "player:chat" => Chat(ChatRequest),
    "player:action" => Action(ActionRequest),
    "inventory:use" => Use(UseRequest),
    "friend:request" => FriendRequest(NameRequest),
    "friend:respond" => FriendRespond(FriendRespond),
    "friend:remove" => FriendRemove(NameRequest),
    "ignore:add" => IgnoreAdd(NameRequest),
    "ignore:remove" => IgnoreRemove(NameRequest),
    /// `friend:list` with empty data: the client asks for its lists.
    "friend:list" => FriendList,
    /// `player:sync` with empty data: the client asks for its full state.
    "player:sync" => Sync,
    "tradeRequest" => TradeRequest(TradeRequest),
    "tradeRequestRespond" => TradeRequestRespond(TradeRequestRespond),
    "tradeAddItem" => TradeAddItem(TradeAddItem),
    "tradeRemoveItem" => TradeRemoveItem(TradeRemoveItem),
    "tradeAccept" => TradeAccept(TradeIdOnly),
    "tradeCancel" => TradeCancel(TradeIdOnly),
    /// `bank:open`: the client asks for its bank (near a bank).
    "bank:open" => BankOpen,
    /// `bank:deposit`.
    "bank:deposit" => BankDeposit(BankDepositRequest),
    /// `bank:withdraw`.
    "bank:withdraw" => BankWithdraw(BankWithdrawRequest),
    /// `shop:buy`.
    "shop:buy" => ShopBuy(ShopBuyRequest),
    /// `shop:sell`.
    "shop:sell" => ShopSell(ShopSellRequest),
    /// `shop:close`.
    "shop:close" => ShopClose,
    /// `prayer:toggle`.
    "prayer:toggle" => PrayerToggle(PrayerToggle),
    /// `dialogue:respond`.
    "dialogue:respond" => DialogueRespond(DialogueRespond),
    /// `dialogue:close` from the client.
    "dialogue:close" => DialogueClose(DialogueCloseRequest),
    /// `quest:list` with empty data: the client asks for its quests.
    "quest:list" => QuestList,
    /// `quest:abandon`: back to not started, the start's items taken back.
    "quest:abandon" => QuestAbandon(QuestAbandon),
    /// `agent:status`: an agent's report (agent connections only).
    "agent:status" => AgentStatus(Box<AgentStatus>),
    "duel:challenge" => DuelChallenge(DuelChallenge),
    "duel:respond" => DuelRespond(DuelRespond),
    "duel:setRule" => DuelSetRule(DuelSetRule),
    "duel:stake" => DuelStake(DuelStakeRequest),
    "duel:unstake" => DuelUnstake(DuelUnstake),
    "duel:accept" => DuelAccept(DuelIdOnly),
    "duel:cancel" => DuelCancel(DuelIdOnly),
    /// `player:emote`: one of [`super::EMOTES`], shown to everyone in view.
    "player:emote" => Emote(EmoteRequest),
    /// `arena:join` with empty data: onto the ladder's queue.
    "arena:join" => ArenaJoin,
    /// `arena:leave` with empty data: off the ladder (a scheduled fight of yours is cancelled).
    "arena:leave" => ArenaLeave,
}

/// Every event name a client may send ([`ClientMessage::TYPES`]).
pub const CLIENT_MESSAGE_TYPES: &[&str] = ClientMessage::TYPES;

/// Reads an event's data strictly (see `crate::strict`): `null` or absent data is `{}`.
fn read_data<T: serde::de::DeserializeOwned>(kind: &str, data: Value) -> Result<T, ParseError> {
    let data = if data.is_null() {
        Value::Object(Default::default())
    } else {
        data
    };
    crate::strict::from_value(data).map_err(|err| ParseError {
        code: codes::INVALID_MESSAGE,
        message: format!("bad data for {kind}: {}", err.describe("`data`")),
    })
}

impl ClientMessage {
    /// Reads one text frame: text that is not JSON (or has a key twice in one object), a frame that
    /// is not an envelope object, or data not of the event's shape (an array or anything but an
    /// object where the shape is an object, at any depth, or a wrong field type) is
    /// `invalid_message`; an event name we do not know is `unknown_type`. The `ref` comes back even when the data is bad, for echoing.
    pub fn parse(frame: &str) -> (Result<ClientMessage, ParseError>, Option<Value>) {
        match crate::strict::unique_value_from_str(frame) {
            Ok(value) => ClientMessage::from_value(value),
            Err(err) => {
                let message = match crate::strict::duplicate_key(&err) {
                    // Two `type`s (or any key twice): which one was meant is anyone's guess.
                    Some(twice) => format!("the message is ambiguous: {twice}"),
                    None => format!("the message is {}", crate::strict::not_json(&err)),
                };
                (
                    Err(ParseError {
                        code: codes::INVALID_MESSAGE,
                        message,
                    }),
                    None,
                )
            }
        }
    }

    /// [`ClientMessage::parse`] of a frame already read as JSON.
    pub fn from_value(value: Value) -> (Result<ClientMessage, ParseError>, Option<Value>) {
        // The ref of a frame whose envelope is the problem is still echoed when it can be found.
        let reference = value.get("ref").cloned().filter(valid_ref);
        let envelope: Envelope = match crate::strict::from_value(value) {
            Ok(envelope) => envelope,
            Err(err) => {
                return (
                    Err(ParseError {
                        code: codes::INVALID_MESSAGE,
                        message: format!(
                            "not a message envelope ({{\"type\", \"data\"}}): {}",
                            err.describe("the message")
                        ),
                    }),
                    reference,
                );
            }
        };
        (
            ClientMessage::from_parts(&envelope.kind, envelope.data),
            reference,
        )
    }

    /// The frame text without a `ref`: `{"type":…,"data":…}`.
    pub fn to_json(&self) -> String {
        // Serialising these plain data types cannot fail (no maps with non-string keys, no I/O).
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The frame text with `reference` as its `ref` (echoed in an error the frame causes; a
    /// string or a number), or without one for `None`.
    pub fn frame(&self, reference: Option<Value>) -> String {
        let frame = FrameRef {
            message: self,
            reference: reference.as_ref(),
        };
        serde_json::to_string(&frame).unwrap_or_default()
    }
}

/// A `ref` may be a string or a number.
fn valid_ref(v: &Value) -> bool {
    v.is_string() || v.is_number()
}

impl Serialize for ClientMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut frame = serializer.serialize_struct("ClientMessage", 2)?;
        frame.serialize_field("type", self.kind())?;
        self.serialize_data(&mut frame)?;
        frame.end()
    }
}

/// Reads a frame as [`ClientMessage::parse`] does (strictly); the error is its message.
impl<'de> Deserialize<'de> for ClientMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ClientMessage::from_value(value)
            .0
            .map_err(|err| D::Error::custom(err.message))
    }
}

/// A whole client frame: the message and its optional `ref`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientFrame {
    pub message: ClientMessage,
    pub reference: Option<Value>,
}

impl Serialize for ClientFrame {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        FrameRef {
            message: &self.message,
            reference: self.reference.as_ref(),
        }
        .serialize(serializer)
    }
}

/// Reads a frame as [`ClientMessage::parse`] does; a `ref` that is neither a string nor a number is
/// dropped, as the server drops it.
impl<'de> Deserialize<'de> for ClientFrame {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let (message, reference) = ClientMessage::from_value(value);
        let message = message.map_err(|err| D::Error::custom(err.message))?;
        Ok(ClientFrame { message, reference })
    }
}

/// The one writer of a client frame, `{"type","data","ref"?}`, by reference.
#[derive(Clone, Copy)]
struct FrameRef<'a> {
    message: &'a ClientMessage,
    reference: Option<&'a Value>,
}

impl Serialize for FrameRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let FrameRef { message, reference } = *self;
        let fields = if reference.is_some() { 3 } else { 2 };
        let mut frame = serializer.serialize_struct("ClientFrame", fields)?;
        frame.serialize_field("type", message.kind())?;
        message.serialize_data(&mut frame)?;
        if let Some(reference) = reference {
            frame.serialize_field("ref", reference)?;
        }
        frame.end()
    }
}
