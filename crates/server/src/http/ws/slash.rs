//! Slash commands typed in chat (`/admin <code>`, and for admins `/tp`, `/give`, `/kick`, `/broadcast`):
//! answered here as system messages or turned into world commands, never sent as chat.

use serde_json::Value;
use wayfarer_protocol::ws::codes;
use wayfarer_sim::Command;

use crate::http::ws_transport::Socket;
use wayfarer_host::world_thread::WorldInput;

use super::{Connection, Flow};

impl Connection {
    /// `/`-commands typed in chat.
    pub(super) async fn slash_command(
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
                    .admin_code(socket, args.first().copied().unwrap_or(""), reference)
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
    /// A socket opened with an agent token never becomes admin (docs/agent-control.md): the code
    /// is not even compared, so it is neither an attempt nor a way to test codes.
    pub(super) async fn admin_code(
        &mut self,
        socket: &mut Socket,
        code: &str,
        reference: Option<Value>,
    ) -> Flow {
        if self.agent_id.is_some() {
            tracing::warn!(character = %self.character_id, address = %self.address, "admin code refused: agent token");
            return self
                .reply_error(
                    socket,
                    codes::FORBIDDEN,
                    "an agent has no admin rights: /admin is for the account's own sessions",
                    reference,
                )
                .await;
        }
        if !self.state.limits.disabled {
            if let Ok(ip) = self.address.parse() {
                if let crate::rate_limit::Decision::Limited { .. } =
                    self.state.limits.check_auth(ip)
                {
                    return self
                        .reply_error(socket, codes::RATE_LIMITED, "too many attempts", reference)
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
