//! The save task: writes the characters the world thread hands over, off the tick, the jobs queued
//! together in one transaction (group commit), and closes the sessions of players who left.

use std::time::Instant;

use tokio::sync::{mpsc, oneshot};
use wayfarer_store::{
    CharacterSnapshot, DeathLock, DeathTake, GroupOutcome, GroupPolicy, NpcKill, SaveBatch, Store,
    TradeAudit,
};

use crate::world_thread::TradeOutcome;

/// Jobs written in one transaction at most (group commit): bounds a transaction's size and how
/// long the first job of a group waits behind the others.
pub const MAX_GROUP_JOBS: usize = 256;

/// One hand-over from the world thread.
#[derive(Default)]
pub struct SaveJob {
    pub snapshots: Vec<CharacterSnapshot>,
    /// Death locks, written with the dying characters' snapshots (in `snapshots`).
    pub new_deaths: Vec<DeathLock>,
    /// Items leaving death locks, written with the pickers' snapshots (in `snapshots`).
    pub death_takes: Vec<DeathTake>,
    /// NPC kills to count.
    pub kills: Vec<NpcKill>,
    /// Sessions to mark closed, with the reason.
    pub sessions_to_close: Vec<(String, &'static str)>,
    /// Fired once the job is done, with whether it was written (a replacing connection waits for
    /// it, and is refused when the final save of the session it replaces failed).
    pub done: Vec<oneshot::Sender<bool>>,
    /// A trade's audit row, written with both participants' post-swap records (in `snapshots`).
    pub trade: Option<TradeAudit>,
    /// A duel's audit row, written with both duelists' post-result records (in `snapshots`); its
    /// outcome goes back on `trade_outcome` (trades and duels share the book of held commits).
    pub duel: Option<wayfarer_store::DuelAudit>,
    /// Where the trade's outcome goes: `(world trade id, committed)`.
    pub trade_outcome: Option<(String, std::sync::mpsc::Sender<TradeOutcome>)>,
    /// An immediate save's characters and where its outcome goes (`(ids, committed)`): their
    /// messages are held until it commits, and they are taken out of the world unsaved when it
    /// fails, so a bank operation, purchase or sale that is not durable is undone.
    pub immediate: Option<crate::world_thread::ImmediateWaiters>,
    /// World chunks changed since the last job, as they stand with the records in `snapshots`
    /// (`World::persist_for`): written in the same transaction.
    pub chunks: Vec<wayfarer_sim::ChunkState>,
    /// Items that entered or left the world whose effect this job's records, locks and chunks
    /// hold (`World::flows_for`, expired death piles): added to the economy's books in the same
    /// transaction (`wayfarer_store::repo::economy`).
    pub flows: Vec<wayfarer_store::FlowDelta>,
}

/// Runs until every sender (the world thread) is gone and the queue is drained. Group commit:
/// every job queued while the last group was written goes into the next group, one transaction
/// (`Inventories::save_group`), each job atomic on its own under a savepoint; the jobs stay in
/// the world thread's order, and nobody hears of a job (a trade's outcome, a `done`) before the
/// transaction holding it committed.
pub async fn run(store: Store, mut jobs: mpsc::UnboundedReceiver<SaveJob>) {
    let mut queued = Vec::with_capacity(MAX_GROUP_JOBS);
    while jobs.recv_many(&mut queued, MAX_GROUP_JOBS).await > 0 {
        for group in by_characters(std::mem::take(&mut queued), |job| job.snapshots.len()) {
            save_group(&store, group).await;
        }
    }
    tracing::debug!("save task drained");
}

/// Characters written in one transaction at most, unless one job alone holds more: a group's
/// waiters all hear when its transaction commits, so a group of everyone leaving at once (40
/// jobs of 256 final saves after a restart's disconnect) kept every reconnecting player waiting
/// for all 10,000 saves.
pub const MAX_GROUP_CHARACTERS: usize = 256;

/// Splits the queued jobs, in order, into groups of at most [`MAX_GROUP_CHARACTERS`] characters
/// (`characters` of a job; a larger job is a group of its own).
fn by_characters<J>(jobs: Vec<J>, characters_of: impl Fn(&J) -> usize) -> Vec<Vec<J>> {
    let mut groups: Vec<Vec<J>> = Vec::new();
    let mut characters = 0;
    for job in jobs {
        let n = characters_of(&job);
        match groups.last_mut() {
            Some(group) if characters + n <= MAX_GROUP_CHARACTERS => {
                characters += n;
                group.push(job);
            }
            _ => {
                characters = n;
                groups.push(vec![job]);
            }
        }
    }
    groups
}

async fn save_group(store: &Store, mut jobs: Vec<SaveJob>) {
    let started = Instant::now();
    let batches: Vec<SaveBatch> = jobs
        .iter_mut()
        .map(|job| SaveBatch {
            snapshots: std::mem::take(&mut job.snapshots),
            new_deaths: std::mem::take(&mut job.new_deaths),
            death_takes: std::mem::take(&mut job.death_takes),
            kills: std::mem::take(&mut job.kills),
            trade: job.trade.take(),
            duel: job.duel.take(),
            // Encoded here, off the tick.
            chunks: job.chunks.iter().map(crate::world_chunks::encode).collect(),
            flows: std::mem::take(&mut job.flows),
        })
        .collect();
    let outcomes = store
        .inventories()
        .save_group(&batches, GroupPolicy::default())
        .await;
    metrics::histogram!("db_save_group_jobs").record(jobs.len() as f64);
    let mut sessions_to_close = Vec::new();
    for ((job, batch), outcome) in jobs.into_iter().zip(&batches).zip(outcomes) {
        sessions_to_close.extend(job.sessions_to_close.iter().cloned());
        finish(job, batch, outcome);
    }
    // After every job's waiter was told (a reconnecting player waits on its final save, not on
    // the old session's logout row), and in one transaction for the whole group: a mass leave
    // closed thousands of sessions one sync at a time, and each waiter waited behind them all.
    if let Err(err) = store.sessions().close_many(&sessions_to_close).await {
        tracing::warn!(sessions = sessions_to_close.len(), error = %err, "closing player sessions failed");
    }
    metrics::histogram!("db_save_batch_seconds").record(started.elapsed().as_secs_f64());
}

/// Tells whoever waits on `job` what became of it, once its group's transaction is over.
fn finish(job: SaveJob, batch: &SaveBatch, outcome: GroupOutcome) {
    let saved = match outcome {
        GroupOutcome::Committed => true,
        GroupOutcome::Refused(err) => {
            // A batch the database refuses on its merits would be refused again: not retried.
            tracing::error!(
                characters = batch.snapshots.len(),
                reason = %err,
                "a save batch was refused"
            );
            metrics::counter!("character_save_failures_total").increment(1);
            false
        }
        GroupOutcome::Failed(error) => {
            tracing::error!(
                characters = batch.snapshots.len(),
                error,
                "saving characters failed"
            );
            metrics::counter!("character_save_failures_total").increment(1);
            false
        }
    };
    if let Some((trade_id, outcome)) = job.trade_outcome {
        if !saved {
            metrics::counter!("trade_commit_failures_total").increment(1);
        }
        let _ = outcome.send((trade_id, saved));
    }
    if let Some((outcome, ids)) = job.immediate {
        if !saved {
            tracing::error!(characters = ?ids, "an immediate save failed: the characters are taken out of the world unsaved");
        }
        if outcome.send((ids, saved)).is_err() {
            tracing::error!("could not tell the world an immediate save's outcome");
        }
    }
    if saved && !batch.chunks.is_empty() {
        metrics::counter!("world_chunk_writes_total").increment(batch.chunks.len() as u64);
        metrics::histogram!("world_chunk_writes_per_save").record(batch.chunks.len() as f64);
    }
    for done in job.done {
        let _ = done.send(saved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_jobs_are_grouped_in_order_by_at_most_256_characters() {
        // A job here is its number of characters; sessions closing alone (no character) ride with
        // whatever group they fall in.
        let groups = by_characters(vec![200, 56, 0, 1, 300, 2], |n| *n);
        assert_eq!(groups, [vec![200, 56, 0], vec![1], vec![300], vec![2]]);
        let exactly = by_characters(vec![128, 128, 1], |n| *n);
        assert_eq!(exactly, [vec![128, 128], vec![1]]);
        assert!(by_characters(Vec::<usize>::new(), |n| *n).is_empty());
    }
}
