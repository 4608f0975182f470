//! Shops: the stores of content, run by shopkeepers (an area NPC spawn with a `storeId`), opened by
//! talking to them (`interact`).
//!
//! Rules:
//! - `interact` with a shopkeeper opens its store for the player (`shop:open`); the shop stays
//!   open while the player stands within [`SHOP_REACH_TILES`] (Chebyshev) of the shopkeeper; walking
//!   farther, the shopkeeper vanishing, or `shop:close` closes it (`shop:close` to the client);
//!   `shop:buy` and `shop:sell` need the store open (`not_near_shop` otherwise);
//! - `shop:buy {storeId, itemId, quantity}` (default 1) costs `price × quantity` coins (the
//!   `coins` item), all or nothing: `out_of_stock` when the store does not sell the item or has
//!   fewer in stock, `not_enough_coins`, `inventory_full`;
//! - `shop:sell {storeId, slot, quantity?}` sells the item in `slot` (default the slot's stack;
//!   a larger `quantity` takes more of the item from other slots, at most all held) for
//!   `floor(value × buybackRate)` coins each; a store without buyback, an untradeable item, an item
//!   unknown to content, or coins are refused with `cannot_sell`;
//! - stock is world state shared by everyone: a line with `stockQuantity` -1 is unlimited; a limited
//!   line loses what is bought and gains what players sell; below its content quantity it gains
//!   one unit every `restockTime` (a line with 0 never restocks); every change sends `shop:update`
//!   to everyone who has the store open;
//! - each purchase and sale asks the server to save the record at once ([`Event::SaveNow`]).

use std::collections::BTreeMap;

use wayfarer_content::Store;
use wayfarer_protocol::ws::{codes, ShopItem, ShopView};

use crate::commands::ShopRequest;
use crate::entities::Handle;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::game_messages;
use crate::inventory::{InventoryError, MAX_STACK};
use crate::world::World;

/// How close (Chebyshev tiles) to the shopkeeper a player must stay while the shop is open.
pub const SHOP_REACH_TILES: u32 = 2;

/// The currency item.
pub const COINS: &str = "coins";

/// The store a player has open, and who runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenShop {
    pub store_id: String,
    pub keeper: Handle,
}

/// The live stock of one limited line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineStock {
    pub stock: u32,
    /// The tick at which one more unit comes back (when below the content quantity).
    pub next_restock_at: u64,
}

/// Live stock of every store touched so far: store id → item id → stock. Lines not here are at
/// their content quantity.
pub(crate) type ShopStocks = BTreeMap<String, BTreeMap<String, LineStock>>;

fn refuse(code: &'static str, message: impl Into<String>) -> Result<(), (&'static str, String)> {
    Err((code, message.into()))
}

impl World {
    /// The store an NPC runs (its area spawn's `storeId`), when content has it.
    pub(crate) fn store_of(&self, keeper: Handle) -> Option<String> {
        let npc = self.npcs.iter().find(|n| n.handle == keeper)?;
        let crate::npcs::Origin::Fixed(placement) = &npc.origin else {
            return None;
        };
        placement
            .store_id
            .clone()
            .filter(|s| self.content.stores.contains_key(s))
    }

    /// The current stock of a store line (`None`: unlimited).
    fn stock_of(&self, store: &Store, item_id: &str) -> Option<u32> {
        let line = store.stock.iter().find(|l| l.item_id == item_id)?;
        let base = line.stock?;
        Some(
            self.shop_stocks
                .get(&store.id)
                .and_then(|lines| lines.get(item_id))
                .map_or(base, |l| l.stock),
        )
    }

    /// What the shop pays for one of `item_id` (`None`: it does not buy it).
    fn sell_price(&self, store: &Store, item_id: &str) -> Option<u64> {
        if !store.buyback || item_id == COINS {
            return None;
        }
        let item = self.content.items.get(item_id)?;
        if !item.tradeable {
            return None;
        }
        Some((item.value as f64 * store.buyback_rate.max(0.0)).floor() as u64)
    }

