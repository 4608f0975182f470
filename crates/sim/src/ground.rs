//! Items on the ground: dropped by players, left by mobs, spilled at death. Everyone in view sees
//! them; for a while only their owner may pick them up, then anyone, and later they vanish.
//!
//! Timings follow the genre (OSRS Wiki, *Dropped items*): a dropped item is private for 60 seconds
//! and gone 3 minutes after it was dropped. An unstackable item on the ground is one entity per item,
//! so picking one up is all-or-nothing for that entity; a stackable one is one entity for the stack.

use wayfarer_protocol::ws::{codes, Entity, EntityKind, TilePos};

use crate::actions::Flow;
use crate::entities::Handle;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::grid::Class;
use crate::inventory::{Stack, Stacking};
use crate::persistence::LedgerItem;
use crate::world::World;

/// Ticks a dropped item stays visible to everyone but takeable only by its owner (60 s).
pub const GROUND_PRIVATE_TICKS: u64 = 100;
/// Ticks after which a dropped item disappears (3 minutes).
pub const GROUND_LIFETIME_TICKS: u64 = 300;

/// One item (or stack) on the ground.
#[derive(Debug, Clone)]
pub(crate) struct GroundItem {
    pub handle: Handle,
    /// Its key in the persistence ledger (unique in this world's run).
    pub key: u64,
    pub stack: Stack,
    /// Who may take it before `public_at` (`None`: anyone at once).
    pub owner: Option<String>,
    /// The tick from which anyone may take it.
    pub public_at: u64,
    /// The tick at which it disappears.
    pub despawn_at: u64,
    /// The death it was spilled by (`PlayerDied::death_id`), so taking it or its expiry is reported.
    pub death: Option<String>,
}

/// A ground item as tests and tools see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroundItemInfo {
    /// Entity id (`item-<n>`).
    pub id: String,
    /// Where it lies.
    pub tile: TilePos,
    /// What and how many.
    pub stack: Stack,
    /// Who may take it until `public_at`.
    pub owner: Option<String>,
    /// The tick from which anyone may take it.
    pub public_at: u64,
    /// The tick at which it disappears.
    pub despawn_at: u64,
    /// The death that spilled it, if any.
    pub death: Option<String>,
}

impl World {
    /// Puts items on the ground at `tile`: one entity for a stackable stack, one per item
    /// otherwise. Private to `owner` for `private_ticks`, gone after `lifetime_ticks`.
    pub(crate) fn spawn_ground_items(
        &mut self,
        tile: TilePos,
        stack: Stack,
        owner: Option<&str>,
        private_ticks: u64,
        lifetime_ticks: u64,
    ) {
        self.spawn_piles(
            tile,
            stack,
            owner,
            private_ticks,
            lifetime_ticks,
            None,
            false,
        );
    }

    /// A player's drop: like [`World::spawn_ground_items`], private to `by`, whose saved record
    /// still holds the items until it is written again (see `persistence`).
    pub(crate) fn spawn_dropped_items(
        &mut self,
        tile: TilePos,
        stack: Stack,
        by: &str,
        private_ticks: u64,
        lifetime_ticks: u64,
    ) {
        self.spawn_piles(
            tile,
            stack,
            Some(by),
            private_ticks,
            lifetime_ticks,
            None,
            true,
        );
    }

    /// [`World::spawn_ground_items`] for items spilled by a death: each pile remembers `death`.
    pub(crate) fn spawn_tagged_ground_items(
        &mut self,
        tile: TilePos,
        stack: Stack,
        owner: Option<&str>,
        private_ticks: u64,
        lifetime_ticks: u64,
        death: Option<&str>,
    ) {
        self.spawn_piles(
            tile,
            stack,
            owner,
            private_ticks,
            lifetime_ticks,
            death,
            false,
        );
    }

    /// Puts the piles on the ground and records them for persistence: death piles are the
    /// server's (death locks), a drop is pending on its dropper, anything else enters the ledger.
    #[allow(clippy::too_many_arguments)]
    fn spawn_piles(
        &mut self,
        tile: TilePos,
        stack: Stack,
        owner: Option<&str>,
        private_ticks: u64,
        lifetime_ticks: u64,
        death: Option<&str>,
        dropped: bool,
    ) {
        let stacking = self
            .content
            .items
            .get(stack.item_id.as_str())
            .map_or(Stacking::STACKABLE, Stacking::of);
        let piles: Vec<Stack> = match stacking {
            Stacking::Stackable { .. } => vec![stack],
            Stacking::Unstackable => (0..stack.quantity)
                .map(|_| Stack {
                    item_id: stack.item_id.clone(),
                    quantity: 1,
                })
                .collect(),
        };
        let now = self.now();
        for pile in piles {
            let id = self.next_id("item");
            let name = self
                .content
                .items
                .get(pile.item_id.as_str())
                .map(|i| i.name.clone());
            let handle = self.entities.insert(Entity {
                id,
                kind: EntityKind::GroundItem,
                x: tile.x,
                z: tile.z,
                name,
                health: None,
                max_health: None,
                item_id: Some(pile.item_id.clone()),
                quantity: Some(i64::from(pile.quantity)),
                resource_type: None,
                depleted: None,
                type_id: None,
                worn: None,
            });
            self.grid.insert(handle, tile, Class::Ground, now);
            let key = self.next_serial;
            if death.is_none() {
                let item = LedgerItem {
                    stack: pile.clone(),
                    tile,
                    owner: owner.map(str::to_owned),
                    public_at: now + private_ticks,
                    despawn_at: now + lifetime_ticks,
                };
                match owner {
                    Some(by) if dropped => self.ledger.dropped(by, key, item),
                    _ => self.ledger.appeared(key, item),
                }
            }
            self.ground.push(GroundItem {
                handle,
                key,
                stack: pile,
                owner: owner.map(str::to_owned),
                public_at: now + private_ticks,
                despawn_at: now + lifetime_ticks,
                death: death.map(str::to_owned),
            });
        }
    }

