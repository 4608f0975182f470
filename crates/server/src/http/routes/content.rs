//! Content routes: `GET /manifests/<file>` (so one server can be another's CDN),
//! `GET /api/data/skill-unlocks` (public) and `GET /api/v1/world/areas` (bearer); all with
//! `Cache-Control: public, max-age=300, must-revalidate`, a strong ETag and 304 on a match.

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use wayfarer_content::SkillUnlock;
use wayfarer_protocol::Skill;

use crate::app::AppState;
use crate::content_state::{Tagged, WorldAreas};
use crate::http::auth_user::AccountOrAgent;
use crate::http::compress;
use crate::http::error::ApiError;
use crate::http::openapi::tags;
use wayfarer_protocol::ErrorBody;

/// The body of `GET /api/data/skill-unlocks`: for every skill, what its levels unlock.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // Only described: the body is the content's own map, rendered in `content_state`.
pub struct SkillUnlocks(std::collections::BTreeMap<Skill, Vec<SkillUnlock>>);

/// The manifest cache lifetime of specification section 1.
pub const CACHE_CONTROL: &str = "public, max-age=300, must-revalidate";

/// Whether `If-None-Match` names this entity: `*`, or a listed tag equal to ours by the weak
/// comparison RFC 9110 section 13.1.2 prescribes for `If-None-Match` (`W/"x"` matches `"x"`).
fn matches(headers: &HeaderMap, etag: &str) -> bool {
    let ours = opaque_tag(etag);
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|value| value.trim() == "*" || entity_tags(value).any(|tag| Some(tag) == ours))
}

/// The quoted part of an entity tag (`"x"` of `W/"x"`), or `None` if it is not one.
fn opaque_tag(tag: &str) -> Option<&str> {
    let tag = tag.trim();
    let tag = tag.strip_prefix("W/").unwrap_or(tag);
    (tag.len() >= 2
        && tag.starts_with('"')
        && tag.ends_with('"')
        && !tag[1..tag.len() - 1].contains('"'))
    .then_some(tag)
}

/// The opaque tags of a list of entity tags (`"a", W/"b"`), read quote to quote: a comma inside
/// a tag does not split it.
fn entity_tags(list: &str) -> impl Iterator<Item = &str> {
    let mut rest = list;
    std::iter::from_fn(move || loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_ascii_whitespace());
        if rest.is_empty() {
            return None;
        }
        let start = usize::from(rest.starts_with("W/")) * 2;
        let after_weak = &rest[start..];
        let Some(body) = after_weak.strip_prefix('"') else {
            // Not a tag: skip to the next comma.
            rest = rest.find(',').map_or("", |at| &rest[at..]);
            continue;
        };
        let Some(end) = body.find('"') else {
            rest = "";
            return None;
        };
        let tag = &after_weak[..end + 2];
        rest = &body[end + 1..];
        return Some(tag);
    })
}

/// 200 with the body, or 304 when the client already holds it; gzip-compressed when the request
/// accepts it and the body is worth compressing (`http::compress`), with the gzip form's own tag.
pub fn conditional(headers: &HeaderMap, tagged: &Tagged) -> Response {
    let gzipped = if compress::accepts_gzip(headers) {
        tagged.gzip.get(&tagged.body)
    } else {
        None
    };
    let etag = match gzipped {
        Some(_) => compress::gzip_etag(&tagged.etag),
        None => tagged.etag.clone(),
    };
    let not_modified = matches(headers, &etag);
    let mut response = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let body = gzipped.clone().unwrap_or_else(|| tagged.body.clone());
        (
            [(header::CONTENT_TYPE, "application/json")],
            Body::from(Bytes::from_owner(body)),
        )
            .into_response()
    };
    compress::mark(&mut response, gzipped.is_some() && !not_modified);
    let h = response.headers_mut();
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, etag);
    }
    response
}

