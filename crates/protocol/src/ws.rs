//! WebSocket messages (CONTRACT.md section 3): one JSON object per text frame,
//! `{"type": "<event name>", "data": {…}, "ref"?: string|number}`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Skill;

mod client;
mod encode;
mod moves;
#[cfg(test)]
mod samples;
mod server;
mod slot;
mod tick_entities;
mod zones;

pub use client::{ClientFrame, ClientMessage, Envelope, ParseError, CLIENT_MESSAGE_TYPES};
pub use moves::{MovedList, Moves, TickMoves};
pub use server::ServerMessage;
pub use slot::{inventory_slot, SlotNumber, INVENTORY_SLOTS};
pub use tick_entities::{AddedList, RemovedList, TickEntities};
pub use zones::{DeathItem, Gravestone, PlayerDeath, ZoneEnter};

/// Largest accepted text frame.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;
/// Longest chat text, in characters, after trimming.
pub const MAX_CHAT_CHARS: usize = 200;
/// Farthest a single move may target, in tiles (Chebyshev).
pub const MAX_MOVE_TILES: i32 = 200;

/// Error codes that only occur on the WebSocket.
pub mod codes {
    pub const INVALID_MESSAGE: &str = "invalid_message";
    pub const UNKNOWN_TYPE: &str = "unknown_type";
    pub const MESSAGE_TOO_LARGE: &str = "message_too_large";
    pub const RATE_LIMITED: &str = "rate_limited";
    pub const MOVE_TOO_FAR: &str = "move_too_far";
    pub const INVALID_TEXT: &str = "invalid_text";
    pub const PLAYER_OFFLINE: &str = "player_offline";
    /// Several worlds: the link between worlds (NATS) is down, so what needs another world
    /// (a private message to a player there, entering while online there) cannot be done now.
    pub const CROSS_WORLD_UNAVAILABLE: &str = "cross_world_unavailable";
    pub const IGNORED: &str = "ignored";
    pub const FORBIDDEN: &str = "forbidden";
    pub const UNKNOWN_COMMAND: &str = "unknown_command";
    pub const INVALID_TARGET: &str = "invalid_target";
    /// An action the player cannot do now (no tool, level too low, inventory full, busy).
    pub const CANNOT_DO: &str = "cannot_do";
    /// An attack on a player where players may not fight (a safe area; CONTRACT §10).
    pub const SAFE_ZONE: &str = "safe_zone";
    /// A ranged attack or a spell with a wall or a closed door in the way (CONTRACT §13).
    pub const NO_LINE_OF_SIGHT: &str = "no_line_of_sight";
    /// A slot that is out of range or empty.
    pub const INVALID_SLOT: &str = "invalid_slot";
    /// An action name or style that does not exist.
    pub const INVALID_ACTION: &str = "invalid_action";
    /// No character has that name.
    pub const PLAYER_NOT_FOUND: &str = "player_not_found";
    /// A list is full (99 friends, 99 ignored, 99 pending requests).
    pub const LIMIT_REACHED: &str = "limit_reached";
    /// There is no such request (or friend) to answer or remove.
    pub const NOT_FOUND: &str = "not_found";
    /// A bank operation away from every bank booth and banker.
    pub const NOT_NEAR_BANK: &str = "not_near_bank";
    /// The bank already holds its maximum of distinct items.
    pub const BANK_FULL: &str = "bank_full";
    /// Not enough room in the inventory (or a stack would pass its limit).
    pub const INVENTORY_FULL: &str = "inventory_full";
    /// A shop request without that shop open, or away from its shopkeeper.
    pub const NOT_NEAR_SHOP: &str = "not_near_shop";
    /// The shop has fewer in stock than asked for (or does not sell the item).
    pub const OUT_OF_STOCK: &str = "out_of_stock";
    /// Not enough coins for a purchase.
    pub const NOT_ENOUGH_COINS: &str = "not_enough_coins";
    /// The shop does not buy this item (untradeable, coins, or a shop without buyback).
    pub const CANNOT_SELL: &str = "cannot_sell";
    /// A prayer that content does not define.
    pub const UNKNOWN_PRAYER: &str = "unknown_prayer";
    /// A prayer above the player's Prayer level.
    pub const PRAYER_LEVEL_TOO_LOW: &str = "prayer_level_too_low";
    /// No prayer points left to switch a prayer on.
    pub const NO_PRAYER_POINTS: &str = "no_prayer_points";
    /// A dialogue answer for a dialogue that is not open, or a response not shown.
    pub const INVALID_DIALOGUE: &str = "invalid_dialogue";
    /// `make` with a recipe id content does not have.
    pub const UNKNOWN_RECIPE: &str = "unknown_recipe";
    /// A recipe above the player's level in its skill.
    pub const LEVEL_TOO_LOW: &str = "level_too_low";
    /// Not enough of a recipe's inputs (or coins) held.
    pub const MISSING_ITEMS: &str = "missing_items";
    /// A tool the recipe needs (hammer, knife, needle, thread, chisel, mould, tinderbox) not held.
    pub const MISSING_TOOL: &str = "missing_tool";
    /// No station of the kind the recipe needs near enough (or `targetId` is not one).
    pub const NOT_NEAR_STATION: &str = "not_near_station";
    /// `cast` or `autocast` with a spell id content does not have (CONTRACT.md section 11).
    pub const UNKNOWN_SPELL: &str = "unknown_spell";
    /// Fewer runes held than a cast takes (a staff's runes are not counted as missing).
    pub const MISSING_RUNES: &str = "missing_runes";
    /// Too soon after the last of the same thing (a bite of food: `eat_delay`; home teleport,
    /// whose error carries `remainingSeconds`).
    pub const COOLDOWN: &str = "cooldown";
    /// Refused while the player fought in the last 10 seconds (home teleport, emotes).
    pub const IN_COMBAT: &str = "in_combat";
    /// `player:emote` with an emote not in [`super::EMOTES`].
    pub const UNKNOWN_EMOTE: &str = "unknown_emote";
}

