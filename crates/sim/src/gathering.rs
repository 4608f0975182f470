//! Gathering (woodcutting, mining, fishing) and processing (firemaking, cooking, smelting,
//! smithing): filled in by the skills work; until then each action says it is not available.

use wayfarer_protocol::ws::codes;

use crate::actions::{Flow, Intent};
use crate::events::Event;
use crate::world::World;

impl World {
    fn not_yet(&self, index: usize, what: &str, reference: Option<u64>, events: &mut Vec<Event>) {
        Self::reject(
            &self.players[index].id,
            codes::CANNOT_DO,
            format!("{what} is not available yet"),
            reference,
            events,
        );
    }

    /// One tick of gathering from the intent's resource.
    pub(crate) fn gather_tick(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        self.not_yet(index, "gathering", intent.reference, events);
        Flow::Done
    }

    /// One tick of cooking the food in `slot` on the intent's fire or range.
    pub(crate) fn cook_tick(
        &mut self,
        index: usize,
        _slot: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        self.not_yet(index, "cooking", intent.reference, events);
        Flow::Done
    }

    /// `light_fire`: the logs in `slot` become a fire on the player's tile.
    pub(crate) fn light_fire(
        &mut self,
        index: usize,
        _slot: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        self.not_yet(index, "firemaking", reference, events);
    }

    /// An item used on another item (other than a tinderbox on logs).
    pub(crate) fn combine_items(
        &mut self,
        index: usize,
        _a: usize,
        _b: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        Self::reject(
            &self.players[index].id,
            codes::CANNOT_DO,
            "nothing interesting happens",
            reference,
            events,
        );
    }

    /// An item used on an entity (raw food on a fire, ore on a furnace, bars on an anvil).
    pub(crate) fn use_on_entity(
        &mut self,
        index: usize,
        _slot: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        Self::reject(
            &self.players[index].id,
            codes::CANNOT_DO,
            "nothing interesting happens",
            intent.reference,
            events,
        );
        Flow::Done
    }
}
