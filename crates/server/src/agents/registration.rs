//! Registering an agent: an account names one of its characters (or a name for a new one) and gets
//! a token limited to that character. One agent per character; registering it again keeps the
//! agent (its id, goal and pause) and issues a new token, which revokes the old one at once (the
//! token carries the id stored in `agent_mappings`, checked on every use). Deleting the character
//! removes the agent and so its token. The token lives [`AGENT_TOKEN_TTL`] (30 days).
//!
//! [`register_character`] needs no HTTP request: an agent the server starts inside its own process
//! gets its token the same way as one an owner registers over REST.

use wayfarer_protocol::agent::Registered;
use wayfarer_protocol::ErrorCode;
use wayfarer_store::{AgentMapping, Character, StoreError};

use crate::app::AppState;
use crate::auth::tokens::AgentClaim;
pub use crate::auth::tokens::AGENT_TOKEN_TTL;
use crate::characters::creation::{self, CreationError};
use crate::characters::CharacterName;
use crate::service_errors::store_code;
use crate::timestamps::iso8601_from_ms;

/// Why an agent was not registered.
#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    /// `not_found`: the character is not the account's.
    #[error("no such character")]
    NoSuchCharacter,
    /// `unauthorized`.
    #[error("the account no longer exists")]
    UnknownAccount,
    /// `internal`: the token could not be signed.
    #[error("the agent's token could not be signed: {0}")]
    Token(#[source] jsonwebtoken::errors::Error),
    /// The new character was not created.
    #[error(transparent)]
    Creation(#[from] CreationError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl RegistrationError {
    /// The contract code it is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            RegistrationError::NoSuchCharacter => ErrorCode::NotFound,
            RegistrationError::UnknownAccount => ErrorCode::Unauthorized,
            RegistrationError::Token(_) => ErrorCode::Internal,
            RegistrationError::Creation(err) => err.code(),
            RegistrationError::Store(err) => store_code(err),
        }
    }
}

/// Registers (or re-registers) the agent of `character`, which belongs to `account_id`, and
/// issues its token.
pub async fn register_character(
    state: &AppState,
    account_id: &str,
    character: &Character,
) -> Result<(AgentMapping, Registered), RegistrationError> {
    if character.account_id != account_id {
        return Err(RegistrationError::NoSuchCharacter);
    }
    let mapping = state
        .store
        .agents()
        .register(account_id, &character.id, &character.name)
        .await?;
    let issued = state
        .auth
        .tokens
        .issue_agent(
            account_id,
            AgentClaim {
                agent_id: mapping.agent_id.clone(),
                character_id: mapping.character_id.clone(),
                token_id: mapping.token_id.clone(),
            },
        )
        .map_err(RegistrationError::Token)?;
    tracing::info!(account = account_id, agent = %mapping.agent_id, character = %character.id, "agent registered");
    let registered = Registered {
        agent_id: mapping.agent_id.clone(),
        character_id: mapping.character_id.clone(),
        token: issued.token,
        expires_at: iso8601_from_ms(
            i64::try_from(issued.expires_at.saturating_mul(1000)).unwrap_or(i64::MAX),
        ),
    };
    Ok((mapping, registered))
}

/// Creates a character named `name` for the account (with the starter kit, at the spawn point,
/// under the account's limits and, for a request, its address's: `characters::creation`) and
/// registers its agent. The account's
/// active character stays what it was: the owner's own client must not open the agent's character
/// and replace the agent's connection.
pub async fn register_new_character(
    state: &AppState,
    account_id: &str,
    name: &CharacterName,
    origin: Option<creation::Origin>,
) -> Result<(AgentMapping, Registered), RegistrationError> {
    let previous = state
        .store
        .users()
        .get(account_id)
        .await?
        .ok_or(RegistrationError::UnknownAccount)?
        .active_character_id;
    // The request's address counts as any creation's (a bypass of the per-address rule otherwise).
    let character = creation::create_from(
        state,
        account_id,
        name,
        None,
        creation::PLAYER_LIMITS,
        origin,
    )
    .await?
    .character;
    if previous.is_some() {
        state
            .store
            .users()
            .set_active_character(account_id, previous.as_deref())
            .await?;
    }
    register_character(state, account_id, &character).await
}
