//! Group commit: the save batches that arrive together are written in ONE transaction, so one
//! commit (one sync of the log, the cost of a durable write) serves them all, while each stays
//! atomic on its own. Every batch is written under its own savepoint: a batch the database refuses
//! on its merits (a constraint, a lease held elsewhere, a released death lock) is rolled back to
//! its savepoint and reported refused, and the others commit. A batch that fails for another
//! reason (the connection, the disk) stops the round: the batches before it commit, and it and
//! those after it are tried again in order, so a later write of a character never lands before an
//! earlier one. When the commit itself fails nothing of the round is written and every batch in
//! it is tried again; a batch is given up after [`GroupPolicy::attempts`]. An outcome is only
//! `Committed` once the transaction holding the batch committed.

use std::time::Duration;

use sqlx::{Any, Transaction};

use crate::repo::inventory::{write_in, SaveBatch};
use crate::{Store, StoreError};

/// How hard a group tries before it gives a batch up.
#[derive(Debug, Clone, Copy)]
pub struct GroupPolicy {
    /// Rounds a batch may fail in (the commit failing, or the batch failing other than refused)
    /// before it is reported [`GroupOutcome::Failed`]; at least 1.
    pub attempts: u32,
    /// The pause after a round in which something failed.
    pub retry_pause: Duration,
}

impl Default for GroupPolicy {
    /// The save task's: three attempts half a second apart.
    fn default() -> Self {
        GroupPolicy {
            attempts: 3,
            retry_pause: Duration::from_millis(500),
        }
    }
}

/// What became of one batch of a group.
#[derive(Debug)]
pub enum GroupOutcome {
    /// Written: the transaction holding it committed.
    Committed,
    /// The database refused it on its merits ([`StoreError::is_refusal`]); nothing of it was
    /// written, and the rest of its group was not held back.
    Refused(StoreError),
    /// It could not be written in any attempt (the last failure, as text); nothing of it was
    /// written.
    Failed(String),
}

impl GroupOutcome {
    /// Whether the batch is in the database.
    pub fn is_committed(&self) -> bool {
        matches!(self, GroupOutcome::Committed)
    }
}

/// One transaction over the open batches.
enum Round {
    /// The transaction committed: the outcome of the first `settled.len()` open batches, and the
    /// error that stopped the round at the next one, if any (it and those after it are retried).
    Committed {
        settled: Vec<Result<(), StoreError>>,
        stopped: Option<StoreError>,
    },
    /// Nothing of the round was written.
    NothingCommitted(StoreError),
}

/// Writes `batches` in order in as few transactions as it can; an outcome for each, in order.
pub(crate) async fn save_group(
    store: &Store,
    batches: &[SaveBatch],
    policy: GroupPolicy,
) -> Vec<GroupOutcome> {
    // Nothing to write is written.
    let mut outcomes: Vec<Option<GroupOutcome>> = batches
        .iter()
        .map(|batch| batch.is_empty().then_some(GroupOutcome::Committed))
        .collect();
    let mut failures = vec![0u32; batches.len()];
    loop {
        let open: Vec<usize> = (0..batches.len())
            .filter(|&i| outcomes[i].is_none())
            .collect();
        if open.is_empty() {
            break;
        }
        // The batches that failed in this round, with why.
        let (failed, error) = match round(store, batches, &open).await {
            Round::Committed { settled, stopped } => {
                let done = settled.len();
                for (&i, result) in open.iter().zip(settled) {
                    outcomes[i] = Some(match result {
                        Ok(()) => GroupOutcome::Committed,
                        Err(err) => GroupOutcome::Refused(err),
                    });
                }
                match stopped {
                    None => continue,
                    Some(err) => (vec![open[done]], err),
                }
            }
            Round::NothingCommitted(err) => (open, err),
        };
        let error = error.to_string();
        tracing::warn!(batches = failed.len(), error, "a group commit round failed");
        for i in failed {
            failures[i] += 1;
            if failures[i] >= policy.attempts.max(1) {
                tracing::error!(
                    attempts = failures[i],
                    characters = batches[i].snapshots.len(),
                    error,
                    "a save batch is given up"
                );
                outcomes[i] = Some(GroupOutcome::Failed(error.clone()));
            }
        }
        if outcomes.iter().any(Option::is_none) {
            tokio::time::sleep(policy.retry_pause).await;
        }
    }
    outcomes.into_iter().flatten().collect()
}

