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

/// Where ground items come from ([`World::spawn_ground_items`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Spill<'a> {
    /// A mob's drop, ashes, a pile put back: into the ledger as they are.
    Appeared,
    /// A player's drop, private to its owner, whose saved record still holds the items until it
    /// is written again (see `persistence`).
    Dropped,
    /// Spilled by a death (`PlayerDied::death_id`): each pile remembers it, so taking it or its
    /// expiry is reported.
    Death(&'a str),
}

/// One item (or stack) on the ground.
#[derive(Debug, Clone)]
pub(crate) struct GroundItem {
    pub handle: Handle,
    /// Its key in the persistence ledger (unique in this world's run).
    pub key: u64,
    /// What lies where, who may take it before `public_at` (`None`: anyone at once), and when
    /// it disappears: the ledger's own entry for it (a dropped item's, not a death's, is kept
    /// there too).
    pub lot: LedgerItem,
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
    /// otherwise. Private to `owner` for `private_ticks`, gone after `lifetime_ticks`; `spill`
    /// says where they came from, for persistence: death piles are the server's (death locks),
    /// a drop is pending on its dropper, anything else enters the ledger.
    pub(crate) fn spawn_ground_items(
        &mut self,
        tile: TilePos,
        stack: Stack,
        owner: Option<&str>,
        private_ticks: u64,
        lifetime_ticks: u64,
        spill: Spill<'_>,
    ) {
        let (death, dropped) = match spill {
            Spill::Appeared => (None, false),
            Spill::Dropped => (None, true),
            Spill::Death(id) => (Some(id), false),
        };
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
                name,
                item_id: Some(pile.item_id.clone()),
                quantity: Some(i64::from(pile.quantity)),
                ..Entity::at(id, EntityKind::GroundItem, tile.x, tile.z)
            });
            self.grid.insert(handle, tile, Class::Ground, now);
            let key = self.next_serial;
            let lot = LedgerItem {
                stack: pile,
                tile,
                owner: owner.map(str::to_owned),
                public_at: now + private_ticks,
                despawn_at: now + lifetime_ticks,
            };
            if death.is_none() {
                match owner {
                    Some(by) if dropped => self.ledger.dropped(by, key, lot.clone()),
                    _ => self.ledger.appeared(key, lot.clone()),
                }
            }
            self.ground.push(GroundItem {
                handle,
                key,
                lot,
                death: death.map(str::to_owned),
            });
        }
    }

    /// Takes the ground item at `position` in `self.ground` out of the world: picked up by
    /// `taker`, or expired (`None`); the ledger (for a drop, not a death's spill) and the item
    /// flows are told which.
    fn remove_ground_item(&mut self, position: usize, taker: Option<&str>) -> GroundItem {
        let item = self.ground.remove(position);
        // Where the database loses an item that vanishes: a drop still pending goes with its
        // dropper's record, anything else with the chunks (a death pile's item with its lock,
        // through the server's death book).
        let mut owed_by: Option<Option<String>> = None;
        if let Some(tile) = self.entities.retire(item.handle) {
            let now = self.now();
            self.grid.remove(item.handle, tile, Class::Ground, now);
            if item.death.is_none() {
                let owner = item.lot.owner.as_deref();
                match taker {
                    Some(by) => self.ledger.taken(item.key, tile, owner, by),
                    None => {
                        let pending = self.ledger.vanished(item.key, tile, owner);
                        owed_by = Some(if pending {
                            item.lot.owner.clone()
                        } else {
                            None
                        });
                    }
                }
            }
        }
        if let Some(holder) = owed_by {
            self.owe(
                holder.as_deref(),
                FlowKind::Left,
                "expired",
                &item.lot.stack.item_id,
                u64::from(item.lot.stack.quantity),
            );
        }
        let (kind, why) = match taker {
            Some(_) => (FlowKind::Moved, "pickedUp"),
            None => (FlowKind::Left, "expired"),
        };
        self.flow(kind, why, &item.lot.stack.item_id, item.lot.stack.quantity);
        item
    }

    /// Makes expired ground items disappear (reporting those a death spilled).
    pub(crate) fn advance_ground_items(&mut self, events: &mut Vec<Event>) {
        let now = self.now();
        let mut position = 0;
        while position < self.ground.len() {
            let due = &self.ground[position].lot;
            let key = self.ground[position].key;
            // A drop about to go public while its dropper's saved record still holds it: ask for
            // that record's save now, so anyone may take it on time (see `persistence`).
            if due.public_at == now + 1 && self.ground[position].death.is_none() {
                if let Some(owner) = due.owner.as_deref() {
                    if self.ledger.is_pending(key, owner) && self.is_online(owner) {
                        events.push(Event::SaveNow {
                            id: owner.to_owned(),
                        });
                    }
                }
            }
            if self.ground[position].lot.despawn_at <= now {
                let item = self.remove_ground_item(position, None);
                if let Some(death_id) = item.death {
                    events.push(Event::DeathItemExpired {
                        death_id,
                        stack: item.lot.stack,
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
        let held_by_owner =
            |o: &str| now < item.lot.public_at || self.ledger.is_pending(item.key, o);
        if item
            .lot
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
        let stack = item.lot.stack.clone();
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
        let item = self.remove_ground_item(position, Some(&id));
        if let Some(death_id) = item.death {
            events.push(Event::DeathItemTaken {
                death_id,
                by: id,
                stack: item.lot.stack,
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
                    stack: g.lot.stack.clone(),
                    owner: g.lot.owner.clone(),
                    public_at: g.lot.public_at,
                    despawn_at: g.lot.despawn_at,
                    death: g.death.clone(),
                })
            })
            .collect()
    }
}
