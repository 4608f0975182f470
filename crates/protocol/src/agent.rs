//! The agent control plane (CONTRACT.md section 7, docs/agent-control.md): goals and the REST bodies
//! of `/api/agents/*` and `/api/agent/*`, the events the server relays to an agent's own socket
//! (`agent:goal`, `agent:stop`, `agent:resume`, `agent:message`) and the status an agent reports
//! over it (`agent:status`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Skill;

/// The goal kinds of CONTRACT.md section 7.
pub const GOAL_KINDS: [&str; 10] = [
    "skill", "combat", "gather", "cook", "bank", "earn", "follow", "explore", "idle", "duel",
];
/// Highest level a `skill` goal may aim for.
pub const MAX_GOAL_LEVEL: u32 = 99;
/// Most units a `gather` goal may ask for (a full bank's worth of one item is far below this).
pub const MAX_GOAL_QUANTITY: u64 = 1_000_000;
/// Most coins an `earn` goal may ask for: the largest stack.
pub const MAX_GOAL_COINS: u64 = 2_147_483_647;
/// Longest goal description, owner message or status text, in characters.
pub const MAX_TEXT_CHARS: usize = 200;
/// Longest id, action name, outcome or code in a status report, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Most entries of `lastActions` and of `decisions` in one `agent:status`.
pub const MAX_REPORTED_ENTRIES: usize = 20;

/// `POST /api/agents/<id>/goal`, and a goal an agent reports choosing itself.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GoalRequest {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Value>,
}

/// A goal's target, read by its kind's shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GoalTarget {
    Skill(SkillTarget),
    Combat(AreaTarget),
    Gather(GatherTarget),
    Cook(CookTarget),
    Earn(EarnTarget),
    Follow(FollowTarget),
    Explore(AreaTarget),
    /// `duel {playerName}`: win a duel against that player (the shape of `follow`'s target).
    Duel(FollowTarget),
    /// `bank` and `idle`.
    None(Empty),
}

/// The target of a `skill` goal.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct SkillTarget {
    pub skill: String,
    pub level: u32,
}

/// The target of a `combat` goal (`npcId`, `areaId`) or an `explore` goal (`areaId`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AreaTarget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npc_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area_id: Option<String>,
}

/// The target of a `gather` goal.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GatherTarget {
    pub item_id: String,
    pub quantity: u64,
}

/// The target of a `cook` goal.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CookTarget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
}

/// The target of an `earn` goal.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct EarnTarget {
    pub coins: u64,
}

/// The target of a `follow` goal (and of a `duel` goal: the player to beat).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FollowTarget {
    pub player_name: String,
}

/// A target without fields.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
pub struct Empty {}

impl GoalRequest {
    /// Checks the kind, the description and the target's shape and ranges; returns the target
    /// read by its kind. The message names what is wrong. (Whether ids exist in content is for the
    /// server to check.)
    pub fn target(&self) -> Result<GoalTarget, String> {
        if let Some(description) = &self.description {
            if description.chars().count() > MAX_TEXT_CHARS {
                return Err(format!("description: at most {MAX_TEXT_CHARS} characters"));
            }
        }
        let raw = match &self.target {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(value) => value.clone(),
        };
        fn read<T: serde::de::DeserializeOwned>(kind: &str, raw: Value) -> Result<T, String> {
            crate::strict::from_value(raw).map_err(|err| {
                format!(
                    "target does not fit a `{kind}` goal: {}",
                    err.describe("the target")
                )
            })
        }
        let kind = self.kind.as_str();
        let target = match kind {
            "skill" => {
                let t: SkillTarget = read(kind, raw)?;
                if Skill::parse(&t.skill).is_none() {
                    return Err(format!("target.skill: no skill `{}`", t.skill));
                }
                if !(1..=MAX_GOAL_LEVEL).contains(&t.level) {
                    return Err(format!("target.level: 1-{MAX_GOAL_LEVEL}"));
                }
                GoalTarget::Skill(t)
            }
            "combat" => GoalTarget::Combat(read(kind, raw)?),
            "explore" => {
                let t: AreaTarget = read(kind, raw)?;
                if t.npc_id.is_some() {
                    return Err("target.npcId: an `explore` goal names only an areaId".into());
                }
                GoalTarget::Explore(t)
            }
            "gather" => {
                let t: GatherTarget = read(kind, raw)?;
                if !(1..=MAX_GOAL_QUANTITY).contains(&t.quantity) {
                    return Err(format!("target.quantity: 1-{MAX_GOAL_QUANTITY}"));
                }
                GoalTarget::Gather(t)
            }
            "cook" => GoalTarget::Cook(read(kind, raw)?),
            "earn" => {
                let t: EarnTarget = read(kind, raw)?;
                if !(1..=MAX_GOAL_COINS).contains(&t.coins) {
                    return Err(format!("target.coins: 1-{MAX_GOAL_COINS}"));
                }
                GoalTarget::Earn(t)
            }
            "follow" => GoalTarget::Follow(player_name(read(kind, raw)?)?),
            "duel" => GoalTarget::Duel(player_name(read(kind, raw)?)?),
            "bank" | "idle" => GoalTarget::None(read(kind, raw)?),
            other => {
                return Err(format!(
                    "unknown goal kind `{other}` (kinds: {})",
                    GOAL_KINDS.join(", ")
                ))
            }
        };
        Ok(target)
    }
}

