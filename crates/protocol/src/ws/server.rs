//! What the server sends: the one table of server events ([`server_messages!`] below), from which
//! the [`ServerMessage`] enum (serde's adjacently tagged `{"type","data"}` both ways), its event
//! names ([`ServerMessage::TYPES`], [`ServerMessage::kind`]) and its JSON Schema names come. A new
//! server event is one line of the table (and a sample in `ws::samples`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    encode, BankUpdate, ChatMessage, CombatHit, DialogueClose, DialogueOpen, EquipmentUpdate,
    ErrorMessage, FriendIncoming, FriendList, FriendStatus, HomeTeleportNotice, InventoryUpdate,
    MakeOptions, Player, PlayerEmote, PrayerUpdate, QuestComplete, QuestList, QuestUpdate,
    ShopClosed, ShopView, SkillXp, WorldUpdate,
};
use super::{PlayerDeath, ZoneEnter};
use crate::agent::{AgentGoal, AgentMessage, AgentPause};
use crate::arena::{ArenaCancelled, ArenaLeft, ArenaMatch, ArenaQueued, ArenaResult};
use crate::duel::{DuelCancelled, DuelError, DuelIncoming, DuelResult, DuelRules, DuelStart};
use crate::trade::{
    TradeCancelled, TradeCompleted, TradeConfirmScreen, TradeError, TradeIncoming, TradeStarted,
    TradeUpdated,
};

/// Generates [`ServerMessage`] and its event names from one table of
/// `"event:name" => Variant(DataType)`.
macro_rules! server_messages {
    ($(
        $(#[$meta:meta])*
        $name:literal => $variant:ident($data:ty),
    )*) => {
        /// A message to a client.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(tag = "type", content = "data")]
        pub enum ServerMessage {
            $(
                $(#[$meta])*
                #[serde(rename = $name)]
                $variant($data),
            )*
        }

        impl ServerMessage {
            /// Every event name the server sends, in the order of [`ServerMessage`].
            pub const TYPES: &'static [&'static str] = &[$($name),*];

            /// The event name (`type`) of this message.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(ServerMessage::$variant(_) => $name,)*
                }
            }
        }
    };
}

server_messages! {
    "player:sync" => PlayerSync(Box<Player>),
    "world:update" => WorldUpdate(WorldUpdate),
    "chat:message" => Chat(ChatMessage),
    "inventory:update" => InventoryUpdate(InventoryUpdate),
    "equipment:update" => EquipmentUpdate(EquipmentUpdate),
    "skill:xp" => SkillXp(SkillXp),
    "combat:hit" => CombatHit(CombatHit),
    "friend:list" => FriendList(FriendList),
    "friend:incoming" => FriendIncoming(FriendIncoming),
    "friend:status" => FriendStatus(FriendStatus),
    "error" => Error(ErrorMessage),
    "tradeIncoming" => TradeIncoming(TradeIncoming),
    "tradeStarted" => TradeStarted(TradeStarted),
    "tradeUpdated" => TradeUpdated(TradeUpdated),
    "tradeConfirmScreen" => TradeConfirmScreen(TradeConfirmScreen),
    "tradeCompleted" => TradeCompleted(TradeCompleted),
    "tradeCancelled" => TradeCancelled(TradeCancelled),
    "tradeError" => TradeError(TradeError),
    "bank:update" => BankUpdate(BankUpdate),
    "shop:open" => ShopOpen(ShopView),
    "shop:update" => ShopUpdate(ShopView),
    "shop:close" => ShopClose(ShopClosed),
    "prayer:update" => PrayerUpdate(PrayerUpdate),
    "dialogue:open" => DialogueOpen(DialogueOpen),
    "dialogue:close" => DialogueClose(DialogueClose),
    "quest:list" => QuestList(QuestList),
    "quest:update" => QuestUpdate(QuestUpdate),
    "quest:complete" => QuestComplete(QuestComplete),
    "make:options" => MakeOptions(MakeOptions),
    "agent:goal" => AgentGoal(AgentGoal),
    "agent:stop" => AgentStop(AgentPause),
    "agent:resume" => AgentResume(AgentPause),
    "agent:message" => AgentMessage(AgentMessage),
    "zone:enter" => ZoneEnter(ZoneEnter),
    "player:death" => PlayerDeath(PlayerDeath),
    "duelIncoming" => DuelIncoming(DuelIncoming),
    "duel:rules" => DuelRules(DuelRules),
    "duel:start" => DuelStart(DuelStart),
    "duel:result" => DuelResult(DuelResult),
    "duel:cancelled" => DuelCancelled(DuelCancelled),
    "duelError" => DuelError(DuelError),
    "player:emote" => PlayerEmote(PlayerEmote),
    "player:homeTeleport" => HomeTeleport(HomeTeleportNotice),
    "arena:queued" => ArenaQueued(ArenaQueued),
    "arena:match" => ArenaMatch(ArenaMatch),
    "arena:cancelled" => ArenaCancelled(ArenaCancelled),
    "arena:left" => ArenaLeft(ArenaLeft),
    "arena:result" => ArenaResult(ArenaResult),
}

impl ServerMessage {
    /// An `error` with an optional echoed `ref`.
    pub fn error(code: &str, message: impl Into<String>, reference: Option<Value>) -> Self {
        ServerMessage::Error(ErrorMessage {
            code: code.to_owned(),
            message: message.into(),
            reference,
            remaining_seconds: None,
        })
    }

    /// The frame text.
    pub fn to_json(&self) -> String {
        // Serialising these plain data types cannot fail (no maps with non-string keys, no I/O).
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Appends the frame text to `out`: the same bytes as [`ServerMessage::to_json`], without a
    /// `String` of its own. A `world:update` takes the hand-written encoder of `ws/encode.rs` (the
    /// bulk of what a crowd's server encodes); every other message goes through serde.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let written = match self {
            ServerMessage::WorldUpdate(update) => encode::world_update(update, out),
            other => serde_json::to_writer(&mut *out, other),
        };
        if written.is_err() {
            // As `to_json`: nothing rather than half a message (it cannot happen, see there).
            out.truncate(start);
        }
    }
}
