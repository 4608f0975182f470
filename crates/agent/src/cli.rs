//! `wayfarer agent`: what the command line gives, turned into an [`AgentConfig`] and run until
//! Ctrl-C. The binary only parses its arguments and calls [`run`].

use std::path::PathBuf;

use serde_json::json;

use crate::account::{default_token_file, Login};
use crate::brain::{Brain, BrainChoice};
use crate::goals::Goal;
use crate::runtime::{spawn, AgentConfig};

/// The subcommand's options.
#[derive(Debug, Clone)]
pub struct CliOptions {
    pub server: String,
    pub token: Option<String>,
    pub name: Option<String>,
    /// A goal: JSON (`{"kind":"skill","target":{"skill":"woodcutting","level":10}}`) or the short
    /// forms `skill:woodcutting:10`, `gather:logs:20`, `earn:500`, `follow:Ada`, `combat`,
    /// `bank`, `cook`, `explore[:areaId]`, `idle`.
    pub goal: Option<String>,
    pub template: Option<String>,
    pub brain: BrainChoice,
    pub model: Option<String>,
    pub token_file: Option<PathBuf>,
}

/// Why the agent cannot start (one line for the user).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("give --token or --name")]
    NoLogin,
    #[error("bad --goal: {0}")]
    Goal(String),
    #[error(transparent)]
    NoKey(#[from] crate::brain::NoModelKey),
}

/// Reads `--goal`.
pub fn parse_goal(text: &str) -> Result<Goal, String> {
    let text = text.trim();
    if text.starts_with('{') {
        let value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        return Goal::from_request(&value);
    }
    let parts: Vec<&str> = text.split(':').collect();
    let number = |i: usize| -> Result<i64, String> {
        parts
            .get(i)
            .ok_or_else(|| format!("{text}: a number is missing"))?
            .parse()
            .map_err(|_| format!("{text}: not a number"))
    };
    let text_at = |i: usize| parts.get(i).map(|s| (*s).to_owned());
    let request = match parts[0] {
        "skill" => json!({"kind": "skill", "target": {"skill": text_at(1), "level": number(2)?}}),
        "gather" => {
            json!({"kind": "gather", "target": {"itemId": text_at(1), "quantity": number(2)?}})
        }
        "earn" => json!({"kind": "earn", "target": {"coins": number(1)?}}),
        "follow" => json!({"kind": "follow", "target": {"playerName": text_at(1)}}),
        "combat" => json!({"kind": "combat", "target": {"npcId": text_at(1)}}),
        "cook" => json!({"kind": "cook", "target": {"itemId": text_at(1)}}),
        "explore" => json!({"kind": "explore", "target": {"areaId": text_at(1)}}),
        kind => json!({"kind": kind}),
    };
    Goal::from_request(&request)
}

/// Builds the agent's configuration, reading model keys from the environment.
pub fn config(options: &CliOptions) -> Result<AgentConfig, CliError> {
    let login = match (&options.token, &options.name) {
        (Some(token), _) => Login::Token(token.clone()),
        (None, Some(name)) => Login::Name {
            name: name.clone(),
            template: options.template.clone(),
            token_file: options
                .token_file
                .clone()
                .unwrap_or_else(|| default_token_file(name)),
        },
        (None, None) => return Err(CliError::NoLogin),
    };
    let goal = options
        .goal
        .as_deref()
        .map(parse_goal)
        .transpose()
        .map_err(CliError::Goal)?;
    let brain = Brain::select(
        options.brain,
        |k| std::env::var(k).ok(),
        options.model.clone(),
    )?;
    Ok(AgentConfig {
        server: options.server.clone(),
        login,
        goal,
        brain,
        label: options.name.clone().unwrap_or_else(|| "agent".into()),
    })
}

/// Runs one agent until Ctrl-C.
pub async fn run(config: AgentConfig) {
    tracing::info!(brain = %config.brain.describe(), "brain");
    let handle = spawn(config);
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
    handle.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::goals::GoalKind;
    use wayfarer_protocol::Skill;

    #[test]
    fn short_goals_read_like_their_json() {
        assert_eq!(
            parse_goal("skill:woodcutting:10").unwrap().kind,
            GoalKind::Skill {
                skill: Skill::Woodcutting,
                level: 10
            }
        );
        assert_eq!(parse_goal("bank").unwrap().kind, GoalKind::Bank);
        assert!(parse_goal("skill:woodcutting").is_err());
        assert!(parse_goal("dance").is_err());
        assert_eq!(
            parse_goal(r#"{"kind":"earn","target":{"coins":5}}"#)
                .unwrap()
                .kind,
            GoalKind::Earn { coins: 5 }
        );
    }
}
