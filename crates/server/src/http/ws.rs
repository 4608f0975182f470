//! `GET /ws`: the game channel (CONTRACT.md section 3). The token is checked before the upgrade; then
//! one task per connection reads frames (bad input is answered with `error` and the connection kept),
//! enforces 60 messages a second, forwards commands to the world thread and writes what the world sends.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::oneshot;
use wayfarer_protocol::ws::{
    codes, ChatChannel, ClientMessage, ParseError, Player, ServerMessage, MAX_FRAME_BYTES,
};
use wayfarer_protocol::ErrorCode;
use wayfarer_sim::{Action, Command, TradeCommand};

use super::social::{self, SocialRequest};
use super::ws_transport::{Frames, Incoming, NotAnUpgrade, Socket, Upgrade};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use wayfarer_store::{CharacterSnapshot, User};

use crate::app::AppState;
use crate::auth::bearer_token;
use crate::connections::{wait_saved, CloseRequest, FINAL_SAVE_WAIT};
use crate::http::error::ApiError;
use crate::outbound_queue::{self, OutboundReceiver, OutboundSender};
use crate::rate_limit::WS_PER_SECOND;
use crate::world_thread::{Outbound, WorldInput, TOO_SLOW};

/// Frames above this are a protocol violation and end the connection; between `MAX_FRAME_BYTES` and
/// this they are answered with `message_too_large`.
const HARD_FRAME_LIMIT: usize = 64 * 1024;
/// Sustained abuse of the message rate for this long closes the connection (1008).
const ABUSE_LIMIT: Duration = Duration::from_secs(10);
/// Longest wait for a socket write or close: a client that stops reading must not hold up its
/// connection's leave (and so the final save a replacing connection waits for).
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for sending a close frame.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);
/// Client refs remembered for echoing in errors that come back from the world.
const REMEMBERED_REFS: usize = 256;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WsQuery {
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    character_id: Option<String>,
}

/// `GET /ws`.
pub async fn upgrade(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Query(query): Query<WsQuery>,
    headers: HeaderMap,
    upgrade: Result<Upgrade, NotAnUpgrade>,
) -> Result<Response, ApiError> {
    let token = match query.token.as_deref().filter(|t| !t.is_empty()) {
        Some(token) => token,
        None => bearer_token(&headers)?,
    };
    let user = crate::auth::authenticate(&state, token).await?.user;
    let characters = state.store.characters().list_for_account(&user.id).await?;
    let character = match &query.character_id {
        Some(id) => characters
            .iter()
            .find(|c| &c.id == id)
            .ok_or_else(|| ApiError::not_found("no such character on this account"))?,
        None => user
            .active_character_id
            .as_ref()
            .and_then(|id| characters.iter().find(|c| &c.id == id))
            .or_else(|| characters.first())
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::Conflict,
                    "create a character before entering the world",
                )
            })?,
    };
    // Checked after the token, so a bad token is reported first.
    let upgrade = upgrade?;
    let address = state
        .config
        .trusted_proxies
        .client_ip(peer, &headers)
        .to_string();
    let character_id = character.id.clone();
    let name = character.name.clone();
    // Write size 0: every frame goes to the socket as it is written (see ws_transport). Read size
    // 512: every connection holds its read buffer for its whole life, client messages are a few
    // hundred bytes, and a longer frame makes the buffer grow for it.
    let config = WebSocketConfig::default()
        .read_buffer_size(512)
        .write_buffer_size(0)
        .max_message_size(Some(HARD_FRAME_LIMIT))
        .max_frame_size(Some(HARD_FRAME_LIMIT));
    // The connection is boxed and its `run` future is the task's own future, so an idle player's
    // task holds each of these once. Passed by value through the callback and an `async move`
    // block, they had a moved-from copy in each layer of the task's future: the task was 3,840
    // bytes, now 1,536 plus this 520-byte box (heaptrack, 3,000 idle players).
    let connection = Box::new(Connection::new(state, user, character_id, name, address));
    Ok(upgrade.accept(config, move |socket| connection.run(socket)))
}

