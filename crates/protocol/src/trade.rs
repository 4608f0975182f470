//! Trade messages (CONTRACT.md section 5): what clients send and what the server answers.

use serde::{Deserialize, Serialize};

use crate::ws::SlotNumber;

/// Trade error codes (`tradeError.code`), besides `player_offline` and `rate_limited`.
pub mod codes {
    pub const PLAYER_OFFLINE: &str = "player_offline";
    pub const TOO_FAR: &str = "too_far";
    pub const SELF_TRADE: &str = "self_trade";
    pub const PLAYER_BUSY: &str = "player_busy";
    pub const INVALID_SLOT: &str = "invalid_slot";
    pub const UNTRADEABLE_ITEM: &str = "untradeable_item";
    pub const INVALID_QUANTITY: &str = "invalid_quantity";
    pub const INVENTORY_FULL: &str = "inventory_full";
    pub const INVALID_TRADE: &str = "invalid_trade";
    pub const NOT_ON_SCREEN: &str = "not_on_screen";
    pub const RATE_LIMITED: &str = "rate_limited";
    /// The `error` code for `player:move`, `player:action`, `inventory:use` and `bank:*` during a trade.
    pub const IN_TRADE: &str = "in_trade";
}

/// `tradeCancelled.reason` values.
pub mod reasons {
    pub const CANCELLED: &str = "cancelled";
    pub const DECLINED: &str = "declined";
    pub const TIMEOUT: &str = "timeout";
    pub const DISCONNECTED: &str = "disconnected";
    pub const PLAYER_DIED: &str = "player_died";
    pub const SERVER_ERROR: &str = "server_error";
}

/// `tradeRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeRequest {
    pub target_player_id: String,
}

/// `tradeRequestRespond`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeRequestRespond {
    pub trade_id: String,
    pub accept: bool,
}

/// `tradeAddItem` (`quantity` defaults to the whole stack and is capped at it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeAddItem {
    pub trade_id: String,
    pub inventory_slot: SlotNumber,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
}

/// `tradeRemoveItem`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeRemoveItem {
    pub trade_id: String,
    pub inventory_slot: SlotNumber,
}

/// `tradeAccept` and `tradeCancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeIdOnly {
    pub trade_id: String,
}

/// One offered stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferItem {
    pub inventory_slot: u8,
    pub item_id: String,
    pub name: String,
    pub quantity: i64,
}

/// One side's offer.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Offer {
    pub items: Vec<OfferItem>,
    pub accepted: bool,
}

/// `tradeIncoming` (to the target of a request).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeIncoming {
    pub trade_id: String,
    pub from_player_id: String,
    pub from_player_name: String,
}

/// `tradeStarted` (to both).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeStarted {
    pub trade_id: String,
    pub partner_id: String,
    pub partner_name: String,
}

/// `tradeUpdated` (to both, from each receiver's point of view).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeUpdated {
    pub trade_id: String,
    pub my_offer: Offer,
    pub their_offer: Offer,
}

/// Wealth indicators of the confirmation screen: Σ value × quantity of each offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TradeValues {
    pub mine: i64,
    pub theirs: i64,
}

/// `tradeConfirmScreen` (Screen 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeConfirmScreen {
    pub trade_id: String,
    pub my_offer: Offer,
    pub their_offer: Offer,
    pub values: TradeValues,
}

/// One received stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReceivedItem {
    pub item_id: String,
    pub quantity: i64,
}

/// `tradeCompleted`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeCompleted {
    pub trade_id: String,
    pub received_items: Vec<ReceivedItem>,
}

/// `tradeCancelled`; `byPlayerId` names who cancelled (reason `cancelled`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeCancelled {
    pub trade_id: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_player_id: Option<String>,
}

/// `tradeError`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeError {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trade_id: Option<String>,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<serde_json::Value>,
}