    /// A store as the client is shown it.
    pub fn shop_view(&self, store_id: &str) -> Option<ShopView> {
        let store = self.content.stores.get(store_id)?;
        Some(ShopView {
            store_id: store.id.clone(),
            name: store.name.clone(),
            buyback: store.buyback,
            buyback_rate: store.buyback_rate,
            items: store
                .stock
                .iter()
                .map(|line| ShopItem {
                    item_id: line.item_id.clone(),
                    name: self
                        .content
                        .items
                        .get(&line.item_id)
                        .map_or_else(|| line.item_id.clone(), |i| i.name.clone()),
                    price: line.price,
                    stock: self.stock_of(store, &line.item_id),
                    sell_price: self.sell_price(store, &line.item_id),
                    category: line.category.clone(),
                })
                .collect(),
        })
    }

    /// Opens the store run by `keeper` for player `index`.
    pub(crate) fn open_shop(
        &mut self,
        index: usize,
        keeper: Handle,
        store_id: String,
        events: &mut Vec<Event>,
    ) {
        let Some(view) = self.shop_view(&store_id) else {
            return;
        };
        self.players[index].shop = Some(OpenShop { store_id, keeper });
        events.push(Event::ShopOpened {
            to: self.players[index].id.clone(),
            view,
        });
    }

    /// `shop:*`.
    pub(crate) fn shop(
        &mut self,
        id: &str,
        request: ShopRequest,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(&index) = self.player_index.get(id) else {
            return;
        };
        let open = self.players[index].shop.clone();
        let (store_id, outcome) = match request {
            ShopRequest::Close => {
                if let Some(open) = open {
                    self.players[index].shop = None;
                    events.push(Event::ShopClosed {
                        to: id.to_owned(),
                        store_id: open.store_id,
                    });
                }
                return;
            }
            ShopRequest::Buy {
                store_id,
                item_id,
                quantity,
            } => {
                let outcome = self
                    .shop_ready(index, open.as_ref(), &store_id)
                    .and_then(|()| self.buy(index, &store_id, &item_id, quantity, events));
                (store_id, outcome)
            }
            ShopRequest::Sell {
                store_id,
                slot,
                quantity,
            } => {
                let outcome = self
                    .shop_ready(index, open.as_ref(), &store_id)
                    .and_then(|()| self.sell(index, &store_id, slot, quantity, events));
                (store_id, outcome)
            }
        };
        match outcome {
            Ok(()) => {
                let dirty = &mut self.players[index].dirty;
                dirty.inventory = true;
                dirty.save_now = true;
                self.report_shop(&store_id, events);
            }
            Err((code, message)) => Self::reject(id, code, message, reference, events),
        }
    }

    /// Whether player `index` may trade with `store_id` now.
    fn shop_ready(
        &self,
        index: usize,
        open: Option<&OpenShop>,
        store_id: &str,
    ) -> Result<(), (&'static str, String)> {
        if self.is_dead(index) {
            return refuse(codes::CANNOT_DO, "you are dead");
        }
        match open {
            Some(open)
                if open.store_id == store_id
                    && self
                        .distance_from(index, open.keeper)
                        .is_some_and(|d| d <= SHOP_REACH_TILES) =>
            {
                Ok(())
            }
            _ => refuse(
                codes::NOT_NEAR_SHOP,
                format!(
                    "open {} by talking to its shopkeeper, and stay near them",
                    self.store_called(store_id)
                ),
            ),
        }
    }

