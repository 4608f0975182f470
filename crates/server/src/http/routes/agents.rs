//! The agent routes: `/api/agent/*` (register, the account's agents, an agent's decisions) and
//! `/api/agents/*` of CONTRACT.md section 7 (goal, stop, resume, message, quick actions, mapping).
//! An account's own token or its agent's token (limited to that agent) may call them; another
//! account gets 403, an unknown agent id 404. Steering is in `crate::agents::control`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use wayfarer_protocol::agent::Registered;
use wayfarer_protocol::agent::{GoalRequest, GoalState, MessageRequest, RegisterRequest};
use wayfarer_protocol::{ErrorBody, ErrorCode};
use wayfarer_store::AgentMapping;

use crate::agents::{control, quick_actions, registration};
use crate::app::AppState;
use crate::characters::{CharacterName, Namer};
use crate::http::auth_user::{AccountOrAgent, AuthUser};
use crate::http::error::ApiError;
use crate::http::json::ApiJson;
use crate::http::openapi::tags;
use crate::http::routes::agent_bodies::{
    AgentDecisions, AgentList, AgentMappingBody, AgentSummary, GoalSet, MessageAccepted,
    PauseState, QuickActions,
};

/// The agent `id` if the caller may read and steer it: 404 when there is none, 403 when it is
/// another account's (unless the caller is an admin, with the account's own token), or when an
/// agent token names another agent.
async fn owned_agent(
    state: &AppState,
    caller: &AccountOrAgent,
    id: &str,
) -> Result<AgentMapping, ApiError> {
    let mapping = state
        .store
        .agents()
        .get(id)
        .await?
        .ok_or_else(|| ApiError::not_found("no such agent"))?;
    let other_agent = caller.agent().is_some_and(|claim| claim.agent_id != id);
    let admin = caller.agent().is_none() && caller.0.is_admin();
    if (mapping.account_id != caller.0.account_id() && !admin) || other_agent {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "this agent belongs to another account",
        ));
    }
    Ok(mapping)
}

/// `POST /api/agent/register` (the account's own token): `{"characterId"}` of one of its
/// characters or `{"name"}` for a new one → 201 `{agentId, characterId, token, expiresAt}`.
#[utoipa::path(
    post,
    path = "/api/agent/register",
    tag = tags::AGENTS,
    summary = "Register an agent for one of the account's characters (or a new one)",
    description = "The account's own token only. `{\"characterId\"}` of one of its characters, or `{\"name\"}` for a new one. A new character follows `POST /api/character`'s rules (names, at most 3 characters, starting items for the account's first 3 characters only, and for 3 accounts per address in 24 hours). Registering a character again keeps its agent, goal and pause and issues a new token (the old one stops working). The token opens `/ws` for that character and the agent routes of that agent, nothing else.",
    security(("bearer" = [])),
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "The agent and its token", body = Registered),
        (status = 400, description = "`bad_request`: neither or both fields, an empty id, an invalid name", body = ErrorBody),
        (status = 404, description = "`not_found`: no such character on this account", body = ErrorBody),
        (status = 409, description = "`conflict`: the name is taken, or the account has 3 characters", body = ErrorBody)
    )
)]
pub async fn register(
    State(state): State<AppState>,
    auth: AuthUser,
    origin: crate::characters::creation::Origin,
    ApiJson(body): ApiJson<RegisterRequest>,
) -> Result<(StatusCode, Json<Registered>), ApiError> {
    let (_, registered) = match (body.character_id, body.name) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad_request(
                "give either characterId or name, not both",
            ))
        }
        (None, None) => {
            return Err(ApiError::bad_request(
                "characterId (one of your characters) or name (a new character) is required",
            ))
        }
        (Some(id), None) => {
            if id.trim().is_empty() {
                return Err(ApiError::bad_request("characterId: empty"));
            }
            let character = state
                .store
                .characters()
                .get(&id)
                .await?
                .filter(|c| c.account_id == auth.account_id())
                .ok_or_else(|| ApiError::not_found("no such character on this account"))?;
            registration::register_character(&state, auth.account_id(), &character).await?
        }
        (None, Some(name)) => {
            let name = CharacterName::parse(&name, Namer::admin_if(auth.is_admin()))?;
            registration::register_new_character(&state, auth.account_id(), &name, Some(origin))
                .await?
        }
    };
    Ok((StatusCode::CREATED, Json(registered)))
}