async fn round(store: &Store, batches: &[SaveBatch], open: &[usize]) -> Round {
    if open.len() > 1 {
        match together(store, batches, open).await {
            Ok(round) => return round,
            Err(err) => {
                store.note_group_round_one_by_one();
                tracing::debug!(batches = open.len(), error = %err, "a group written together failed; writing it batch by batch");
            }
        }
    }
    one_by_one(store, batches, open).await
}

/// The round when nothing goes wrong, its cost shared: every open batch written together, in
/// as few statements as their rows allow (`write_in`), no savepoints. `Err` (the transaction
/// rolled back, nothing written) when a statement failed: which batch it was is then found by
/// writing them [`one_by_one`], each under its savepoint.
async fn together(
    store: &Store,
    batches: &[SaveBatch],
    open: &[usize],
) -> Result<Round, StoreError> {
    let mut tx = match store.begin_write().await {
        Ok(tx) => tx,
        Err(err) => return Ok(Round::NothingCommitted(err)),
    };
    let group: Vec<&SaveBatch> = open.iter().map(|&i| &batches[i]).collect();
    if let Err(err) = write_in(&mut tx, store, &group, crate::now_ms()).await {
        let _ = tx.rollback().await;
        return Err(err);
    }
    Ok(match commit(store, tx).await {
        Ok(()) => Round::Committed {
            settled: open.iter().map(|_| Ok(())).collect(),
            stopped: None,
        },
        Err(err) => Round::NothingCommitted(err),
    })
}

/// Commits `tx`, or fails it on purpose when a test asked ([`Store::fail_next_group_commits`]).
async fn commit(store: &Store, tx: Transaction<'static, Any>) -> Result<(), StoreError> {
    if store.take_group_commit_fault() {
        let _ = tx.rollback().await;
        return Err(StoreError::Database(sqlx::Error::Io(
            std::io::Error::other("the commit failed (fault injected by a test)"),
        )));
    }
    tx.commit().await.map_err(Into::into)
}

/// The round batch by batch, each under its own savepoint, so that one refused is told apart.
async fn one_by_one(store: &Store, batches: &[SaveBatch], open: &[usize]) -> Round {
    let mut tx = match store.begin_write().await {
        Ok(tx) => tx,
        Err(err) => return Round::NothingCommitted(err),
    };
    let now = crate::now_ms();
    let mut settled = Vec::with_capacity(open.len());
    let mut stopped = None;
    for &i in open {
        match in_savepoint(&mut tx, store, &batches[i], now).await {
            Ok(Ok(())) => settled.push(Ok(())),
            Ok(Err(err)) if err.is_refusal() => settled.push(Err(err)),
            Ok(Err(err)) => {
                stopped = Some(err);
                break;
            }
            // The transaction is unusable; dropping it rolls it back.
            Err(broken) => return Round::NothingCommitted(broken),
        }
    }
    if let Err(err) = commit(store, tx).await {
        return Round::NothingCommitted(err);
    }
    Round::Committed { settled, stopped }
}

/// Writes one batch under a savepoint: `Ok` with the batch's own result while the transaction is
/// usable (a failed batch is undone to its savepoint), `Err` when the transaction is not (its
/// savepoint could not be set or undone, as after SQLite rolled the whole transaction back).
async fn in_savepoint(
    tx: &mut Transaction<'static, Any>,
    store: &Store,
    batch: &SaveBatch,
    now: i64,
) -> Result<Result<(), StoreError>, StoreError> {
    sqlx::query("SAVEPOINT batch")
        .persistent(false)
        .execute(&mut **tx)
        .await?;
    match write_in(tx, store, &[batch], now).await {
        Ok(()) => {
            sqlx::query("RELEASE SAVEPOINT batch")
                .persistent(false)
                .execute(&mut **tx)
                .await?;
            Ok(Ok(()))
        }
        Err(err) => {
            sqlx::query("ROLLBACK TO SAVEPOINT batch")
                .persistent(false)
                .execute(&mut **tx)
                .await?;
            sqlx::query("RELEASE SAVEPOINT batch")
                .persistent(false)
                .execute(&mut **tx)
                .await?;
            Ok(Err(err))
        }
    }
}
