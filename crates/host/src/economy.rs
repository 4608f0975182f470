//! The economy audit's counters: items entering and leaving players' hands since the server
//! started, kept by the world thread from the sim's events (and by `characters` for creations and
//! deletions) and read by `GET /api/admin/economy`.
//!
//! Counted (per item id, per reason), from the sim's `Event::ItemFlows` and shop events, and
//! `starterKit`/`template` (a new character's starting items) entering and `deleted` (what a
//! deleted character held) leaving:
//! - `entered` (came into the world): `gathered`, `crafted`, `loot` (NPC drops), `given` (admin
//!   `/give`), `fireRemains` (ashes), `bought` (from shops), `shopPayments` (coins paid to players
//!   for what they sold);
//! - `left` (went out of the world): `consumed` (recipe inputs, bait, thread), `burned` (logs),
//!   `eaten`, `buried`, `fired` (arrows), `expired` (vanished from the ground), `sold` (to shops),
//!   `shopPayments` (coins players paid);
//! - `moved` (changed place inside the world): `dropped`, `pickedUp`, `banked`, `withdrawn`,
//!   `traded`, `lostOnDeath`.
//!
//! So for every item, what the store holds plus what lies on the ground equals what the world
//! started with plus `entered` minus `left`; `moved` shows the traffic.
//!
//! These counters are the running process's, in memory, told at once. The durable books, which
//! balance over the world's whole life and across crashes, are the store's
//! (`wayfarer_store::repo::economy`): the world hands each entry and exit to the save job that
//! writes its effect ([`delta`]).

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
    /// Item id → reason → units.
    pub moved: BTreeMap<String, BTreeMap<&'static str, u64>>,
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
        self.add(|f| &mut f.entered, item_id, reason, units);
    }

    /// Units of `item_id` left players' hands (and the world) for `reason`.
    pub fn left(&self, item_id: &str, reason: &'static str, units: u64) {
        self.add(|f| &mut f.left, item_id, reason, units);
    }

    /// Adds `units` to one book (entered or left) under `item_id` and `reason`.
    fn add(
        &self,
        book: impl FnOnce(&mut Flows) -> &mut BTreeMap<String, BTreeMap<&'static str, u64>>,
        item_id: &str,
        reason: &'static str,
        units: u64,
    ) {
        if units == 0 {
            return;
        }
        self.with(|f| {
            *book(f)
                .entry(item_id.to_owned())
                .or_default()
                .entry(reason)
                .or_default() += units
        });
    }

    /// Items that entered, left or moved inside the world.
    pub fn flow(&self, flow: &wayfarer_sim::flows::ItemFlow) {
        use wayfarer_sim::flows::FlowKind;
        match flow.kind {
            FlowKind::Entered => self.entered(&flow.item_id, flow.reason, flow.quantity),
            FlowKind::Left => self.left(&flow.item_id, flow.reason, flow.quantity),
            FlowKind::Moved => {
                if flow.quantity > 0 {
                    self.with(|f| {
                        *f.moved
                            .entry(flow.item_id.clone())
                            .or_default()
                            .entry(flow.reason)
                            .or_default() += flow.quantity
                    });
                }
            }
        }
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

/// An entry or exit the sim owed a save job, as the store's books add it.
pub fn delta(flow: &wayfarer_sim::flows::ItemFlow) -> wayfarer_store::FlowDelta {
    wayfarer_store::FlowDelta {
        item_id: flow.item_id.clone(),
        entered: flow.kind == wayfarer_sim::flows::FlowKind::Entered,
        reason: flow.reason.to_owned(),
        units: i64::try_from(flow.quantity).unwrap_or(i64::MAX),
    }
}