/// A `follow` or `duel` target whose `playerName` could be a character's name.
fn player_name(t: FollowTarget) -> Result<FollowTarget, String> {
    if t.player_name.trim().is_empty() || t.player_name.chars().count() > MAX_NAME_CHARS {
        return Err("target.playerName: a character name".into());
    }
    Ok(t)
}

impl GoalTarget {
    /// What the goal is, for people, when its setter gave no description.
    pub fn describe(&self, kind: &str) -> String {
        match self {
            GoalTarget::Skill(t) => format!("Train {} to level {}", t.skill, t.level),
            GoalTarget::Combat(t) => match (&t.npc_id, &t.area_id) {
                (Some(npc), Some(area)) => format!("Fight {npc} in {area}"),
                (Some(npc), None) => format!("Fight {npc}"),
                (None, Some(area)) => format!("Fight in {area}"),
                (None, None) => "Fight nearby monsters".into(),
            },
            GoalTarget::Gather(t) => format!("Gather {} {}", t.quantity, t.item_id),
            GoalTarget::Cook(t) => match &t.item_id {
                Some(item) => format!("Cook {item}"),
                None => "Cook what was caught".into(),
            },
            GoalTarget::Earn(t) => format!("Earn {} coins", t.coins),
            GoalTarget::Follow(t) => format!("Follow {}", t.player_name),
            GoalTarget::Duel(t) => format!("Win a duel against {}", t.player_name),
            GoalTarget::Explore(t) => match &t.area_id {
                Some(area) => format!("Explore {area}"),
                None => "Explore the world".into(),
            },
            GoalTarget::None(_) if kind == "bank" => "Bank the inventory".into(),
            GoalTarget::None(_) => "Stay idle".into(),
        }
    }
}

/// A goal as the routes and `agent:goal` show it (CONTRACT.md section 7).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Goal {
    pub id: String,
    pub kind: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Value>,
    /// 0..1, as the agent last reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
    /// ISO 8601 UTC.
    pub set_at: String,
    /// Who set it: `owner` (the account's token), `agent` (the agent's own token, or chosen by the
    /// agent itself) or `admin` (an admin steering another account's agent).
    #[serde(default = "owner")]
    pub set_by: String,
}

fn owner() -> String {
    "owner".into()
}

/// `GET /api/agents/<id>/goal`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GoalState {
    pub agent_id: String,
    pub character_id: String,
    pub goal: Option<Goal>,
    pub paused: bool,
}

/// `POST /api/agents/<id>/message` body.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct MessageRequest {
    pub text: String,
}

/// One entry of `GET /api/agents/<id>/quick-actions`: `command` is what to send as the text of
/// `POST …/message` to have the agent do it (an action name of the action table and its arguments).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct QuickAction {
    pub id: String,
    pub label: String,
    pub command: String,
}

/// `POST /api/agent/register` body: one of the caller's characters, or a name to create one.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisterRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `POST /api/agent/register` → 201.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Registered {
    pub agent_id: String,
    pub character_id: String,
    pub token: String,
    /// ISO 8601 UTC: when the token stops working.
    pub expires_at: String,
}

/// `agent:goal` to the agent: its goal and pause as the server holds them, on entering the world
/// and whenever the owner sets a goal.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentGoal {
    pub agent_id: String,
    pub goal: Option<Goal>,
    pub paused: bool,
}

/// `agent:stop` (`paused: true`) and `agent:resume` (`paused: false`) to the agent.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentPause {
    pub agent_id: String,
    pub paused: bool,
}

/// `agent:message` to the agent: a message from its owner (a quick-action command or free text).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentMessage {
    pub agent_id: String,
    pub id: String,
    pub text: String,
    /// Whether the agent is paused: a paused agent runs the command and returns to idle.
    pub paused: bool,
    /// Milliseconds since the Unix epoch.
    pub ts: i64,
}

