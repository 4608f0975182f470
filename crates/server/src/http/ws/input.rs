//! What a client frame asks of its connection, decided without I/O: the frame's text, and the little
//! the connection knows that bears on it (its character, the rate limit's verdict, whether there
//! are several worlds), make one [`Verdict`]: a command for the world, or a refusal to send back,
//! or one of the few requests answered beside the world (friends, `agent:status`, slash commands,
//! a private line that may be for another world). `commands.rs` reads the frame, calls
//! [`translate`] and carries the verdict out; the tests below are the table of frames and verdicts.

use std::collections::VecDeque;

use serde_json::Value;
use wayfarer_protocol::agent::AgentStatus;
use wayfarer_protocol::duel::DuelError;
use wayfarer_protocol::trade::TradeError;
use wayfarer_protocol::ws::{
    codes, ChatChannel, ClientMessage, Envelope, ParseError, ServerMessage, MAX_FRAME_BYTES,
};
use wayfarer_sim::{Action, BankRequest, Command, DuelCommand, ShopRequest, TradeCommand};

use crate::http::bank_shop::{self, Request};
use crate::http::social::SocialRequest;

/// Client refs remembered for echoing in errors that come back from the world.
const REMEMBERED_REFS: usize = 256;

/// The answer to a frame dropped by the rate limit.
const RATE_LIMITED: &str = "more than 60 messages a second; messages dropped";

/// What the rate limit made of a frame (`Connection::admission`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Admission {
    /// Within 60 messages a second: read and handled.
    Admitted,
    /// Dropped, the client told so within the last second: nothing more is said.
    Dropped,
    /// Dropped, and the client is told (at most once a second).
    DroppedWithNotice,
}

/// What the connection knows that bears on a frame.
#[derive(Debug, Clone, Copy)]
pub(super) struct Context<'a> {
    /// The connection's character: the commands are its.
    pub character_id: &'a str,
    pub admission: Admission,
    /// Several worlds (`NATS_URL`): a private line may be for a player online in another.
    pub clustered: bool,
}

/// What to do with one frame.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Verdict {
    /// Nothing (dropped by the rate limit, the client told already).
    Drop,
    /// This answer goes back and the frame no further: an `error`, or a `tradeError` or
    /// `duelError` for a message of those exchanges, as their contract says.
    Refuse(ServerMessage),
    /// A command for the world (its client `ref`, if any, remembered in [`Refs`]).
    World(Command),
    /// `player:sync`: the player's full state (the connection stamps when it was asked).
    Sync,
    /// `arena:join`: the connection reads the character's stored rating, then sends the world
    /// the join (its client `ref` remembered as `reference`).
    ArenaJoin { reference: Option<u64> },
    /// A friend or ignore-list request, answered by `http::social` (a refusal echoes `reference`).
    Social {
        request: SocialRequest,
        reference: Option<Value>,
    },
    /// `agent:status`, kept for the owner's routes (agent connections only).
    AgentStatus {
        status: Box<AgentStatus>,
        reference: Option<Value>,
    },
    /// A `/`-command typed in chat, trimmed, for `slash`: never said as chat.
    Slash {
        text: String,
        reference: Option<Value>,
    },
    /// A private line while there are several worlds: sent there when `to` is online in another
    /// world (`cross_world`), else [`private_line`] is the command for this one.
    Private {
        to: String,
        text: String,
        reference: Option<Value>,
    },
}

/// The client `ref`s of commands sent to the world, by number: a command carries the number, and
/// an error coming back with it is sent with the client's own `ref` again. The last
/// [`REMEMBERED_REFS`] are kept.
#[derive(Debug, Default)]
pub(super) struct Refs {
    held: VecDeque<(u64, Value)>,
    next: u64,
}

impl Refs {
    /// The number standing for `reference` in a command (`None` without one).
    pub(super) fn remember(&mut self, reference: Option<Value>) -> Option<u64> {
        let reference = reference?;
        let id = self.next;
        self.next += 1;
        if self.held.len() == REMEMBERED_REFS {
            self.held.pop_front();
        }
        self.held.push_back((id, reference));
        Some(id)
    }

    /// The client's `ref` number `id` stood for, forgotten once taken.
    pub(super) fn take(&mut self, id: u64) -> Option<Value> {
        let at = self.held.iter().position(|(i, _)| *i == id)?;
        self.held.remove(at).map(|(_, v)| v)
    }
}

