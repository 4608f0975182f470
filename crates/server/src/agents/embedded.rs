//! The server's part of the embedded agents (`serve --agents N`, `EMBEDDED_AGENTS`): the game host
//! runs them (`wayfarer_host::agents::embedded`, re-exported here); the server starts them with
//! its configuration, its character creation, its token signing and the agents' HTTP client
//! (`wayfarer-agent-http`).

use std::net::SocketAddr;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use wayfarer_store::Character;

pub use wayfarer_host::agents::embedded::{
    goal_rotation, AgentCharacters, CharacterError, EmbeddedAgents, EmbeddedStart, SERVER_IDENTITY,
};

use crate::app::AppState;
use crate::characters::creation::{self, CreationError};
use crate::characters::{CharacterName, Namer};

/// Starts the `EMBEDDED_AGENTS` agents against the server listening on `addr` (none when 0).
pub fn start(state: &AppState, addr: SocketAddr) -> Option<EmbeddedAgents> {
    let content = state.content.get();
    EmbeddedAgents::start(EmbeddedStart {
        count: state.config.embedded_agents,
        prefix: state.config.embedded_agent_prefix.clone(),
        tick_ms: state.config.tick_ms,
        manual_clock: state.config.manual_clock,
        addr,
        plane: state.agents.clone(),
        characters: Arc::new(Characters(state.clone())),
        http: wayfarer_agent_http::client(),
        goals: goal_rotation(&content.content),
    })
}

/// The embedded agents' characters, made by the server's character creation.
struct Characters(AppState);

impl AgentCharacters for Characters {
    fn create<'a>(
        &'a self,
        account_id: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Character, CharacterError>> {
        Box::pin(async move {
            // The operator chose the names (EMBEDDED_AGENT_PREFIX, checked at start): staff's.
            let valid = CharacterName::parse(name, Namer::Admin).map_err(|err| CharacterError {
                message: format!("invalid name: {err}"),
                transient: false,
            })?;
            creation::create(&self.0, account_id, &valid, None, creation::SERVER_LIMITS)
                .await
                .map_err(character_error)
        })
    }
}

/// A creation's failure as the host retries it: only a database failing for a passing reason (a
/// lock, a timeout, a lost connection) is tried again, never a refusal on the merits.
fn character_error(err: CreationError) -> CharacterError {
    let transient = matches!(&err, CreationError::Store(store) if !store.is_refusal());
    CharacterError {
        message: err.to_string(),
        transient,
    }
}

#[cfg(test)]
mod tests {
    use wayfarer_store::StoreError;

    use super::*;

    #[test]
    fn a_database_failure_is_tried_again_a_refusal_is_not() {
        // What sqlx reports when SQLite's busy timeout passes: not a refusal.
        let locked = CreationError::Store(StoreError::Database(sqlx::Error::PoolTimedOut));
        assert!(character_error(locked).transient);
        assert!(!character_error(CreationError::NameTaken).transient);
        assert!(
            !character_error(CreationError::Store(StoreError::Conflict("name".into()))).transient
        );
    }
}
