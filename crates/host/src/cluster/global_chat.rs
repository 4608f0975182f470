//! Global chat across worlds (`CROSS_WORLD_GLOBAL_CHAT`, issue 19 point 3).
//!
//! A global line is checked where it is said: the sender's world's game accepts it (text,
//! whatever limits the sim applies; the connection's message rate limit came first) and delivers
//! it there as always. The world thread then hands the accepted line, stamped with this world's
//! id, to [`relay_loop`], which publishes it on [`SUBJECT_GLOBAL_CHAT`]. Every other world hands
//! what it hears to its sim (`Command::RelayedGlobalChat`), which delivers it to everyone there
//! except those ignoring the sender. The world thread never waits on NATS: the queue between them
//! is bounded and a line it cannot take is reported like one NATS refused.
//!
//! NATS down: the line still reaches this world, and its sender gets one `error
//! {code:"cross_world_unavailable"}` for it (no `ref`: the line was accepted, only its relay
//! failed). NATS carries it at most once, so a world not subscribed at that moment misses it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use wayfarer_protocol::ws::{codes, ChatMessage, ServerMessage};
use wayfarer_sim::Command;

use super::{Cluster, ClusterSettings, HostHandles};
use crate::world_thread::WorldInput;

/// Where every world publishes its global lines and hears the others'.
pub const SUBJECT_GLOBAL_CHAT: &str = "wayfarer.chat.global";
/// Lines accepted and not yet published. A full queue means NATS is not keeping up: the line
/// stays local and its sender is told, rather than the world thread waiting.
const RELAY_QUEUE: usize = 4096;

/// The world thread's end of the relay: hands over the global lines this world's game accepted.
#[derive(Clone)]
pub struct GlobalChatRelay {
    world_id: i64,
    lines: mpsc::Sender<ChatMessage>,
}

/// The relay task's end.
pub struct RelayLines(mpsc::Receiver<ChatMessage>);

/// The relay's two ends when `CROSS_WORLD_GLOBAL_CHAT` is on, else `None`.
pub fn relay(settings: &ClusterSettings) -> Option<(GlobalChatRelay, RelayLines)> {
    if !settings.global_chat {
        return None;
    }
    let (lines, receiver) = mpsc::channel(RELAY_QUEUE);
    Some((
        GlobalChatRelay {
            world_id: settings.me.id,
            lines,
        },
        RelayLines(receiver),
    ))
}

impl GlobalChatRelay {
    /// This world's id, which its global lines carry.
    pub fn world_id(&self) -> i64 {
        self.world_id
    }

    /// Queues a line for the other worlds without waiting; `false` when it cannot be queued.
    pub fn offer(&self, line: ChatMessage) -> bool {
        self.lines.try_send(line).is_ok()
    }
}

/// The error a sender gets for a global line that reached this world only.
pub fn unrelayed() -> Arc<ServerMessage> {
    Arc::new(ServerMessage::error(
        codes::CROSS_WORLD_UNAVAILABLE,
        "your global message reached this world only: the other worlds cannot be reached right now",
        None,
    ))
}

/// A global line on the wire between worlds.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RelayedLine {
    from_world: i64,
    message: ChatMessage,
}

/// Publishes each queued line; a line NATS does not take earns its sender one
/// `cross_world_unavailable`.
pub(super) async fn relay_loop(cluster: Arc<Cluster>, host: HostHandles, mut lines: RelayLines) {
    while let Some(message) = lines.0.recv().await {
        let sender = message.from_id.clone();
        let published = match serde_json::to_vec(&RelayedLine {
            from_world: cluster.world_id,
            message,
        }) {
            Ok(payload) => cluster
                .publish(SUBJECT_GLOBAL_CHAT.to_owned(), payload)
                .await
                .is_ok(),
            Err(_) => false,
        };
        if published {
            metrics::counter!("cross_world_global_lines_total", "outcome" => "relayed")
                .increment(1);
        } else {
            metrics::counter!("cross_world_global_lines_total", "outcome" => "unavailable")
                .increment(1);
            tracing::debug!(
                character = %sender,
                "global line kept to this world: NATS unavailable"
            );
            host.world.send(WorldInput::Notify {
                to: vec![sender],
                message: unrelayed(),
            });
        }
    }
}

/// A line heard from NATS: another world's goes to this world's game; this world's own echo is
/// dropped (it was delivered here when said).
pub(super) fn heard(cluster: &Cluster, host: &HostHandles, payload: &[u8]) {
    let line = match serde_json::from_slice::<RelayedLine>(payload) {
        Ok(line) => line,
        Err(err) => {
            tracing::warn!(error = %err, "bad global line from another world");
            return;
        }
    };
    if line.from_world == cluster.world_id {
        return;
    }
    let message = ChatMessage {
        world: Some(line.from_world),
        ..line.message
    };
    if !host
        .world
        .send(WorldInput::Sim(Command::RelayedGlobalChat { message }))
    {
        tracing::warn!(
            from_world = line.from_world,
            "global line from another world dropped: the world's queue is full"
        );
    }
}