/// The emotes a player may do (`player:emote`, CONTRACT.md section 14; `GET /api/v1/emotes`).
pub const EMOTES: &[&str] = &[
    "wave", "bow", "yes", "no", "dance", "cheer", "cry", "laugh", "think", "shrug", "clap",
    "salute",
];

/// `player:emote` from the client: do emote `emote` (one of [`EMOTES`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EmoteRequest {
    pub emote: String,
}

/// `player:emote` to every player in view of `playerId` (the emoter included).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlayerEmote {
    pub player_id: String,
    pub emote: String,
}

/// `player:homeTeleport`: how the player's home teleport goes (CONTRACT.md section 14).
/// `status` is `casting` (it began: `castTicks` until it lands), `arrived` (the player is at the
/// home town's spawn) or `interrupted` (moved, attacked or did something else). `cooldownSeconds`
/// is how long until it may be cast again (0 when it may).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HomeTeleportNotice {
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast_ticks: Option<u32>,
    pub cooldown_seconds: u64,
}

/// A tile on the ground plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TilePos {
    pub x: i32,
    pub z: i32,
}

/// A world position; y is height.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorldPos {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// `player:move`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MoveRequest {
    pub x: i32,
    pub z: i32,
    #[serde(default)]
    pub run: bool,
}

/// Chat channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChatChannel {
    Local,
    Global,
    Private,
    System,
    /// The game's narration to one player (CONTRACT.md section 9); players cannot send on it.
    Game,
}

/// `player:chat`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChatRequest {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<ChatChannel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// `player:action` (the actions of CONTRACT.md section 3).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ActionRequest {
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// `make`: the recipe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe_id: Option<String>,
    /// `make`: how many times (default 1), or `"all"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<Quantity>,
    /// `cast`: the spell; `autocast`: the spell attacks use, absent or `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spell_id: Option<String>,
    /// `auto_retaliate`: on (`true`) or off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// A quantity a client asks for: a count (checked against its bounds where it is used) or `"all"`.
/// `make` makes its recipe that many times (`"all"`: until an input runs out); the bank's
/// deposits and withdrawals move that many (`"all"`: every one there is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    All,
    Count(i64),
}

impl Serialize for Quantity {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Quantity::All => serializer.serialize_str("all"),
            Quantity::Count(n) => serializer.serialize_i64(*n),
        }
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Expecting;
        impl serde::de::Visitor<'_> for Expecting {
            type Value = Quantity;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(r#"a whole number or "all""#)
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Quantity, E> {
                if v == "all" {
                    Ok(Quantity::All)
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                }
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::Count(v))
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Quantity, E> {
                // Beyond i64 is beyond every bound: kept as the largest, refused when checked.
                Ok(Quantity::Count(i64::try_from(v).unwrap_or(i64::MAX)))
            }

            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Quantity, E> {
                // JSON has one number type: `1e3` and `5.0` are whole numbers too.
                if v.is_finite() && v.fract() == 0.0 {
                    // Saturating: out of range is refused by the bounds all the same.
                    Ok(Quantity::Count(v as i64))
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Float(v), &self))
                }
            }
        }
        deserializer.deserialize_any(Expecting)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Quantity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Quantity".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "How many times to make the recipe, or `\"all\"`: until an input runs out.",
            "oneOf": [{"type": "integer", "minimum": 1}, {"const": "all"}]
        })
    }
}

impl ActionRequest {
    /// The action `action` alone (`stop`, `flee`); what it acts on is added by the `with_` methods.
    pub fn new(action: impl Into<String>) -> ActionRequest {
        ActionRequest {
            action: action.into(),
            target_id: None,
            slot: None,
            item_id: None,
            style: None,
            recipe_id: None,
            quantity: None,
            spell_id: None,
            enabled: None,
        }
    }

    /// `make`: `quantity` times recipe `recipe_id` (CONTRACT §9); a station is added with
    /// [`ActionRequest::with_target`].
    pub fn make(recipe_id: impl Into<String>, quantity: Quantity) -> ActionRequest {
        ActionRequest {
            recipe_id: Some(recipe_id.into()),
            quantity: Some(quantity),
            ..ActionRequest::new("make")
        }
    }

