//! `POST /api/voice/token`: a voice-service access token for the caller's active character.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use wayfarer_protocol::ErrorCode;

use crate::app::AppState;
use crate::auth::voice;
use crate::http::auth_user::AuthUser;
use crate::http::error::ApiError;
use crate::http::openapi::tags;
use wayfarer_protocol::ErrorBody;

/// A voice-service access token for the active character.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct VoiceToken {
    pub token: String,
    pub url: String,
    pub room: String,
}

/// `POST /api/voice/token`.
#[utoipa::path(
    post,
    path = "/api/voice/token",
    tag = tags::WORLD,
    summary = "A voice chat token",
    description = "An HS256 token for the voice service's world room, 6 hours.",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The token, the service's address and the room", body = VoiceToken),
        (status = 409, description = "`conflict`: the account has no character", body = ErrorBody),
        (status = 503, description = "`voice_not_configured`: this server has no voice service", body = ErrorBody)
    )
)]
pub async fn token(
    State(state): State<AppState>,
    auth: AuthUser,
) -> Result<Json<VoiceToken>, ApiError> {
    let config = &state.config;
    let (Some(key), Some(secret), Some(url)) = (
        &config.voice_api_key,
        &config.voice_api_secret,
        &config.voice_url,
    ) else {
        return Err(ApiError::new(
            ErrorCode::VoiceNotConfigured,
            "voice chat is not configured on this server",
        ));
    };
    let characters = state
        .store
        .characters()
        .list_for_account(auth.account_id())
        .await?;
    let character =
        crate::characters::active_or_first(&auth.user, &characters, "joining voice chat")?;
    let token =
        voice::issue(key, secret, &character.id, &character.name).map_err(ApiError::internal)?;
    Ok(Json(VoiceToken {
        token,
        url: url.clone(),
        room: voice::WORLD_ROOM.into(),
    }))
}
