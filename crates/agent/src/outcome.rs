//! How an action ended, as the planner, the model and the status see it.

use serde::Serialize;

/// An action's outcome, matched to its request by `ref`; never guessed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum Outcome {
    /// The server took it and the action's effect was seen (or, for an act with no visible
    /// effect, no refusal came within the grace period).
    Accepted { detail: String },
    /// Refused: by the server (its reason code, echoed with our `ref`) or, before sending, by the
    /// agent's own check against its model (`source: "agent"`).
    Rejected {
        source: &'static str,
        code: String,
        message: String,
    },
    /// Sent and not refused, but its effect never came (timeout, stuck, too many failures).
    Failed { reason: String },
    /// The connection dropped while it ran: the server may or may not have done it.
    Unknown,
}

impl Outcome {
    /// A refusal by the agent's own check.
    pub fn refused(code: &str, message: impl Into<String>) -> Outcome {
        Outcome::Rejected {
            source: "agent",
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// Whether the action did what it was for.
    pub fn is_success(&self) -> bool {
        matches!(self, Outcome::Accepted { .. })
    }

    /// One short word for logs: accepted, rejected, failed, unknown.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Accepted { .. } => "accepted",
            Outcome::Rejected { .. } => "rejected",
            Outcome::Failed { .. } => "failed",
            Outcome::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Accepted { detail } => write!(f, "accepted ({detail})"),
            Outcome::Rejected {
                source,
                code,
                message,
            } => write!(f, "rejected by {source}: {code} ({message})"),
            Outcome::Failed { reason } => write!(f, "failed: {reason}"),
            Outcome::Unknown => f.write_str("unknown after reconnect"),
        }
    }
}
