//! Registering an agent for a new character: the character is made (with the starter kit, at the
//! spawn point, under the account's limits and, for a request, its address's:
//! `characters::creation`), then registered as any character is. Registering itself is the game
//! host's (`wayfarer_host::agents::registration`, re-exported here); the server signs the agents'
//! tokens for it with its own keys ([`AgentTokens`] for [`AuthService`]). The token lives
//! [`AGENT_TOKEN_TTL`] (30 days).

use wayfarer_host::agents::{AgentClaim, AgentTokens, IssuedAgentToken};
use wayfarer_protocol::agent::Registered;
use wayfarer_protocol::ErrorCode;
use wayfarer_store::{AgentMapping, StoreError};

pub use wayfarer_host::agents::registration::{register_character, RegistrationError};

use crate::app::AppState;
pub use crate::auth::tokens::AGENT_TOKEN_TTL;
use crate::auth::AuthService;
use crate::characters::creation::{self, CreationError};
use crate::characters::CharacterName;
use crate::service_errors::store_code;

/// The server's keys sign the tokens the host's registration and embedded agents hand out.
impl AgentTokens for AuthService {
    fn issue_agent(&self, account_id: &str, claim: AgentClaim) -> Result<IssuedAgentToken, String> {
        self.tokens
            .issue_agent(account_id, claim)
            .map(|issued| IssuedAgentToken {
                token: issued.token,
                expires_at: issued.expires_at,
            })
            .map_err(|err| err.to_string())
    }
}

/// Why an agent with a new character was not registered.
#[derive(Debug, thiserror::Error)]
pub enum NewAgentError {
    /// `unauthorized`.
    #[error("the account no longer exists")]
    UnknownAccount,
    /// The new character was not created.
    #[error(transparent)]
    Creation(#[from] CreationError),
    #[error(transparent)]
    Registration(#[from] RegistrationError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl NewAgentError {
    /// The contract code it is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            NewAgentError::UnknownAccount => ErrorCode::Unauthorized,
            NewAgentError::Creation(err) => err.code(),
            NewAgentError::Registration(err) => err.code(),
            NewAgentError::Store(err) => store_code(err),
        }
    }
}

/// Creates a character named `name` for the account (with the starter kit, at the spawn point,
/// under the account's limits and, for a request, its address's: `characters::creation`) and
/// registers its agent. The account's active character stays what it was: the owner's own client
/// must not open the agent's character and replace the agent's connection.
pub async fn register_new_character(
    state: &AppState,
    account_id: &str,
    name: &CharacterName,
    origin: Option<creation::Origin>,
) -> Result<(AgentMapping, Registered), NewAgentError> {
    let previous = state
        .store
        .users()
        .get(account_id)
        .await?
        .ok_or(NewAgentError::UnknownAccount)?
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
    Ok(register_character(state, account_id, &character).await?)
}
