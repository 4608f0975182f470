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
pub(super) fn saves_now(turn: u64, tick: u64, cycle: u64) -> bool {
    turn % cycle == tick % cycle
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

    /// Saves the changed players whose turn it is. Each player is saved once every
    /// `SAVE_INTERVAL` as before, but the players are spread over the ticks of that interval, so
    /// no tick copies and queues everyone at once (2,000 snapshots were ~8 ms of one tick a minute,
    /// the worst tick of a busy world).
    pub(super) fn save_turn(&mut self) {
        let cycle = (self.context.save_interval.as_millis() / self.context.tick.as_millis().max(1))
            .max(1) as u64;
        // The world's tick count is the clock of the save cycle.
        let tick = self.world.tick_number();
        let mut job = SaveJob::default();
        let held = &self.trades;
        for record in self.players.values_mut().filter(|r| {
            r.dirty
                && saves_now(r.save_turn, tick, cycle)
                && !held.is_held(&r.snapshot.character.id)
        }) {
            record.dirty = false;
            let mut snapshot = record.snapshot.clone();
            snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
            job.snapshots.push(snapshot);
        }
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
