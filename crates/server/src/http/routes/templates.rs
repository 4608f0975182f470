//! `GET /api/template` and `GET /api/template/<id>` (public): the character templates of the active
//! content (`templates.json`). `POST /api/character` takes one as `templateId`.

use axum::extract::{Path, State};
use axum::Json;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::http::error::ApiError;

/// `GET /api/template`: every template, by id order.
pub async fn list(State(state): State<AppState>) -> Json<Value> {
    let content = state.content.get();
    let templates: Vec<_> = content.content.templates.values().collect();
    Json(json!({ "templates": templates }))
}

/// `GET /api/template/<id>`.
pub async fn get(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let content = state.content.get();
    let template = content
        .content
        .templates
        .get(&id)
        .ok_or_else(|| ApiError::not_found(format!("no template `{id}`")))?;
    Ok(Json(json!({ "template": template })))
}
