//! Deaths, death piles and kills between the world and the store.
//!
//! The world reports a death (`PlayerDied`), every pickup of a death's item (`DeathItemTaken`) and
//! every one that vanished (`DeathItemExpired`). Each tick's reports become one save job, written
//! in one transaction: the death lock with the dead character's emptied record, each take with the
//! picker's record. The save task writes jobs in order, so at any moment the database holds every
//! item exactly once — in a character's rows or in a lock — and a crash at any point can neither
//! lose nor duplicate one. At start-up, [`restore`] puts the items of every lock of this world
//! still open back on the ground (locks carry their world: with several worlds on one database,
//! a pile lies in the world where its player died, and nowhere else).
//!
//! The world names deaths `<character>-<tick>`; ticks start again at 0 after a restart, so each
//! death gets a fresh UUID in the store, and the book translates.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::inventory::Stack;
use wayfarer_sim::{Command, GRAVESTONE_TICKS};
use wayfarer_store::{DeathLock, DeathTake, FlowDelta, LockedItem, NpcKill, Store, StoreError};

use crate::saver::SaveJob;
use crate::world_thread::{WorldInput, WorldSender};

/// The deaths, takes and kills of the tick being dispatched.
#[derive(Debug, Default)]
pub struct DeathBook {
    /// World death id → store death id.
    ids: HashMap<String, String>,
    new_deaths: Vec<DeathLock>,
    takes: Vec<DeathTake>,
    kills: Vec<NpcKill>,
    /// Characters whose records must be written with this tick's job.
    characters: BTreeSet<String>,
    /// Items of deaths that vanished, for the economy's books (written with their takes).
    expired: Vec<FlowDelta>,
}

impl DeathBook {
    /// A player died; `items` went on the ground.
    pub fn died(
        &mut self,
        character: &str,
        world_death_id: String,
        tile: TilePos,
        items: &[Stack],
        pvp: bool,
        now_ms: i64,
    ) {
        let id = uuid::Uuid::now_v7().to_string();
        self.ids.insert(world_death_id, id.clone());
        self.new_deaths.push(DeathLock {
            id,
            character_id: character.to_owned(),
            died_at_ms: now_ms,
            tile_x: tile.x,
            tile_z: tile.z,
            area_id: None,
            pvp,
            items: merge(items),
        });
        self.characters.insert(character.to_owned());
    }

    /// Someone picked up an item of a death.
    pub fn taken(&mut self, world_death_id: &str, by: &str, stack: &Stack) {
        self.takes.push(DeathTake {
            death_id: self.store_id(world_death_id),
            item_id: stack.item_id.clone(),
            quantity: i64::from(stack.quantity),
        });
        self.characters.insert(by.to_owned());
    }

    /// An item of a death vanished from the ground.
    pub fn expired(&mut self, world_death_id: &str, stack: &Stack) {
        self.takes.push(DeathTake {
            death_id: self.store_id(world_death_id),
            item_id: stack.item_id.clone(),
            quantity: i64::from(stack.quantity),
        });
        self.expired.push(FlowDelta {
            item_id: stack.item_id.clone(),
            entered: false,
            reason: "expired".to_owned(),
            units: i64::from(stack.quantity),
        });
    }

    /// A player killed an NPC.
    pub fn killed(&mut self, killer: &str, npc_id: &str, now_ms: i64) {
        self.kills.push(NpcKill {
            character_id: killer.to_owned(),
            npc_id: npc_id.to_owned(),
            at_ms: now_ms,
        });
    }

    /// Restored piles use the store's id as their world id: it maps to itself.
    fn store_id(&self, world_death_id: &str) -> String {
        self.ids
            .get(world_death_id)
            .cloned()
            .unwrap_or_else(|| world_death_id.to_owned())
    }

    /// This tick's job (without snapshots: the caller adds the records of
    /// [`DeathBook::characters`]), or `None` when nothing happened.
    pub fn take_job(&mut self) -> Option<(SaveJob, BTreeSet<String>)> {
        if self.new_deaths.is_empty() && self.takes.is_empty() && self.kills.is_empty() {
            return None;
        }
        let job = SaveJob {
            new_deaths: std::mem::take(&mut self.new_deaths),
            death_takes: std::mem::take(&mut self.takes),
            kills: std::mem::take(&mut self.kills),
            flows: std::mem::take(&mut self.expired),
            ..SaveJob::default()
        };
        Some((job, std::mem::take(&mut self.characters)))
    }
}

