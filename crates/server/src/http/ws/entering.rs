//! Entering the world: wait for the character's previous session to be saved, load the record, join
//! the world thread and send the first `player:sync`.

use wayfarer_protocol::ws::{Player, ServerMessage};
use wayfarer_store::CharacterSnapshot;

use crate::http::social;
use crate::http::ws_transport::Socket;
use crate::outbound_queue::OutboundSender;
use crate::world_thread::WorldInput;

use super::{Connection, SEND_TIMEOUT};

impl Connection {
    /// Loads the character, opens its session, sends `player:sync` and joins the world.
    /// `session_id` is set as soon as the session row exists: the leave names it, so that only the
    /// session that entered takes the character out of the world.
    pub(super) async fn enter(
        &mut self,
        socket: &mut Socket,
        outbound: OutboundSender,
        session_id: &mut Option<String>,
    ) -> anyhow::Result<()> {
        // The loading takes turns with the other entries (`connections::ENTRIES_AT_ONCE`): the
        // turn is held until the entry is dropped, once this has returned. Taken here, after the
        // wait for the replaced session's save, which needs no turn. (Turns taken before the
        // token's checks instead, in the HTTP request, brought the first players back sooner but
        // the last ones 6 s later, in a 10,000-player reconnect.)
        let turn = self.state.connections.entry_turn().await;
        if let Some(entering) = self.entering.as_mut() {
            entering.hold(turn);
        }
        let store = &self.state.store;
        // The whole record in one read transaction on one pooled connection.
        let mut snapshot = store
            .character_snapshot(&self.character_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("character vanished"))?;
        let session = store
            .sessions()
            .open(&self.character_id, &self.user_id, Some(&self.address))
            .await?;
        // The account's last login is written with the session row (`Sessions::open`).
        *session_id = Some(session.clone());
        // Friends, requests and the ignore list in one read: the sim takes the ignored names,
        // the rest is the `friend:list` sent after the join.
        let contacts = store.friends().lists(&self.character_id).await?;
        let ignored = contacts
            .ignored
            .iter()
            .map(|c| c.name.to_lowercase())
            .collect();
        // The world keeps this record for the whole session, and rows collected from the database
        // have room to spare (16 inventory rows for a starter's 7: 360 bytes a player).
        snapshot.inventory.shrink_to_fit();
        snapshot.equipment.shrink_to_fit();
        snapshot.bank.shrink_to_fit();
        let sync = self.initial_sync(&snapshot);
        tokio::time::timeout(
            SEND_TIMEOUT,
            socket.send_text(&ServerMessage::PlayerSync(Box::new(sync)).to_json()),
        )
        .await??;
        // What the sim needs of the record is built here, off the tick.
        let joining = Box::new(crate::character_state::joining(&snapshot, ignored));
        let joined = self.state.world_sender.send(WorldInput::Join {
            snapshot: Box::new(snapshot),
            joining,
            session_id: session,
            outbound,
        });
        if !joined {
            anyhow::bail!("the world is not accepting players");
        }
        // After player:sync and the first world:update (notices follow the next tick's events).
        social::entered(&self.state, &self.character_id, &self.name, contacts).await;
        tracing::info!(
            character = %self.character_id,
            name = %self.name,
            address = %self.address,
            "player logged in"
        );
        Ok(())
    }

    pub(super) fn initial_sync(&self, snapshot: &CharacterSnapshot) -> Player {
        let c = &snapshot.character;
        crate::player_view::player(
            &self.state.content.get().content,
            snapshot,
            wayfarer_protocol::ws::WorldPos {
                x: c.position[0],
                y: c.position[1],
                z: c.position[2],
            },
            Some(crate::player_view::tile_of(c.position)),
            true,
        )
    }
}
