//! Access tokens for a LiveKit-compatible voice service: an HS256 JWT signed with `VOICE_API_SECRET`,
//! issuer `VOICE_API_KEY`, identity the character id, and a grant to join the world's room.

use std::time::Duration;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::{Deserialize, Serialize};

/// How long a voice token lives.
pub const VOICE_TOKEN_TTL: Duration = Duration::from_secs(6 * 3600);
/// The room every player of this world joins.
pub const WORLD_ROOM: &str = "wayfarer-world";

/// The LiveKit video grant (the field names are LiveKit's).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct VideoGrant {
    pub room: String,
    pub room_join: bool,
    pub can_publish: bool,
    pub can_subscribe: bool,
}

/// The claims LiveKit expects.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct VoiceClaims {
    pub iss: String,
    pub sub: String,
    pub name: String,
    pub nbf: u64,
    pub iat: u64,
    pub exp: u64,
    pub video: VideoGrant,
}

/// A signed token for `identity` (shown as `name`) to join [`WORLD_ROOM`].
pub fn issue(
    api_key: &str,
    api_secret: &str,
    identity: &str,
    name: &str,
) -> Result<String, jsonwebtoken::errors::Error> {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = VoiceClaims {
        iss: api_key.to_owned(),
        sub: identity.to_owned(),
        name: name.to_owned(),
        nbf: now,
        iat: now,
        exp: now + VOICE_TOKEN_TTL.as_secs(),
        video: VideoGrant {
            room: WORLD_ROOM.into(),
            room_join: true,
            can_publish: true,
            can_subscribe: true,
        },
    };
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(api_secret.as_bytes()),
    )
}
