//! The bank: every player's second store of items, kept with the player in the world (loaded at join,
//! saved with the inventory in one transaction).
//!
//! Rules:
//! - every item stacks in the bank (one entry per item, up to [`MAX_STACK`]), in the order items
//!   first arrived; at most [`BANK_CAPACITY`] distinct items (`bank_full` beyond);
//! - `bank:*` needs the player within [`BANK_REACH_TILES`] (Chebyshev) of a bank booth (a station
//!   of type `bank`) or a banker (an NPC whose area spawn has role `bank`, or whose content
//!   services include `bank`), else `not_near_bank`;
//! - `bank:deposit {slot, quantity?}`: the item in `slot`; without `quantity`, all of that item
//!   held (for an unstackable item, every slot holding it); with `quantity`, that many (at most all
//!   held), slot `slot` first. `slot: "all"` deposits everything held. All or nothing;
//! - `bank:withdraw {itemId, quantity}`: as many as fit (a stackable item up to its stack limit,
//!   an unstackable one up to the free slots), at most `quantity` (`"all"` arrives as
//!   [`MAX_STACK`]); none fitting is `inventory_full`; fewer than asked is told on the game channel;
//! - each change reports `bank:update` and asks the server to save the record at once
//!   ([`Event::SaveNow`]).

use wayfarer_protocol::ws::codes;

use crate::commands::BankRequest;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::game_messages;
use crate::inventory::{InventoryError, Stack, Stacking, MAX_STACK};
use crate::world::World;

/// The most distinct items a bank holds.
pub const BANK_CAPACITY: usize = 480;

/// Why the bank cannot take an item (`bank_full`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankFull {
    /// It holds [`BANK_CAPACITY`] different items already, this one not among them.
    Items,
    /// The item's stack would pass [`MAX_STACK`].
    Stack,
}

impl BankFull {
    /// What the player is told, naming the item by `item_name`.
    pub fn message(self, item_name: &str) -> String {
        match self {
            BankFull::Items => format!(
                "Your bank is full: it holds {BANK_CAPACITY} different items. Withdraw or sell something first."
            ),
            BankFull::Stack => format!(
                "Your bank cannot hold more {item_name}: a stack holds at most {MAX_STACK}."
            ),
        }
    }
}

/// How close (Chebyshev tiles) to a bank booth or banker a player must stand.
pub const BANK_REACH_TILES: u32 = 2;

/// The station type of bank booths.
const BANK_STATION: &str = "bank";

/// A player's bank: one stack per item, in the order items first arrived.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bank {
    items: Vec<Stack>,
}

impl Bank {
    /// A bank from saved stacks: zero quantities are left out, repeated items merge (up to
    /// [`MAX_STACK`]).
    pub fn from_stacks(stacks: impl IntoIterator<Item = Stack>) -> Bank {
        let mut bank = Bank::default();
        for stack in stacks {
            if stack.quantity == 0 {
                continue;
            }
            match bank.items.iter_mut().find(|s| s.item_id == stack.item_id) {
                Some(existing) => {
                    existing.quantity = existing
                        .quantity
                        .saturating_add(stack.quantity)
                        .min(MAX_STACK)
                }
                None => bank.items.push(Stack {
                    quantity: stack.quantity.min(MAX_STACK),
                    ..stack
                }),
            }
        }
        bank
    }

    /// Every stack, in bank order.
    pub fn items(&self) -> &[Stack] {
        &self.items
    }

    /// How many of `item_id` are banked.
    pub fn count(&self, item_id: &str) -> u32 {
        self.items
            .iter()
            .find(|s| s.item_id == item_id)
            .map_or(0, |s| s.quantity)
    }

