//! Fighting: filled in by the combat work; until then attacks say they are not available.

use wayfarer_protocol::ws::codes;

use crate::actions::{Flow, Intent};
use crate::events::Event;
use crate::world::World;

impl World {
    /// Whether player `index` is dead (waiting to respawn).
    pub(crate) fn is_dead(&self, _index: usize) -> bool {
        false
    }

    /// How far player `index` can attack from (1 for melee, the weapon's range for ranged).
    pub(crate) fn attack_reach(&self, _index: usize) -> u32 {
        1
    }

    /// One tick of player `index` fighting the intent's target.
    pub(crate) fn attack_tick(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        Self::reject(
            &self.players[index].id,
            codes::CANNOT_DO,
            "combat is not available yet",
            intent.reference,
            events,
        );
        Flow::Done
    }

    /// `flee`: run away from whoever is attacking.
    pub(crate) fn flee(&mut self, index: usize, reference: Option<u64>, events: &mut Vec<Event>) {
        Self::reject(
            &self.players[index].id,
            codes::CANNOT_DO,
            "nobody is attacking you",
            reference,
            events,
        );
    }
}
