//! The economy audit's raw material: every item entering the world (gathered, crafted, loot,
//! given), leaving it (consumed, expired on the ground) or changing place inside it (dropped,
//! picked up, banked, traded, lost on death), recorded where it happens and reported once per tick
//! as [`Event::ItemFlows`]. Shop purchases and sales are reported by their own event.
//!
//! Items entering and leaving are also *owed* to the database (`persistence`'s ledger): each is
//! kept with the place whose next write holds its effect (the player's record, or the ground's
//! chunks) and handed out with that write ([`World::flows_for`]), so the durable totals the
//! server writes in the same transaction always match what the database holds, whatever crashes.

use crate::events::Event;
use crate::world::World;

/// Which way an item went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowKind {
    /// Came into the world (gathered, crafted, loot, given, ashes of a fire).
    Entered,
    /// Left the world (eaten, buried, burned, fired, used up in a recipe, vanished from the ground).
    Left,
    /// Changed place inside the world (dropped, picked up, banked, withdrawn, traded, lost on death).
    Moved,
}

/// One movement of items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemFlow {
    /// Which way.
    pub kind: FlowKind,
    /// Why (`gathered`, `crafted`, `consumed`, `dropped`, …).
    pub reason: &'static str,
    /// The item.
    pub item_id: String,
    /// How many.
    pub quantity: u64,
}

impl World {
    /// Records a movement of items, reported at the end of the tick's actions.
    pub(crate) fn flow(
        &mut self,
        kind: FlowKind,
        reason: &'static str,
        item_id: &str,
        quantity: impl Into<u64>,
    ) {
        let quantity = quantity.into();
        if quantity > 0 {
            self.flows.push(ItemFlow {
                kind,
                reason,
                item_id: item_id.to_owned(),
                quantity,
            });
        }
    }

    /// [`World::flow`] of items entering or leaving player `index`'s hands: owed to the database
    /// with that player's next saved record.
    pub(crate) fn flow_by(
        &mut self,
        index: usize,
        kind: FlowKind,
        reason: &'static str,
        item_id: &str,
        quantity: impl Into<u64>,
    ) {
        let holder = self.players[index].id.clone();
        self.owe_and_flow(Some(&holder), kind, reason, item_id, quantity.into());
    }

    /// [`World::flow`] of items appearing on or vanishing from the ground outside death piles:
    /// owed to the database with the next chunks written.
    pub(crate) fn flow_on_ground(
        &mut self,
        kind: FlowKind,
        reason: &'static str,
        item_id: &str,
        quantity: impl Into<u64>,
    ) {
        self.owe_and_flow(None, kind, reason, item_id, quantity.into());
    }

    /// Owes a movement to the database (with `holder`'s next record, or the next chunks) and
    /// reports it.
    fn owe_and_flow(
        &mut self,
        holder: Option<&str>,
        kind: FlowKind,
        reason: &'static str,
        item_id: &str,
        quantity: u64,
    ) {
        self.owe(holder, kind, reason, item_id, quantity);
        self.flow(kind, reason, item_id, quantity);
    }

    /// Owes an entry or exit to the database, without reporting it (shop trades report their own
    /// event): with `holder`'s next record, or with the next chunks (`None`).
    pub(crate) fn owe(
        &mut self,
        holder: Option<&str>,
        kind: FlowKind,
        reason: &'static str,
        item_id: &str,
        quantity: u64,
    ) {
        if kind == FlowKind::Moved || quantity == 0 {
            return;
        }
        self.ledger.owe(
            holder,
            ItemFlow {
                kind,
                reason,
                item_id: item_id.to_owned(),
                quantity,
            },
        );
    }

    /// The entries and exits the save job writing the records of `ids` must carry: those owed
    /// with those records and those owed with the chunks (every job carries the dirty chunks,
    /// [`World::persist_for`]). Call it with the same ids, just before `persist_for`.
    pub fn flows_for<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) -> Vec<ItemFlow> {
        self.ledger.take_flows(ids)
    }

    /// Reports this tick's flows (one event, when there were any).
    pub(crate) fn report_flows(&mut self, events: &mut Vec<Event>) {
        if !self.flows.is_empty() {
            events.push(Event::ItemFlows(std::mem::take(&mut self.flows)));
        }
    }
}