    /// Whether `quantity` more of `item_id` would fit (distinct-item limit and stack limit).
    pub fn can_add(&self, item_id: &str, quantity: u32) -> Result<(), BankFull> {
        match self.items.iter().find(|s| s.item_id == item_id) {
            Some(s)
                if s.quantity
                    .checked_add(quantity)
                    .is_none_or(|t| t > MAX_STACK) =>
            {
                Err(BankFull::Stack)
            }
            Some(_) => Ok(()),
            None if self.items.len() >= BANK_CAPACITY => Err(BankFull::Items),
            None => Ok(()),
        }
    }

    /// Adds `quantity` of an item (checked by [`Bank::can_add`] first).
    fn add(&mut self, item_id: &str, quantity: u32) -> Result<(), BankFull> {
        self.can_add(item_id, quantity)?;
        match self.items.iter_mut().find(|s| s.item_id == item_id) {
            Some(s) => s.quantity += quantity,
            None => self.items.push(Stack {
                item_id: item_id.to_owned(),
                quantity,
            }),
        }
        Ok(())
    }

    /// Takes `quantity` (at most what is banked) of an item.
    fn take(&mut self, item_id: &str, quantity: u32) {
        if let Some(at) = self.items.iter().position(|s| s.item_id == item_id) {
            let left = self.items[at].quantity.saturating_sub(quantity);
            if left == 0 {
                self.items.remove(at);
            } else {
                self.items[at].quantity = left;
            }
        }
    }
}

impl World {
    /// Whether player `index` stands within reach of a bank booth or banker.
    pub(crate) fn near_bank(&self, index: usize) -> bool {
        let Some(at) = self
            .entities
            .get(self.players[index].handle)
            .map(|b| b.tile())
        else {
            return false;
        };
        let booth = self
            .resources
            .iter()
            .filter(|r| r.placement.resource_type == BANK_STATION)
            .any(|r| {
                self.extent_of(r.handle)
                    .is_some_and(|e| crate::actions::distance_to(at, e) <= BANK_REACH_TILES)
            });
        booth
            || self.npcs.iter().any(|n| {
                self.is_banker(n)
                    && self
                        .entities
                        .get(n.handle)
                        .is_some_and(|b| crate::map::chebyshev(at, b.tile()) <= BANK_REACH_TILES)
            })
    }

    /// Whether an NPC is a banker: its area spawn's role is `bank`, or its content services
    /// include `bank`.
    pub(crate) fn is_banker(&self, npc: &crate::npcs::NpcState) -> bool {
        let crate::npcs::Origin::Fixed(placement) = &npc.origin else {
            return false;
        };
        placement.role.as_deref() == Some(BANK_STATION)
            || self
                .content
                .npcs
                .get(&placement.npc_id)
                .is_some_and(|n| n.services.iter().any(|s| s == BANK_STATION))
    }

    /// `bank:*`.
    pub(crate) fn bank(
        &mut self,
        id: &str,
        request: BankRequest,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(index) = self.living_player(id, reference, events) else {
            return;
        };
        if !self.near_bank(index) {
            return Self::reject(
                id,
                codes::NOT_NEAR_BANK,
                format!("you must stand within {BANK_REACH_TILES} tiles of a bank booth or banker"),
                reference,
                events,
            );
        }
        let outcome = match request {
            BankRequest::Open => {
                self.players[index].dirty.bank = true;
                return;
            }
            BankRequest::Deposit { slot, quantity } => self.deposit(index, slot, quantity),
            BankRequest::Withdraw { item_id, quantity } => {
                self.withdraw(index, &item_id, quantity, events)
            }
        };
        match outcome {
            Ok(()) => {
                let dirty = &mut self.players[index].dirty;
                dirty.inventory = true;
                dirty.bank = true;
                dirty.save_now = true;
            }
            Err((code, message)) => Self::reject(id, code, message, reference, events),
        }
    }

