//! Questions asked of the world from async code (a live snapshot for REST, the ground's item totals
//! for the economy audit): sent as an input and answered between ticks, bounded by a wait.

use std::time::Duration;

use tokio::sync::oneshot;
use wayfarer_protocol::ws::{Entity, TilePos};
use wayfarer_store::{CharacterSnapshot, StoredSlot};

use super::{WorldInput, WorldSender};

/// How long a REST handler waits for the world's answer (a tick at most, normally).
pub(super) const QUERY_WAIT: Duration = Duration::from_secs(5);

/// The world did not answer a question: its queue was full, or no answer came within
/// `QUERY_WAIT`. `service_unavailable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the world did not answer")]
pub struct NoAnswer;

impl NoAnswer {
    /// The contract code it is answered with.
    pub fn code(self) -> wayfarer_protocol::ErrorCode {
        wayfarer_protocol::ErrorCode::ServiceUnavailable
    }
}

/// Sends the world a question (an input carrying `reply`) and waits for the answer, which it
/// gives between ticks.
pub(super) async fn ask<T>(
    world: &WorldSender,
    question: impl FnOnce(oneshot::Sender<T>) -> WorldInput,
) -> Result<T, NoAnswer> {
    let (reply, answer) = oneshot::channel();
    if world.send(question(reply)) {
        if let Ok(Ok(answer)) = tokio::time::timeout(QUERY_WAIT, answer).await {
            return Ok(answer);
        }
    }
    Err(NoAnswer)
}

/// An online character's live record from the world thread; `None` when it is not in the world
/// (the store then holds its state).
pub async fn live_snapshot(
    world: &WorldSender,
    id: &str,
) -> Result<Option<Box<CharacterSnapshot>>, NoAnswer> {
    let id = id.to_owned();
    ask(world, |reply| WorldInput::Snapshot { id, reply }).await
}

/// A character's kills (by NPC id) and deaths since a manual world started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub kills: std::collections::BTreeMap<String, u64>,
    pub deaths: u64,
}

/// Asks a manual world for a character's [`Tally`] (empty on a timed world).
pub async fn tally(world: &WorldSender, id: &str) -> Result<Tally, NoAnswer> {
    let id = id.to_owned();
    ask(world, |reply| WorldInput::Tally { id, reply }).await
}

/// The arena's fights not yet finished (scheduled or live), each with its start (ms since the
/// epoch).
pub async fn arena_fights(
    world: &WorldSender,
) -> Result<Vec<(wayfarer_sim::ArenaFight, i64)>, NoAnswer> {
    ask(world, |reply| WorldInput::ArenaFights { reply }).await
}

/// Asks the world thread for the units of each item on the ground outside death piles.
pub async fn ground_totals(world: &WorldSender) -> Result<Vec<(String, i64)>, NoAnswer> {
    ask(world, |reply| WorldInput::GroundTotals { reply }).await
}

/// What is around an online player, as the world has it between two ticks.
#[derive(Debug, Clone)]
pub struct Surroundings {
    pub tile: TilePos,
    pub health: i64,
    pub max_health: i64,
    pub inventory: Vec<StoredSlot>,
    /// NPCs, resources, stations and ground items within the radius, nearest first, with their
    /// distance in tiles.
    pub nearby: Vec<(Entity, u32)>,
}

/// Asks the world what is within `radius_tiles` of an online character; `None` when it is not in
/// the world.
pub async fn surroundings(
    world: &WorldSender,
    id: &str,
    radius_tiles: i32,
) -> Result<Option<Box<Surroundings>>, NoAnswer> {
    let id = id.to_owned();
    ask(world, |reply| WorldInput::Surroundings {
        id,
        radius_tiles,
        reply,
    })
    .await
}

/// A private message to another world waiting to be counted (see
/// [`WorldInput::AdmitPrivateElsewhere`]).
pub(super) struct Admission {
    pub id: String,
    pub to: String,
    pub text: String,
    pub reply: oneshot::Sender<Result<String, Option<wayfarer_sim::Refusal>>>,
}

/// Asks the world to count a private message from `id` to `to`, who is in another world, against
/// the sender's chat limits: the cleaned text to send, or the refusal (`None`: held without a
/// notice). `service_unavailable` when the world does not answer.
pub async fn admit_private_elsewhere(
    world: &WorldSender,
    id: &str,
    to: &str,
    text: &str,
) -> Result<Result<String, Option<wayfarer_sim::Refusal>>, NoAnswer> {
    let (id, to, text) = (id.to_owned(), to.to_owned(), text.to_owned());
    ask(world, |reply| WorldInput::AdmitPrivateElsewhere {
        id,
        to,
        text,
        reply,
    })
    .await
}

impl super::Runner {
    /// Counts the private messages to other worlds taken since the last tick, after it.
    pub(super) fn answer_admissions(&mut self) {
        for admission in std::mem::take(&mut self.admissions) {
            let verdict =
                self.world
                    .admit_private_elsewhere(&admission.id, &admission.to, &admission.text);
            let _ = admission.reply.send(verdict);
        }
    }
}