    /// On an entity (`targetId`).
    pub fn with_target(mut self, target_id: impl Into<String>) -> ActionRequest {
        self.target_id = Some(target_id.into());
        self
    }

    /// With a slot: an inventory slot number, or an equipment slot's name (`unequip`).
    pub fn with_slot(mut self, slot: impl Into<Value>) -> ActionRequest {
        self.slot = Some(slot.into());
        self
    }

    /// With a combat style (`combat_style`).
    pub fn with_style(mut self, style: impl Into<String>) -> ActionRequest {
        self.style = Some(style.into());
        self
    }

    /// `cast`: spell `spell_id` once at entity `target_id` (CONTRACT.md section 11).
    pub fn cast(spell_id: impl Into<String>, target_id: impl Into<String>) -> ActionRequest {
        ActionRequest {
            spell_id: Some(spell_id.into()),
            ..ActionRequest::new("cast")
        }
        .with_target(target_id)
    }

    /// `auto_retaliate`: whether an attack on the idle player is answered.
    pub fn auto_retaliate(enabled: bool) -> ActionRequest {
        ActionRequest {
            enabled: Some(enabled),
            ..ActionRequest::new("auto_retaliate")
        }
    }

    /// `autocast`: the spell the player's attacks cast, `None` to fight without one.
    pub fn autocast(spell_id: Option<String>) -> ActionRequest {
        ActionRequest {
            spell_id,
            ..ActionRequest::new("autocast")
        }
    }
}

/// `dialogue:respond`: the response `index` (as sent in `dialogue:open`) of the dialogue with
/// `npcId` (the NPC's content id or entity id).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DialogueRespond {
    pub npc_id: String,
    pub index: u32,
}

/// `dialogue:close` from the client.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DialogueCloseRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npc_id: Option<String>,
}

/// One response offered in `dialogue:open`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DialogueChoice {
    pub index: u32,
    pub text: String,
}

/// `dialogue:open`: a node of the NPC's tree and the responses the player may give.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DialogueOpen {
    pub npc_id: String,
    pub entity_id: String,
    pub node_id: String,
    pub text: String,
    pub responses: Vec<DialogueChoice>,
}

/// `dialogue:close` to the client.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DialogueClose {
    pub npc_id: String,
    pub reason: String,
}

/// One quest in `quest:list`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuestSummary {
    pub quest_id: String,
    pub name: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<u32>,
}

/// `quest:list`: every quest with the player's status.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuestList {
    pub quests: Vec<QuestSummary>,
    pub quest_points: u32,
}

/// `quest:abandon`: give up a quest in progress (CONTRACT.md section 14, issue 54): it is back to
/// not started (a replayable quest done before: back to completed), and the items its start gave
/// are taken back as far as they are held.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuestAbandon {
    pub quest_id: String,
}

/// `quest:update`: progress in one quest.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuestUpdate {
    pub quest_id: String,
    pub status: String,
    pub stage_id: Option<String>,
    pub progress: u32,
    pub count: u32,
}

/// An item of a quest reward.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewardItem {
    pub item_id: String,
    pub quantity: u32,
}

/// What a completed quest granted.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuestRewards {
    pub quest_points: u32,
    pub items: Vec<RewardItem>,
    pub xp: BTreeMap<Skill, f64>,
}

/// `quest:complete`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuestComplete {
    pub quest_id: String,
    pub rewards: QuestRewards,
    /// The player's quest points now.
    pub quest_points: u32,
}

/// `prayer:toggle` (CONTRACT.md section 8).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PrayerToggle {
    pub prayer_id: String,
    pub active: bool,
}

/// `prayer:update`: points left, the maximum (the Prayer level) and the active prayers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PrayerUpdate {
    pub points: u32,
    pub max_points: u32,
    pub active: Vec<String>,
}

/// `bank:deposit`: `slot` is an inventory slot number or `"all"` (everything held).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BankDepositRequest {
    pub slot: DepositSlot,
    /// How many of the slot's item (default, and `"all"`: every one held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<Quantity>,
}

/// What `bank:deposit` deposits: one slot's item, or everything (`"all"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DepositSlot {
    All,
    Slot(SlotNumber),
}

impl Serialize for DepositSlot {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            DepositSlot::All => serializer.serialize_str("all"),
            DepositSlot::Slot(slot) => slot.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for DepositSlot {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Expecting;
        impl serde::de::Visitor<'_> for Expecting {
            type Value = DepositSlot;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(r#"an inventory slot or "all""#)
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DepositSlot, E> {
                if v == "all" {
                    Ok(DepositSlot::All)
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                }
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<DepositSlot, E> {
                Ok(DepositSlot::Slot(SlotNumber::from(v)))
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<DepositSlot, E> {
                Ok(DepositSlot::Slot(SlotNumber::from(v)))
            }

            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<DepositSlot, E> {
                let number = serde_json::Number::from_f64(v)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Float(v), &self))?;
                SlotNumber::new(number)
                    .map(DepositSlot::Slot)
                    .map_err(E::custom)
            }
        }
        deserializer.deserialize_any(Expecting)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for DepositSlot {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DepositSlot".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let slot = generator.subschema_for::<SlotNumber>();
        schemars::json_schema!({
            "description": "One slot's item, or `\"all\"`: everything in the inventory.",
            "oneOf": [slot, {"const": "all"}]
        })
    }
}

/// `bank:withdraw`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BankWithdrawRequest {
    pub item_id: String,
    /// How many at most (as many as fit), or `"all"`: every one banked that fits.
    pub quantity: Quantity,
}