/// One player's socket.
struct Connection {
    state: AppState,
    /// The account's id: all a connection needs of the account once it is checked (the whole
    /// record would stay in memory for the session).
    user_id: String,
    character_id: String,
    name: String,
    address: String,
    is_admin: bool,
    limiter: DefaultDirectRateLimiter,
    last_limited_notice: Option<Instant>,
    abuse_started: Option<Instant>,
    last_drop: Option<Instant>,
    refs: VecDeque<(u64, Value)>,
    next_ref: u64,
}

enum Flow {
    Continue,
    Close(u16, &'static str),
}

impl Connection {
    fn new(
        state: AppState,
        user: User,
        character_id: String,
        name: String,
        address: String,
    ) -> Self {
        Connection {
            is_admin: user.has_role(crate::auth::ADMIN_ROLE),
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
            refs: VecDeque::new(),
            next_ref: 0,
        }
    }

    async fn run(mut self: Box<Self>, mut socket: Socket) {
        let registration = self
            .state
            .connections
            .register(&self.character_id, &self.name);
        // One owner of a character's state at every moment: the character is loaded only once the
        // session it replaces has left the world and its final state is written (see
        // docs/architecture.md, "One owner per character").
        if let Some(replaced) = registration.replaced {
            if !wait_saved(replaced).await {
                tracing::warn!(character = %self.character_id, "the replaced connection's final save was not confirmed: entry refused");
                metrics::counter!("ws_joins_refused_total").increment(1);
                let _ = tokio::time::timeout(
                    CLOSE_TIMEOUT,
                    socket.close(
                        crate::world_thread::CLOSE_TRY_AGAIN,
                        "the previous session is still being saved; try again",
                    ),
                )
                .await;
                // `registration.saved` is dropped unsent: a connection that replaced this one
                // meanwhile is refused as well, since the state is still unconfirmed.
                self.state
                    .connections
                    .unregister(&self.character_id, registration.connection);
                return;
            }
        }
        let connection = &mut *self;
        let (outbound_tx, outbound_rx) = outbound_queue::channel();
        let mut session_id = None;
        // Boxed: entering awaits database calls whose futures are large, and an unboxed await would
        // keep room for them in this task for the whole connection (memory per idle player).
        let entered = Box::pin(connection.enter(&mut socket, outbound_tx, &mut session_id)).await;
        let reason = match entered {
            Ok(()) => {
                metrics::gauge!("ws_connections").increment(1.0);
                let reason = connection
                    .serve(&mut socket, outbound_rx, registration.close_requests)
                    .await;
                metrics::gauge!("ws_connections").decrement(1.0);
                reason
            }
            Err(err) => {
                tracing::error!(character = %connection.character_id, error = %err, "entering the world failed");
                let _ = tokio::time::timeout(
                    CLOSE_TIMEOUT,
                    socket.close(1011, "could not load the character"),
                )
                .await;
                "load_failed"
            }
        };
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

    /// Loads the character, opens its session, sends `player:sync` and joins the world.
    /// `session_id` is set as soon as the session row exists: the leave names it, so that only the
    /// session that entered takes the character out of the world.
    async fn enter(
        &mut self,
        socket: &mut Socket,
        outbound: OutboundSender,
        session_id: &mut Option<String>,
    ) -> anyhow::Result<()> {
        let store = &self.state.store;
        let character = store
            .characters()
            .get(&self.character_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("character vanished"))?;
        let inventory = store.inventories().get(&self.character_id).await?;
        let equipment = store.inventories().equipment(&self.character_id).await?;
        let bank = store.inventories().bank(&self.character_id).await?;
        let quests = store.quests().list(&self.character_id).await?;
        let session = store
            .sessions()
            .open(&self.character_id, &self.user_id, Some(&self.address))
            .await?;
        *session_id = Some(session.clone());
        store.users().touch_login(&self.user_id).await?;
        let ignored = store.ignores().names(&self.character_id).await?;
        let mut snapshot = CharacterSnapshot {
            character,
            inventory,
            equipment,
            bank,
            quests,
            xp_reached_at: Default::default(),
        };
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
        let joined = self.state.world_sender.send(WorldInput::Join {
            snapshot: Box::new(snapshot),
            session_id: session,
            ignored,
            outbound,
        });
        if !joined {
            anyhow::bail!("the world is not accepting players");
        }
        // After player:sync and the first world:update (notices follow the next tick's events).
        if let Err(refusal) = social::push_list(&self.state, &self.character_id).await {
            tracing::warn!(character = %self.character_id, reason = %refusal.message, "friends list not sent");
        }
        social::announce(&self.state, &self.character_id, &self.name, true).await;
        tracing::info!(
            character = %self.character_id,
            name = %self.name,
            address = %self.address,
            "player logged in"
        );
        Ok(())
    }

    fn initial_sync(&self, snapshot: &CharacterSnapshot) -> Player {
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

    /// The connection's main loop; returns why it ended.
    async fn serve(
        &mut self,
        socket: &mut Socket,
        mut outbound: OutboundReceiver,
        mut close_requests: oneshot::Receiver<CloseRequest>,
    ) -> &'static str {
        let mut shutdown = self.state.shutdown.clone();
        // A oneshot must not be polled again once it has answered (its sender gone without a request).
        let mut may_be_closed = true;
        loop {
            let flow = tokio::select! {
                frame = socket.recv() => match frame {
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
                },
                message = outbound.recv() => match message {
                    Some(message) => self.deliver(socket, message).await,
                    None => Flow::Close(1011, "removed from the world"),
                },
                request = &mut close_requests, if may_be_closed => match request {
                    Ok(CloseRequest { code, reason }) => Flow::Close(code, reason),
                    Err(_) => {
                        may_be_closed = false;
                        Flow::Continue
                    }
                },
                // The watch guard is dropped inside the block: it must not live across the select.
                () = async { let _ = shutdown.wait_for(|stopping| *stopping).await; } => {
                    Flow::Close(1001, "server shutting down")
                }
            };
            if let Flow::Close(code, reason) = flow {
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, socket.close(code, reason)).await;
                return match code {
                    crate::connections::CLOSE_REPLACED => "replaced",
                    crate::connections::CLOSE_KICKED => "kicked",
                    crate::connections::CLOSE_BANNED => "banned",
                    1001 => "shutdown",
                    1008 if reason == TOO_SLOW => "slow_client",
                    1008 => "policy",
                    _ => "closed",
                };
            }
        }
    }

