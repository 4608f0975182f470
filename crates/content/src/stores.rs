//! Stores: `stores.json`.

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, ItemId, RefKind, StoreId};
use crate::ticks::ms_to_ticks;

/// A shop.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Store {
    /// Unique id.
    pub id: StoreId,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Whether the store buys items from players.
    pub buyback: bool,
    /// Fraction of the item value paid when buying from players.
    pub buyback_rate: f64,
    /// Stock lines (lines selling unknown items are dropped).
    pub stock: Vec<StockLine>,
}

/// One item a store sells.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StockLine {
    /// The item.
    pub item_id: ItemId,
    /// Price in coins.
    pub price: u64,
    /// Units in stock; `None` means unlimited (`-1` in the file).
    pub stock: Option<u32>,
    /// Ticks to restock one unit (0 = never or not needed).
    pub restock_ticks: u32,
    /// UI grouping.
    pub category: Option<String>,
}

/// A store as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawStore {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub buyback: Option<bool>,
    #[serde(default)]
    pub buyback_rate: Option<f64>,
    #[serde(default)]
    pub items: Vec<RawStockLine>,
}

/// A stock line as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawStockLine {
    pub item_id: String,
    #[serde(default)]
    pub price: Option<i64>,
    #[serde(default)]
    pub stock_quantity: Option<i64>,
    /// Milliseconds.
    #[serde(default)]
    pub restock_time: Option<f64>,
    #[serde(default)]
    pub category: Option<String>,
}

/// Normalises one store, dropping lines that sell unknown items. `item_value` gives default prices.
pub(crate) fn normalise(
    raw: &RawStore,
    index: usize,
    item_value: &dyn Fn(&str) -> Option<u64>,
    ctx: &mut Ctx<'_>,
) -> Option<Store> {
    let at = |f: &str| format!("[{index}].{f}");
    if !ctx.check_id(&raw.id, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let mut stock = Vec::new();
    for (n, line) in raw.items.iter().enumerate() {
        let field = format!("items[{n}]");
        if !ctx.check_ref(
            RefKind::Item,
            &line.item_id,
            id,
            &format!("{field}.itemId"),
            "the stock line is dropped",
        ) {
            continue;
        }
        let price = match line.price {
            Some(p) => u64::from(ctx.count(id, &format!("{field}.price"), p)),
            None => item_value(&line.item_id).unwrap_or(0),
        };
        let stock_quantity = match line.stock_quantity {
            None | Some(-1) => None,
            Some(q) => Some(ctx.count(id, &format!("{field}.stockQuantity"), q)),
        };
        let restock_ticks = ms_to_ticks(ctx.non_negative(
            id,
            &format!("{field}.restockTime"),
            line.restock_time.unwrap_or(0.0),
        ));
        stock.push(StockLine {
            item_id: line.item_id.clone(),
            price,
            stock: stock_quantity,
            restock_ticks,
            category: line.category.clone(),
        });
    }
    Some(Store {
        id: raw.id.clone(),
        name: raw.name.clone(),
        description: raw.description.clone().unwrap_or_default(),
        buyback: raw.buyback.unwrap_or(false),
        buyback_rate: ctx.chance(id, &at("buybackRate"), raw.buyback_rate.unwrap_or(0.5)),
        stock,
    })
}
