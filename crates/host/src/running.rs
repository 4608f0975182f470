//! Starting and stopping the host: what of the world outlived the last run goes back into it,
//! the save task and the world thread start, and the death piles left locked are put back before
//! anyone can enter; at shutdown the world thread stops (saving everyone still online) and the
//! save task drains.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use wayfarer_sim::World;
use wayfarer_store::{Store, StoreError};

use crate::saver::SaveJob;
use crate::world_thread::{WorldContext, WorldSender, WorldThread};

/// Why the host could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot restore the world chunks")]
    Chunks(#[source] StoreError),
    #[error("cannot start the world thread")]
    Thread(#[source] std::io::Error),
    #[error("cannot restore death piles")]
    Deaths(#[source] StoreError),
}

/// The save queue's two ends: the sending end goes into [`WorldContext::saves`], the other to
/// [`RunningHost::start`].
pub fn save_queue() -> (
    mpsc::UnboundedSender<SaveJob>,
    mpsc::UnboundedReceiver<SaveJob>,
) {
    mpsc::unbounded_channel()
}

/// The world thread and the save task, running.
pub struct RunningHost {
    world: WorldThread,
    saver: JoinHandle<()>,
}

impl RunningHost {
    /// Restores `world`'s chunks from `store`, starts the save task on `save_jobs` and the world
    /// thread, then puts back the death piles still locked (a crash or a stop before they were
    /// picked up).
    pub async fn start(
        store: &Store,
        mut world: World,
        context: WorldContext,
        save_jobs: mpsc::UnboundedReceiver<SaveJob>,
    ) -> Result<RunningHost, StartError> {
        crate::world_chunks::restore(store, &mut world)
            .await
            .map_err(StartError::Chunks)?;
        let tick = context.tick;
        let saver = tokio::spawn(crate::saver::run(store.clone(), save_jobs));
        let world = WorldThread::spawn(world, context).map_err(StartError::Thread)?;
        crate::deaths::restore(store, &world.sender(), tick, wayfarer_store::now_ms())
            .await
            .map_err(StartError::Deaths)?;
        Ok(RunningHost { world, saver })
    }

    /// The world thread's running thread (its sender and figures).
    pub fn world(&self) -> &WorldThread {
        &self.world
    }

    /// A sender into the world's queue.
    pub fn sender(&self) -> WorldSender {
        self.world.sender()
    }

    /// Stops the world thread (it waits at most for the tick in progress and saves everyone
    /// still online), then waits up to `drain` for the save task to write what was queued.
    pub async fn stop(self, drain: Duration) {
        let world = self.world;
        if let Ok(Some(world)) = tokio::task::spawn_blocking(move || world.stop()).await {
            tracing::info!(tick = world.tick_number(), "world stopped");
        }
        // Once the world is gone the save task drains and ends.
        if tokio::time::timeout(drain, self.saver).await.is_err() {
            tracing::error!("pending saves did not finish in time");
        }
    }
}