    /// Removes the ground item at `position` in `self.ground`.
    fn remove_ground_item(&mut self, position: usize) -> GroundItem {
        let item = self.ground.remove(position);
        if let Some(tile) = self.entities.retire(item.handle) {
            let now = self.now();
            self.grid.remove(item.handle, tile, Class::Ground, now);
        }
        item
    }

    /// Where the ground item at `position` lies.
    fn ground_tile(&self, position: usize) -> Option<TilePos> {
        self.entities
            .get(self.ground[position].handle)
            .map(|b| b.tile())
    }

    /// Makes expired ground items disappear (reporting those a death spilled).
    pub(crate) fn advance_ground_items(&mut self, events: &mut Vec<Event>) {
        let now = self.now();
        let mut position = 0;
        while position < self.ground.len() {
            let due = &self.ground[position];
            // A drop about to go public while its dropper's saved record still holds it: ask for
            // that record's save now, so anyone may take it on time (see `persistence`).
            if due.public_at == now + 1 && due.death.is_none() {
                if let Some(owner) = due.owner.as_deref() {
                    if self.ledger.is_pending(due.key, owner) && self.is_online(owner) {
                        events.push(Event::SaveNow {
                            id: owner.to_owned(),
                        });
                    }
                }
            }
            if self.ground[position].despawn_at <= now {
                // Where the database loses it: a death pile's item with its lock (the server's
                // death book), a drop still pending with its dropper's record, anything else
                // with the chunks.
                let mut owed_by = None;
                if let Some(tile) = self.ground_tile(position) {
                    let g = &self.ground[position];
                    if g.death.is_none() {
                        let pending = self.ledger.vanished(g.key, tile, g.owner.as_deref());
                        owed_by = Some(if pending { g.owner.clone() } else { None });
                    }
                }
                let item = self.remove_ground_item(position);
                if let Some(holder) = owed_by {
                    self.owe(
                        holder.as_deref(),
                        FlowKind::Left,
                        "expired",
                        &item.stack.item_id,
                        u64::from(item.stack.quantity),
                    );
                }
                self.flow(
                    FlowKind::Left,
                    "expired",
                    &item.stack.item_id,
                    item.stack.quantity,
                );
                if let Some(death_id) = item.death {
                    events.push(Event::DeathItemExpired {
                        death_id,
                        stack: item.stack,
                    });
                }
            } else {
                position += 1;
            }
        }
    }

    /// Player `index`, next to ground item `target`, picks it up: the owner (or anyone once it is
    /// public), with room for it. The first player served in a tick gets it; the next finds it gone.
    pub(crate) fn pick_up(
        &mut self,
        index: usize,
        target: Handle,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> Flow {
        let now = self.now();
        let id = self.players[index].id.clone();
        let Some(position) = self.ground.iter().position(|g| g.handle == target) else {
            Self::reject(
                &id,
                codes::CANNOT_DO,
                "too late: the item is gone",
                reference,
                events,
            );
            return Flow::Done;
        };
        let item = &self.ground[position];
        // A drop stays its dropper's until their record is saved without it, even past its
        // private minute (one tick before it, the world asked for that save).
        let held_by_owner = |o: &str| now < item.public_at || self.ledger.is_pending(item.key, o);
        if item
            .owner
            .as_deref()
            .is_some_and(|o| o != id && held_by_owner(o))
        {
            Self::reject(
                &id,
                codes::CANNOT_DO,
                "that item belongs to someone else for now",
                reference,
                events,
            );
            return Flow::Done;
        }
        let stack = item.stack.clone();
        let stacking = self
            .content
            .items
            .get(stack.item_id.as_str())
            .map_or(Stacking::STACKABLE, Stacking::of);
        let player = &mut self.players[index];
        if player
            .inventory
            .add(&stack.item_id, stack.quantity, stacking)
            .is_err()
        {
            Self::reject(
                &id,
                codes::CANNOT_DO,
                "you do not have enough inventory space",
                reference,
                events,
            );
            return Flow::Done;
        }
        player.dirty.inventory = true;
        if let Some(tile) = self.ground_tile(position) {
            let g = &self.ground[position];
            if g.death.is_none() {
                self.ledger.taken(g.key, tile, g.owner.as_deref(), &id);
            }
        }
        let item = self.remove_ground_item(position);
        self.flow(
            FlowKind::Moved,
            "pickedUp",
            &item.stack.item_id,
            item.stack.quantity,
        );
        if let Some(death_id) = item.death {
            events.push(Event::DeathItemTaken {
                death_id,
                by: id,
                stack: item.stack,
            });
        }
        Flow::Done
    }

    /// Every item on the ground, in the order they appeared.
    pub fn ground_items(&self) -> Vec<GroundItemInfo> {
        self.ground
            .iter()
            .filter_map(|g| {
                let body = self.entities.get(g.handle)?;
                Some(GroundItemInfo {
                    id: body.wire.id.clone(),
                    tile: body.tile(),
                    stack: g.stack.clone(),
                    owner: g.owner.clone(),
                    public_at: g.public_at,
                    despawn_at: g.despawn_at,
                    death: g.death.clone(),
                })
            })
            .collect()
    }
}
