//! Steering an agent: its goal, stop (pause) and resume, owner messages, and taking its status
//! reports. Goal and pause are written to `agent_mappings` first (so they survive the agent
//! reconnecting and a restart), then relayed to the agent's live connection as `agent:*` events
//! through the world thread (delivered after the next tick, in order with the game's messages).
//! Stopping also cancels the character's walk in the world itself: the path is cleared by the
//! next tick whether or not the agent ever hears of the stop.

use std::sync::Arc;

use wayfarer_content::Content;
use wayfarer_protocol::agent::{
    AgentGoal, AgentMessage, AgentPause, AgentStatus, Goal, GoalRequest, GoalState, GoalTarget,
};
use wayfarer_protocol::ws::ServerMessage;
use wayfarer_protocol::ErrorCode;
use wayfarer_sim::Command;
use wayfarer_store::{AgentMapping, StoreError};

use super::AgentPlane;
use crate::service_errors::store_code;
use crate::world_thread::WorldInput;

/// Why steering an agent failed.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// `bad_request`: the goal does not read, or names what content lacks.
    #[error("{0}")]
    InvalidGoal(String),
    /// `conflict`.
    #[error("the agent is paused: resume it (POST …/goal/resume) before setting a goal")]
    Paused,
    /// `not_found`.
    #[error("no such agent")]
    NoSuchAgent,
    /// `internal`: a goal could not be written as JSON.
    #[error("the goal could not be encoded: {0}")]
    Encode(#[from] serde_json::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ControlError {
    /// The contract code it is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            ControlError::InvalidGoal(_) => ErrorCode::BadRequest,
            ControlError::Paused => ErrorCode::Conflict,
            ControlError::NoSuchAgent => ErrorCode::NotFound,
            ControlError::Encode(_) => ErrorCode::Internal,
            ControlError::Store(err) => store_code(err),
        }
    }
}

/// Reads the stored goal (JSON written by this module); a row that does not read is treated as no
/// goal, and said in the log, rather than failing every route of the agent.
pub fn stored_goal(mapping: &AgentMapping) -> Option<Goal> {
    let text = mapping.goal.as_deref()?;
    match serde_json::from_str(text) {
        Ok(goal) => Some(goal),
        Err(err) => {
            tracing::warn!(agent = %mapping.agent_id, error = %err, "stored agent goal does not read");
            None
        }
    }
}

/// `GET /api/agents/<id>/goal`: the stored goal with the progress the agent last reported for it.
pub fn goal_state(plane: &impl AsRef<AgentPlane>, mapping: &AgentMapping) -> GoalState {
    let plane = plane.as_ref();
    let goal = stored_goal(mapping).map(|mut goal| {
        goal.progress = plane.hub.progress_of(&mapping.agent_id, &goal.id);
        goal
    });
    GoalState {
        agent_id: mapping.agent_id.clone(),
        character_id: mapping.character_id.clone(),
        goal,
        paused: mapping.paused,
    }
}

/// Checks a goal request (kind, target shape, and that the ids it names exist in `content`, the
/// active content) and makes the goal, set now by `set_by`.
pub fn make_goal(content: &Content, request: &GoalRequest, set_by: &str) -> Result<Goal, String> {
    let target = request.target()?;
    let item = |id: &str| {
        content
            .items
            .contains_key(id)
            .then_some(())
            .ok_or_else(|| format!("target.itemId: no item `{id}`"))
    };
    let area = |id: &Option<String>| match id {
        Some(id) if !content.areas.contains_key(id.as_str()) => {
            Err(format!("target.areaId: no area `{id}`"))
        }
        _ => Ok(()),
    };
    match &target {
        GoalTarget::Gather(t) => item(&t.item_id)?,
        GoalTarget::Cook(t) => {
            if let Some(id) = &t.item_id {
                item(id)?;
            }
        }
        GoalTarget::Combat(t) | GoalTarget::Explore(t) => {
            area(&t.area_id)?;
            if let Some(npc) = &t.npc_id {
                if !content.npcs.contains_key(npc.as_str()) {
                    return Err(format!("target.npcId: no NPC `{npc}`"));
                }
            }
        }
        GoalTarget::Skill(_)
        | GoalTarget::Earn(_)
        | GoalTarget::Follow(_)
        | GoalTarget::Duel(_)
        | GoalTarget::None(_) => {}
    }
    let description = match request.description.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => text.to_owned(),
        _ => target.describe(&request.kind),
    };
    Ok(Goal {
        id: wayfarer_store::new_id(),
        kind: request.kind.clone(),
        description,
        target: Some(serde_json::to_value(&target).unwrap_or_default()),
        progress: None,
        set_at: crate::timestamps::now_iso8601(),
        set_by: set_by.to_owned(),
    })
}

/// Sends `message` to the agent's live connection; `false` when it is not connected.
fn relay(plane: &AgentPlane, agent_id: &str, message: ServerMessage) -> bool {
    match plane.hub.live_character(agent_id) {
        Some(character) => plane.world.send(WorldInput::Notify {
            to: vec![character],
            message: Arc::new(message),
        }),
        None => false,
    }
}