/// Stacks of the same item added together (a lock lists each item once; a trade's audit row too).
pub(crate) fn merge(items: &[Stack]) -> Vec<LockedItem> {
    let mut out: Vec<LockedItem> = Vec::new();
    for stack in items {
        match out.iter_mut().find(|i| i.item_id == stack.item_id) {
            Some(item) => item.quantity += i64::from(stack.quantity),
            None => out.push(LockedItem {
                item_id: stack.item_id.clone(),
                quantity: i64::from(stack.quantity),
            }),
        }
    }
    out
}

/// Puts the items of this world's open death locks back on the ground: private to the dead
/// player for what is left of their 15 minutes (PvP piles: public). Returns how many piles.
pub async fn restore(
    store: &Store,
    world: &WorldSender,
    tick: Duration,
    now_ms: i64,
) -> Result<usize, StoreError> {
    let locks = store.deaths().locked().await?;
    let tick_ms = tick.as_millis().max(1) as i64;
    for lock in &locks {
        let elapsed_ticks = ((now_ms - lock.died_at_ms).max(0) / tick_ms) as u64;
        let private_ticks = if lock.pvp {
            0
        } else {
            GRAVESTONE_TICKS.saturating_sub(elapsed_ticks)
        };
        let items = lock
            .items
            .iter()
            .flat_map(|i| split(&i.item_id, i.quantity))
            .collect();
        world.send(WorldInput::Sim(Command::RestoreDeathPile {
            death_id: lock.id.clone(),
            owner: lock.character_id.clone(),
            tile: TilePos {
                x: lock.tile_x,
                z: lock.tile_z,
            },
            items,
            private_ticks,
        }));
    }
    if !locks.is_empty() {
        tracing::info!(
            piles = locks.len(),
            world = store.world_id(),
            "death piles restored from their locks"
        );
    }
    Ok(locks.len())
}

/// A stored quantity as world stacks (a stack holds at most `u32::MAX`).
fn split(item_id: &str, quantity: i64) -> Vec<Stack> {
    let mut left = quantity.max(0) as u64;
    let mut out = Vec::new();
    while left > 0 {
        let n = left.min(u64::from(u32::MAX)) as u32;
        out.push(Stack {
            item_id: item_id.to_owned(),
            quantity: n,
        });
        left -= u64::from(n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(item: &str, quantity: u32) -> Stack {
        Stack {
            item_id: item.into(),
            quantity,
        }
    }

    #[test]
    fn a_tick_of_deaths_takes_and_kills_is_one_job_with_store_ids() {
        let mut book = DeathBook::default();
        assert!(book.take_job().is_none());
        book.died(
            "ada",
            "ada-7".into(),
            TilePos { x: 1, z: 2 },
            &[stack("logs", 1), stack("logs", 1), stack("coins", 9)],
            false,
            1_000,
        );
        book.taken("ada-7", "bob", &stack("coins", 9));
        book.expired("restored-uuid", &stack("logs", 1));
        book.killed("bob", "goblin", 1_000);
        let (job, characters) = book.take_job().unwrap();
        assert_eq!(job.new_deaths.len(), 1);
        let lock = &job.new_deaths[0];
        assert_ne!(lock.id, "ada-7", "a fresh store id");
        assert_eq!(
            lock.items,
            vec![
                LockedItem {
                    item_id: "logs".into(),
                    quantity: 2
                },
                LockedItem {
                    item_id: "coins".into(),
                    quantity: 9
                }
            ]
        );
        assert_eq!(job.death_takes[0].death_id, lock.id);
        assert_eq!(job.death_takes[1].death_id, "restored-uuid");
        assert_eq!(job.kills.len(), 1);
        assert_eq!(
            characters.into_iter().collect::<Vec<_>>(),
            vec!["ada".to_string(), "bob".to_string()]
        );
        assert!(book.take_job().is_none());
    }

    #[test]
    fn huge_quantities_split_into_stacks() {
        let stacks = split("coins", i64::from(u32::MAX) + 5);
        assert_eq!(stacks.len(), 2);
        assert_eq!(stacks[1].quantity, 5);
        assert!(split("coins", 0).is_empty());
    }
}
