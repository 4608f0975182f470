//! Talking to NPCs (`interact`): the NPC's greeting as a system message; a banker also opens the
//! bank (`bank:update`) and a shopkeeper its store (`shop:open`). Dialogue trees come later.

use crate::actions::{Flow, Intent};
use crate::events::Event;
use crate::world::World;

impl World {
    /// Player `index`, next to the intent's NPC, talks to it.
    pub(crate) fn interact(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let Some(body) = self.entities.get(intent.target) else {
            return Flow::Done;
        };
        let name = body.wire.name.clone().unwrap_or_else(|| "They".into());
        let greeting = body
            .wire
            .type_id
            .as_deref()
            .and_then(|npc| self.content.npcs.get(npc))
            .and_then(|npc| npc.dialogue.as_ref())
            .and_then(|d| {
                d.nodes
                    .iter()
                    .find(|n| n.id == d.entry_node_id)
                    .or(d.nodes.first())
            })
            .map(|node| node.text.clone());
        let text = match greeting {
            Some(text) => format!("{name}: {text}"),
            None => format!("{name} has nothing to say."),
        };
        let id = self.players[index].id.clone();
        self.system_message(Some(&id), text, events);
        // A banker opens the bank; a shopkeeper opens its store.
        if self
            .npcs
            .iter()
            .any(|n| n.handle == intent.target && self.is_banker(n))
        {
            self.players[index].dirty.bank = true;
        }
        if let Some(store_id) = self.store_of(intent.target) {
            self.open_shop(index, intent.target, store_id, events);
        }
        Flow::Done
    }
}
