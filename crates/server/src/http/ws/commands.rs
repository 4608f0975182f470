//! Carrying out what a client frame asks: `input::translate` decides (a pure function, table-tested
//! there); this sends the refusal, forwards the command to the world, or does the few things
//! answered beside it (friends, `agent:status`, slash commands, a private line to another world).
//! Bad input is answered with `error` and the connection kept.

use std::time::Instant;

use serde_json::Value;
use wayfarer_protocol::ws::codes;

use crate::http::social::{self, SocialRequest};
use crate::http::ws_transport::Socket;
use wayfarer_host::world_thread::WorldInput;

use super::input::{self, Context, Verdict};
use super::{Connection, Flow};

impl Connection {
    pub(super) async fn on_text(&mut self, socket: &mut Socket, text: &str) -> Flow {
        let admission = match self.admission() {
            Ok(admission) => admission,
            Err(flow) => return flow,
        };
        let context = Context {
            character_id: &self.character_id,
            admission,
            clustered: self.state.cluster.is_some(),
        };
        match input::translate(text, &context, &mut self.refs) {
            Verdict::Drop => Flow::Continue,
            Verdict::Refuse(answer) => self.send(socket, &answer).await,
            Verdict::World(command) => self.forward(socket, WorldInput::Sim(command)).await,
            Verdict::Sync => {
                let id = self.character_id.clone();
                let asked_at = Instant::now();
                self.forward(socket, WorldInput::Sync { id, asked_at })
                    .await
            }
            Verdict::Social { request, reference } => self.social(socket, request, reference).await,
            Verdict::ArenaJoin { reference } => self.arena_join(socket, reference).await,
            Verdict::AgentStatus { status, reference } => {
                Box::pin(self.agent_status(socket, *status, reference)).await
            }
            Verdict::Slash { text, reference } => {
                self.slash_command(socket, &text, reference).await
            }
            Verdict::Private {
                to,
                text,
                reference,
            } => {
                let elsewhere = self.private_elsewhere(socket, &to, &text, &reference);
                if let Some(flow) = Box::pin(elsewhere).await {
                    return flow;
                }
                let command =
                    input::private_line(&self.character_id, to, text, reference, &mut self.refs);
                self.forward(socket, WorldInput::Sim(command)).await
            }
        }
    }

    /// `arena:join`: the stored rating is read here, off the tick, and travels with the join (the
    /// world prefers the rating it wrote itself since it started, which is never older).
    async fn arena_join(&self, socket: &mut Socket, reference: Option<u64>) -> Flow {
        let stored = match self.state.store.arena().rating(&self.character_id).await {
            Ok(stored) => stored.map(|r| wayfarer_sim::ArenaRating {
                rating: r.rating,
                deviation: r.deviation,
                volatility: r.volatility,
            }),
            Err(err) => {
                tracing::warn!(error = %err, "arena:join: the rating could not be read");
                return self
                    .reply_error(
                        socket,
                        "server_busy",
                        "the ladder could not be joined; try again",
                        None,
                    )
                    .await;
            }
        };
        let command = wayfarer_sim::Command::Arena {
            id: self.character_id.clone(),
            command: wayfarer_sim::ArenaCommand::Join { stored },
            reference,
        };
        self.forward(socket, WorldInput::Sim(command)).await
    }

    /// Hands `input` to the world thread; `server_busy` when its queue is full.
    async fn forward(&self, socket: &mut Socket, input: WorldInput) -> Flow {
        if self.state.world_sender.send(input) {
            return Flow::Continue;
        }
        self.reply_error(socket, "server_busy", "the world is busy; try again", None)
            .await
    }

    /// A friend or ignore-list request (`http::social`), answered there or refused here.
    async fn social(
        &self,
        socket: &mut Socket,
        request: SocialRequest,
        reference: Option<Value>,
    ) -> Flow {
        let me = social::Me {
            id: &self.character_id,
            name: &self.name,
        };
        match social::handle(&self.state, me, request).await {
            Ok(()) => Flow::Continue,
            Err(refusal) => {
                self.reply_error(socket, refusal.code, &refusal.message, reference)
                    .await
            }
        }
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
        let content = self.state.content.get();
        let recorded =
            crate::agents::control::record_status(&self.state, &content.content, &agent_id, status)
                .await;
        match recorded {
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
}