/// The verdict on frame `text`. Each frame is read once: whole when admitted, its envelope only
/// when dropped with a notice (to word a trade message's as a `tradeError`), not at all when
/// dropped silently.
pub(super) fn translate(text: &str, context: &Context<'_>, refs: &mut Refs) -> Verdict {
    match context.admission {
        Admission::Admitted => {}
        Admission::Dropped => return Verdict::Drop,
        Admission::DroppedWithNotice => return Verdict::Refuse(rate_limited(text)),
    }
    if text.len() > MAX_FRAME_BYTES {
        return refuse(
            codes::MESSAGE_TOO_LARGE,
            "frames are limited to 16 KiB",
            None,
        );
    }
    match ClientMessage::parse(text) {
        (Ok(message), reference) => message_verdict(message, reference, context, refs),
        (Err(err), reference) => refuse(err.code, err.message, reference),
    }
}

/// The command for this world of a private line [`Verdict::Private`] found no other world for.
pub(super) fn private_line(
    character_id: &str,
    to: String,
    text: String,
    reference: Option<Value>,
    refs: &mut Refs,
) -> Command {
    Command::Chat {
        id: character_id.to_owned(),
        channel: ChatChannel::Private,
        text,
        to: Some(to),
        reference: refs.remember(reference),
    }
}

/// The notice of a dropped frame: a trade message's is a `tradeError` (the trade contract), with
/// its `tradeId` and `ref` read from the envelope; any other's a plain `error`.
fn rate_limited(text: &str) -> ServerMessage {
    match serde_json::from_str::<Envelope>(text) {
        Ok(envelope) if envelope.kind.starts_with("trade") => {
            ServerMessage::TradeError(TradeError {
                code: codes::RATE_LIMITED.to_owned(),
                message: RATE_LIMITED.into(),
                trade_id: envelope.data["tradeId"].as_str().map(str::to_owned),
                reference: envelope
                    .reference
                    .filter(|r| r.is_string() || r.is_number()),
            })
        }
        _ => ServerMessage::error(codes::RATE_LIMITED, RATE_LIMITED, None),
    }
}

fn refuse(code: &str, message: impl Into<String>, reference: Option<Value>) -> Verdict {
    Verdict::Refuse(ServerMessage::error(code, message, reference))
}

