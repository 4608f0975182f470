//! The server's control plane as the agent hears it: an agent registered by its owner
//! (`POST /api/agent/register`) gets `agent:goal` on entry and whenever the owner sets a goal, and
//! `agent:stop`, `agent:resume` and `agent:message`; it reports back with `agent:status`
//! (docs/agent-control.md). Connections without an agent token hear none of these and send no
//! status, so the same runtime plays for the CLI with `--name` and for a registered agent.

use std::collections::VecDeque;

use serde_json::json;
use wayfarer_protocol::agent::{
    ActionReport, AgentStatus, DecisionReport, ReportedGoal, MAX_TEXT_CHARS,
};
use wayfarer_protocol::ws::{ClientMessage, ServerMessage};

use crate::goals::Goal;
use crate::model::Model;
use crate::runtime::{goal_kind, DecisionRecord};

/// Most actions and decisions in one report (the server refuses more).
pub const MAX_REPORTED: usize = 20;

/// What a control-plane message asks of the agent.
#[derive(Debug)]
pub enum PlaneEvent {
    /// The stored goal (`None`: the agent picks its own) and whether the agent is stopped.
    Goal {
        id: Option<String>,
        goal: Option<Goal>,
        paused: bool,
    },
    Stop,
    Resume,
    /// The owner's message: an action command or free text.
    Message(String),
}

/// The control-plane event in a server message, if it is one.
pub fn event_of(message: &ServerMessage) -> Option<PlaneEvent> {
    match message {
        ServerMessage::AgentGoal(g) => {
            let goal = g.goal.as_ref().and_then(|goal| {
                let request = json!({
                    "kind": goal.kind,
                    "target": goal.target,
                    "description": goal.description,
                });
                match Goal::from_request(&request) {
                    Ok(parsed) => Some(parsed),
                    Err(e) => {
                        tracing::warn!(kind = %goal.kind, error = %e, "a goal from the server this agent cannot pursue: choosing its own");
                        None
                    }
                }
            });
            Some(PlaneEvent::Goal {
                id: g.goal.as_ref().map(|goal| goal.id.clone()),
                goal,
                paused: g.paused,
            })
        }
        ServerMessage::AgentStop(_) => Some(PlaneEvent::Stop),
        ServerMessage::AgentResume(_) => Some(PlaneEvent::Resume),
        ServerMessage::AgentMessage(m) => Some(PlaneEvent::Message(m.text.clone())),
        _ => None,
    }
}

/// The `agent:status` frame: the goal (with the server's id when it is the server's goal), its
/// progress, the pause, the last actions, the decisions after `since` (by number) and the tokens
/// spent.
pub fn status_frame(
    goal: &Goal,
    server_goal_id: Option<&str>,
    model: &Model,
    paused: bool,
    recent: &VecDeque<DecisionRecord>,
    since: u64,
    tokens_spent: u64,
) -> ClientMessage {
    let target = serde_json::to_value(&goal.kind)
        .ok()
        .and_then(|v| v.get("target").cloned());
    let clip = |text: &str| text.chars().take(MAX_TEXT_CHARS).collect::<String>();
    let finished: Vec<&DecisionRecord> = recent.iter().filter(|d| d.outcome.is_some()).collect();
    let last_actions: Vec<ActionReport> = finished[finished.len().saturating_sub(MAX_REPORTED)..]
        .iter()
        .map(|d| {
            let outcome = d.outcome.as_ref().expect("filtered");
            ActionReport {
                action: d.action.to_owned(),
                outcome: outcome.kind().to_owned(),
                code: match outcome {
                    crate::outcome::Outcome::Rejected { code, .. } => Some(clip(code.as_str())),
                    _ => None,
                },
                ts: None,
            }
        })
        .collect();
    let fresh: Vec<&DecisionRecord> = recent.iter().filter(|d| d.number > since).collect();
    let decisions: Vec<DecisionReport> = fresh[fresh.len().saturating_sub(MAX_REPORTED)..]
        .iter()
        .map(|d| DecisionReport {
            action: d.action.to_owned(),
            goal: d.goal.as_deref().map(clip),
            reason: Some(clip(&d.reason)),
            brain: Some(d.by.to_owned()),
            outcome: d.outcome.as_ref().map(|o| o.kind().to_owned()),
            ts: None,
        })
        .collect();
    let status = AgentStatus {
        goal: Some(ReportedGoal {
            id: server_goal_id.map(str::to_owned),
            kind: goal_kind(goal).to_owned(),
            description: Some(clip(&goal.description)),
            target: target.filter(|t| !t.is_null()),
        }),
        progress: goal.progress(model).map(|p| p.clamp(0.0, 1.0)),
        paused: Some(paused),
        last_actions,
        decisions,
        tokens_spent: Some(tokens_spent),
        model: None,
    };
    ClientMessage::AgentStatus(Box::new(status))
}
