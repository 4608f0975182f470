//! The agents' control plane in the game host (docs/agent-control.md): steering an agent over its
//! own socket — goal, stop, resume, owner messages — with goal and pause persisted in
//! `agent_mappings` (`control`), what the agent reports back (`AgentHub`, fed by `agent:status`),
//! the quick actions its owner can send (`quick_actions`), registering an agent for a character
//! (`registration`) and the agents the server runs in its own process (`embedded`). The server's
//! REST routes (`/api/agent*`) and sockets call it, and give it what is theirs: the token signing
//! ([`AgentTokens`]), character creation ([`embedded::AgentCharacters`]) and an HTTP client for
//! the embedded agents (`wayfarer-agent-http`), so the host builds no HTTP crate.
//!
//! An agent is an ordinary player on `/ws`: the server trusts it no more than any client. The hub
//! only remembers which agents are connected, their last report and recent decisions, and owner
//! messages waiting for an agent that is offline; all of it in memory, bounded per agent.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use wayfarer_protocol::agent::{ActionReport, AgentMessage, AgentStatus, DecisionReport, Goal};
use wayfarer_store::Store;

use crate::world_thread::WorldSender;

pub mod control;
pub mod embedded;
pub mod quick_actions;
pub mod registration;

pub use registration::{AgentClaim, AgentTokens, IssuedAgentToken};

/// What the control plane reaches: the store (`agent_mappings`), the world (relaying `agent:*`
/// events, stopping a walk), the hub, and the server's token signing. The server holds one beside
/// its handlers' state.
#[derive(Clone)]
pub struct AgentPlane {
    pub store: Store,
    pub world: WorldSender,
    pub hub: Arc<AgentHub>,
    pub tokens: Arc<dyn AgentTokens>,
}

impl AsRef<AgentPlane> for AgentPlane {
    fn as_ref(&self) -> &AgentPlane {
        self
    }
}

/// Decisions kept per agent for `GET /api/agent/<id>/decisions`.
pub const KEPT_DECISIONS: usize = 100;
/// Owner messages kept for an agent that is not connected, delivered when it enters (older ones
/// are dropped first).
pub const KEPT_MESSAGES: usize = 20;

/// One decision as kept: what the agent reported and when the server received it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeptDecision {
    #[serde(flatten)]
    pub decision: DecisionReport,
    /// Milliseconds since the Unix epoch.
    pub received_at: i64,
}

/// An agent's last report (`agent:status`), as its owner's routes show it.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastReport {
    pub progress: Option<f64>,
    pub paused: Option<bool>,
    pub last_actions: Vec<ActionReport>,
    pub tokens_spent: Option<u64>,
    /// The agent's language model: calls, decisions, fallbacks by why, tokens, mean latency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<wayfarer_protocol::agent::ModelReport>,
    /// ISO 8601 UTC.
    pub reported_at: String,
}

#[derive(Default)]
struct AgentEntry {
    /// The live agent connection: its registration number and character.
    connection: Option<(u64, String)>,
    /// The goal and pause as stored, cached while the agent is connected so that status reports
    /// need no database read.
    goal: Option<Goal>,
    paused: bool,
    /// The goal id the last reported progress belongs to, and the progress.
    progress: Option<(String, f64)>,
    report: Option<LastReport>,
    /// Each kept decision as its JSON text ([`KeptDecision`]): one allocation of its own size,
    /// where the parsed form holds five strings. A thousand embedded agents keep
    /// [`KEPT_DECISIONS`] each that are rarely read, so the cheap form is the kept one.
    decisions: VecDeque<Box<str>>,
    pending: VecDeque<AgentMessage>,
    /// Nobody can read this agent's decisions (see [`AgentHub::unread`]).
    unread: bool,
}

/// Agents' connections and reports, by agent id.
#[derive(Default)]
pub struct AgentHub {
    agents: Mutex<HashMap<String, AgentEntry>>,
}

impl AgentHub {
    fn with<T>(&self, agent_id: &str, f: impl FnOnce(&mut AgentEntry) -> T) -> T {
        let mut agents = self.agents.lock().unwrap_or_else(|p| p.into_inner());
        f(agents.entry(agent_id.to_owned()).or_default())
    }