/// `agent:status` from the agent: what it is doing, for its owner's routes.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentStatus {
    /// The goal it pursues (the one the server sent, or one it chose when it had none).
    #[serde(default)]
    pub goal: Option<ReportedGoal>,
    /// 0..1.
    #[serde(default)]
    pub progress: Option<f64>,
    #[serde(default)]
    pub paused: Option<bool>,
    #[serde(default)]
    pub last_actions: Vec<ActionReport>,
    /// Decisions since the last report.
    #[serde(default)]
    pub decisions: Vec<DecisionReport>,
    /// Language-model tokens spent since the agent started.
    #[serde(default)]
    pub tokens_spent: Option<u64>,
    /// How its language model fared since the agent started (none without a model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelReport>,
}

/// Most fallback kinds in a [`ModelReport`].
pub const MAX_FALLBACK_KINDS: usize = 16;

/// An agent's language model since the agent started: calls, the decisions it made, the steps
/// the planner took instead (by why: `timeout`, `budget_exhausted`, …), tokens and latency.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelReport {
    pub calls: u64,
    pub decisions: u64,
    #[serde(default)]
    pub fallbacks: std::collections::BTreeMap<String, u64>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of `input_tokens`, those the provider read from its prompt cache (OpenAI's
    /// `cached_tokens`, Anthropic's `cache_read_input_tokens`).
    #[serde(default)]
    pub cached_tokens: u64,
    /// Mean milliseconds from a call to its answer (none before the first answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_latency_ms: Option<u64>,
    /// The median and 95th percentile of the latest answers' latency, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_latency_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95_latency_ms: Option<u64>,
    /// Tokens (in and out) per model call, rounded (none before the first call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_decision: Option<u64>,
}

/// The goal in an `agent:status`: a goal request, with the id of the goal the server sent when it
/// is that one.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedGoal {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Value>,
}

impl ReportedGoal {
    /// The goal as a request.
    pub fn request(&self) -> GoalRequest {
        GoalRequest {
            kind: self.kind.clone(),
            description: self.description.clone(),
            target: self.target.clone(),
        }
    }
}

/// One action in `lastActions`: its name in the action table and how it ended.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionReport {
    pub action: String,
    /// `accepted`, `rejected`, `failed` or `unknown` (after a reconnect).
    pub outcome: String,
    /// The server's reason code of a rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<i64>,
}

/// One decision: the goal it served, the action chosen, why, by which brain and how it ended.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionReport {
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `planner`, `llm`, `reflex`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<i64>,
}

/// The outcomes an action or decision may report.
pub const OUTCOMES: [&str; 4] = ["accepted", "rejected", "failed", "unknown"];

fn short(field: &str, value: &str, max: usize) -> Result<(), String> {
    if value.chars().count() > max {
        return Err(format!("{field}: at most {max} characters"));
    }
    Ok(())
}

fn outcome(field: &str, value: &str) -> Result<(), String> {
    if OUTCOMES.contains(&value) {
        Ok(())
    } else {
        Err(format!("{field}: one of {}", OUTCOMES.join(", ")))
    }
}

