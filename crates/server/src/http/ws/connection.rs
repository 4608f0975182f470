//! The connection loop: registers the connection, enters the world, then reads frames and writes what
//! the world sends until either side ends it; every socket write and close is bounded in time.

use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use governor::{Quota, RateLimiter};
use serde_json::Value;
use tokio::sync::oneshot;
use wayfarer_protocol::ws::{codes, ServerMessage};
use wayfarer_store::User;

use crate::app::AppState;
use crate::http::social;
use crate::http::ws_transport::{Frames, Incoming, Socket};
use crate::rate_limit::WS_PER_SECOND;
use wayfarer_host::connections::{wait_saved, CloseRequest, FINAL_SAVE_WAIT};
use wayfarer_host::outbound_queue::{self, OutboundReceiver};
use wayfarer_host::world_thread::{Outbound, WorldInput, TOO_SLOW};

use super::input::{Admission, Refs};
use super::{Connection, Flow, ABUSE_LIMIT, CLOSE_TIMEOUT, PING_TIMEOUT, SEND_TIMEOUT};

/// What a bounded socket write came to: a write that did not finish within [`SEND_TIMEOUT`] is a
/// client that stopped reading (1008, as a full outbound queue is); a failed one ends the
/// connection (1011).
pub(super) fn sent<E>(result: Result<Result<(), E>, tokio::time::error::Elapsed>) -> Flow {
    match result {
        Ok(Ok(())) => Flow::Continue,
        Ok(Err(_)) => Flow::Close(1011, "send failed"),
        Err(_) => Flow::Close(1008, TOO_SLOW),
    }
}

/// Sends a close frame, waiting at most [`CLOSE_TIMEOUT`] (the connection ends either way).
/// Callers box it: a timed close is 200 bytes, and an inline await would keep room for it in every
/// connection's task for the whole session.
pub(super) async fn close_socket(socket: &mut Socket, code: u16, reason: &str) {
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, socket.close(code, reason)).await;
}

impl Connection {
    pub(super) fn new(
        state: AppState,
        user: User,
        character_id: String,
        name: String,
        address: String,
        agent_id: Option<Box<str>>,
        entering: wayfarer_host::connections::PendingEntry,
    ) -> Self {
        Connection {
            // The account's admin role is not lent to its agents: an agent token cannot act as
            // the account, and `/admin <code>` is refused on its socket too (`slash`).
            is_admin: agent_id.is_none() && user.has_role(crate::auth::ADMIN_ROLE),
            agent_id,
            entering: Some(entering),
            state,
            user_id: user.id,
            character_id,
            name,
            address,
            limiter: RateLimiter::direct(Quota::per_second(
                NonZeroU32::new(WS_PER_SECOND).unwrap_or(NonZeroU32::MIN),
            )),
            last_limited_notice: None,
            abuse_started: None,
            last_drop: None,
            refs: Refs::default(),
        }
    }