    fn read<T>(&self, agent_id: &str, f: impl FnOnce(Option<&AgentEntry>) -> T) -> T {
        let agents = self.agents.lock().unwrap_or_else(|p| p.into_inner());
        f(agents.get(agent_id))
    }

    /// An agent connection entered the world with the stored goal and pause; returns the owner
    /// messages that waited for it.
    pub fn connected(
        &self,
        agent_id: &str,
        connection: u64,
        character_id: &str,
        goal: Option<Goal>,
        paused: bool,
    ) -> Vec<AgentMessage> {
        self.with(agent_id, |entry| {
            entry.connection = Some((connection, character_id.to_owned()));
            entry.goal = goal;
            entry.paused = paused;
            entry.pending.drain(..).collect()
        })
    }

    /// Marks an agent whose decisions nobody can read: an embedded agent, whose account (the
    /// server's own) no one signs in to. Its reports still set its goal's progress and its last
    /// report, but its decisions are not kept: a thousand of them would hold
    /// [`KEPT_DECISIONS`] each for no reader.
    pub fn unread(&self, agent_id: &str) {
        self.with(agent_id, |entry| entry.unread = true);
    }

    /// The agent connection `connection` left (a newer one that replaced it stays).
    pub fn disconnected(&self, agent_id: &str, connection: u64) {
        self.with(agent_id, |entry| {
            if entry
                .connection
                .as_ref()
                .is_some_and(|(c, _)| *c == connection)
            {
                entry.connection = None;
            }
        });
    }

    /// The character of the agent's live connection, if it is connected.
    pub fn live_character(&self, agent_id: &str) -> Option<String> {
        self.read(agent_id, |entry| {
            entry.and_then(|e| e.connection.as_ref().map(|(_, c)| c.clone()))
        })
    }

    /// Keeps the cached control state in step with what was stored.
    pub fn set_control(&self, agent_id: &str, goal: Option<Goal>, paused: bool) {
        self.with(agent_id, |entry| {
            entry.goal = goal;
            entry.paused = paused;
        });
    }

    /// The cached goal and pause of a connected agent.
    pub fn control(&self, agent_id: &str) -> (Option<Goal>, bool) {
        self.read(agent_id, |entry| {
            entry.map_or((None, false), |e| (e.goal.clone(), e.paused))
        })
    }

    /// Keeps an owner message for an agent that is not connected (the oldest goes when full).
    pub fn hold_message(&self, agent_id: &str, message: AgentMessage) {
        self.with(agent_id, |entry| {
            if entry.pending.len() == KEPT_MESSAGES {
                entry.pending.pop_front();
            }
            entry.pending.push_back(message);
        });
    }

    /// Takes a validated report: its figures replace the last ones, its decisions are added to
    /// the kept ones; `goal_id` is the goal its progress belongs to.
    pub fn record(&self, agent_id: &str, status: AgentStatus, goal_id: Option<String>) {
        let now = wayfarer_store::now_ms();
        self.with(agent_id, |entry| {
            if let (Some(goal), Some(progress)) = (goal_id, status.progress) {
                entry.progress = Some((goal, progress));
            }
            entry.report = Some(LastReport {
                progress: status.progress,
                paused: status.paused,
                last_actions: status.last_actions,
                tokens_spent: status.tokens_spent,
                model: status.model,
                reported_at: crate::timestamps::iso8601_from_ms(now),
            });
            let decisions = if entry.unread {
                Vec::new()
            } else {
                status.decisions
            };
            for decision in decisions {
                let kept = KeptDecision {
                    decision,
                    received_at: now,
                };
                let Ok(text) = serde_json::to_string(&kept) else {
                    continue;
                };
                if entry.decisions.len() == KEPT_DECISIONS {
                    entry.decisions.pop_front();
                }
                entry.decisions.push_back(text.into_boxed_str());
            }
        });
    }

