//! The server's machine-readable descriptions: `GET /api/openapi.json`, the OpenAPI 3.1 document of
//! every route (built by utoipa from the handlers' `#[utoipa::path]` attributes as the route table
//! registers them, so a route cannot exist without its description), and `GET /api/protocol.json`,
//! the JSON Schema of every WebSocket event (`wayfarer_protocol::schema`). Both are rendered once
//! when the router is built.
//!
//! What every route of a kind shares is added here rather than repeated in each attribute, because
//! it comes from a layer or an extractor, not from the handler: 401 and 403 on bearer routes
//! (`AuthUser`), 400 and 413 on routes with a JSON body (`ApiJson`), 429 on `/api/*` (the rate
//! limits), and the contract's error body on each.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;
use axum::Extension;
use serde_json::{json, Map, Value};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::OpenApi;
use wayfarer_protocol::{ErrorBody, ErrorCode};

/// The security scheme's name in the document (`security: [{"bearer": []}]`).
pub const BEARER: &str = "bearer";

/// Tags that group the operations, in the order a reader meets them.
pub mod tags {
    pub const SERVICE: &str = "service";
    pub const CONTENT: &str = "content";
    pub const AUTH: &str = "auth";
    pub const CHARACTERS: &str = "characters";
    pub const PLAYERS: &str = "players";
    pub const WORLD: &str = "world";
    pub const ADMIN: &str = "admin";
    pub const GAME_SOCKET: &str = "game socket";
    pub const AGENTS: &str = "agents";
}

/// The document before any route: its info, the bearer scheme and the error body schemas.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "Wayfarer",
        description = "The REST surface of the Wayfarer game server. Every response with status >= 400 \
            has the body ErrorBody. The WebSocket events are described by GET /api/protocol.json; \
            docs/protocol.md says what each route and event does.",
        license(name = "MIT")
    ),
    components(schemas(ErrorBody, ErrorCode)),
    modifiers(&BearerScheme),
    tags(
        (name = "service", description = "Health, status and metrics of the running server, and these descriptions"),
        (name = "content", description = "The active content: manifests, skill unlocks, areas, character templates"),
        (name = "auth", description = "Accounts and bearer tokens"),
        (name = "characters", description = "The caller's own characters"),
        (name = "players", description = "Public data about any player"),
        (name = "world", description = "The running world"),
        (name = "admin", description = "Operations for accounts with the admin role"),
        (name = "game socket", description = "The WebSocket game channel"),
        (name = "agents", description = "Registering agents and steering them (an account's token, or its agent's)")
    )
)]
struct Base;

/// Adds the bearer-token scheme (our HS256 tokens or the identity provider's ES256 ones).
struct BearerScheme;

impl utoipa::Modify for BearerScheme {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut http = Http::new(HttpAuthScheme::Bearer);
        http.bearer_format = Some("JWT".to_owned());
        http.description = Some(
            "A token from POST /api/auth/guest, /api/auth/refresh or /api/auth/idp, or an identity \
             provider's token."
                .to_owned(),
        );
        components.add_security_scheme(BEARER, SecurityScheme::Http(http));
    }
}

/// The document every route is added to.
pub fn base() -> OpenApi {
    <Base as utoipa::OpenApi>::openapi()
}

/// Both documents, rendered once.
#[derive(Debug, Clone)]
pub struct Documents {
    openapi: Bytes,
    protocol: Bytes,
}

impl Documents {
    /// Renders the route table's document (finished by [`finish`]) and the protocol's schemas.
    pub fn new(document: OpenApi) -> Arc<Documents> {
        // Both are plain data with string keys: serialising them cannot fail.
        let openapi = finish(serde_json::to_value(document).unwrap_or_default());
        let protocol = wayfarer_protocol::schema::protocol_document();
        Arc::new(Documents {
            openapi: serde_json::to_vec(&openapi).unwrap_or_default().into(),
            protocol: serde_json::to_vec(&protocol).unwrap_or_default().into(),
        })
    }
}

fn json_body(bytes: &Bytes) -> axum::response::Response {
    ([(header::CONTENT_TYPE, "application/json")], bytes.clone()).into_response()
}

