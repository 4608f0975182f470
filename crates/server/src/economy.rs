//! The economy audit's counters: items entering and leaving players' hands since the server
//! started, kept by the world thread from the sim's events and read by `GET /api/admin/economy`.
//!
//! Counted (per item id):
//! - `entered.bought`: items bought from shops; `entered.shopPayments`: coins paid to players
//!   for what they sold;
//! - `left.sold`: items sold to shops; `left.shopPayments`: coins players paid for purchases;
//! - `left.deathPileExpired`: items of a death pile that nobody picked up in time.
//!
//! Not counted yet (the sim reports no event for them): gathered, crafted, dropped and picked up
//! ground items outside deaths, NPC loot, admin `/give`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;

/// Counters by direction, then item, then reason.
#[derive(Debug, Default)]
pub struct EconomyCounters {
    inner: Mutex<Flows>,
}

/// What the route reports.
#[derive(Debug, Default, Clone, Serialize, PartialEq, Eq)]
pub struct Flows {
    /// Item id → reason → units.
    pub entered: BTreeMap<String, BTreeMap<&'static str, u64>>,
    /// Item id → reason → units.
    pub left: BTreeMap<String, BTreeMap<&'static str, u64>>,
    /// Completed purchases and sales.
    pub purchases: u64,
    pub sales: u64,
}

impl EconomyCounters {
    fn with(&self, f: impl FnOnce(&mut Flows)) {
        let mut flows = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut flows);
    }

    /// Units of `item_id` came into players' hands for `reason`.
    pub fn entered(&self, item_id: &str, reason: &'static str, units: u64) {
        if units == 0 {
            return;
        }
        self.with(|f| {
            *f.entered
                .entry(item_id.to_owned())
                .or_default()
                .entry(reason)
                .or_default() += units
        });
    }

    /// Units of `item_id` left players' hands (and the world) for `reason`.
    pub fn left(&self, item_id: &str, reason: &'static str, units: u64) {
        if units == 0 {
            return;
        }
        self.with(|f| {
            *f.left
                .entry(item_id.to_owned())
                .or_default()
                .entry(reason)
                .or_default() += units
        });
    }

    /// A purchase (`sold: false`) or sale completed.
    pub fn shop_trade(&self, item_id: &str, quantity: u32, coins: u64, sold: bool) {
        let quantity = u64::from(quantity);
        if sold {
            self.left(item_id, "sold", quantity);
            self.entered(wayfarer_sim::COINS, "shopPayments", coins);
            self.with(|f| f.sales += 1);
        } else {
            self.entered(item_id, "bought", quantity);
            self.left(wayfarer_sim::COINS, "shopPayments", coins);
            self.with(|f| f.purchases += 1);
        }
    }

    /// A copy of the counters.
    pub fn snapshot(&self) -> Flows {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