    /// The progress last reported for goal `goal_id`.
    pub fn progress_of(&self, agent_id: &str, goal_id: &str) -> Option<f64> {
        self.read(agent_id, |entry| {
            entry
                .and_then(|e| e.progress.as_ref())
                .filter(|(id, _)| id == goal_id)
                .map(|(_, p)| *p)
        })
    }

    /// The last report, if the agent ever sent one since the server started.
    pub fn last_report(&self, agent_id: &str) -> Option<LastReport> {
        self.read(agent_id, |entry| entry.and_then(|e| e.report.clone()))
    }

    /// The kept decisions, oldest first.
    pub fn decisions(&self, agent_id: &str) -> Vec<KeptDecision> {
        self.read(agent_id, |entry| {
            entry.map_or_else(Vec::new, |e| {
                e.decisions
                    .iter()
                    .filter_map(|text| serde_json::from_str(text).ok())
                    .collect()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(action: &str) -> DecisionReport {
        DecisionReport {
            action: action.into(),
            goal: None,
            reason: None,
            brain: None,
            outcome: None,
            ts: None,
        }
    }

    #[test]
    fn decisions_and_waiting_messages_are_bounded() {
        let hub = AgentHub::default();
        for n in 0..(KEPT_DECISIONS + 5) {
            let status = AgentStatus {
                decisions: vec![decision(&format!("a{n}"))],
                ..Default::default()
            };
            hub.record("agent", status, None);
        }
        let kept = hub.decisions("agent");
        assert_eq!(kept.len(), KEPT_DECISIONS);
        assert_eq!(kept[0].decision.action, "a5", "the oldest go first");
        for n in 0..(KEPT_MESSAGES + 3) {
            hub.hold_message(
                "agent",
                AgentMessage {
                    agent_id: "agent".into(),
                    id: n.to_string(),
                    text: "hi".into(),
                    paused: false,
                    ts: 0,
                },
            );
        }
        let waiting = hub.connected("agent", 1, "char", None, false);
        assert_eq!(waiting.len(), KEPT_MESSAGES);
        assert_eq!(waiting[0].id, "3");
        assert_eq!(hub.live_character("agent").as_deref(), Some("char"));
        // A replaced connection leaving does not disconnect the newer one.
        hub.connected("agent", 2, "char", None, false);
        hub.disconnected("agent", 1);
        assert!(hub.live_character("agent").is_some());
        hub.disconnected("agent", 2);
        assert!(hub.live_character("agent").is_none());
    }

    #[test]
    fn a_kept_decision_reads_back_as_it_was_reported() {
        let hub = AgentHub::default();
        let full = DecisionReport {
            action: "chopTree".into(),
            goal: Some("woodcutting to 5".into()),
            reason: Some("nearest usable \"tree\" node".into()),
            brain: Some("planner".into()),
            outcome: Some("accepted".into()),
            ts: Some(1_764_000_000_000),
        };
        let status = AgentStatus {
            decisions: vec![full.clone(), decision("idle")],
            ..Default::default()
        };
        hub.record("agent", status, None);
        let kept = hub.decisions("agent");
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].decision, full);
        assert_eq!(kept[1].decision, decision("idle"));
        assert!(kept[0].received_at > 0);
    }

    #[test]
    fn an_unread_agent_keeps_its_progress_but_not_its_decisions() {
        let hub = AgentHub::default();
        hub.unread("embedded");
        let status = AgentStatus {
            progress: Some(0.5),
            decisions: vec![decision("chopTree")],
            ..Default::default()
        };
        hub.record("embedded", status, Some("goal-1".into()));
        assert!(hub.decisions("embedded").is_empty());
        assert_eq!(hub.progress_of("embedded", "goal-1"), Some(0.5));
        assert!(hub.last_report("embedded").is_some());
    }

    #[test]
    fn progress_belongs_to_its_goal() {
        let hub = AgentHub::default();
        let status = AgentStatus {
            progress: Some(0.25),
            ..Default::default()
        };
        hub.record("agent", status, Some("goal-1".into()));
        assert_eq!(hub.progress_of("agent", "goal-1"), Some(0.25));
        assert_eq!(hub.progress_of("agent", "goal-2"), None);
    }
}
