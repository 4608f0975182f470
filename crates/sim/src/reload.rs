//! Live content reload at a tick boundary: the map is rebuilt, fixed NPCs, mob spawners and resources
//! whose content changed are replaced (unchanged ones stay, with their ids), and players stay where
//! they are unless their tile became blocked. Clients see the differences on the next tick.

use std::collections::BTreeMap;
use std::sync::Arc;

use wayfarer_content::Content;

use crate::grid::{Class, SpatialGrid};
use crate::layout::{Layout, MobPlacement, NpcPlacement, Placed};
use crate::npcs::{NpcState, Origin};
use crate::world::{ResourceState, World};

impl World {
    /// Replaces the content between ticks: rebuilds the map, respawns the fixed NPCs, mobs and
    /// resources whose definition changed, and moves players whose tile became blocked to the nearest
    /// walkable tile (reported as [`crate::Event::PlayerMoved`] next tick). A fixed NPC whose position,
    /// name or health changed keeps its id and is shown as moved or changed.
    pub fn replace_content(&mut self, content: Arc<Content>) {
        let now = self.now();
        let layout = Layout::build(&content, self.seed);
        self.zones = crate::zones::ZoneIndex::build(content.areas.values());
        // Item weights may have changed: every runner is weighed again on its next tick.
        for player in &mut self.players {
            player.run_energy.forget_drain();
        }
        self.content = content;
        self.layout = layout.clone();

        // Fixed NPCs: kept (possibly moved or renamed) when the same NPC stands in the same slot.
        let mut old_npcs: BTreeMap<String, NpcState> = BTreeMap::new();
        let mut old_mobs: BTreeMap<String, Vec<NpcState>> = BTreeMap::new();
        for npc in std::mem::take(&mut self.npcs) {
            match &npc.origin {
                Origin::Fixed(p) => {
                    old_npcs.insert(p.key.clone(), npc);
                }
                Origin::Mob(p) => old_mobs.entry(p.key.clone()).or_default().push(npc),
            }
        }
        let mut old_resources: BTreeMap<String, ResourceState> =
            std::mem::take(&mut self.resources)
                .into_iter()
                .map(|r| (r.placement.key.clone(), r))
                .collect();

        // The grid is rebuilt below from what survives, so removals need no grid work here.
        let mut spawn_npcs: Vec<NpcPlacement> = Vec::new();
        for placement in &layout.npcs {
            match old_npcs.remove(&placement.key) {
                Some(mut npc) => {
                    let Origin::Fixed(old) = &npc.origin else {
                        continue;
                    };
                    if old.npc_id != placement.npc_id {
                        self.entities.retire(npc.handle);
                        spawn_npcs.push(placement.clone());
                        continue;
                    }
                    let renamed = old.name != placement.name;
                    let health_changed = old.health != placement.health;
                    if let Some(body) = self.entities.get_mut(npc.handle) {
                        let wire = body.wire_mut();
                        wire.name = Some(placement.name.clone());
                        wire.health = Some(placement.health);
                        wire.max_health = Some(placement.health);
                    }
                    if renamed || health_changed {
                        self.entities.record_change(npc.handle, now, |c| {
                            if renamed {
                                c.name = Some(placement.name.clone());
                            }
                            if health_changed {
                                c.health = Some(placement.health);
                                c.max_health = Some(placement.health);
                            }
                        });
                    }
                    self.entities.set_tile(npc.handle, placement.tile, now);
                    npc.home = placement.tile;
                    npc.origin = Origin::Fixed(placement.clone());
                    self.npcs.push(npc);
                }
                None => spawn_npcs.push(placement.clone()),
            }
        }
        for npc in old_npcs.into_values() {
            self.entities.retire(npc.handle);
        }

        // Mob spawners: kept whole when nothing about them changed, else replaced whole.
        let mut spawn_mobs: Vec<MobPlacement> = Vec::new();
        for placement in &layout.mobs {
            match old_mobs.remove(&placement.key) {
                Some(mobs)
                    if mobs
                        .first()
                        .is_some_and(|m| m.origin == Origin::Mob(placement.clone())) =>
                {
                    self.npcs.extend(mobs);
                }
                Some(mobs) => {
                    for mob in mobs {
                        self.entities.retire(mob.handle);
                    }
                    spawn_mobs.push(placement.clone());
                }
                None => spawn_mobs.push(placement.clone()),
            }
        }
        for mob in old_mobs.into_values().flatten() {
            self.entities.retire(mob.handle);
        }

        let mut spawn_resources = Vec::new();
        for placement in &layout.resources {
            match old_resources.remove(&placement.key) {
                Some(resource) if resource.placement == *placement => self.resources.push(resource),
                Some(resource) => {
                    self.entities.retire(resource.handle);
                    // Respawned fresh: no longer depleted in the persisted world either.
                    self.ledger
                        .respawned(resource.placement.tile, &resource.placement.key);
                    spawn_resources.push(placement.clone());
                }
                None => spawn_resources.push(placement.clone()),
            }
        }
        for resource in old_resources.into_values() {
            if resource.placement.what == Placed::Fire {
                // Lit fires are not content: they burn on.
                self.resources.push(resource);
            } else {
                self.entities.retire(resource.handle);
                self.ledger
                    .respawned(resource.placement.tile, &resource.placement.key);
            }
        }
        self.resources_reloaded(now);

        // Everything that stays goes into a grid over the new map; players and mobs on tiles that
        // became blocked step to the nearest walkable one.
        self.grid = SpatialGrid::covering(&self.layout.map);
        for index in 0..self.players.len() {
            let handle = self.players[index].handle;
            if let Some(tile) = self.entities.get(handle).map(|b| b.tile()) {
                let placed = self.walkable_near(tile);
                self.entities.set_tile(handle, placed, now);
                self.grid.insert(handle, placed, Class::Player, now);
                // The areas may have changed under the player.
                self.update_zone(index, placed);
            }
        }
        for i in 0..self.npcs.len() {
            let handle = self.npcs[i].handle;
            let is_mob = matches!(self.npcs[i].origin, Origin::Mob(_));
            if let Some(tile) = self.entities.get(handle).map(|b| b.tile()) {
                let placed = if is_mob {
                    self.walkable_near(tile)
                } else {
                    tile
                };
                self.entities.set_tile(handle, placed, now);
                self.npcs[i].destination = None;
                self.grid.insert(handle, placed, Class::Npc, now);
            }
        }
        for resource in &self.resources {
            self.grid
                .insert(resource.handle, resource.placement.tile, Class::Static, now);
        }
        // Items on the ground stay where they lie (they are players' property, not content).
        for item in &self.ground {
            if let Some(tile) = self.entities.get(item.handle).map(|b| b.tile()) {
                self.grid.insert(item.handle, tile, Class::Ground, now);
            }
        }
        for placement in &spawn_npcs {
            self.spawn_static_npc(placement);
        }
        for placement in &spawn_mobs {
            self.spawn_mobs(placement);
        }
        for placement in &spawn_resources {
            self.spawn_resource(placement);
        }
        self.respawn_obstacles();
        // Every view is recomputed next tick against the new surroundings.
        self.grid.mark_all_dirty(now);
    }
}
