//! An NPC's death: it leaves the world (and every view), drops its loot at its feet for its
//! killer, is counted for the killer, and comes back after its respawn time.
//!
//! Loot rules (content's `drops`): the default drop (bones) and every `always` line drop on every
//! kill; every other line (`common`, `uncommon`, `rare`, `veryRare`) is rolled on its own against
//! its `chance`, so a kill can drop several lines of one tier or none. Lines roll independently
//! because content's chances are per line and may add up past 1 within a tier (the chicken's
//! common feathers and raw chicken are both 1.0). The quantity is uniform in `min..=max`.

use rand::Rng;
use wayfarer_content::{DropTier, Npc};

use crate::events::Event;
use crate::flows::FlowKind;
use crate::grid::Class;
use crate::ground::{Spill, GROUND_LIFETIME_TICKS, GROUND_PRIVATE_TICKS};
use crate::inventory::Stack;
use crate::world::World;

/// The loot of one kill of `npc`, drawn from `rng` (one draw per rolled line, one more per
/// quantity range), in content order: default drop first.
pub fn roll_drops<R: Rng + ?Sized>(npc: &Npc, rng: &mut R) -> Vec<Stack> {
    let mut loot = Vec::new();
    if let Some(default) = &npc.default_drop {
        if default.quantity > 0 {
            loot.push(Stack {
                item_id: default.item_id.clone(),
                quantity: default.quantity,
            });
        }
    }
    for line in &npc.drops {
        let dropped = line.tier == DropTier::Always || rng.random::<f64>() < line.chance;
        if !dropped {
            continue;
        }
        let (lo, hi) = (
            line.min_quantity.min(line.max_quantity),
            line.min_quantity.max(line.max_quantity),
        );
        let quantity = if lo == hi {
            lo
        } else {
            rng.random_range(lo..=hi)
        };
        if quantity > 0 {
            loot.push(Stack {
                item_id: line.item_id.clone(),
                quantity,
            });
        }
    }
    loot
}

impl World {
    /// NPC `n` died by player `killer`'s hand (or another cause): it leaves the world, its loot
    /// falls (the killer's alone for [`GROUND_PRIVATE_TICKS`]) and it respawns after its
    /// content's respawn time (at least one tick).
    pub(crate) fn npc_killed(&mut self, n: usize, killer: Option<usize>, events: &mut Vec<Event>) {
        let now = self.now();
        let handle = self.npcs[n].handle;
        let Some(tile) = self.entities.retire(handle) else {
            return;
        };
        self.grid.remove(handle, tile, Class::Npc, now);
        let content = self.content.clone();
        let npc = content.npcs.get(self.npc_type(n));
        let respawn = npc.map_or(1, |d| u64::from(d.combat.respawn_ticks.max(1)));
        let fight = &mut self.npcs[n].fight;
        fight.target = None;
        fight.returning = false;
        fight.respawn_at = Some(now + respawn);
        self.npcs[n].destination = None;
        let Some(npc) = npc else {
            return;
        };
        let loot = roll_drops(npc, &mut self.rng);
        let owner = killer.map(|k| self.players[k].id.clone());
        for stack in loot {
            self.flow(FlowKind::Entered, "loot", &stack.item_id, stack.quantity);
            self.spawn_ground_items(
                tile,
                stack,
                owner.as_deref(),
                GROUND_PRIVATE_TICKS,
                GROUND_LIFETIME_TICKS,
                Spill::Appeared,
            );
        }
        if let Some(k) = killer {
            let text = crate::game_messages::defeated(self.npc_called(n));
            self.narrate(k, text, events);
            self.quest_trigger(k, crate::quests::Trigger::Kill(&npc.id), events);
        }
        if let Some(killer) = owner {
            events.push(Event::NpcKilled {
                killer,
                npc_id: npc.id.clone(),
            });
        }
    }
}