/// `shop:buy`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShopBuyRequest {
    pub store_id: String,
    pub item_id: String,
    #[serde(default = "one")]
    pub quantity: i64,
}

fn one() -> i64 {
    1
}

/// `shop:sell`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShopSellRequest {
    pub store_id: String,
    pub slot: SlotNumber,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
}

/// One item in a bank (`bank:update`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BankItem {
    pub item_id: String,
    pub quantity: u64,
}

/// `bank:update`: the whole bank, in bank order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BankUpdate {
    pub items: Vec<BankItem>,
}

/// One line of a shop (`shop:open`, `shop:update`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShopItem {
    pub item_id: String,
    pub name: String,
    /// Coins per unit when buying.
    pub price: u64,
    /// Units in stock; `null` means unlimited.
    pub stock: Option<u32>,
    /// Coins per unit the shop pays when the player sells it (`null`: it does not buy).
    pub sell_price: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

/// `shop:open` and `shop:update`: the shop as it stands.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShopView {
    pub store_id: String,
    pub name: String,
    /// Whether the shop buys from players, and at what fraction of an item's value.
    pub buyback: bool,
    pub buyback_rate: f64,
    pub items: Vec<ShopItem>,
}

/// `shop:close`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShopClosed {
    pub store_id: String,
}

/// An item and how many, in a recipe of `make:options`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RecipeItem {
    pub item_id: String,
    pub quantity: u32,
}

/// An item used up over several makes (thread: one lasts `uses`), in `make:options`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RecipeConsumable {
    pub item_id: String,
    pub uses: u32,
}

/// What `make:options` answers: the station or the items used.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MakeContext {
    /// The station (or tanner) entity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// Its station type (`anvil`, `furnace`, `range`, `fire`, `tanner`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station_type: Option<String>,
    /// The inventory slots used (one on a station, two for an item on an item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Vec<u8>>,
}

/// One recipe offered in `make:options`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MakeOption {
    pub recipe_id: String,
    /// The skill trained (`null` for tanning).
    pub skill: Option<Skill>,
    pub level: u32,
    /// What is made, by content's name.
    pub name: String,
    pub xp: f64,
    pub inputs: Vec<RecipeItem>,
    /// Items held but not used up (a hammer for smithing, a knife, a needle, a mould).
    pub tools: Vec<String>,
    /// Items used up over several makes (thread).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consumables: Vec<RecipeConsumable>,
    pub outputs: Vec<RecipeItem>,
    /// Coins paid each time (tanning).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub coins: u64,
    pub can_make: bool,
    /// Why not, when `canMake` is false: `level_too_low`, `missing_items` or `missing_tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `make:options` (CONTRACT.md section 9): every recipe of a station or item pair, in content
/// order, those the player cannot make yet included with why.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MakeOptions {
    pub context: MakeContext,
    pub options: Vec<MakeOption>,
}

/// What kind of thing an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum EntityKind {
    Player,
    Npc,
    Resource,
    GroundItem,
    /// An agility obstacle (`interact` crosses it).
    Obstacle,
}

/// An entity as a client first sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    pub id: String,
    pub kind: EntityKind,
    pub x: i32,
    pub z: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_health: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depleted: Option<bool>,
    /// The NPC or resource definition id from content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_id: Option<String>,
    /// A player's visible worn items ([`Worn`]); absent when they wear nothing (and for every
    /// other kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worn: Option<std::sync::Arc<Worn>>,
    /// A door's or gate's state (CONTRACT §13): closed, it blocks like a wall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<bool>,
    /// The side of its tile a door or gate stands on, as a chunk's wall bit (1 north, 2 east,
    /// 4 south, 8 west).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<u8>,
    /// An NPC's quest marker for the receiving player (CONTRACT §13); absent when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quest: Option<QuestMarker>,
}

/// An NPC's quest marker for one player (CONTRACT §13): a quest can be started with it, is under
/// way with it, or can be handed in to it. `none` only in a `changed` entry: the marker is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum QuestMarker {
    Available,
    Active,
    Ready,
    None,
}

impl QuestMarker {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            QuestMarker::Available => "available",
            QuestMarker::Active => "active",
            QuestMarker::Ready => "ready",
            QuestMarker::None => "none",
        }
    }
}

impl Entity {
    /// An entity of `kind` on tile (`x`, `z`) with nothing else set: a maker adds what its kind
    /// shows (`Entity { name, health, ..Entity::at(id, kind, x, z) }`).
    pub fn at(id: impl Into<String>, kind: EntityKind, x: i32, z: i32) -> Entity {
        Entity {
            id: id.into(),
            kind,
            x,
            z,
            name: None,
            health: None,
            max_health: None,
            item_id: None,
            quantity: None,
            resource_type: None,
            depleted: None,
            type_id: None,
            worn: None,
            open: None,
            side: None,
            quest: None,
        }
    }
}

