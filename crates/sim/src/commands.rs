//! What the server asks of the world: one [`Command`] per player request or server decision, applied in
//! order at the start of a tick.

use wayfarer_protocol::ws::{ChatChannel, TilePos};

/// A request for the world. Commands naming a player who is not in the world are ignored silently
/// (the player may have left earlier in the same tick).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A player enters the world (the server loaded the character). `id` is the character id, also
    /// the entity id on the wire. A blocked or off-map `tile` is replaced by the nearest walkable one.
    /// Joining again with an id already in the world (a new connection for the same character) updates
    /// the player in place and shows the new connection everything in view again.
    Join {
        /// Character id.
        id: String,
        /// Display name.
        name: String,
        /// Where the character was saved.
        tile: TilePos,
        /// Current hit points.
        health: i64,
        /// Maximum hit points.
        max_health: i64,
        /// Lower-cased names this player ignores.
        ignored: Vec<String>,
    },
    /// A player leaves the world; others in view see it `removed`.
    Leave {
        /// Character id.
        id: String,
    },
    /// `player:move`: walk (or run) to a tile.
    Move {
        /// Character id.
        id: String,
        /// Target tile x.
        x: i32,
        /// Target tile z.
        z: i32,
        /// Run (4 tiles a tick) instead of walking (2).
        run: bool,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// Stop walking.
    Stop {
        /// Character id.
        id: String,
    },
    /// Admin `/tp`: place the player on the walkable tile nearest to `tile`.
    Teleport {
        /// Character id.
        id: String,
        /// Destination.
        tile: TilePos,
    },
    /// `player:chat`.
    Chat {
        /// Sender's character id.
        id: String,
        /// `Local`, `Global` or `Private` (`System` is refused with `forbidden`).
        channel: ChatChannel,
        /// The text as sent; trimmed and stripped of control characters here.
        text: String,
        /// Recipient's name (any case), for `Private`.
        to: Option<String>,
        /// Echoed in a rejection.
        reference: Option<u64>,
    },
    /// A message on the `system` channel (admin `/broadcast`, server notices).
    SystemMessage {
        /// Recipient's character id; `None` sends to everyone in the world.
        to: Option<String>,
        /// The text, sent as given.
        text: String,
    },
}

impl Command {
    /// The character the command is about, when it names one.
    pub fn player_id(&self) -> Option<&str> {
        match self {
            Command::Join { id, .. }
            | Command::Leave { id }
            | Command::Move { id, .. }
            | Command::Stop { id }
            | Command::Teleport { id, .. }
            | Command::Chat { id, .. } => Some(id),
            Command::SystemMessage { to, .. } => to.as_deref(),
        }
    }
}