/// What the routes show of one agent.
fn summary(state: &AppState, mapping: &AgentMapping) -> AgentSummary {
    let goal = control::goal_state(state, mapping);
    AgentSummary {
        agent_id: mapping.agent_id.clone(),
        character_id: mapping.character_id.clone(),
        name: mapping.name.clone(),
        connected: state.agents.hub.live_character(&mapping.agent_id).is_some(),
        goal: goal.goal,
        paused: goal.paused,
        status: state.agents.hub.last_report(&mapping.agent_id),
        created_at: crate::timestamps::iso8601_from_ms(mapping.created_at_ms),
    }
}

/// `GET /api/agent`: the account's agents (an agent token sees only its own), each with its goal,
/// pause, whether it is connected and its last status report (`null` before the first).
#[utoipa::path(
    get,
    path = "/api/agent",
    tag = tags::AGENTS,
    summary = "The account's agents",
    description = "Each with its goal, pause, whether it is connected and its last status report (`null` before the first). An agent token sees only its own agent.",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The account's agents", body = AgentList)
    )
)]
pub async fn list(
    State(state): State<AppState>,
    caller: AccountOrAgent,
) -> Result<Json<AgentList>, ApiError> {
    let mappings = state
        .store
        .agents()
        .list_for_account(caller.0.account_id())
        .await?;
    let agents = mappings
        .iter()
        .filter(|m| {
            caller
                .agent()
                .is_none_or(|claim| claim.agent_id == m.agent_id)
        })
        .map(|m| summary(&state, m))
        .collect();
    Ok(Json(AgentList { agents }))
}

/// `GET /api/agent/<id>/decisions`: the decisions the agent reported (the last 100, oldest first,
/// kept in memory since the server started).
#[utoipa::path(
    get,
    path = "/api/agent/{id}/decisions",
    tag = tags::AGENTS,
    summary = "The decisions an agent reported",
    description = "The last 100, oldest first, kept in memory since the server started.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    responses(
        (status = 200, description = "The agent's reported decisions", body = AgentDecisions),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody)
    )
)]
pub async fn decisions(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
) -> Result<Json<AgentDecisions>, ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    Ok(Json(AgentDecisions {
        decisions: state.agents.hub.decisions(&mapping.agent_id),
        agent_id: mapping.agent_id,
    }))
}

/// `GET /api/agents/<id>/goal`.
#[utoipa::path(
    get,
    path = "/api/agents/{id}/goal",
    tag = tags::AGENTS,
    summary = "An agent's goal and pause",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    responses(
        (status = 200, description = "The goal state", body = GoalState),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody)
    )
)]
pub async fn get_goal(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
) -> Result<Json<GoalState>, ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    Ok(Json(control::goal_state(&state, &mapping)))
}

/// `POST /api/agents/<id>/goal` → `{"goal"}`; 409 while paused, 400 for an unknown kind or a bad
/// target.
#[utoipa::path(
    post,
    path = "/api/agents/{id}/goal",
    tag = tags::AGENTS,
    summary = "Set an agent's goal",
    description = "Relayed to the agent's socket (`agent:goal`). 409 while the agent is stopped, until it is resumed.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    request_body(content = GoalRequest, description = "`{kind, target?, description?}`: a goal kind of CONTRACT.md section 7 and its target"),
    responses(
        (status = 200, description = "The goal set", body = GoalSet),
        (status = 400, description = "`bad_request`: an unknown kind or a bad target", body = ErrorBody),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody),
        (status = 409, description = "`conflict`: the agent is stopped", body = ErrorBody)
    )
)]
pub async fn set_goal(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<GoalRequest>,
) -> Result<Json<GoalSet>, ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    let content = state.content.get();
    let goal = control::set_goal(
        &state,
        &content.content,
        &mapping,
        &body,
        set_by(&caller, &mapping),
    )
    .await?;
    Ok(Json(GoalSet { goal }))
}

/// Who a goal set over REST is set by: the agent itself (its own token), the owner (the
/// account's token), or an admin steering another account's agent.
fn set_by(caller: &AccountOrAgent, mapping: &AgentMapping) -> &'static str {
    if caller.agent().is_some() {
        "agent"
    } else if caller.0.account_id() == mapping.account_id {
        "owner"
    } else {
        "admin"
    }
}