/// The verdict on a message read whole: one arm per client message.
fn message_verdict(
    message: ClientMessage,
    reference: Option<Value>,
    context: &Context<'_>,
    refs: &mut Refs,
) -> Verdict {
    let id = context.character_id.to_owned();
    let social = |request| Verdict::Social {
        request,
        reference: reference.clone(),
    };
    let bank_or_shop =
        |request: Result<Request, wayfarer_sim::ActionError>, refs: &mut Refs| match request {
            Ok(request) => {
                Verdict::World(request.command(id.clone(), refs.remember(reference.clone())))
            }
            Err(err) => refuse(err.code, err.message, reference.clone()),
        };
    // A trade or duel command, or the refusal its slot earned (`Exchange::refuse`).
    let trade = |command: Result<TradeCommand, Verdict>, refs: &mut Refs| match command {
        Ok(command) => Verdict::World(Command::Trade {
            id: id.clone(),
            command,
            reference: refs.remember(reference.clone()),
        }),
        Err(refusal) => refusal,
    };
    let duel = |command: Result<DuelCommand, Verdict>, refs: &mut Refs| match command {
        Ok(command) => Verdict::World(Command::Duel {
            id: id.clone(),
            command,
            reference: refs.remember(reference.clone()),
        }),
        Err(refusal) => refusal,
    };
    match message {
        ClientMessage::Move(m) => Verdict::World(Command::Move {
            id,
            x: m.x,
            z: m.z,
            run: m.run,
            reference: refs.remember(reference),
        }),
        ClientMessage::Chat(chat) => {
            if chat.text.trim_start().starts_with('/') {
                return Verdict::Slash {
                    text: chat.text.trim().to_owned(),
                    reference,
                };
            }
            let channel = chat.channel.unwrap_or(ChatChannel::Local);
            if matches!(channel, ChatChannel::System | ChatChannel::Game) {
                let message = "players cannot send on the system or game channel";
                return refuse(codes::INVALID_MESSAGE, message, reference);
            }
            if channel != ChatChannel::Private {
                return Verdict::World(Command::Chat {
                    id,
                    channel,
                    text: chat.text,
                    to: chat.to,
                    reference: refs.remember(reference),
                });
            }
            match chat.to {
                Some(to) if !to.is_empty() => {
                    if context.clustered {
                        Verdict::Private {
                            to,
                            text: chat.text,
                            reference,
                        }
                    } else {
                        Verdict::World(private_line(
                            context.character_id,
                            to,
                            chat.text,
                            reference,
                            refs,
                        ))
                    }
                }
                _ => refuse(
                    codes::INVALID_MESSAGE,
                    "private messages need `to`",
                    reference,
                ),
            }
        }
        // The sim reads `slot` by the protocol's one slot rule (`inventory_slot`), except for
        // `unequip`, whose `slot` names an equipment slot.
        ClientMessage::Action(request) => match Action::from_request(&request) {
            Ok(action) => Verdict::World(Command::Action {
                id,
                action,
                reference: refs.remember(reference),
            }),
            Err(err) => refuse(err.code, err.message, reference),
        },
        ClientMessage::Use(request) => {
            if let Some(skill_name) = request.skill.as_deref() {
                let Some(skill) = wayfarer_protocol::Skill::parse(skill_name) else {
                    let message = format!(
                        "{} is not a skill",
                        wayfarer_protocol::text::quoted(skill_name)
                    );
                    return refuse(codes::INVALID_MESSAGE, message, reference);
                };
                return match request.slot.index() {
                    Ok(slot) => Verdict::World(Command::RubLamp {
                        id,
                        slot,
                        skill,
                        reference: refs.remember(reference),
                    }),
                    Err(err) => refuse(err.code, err.message, reference),
                };
            }
            let slot = request.slot.index();
            let target_slot = request.target_slot.map(|s| s.index()).transpose();
            match (slot, target_slot) {
                (Ok(slot), Ok(target_slot)) => Verdict::World(Command::UseItem {
                    id,
                    slot,
                    target_slot,
                    target_id: request.target_id.filter(|t| !t.is_empty()),
                    reference: refs.remember(reference),
                }),
                (Err(err), _) | (_, Err(err)) => refuse(err.code, err.message, reference),
            }
        }
        ClientMessage::FriendRequest(r) => social(SocialRequest::Request(r.name)),
        ClientMessage::FriendRespond(r) => social(SocialRequest::Respond {
            name: r.name,
            accept: r.accept,
        }),
        ClientMessage::FriendRemove(r) => social(SocialRequest::Remove(r.name)),
        ClientMessage::IgnoreAdd(r) => social(SocialRequest::Ignore(r.name)),
        ClientMessage::IgnoreRemove(r) => social(SocialRequest::Unignore(r.name)),
        ClientMessage::FriendList => social(SocialRequest::List),
        ClientMessage::Sync => Verdict::Sync,
        ClientMessage::TradeRequest(m) => trade(
            Ok(TradeCommand::Request {
                target: m.target_player_id,
            }),
            refs,
        ),
        ClientMessage::TradeRequestRespond(m) => trade(
            Ok(TradeCommand::Respond {
                trade_id: m.trade_id,
                accept: m.accept,
            }),
            refs,
        ),
        ClientMessage::TradeAddItem(m) => trade(
            m.inventory_slot
                .index()
                .map_err(|err| Exchange::Trade(&m.trade_id).refuse(err, &reference))
                .map(|slot| TradeCommand::AddItem {
                    trade_id: m.trade_id,
                    slot: slot as i64,
                    quantity: m.quantity,
                }),
            refs,
        ),
        ClientMessage::TradeRemoveItem(m) => trade(
            m.inventory_slot
                .index()
                .map_err(|err| Exchange::Trade(&m.trade_id).refuse(err, &reference))
                .map(|slot| TradeCommand::RemoveItem {
                    trade_id: m.trade_id,
                    slot: slot as i64,
                }),
            refs,
        ),
        ClientMessage::TradeAccept(m) => trade(
            Ok(TradeCommand::Accept {
                trade_id: m.trade_id,
            }),
            refs,
        ),
        ClientMessage::TradeCancel(m) => trade(
            Ok(TradeCommand::Cancel {
                trade_id: m.trade_id,
            }),
            refs,
        ),
        ClientMessage::BankOpen => bank_or_shop(Ok(Request::Bank(BankRequest::Open)), refs),
        ClientMessage::BankDeposit(d) => bank_or_shop(bank_shop::deposit(&d), refs),
        ClientMessage::BankWithdraw(w) => bank_or_shop(bank_shop::withdraw(&w), refs),
        ClientMessage::ShopBuy(b) => bank_or_shop(bank_shop::buy(&b), refs),
        ClientMessage::ShopSell(s) => bank_or_shop(bank_shop::sell(&s), refs),
        ClientMessage::ShopClose => bank_or_shop(Ok(Request::Shop(ShopRequest::Close)), refs),
        ClientMessage::PrayerToggle(m) => Verdict::World(Command::Prayer {
            id,
            prayer_id: m.prayer_id,
            active: m.active,
            reference: refs.remember(reference),
        }),
        ClientMessage::DialogueRespond(m) => Verdict::World(Command::DialogueRespond {
            id,
            npc_id: m.npc_id,
            index: m.index,
            reference: refs.remember(reference),
        }),
        ClientMessage::DialogueClose(m) => Verdict::World(Command::DialogueClose {
            id,
            npc_id: m.npc_id.unwrap_or_default(),
            reference: refs.remember(reference),
        }),
        ClientMessage::QuestList => Verdict::World(Command::QuestList { id }),
        ClientMessage::ArenaJoin => Verdict::ArenaJoin {
            reference: refs.remember(reference),
        },
        ClientMessage::ArenaLeave => Verdict::World(Command::Arena {
            id,
            command: wayfarer_sim::ArenaCommand::Leave,
            reference: refs.remember(reference),
        }),
        ClientMessage::QuestAbandon(m) => Verdict::World(Command::QuestAbandon {
            id,
            quest_id: m.quest_id,
            reference: refs.remember(reference),
        }),
        ClientMessage::Emote(m) => Verdict::World(Command::Emote {
            id,
            emote: m.emote,
            reference: refs.remember(reference),
        }),
        ClientMessage::AgentStatus(status) => Verdict::AgentStatus { status, reference },
        ClientMessage::DuelChallenge(m) => duel(
            Ok(DuelCommand::Challenge {
                target: m.target_player_id,
            }),
            refs,
        ),
        ClientMessage::DuelRespond(m) => duel(
            Ok(DuelCommand::Respond {
                duel_id: m.duel_id,
                accept: m.accept,
            }),
            refs,
        ),
        ClientMessage::DuelSetRule(m) => duel(
            Ok(DuelCommand::SetRule {
                duel_id: m.duel_id,
                rule: m.rule,
                on: m.on,
            }),
            refs,
        ),
        ClientMessage::DuelStake(m) => duel(
            m.inventory_slot
                .index()
                .map_err(|err| Exchange::Duel(&m.duel_id).refuse(err, &reference))
                .map(|slot| DuelCommand::Stake {
                    duel_id: m.duel_id,
                    slot: slot as i64,
                    quantity: m.quantity,
                }),
            refs,
        ),
        ClientMessage::DuelUnstake(m) => duel(
            m.inventory_slot
                .index()
                .map_err(|err| Exchange::Duel(&m.duel_id).refuse(err, &reference))
                .map(|slot| DuelCommand::Unstake {
                    duel_id: m.duel_id,
                    slot: slot as i64,
                }),
            refs,
        ),
        ClientMessage::DuelAccept(m) => duel(Ok(DuelCommand::Accept { duel_id: m.duel_id }), refs),
        ClientMessage::DuelCancel(m) => duel(Ok(DuelCommand::Cancel { duel_id: m.duel_id }), refs),
    }
}

/// The exchange a message belongs to, and its id: its refusals are the exchange's own errors.
#[derive(Debug, Clone, Copy)]
enum Exchange<'a> {
    Trade(&'a str),
    Duel(&'a str),
}

impl Exchange<'_> {
    /// A message of this exchange refused for `err` (a slot out of range): a `tradeError` or
    /// `duelError` with the exchange's id, like the exchange's other errors.
    fn refuse(self, err: ParseError, reference: &Option<Value>) -> Verdict {
        let (code, message, reference) = (err.code.to_owned(), err.message, reference.clone());
        Verdict::Refuse(match self {
            Exchange::Trade(id) => ServerMessage::TradeError(TradeError {
                code,
                message,
                trade_id: Some(id.to_owned()),
                reference,
            }),
            Exchange::Duel(id) => ServerMessage::DuelError(DuelError {
                duel_id: Some(id.to_owned()),
                code,
                message,
                reference,
            }),
        })
    }
}

#[cfg(test)]
mod tests;