    fn buy(
        &mut self,
        index: usize,
        store_id: &str,
        item_id: &str,
        quantity: u32,
        events: &mut Vec<Event>,
    ) -> Result<(), (&'static str, String)> {
        let Some(store) = self.content.stores.get(store_id).cloned() else {
            return refuse(codes::NOT_FOUND, format!("there is no store {store_id}"));
        };
        let Some(line) = store.stock.iter().find(|l| l.item_id == item_id) else {
            return refuse(
                codes::OUT_OF_STOCK,
                format!("{} does not sell {}", store.name, self.item_called(item_id)),
            );
        };
        if quantity == 0 {
            return refuse(codes::INVALID_MESSAGE, "quantity must be at least 1");
        }
        let stock = self.stock_of(&store, item_id);
        if let Some(stock) = stock {
            if stock < quantity {
                return refuse(
                    codes::OUT_OF_STOCK,
                    format!("only {stock} × {} in stock", self.item_called(item_id)),
                );
            }
        }
        let cost = line.price.checked_mul(u64::from(quantity));
        let player = &self.players[index];
        let coins = player.inventory.count(COINS);
        let Some(cost) = cost.filter(|&c| c <= coins) else {
            return refuse(
                codes::NOT_ENOUGH_COINS,
                format!(
                    "{quantity} × {} cost {} coins; you have {coins}",
                    self.item_called(item_id),
                    line.price.saturating_mul(u64::from(quantity))
                ),
            );
        };
        let stacking = self.stacking(item_id);
        let player = &mut self.players[index];
        let paid = player.inventory.apply(|tx| {
            if cost > 0 {
                tx.remove_item(COINS, u32::try_from(cost).unwrap_or(MAX_STACK))?;
            }
            tx.add(item_id, quantity, stacking)
        });
        paid.map_err(|err| self.inventory_refusal(&err))?;
        if let Some(base) = line.stock {
            let now = self.now();
            let restock = u64::from(line.restock_ticks);
            let lines = self.shop_stocks.entry(store.id.clone()).or_default();
            let entry = lines.entry(item_id.to_owned()).or_insert(LineStock {
                stock: base,
                next_restock_at: 0,
            });
            if entry.stock >= base {
                // The restock clock starts when the line first drops below its quantity.
                entry.next_restock_at = now + restock;
            }
            entry.stock -= quantity;
        }
        let text = game_messages::bought(quantity, &self.item_called(item_id), cost);
        self.narrate(index, text, events);
        // The economy's books: reported by `Event::ShopTrade`, owed with the buyer's record.
        let buyer = self.players[index].id.clone();
        self.owe(
            Some(&buyer),
            FlowKind::Entered,
            "bought",
            item_id,
            u64::from(quantity),
        );
        self.owe(Some(&buyer), FlowKind::Left, "shopPayments", COINS, cost);
        events.push(Event::ShopTrade {
            id: self.players[index].id.clone(),
            store_id: store.id.clone(),
            item_id: item_id.to_owned(),
            quantity,
            coins: cost,
            sold: false,
        });
        Ok(())
    }

    fn sell(
        &mut self,
        index: usize,
        store_id: &str,
        slot: usize,
        quantity: Option<u32>,
        events: &mut Vec<Event>,
    ) -> Result<(), (&'static str, String)> {
        let Some(store) = self.content.stores.get(store_id).cloned() else {
            return refuse(codes::NOT_FOUND, format!("there is no store {store_id}"));
        };
        let Some(stack) = self.players[index].inventory.get(slot).cloned() else {
            return refuse(
                codes::INVALID_SLOT,
                format!("inventory slot {slot} is empty"),
            );
        };
        let item_id = stack.item_id.clone();
        let Some(unit) = self.sell_price(&store, &item_id) else {
            return refuse(
                codes::CANNOT_SELL,
                format!("{} does not buy {}", store.name, self.item_called(&item_id)),
            );
        };
        let held =
            u32::try_from(self.players[index].inventory.count(&item_id)).unwrap_or(MAX_STACK);
        let quantity = match quantity {
            None => stack.quantity,
            Some(0) => return refuse(codes::INVALID_MESSAGE, "quantity must be at least 1"),
            Some(q) => q.min(held),
        };
        let Some(paid) = unit
            .checked_mul(u64::from(quantity))
            .and_then(|p| u32::try_from(p).ok())
            .filter(|&p| p <= MAX_STACK)
        else {
            return refuse(
                codes::INVENTORY_FULL,
                "that many coins do not fit in a stack",
            );
        };
        let coin_stacking = self.stacking(COINS);
        let player = &mut self.players[index];
        let swapped = player.inventory.apply(|tx| {
            let first = quantity.min(stack.quantity);
            tx.remove(slot, first)?;
            if quantity > first {
                tx.remove_item(&item_id, quantity - first)?;
            }
            if paid > 0 {
                tx.add(COINS, paid, coin_stacking)?;
            }
            Ok(())
        });
        swapped.map_err(|err| self.inventory_refusal(&err))?;
        if let Some(base) = store
            .stock
            .iter()
            .find(|l| l.item_id == item_id)
            .and_then(|l| l.stock)
        {
            let lines = self.shop_stocks.entry(store.id.clone()).or_default();
            let entry = lines.entry(item_id.clone()).or_insert(LineStock {
                stock: base,
                next_restock_at: 0,
            });
            entry.stock = entry.stock.saturating_add(quantity);
        }
        let text = game_messages::sold(quantity, &self.item_called(&item_id), u64::from(paid));
        self.narrate(index, text, events);
        let seller = self.players[index].id.clone();
        self.owe(
            Some(&seller),
            FlowKind::Left,
            "sold",
            &item_id,
            u64::from(quantity),
        );
        self.owe(
            Some(&seller),
            FlowKind::Entered,
            "shopPayments",
            COINS,
            u64::from(paid),
        );
        events.push(Event::ShopTrade {
            id: self.players[index].id.clone(),
            store_id: store.id.clone(),
            item_id,
            quantity,
            coins: u64::from(paid),
            sold: true,
        });
        Ok(())
    }

