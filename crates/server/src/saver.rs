//! The save task: writes the characters the world thread hands over, off the tick, each batch in one
//! transaction, and closes the sessions of players who left.

use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};
use wayfarer_store::{
    CharacterSnapshot, DeathLock, DeathTake, NpcKill, SaveBatch, Store, StoreError, TradeAudit,
};

use crate::world_thread::TradeOutcome;

/// Attempts per batch before its failure is logged and the batch given up.
const SAVE_ATTEMPTS: u32 = 3;
/// Pause between attempts.
const RETRY_PAUSE: Duration = Duration::from_millis(500);

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
    /// When the job cannot be written, these characters are taken out of the world unsaved (see
    /// `WorldInput::SaveFailed`): a bank operation, purchase or sale that is not durable is undone.
    pub on_failure: Option<(crate::world_thread::WorldSender, Vec<String>)>,
    /// World chunks changed since the last job, as they stand with the records in `snapshots`
    /// (`World::persist_for`): written in the same transaction.
    pub chunks: Vec<wayfarer_sim::ChunkState>,
}

/// Runs until every sender (the world thread) is gone and the queue is drained.
pub async fn run(store: Store, mut jobs: mpsc::UnboundedReceiver<SaveJob>) {
    while let Some(job) = jobs.recv().await {
        save(&store, job).await;
    }
    tracing::debug!("save task drained");
}

async fn save(store: &Store, job: SaveJob) {
    let started = Instant::now();
    let batch = SaveBatch {
        snapshots: job.snapshots,
        new_deaths: job.new_deaths,
        death_takes: job.death_takes,
        kills: job.kills,
        trade: job.trade,
        duel: job.duel,
        // Encoded here, off the tick.
        chunks: job.chunks.iter().map(crate::world_chunks::encode).collect(),
    };
    let mut saved = batch.is_empty();
    for attempt in 1..=SAVE_ATTEMPTS {
        if saved {
            break;
        }
        match store.inventories().save(&batch).await {
            Ok(()) => saved = true,
            Err(StoreError::Conflict(reason)) => {
                // A batch the database refuses on its merits will be refused again: do not retry.
                tracing::error!(
                    characters = batch.snapshots.len(),
                    reason,
                    "a save batch was refused"
                );
                metrics::counter!("character_save_failures_total").increment(1);
                break;
            }
            Err(err) => {
                tracing::error!(attempt, characters = batch.snapshots.len(), error = %err, "saving characters failed");
                metrics::counter!("character_save_failures_total").increment(1);
                tokio::time::sleep(RETRY_PAUSE).await;
            }
        }
    }
    if let Some((trade_id, outcome)) = job.trade_outcome {
        if !saved {
            metrics::counter!("trade_commit_failures_total").increment(1);
        }
        let _ = outcome.send((trade_id, saved));
    }
    if !saved {
        if let Some((world, ids)) = job.on_failure {
            tracing::error!(characters = ?ids, "an immediate save failed: the characters are taken out of the world unsaved");
            if !world.send(crate::world_thread::WorldInput::SaveFailed { ids }) {
                tracing::error!("could not tell the world that a save failed");
            }
        }
    }
    for (session, reason) in &job.sessions_to_close {
        if let Err(err) = store.sessions().close(session, reason).await {
            tracing::warn!(session, error = %err, "closing a player session failed");
        }
    }
    if saved && !batch.chunks.is_empty() {
        metrics::counter!("world_chunk_writes_total").increment(batch.chunks.len() as u64);
        metrics::histogram!("world_chunk_writes_per_save").record(batch.chunks.len() as f64);
    }
    metrics::histogram!("db_save_batch_seconds").record(started.elapsed().as_secs_f64());
    for done in job.done {
        let _ = done.send(saved);
    }
}