/// `GET /api/openapi.json`.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = tags::SERVICE,
    summary = "This document",
    description = "The OpenAPI 3.1 description of every route of this server.",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json", body = Object))
)]
pub async fn openapi_json(Extension(documents): Extension<Arc<Documents>>) -> impl IntoResponse {
    json_body(&documents.openapi)
}

/// `GET /api/protocol.json`.
#[utoipa::path(
    get,
    path = "/api/protocol.json",
    tag = tags::SERVICE,
    summary = "The WebSocket events' JSON Schemas",
    description = "One JSON Schema (draft 2020-12): `clientToServer` and `serverToClient` map each \
        event name to the schema of its frame `{\"type\", \"data\", \"ref\"?}`; shared shapes are in `$defs`.",
    responses((status = 200, description = "The protocol document", content_type = "application/json", body = Object))
)]
pub async fn protocol_json(Extension(documents): Extension<Arc<Documents>>) -> impl IntoResponse {
    json_body(&documents.protocol)
}

/// The document as served: catch-all segments renamed to OpenAPI's template syntax, and the error
/// responses every route of a kind shares added to each of its operations.
pub fn finish(mut document: Value) -> Value {
    if let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) {
        let renamed: Map<String, Value> = std::mem::take(paths)
            .into_iter()
            .map(|(path, mut item)| {
                let path = openapi_path(&path);
                if let Some(item) = item.as_object_mut() {
                    for (method, operation) in item.iter_mut() {
                        if is_method(method) {
                            add_shared_errors(&path, operation);
                        }
                    }
                }
                (path, item)
            })
            .collect();
        *paths = renamed;
    }
    document
}

/// `/manifests/{*file}` (axum's catch-all) is `/manifests/{file}` in OpenAPI.
pub fn openapi_path(axum_path: &str) -> String {
    axum_path.replace("{*", "{")
}

fn is_method(key: &str) -> bool {
    matches!(
        key,
        "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace"
    )
}

/// Adds, unless the attribute already says it, the errors a layer or an extractor gives.
fn add_shared_errors(path: &str, operation: &mut Value) {
    let secured = operation
        .get("security")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|r| r.get(BEARER).is_some()));
    let has_body = operation.get("requestBody").is_some();
    let Some(responses) = operation
        .get_mut("responses")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut add = |status: &str, description: &str| {
        responses
            .entry(status.to_owned())
            .or_insert_with(|| error_response(description));
    };
    if has_body {
        add(
            "400",
            "`invalid_json` (the body is not JSON) or `bad_request` (JSON of the wrong shape, or a field out of range)",
        );
        add("413", "`payload_too_large`: the body is over 1 MiB");
    }
    if secured {
        add(
            "401",
            "`unauthorized`: the bearer token is missing, malformed, expired or wrongly signed",
        );
        add(
            "403",
            "`forbidden`: the account is banned (the message names the reason and the end)",
        );
    }
    if path.starts_with("/api/") {
        add(
            "429",
            "`rate_limited`: over the REST or authentication limit (`Retry-After`, `retryAfter`)",
        );
    }
}

/// A response whose body is the contract's error body.
pub fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_errors_follow_the_route_kind() {
        let document = finish(json!({"paths": {
            "/api/x/{*rest}": {"post": {
                "security": [{"bearer": []}],
                "requestBody": {},
                "responses": {"200": {"description": "ok"}, "403": {"description": "admins only"}},
            }},
            "/health": {"get": {"responses": {"200": {"description": "ok"}}}},
        }}));
        let post = &document["paths"]["/api/x/{rest}"]["post"]["responses"];
        for status in ["200", "400", "401", "403", "413", "429"] {
            assert!(post.get(status).is_some(), "{status}");
        }
        assert_eq!(post["403"]["description"], "admins only");
        let health = document["paths"]["/health"]["get"]["responses"]
            .as_object()
            .unwrap();
        assert_eq!(health.len(), 1);
    }

    /// `docs/openapi.json` is the document this server serves, so client developers can read it
    /// without running one.
    #[test]
    fn the_checked_in_openapi_document_is_current() {
        wayfarer_protocol::schema::assert_checked_in(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json"),
            &crate::app::openapi_document(),
            "cargo test -p wayfarer-server --lib the_checked_in_openapi_document_is_current",
        );
    }
}