/// `GET /manifests/<file>`.
#[utoipa::path(
    get,
    path = "/manifests/{*file}",
    tag = tags::CONTENT,
    summary = "A manifest file of the active content",
    description = "So one server can be another's CDN. Cached for 300 s with a strong ETag; 304 when `If-None-Match` names it.",
    params(
        ("file" = String, Path, description = "The manifest's path, e.g. `items/tools.json`"),
        ("If-None-Match" = Option<String>, Header, description = "Entity tags the client holds (compared weakly), or `*`")
    ),
    responses(
        (status = 200, description = "The manifest as loaded", content_type = "application/json", body = Object,
            headers(("ETag" = String, description = "Strong entity tag"), ("Cache-Control" = String))),
        (status = 304, description = "The client's copy is current"),
        (status = 404, description = "`not_found`: no such manifest", body = ErrorBody)
    )
)]
pub async fn manifest(
    State(state): State<AppState>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let active = state.content.get();
    let tagged = active
        .files
        .get(&file)
        .ok_or_else(|| ApiError::not_found(format!("no manifest {file}")))?;
    Ok(conditional(&headers, tagged))
}

/// `GET /api/data/skill-unlocks`.
#[utoipa::path(
    get,
    path = "/api/data/skill-unlocks",
    tag = tags::CONTENT,
    summary = "What each skill's levels unlock",
    params(("If-None-Match" = Option<String>, Header, description = "Entity tags the client holds, or `*`")),
    responses(
        (status = 200, description = "Every skill's unlocks", body = SkillUnlocks,
            headers(("ETag" = String, description = "Strong entity tag"), ("Cache-Control" = String))),
        (status = 304, description = "The client's copy is current")
    )
)]
pub async fn skill_unlocks(State(state): State<AppState>, headers: HeaderMap) -> Response {
    conditional(&headers, &state.content.get().skill_unlocks)
}

/// `GET /api/v1/world/areas`.
#[utoipa::path(
    get,
    path = "/api/v1/world/areas",
    tag = tags::CONTENT,
    summary = "The world's areas",
    security(("bearer" = [])),
    params(("If-None-Match" = Option<String>, Header, description = "Entity tags the client holds, or `*`")),
    responses(
        (status = 200, description = "Every area of the active content", body = WorldAreas,
            headers(("ETag" = String, description = "Strong entity tag"), ("Cache-Control" = String))),
        (status = 304, description = "The client's copy is current")
    )
)]
pub async fn world_areas(
    State(state): State<AppState>,
    // Public content: an agent's limited token may read it too (agents learn the map from it).
    _auth: AccountOrAgent,
    headers: HeaderMap,
) -> Response {
    conditional(&headers, &state.content.get().areas)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn if_none_match_uses_the_weak_comparison() {
        let etag = r#""abc123""#;
        for value in [
            r#""abc123""#,
            r#"W/"abc123""#,
            r#""other", W/"abc123""#,
            r#"W/"x,y",  "abc123""#,
            "*",
            r#" "abc123" "#,
        ] {
            assert!(matches(&with(value), etag), "{value}");
        }
        for value in [
            r#""abc""#,
            r#"W/"abc12""#,
            r#"abc123"#,
            r#""abc123"#,
            r#"w/"abc123""#,
            r#""x,"abc123""#,
            "",
        ] {
            assert!(!matches(&with(value), etag), "{value}");
        }
        assert!(!matches(&HeaderMap::new(), etag));
    }
}

/// `GET /api/v1/emotes`'s answer.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct EmoteList {
    /// Every emote `player:emote` accepts, in the order a client lists them.
    pub emotes: Vec<&'static str>,
}

/// `GET /api/v1/emotes` (public): the emotes of `player:emote` (CONTRACT §14).
#[utoipa::path(
    get,
    path = "/api/v1/emotes",
    tag = tags::CONTENT,
    summary = "The emotes a player may do",
    description = "The ids `player:emote {emote}` accepts; everyone in view of the player gets `player:emote {playerId, emote}`.",
    responses(
        (status = 200, description = "Every emote id", body = EmoteList)
    )
)]
pub async fn emotes() -> axum::Json<EmoteList> {
    axum::Json(EmoteList {
        emotes: wayfarer_protocol::ws::EMOTES.to_vec(),
    })
}
