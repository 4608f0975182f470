//! What a connection does across worlds (several worlds, `NATS_URL`): a private message to a
//! player online in another world. Friends' news reaches other worlds through `http::social`.

use std::sync::Arc;

use serde_json::Value;
use wayfarer_protocol::ws::{codes, ChatChannel, ChatMessage, ServerMessage};

use crate::http::ws_transport::Socket;
use wayfarer_host::world_thread::WorldInput;

use super::{Connection, Flow};

impl Connection {
    /// A private message to `to`, when `to` is online in another world: counted against the
    /// sender's chat limits by this world's game, then sent there over NATS and echoed here.
    /// `None` when `to` is not in another world (here, or offline everywhere): the world answers
    /// as for a single world.
    ///
    /// The line is counted before the recipient is looked up, so a flood of private messages
    /// costs the database nothing once held; a line to a name offline everywhere has then
    /// counted once, as a line to someone online would.
    pub(super) async fn private_elsewhere(
        &mut self,
        socket: &mut Socket,
        to: &str,
        text: &str,
        reference: &Option<Value>,
    ) -> Option<Flow> {
        let cluster = self.state.cluster.clone()?;
        let name = to.trim();
        if name.is_empty() || self.state.connections.find_by_name(name).is_some() {
            return None;
        }
        let admitted = wayfarer_host::world_thread::admit_private_elsewhere(
            &self.state.world_sender,
            &self.character_id,
            name,
            text,
        )
        .await;
        let text = match admitted {
            Ok(Ok(text)) => text,
            Ok(Err(Some(refusal))) => {
                return Some(
                    self.reply_error(socket, refusal.code, &refusal.message, reference.clone())
                        .await,
                )
            }
            // Held, and told so within the last second.
            Ok(Err(None)) => return Some(Flow::Continue),
            Err(_) => {
                return Some(
                    self.reply_error(
                        socket,
                        "server_error",
                        "the message could not be sent; try again",
                        reference.clone(),
                    )
                    .await,
                )
            }
        };
        let store = &self.state.store;
        let target = match store.characters().find_by_name(name).await {
            Ok(Some(target)) => target,
            Ok(None) => return None,
            Err(err) => {
                tracing::warn!(error = %err, "private message: looking up the recipient failed");
                return None;
            }
        };
        let world = match store.leases().holder(&target.id).await {
            Ok(Some(holder)) if holder.world_id != cluster.world_id => holder.world_id,
            Ok(_) => return None,
            Err(err) => {
                tracing::warn!(error = %err, "private message: finding the recipient's world failed");
                return None;
            }
        };
        let reply = |code: &'static str, message: String| (code, message);
        let refusal = match store
            .ignores()
            .ignores(&target.id, &self.character_id)
            .await
        {
            Ok(true) => Some(reply(
                codes::IGNORED,
                format!("{} is not receiving your messages", target.name),
            )),
            Ok(false) => None,
            Err(err) => {
                tracing::warn!(error = %err, "private message: reading the ignore list failed");
                Some(reply(
                    "server_error",
                    "the message could not be sent; try again".to_owned(),
                ))
            }
        };
        if let Some((code, message)) = refusal {
            return Some(
                self.reply_error(socket, code, &message, reference.clone())
                    .await,
            );
        }
        let message = ServerMessage::Chat(ChatMessage {
            channel: ChatChannel::Private,
            from_id: self.character_id.clone(),
            from_name: self.name.clone(),
            text,
            ts: wayfarer_store::now_ms(),
            world: None,
        });
        match cluster
            .deliver(world, vec![target.id.clone()], message.clone())
            .await
        {
            Ok(()) => {
                metrics::counter!("cross_world_private_messages_total").increment(1);
                // The sender's echo, as a private message within one world has.
                self.state.world_sender.send(WorldInput::Notify {
                    to: vec![self.character_id.clone()],
                    message: Arc::new(message),
                });
                Some(Flow::Continue)
            }
            Err(err) => Some(
                self.reply_error(socket, err.code(), &err.to_string(), reference.clone())
                    .await,
            ),
        }
    }
}