/// What others see a player wear: item ids by slot name, only the slots drawn on a figure
/// ([`WORN_SLOTS`]). Built once in the tick a player's equipment changed and shared by every
/// entity and change that carries it.
pub type Worn = BTreeMap<String, String>;

/// The equipment slots shown to others in [`Worn`]: those a figure shows. Arrows and a ring are
/// not seen from afar, as in the classic games.
pub const WORN_SLOTS: [&str; 9] = [
    "weapon", "shield", "helmet", "body", "legs", "cape", "boots", "gloves", "amulet",
];

/// An entity that moved to a new tile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Moved {
    /// Shared with the entity: a crowd's update names the same ids hundreds of times a tick.
    pub id: std::sync::Arc<str>,
    pub x: i32,
    pub z: i32,
}

/// Fields of an entity that changed (only those present).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Changed {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_health: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depleted: Option<bool>,
    /// A player's whole [`Worn`] map, in the tick their equipment changed (empty: nothing worn
    /// any more). Shared by every viewer's update of that tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worn: Option<std::sync::Arc<Worn>>,
    /// A door or gate opened (`true`) or closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<bool>,
    /// An NPC's quest marker for the receiving player changed (`none`: it has none any more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quest: Option<QuestMarker>,
}

/// `world:update`: what changed within the receiver's view this tick.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorldUpdate {
    pub tick: u64,
    /// Picks from a view thread's table of the tick's added entities (see [`TickEntities`]).
    pub added: AddedList,
    /// Picks from the tick's table of moves, each encoded once (see [`TickMoves`]).
    pub moved: MovedList,
    pub changed: Vec<Changed>,
    /// Picks from the same table's removed ids.
    pub removed: RemovedList,
    /// The receiver's own run energy in percent (0–100), present in the ticks it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamina: Option<u32>,
}

impl WorldUpdate {
    /// Nothing to tell: no message is sent.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.moved.is_empty()
            && self.changed.is_empty()
            && self.removed.is_empty()
            && self.stamina.is_none()
    }
}

/// A skill's level and XP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkillState {
    pub level: i64,
    pub xp: i64,
}

/// One occupied inventory slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InventorySlot {
    pub slot: u8,
    pub item_id: String,
    pub name: String,
    pub quantity: i64,
}

/// A worn item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EquippedItem {
    pub item_id: String,
    pub quantity: i64,
}

/// The Player shape of CONTRACT.md section 2 (REST and `player:sync`, which adds `tile`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Player {
    pub id: String,
    pub account_id: String,
    pub name: String,
    pub combat_level: i64,
    pub health: i64,
    pub max_health: i64,
    pub coins: i64,
    pub position: WorldPos,
    pub skills: BTreeMap<Skill, SkillState>,
    pub inventory: Vec<InventorySlot>,
    pub equipment: BTreeMap<String, EquippedItem>,
    pub online: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile: Option<TilePos>,
    /// Run energy in percent (0–100): `player:sync` only, like `tile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamina: Option<u32>,
    /// Whether auto-retaliate is on (`player:action {action: "auto_retaliate"}`): `player:sync`
    /// only, like `tile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_retaliate: Option<bool>,
    /// Seconds until the home teleport may be cast again, 0 when it may (CONTRACT.md section 14):
    /// `player:sync` only, like `tile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home_teleport_cooldown: Option<u64>,
}

/// `chat:message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    pub channel: ChatChannel,
    pub from_id: String,
    pub from_name: String,
    pub text: String,
    pub ts: i64,
    /// The world the line was said in: global lines when global chat crosses worlds
    /// (`CROSS_WORLD_GLOBAL_CHAT`), absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<i64>,
}

/// `inventory:update`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InventoryUpdate {
    pub inventory: Vec<InventorySlot>,
    pub coins: i64,
}

/// `equipment:update`: every worn item by slot name (`weapon`, `shield`, `arrows`, `helmet`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EquipmentUpdate {
    pub equipment: BTreeMap<String, EquippedItem>,
}

/// `skill:xp`: one XP gain. `xp` is the new total in whole points, `xpGained` may have a tenth
/// (17.5 for copper ore).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SkillXp {
    pub skill: Skill,
    pub xp_gained: f64,
    pub xp: i64,
    pub level: i64,
    pub leveled_up: bool,
}

/// `combat:hit`: one attack's outcome (damage 0 is a miss or a blocked hit), to everyone in view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CombatHit {
    pub attacker_id: String,
    pub target_id: String,
    pub damage: i64,
    pub target_health: i64,
    pub target_max_health: i64,
    /// What flew, for a hit from range (CONTRACT.md section 14): `"arrow"`, or the spell's id
    /// (`"magic"` for a caster whose spell the content lacks); absent for melee.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projectile: Option<String>,
}

/// `inventory:use`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UseRequest {
    pub slot: SlotNumber,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_slot: Option<SlotNumber>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<String>,
    /// The skill an XP lamp is rubbed on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
}