    async fn send(&self, socket: &mut Socket, message: &ServerMessage) -> Flow {
        sent(tokio::time::timeout(SEND_TIMEOUT, socket.send_text(&message.to_json())).await)
    }

    async fn reply_error(
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
    /// ends the connection after what came before it.
    async fn deliver(&mut self, socket: &mut Socket, message: Outbound) -> Flow {
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

    /// Appends `message` to `frames`; returns the close it asks for, if any (what follows is dropped).
    fn format(&mut self, frames: &mut Frames, message: Outbound) -> Option<(u16, &'static str)> {
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
    fn with_client_ref(&mut self, message: &ServerMessage) -> Option<String> {
        if let ServerMessage::Error(error) = message {
            if let Some(Value::Number(n)) = &error.reference {
                let mut error = error.clone();
                error.reference = n.as_u64().and_then(|id| self.take_ref(id));
                return Some(ServerMessage::Error(error).to_json());
            }
        }
        if let ServerMessage::TradeError(error) = message {
            if let Some(Value::Number(n)) = &error.reference {
                let mut error = error.clone();
                error.reference = n.as_u64().and_then(|id| self.take_ref(id));
                return Some(ServerMessage::TradeError(error).to_json());
            }
        }
        None
    }

    fn remember_ref(&mut self, reference: Option<Value>) -> Option<u64> {
        let reference = reference?;
        let id = self.next_ref;
        self.next_ref += 1;
        if self.refs.len() == REMEMBERED_REFS {
            self.refs.pop_front();
        }
        self.refs.push_back((id, reference));
        Some(id)
    }

    fn take_ref(&mut self, id: u64) -> Option<Value> {
        let at = self.refs.iter().position(|(i, _)| *i == id)?;
        self.refs.remove(at).map(|(_, v)| v)
    }

    /// Counts one message against 60 a second; `false` means drop it.
    fn admit(&mut self) -> Result<bool, Flow> {
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

    async fn on_text(&mut self, socket: &mut Socket, text: &str) -> Flow {
        match self.admit() {
            Err(flow) => return flow,
            Ok(false) => {
                metrics::counter!("ws_messages_dropped_total").increment(1);
                let due = self
                    .last_limited_notice
                    .is_none_or(|at| at.elapsed() >= Duration::from_secs(1));
                if due {
                    self.last_limited_notice = Some(Instant::now());
                    // A dropped trade message is answered as the trade contract says: tradeError.
                    if let Some((trade_id, reference)) = trade_frame(text) {
                        let error = wayfarer_protocol::trade::TradeError {
                            code: codes::RATE_LIMITED.to_owned(),
                            message: "more than 60 messages a second; messages dropped".into(),
                            trade_id,
                            reference,
                        };
                        return self.send(socket, &ServerMessage::TradeError(error)).await;
                    }
                    return self
                        .reply_error(
                            socket,
                            codes::RATE_LIMITED,
                            "more than 60 messages a second; messages dropped",
                            None,
                        )
                        .await;
                }
                return Flow::Continue;
            }
            Ok(true) => {}
        }
        metrics::counter!("ws_messages_in_total").increment(1);
        if text.len() > MAX_FRAME_BYTES {
            return self
                .reply_error(
                    socket,
                    codes::MESSAGE_TOO_LARGE,
                    "frames are limited to 16 KiB",
                    None,
                )
                .await;
        }
        let (parsed, reference) = ClientMessage::parse(text);
        let message = match parsed {
            Ok(m) => m,
            Err(err) => {
                return self
                    .reply_error(socket, err.code, &err.message, reference)
                    .await
            }
        };
        let social = match &message {
            ClientMessage::FriendRequest(r) => Some(SocialRequest::Request(r.name.clone())),
            ClientMessage::FriendRespond(r) => Some(SocialRequest::Respond {
                name: r.name.clone(),
                accept: r.accept,
            }),
            ClientMessage::FriendRemove(r) => Some(SocialRequest::Remove(r.name.clone())),
            ClientMessage::IgnoreAdd(r) => Some(SocialRequest::Ignore(r.name.clone())),
            ClientMessage::IgnoreRemove(r) => Some(SocialRequest::Unignore(r.name.clone())),
            ClientMessage::FriendList => Some(SocialRequest::List),
            _ => None,
        };
        if let Some(request) = social {
            let me = social::Me {
                id: &self.character_id,
                name: &self.name,
            };
            return match social::handle(&self.state, me, request).await {
                Ok(()) => Flow::Continue,
                Err(refusal) => {
                    self.reply_error(socket, refusal.code, &refusal.message, reference)
                        .await
                }
            };
        }
        let id = self.character_id.clone();
        if let Some(request) = super::bank_shop::request(&message) {
            let input = match request {
                Ok(request) => WorldInput::Sim(request.command(id, self.remember_ref(reference))),
                Err(err) => {
                    return self
                        .reply_error(socket, err.code, &err.message, reference)
                        .await
                }
            };
            if !self.state.world_sender.send(input) {
                return self
                    .reply_error(socket, "server_busy", "the world is busy; try again", None)
                    .await;
            }
            return Flow::Continue;
        }
        let input = match message {
            ClientMessage::FriendRequest(_)
            | ClientMessage::FriendRespond(_)
            | ClientMessage::FriendRemove(_)
            | ClientMessage::IgnoreAdd(_)
            | ClientMessage::IgnoreRemove(_)
            | ClientMessage::FriendList
            | ClientMessage::BankOpen
            | ClientMessage::BankDeposit(_)
            | ClientMessage::BankWithdraw(_)
            | ClientMessage::ShopBuy(_)
            | ClientMessage::ShopSell(_)
            | ClientMessage::ShopClose => return Flow::Continue,
            ClientMessage::Sync => WorldInput::Sync {
                id,
                asked_at: std::time::Instant::now(),
            },
            ClientMessage::TradeRequest(m) => self.trade(
                id,
                TradeCommand::Request {
                    target: m.target_player_id,
                },
                reference,
            ),
            ClientMessage::TradeRequestRespond(m) => self.trade(
                id,
                TradeCommand::Respond {
                    trade_id: m.trade_id,
                    accept: m.accept,
                },
                reference,
            ),
            ClientMessage::TradeAddItem(m) => match m.inventory_slot.index() {
                Ok(slot) => self.trade(
                    id,
                    TradeCommand::AddItem {
                        trade_id: m.trade_id,
                        slot: slot as i64,
                        quantity: m.quantity,
                    },
                    reference,
                ),
                Err(err) => return self.refuse_slot(socket, err, m.trade_id, reference).await,
            },
            ClientMessage::TradeRemoveItem(m) => match m.inventory_slot.index() {
                Ok(slot) => self.trade(
                    id,
                    TradeCommand::RemoveItem {
                        trade_id: m.trade_id,
                        slot: slot as i64,
                    },
                    reference,
                ),
                Err(err) => return self.refuse_slot(socket, err, m.trade_id, reference).await,
            },
            ClientMessage::TradeAccept(m) => self.trade(
                id,
                TradeCommand::Accept {
                    trade_id: m.trade_id,
                },
                reference,
            ),
            ClientMessage::TradeCancel(m) => self.trade(
                id,
                TradeCommand::Cancel {
                    trade_id: m.trade_id,
                },
                reference,
            ),
            ClientMessage::DialogueRespond(m) => WorldInput::Sim(Command::DialogueRespond {
                id,
                npc_id: m.npc_id,
                index: m.index,
                reference: self.remember_ref(reference),
            }),
            ClientMessage::DialogueClose(m) => WorldInput::Sim(Command::DialogueClose {
                id,
                npc_id: m.npc_id.unwrap_or_default(),
                reference: self.remember_ref(reference),
            }),
            ClientMessage::QuestList => WorldInput::Sim(Command::QuestList { id }),
            ClientMessage::Use(request) if request.skill.is_some() => {
                let skill_name = request.skill.as_deref().unwrap_or_default();
                let Some(skill) = wayfarer_protocol::Skill::parse(skill_name) else {
                    return self
                        .reply_error(
                            socket,
                            codes::INVALID_MESSAGE,
                            &format!("{skill_name:?} is not a skill"),
                            reference,
                        )
                        .await;
                };
                match request.slot.index() {
                    Ok(slot) => WorldInput::Sim(Command::RubLamp {
                        id,
                        slot,
                        skill,
                        reference: self.remember_ref(reference),
                    }),
                    Err(err) => {
                        return self
                            .reply_error(socket, err.code, &err.message, reference)
                            .await
                    }
                }
            }
            ClientMessage::PrayerToggle(m) => WorldInput::Sim(Command::Prayer {
                id,
                prayer_id: m.prayer_id,
                active: m.active,
                reference: self.remember_ref(reference),
            }),
            ClientMessage::Move(m) => WorldInput::Sim(Command::Move {
                id,
                x: m.x,
                z: m.z,
                run: m.run,
                reference: self.remember_ref(reference),
            }),
            ClientMessage::Chat(chat) if chat.text.trim_start().starts_with('/') => {
                return self
                    .slash_command(socket, chat.text.trim(), reference)
                    .await;
            }
            ClientMessage::Chat(chat) => {
                let channel = chat.channel.unwrap_or(ChatChannel::Local);
                if channel == ChatChannel::System {
                    return self
                        .reply_error(
                            socket,
                            codes::INVALID_MESSAGE,
                            "players cannot send on the system channel",
                            reference,
                        )
                        .await;
                }
                if channel == ChatChannel::Private && chat.to.as_deref().is_none_or(str::is_empty) {
                    return self
                        .reply_error(
                            socket,
                            codes::INVALID_MESSAGE,
                            "private messages need `to`",
                            reference,
                        )
                        .await;
                }
                WorldInput::Sim(Command::Chat {
                    id,
                    channel,
                    text: chat.text,
                    to: chat.to,
                    reference: self.remember_ref(reference),
                })
            }
            // The sim reads `slot` by the protocol's one slot rule (`inventory_slot`), except
            // for `unequip`, whose `slot` names an equipment slot.
            ClientMessage::Action(request) => match Action::from_request(&request) {
                Ok(action) => WorldInput::Sim(Command::Action {
                    id,
                    action,
                    reference: self.remember_ref(reference),
                }),
                Err(err) => {
                    return self
                        .reply_error(socket, err.code, &err.message, reference)
                        .await
                }
            },
            ClientMessage::Use(request) => {
                let slot = request.slot.index();
                let target_slot = request.target_slot.map(|s| s.index()).transpose();
                match (slot, target_slot) {
                    (Ok(slot), Ok(target_slot)) => WorldInput::Sim(Command::UseItem {
                        id,
                        slot,
                        target_slot,
                        target_id: request.target_id.filter(|t| !t.is_empty()),
                        reference: self.remember_ref(reference),
                    }),
                    (Err(err), _) | (_, Err(err)) => {
                        return self
                            .reply_error(socket, err.code, &err.message, reference)
                            .await
                    }
                }
            }
        };
        if !self.state.world_sender.send(input) {
            return self
                .reply_error(socket, "server_busy", "the world is busy; try again", None)
                .await;
        }
        Flow::Continue
    }

    /// A trade message whose slot is out of range: a `tradeError`, like the trade's other errors.
    async fn refuse_slot(
        &self,
        socket: &mut Socket,
        err: ParseError,
        trade_id: String,
        reference: Option<Value>,
    ) -> Flow {
        let error = wayfarer_protocol::trade::TradeError {
            code: err.code.to_owned(),
            message: err.message,
            trade_id: Some(trade_id),
            reference,
        };
        self.send(socket, &ServerMessage::TradeError(error)).await
    }

    /// A trade message for the world.
    fn trade(&mut self, id: String, command: TradeCommand, reference: Option<Value>) -> WorldInput {
        WorldInput::Sim(Command::Trade {
            id,
            command,
            reference: self.remember_ref(reference),
        })
    }

    /// `/`-commands typed in chat.
    async fn slash_command(
        &mut self,
        socket: &mut Socket,
        text: &str,
        reference: Option<Value>,
    ) -> Flow {
        let mut parts = text[1..].split_whitespace();
        let command = parts.next().unwrap_or("").to_ascii_lowercase();
        let args: Vec<&str> = parts.collect();
        let id = self.character_id.clone();
        let system = |text: String| {
            WorldInput::Sim(Command::SystemMessage {
                to: Some(id.clone()),
                text,
            })
        };
        let input = match command.as_str() {
            "admin" => {
                return self
                    .admin_code(socket, args.first().copied().unwrap_or(""))
                    .await
            }
            "tp" | "give" | "kick" | "broadcast" if !self.is_admin => {
                return self
                    .reply_error(
                        socket,
                        codes::FORBIDDEN,
                        "that command is for admins",
                        reference,
                    )
                    .await;
            }
            "tp" => match (
                args.first().and_then(|v| v.parse().ok()),
                args.get(1).and_then(|v| v.parse().ok()),
            ) {
                (Some(x), Some(z)) => WorldInput::Sim(Command::Teleport {
                    id: id.clone(),
                    tile: wayfarer_protocol::ws::TilePos { x, z },
                }),
                _ => system("Usage: /tp <x> <z>".into()),
            },
            "give" => match (
                args.first(),
                args.get(1).map_or(Some(1), |q| q.parse::<i64>().ok()),
            ) {
                (Some(item), Some(quantity)) if quantity > 0 => WorldInput::Give {
                    id: id.clone(),
                    item_id: (*item).to_owned(),
                    quantity,
                },
                _ => system("Usage: /give <itemId> [quantity]".into()),
            },
            "kick" => {
                let name = args.join(" ");
                match self.state.connections.find_by_name(&name) {
                    Some(target) if self.state.connections.kick(&target) => {
                        tracing::warn!(admin = %self.character_id, target = %target, "player kicked");
                        system(format!("Kicked {name}."))
                    }
                    _ => system(format!("{name} is not online.")),
                }
            }
            "broadcast" => WorldInput::Sim(Command::SystemMessage {
                to: None,
                text: args.join(" "),
            }),
            other => system(format!("Unknown command /{other}.")),
        };
        if !self.state.world_sender.send(input) {
            return self
                .reply_error(socket, "server_busy", "the world is busy; try again", None)
                .await;
        }
        Flow::Continue
    }

    /// `/admin <code>`: counts as an authentication attempt; a right code makes this session admin.
    async fn admin_code(&mut self, socket: &mut Socket, code: &str) -> Flow {
        if !self.state.limits.disabled {
            if let Ok(ip) = self.address.parse() {
                if let crate::rate_limit::Decision::Limited { .. } =
                    self.state.limits.auth.check(&ip)
                {
                    return self
                        .reply_error(socket, codes::RATE_LIMITED, "too many attempts", None)
                        .await;
                }
            }
        }
        let expected = self.state.config.admin_code.as_deref();
        let ok = expected.is_some_and(|expected| {
            crate::auth::constant_time_eq(expected.as_bytes(), code.as_bytes())
        });
        let text = if ok {
            self.is_admin = true;
            tracing::warn!(character = %self.character_id, address = %self.address, "admin granted by code");
            "Admin rights granted for this session."
        } else {
            tracing::warn!(character = %self.character_id, address = %self.address, "wrong admin code");
            "Wrong admin code."
        };
        let input = WorldInput::Sim(Command::SystemMessage {
            to: Some(self.character_id.clone()),
            text: text.into(),
        });
        let _ = self.state.world_sender.send(input);
        Flow::Continue
    }
}

/// For a trade message (`trade…`), its `tradeId` and `ref`, read without checking the rest.
fn trade_frame(text: &str) -> Option<(Option<String>, Option<Value>)> {
    #[derive(serde::Deserialize)]
    struct Peek {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        data: Value,
        #[serde(default, rename = "ref")]
        reference: Option<Value>,
    }
    let peek: Peek = serde_json::from_str(text).ok()?;
    if !peek.kind.starts_with("trade") {
        return None;
    }
    let trade_id = peek.data["tradeId"].as_str().map(str::to_owned);
    let reference = peek.reference.filter(|r| r.is_string() || r.is_number());
    Some((trade_id, reference))
}

/// What a bounded socket write came to: a write that did not finish within [`SEND_TIMEOUT`] is a
/// client that stopped reading (1008, as a full outbound queue is); a failed one ends the
/// connection (1011).
fn sent<E>(result: Result<Result<(), E>, tokio::time::error::Elapsed>) -> Flow {
    match result {
        Ok(Ok(())) => Flow::Continue,
        Ok(Err(_)) => Flow::Close(1011, "send failed"),
        Err(_) => Flow::Close(1008, TOO_SLOW),
    }
}
