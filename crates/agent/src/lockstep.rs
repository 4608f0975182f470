//! Agents stepped together with a manual world ([`crate::Host::lockstep`]): one tick at a time
//! however many waits run at once, each agent in the order it joined. Before each tick every
//! agent fences ([`Control::Sync`]: the world holds what it sent, an owner's command included);
//! after it each takes its step ([`Control::Step`]: it has read the tick's messages, decided and
//! sent). Used by the test kit for its agents and by the game host for its embedded agents on
//! the test clock, so a wait is counted in the game's ticks, whatever the machine's speed.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use crate::runtime::Control;

/// The longest an agent's step or fence may take: a model call to a mock server is the slowest.
pub const STEP_WAIT: Duration = Duration::from_secs(60);

/// Why a lockstep tick did not complete.
#[derive(Debug, thiserror::Error)]
pub enum LockstepError {
    #[error("an agent lost its connection mid-step")]
    Lost,
    #[error("an agent did not answer its step within {0:?}")]
    Late(Duration),
    #[error("stepping the world: {0}")]
    World(String),
}

/// The agents stepped with one manual world.
#[derive(Clone, Default)]
pub struct Crowd {
    members: Arc<Mutex<Vec<mpsc::Sender<Control>>>>,
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for Crowd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crowd")
            .field("members", &self.members().len())
            .finish()
    }
}

impl Crowd {
    /// Adds an agent (by its control channel); it is stepped after those that joined before it.
    pub fn join(&self, control: mpsc::Sender<Control>) {
        self.members
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(control);
    }

    /// The agents still running, in the order they joined.
    fn members(&self) -> Vec<mpsc::Sender<Control>> {
        let mut members = self.members.lock().unwrap_or_else(|p| p.into_inner());
        members.retain(|m| !m.is_closed());
        members.clone()
    }

    /// Asks every agent still running for `ask` and waits for each answer in turn.
    async fn each(&self, ask: fn(oneshot::Sender<()>) -> Control) -> Result<(), LockstepError> {
        for member in self.members() {
            let (reply, answered) = oneshot::channel();
            if member.send(ask(reply)).await.is_err() {
                continue; // it has shut down
            }
            match tokio::time::timeout(STEP_WAIT, answered).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) if member.is_closed() => {}
                Ok(Err(_)) => return Err(LockstepError::Lost),
                Err(_) => return Err(LockstepError::Late(STEP_WAIT)),
            }
        }
        Ok(())
    }

    /// Every agent has read what the world sent, and the world holds what each sent.
    pub async fn sync(&self) -> Result<(), LockstepError> {
        let _turn = self.turn.lock().await;
        self.each(Control::Sync).await
    }

    /// One tick: the world takes what the agents sent (an owner's command since their last step
    /// included), `step` runs the tick, and each agent takes its step for it.
    pub async fn tick<T, E: std::fmt::Display>(
        &self,
        step: impl Future<Output = Result<T, E>>,
    ) -> Result<T, LockstepError> {
        let _turn = self.turn.lock().await;
        self.each(Control::Sync).await?;
        let stepped = step
            .await
            .map_err(|err| LockstepError::World(err.to_string()))?;
        self.each(Control::Step).await?;
        Ok(stepped)
    }
}
