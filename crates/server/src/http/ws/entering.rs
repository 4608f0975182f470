//! Entering the world: wait for the character's previous session to be saved, load the record, join
//! the world thread and send the first `player:sync`.

use std::time::Duration;

use wayfarer_protocol::ws::{Player, ServerMessage};
use wayfarer_store::{CharacterSnapshot, ContactLists, StoreError};

use crate::http::social;
use crate::http::ws_transport::Socket;
use wayfarer_host::outbound_queue::OutboundSender;
use wayfarer_host::world_thread::WorldInput;

use super::{Connection, SEND_TIMEOUT};

/// How long an entry waits between tries when the store is saturated (the `server_busy` notice
/// says it).
const ENTRY_BUSY_WAIT: Duration = Duration::from_secs(2);
/// How long an entry waits out a saturated store in all before it gives up (closing with 1011
/// as any failed load).
const ENTRY_BUSY_PATIENCE: Duration = Duration::from_secs(60);

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
        let waited_from = std::time::Instant::now();
        let turn = self.state.connections.entry_turn().await;
        record_entry_phase("turn", waited_from);
        if let Some(entering) = self.entering.as_mut() {
            entering.hold(turn);
        }
        // A saturated store (a join wave's logins and the saves over every connection of their
        // pools) is waited out, the player told how long, instead of closing the entry: the
        // entry keeps its turn meanwhile, so those behind it wait too.
        let mut waited = Duration::ZERO;
        let (mut snapshot, session, contacts) = loop {
            match self.load(session_id).await {
                Ok(loaded) => break loaded,
                Err(StoreError::Busy(detail)) if waited < ENTRY_BUSY_PATIENCE => {
                    tracing::warn!(character = %self.character_id, error = %detail, "store saturated: the entry waits");
                    metrics::counter!("ws_entry_busy_waits_total").increment(1);
                    let notice = ServerMessage::error(
                        "server_busy",
                        format!(
                            "the server is busy: you enter in about {} s",
                            ENTRY_BUSY_WAIT.as_secs()
                        ),
                        None,
                    );
                    tokio::time::timeout(SEND_TIMEOUT, socket.send_text(&notice.to_json()))
                        .await??;
                    tokio::time::sleep(ENTRY_BUSY_WAIT).await;
                    waited += ENTRY_BUSY_WAIT;
                }
                Err(err) => return Err(err.into()),
            }
        };
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
        let sending = std::time::Instant::now();
        tokio::time::timeout(
            SEND_TIMEOUT,
            socket.send_text(&ServerMessage::PlayerSync(Box::new(sync)).to_json()),
        )
        .await??;
        record_entry_phase("sync", sending);
        // What the sim needs of the record is built here, off the tick.
        let joining = Box::new(wayfarer_host::character_state::joining(&snapshot, ignored));
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

    /// The entry's reads and its session row: the character's whole record (one read
    /// transaction on one pooled connection, of the entry pool), the session (its id set in
    /// `session_id` as soon as the row exists: the leave names it), and the friends, requests
    /// and ignore list in one read.
    async fn load(
        &self,
        session_id: &mut Option<String>,
    ) -> Result<(CharacterSnapshot, String, ContactLists), StoreError> {
        let store = &self.state.store;
        let reading = std::time::Instant::now();
        let snapshot = store
            .character_snapshot(&self.character_id)
            .await?
            .ok_or_else(|| StoreError::NotFound("the character vanished".into()))?;
        record_entry_phase("record", reading);
        let opening = std::time::Instant::now();
        let session = match session_id {
            Some(open) => open.clone(),
            None => {
                let session = store
                    .sessions()
                    .open(&self.character_id, &self.user_id, Some(&self.address))
                    .await?;
                // The account's last login is written with the session row (`Sessions::open`).
                *session_id = Some(session.clone());
                session
            }
        };
        record_entry_phase("session", opening);
        let reading = std::time::Instant::now();
        let contacts = store.friends().lists(&self.character_id).await?;
        record_entry_phase("contacts", reading);
        Ok((snapshot, session, contacts))
    }

    pub(super) fn initial_sync(&self, snapshot: &CharacterSnapshot) -> Player {
        let c = &snapshot.character;
        wayfarer_host::player_view::player(
            &self.state.content.get().content,
            snapshot,
            wayfarer_protocol::ws::WorldPos {
                x: c.position[0],
                y: c.position[1],
                z: c.position[2],
            },
            Some(wayfarer_host::player_view::tile_of(c.position)),
            true,
        )
    }
}

/// How long an entry spent in one of its steps (`ws_entry_phase_seconds`, by `phase`: the turn,
/// the record's read, the session row, the contacts' read, the first `player:sync`'s send): where
/// a join wave's entries wait shows here first (issue 52).
fn record_entry_phase(phase: &'static str, since: std::time::Instant) {
    metrics::histogram!("ws_entry_phase_seconds", "phase" => phase)
        .record(since.elapsed().as_secs_f64());
}
