//! Our own tokens: HS256 JWTs signed with the server secret; claims `sub` (account id), `iat`, `exp`,
//! `iss` = "wayfarer" (CONTRACT.md section 4), and for revocation (`auth::revocation`) `jti`, the
//! token's own id, and `iatMs`, the issue time to the millisecond (so that "log out everywhere"
//! and a login in the same second are told apart). We never set `nbf`, but a token that carries one is
//! refused until that time (RFC 7519 section 4.1.5), as provider tokens are; without leeway, like
//! `exp`: these tokens come from this server's own clock.

use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use super::revocation::TokenStamp;
use super::AuthError;

/// The issuer of every server token.
pub const ISSUER: &str = "wayfarer";
/// How long a server token lives.
pub const TOKEN_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
/// How long an agent token lives: agents run unattended for long stretches, so longer than an
/// account's token; registering the agent again issues a new one and revokes the old at once.
pub const AGENT_TOKEN_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// The claims of a server token.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claims {
    pub sub: String,
    pub iat: u64,
    pub exp: u64,
    pub iss: String,
    /// The token's id (a random UUID), by which it is revoked alone. Tokens issued before tokens
    /// had one are named by their digest instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<String>,
    /// `iat` to the millisecond.
    #[serde(default, rename = "iatMs", skip_serializing_if = "Option::is_none")]
    pub iat_ms: Option<u64>,
    /// Present only on agent tokens: what the token is limited to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentClaim>,
}

/// The limit an agent token carries: the game host's, which registers agents.
pub use wayfarer_host::agents::AgentClaim;

/// What a valid server token stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verified {
    /// The account itself (`sub`).
    Account(String),
    /// An agent of the account `account_id`, limited by the claim.
    Agent {
        account_id: String,
        claim: AgentClaim,
    },
}

/// A freshly issued token.
#[derive(Debug, Clone)]
pub struct IssuedToken {
    pub token: String,
    /// Seconds since the Unix epoch.
    pub expires_at: u64,
    /// Its `jti`.
    pub id: String,
}

/// Issues and verifies server tokens.
pub struct ServerTokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl ServerTokens {
    /// Tokens signed with `secret`.
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_required_spec_claims(&["exp", "sub", "iss"]);
        validation.validate_aud = false;
        validation.validate_nbf = true;
        validation.leeway = 0;
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        }
    }

    /// A token for `account_id`, valid for [`TOKEN_TTL`].
    pub fn issue(&self, account_id: &str) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign(account_id, TOKEN_TTL, None)
    }

    /// A token limited to one agent of `account_id`, valid for [`AGENT_TOKEN_TTL`].
    pub fn issue_agent(
        &self,
        account_id: &str,
        claim: AgentClaim,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        self.sign(account_id, AGENT_TOKEN_TTL, Some(claim))
    }

    fn sign(
        &self,
        account_id: &str,
        ttl: Duration,
        agent: Option<AgentClaim>,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let now = now_ms / 1000;
        let id = uuid::Uuid::new_v4().to_string();
        let claims = Claims {
            sub: account_id.to_owned(),
            iat: now,
            exp: now + ttl.as_secs(),
            iss: ISSUER.into(),
            jti: Some(id.clone()),
            iat_ms: Some(now_ms),
            agent,
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)?;
        Ok(IssuedToken {
            token,
            expires_at: claims.exp,
            id,
        })
    }

    /// What a valid token stands for, and its stamp for the revocation checks.
    pub fn verify(&self, token: &str) -> Result<(Verified, TokenStamp), AuthError> {
        // Decoded as JSON first, so a claim missing or of the wrong type is told by name
        // (`read_claims`) rather than by the JSON parser.
        let claims =
            jsonwebtoken::decode::<serde_json::Value>(token, &self.decoding, &self.validation)
                .map_err(|err| super::token_refusal(&err, token))?
                .claims;
        let claims: Claims = super::read_claims(claims)?;
        let issued_at_ms = claims.iat_ms.or(Some(claims.iat.saturating_mul(1000)));
        let stamp = TokenStamp::new(token, claims.jti, issued_at_ms, claims.exp);
        let verified = match claims.agent {
            None => Verified::Account(claims.sub),
            Some(claim) => Verified::Agent {
                account_id: claims.sub,
                claim,
            },
        };
        Ok((verified, stamp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_tokens_verify_and_carry_the_contract_claims() {
        let tokens = ServerTokens::new(b"0123456789abcdef0123456789abcdef");
        let issued = tokens.issue("acct-1").unwrap();
        let (verified, stamp) = tokens.verify(&issued.token).unwrap();
        assert_eq!(verified, Verified::Account("acct-1".into()));
        let claims = jsonwebtoken::dangerous::insecure_decode::<Claims>(&issued.token)
            .unwrap()
            .claims;
        assert_eq!(claims.iss, "wayfarer");
        assert_eq!(claims.exp - claims.iat, TOKEN_TTL.as_secs());
        // Each token has its own id and says when it was issued to the millisecond.
        assert_eq!(claims.jti.as_deref(), Some(issued.id.as_str()));
        assert_eq!(stamp.id, issued.id);
        assert_ne!(tokens.issue("acct-1").unwrap().id, issued.id);
        let iat_ms = claims.iat_ms.unwrap();
        assert_eq!(iat_ms / 1000, claims.iat);
        assert_eq!(stamp.issued_at_ms, iat_ms as i64);
        assert_eq!(stamp.expires_at_ms, claims.exp as i64 * 1000);
        let other = ServerTokens::new(b"another secret, also 32 bytes!!!");
        assert!(other.verify(&issued.token).is_err());
    }

    #[test]
    fn a_token_is_refused_before_its_nbf() {
        let secret = b"0123456789abcdef0123456789abcdef";
        let tokens = ServerTokens::new(secret);
        let now = jsonwebtoken::get_current_timestamp();
        let sign = |nbf: u64| {
            let claims = serde_json::json!({
                "sub": "acct-1", "iat": now, "exp": now + 3600, "iss": ISSUER, "nbf": nbf
            });
            jsonwebtoken::encode(
                &Header::new(Algorithm::HS256),
                &claims,
                &EncodingKey::from_secret(secret),
            )
            .unwrap()
        };
        assert!(tokens.verify(&sign(now + 60)).is_err(), "not valid yet");
        let account = Verified::Account("acct-1".into());
        assert_eq!(tokens.verify(&sign(now)).unwrap().0, account);
        let (verified, stamp) = tokens.verify(&sign(now - 60)).unwrap();
        assert_eq!(verified, account);
        // A token without `jti` or `iatMs` (as issued before they existed) is still named and
        // dated: by its digest, and by `iat`.
        assert!(stamp.id.starts_with("sha256:"));
        assert_eq!(stamp.issued_at_ms, now as i64 * 1000);
    }

    #[test]
    fn an_agent_token_says_it_is_one() {
        let tokens = ServerTokens::new(b"0123456789abcdef0123456789abcdef");
        let claim = AgentClaim {
            agent_id: "agent-1".into(),
            character_id: "char-1".into(),
            token_id: "tok-1".into(),
        };
        let issued = tokens.issue_agent("acct-1", claim.clone()).unwrap();
        assert_eq!(
            tokens.verify(&issued.token).unwrap().0,
            Verified::Agent {
                account_id: "acct-1".into(),
                claim
            }
        );
        let claims = jsonwebtoken::dangerous::insecure_decode::<Claims>(&issued.token)
            .unwrap()
            .claims;
        assert_eq!(claims.exp - claims.iat, AGENT_TOKEN_TTL.as_secs());
    }
}