impl UseRequest {
    /// The item in `slot` used alone (eaten, buried, rubbed); `target_slot` or `target_id` name
    /// what it is used on.
    pub fn new(slot: impl Into<SlotNumber>) -> UseRequest {
        UseRequest {
            slot: slot.into(),
            target_slot: None,
            target_id: None,
            skill: None,
        }
    }
}

/// `friend:request`, `friend:remove`, `ignore:add`, `ignore:remove`: another character by name.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NameRequest {
    pub name: String,
}

/// `friend:respond`: an answer to a friend request from `name`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FriendRespond {
    pub name: String,
    pub accept: bool,
}

/// Another character in a friends or ignore list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContactEntry {
    pub id: String,
    pub name: String,
    /// Friends only: whether they are in the world now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub online: Option<bool>,
    /// Friends online, when several worlds run: the number of the world they are on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<i64>,
}

/// `friend:list`: the whole social state, on entry and after every change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FriendList {
    pub friends: Vec<ContactEntry>,
    /// Requests waiting for this player's answer.
    pub incoming: Vec<ContactEntry>,
    /// Requests this player sent that wait for an answer.
    pub outgoing: Vec<ContactEntry>,
    pub ignored: Vec<ContactEntry>,
}

/// `friend:incoming`: someone asks this player to be friends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FriendIncoming {
    pub from_id: String,
    pub from_name: String,
}

/// `friend:status`: a friend came online or went offline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FriendStatus {
    pub id: String,
    pub name: String,
    pub online: bool,
    /// When several worlds run and the friend came online: the number of their world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<i64>,
}