    /// `shop:update` of `store_id` for everyone who has it open.
    fn report_shop(&self, store_id: &str, events: &mut Vec<Event>) {
        let to: Vec<String> = self
            .players
            .iter()
            .filter(|p| p.shop.as_ref().is_some_and(|s| s.store_id == store_id))
            .map(|p| p.id.clone())
            .collect();
        if to.is_empty() {
            return;
        }
        if let Some(view) = self.shop_view(store_id) {
            events.push(Event::ShopUpdated { to, view });
        }
    }

    /// The actions phase for shops: limited lines below their quantity restock one unit per
    /// `restockTime`, and shops of players who walked away (or whose shopkeeper is gone) close.
    pub(crate) fn advance_shops(&mut self, events: &mut Vec<Event>) {
        let now = self.now();
        let mut changed: Vec<String> = Vec::new();
        for (store_id, lines) in &mut self.shop_stocks {
            let Some(store) = self.content.stores.get(store_id) else {
                continue;
            };
            for (item_id, line) in lines.iter_mut() {
                let Some(content_line) = store.stock.iter().find(|l| &l.item_id == item_id) else {
                    continue;
                };
                let (Some(base), restock) = (content_line.stock, content_line.restock_ticks) else {
                    continue;
                };
                if restock > 0 && line.stock < base && now >= line.next_restock_at {
                    line.stock += 1;
                    line.next_restock_at = now + u64::from(restock);
                    if changed.last() != Some(store_id) {
                        changed.push(store_id.clone());
                    }
                }
            }
        }
        for store_id in changed {
            self.report_shop(&store_id, events);
        }
        for index in 0..self.players.len() {
            let Some(open) = self.players[index].shop.clone() else {
                continue;
            };
            let near = self
                .distance_from(index, open.keeper)
                .is_some_and(|d| d <= SHOP_REACH_TILES);
            if !near || self.is_dead(index) {
                self.players[index].shop = None;
                events.push(Event::ShopClosed {
                    to: self.players[index].id.clone(),
                    store_id: open.store_id,
                });
            }
        }
    }

    /// The live stock of a store line (`None`: unlimited, or no such store or line).
    pub fn shop_stock(&self, store_id: &str, item_id: &str) -> Option<u32> {
        let store = self.content.stores.get(store_id)?;
        self.stock_of(store, item_id)
    }

    /// The store a player has open.
    pub fn player_shop(&self, player: &str) -> Option<&str> {
        let index = *self.player_index.get(player)?;
        self.players[index]
            .shop
            .as_ref()
            .map(|s| s.store_id.as_str())
    }
}

impl World {
    /// A shop's refusal for an inventory transaction that failed, items by name.
    fn inventory_refusal(&self, err: &InventoryError) -> (&'static str, String) {
        let code = match err {
            InventoryError::InventoryFull | InventoryError::StackLimit { .. } => {
                codes::INVENTORY_FULL
            }
            InventoryError::NotEnough { .. } => codes::NOT_ENOUGH_COINS,
            InventoryError::InvalidSlot(_) | InventoryError::EmptySlot(_) => codes::INVALID_SLOT,
            _ => codes::CANNOT_DO,
        };
        (code, self.inventory_words(err))
    }
}
