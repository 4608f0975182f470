//! The bodies the agent routes (`routes::agents`) answer with, typed so that the OpenAPI document
//! describes exactly what is sent (CONTRACT.md section 7 fixes their shapes).

use serde::Serialize;
use utoipa::ToSchema;
use wayfarer_protocol::agent::{Goal, QuickAction};

use crate::agents::{KeptDecision, LastReport};

/// One agent as `GET /api/agent` shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentSummary {
    pub agent_id: String,
    pub character_id: String,
    pub name: String,
    /// Whether the agent's socket is in the world now.
    pub connected: bool,
    pub goal: Option<Goal>,
    pub paused: bool,
    /// Its last `agent:status` report; null before the first.
    pub status: Option<LastReport>,
    /// ISO 8601 UTC.
    pub created_at: String,
}

/// `GET /api/agent`.
#[derive(Debug, Serialize, ToSchema)]
pub struct AgentList {
    pub agents: Vec<AgentSummary>,
}

/// `GET /api/agent/<id>/decisions`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentDecisions {
    pub agent_id: String,
    /// Oldest first, at most the last 100.
    pub decisions: Vec<KeptDecision>,
}

/// `POST /api/agents/<id>/goal`.
#[derive(Debug, Serialize, ToSchema)]
pub struct GoalSet {
    pub goal: Goal,
}

/// `POST /api/agents/<id>/goal/stop` and `…/resume`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PauseState {
    pub paused: bool,
}

/// `POST /api/agents/<id>/message` (202).
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageAccepted {
    /// Always true: relayed now or kept until the agent enters.
    pub accepted: bool,
}

/// `GET /api/agents/<id>/quick-actions`.
#[derive(Debug, Serialize, ToSchema)]
pub struct QuickActions {
    pub actions: Vec<QuickAction>,
}

/// `GET /api/agents/mapping/<id>`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentMappingBody {
    pub agent_id: String,
    pub character_id: String,
    pub account_id: String,
    /// The character's current name.
    pub name: String,
}
