//! Handing records to the save task: the periodic save (each player once a `SAVE_INTERVAL`, spread
//! over its ticks by save turn), the saves a tick asks for at once (bank, shop, deaths) and final
//! saves of players who left.

use tokio::sync::oneshot;
use wayfarer_store::CharacterSnapshot;

use crate::player_view;
use crate::saver::SaveJob;

use super::{PlayerRecord, Runner};

/// Whether the player with save turn `turn` is saved in tick `tick` of a save cycle `cycle` ticks
/// long (≥ 1).
/// (The rule as the walk over every record applied it; [`SaveTurns`] files each player under
/// [`cycle_tick`] of its turn and visits that of the tick.)
#[cfg(test)]
pub(super) fn saves_now(turn: u64, tick: u64, cycle: u64) -> bool {
    cycle_tick(turn, cycle) == cycle_tick(tick, cycle)
}

/// Which tick of a save cycle `cycle` ticks long a turn (or the world's tick count) falls on.
fn cycle_tick(n: u64, cycle: u64) -> usize {
    (n % cycle) as usize
}

/// The online players by the tick of the save cycle that saves them, so a tick visits only the
/// ~players/cycle records due (walking every record to find them was 2,000 boxed records a tick
/// for ~40 due). An entry is `(id, save_turn)`: a player's turn is dealt once per entry and never
/// reused (`Runner::entered` only grows), so an entry whose record is gone or has another turn
/// (left, or left and came back) is stale and dropped when its bucket is next visited.
#[derive(Default)]
pub(super) struct SaveTurns {
    buckets: Vec<Vec<(String, u64)>>,
}

impl SaveTurns {
    /// Files player `id`, entered with save turn `turn`, in a cycle of `cycle` ticks (≥ 1, the
    /// same on every call).
    pub(super) fn add(&mut self, id: String, turn: u64, cycle: u64) {
        if self.buckets.is_empty() {
            self.buckets = (0..cycle).map(|_| Vec::new()).collect();
        }
        self.buckets[cycle_tick(turn, cycle)].push((id, turn));
    }

    /// The entries of the players whose turn is tick `tick` (in the order they entered), for
    /// [`Self::put_back`] after use; `saves_now(turn, tick, cycle)` holds for every one.
    fn take_due(&mut self, tick: u64, cycle: u64) -> Vec<(String, u64)> {
        match self.buckets.get_mut(cycle_tick(tick, cycle)) {
            Some(bucket) => std::mem::take(bucket),
            None => Vec::new(),
        }
    }

    /// Hands back what [`Self::take_due`] took, without the stale entries (`current` says whether
    /// an entry's record is online with that turn).
    fn put_back(
        &mut self,
        tick: u64,
        cycle: u64,
        mut due: Vec<(String, u64)>,
        current: impl Fn(&str, u64) -> bool,
    ) {
        due.retain(|(id, turn)| current(id, *turn));
        if let Some(bucket) = self.buckets.get_mut(cycle_tick(tick, cycle)) {
            *bucket = due;
        }
    }
}

impl Runner {
    /// Hands a job to the save task, with the world chunks it must carry: the drops and pickups of
    /// the players whose records it writes, and every other chunk change since the last job (see
    /// `wayfarer_sim::World::persist_for`). Every job goes through here, in the order the save
    /// task writes them, so the database never holds an item both on the ground and in a record.
    pub(super) fn send_job(
        &mut self,
        mut job: SaveJob,
    ) -> Result<(), Box<tokio::sync::mpsc::error::SendError<SaveJob>>> {
        // With them, what entered and left the world that those records and chunks hold.
        let owed = self
            .world
            .flows_for(job.snapshots.iter().map(|s| s.character.id.as_str()));
        job.flows.extend(owed.iter().map(crate::economy::delta));
        job.chunks = self
            .world
            .persist_for(job.snapshots.iter().map(|s| s.character.id.as_str()));
        self.context.saves.send(job).map_err(Box::new)
    }