    fn deposit(
        &mut self,
        index: usize,
        slot: Option<usize>,
        quantity: Option<u32>,
    ) -> Result<(), (&'static str, String)> {
        let player = &self.players[index];
        // What leaves the inventory: (item, how many).
        let mut moves: Vec<(String, u32)> = Vec::new();
        match slot {
            None => {
                for (_, stack) in player.inventory.stacks() {
                    match moves.iter_mut().find(|(i, _)| *i == stack.item_id) {
                        Some((_, n)) => *n += stack.quantity,
                        None => moves.push((stack.item_id.clone(), stack.quantity)),
                    }
                }
                if moves.is_empty() {
                    return Err((codes::CANNOT_DO, "your inventory is empty".into()));
                }
            }
            Some(slot) => {
                let Some(stack) = player.inventory.get(slot) else {
                    return Err((
                        codes::INVALID_SLOT,
                        format!("inventory slot {slot} is empty"),
                    ));
                };
                let held =
                    u32::try_from(player.inventory.count(&stack.item_id)).unwrap_or(MAX_STACK);
                let n = quantity.map_or(held, |q| q.min(held));
                moves.push((stack.item_id.clone(), n));
            }
        }
        // Check the bank for the whole deposit first (new items count together).
        let mut scratch = player.bank.clone();
        for (item_id, n) in &moves {
            scratch
                .add(item_id, *n)
                .map_err(|full| (codes::BANK_FULL, full.message(&self.item_called(item_id))))?;
        }
        let first = slot;
        let removed = self.players[index].inventory.apply(|tx| {
            for (item_id, n) in &moves {
                // The chosen slot goes first, then the lowest slots holding the item.
                let mut owed = *n;
                if let Some(slot) = first {
                    if let Some(stack) = tx.get(slot).filter(|s| s.item_id == *item_id) {
                        let take = owed.min(stack.quantity);
                        tx.remove(slot, take)?;
                        owed -= take;
                    }
                }
                if owed > 0 {
                    tx.remove_item(item_id, owed)?;
                }
            }
            Ok(())
        });
        removed.map_err(|e| (codes::CANNOT_DO, self.inventory_words(&e)))?;
        self.players[index].bank = scratch;
        for (item_id, n) in &moves {
            self.flow(FlowKind::Moved, "banked", item_id, *n);
        }
        Ok(())
    }

    fn withdraw(
        &mut self,
        index: usize,
        item_id: &str,
        quantity: u32,
        events: &mut Vec<Event>,
    ) -> Result<(), (&'static str, String)> {
        let stacking = self.stacking(item_id);
        let banked = self.players[index].bank.count(item_id);
        if banked == 0 {
            return Err((
                codes::NOT_FOUND,
                format!("there is no {} in your bank", self.item_called(item_id)),
            ));
        }
        let player = &mut self.players[index];
        let wanted = quantity.min(banked);
        let fits = match stacking {
            Stacking::Unstackable => wanted.min(player.inventory.free_slots() as u32),
            Stacking::Stackable { max_quantity } => {
                let held = u32::try_from(player.inventory.count(item_id)).unwrap_or(MAX_STACK);
                let room = max_quantity.saturating_sub(held);
                if held == 0 && player.inventory.free_slots() == 0 {
                    0
                } else {
                    wanted.min(room)
                }
            }
        };
        if fits == 0 {
            return Err((
                codes::INVENTORY_FULL,
                format!(
                    "no room in your inventory for {}",
                    self.item_called(item_id)
                ),
            ));
        }
        let added = player.inventory.add(item_id, fits, stacking);
        added.map_err(|e: InventoryError| (codes::INVENTORY_FULL, self.inventory_words(&e)))?;
        self.players[index].bank.take(item_id, fits);
        self.flow(FlowKind::Moved, "withdrawn", item_id, fits);
        if fits < wanted {
            // Only what fits came out: the player asked for more, and is told why not.
            let text = game_messages::withdrew_what_fits(fits, &self.item_called(item_id));
            self.narrate(index, text, events);
        }
        Ok(())
    }

    /// A player's bank, in bank order.
    pub fn player_bank(&self, player: &str) -> Option<&[Stack]> {
        let index = *self.player_index.get(player)?;
        Some(self.players[index].bank.items())
    }
}
