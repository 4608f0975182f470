//! The economy audit's raw material: every item entering the world (gathered, crafted, loot,
//! given), leaving it (consumed, expired on the ground) or changing place inside it (dropped,
//! picked up, banked, traded, lost on death), recorded where it happens and reported once per tick
//! as [`Event::ItemFlows`]. Shop purchases and sales are reported by their own event.

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

    /// Reports this tick's flows (one event, when there were any).
    pub(crate) fn report_flows(&mut self, events: &mut Vec<Event>) {
        if !self.flows.is_empty() {
            events.push(Event::ItemFlows(std::mem::take(&mut self.flows)));
        }
    }
}