/// `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorMessage {
    pub code: String,
    pub message: String,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<Value>,
    /// `cooldown` of the home teleport: seconds until it may be cast again.
    #[serde(
        default,
        rename = "remainingSeconds",
        skip_serializing_if = "Option::is_none"
    )]
    pub remaining_seconds: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Issue 50: `{"type":"a","type":"b"}` was read as the last `type`, silently.
    #[test]
    fn a_key_twice_is_refused_as_invalid_message() {
        for frame in [
            r#"{"type":"player:sync","type":"player:move","data":{"x":1,"z":1}}"#,
            r#"{"type":"player:move","data":{"x":1,"z":1},"data":{"x":2,"z":2}}"#,
            r#"{"type":"player:move","data":{"x":1,"x":9,"z":1}}"#,
            r#"{"type":"chat:send","ref":1,"ref":2,"data":{}}"#,
        ] {
            let err = ClientMessage::parse(frame).0.unwrap_err();
            assert_eq!(err.code, codes::INVALID_MESSAGE, "{frame}");
            assert!(
                err.message.contains("appears twice"),
                "{frame}: {}",
                err.message
            );
        }
        let err = ClientMessage::parse(r#"{"type":"x","type":"y"}"#)
            .0
            .unwrap_err();
        assert_eq!(
            err.message,
            r#"the message is ambiguous: the key "type" appears twice in one object"#
        );
        // Equal keys in different objects are fine, and so is every other frame.
        let (msg, _) = ClientMessage::parse(
            r#"{"type":"player:move","data":{"x":3,"z":-4,"run":true,"ref":1},"ref":7}"#,
        );
        assert!(msg.is_ok());
        assert_eq!(
            ClientMessage::parse("{").0.unwrap_err().message,
            "the message is not valid JSON: it ends before it is complete (line 1, column 1)"
        );
    }

    #[test]
    fn frames_parse_with_their_ref() {
        let (msg, r) = ClientMessage::parse(
            r#"{"type":"player:move","data":{"x":3,"z":-4,"run":true},"ref":7}"#,
        );
        assert_eq!(
            msg.unwrap(),
            ClientMessage::Move(MoveRequest {
                x: 3,
                z: -4,
                run: true
            })
        );
        assert_eq!(r, Some(json!(7)));
        let (msg, _) = ClientMessage::parse(r#"{"type":"player:sync"}"#);
        assert_eq!(msg.unwrap(), ClientMessage::Sync);
    }

    #[test]
    fn bad_frames_get_the_right_code() {
        let (msg, r) = ClientMessage::parse("not json");
        assert_eq!(msg.unwrap_err().code, codes::INVALID_MESSAGE);
        assert_eq!(r, None);
        let (msg, r) = ClientMessage::parse(r#"{"type":"fly","data":{},"ref":"a"}"#);
        assert_eq!(msg.unwrap_err().code, codes::UNKNOWN_TYPE);
        assert_eq!(r, Some(json!("a")));
        let (msg, r) =
            ClientMessage::parse(r#"{"type":"player:move","data":{"x":"3","z":1},"ref":"b"}"#);
        assert_eq!(msg.unwrap_err().code, codes::INVALID_MESSAGE);
        assert_eq!(r, Some(json!("b")));
        let (msg, r) = ClientMessage::parse(r#"{"data":{},"ref":1}"#);
        assert_eq!(msg.unwrap_err().code, codes::INVALID_MESSAGE);
        assert_eq!(r, Some(json!(1)));
    }

    #[test]
    fn arrays_are_never_read_as_objects() {
        // Each was once read field by field: a move to 5,5, a drop of slot 0, a chat line.
        for frame in [
            r#"{"type":"player:move","data":[5,5],"ref":1}"#,
            r#"{"type":"player:action","data":["drop",null,0],"ref":1}"#,
            r#"{"type":"player:chat","data":["hi"],"ref":1}"#,
            r#"{"type":"inventory:use","data":[0],"ref":1}"#,
            r#"{"type":"bank:deposit","data":["all"],"ref":1}"#,
            r#"{"type":"tradeAddItem","data":["t",0],"ref":1}"#,
            r#"{"type":"player:sync","data":[],"ref":1}"#,
            r#"{"type":"bank:open","data":[1],"ref":1}"#,
            r#"{"type":"friend:list","data":5,"ref":1}"#,
            r#"{"type":"shop:close","data":"x","ref":1}"#,
        ] {
            let (msg, r) = ClientMessage::parse(frame);
            let err = msg.expect_err(frame);
            assert_eq!(err.code, codes::INVALID_MESSAGE, "{frame}");
            assert_eq!(r, Some(json!(1)), "{frame}");
        }
        // The envelope itself as an array.
        let (msg, r) = ClientMessage::parse(r#"["player:move",{"x":5,"z":5}]"#);
        assert_eq!(msg.unwrap_err().code, codes::INVALID_MESSAGE);
        assert_eq!(r, None);
    }

    #[test]
    fn null_or_missing_data_reads_as_an_empty_object_and_unknown_fields_are_allowed() {
        for frame in [
            r#"{"type":"player:sync","data":null}"#,
            r#"{"type":"player:sync"}"#,
            r#"{"type":"player:sync","data":{"later":true}}"#,
        ] {
            assert_eq!(ClientMessage::parse(frame).0.unwrap(), ClientMessage::Sync);
        }
        let (msg, _) = ClientMessage::parse(
            r#"{"type":"player:move","data":{"x":1,"z":2,"future":[1]},"extra":{}}"#,
        );
        assert_eq!(
            msg.unwrap(),
            ClientMessage::Move(MoveRequest {
                x: 1,
                z: 2,
                run: false
            })
        );
        // Data that is required stays required.
        let (msg, _) = ClientMessage::parse(r#"{"type":"player:chat","data":null}"#);
        assert_eq!(msg.unwrap_err().code, codes::INVALID_MESSAGE);
    }

    #[test]
    fn slots_are_whole_numbers_when_read_and_ranged_when_used() {
        let read = |frame: &str| ClientMessage::parse(frame).0;
        // Out of range: read, then refused by `index` with invalid_slot.
        for frame in [
            r#"{"type":"inventory:use","data":{"slot":-1}}"#,
            r#"{"type":"inventory:use","data":{"slot":28}}"#,
            r#"{"type":"inventory:use","data":{"slot":99999999999999999999999}}"#,
        ] {
            let Ok(ClientMessage::Use(request)) = read(frame) else {
                panic!("{frame} reads");
            };
            assert_eq!(request.slot.index().unwrap_err().code, codes::INVALID_SLOT);
        }
        let Ok(ClientMessage::Use(request)) =
            read(r#"{"type":"inventory:use","data":{"slot":0,"targetSlot":-5}}"#)
        else {
            panic!("reads");
        };
        assert_eq!(request.slot.index(), Ok(0));
        let target = request.target_slot.unwrap();
        assert_eq!(target.index().unwrap_err().code, codes::INVALID_SLOT);
        // Not a whole number: invalid_message when read.
        for frame in [
            r#"{"type":"inventory:use","data":{"slot":"1"}}"#,
            r#"{"type":"inventory:use","data":{"slot":1.5}}"#,
            r#"{"type":"inventory:use","data":{"slot":[1]}}"#,
            r#"{"type":"bank:deposit","data":{"slot":"some"}}"#,
            r#"{"type":"bank:deposit","data":{"slot":{"all":true}}}"#,
            r#"{"type":"shop:sell","data":{"storeId":"s","slot":true}}"#,
            r#"{"type":"tradeAddItem","data":{"tradeId":"t","inventorySlot":null}}"#,
            r#"{"type":"tradeRemoveItem","data":{"tradeId":"t","inventorySlot":0.5}}"#,
        ] {
            assert_eq!(
                read(frame).unwrap_err().code,
                codes::INVALID_MESSAGE,
                "{frame}"
            );
        }
        assert_eq!(
            read(r#"{"type":"bank:deposit","data":{"slot":"all"}}"#).unwrap(),
            ClientMessage::BankDeposit(BankDepositRequest {
                slot: DepositSlot::All,
                quantity: None
            })
        );
        let Ok(ClientMessage::BankDeposit(deposit)) =
            read(r#"{"type":"bank:deposit","data":{"slot":-3}}"#)
        else {
            panic!("reads");
        };
        let DepositSlot::Slot(slot) = deposit.slot else {
            panic!("a slot");
        };
        assert_eq!(slot.index().unwrap_err().code, codes::INVALID_SLOT);
    }

    #[test]
    fn trade_messages_parse_and_serialise_with_their_contract_names() {
        let (msg, r) = ClientMessage::parse(
            r#"{"type":"tradeAddItem","data":{"tradeId":"trade-1","inventorySlot":3},"ref":4}"#,
        );
        assert_eq!(
            msg.unwrap(),
            ClientMessage::TradeAddItem(crate::trade::TradeAddItem {
                trade_id: "trade-1".into(),
                inventory_slot: 3u8.into(),
                quantity: None,
            })
        );
        assert_eq!(r, Some(json!(4)));
        let (msg, _) = ClientMessage::parse(r#"{"type":"tradeAccept","data":{}}"#);
        assert_eq!(msg.unwrap_err().code, codes::INVALID_MESSAGE);
        let (msg, _) = ClientMessage::parse(
            r#"{"type":"tradeRequestRespond","data":{"tradeId":"t","accept":"yes"}}"#,
        );
        assert_eq!(msg.unwrap_err().code, codes::INVALID_MESSAGE);
        let cancelled = ServerMessage::TradeCancelled(crate::trade::TradeCancelled {
            trade_id: "t".into(),
            reason: "cancelled".into(),
            by_player_id: Some("p".into()),
        });
        let v: Value = serde_json::from_str(&cancelled.to_json()).unwrap();
        assert_eq!(
            v,
            json!({"type":"tradeCancelled","data":{"tradeId":"t","reason":"cancelled","byPlayerId":"p"}})
        );
    }

    #[test]
    fn make_reads_a_recipe_and_a_quantity_or_all() {
        let read = |data: &str| {
            ClientMessage::parse(&format!(r#"{{"type":"player:action","data":{data}}}"#)).0
        };
        let Ok(ClientMessage::Action(make)) =
            read(r#"{"action":"make","recipeId":"smithing:bronze_dagger","quantity":5}"#)
        else {
            panic!("reads");
        };
        assert_eq!(make.recipe_id.as_deref(), Some("smithing:bronze_dagger"));
        assert_eq!(make.quantity, Some(Quantity::Count(5)));
        let Ok(ClientMessage::Action(all)) = read(r#"{"action":"make","quantity":"all"}"#) else {
            panic!("reads");
        };
        assert_eq!(all.quantity, Some(Quantity::All));
        // Read as given; the bounds are the action's (see wayfarer_sim::actions).
        let Ok(ClientMessage::Action(huge)) = read(r#"{"action":"make","quantity":1e3}"#) else {
            panic!("reads");
        };
        assert_eq!(huge.quantity, Some(Quantity::Count(1000)));
        for bad in [r#""some""#, "2.5", "[1]", "true"] {
            let err = read(&format!(r#"{{"action":"make","quantity":{bad}}}"#)).unwrap_err();
            assert_eq!(err.code, codes::INVALID_MESSAGE, "{bad}");
        }
    }

    #[test]
    fn make_options_serialise_with_the_contract_names() {
        let options = ServerMessage::MakeOptions(MakeOptions {
            context: MakeContext {
                target_id: Some("res-4".into()),
                station_type: Some("anvil".into()),
                slots: Some(vec![3]),
            },
            options: vec![MakeOption {
                recipe_id: "smithing:bronze_sword".into(),
                skill: Some(Skill::Smithing),
                level: 4,
                name: "Bronze Sword".into(),
                xp: 12.5,
                inputs: vec![RecipeItem {
                    item_id: "bronze_bar".into(),
                    quantity: 1,
                }],
                tools: vec!["hammer".into()],
                consumables: Vec::new(),
                outputs: vec![RecipeItem {
                    item_id: "bronze_sword".into(),
                    quantity: 1,
                }],
                coins: 0,
                can_make: false,
                reason: Some(codes::LEVEL_TOO_LOW.into()),
            }],
        });
        let v: Value = serde_json::from_str(&options.to_json()).unwrap();
        assert_eq!(
            v,
            json!({"type": "make:options", "data": {
                "context": {"targetId": "res-4", "stationType": "anvil", "slots": [3]},
                "options": [{"recipeId": "smithing:bronze_sword", "skill": "smithing", "level": 4,
                    "name": "Bronze Sword", "xp": 12.5,
                    "inputs": [{"itemId": "bronze_bar", "quantity": 1}], "tools": ["hammer"],
                    "outputs": [{"itemId": "bronze_sword", "quantity": 1}],
                    "canMake": false, "reason": "level_too_low"}]
            }})
        );
    }

    #[test]
    fn server_messages_use_the_envelope() {
        let text = ServerMessage::error("move_too_far", "too far", Some(json!("r1"))).to_json();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({"type":"error","data":{"code":"move_too_far","message":"too far","ref":"r1"}})
        );
        let update = ServerMessage::WorldUpdate(WorldUpdate {
            tick: 5,
            ..Default::default()
        });
        let v: Value = serde_json::from_str(&update.to_json()).unwrap();
        assert_eq!(
            v,
            json!({"type":"world:update","data":{"tick":5,"added":[],"moved":[],"changed":[],"removed":[]}})
        );
    }
}
