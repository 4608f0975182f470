//! Translating client messages into world commands: parse, rate-limit, validate and forward; bad input
//! is answered with `error` and the connection kept.

use std::time::{Duration, Instant};
use wayfarer_protocol::text::quoted;

use serde_json::Value;
use wayfarer_protocol::ws::{
    codes, ChatChannel, ClientMessage, ParseError, ServerMessage, MAX_FRAME_BYTES,
};
use wayfarer_sim::{Action, Command, DuelCommand, TradeCommand};

use crate::http::bank_shop;
use crate::http::social::{self, SocialRequest};
use crate::http::ws_transport::Socket;
use crate::world_thread::WorldInput;

use super::{Connection, Flow};

/// For a trade message (`trade…`), its `tradeId` and `ref`, read without checking the rest.
pub(super) fn trade_frame(text: &str) -> Option<(Option<String>, Option<Value>)> {
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

impl Connection {
    pub(super) async fn on_text(&mut self, socket: &mut Socket, text: &str) -> Flow {
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
        if let ClientMessage::AgentStatus(status) = message {
            return Box::pin(self.agent_status(socket, *status, reference)).await;
        }
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
        if let Some(request) = bank_shop::request(&message) {
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
            | ClientMessage::ShopClose
            | ClientMessage::AgentStatus(_) => return Flow::Continue,
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
            ClientMessage::DuelChallenge(m) => self.duel(
                id,
                DuelCommand::Challenge {
                    target: m.target_player_id,
                },
                reference,
            ),
            ClientMessage::DuelRespond(m) => self.duel(
                id,
                DuelCommand::Respond {
                    duel_id: m.duel_id,
                    accept: m.accept,
                },
                reference,
            ),
            ClientMessage::DuelSetRule(m) => self.duel(
                id,
                DuelCommand::SetRule {
                    duel_id: m.duel_id,
                    rule: m.rule,
                    on: m.on,
                },
                reference,
            ),
            ClientMessage::DuelStake(m) => match m.inventory_slot.index() {
                Ok(slot) => self.duel(
                    id,
                    DuelCommand::Stake {
                        duel_id: m.duel_id,
                        slot: slot as i64,
                        quantity: m.quantity,
                    },
                    reference,
                ),
                Err(err) => {
                    return self
                        .refuse_duel_slot(socket, err, m.duel_id, reference)
                        .await
                }
            },
            ClientMessage::DuelUnstake(m) => match m.inventory_slot.index() {
                Ok(slot) => self.duel(
                    id,
                    DuelCommand::Unstake {
                        duel_id: m.duel_id,
                        slot: slot as i64,
                    },
                    reference,
                ),
                Err(err) => {
                    return self
                        .refuse_duel_slot(socket, err, m.duel_id, reference)
                        .await
                }
            },
            ClientMessage::DuelAccept(m) => {
                self.duel(id, DuelCommand::Accept { duel_id: m.duel_id }, reference)
            }
            ClientMessage::DuelCancel(m) => {
                self.duel(id, DuelCommand::Cancel { duel_id: m.duel_id }, reference)
            }
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
                            &format!("{} is not a skill", quoted(skill_name)),
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
                if matches!(channel, ChatChannel::System | ChatChannel::Game) {
                    return self
                        .reply_error(
                            socket,
                            codes::INVALID_MESSAGE,
                            "players cannot send on the system or game channel",
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
                if channel == ChatChannel::Private && self.state.cluster.is_some() {
                    let to = chat.to.as_deref().unwrap_or_default();
                    if let Some(flow) =
                        Box::pin(self.private_elsewhere(socket, to, &chat.text, &reference)).await
                    {
                        return flow;
                    }
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

    /// `agent:status`: kept for the owner's routes (agent connections only; checked strictly).
    async fn agent_status(
        &mut self,
        socket: &mut Socket,
        status: wayfarer_protocol::agent::AgentStatus,
        reference: Option<Value>,
    ) -> Flow {
        let Some(agent_id) = self.agent_id.clone() else {
            return self
                .reply_error(
                    socket,
                    codes::FORBIDDEN,
                    "agent:status is for connections opened with an agent token",
                    reference,
                )
                .await;
        };
        if let Err(problem) = status.validate() {
            return self
                .reply_error(socket, codes::INVALID_MESSAGE, &problem, reference)
                .await;
        }
        match crate::agents::control::record_status(&self.state, &agent_id, status).await {
            Ok(()) => Flow::Continue,
            Err(err) => {
                // Worded as REST words it: a store failure's detail is logged, never sent.
                let err = crate::http::error::ApiError::from(err);
                let code = match err.code {
                    wayfarer_protocol::ErrorCode::BadRequest => codes::INVALID_MESSAGE,
                    _ => "server_busy",
                };
                self.reply_error(socket, code, &err.message, reference)
                    .await
            }
        }
    }

    /// A trade message whose slot is out of range: a `tradeError`, like the trade's other errors.
    pub(super) async fn refuse_slot(
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

    /// A duel message whose slot is out of range: a `duelError`, like the duel's other errors.
    pub(super) async fn refuse_duel_slot(
        &self,
        socket: &mut Socket,
        err: ParseError,
        duel_id: String,
        reference: Option<Value>,
    ) -> Flow {
        let error = wayfarer_protocol::duel::DuelError {
            duel_id: Some(duel_id),
            code: err.code.to_owned(),
            message: err.message,
            reference,
        };
        self.send(socket, &ServerMessage::DuelError(error)).await
    }

    /// A duel message for the world.
    pub(super) fn duel(
        &mut self,
        id: String,
        command: DuelCommand,
        reference: Option<Value>,
    ) -> WorldInput {
        WorldInput::Sim(Command::Duel {
            id,
            command,
            reference: self.remember_ref(reference),
        })
    }

    /// A trade message for the world.
    pub(super) fn trade(
        &mut self,
        id: String,
        command: TradeCommand,
        reference: Option<Value>,
    ) -> WorldInput {
        WorldInput::Sim(Command::Trade {
            id,
            command,
            reference: self.remember_ref(reference),
        })
    }
}