    /// The connection task: registers, enters the world, serves, leaves.
    ///
    /// A plain function returning an `async move` block, not an `async fn`: an `async fn` keeps
    /// each argument twice in its future (the argument as passed and the local it is moved into,
    /// rustc issue 62958), and the `Socket` alone is 328 bytes held for the whole connection.
    /// [`tests::the_connection_task_stays_small`] pins the size.
    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn would keep its arguments twice in its future"
    )]
    pub(super) fn run(
        mut self: Box<Self>,
        mut socket: Socket,
        opener: wayfarer_host::connections::Opener,
    ) -> impl std::future::Future<Output = ()> + Send {
        async move {
            // The registry keeps who opened it: revoking that token closes this connection.
            let registration =
                self.state
                    .connections
                    .register(&self.character_id, &self.name, opener);
            crate::memory_trim::note_connection();
            // One owner of a character's state at every moment: the character is loaded only once the
            // session it replaces has left the world and its final state is written (see
            // docs/architecture.md, "One owner per character").
            if let Some(replaced) = registration.replaced {
                if !wait_saved(replaced).await {
                    tracing::warn!(character = %self.character_id, "the replaced connection's final save was not confirmed: entry refused");
                    metrics::counter!("ws_joins_refused_total").increment(1);
                    Box::pin(close_socket(
                        &mut socket,
                        wayfarer_host::world_thread::CLOSE_TRY_AGAIN,
                        "the previous session is still being saved; try again",
                    ))
                    .await;
                    // `registration.saved` is dropped unsent: a connection that replaced this one
                    // meanwhile is refused as well, since the state is still unconfirmed.
                    self.state
                        .connections
                        .unregister(&self.character_id, registration.connection);
                    return;
                }
            }
            // Several worlds: the character's lease in the shared database is the final word on
            // which world holds it. Taking it asks the world that has the character to save and let
            // it go first (docs/architecture.md, "Several worlds").
            let lease = match self.state.cluster.clone() {
                None => None,
                // Boxed, as `enter` below: its database calls would size every connection's task.
                Some(cluster) => {
                    match Box::pin(cluster.take_lease(&self.state.store, &self.character_id)).await
                    {
                        Ok(token) => Some((cluster, token)),
                        Err(err) => {
                            tracing::warn!(character = %self.character_id, code = err.code(), error = %err, "entry refused: the character's lease is not free");
                            metrics::counter!("ws_joins_refused_total").increment(1);
                            let error =
                                ServerMessage::error(err.code(), err.to_string(), None).to_json();
                            // Boxed, as every rare await here: an inline one would size every
                            // connection's task for the whole session.
                            Box::pin(async {
                                let _ =
                                    tokio::time::timeout(SEND_TIMEOUT, socket.send_text(&error))
                                        .await;
                                close_socket(
                                    &mut socket,
                                    wayfarer_host::world_thread::CLOSE_TRY_AGAIN,
                                    "the character is online in another world; try again",
                                )
                                .await;
                            })
                            .await;
                            // Nothing was loaded: the state a newer connection would load is the one
                            // the previous session saved.
                            let _ = registration.saved.send(());
                            self.state
                                .connections
                                .unregister(&self.character_id, registration.connection);
                            return;
                        }
                    }
                }
            };
            let connection = &mut *self;
            let (outbound_tx, outbound_rx) = outbound_queue::channel();
            let mut session_id = None;
            // Boxed: entering awaits database calls whose futures are large, and an unboxed await would
            // keep room for them in this task for the whole connection (memory per idle player).
            let entered =
                Box::pin(connection.enter(&mut socket, outbound_tx, &mut session_id)).await;
            connection.entering = None;
            let reason = match entered {
                Ok(()) => {
                    metrics::gauge!("ws_connections").increment(1.0);
                    if let Some(agent_id) = &connection.agent_id {
                        // Boxed for the same reason as `enter`.
                        let told = Box::pin(crate::agents::control::entered(
                            &connection.state,
                            agent_id,
                            registration.connection,
                            &connection.character_id,
                        ))
                        .await;
                        if let Err(err) = told {
                            tracing::warn!(agent = %agent_id, error = %err, "agent not told its goal");
                        }
                    }
                    let reason = connection
                        .serve(&mut socket, outbound_rx, registration.close_requests)
                        .await;
                    if let Some(agent_id) = &connection.agent_id {
                        connection
                            .state
                            .agents
                            .hub
                            .disconnected(agent_id, registration.connection);
                    }
                    metrics::gauge!("ws_connections").decrement(1.0);
                    reason
                }
                Err(err) => {
                    tracing::error!(character = %connection.character_id, error = %err, "entering the world failed");
                    Box::pin(close_socket(
                        &mut socket,
                        1011,
                        "could not load the character",
                    ))
                    .await;
                    "load_failed"
                }
            };
            // The socket stays open until the end of this task, after the final save: a client
            // that sees its socket close may read what was saved at once (over REST, or by
            // deleting the character), so the close must come after it.
            // Leave the world: the world takes the player out after the commands this connection sent
            // before, hands the final state to the save task, and reports whether it was written. Only
            // then may a connection that replaces this one load the character.
            let saved = match session_id {
                Some(session_id) => {
                    let (done_tx, done_rx) = oneshot::channel();
                    let sent = connection.state.world_sender.send(WorldInput::Leave {
                        id: connection.character_id.clone(),
                        session_id,
                        reason,
                        done: Some(done_tx),
                    });
                    sent && matches!(
                        tokio::time::timeout(FINAL_SAVE_WAIT, done_rx).await,
                        Ok(Ok(true))
                    )
                }
                // Never had a session, so never entered the world: nothing to save.
                None => true,
            };
            if let Some((cluster, token)) = &lease {
                // After the final save: the next world to take the lease loads what was saved. A
                // save that failed releases it too: the database's last state is what a retry here
                // would load as well.
                Box::pin(cluster.release_lease(
                    &connection.state.store,
                    &connection.character_id,
                    token,
                ))
                .await;
            }
            if saved {
                let _ = registration.saved.send(());
            } else {
                tracing::error!(character = %connection.character_id, reason, "the final save was not confirmed");
            }
            if reason != "load_failed" && reason != "replaced" {
                Box::pin(social::announce(
                    &connection.state,
                    &connection.character_id,
                    &connection.name,
                    false,
                ))
                .await;
            }
            connection
                .state
                .connections
                .unregister(&connection.character_id, registration.connection);
            tracing::info!(
                character = %connection.character_id,
                name = %connection.name,
                address = %connection.address,
                reason,
                "player logged out"
            );
        }
    }

    /// The connection's main loop; returns why it ended.
    ///
    /// Every idle player's task waits here, so what this future holds while waiting is memory per
    /// player: a plain function returning an `async move` block (an `async fn` keeps its
    /// arguments twice), the client's next frame, the outbound queue and the close request waited
    /// on in one `select!`, and every other await either small (a delivery, formatted before it is
    /// awaited; a ping) or boxed when rare (a close) or large (handling a client message).
    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn would keep its arguments twice in its future"
    )]
    pub(super) fn serve<'a>(
        &'a mut self,
        socket: &'a mut Socket,
        mut outbound: OutboundReceiver,
        mut close_requests: oneshot::Receiver<CloseRequest>,
    ) -> impl std::future::Future<Output = &'static str> + Send + 'a {
        async move {
            // A oneshot must not be polled again once it has answered (its sender gone without a
            // request). Shutdown comes this way too (`Connections::shut_down`).
            let mut may_be_closed = true;
            // Liveness: a ping every `WS_PING_SECS`; any frame from the client answers them all, and
            // `WS_MISSED_PONGS` pings in a row with nothing back close the socket (a client that
            // vanished without closing would otherwise hold its place and its character for minutes).
            let mut unanswered: u32 = 0;
            let ping = tokio::time::sleep(self.state.config.connections.ws_ping);
            tokio::pin!(ping);
            loop {
                let flow = tokio::select! {
                    frame = socket.recv() => { unanswered = 0; match frame {
                        // Boxed for the same reason as `enter`: handling may await the database.
                        Incoming::Text(text) => Box::pin(self.on_text(socket, text.as_str())).await,
                        // Boxed: the error reply's future is the largest of this loop's and would
                        // size every idle connection for a message that rarely comes.
                        Incoming::Binary => {
                            Box::pin(self.reply_error(socket, codes::INVALID_MESSAGE, "frames are JSON text", None)).await
                        }
                        Incoming::Control => Flow::Continue,
                        Incoming::Closed => return "logout",
                        Incoming::Error(err) => {
                            tracing::debug!(character = %self.character_id, error = %err, "socket error");
                            return "socket_error";
                        }
                    }},
                    message = outbound.recv() => match message {
                        Some(message) => self.deliver(socket, message).await,
                        None => Flow::Close(1011, "removed from the world"),
                    },
                    () = &mut ping => {
                        let connections = &self.state.config.connections;
                        ping.as_mut().reset(tokio::time::Instant::now() + connections.ws_ping);
                        if unanswered >= connections.ws_missed_pongs {
                            Flow::Close(1008, PING_TIMEOUT)
                        } else {
                            unanswered += 1;
                            // Not boxed: it fits beside the delivery's await, the largest, and
                            // an allocation per ping re-touched pages `malloc_trim` had given
                            // back (10,000 idle players regrew 20-50 MiB of RSS after the trim).
                            sent(tokio::time::timeout(SEND_TIMEOUT, socket.ping()).await)
                        }
                    }
                    request = &mut close_requests, if may_be_closed => match request {
                        Ok(CloseRequest { code, reason }) => Flow::Close(code, reason),
                        Err(_) => {
                            may_be_closed = false;
                            Flow::Continue
                        }
                    },
                };
                if let Flow::Close(code, reason) = flow {
                    Box::pin(close_socket(socket, code, reason)).await;
                    return match code {
                        wayfarer_host::connections::CLOSE_REPLACED => "replaced",
                        wayfarer_host::connections::CLOSE_KICKED => "kicked",
                        wayfarer_host::connections::CLOSE_BANNED => "banned",
                        1001 => "shutdown",
                        1008 if reason == TOO_SLOW => "slow_client",
                        1008 if reason == PING_TIMEOUT => "ping_timeout",
                        1008 => "policy",
                        _ => "closed",
                    };
                }
            }
        }
    }

    pub(super) async fn send(&self, socket: &mut Socket, message: &ServerMessage) -> Flow {
        sent(tokio::time::timeout(SEND_TIMEOUT, socket.send_text(&message.to_json())).await)
    }

    pub(super) async fn reply_error(
        &self,
        socket: &mut Socket,
        code: &str,
        message: &str,
        reference: Option<Value>,
    ) -> Flow {
        self.send(socket, &ServerMessage::error(code, message, reference))
            .await
    }

    /// Writes what the world sent (one message, or a tick's batch) with one write; a close in it
    /// ends the connection after what came before it. The frames are formatted when this is
    /// called, so the future holds only them and the write (it is part of every idle player's
    /// task, see [`Self::serve`]).
    pub(super) fn deliver<'a>(
        &'a mut self,
        socket: &'a mut Socket,
        message: Outbound,
    ) -> impl std::future::Future<Output = Flow> + Send + 'a {
        let timing = match &message {
            Outbound::Reply {
                asked_at,
                tick_wait,
                ..
            } => Some((*asked_at, *tick_wait)),
            _ => None,
        };
        let mut frames = Frames::default();
        let close = self.format(&mut frames, message);
        async move {
            if let Flow::Close(code, reason) =
                sent(tokio::time::timeout(SEND_TIMEOUT, socket.send(frames)).await)
            {
                return Flow::Close(code, reason);
            }
            if let Some((asked_at, tick_wait)) = timing {
                self.state
                    .world
                    .record_sync_reply(asked_at.elapsed(), tick_wait);
            }
            match close {
                Some((code, reason)) => Flow::Close(code, reason),
                None => Flow::Continue,
            }
        }
    }

    /// Appends `message` to `frames`; returns the close it asks for, if any (what follows is dropped).
    pub(super) fn format(
        &mut self,
        frames: &mut Frames,
        message: Outbound,
    ) -> Option<(u16, &'static str)> {
        match message {
            Outbound::Message(message) => match self.with_client_ref(&message) {
                Some(text) => frames.push(&text),
                // Encoded straight into the frame: no `String` per message (a crowd's
                // `world:update` is most of what the server encodes).
                None => frames.push_with(|buf| message.write_json(buf)),
            },
            Outbound::Reply { message, .. } => frames.push_with(|buf| message.write_json(buf)),
            Outbound::Text(text) => frames.push(&text),
            Outbound::Picks { texts, picks } => {
                for text in picks.iter().filter_map(|&i| texts.get(i as usize)) {
                    frames.push(text);
                }
            }
            Outbound::Close(code, reason) => return Some((code, reason)),
            Outbound::Batch(batch) => {
                for message in batch {
                    if let Some(close) = self.format(frames, message) {
                        return Some(close);
                    }
                }
            }
        }
        None
    }

    /// An error from the world that carries the id of a remembered `ref`, as JSON with the
    /// client's own `ref` restored; `None` for every other message, which is sent as it is. (Errors
    /// are rare, so they keep the plain `String` path.)
    pub(super) fn with_client_ref(&mut self, message: &ServerMessage) -> Option<String> {
        if let ServerMessage::Error(error) = message {
            if let Some(Value::Number(n)) = &error.reference {
                let mut error = error.clone();
                error.reference = n.as_u64().and_then(|id| self.refs.take(id));
                return Some(ServerMessage::Error(error).to_json());
            }
        }
        if let ServerMessage::TradeError(error) = message {
            if let Some(Value::Number(n)) = &error.reference {
                let mut error = error.clone();
                error.reference = n.as_u64().and_then(|id| self.refs.take(id));
                return Some(ServerMessage::TradeError(error).to_json());
            }
        }
        if let ServerMessage::DuelError(error) = message {
            if let Some(Value::Number(n)) = &error.reference {
                let mut error = error.clone();
                error.reference = n.as_u64().and_then(|id| self.refs.take(id));
                return Some(ServerMessage::DuelError(error).to_json());
            }
        }
        None
    }

    /// What the rate limit makes of the next frame: dropped ones are counted, and told of at most
    /// once a second; `Err` closes a connection that has kept over the limit for too long.
    pub(super) fn admission(&mut self) -> Result<Admission, Flow> {
        if self.admit()? {
            metrics::counter!("ws_messages_in_total").increment(1);
            return Ok(Admission::Admitted);
        }
        metrics::counter!("ws_messages_dropped_total").increment(1);
        let due = self
            .last_limited_notice
            .is_none_or(|at| at.elapsed() >= Duration::from_secs(1));
        if !due {
            return Ok(Admission::Dropped);
        }
        self.last_limited_notice = Some(Instant::now());
        Ok(Admission::DroppedWithNotice)
    }

    /// Counts one message against 60 a second; `false` means drop it.
    pub(super) fn admit(&mut self) -> Result<bool, Flow> {
        // `DISABLE_RATE_LIMIT` (development and test only) switches this limit off too.
        if self.state.limits.disabled {
            return Ok(true);
        }
        let now = Instant::now();
        if self.limiter.check().is_ok() {
            // A full second without drops ends an abuse streak.
            if self
                .last_drop
                .is_some_and(|d| now - d > Duration::from_secs(1))
            {
                self.abuse_started = None;
            }
            return Ok(true);
        }
        self.last_drop = Some(now);
        let started = *self.abuse_started.get_or_insert(now);
        if now - started > ABUSE_LIMIT {
            return Err(Flow::Close(1008, "message rate exceeded for too long"));
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of what `f` returns, without calling it.
    fn returned_size<A, B, C, R>(_: fn(A, B, C) -> R) -> usize {
        std::mem::size_of::<R>()
    }

    /// Every idle player holds one connection task for its whole session: its future must not
    /// silently regrow (BENCHMARKS.md, "10,000 idle connected players"). The bound is the size
    /// measured when it was set (1,744 bytes before the cuts it guards; the same in debug and
    /// release builds, the layout being decided before optimisation).
    #[test]
    fn the_connection_task_stays_small() {
        let run = returned_size(Connection::run as fn(Box<Connection>, Socket, _) -> _);
        assert!(run <= 1_152, "the connection task's future is {run} bytes");
    }
}