    /// Hands final states to the save task, closing their sessions.
    pub(super) fn save_now(
        &mut self,
        records: Vec<PlayerRecord>,
        done: Vec<oneshot::Sender<bool>>,
        reason: &'static str,
    ) {
        let records = records.into_iter().map(|r| (r, reason)).collect();
        self.save_leaves(records, done);
    }

    /// Final states of players who left, each session closed with its own reason, in one job;
    /// every `done` fires once it is written.
    pub(super) fn save_leaves(
        &mut self,
        records: Vec<(PlayerRecord, &'static str)>,
        done: Vec<oneshot::Sender<bool>>,
    ) {
        let mut job = SaveJob::default();
        for (record, reason) in records {
            job.sessions_to_close.push((record.session_id, reason));
            job.snapshots.push(self.finished_snapshot(record.snapshot));
        }
        job.done = done;
        if let Err(unsent) = self.send_job(job) {
            tracing::error!("the save task has stopped; final states could not be saved");
            for done in unsent.0.done {
                let _ = done.send(false);
            }
        }
    }

    /// Bank operations, purchases and sales are durable at once: the records they changed
    /// (`ids`), as this tick left them (inventory and bank), in one transaction; the players'
    /// messages wait for its outcome (`immediate_saves.rs`).
    pub(super) fn save_at_once(&mut self, ids: &[String]) {
        if ids.is_empty() {
            return;
        }
        let mut job = SaveJob::default();
        for id in ids {
            // A record held by a committing trade is written by the trade's job (a drop's due
            // save then waits for it).
            if self.trades.is_held(id) {
                continue;
            }
            if let Some(record) = self.players.get_mut(id) {
                record.dirty = false;
                let snapshot = record.snapshot.clone();
                job.snapshots.push(self.finished_snapshot(snapshot));
            }
        }
        if !job.snapshots.is_empty() {
            metrics::counter!("character_saves_total").increment(job.snapshots.len() as u64);
            let saved: Vec<(String, String)> = job
                .snapshots
                .iter()
                .filter_map(|s| {
                    let id = &s.character.id;
                    let record = self.players.get(id)?;
                    Some((id.clone(), record.session_id.clone()))
                })
                .collect();
            self.immediate.begin(&saved);
            job.immediate = Some((self.immediate.outcomes_tx.clone(), saved));
            if let Err(unsent) = self.send_job(job) {
                tracing::error!(
                    "the save task has stopped; a bank or shop change could not be saved"
                );
                if let Some((tx, ids)) = unsent.0.immediate {
                    let _ = tx.send((ids, false));
                }
            }
        }
    }

    /// Deaths and what left their piles: one transaction, with the records it concerns as they
    /// stand after this tick (the dead emptied, the pickers holding what they took).
    pub(super) fn save_deaths(&mut self) {
        let Some((mut job, characters)) = self.deaths.take_job() else {
            return;
        };
        for id in characters {
            if let Some(record) = self.players.get(&id) {
                job.snapshots
                    .push(self.finished_snapshot(record.snapshot.clone()));
            }
        }
        if self.send_job(job).is_err() {
            tracing::error!("the save task has stopped; a death could not be recorded");
        }
    }

    /// The snapshot with the live tile written into the record's position.
    pub(super) fn finished_snapshot(&self, mut snapshot: CharacterSnapshot) -> CharacterSnapshot {
        if let Some(tile) = self.world.player_tile(&snapshot.character.id) {
            snapshot.character.position[0] = f64::from(tile.x) + 0.5;
            snapshot.character.position[2] = f64::from(tile.z) + 0.5;
        }
        snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
        snapshot
    }

    /// The save cycle's length in ticks (≥ 1): a `SAVE_INTERVAL` of ticks.
    pub(super) fn save_cycle(&self) -> u64 {
        (self.context.save_interval.as_millis() / self.context.tick.as_millis().max(1)).max(1)
            as u64
    }

    /// Saves the changed players whose turn it is. Each player is saved once every
    /// `SAVE_INTERVAL` as before, but the players are spread over the ticks of that interval, so
    /// no tick copies and queues everyone at once (2,000 snapshots were ~8 ms of one tick a minute,
    /// the worst tick of a busy world).
    pub(super) fn save_turn(&mut self) {
        let cycle = self.save_cycle();
        // The world's tick count is the clock of the save cycle.
        let tick = self.world.tick_number();
        let mut job = SaveJob::default();
        let due = self.save_turns.take_due(tick, cycle);
        for (id, turn) in &due {
            let Some(record) = self.players.get_mut(id) else {
                continue;
            };
            if record.save_turn != *turn || !record.dirty || self.trades.is_held(id) {
                continue;
            }
            record.dirty = false;
            let mut snapshot = record.snapshot.clone();
            snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
            job.snapshots.push(snapshot);
        }
        let players = &self.players;
        self.save_turns.put_back(tick, cycle, due, |id, turn| {
            players.get(id).is_some_and(|r| r.save_turn == turn)
        });
        if !job.snapshots.is_empty() {
            metrics::counter!("character_saves_total").increment(job.snapshots.len() as u64);
        }
        // Chunk changes no record waits for (a respawn, loot) go out with this turn's job, or
        // alone when nobody is due.
        if !job.snapshots.is_empty() || self.world.has_chunks_to_persist() {
            let _ = self.send_job(job);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// The index finds, tick after tick, exactly the players the walk over every record found
    /// (`saves_now` of each online player's turn), once each, while players enter, leave and come
    /// back with a new turn; and it forgets the players who left.
    #[test]
    fn the_index_by_turn_gives_the_same_players_on_the_same_ticks_as_the_walk() {
        for cycle in [1u64, 3, 7, 40] {
            let mut online: HashMap<String, u64> = HashMap::new();
            let mut turns = SaveTurns::default();
            let mut entered = 0u64;
            let mut enter = |id: &str, online: &mut HashMap<String, u64>, turns: &mut SaveTurns| {
                entered += 1;
                online.insert(id.to_owned(), entered);
                turns.add(id.to_owned(), entered, cycle);
            };
            for p in 0..25 {
                enter(&format!("p{p}"), &mut online, &mut turns);
            }
            for tick in 100..100 + 5 * cycle {
                // Every few ticks someone leaves, and some come back (a new turn).
                if tick % 3 == 0 {
                    online.remove(&format!("p{}", tick % 25));
                }
                if tick % 4 == 0 {
                    let back = format!("p{}", (tick + 7) % 25);
                    if !online.contains_key(&back) {
                        enter(&back, &mut online, &mut turns);
                    }
                }
                let mut walked: Vec<&String> = online
                    .iter()
                    .filter(|(_, &turn)| saves_now(turn, tick, cycle))
                    .map(|(id, _)| id)
                    .collect();
                walked.sort();
                let due = turns.take_due(tick, cycle);
                let mut indexed: Vec<&String> = due
                    .iter()
                    .filter(|(id, turn)| online.get(id) == Some(turn))
                    .map(|(id, _)| id)
                    .collect();
                indexed.sort();
                assert_eq!(indexed, walked, "cycle {cycle}, tick {tick}");
                let current = |id: &str, turn: u64| online.get(id) == Some(&turn);
                turns.put_back(tick, cycle, due, current);
            }
            // A whole cycle with nobody coming or going visits every bucket: only the online
            // remain filed.
            for tick in 0..cycle {
                let due = turns.take_due(tick, cycle);
                turns.put_back(tick, cycle, due, |id, turn| online.get(id) == Some(&turn));
            }
            let filed: usize = turns.buckets.iter().map(Vec::len).sum();
            assert_eq!(filed, online.len(), "cycle {cycle}");
        }
    }
}