/// `POST /api/agents/<id>/goal/stop` → `{"paused":true}`.
#[utoipa::path(
    post,
    path = "/api/agents/{id}/goal/stop",
    tag = tags::AGENTS,
    summary = "Stop an agent",
    description = "Its walk is cancelled in the world at the next tick; the agent hears `agent:stop`.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    responses(
        (status = 200, description = "`{\"paused\":true}`", body = PauseState),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody)
    )
)]
pub async fn stop(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
) -> Result<Json<PauseState>, ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    control::set_paused(&state, &mapping, true).await?;
    Ok(Json(PauseState { paused: true }))
}

/// `POST /api/agents/<id>/goal/resume` → `{"paused":false}`.
#[utoipa::path(
    post,
    path = "/api/agents/{id}/goal/resume",
    tag = tags::AGENTS,
    summary = "Resume a stopped agent",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    responses(
        (status = 200, description = "`{\"paused\":false}`", body = PauseState),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody)
    )
)]
pub async fn resume(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
) -> Result<Json<PauseState>, ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    control::set_paused(&state, &mapping, false).await?;
    Ok(Json(PauseState { paused: false }))
}

/// `POST /api/agents/<id>/message` `{"text"}` → 202 `{"accepted":true}`: relayed to the agent now,
/// or when it next enters the world.
#[utoipa::path(
    post,
    path = "/api/agents/{id}/message",
    tag = tags::AGENTS,
    summary = "Send an agent a message",
    description = "Relayed now (`agent:message`), or when the agent next enters the world.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    request_body = MessageRequest,
    responses(
        (status = 202, description = "`{\"accepted\":true}`", body = MessageAccepted),
        (status = 400, description = "`bad_request`: empty or too long text", body = ErrorBody),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody)
    )
)]
pub async fn message(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<MessageRequest>,
) -> Result<(StatusCode, Json<MessageAccepted>), ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    // The rule of chat, as the agent may repeat it to other players.
    let text = wayfarer_sim::clean_chat_text(&body.text).ok_or_else(|| {
        ApiError::bad_request(format!("`text`: {}", wayfarer_sim::invalid_chat_text()))
    })?;
    control::message(&state, &mapping, &text);
    Ok((
        StatusCode::ACCEPTED,
        Json(MessageAccepted { accepted: true }),
    ))
}

/// `GET /api/agents/<id>/quick-actions` → `{"actions":[{id, label, command}]}` from the
/// character's live surroundings (only what needs no world while it is offline).
#[utoipa::path(
    get,
    path = "/api/agents/{id}/quick-actions",
    tag = tags::AGENTS,
    summary = "Commands that make sense for the agent now",
    description = "From the character's live surroundings; only those that need no world while it is offline.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    responses(
        (status = 200, description = "Commands the owner can send now", body = QuickActions),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody)
    )
)]
pub async fn quick_actions(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
) -> Result<Json<QuickActions>, ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    let around = if state.online.is_online(&mapping.character_id) {
        wayfarer_host::world_thread::surroundings(
            &state.world_sender,
            &mapping.character_id,
            quick_actions::QUICK_ACTION_RADIUS_TILES,
        )
        .await?
    } else {
        None
    };
    let content = state.content.get();
    let actions = quick_actions::quick_actions(&content.content, around.as_deref());
    Ok(Json(QuickActions { actions }))
}

/// `GET /api/agents/mapping/<id>` → `{agentId, characterId, accountId, name}` (the character's
/// current name).
#[utoipa::path(
    get,
    path = "/api/agents/mapping/{id}",
    tag = tags::AGENTS,
    summary = "Which character and account an agent is",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The agent's id")),
    responses(
        (status = 200, description = "The agent's character and account", body = AgentMappingBody),
        (status = 403, description = "`forbidden`: another account's agent", body = ErrorBody),
        (status = 404, description = "`not_found`: no such agent", body = ErrorBody)
    )
)]
pub async fn mapping(
    State(state): State<AppState>,
    caller: AccountOrAgent,
    Path(id): Path<String>,
) -> Result<Json<AgentMappingBody>, ApiError> {
    let mapping = owned_agent(&state, &caller, &id).await?;
    let name = state
        .store
        .characters()
        .get(&mapping.character_id)
        .await?
        .map_or(mapping.name.clone(), |c| c.name);
    Ok(Json(AgentMappingBody {
        agent_id: mapping.agent_id,
        character_id: mapping.character_id,
        account_id: mapping.account_id,
        name,
    }))
}