impl AgentStatus {
    /// Checks sizes and ranges (the frame limit bounds the whole; this bounds what is kept).
    pub fn validate(&self) -> Result<(), String> {
        if let Some(model) = &self.model {
            if model.fallbacks.len() > MAX_FALLBACK_KINDS {
                return Err(format!(
                    "model.fallbacks: at most {MAX_FALLBACK_KINDS} kinds"
                ));
            }
            for kind in model.fallbacks.keys() {
                short("model.fallbacks", kind, MAX_NAME_CHARS)?;
            }
        }
        if let Some(goal) = &self.goal {
            goal.request().target()?;
            if let Some(id) = &goal.id {
                short("goal.id", id, MAX_NAME_CHARS)?;
            }
        }
        if let Some(progress) = self.progress {
            if !(0.0..=1.0).contains(&progress) {
                return Err("progress: a number from 0 to 1".into());
            }
        }
        if self.last_actions.len() > MAX_REPORTED_ENTRIES {
            return Err(format!("lastActions: at most {MAX_REPORTED_ENTRIES}"));
        }
        if self.decisions.len() > MAX_REPORTED_ENTRIES {
            return Err(format!("decisions: at most {MAX_REPORTED_ENTRIES}"));
        }
        for (i, action) in self.last_actions.iter().enumerate() {
            short(
                &format!("lastActions[{i}].action"),
                &action.action,
                MAX_NAME_CHARS,
            )?;
            outcome(&format!("lastActions[{i}].outcome"), &action.outcome)?;
            if let Some(code) = &action.code {
                short(&format!("lastActions[{i}].code"), code, MAX_NAME_CHARS)?;
            }
        }
        for (i, decision) in self.decisions.iter().enumerate() {
            short(
                &format!("decisions[{i}].action"),
                &decision.action,
                MAX_NAME_CHARS,
            )?;
            for (field, value, max) in [
                ("goal", &decision.goal, MAX_TEXT_CHARS),
                ("reason", &decision.reason, MAX_TEXT_CHARS),
                ("brain", &decision.brain, MAX_NAME_CHARS),
            ] {
                if let Some(value) = value {
                    short(&format!("decisions[{i}].{field}"), value, max)?;
                }
            }
            if let Some(value) = &decision.outcome {
                outcome(&format!("decisions[{i}].outcome"), value)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(kind: &str, target: Value) -> GoalRequest {
        GoalRequest {
            kind: kind.into(),
            description: None,
            target: Some(target),
        }
    }

    #[test]
    fn each_kind_takes_its_own_target() {
        for (kind, target) in [
            ("skill", json!({"skill": "woodcutting", "level": 10})),
            ("combat", json!({"npcId": "goblin"})),
            ("combat", json!({})),
            ("gather", json!({"itemId": "logs", "quantity": 28})),
            ("cook", json!({})),
            ("bank", json!({})),
            ("earn", json!({"coins": 500})),
            ("follow", json!({"playerName": "Bob"})),
            ("duel", json!({"playerName": "Bob"})),
            ("explore", json!({"areaId": "millbrook"})),
            ("idle", Value::Null),
        ] {
            let goal = request(kind, target.clone());
            let read = goal
                .target()
                .unwrap_or_else(|e| panic!("{kind} {target}: {e}"));
            assert!(!read.describe(kind).is_empty());
        }
    }

    #[test]
    fn bad_kinds_and_targets_are_refused() {
        for (kind, target) in [
            ("dance", json!({})),
            ("skill", json!({"skill": "juggling", "level": 10})),
            ("skill", json!({"skill": "woodcutting", "level": 100})),
            ("skill", json!({"skill": "woodcutting"})),
            ("skill", json!([1, 2])),
            ("gather", json!({"itemId": "logs", "quantity": 0})),
            ("gather", json!({"itemId": "logs", "quantity": "5"})),
            ("earn", json!({"coins": -1})),
            ("follow", json!({"playerName": " "})),
            ("duel", json!({})),
            ("duel", json!({"playerName": ""})),
            ("explore", json!({"npcId": "goblin"})),
            ("bank", json!("now")),
        ] {
            assert!(
                request(kind, target.clone()).target().is_err(),
                "{kind} {target}"
            );
        }
    }

    #[test]
    fn a_status_is_bounded() {
        let ok: AgentStatus = serde_json::from_value(json!({
            "goal": {"kind": "skill", "target": {"skill": "fishing", "level": 5}},
            "progress": 0.5,
            "lastActions": [{"action": "catchFish", "outcome": "accepted"}],
            "decisions": [{"action": "catchFish", "goal": "fish", "brain": "planner"}],
            "tokensSpent": 10
        }))
        .unwrap();
        assert_eq!(ok.validate(), Ok(()));
        let mut bad = ok.clone();
        bad.progress = Some(1.5);
        assert!(bad.validate().is_err());
        let mut bad = ok.clone();
        bad.last_actions[0].outcome = "great".into();
        assert!(bad.validate().is_err());
        let mut bad = ok.clone();
        bad.decisions = vec![bad.decisions[0].clone(); MAX_REPORTED_ENTRIES + 1];
        assert!(bad.validate().is_err());
        let mut bad = ok;
        bad.decisions[0].reason = Some("x".repeat(MAX_TEXT_CHARS + 1));
        assert!(bad.validate().is_err());
    }

    #[test]
    fn a_model_report_holds_at_most_16_fallback_kinds_of_short_names() {
        let with = |kinds: usize, name_chars: usize| AgentStatus {
            model: Some(ModelReport {
                fallbacks: (0..kinds)
                    .map(|i| (format!("{i:0>width$}", width = name_chars), 1))
                    .collect(),
                ..ModelReport::default()
            }),
            ..AgentStatus::default()
        };
        assert!(with(MAX_FALLBACK_KINDS, 8).validate().is_ok());
        assert!(with(MAX_FALLBACK_KINDS + 1, 8).validate().is_err());
        assert!(with(1, MAX_NAME_CHARS).validate().is_ok());
        assert!(with(1, MAX_NAME_CHARS + 1).validate().is_err());
    }
}