/// `POST /api/agents/<id>/goal`, set by `set_by` (`owner`, `agent` or `admin`): 409 while paused
/// (the goal is written only if the agent is not paused, in one statement, so a stop racing it
/// wins). `content` is the active content the goal's ids are checked against.
pub async fn set_goal(
    plane: &impl AsRef<AgentPlane>,
    content: &Content,
    mapping: &AgentMapping,
    request: &GoalRequest,
    set_by: &str,
) -> Result<Goal, ControlError> {
    let state = plane.as_ref();
    let goal = make_goal(content, request, set_by).map_err(ControlError::InvalidGoal)?;
    let text = serde_json::to_string(&goal)?;
    let written = state
        .store
        .agents()
        .set_goal(&mapping.agent_id, Some(&text), true)
        .await?;
    if !written {
        return Err(ControlError::Paused);
    }
    state
        .hub
        .set_control(&mapping.agent_id, Some(goal.clone()), false);
    relay(
        state,
        &mapping.agent_id,
        ServerMessage::AgentGoal(AgentGoal {
            agent_id: mapping.agent_id.clone(),
            goal: Some(goal.clone()),
            paused: false,
        }),
    );
    Ok(goal)
}

/// `POST …/goal/stop` and `POST …/goal/resume`. Stopping clears the character's walk in the world
/// by the next tick (the agent may not be connected, or may be slow to hear of it).
pub async fn set_paused(
    plane: &impl AsRef<AgentPlane>,
    mapping: &AgentMapping,
    paused: bool,
) -> Result<(), ControlError> {
    let state = plane.as_ref();
    if !state
        .store
        .agents()
        .set_paused(&mapping.agent_id, paused)
        .await?
    {
        return Err(ControlError::NoSuchAgent);
    }
    if paused {
        state.world.send(WorldInput::Sim(Command::Stop {
            id: mapping.character_id.clone(),
        }));
    }
    state
        .hub
        .set_control(&mapping.agent_id, stored_goal(mapping), paused);
    let event = AgentPause {
        agent_id: mapping.agent_id.clone(),
        paused,
    };
    relay(
        state,
        &mapping.agent_id,
        if paused {
            ServerMessage::AgentStop(event)
        } else {
            ServerMessage::AgentResume(event)
        },
    );
    tracing::info!(agent = %mapping.agent_id, paused, "agent paused or resumed by its owner");
    Ok(())
}

/// `POST …/message`: relayed now to a connected agent, else kept for when it enters.
pub fn message(plane: &impl AsRef<AgentPlane>, mapping: &AgentMapping, text: &str) {
    let state = plane.as_ref();
    let message = AgentMessage {
        agent_id: mapping.agent_id.clone(),
        id: wayfarer_store::new_id(),
        text: text.to_owned(),
        paused: mapping.paused,
        ts: wayfarer_store::now_ms(),
    };
    if !relay(
        state,
        &mapping.agent_id,
        ServerMessage::AgentMessage(message.clone()),
    ) {
        state.hub.hold_message(&mapping.agent_id, message);
    }
}

/// An agent connection entered the world: the agent is told its goal and pause as stored, then
/// the owner messages that waited for it (all after its `player:sync` and first `world:update`).
pub async fn entered(
    plane: &impl AsRef<AgentPlane>,
    agent_id: &str,
    connection: u64,
    character_id: &str,
) -> Result<(), ControlError> {
    let state = plane.as_ref();
    let mapping = state
        .store
        .agents()
        .get(agent_id)
        .await?
        .ok_or(ControlError::NoSuchAgent)?;
    let goal = stored_goal(&mapping);
    let waiting = state.hub.connected(
        agent_id,
        connection,
        character_id,
        goal.clone(),
        mapping.paused,
    );
    relay(
        state,
        agent_id,
        ServerMessage::AgentGoal(AgentGoal {
            agent_id: agent_id.to_owned(),
            goal,
            paused: mapping.paused,
        }),
    );
    for message in waiting {
        relay(state, agent_id, ServerMessage::AgentMessage(message));
    }
    Ok(())
}

/// Whether a reported goal is the stored one: by id, or by kind and target.
fn same_goal(stored: &Goal, reported: &wayfarer_protocol::agent::ReportedGoal) -> bool {
    if let Some(id) = &reported.id {
        return *id == stored.id;
    }
    let target = reported.request().target().ok();
    stored.kind == reported.kind
        && stored.target == target.map(|t| serde_json::to_value(t).unwrap_or_default())
}

/// An `agent:status` (already validated). A goal the agent chose itself (it had none, or reports
/// another) becomes its stored goal, marked `setBy: "agent"` — except while it is paused: a pause
/// blocks setting goals, the agent's own included, until its owner resumes it. `content` is the
/// active content a chosen goal's ids are checked against.
pub async fn record_status(
    plane: &impl AsRef<AgentPlane>,
    content: &Content,
    agent_id: &str,
    status: AgentStatus,
) -> Result<(), ControlError> {
    let state = plane.as_ref();
    let (stored, paused) = state.hub.control(agent_id);
    let mut goal_id = stored.as_ref().map(|g| g.id.clone());
    let mut chosen = None;
    if let Some(reported) = &status.goal {
        let known = stored.as_ref().is_some_and(|g| same_goal(g, reported));
        if !known && !paused {
            let goal = make_goal(content, &reported.request(), "agent")
                .map_err(ControlError::InvalidGoal)?;
            goal_id = Some(goal.id.clone());
            chosen = Some(goal);
        } else if !known {
            goal_id = None;
        }
    }
    // The report (progress, decisions) first, then the goal it belongs to: a reader of the
    // owner's routes never sees the agent's new goal without the progress reported with it.
    state.hub.record(agent_id, status, goal_id);
    if let Some(goal) = chosen {
        let text = serde_json::to_string(&goal)?;
        if state
            .store
            .agents()
            .set_goal(agent_id, Some(&text), true)
            .await?
        {
            state.hub.set_control(agent_id, Some(goal), false);
        }
    }
    Ok(())
}
