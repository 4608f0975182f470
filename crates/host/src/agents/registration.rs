//! Registering an agent: an account names one of its characters and gets a token limited to that
//! character. One agent per character; registering it again keeps the agent (its id, goal and
//! pause) and issues a new token, which revokes the old one at once (the token carries the id
//! stored in `agent_mappings`, checked on every use). Deleting the character removes the agent and
//! so its token.
//!
//! [`register_character`] needs no HTTP request: an agent the server starts inside its own process
//! gets its token the same way as one an owner registers over REST. The token is signed with the
//! server's keys, which the host does not hold: the server gives the plane an [`AgentTokens`].

use serde::{Deserialize, Serialize};
use wayfarer_protocol::agent::Registered;
use wayfarer_protocol::ErrorCode;
use wayfarer_store::{AgentMapping, Character, StoreError};

use super::AgentPlane;
use crate::service_errors::store_code;
use crate::timestamps::iso8601_from_ms;

/// The limit an agent token carries: one agent, playing one character, with the token id that
/// registration stored (a token whose id is no longer stored is revoked).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AgentClaim {
    pub agent_id: String,
    pub character_id: String,
    pub token_id: String,
}

/// A signed agent token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedAgentToken {
    pub token: String,
    /// Seconds since the Unix epoch.
    pub expires_at: u64,
}

/// Signs agents' tokens (the server's auth keys).
pub trait AgentTokens: Send + Sync {
    /// A token of `account_id`'s agent limited by `claim`; why not, in one line.
    fn issue_agent(&self, account_id: &str, claim: AgentClaim) -> Result<IssuedAgentToken, String>;
}

/// Why an agent was not registered.
#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    /// `not_found`: the character is not the account's.
    #[error("no such character")]
    NoSuchCharacter,
    /// `internal`: the token could not be signed.
    #[error("the agent's token could not be signed: {0}")]
    Token(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl RegistrationError {
    /// The contract code it is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            RegistrationError::NoSuchCharacter => ErrorCode::NotFound,
            RegistrationError::Token(_) => ErrorCode::Internal,
            RegistrationError::Store(err) => store_code(err),
        }
    }
}

/// Registers (or re-registers) the agent of `character`, which belongs to `account_id`, and
/// issues its token.
pub async fn register_character(
    plane: &impl AsRef<AgentPlane>,
    account_id: &str,
    character: &Character,
) -> Result<(AgentMapping, Registered), RegistrationError> {
    let plane = plane.as_ref();
    if character.account_id != account_id {
        return Err(RegistrationError::NoSuchCharacter);
    }
    let mapping = plane
        .store
        .agents()
        .register(account_id, &character.id, &character.name)
        .await?;
    let issued = plane
        .tokens
        .issue_agent(account_id, claim_of(&mapping))
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

/// The claim a token of the agent `mapping` carries: its stored token id.
pub fn claim_of(mapping: &AgentMapping) -> AgentClaim {
    AgentClaim {
        agent_id: mapping.agent_id.clone(),
        character_id: mapping.character_id.clone(),
        token_id: mapping.token_id.clone(),
    }
}
