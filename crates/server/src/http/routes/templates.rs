//! `GET /api/template` and `GET /api/template/<id>` (public): the character templates of the active
//! content (`templates.json`). `POST /api/character` takes one as `templateId`.

use axum::extract::{Path, State};
use axum::Json;
use serde::Serialize;
use wayfarer_content::CharacterTemplate;
use wayfarer_protocol::ErrorBody;

use crate::app::AppState;
use crate::http::error::ApiError;
use crate::http::openapi::tags;

/// `GET /api/template`'s body.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TemplateList {
    pub templates: Vec<CharacterTemplate>,
}

/// `GET /api/template/<id>`'s body.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OneTemplate {
    pub template: CharacterTemplate,
}

/// `GET /api/template`: every template, by id order.
#[utoipa::path(
    get,
    path = "/api/template",
    tag = tags::CONTENT,
    summary = "Character templates",
    responses((status = 200, description = "Every template of the active content", body = TemplateList))
)]
pub async fn list(State(state): State<AppState>) -> Json<TemplateList> {
    let content = state.content.get();
    let templates = content.content.templates.values().cloned().collect();
    Json(TemplateList { templates })
}

/// `GET /api/template/<id>`.
#[utoipa::path(
    get,
    path = "/api/template/{id}",
    tag = tags::CONTENT,
    summary = "One character template",
    params(("id" = String, Path, description = "The template's id, e.g. `skiller`")),
    responses(
        (status = 200, description = "The template", body = OneTemplate),
        (status = 404, description = "`not_found`: no such template", body = ErrorBody)
    )
)]
pub async fn get(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<OneTemplate>, ApiError> {
    let content = state.content.get();
    let template = content
        .content
        .templates
        .get(&id)
        .cloned()
        .ok_or_else(|| ApiError::not_found(format!("no template `{id}`")))?;
    Ok(Json(OneTemplate { template }))
}
