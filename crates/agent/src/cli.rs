//! `wayfarer agent`: what the command line gives, turned into an [`AgentConfig`] and run until
//! Ctrl-C. The binary only parses its arguments and calls [`run`].

use std::path::PathBuf;

use serde_json::json;

use crate::account::{default_token_file, Login};
use crate::brain::{Brain, BrainChoice};
use crate::goals::Goal;
use crate::http::Http;
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
    #[error("give a token (WAYFARER_AGENT_TOKEN, --token-file PATH or --token) or --name")]
    NoLogin,
    #[error("--token-file {0}: {1}")]
    TokenFile(String, String),
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

/// The variable a registered agent's token may come from (a `--token` flag shows in `ps`).
pub const TOKEN_VARIABLE: &str = "WAYFARER_AGENT_TOKEN";

/// Builds the agent's configuration, reading model keys and the token from the environment.
pub fn config(options: &CliOptions) -> Result<AgentConfig, CliError> {
    config_with(options, |k| std::env::var(k).ok())
}

/// The token of a registered agent, without `--name`: `--token`, else [`TOKEN_VARIABLE`], else
/// the first line of `--token-file`.
fn given_token(
    options: &CliOptions,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, CliError> {
    if let Some(token) = &options.token {
        return Ok(Some(token.clone()));
    }
    if let Some(token) = env(TOKEN_VARIABLE).filter(|t| !t.trim().is_empty()) {
        return Ok(Some(token.trim().to_owned()));
    }
    match &options.token_file {
        Some(path) => {
            let shown = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::TokenFile(shown.clone(), e.to_string()))?;
            let token = text.lines().next().unwrap_or_default().trim().to_owned();
            if token.is_empty() {
                return Err(CliError::TokenFile(shown, "empty".into()));
            }
            Ok(Some(token))
        }
        None => Ok(None),
    }
}

/// [`config`] with the environment given (tests).
pub fn config_with(
    options: &CliOptions,
    env: impl Fn(&str) -> Option<String>,
) -> Result<AgentConfig, CliError> {
    // With --name, --token-file is where the guest's token is kept; without, the token to use.
    let token = if options.name.is_some() && options.token.is_none() {
        None
    } else {
        given_token(options, &env)?
    };
    let login = match (token, &options.name) {
        (Some(token), _) => Login::Token(token),
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
    let brain = Brain::select(options.brain, &env, options.model.clone())?;
    Ok(AgentConfig {
        server: options.server.clone(),
        login,
        goal,
        brain,
        label: options.name.clone().unwrap_or_else(|| "agent".into()),
    })
}

/// Runs one agent until Ctrl-C, making its requests through `http`.
pub async fn run(config: AgentConfig, http: Http) {
    tracing::info!(brain = %config.brain.describe(), "brain");
    let handle = spawn(config, http);
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

    fn options() -> CliOptions {
        CliOptions {
            server: "http://127.0.0.1:5555".into(),
            token: None,
            name: None,
            goal: None,
            template: None,
            brain: BrainChoice::Planner,
            model: None,
            token_file: None,
        }
    }

    fn token_of(config: Result<AgentConfig, CliError>) -> String {
        match config.expect("a configuration").login {
            Login::Token(token) => token,
            other => panic!("not a token login: {other:?}"),
        }
    }

    #[test]
    fn the_token_comes_from_the_flag_the_environment_or_a_file() {
        let none = |_: &str| None;
        let env = |k: &str| (k == TOKEN_VARIABLE).then(|| "from-env\n".to_owned());
        assert!(matches!(
            config_with(&options(), none),
            Err(CliError::NoLogin)
        ));
        assert_eq!(token_of(config_with(&options(), env)), "from-env");
        let flag = CliOptions {
            token: Some("from-flag".into()),
            ..options()
        };
        assert_eq!(token_of(config_with(&flag, env)), "from-flag");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agent.token");
        std::fs::write(&file, "from-file\nignored\n").unwrap();
        let from_file = CliOptions {
            token_file: Some(file.clone()),
            ..options()
        };
        assert_eq!(token_of(config_with(&from_file, none)), "from-file");
        // The environment comes before the file.
        assert_eq!(token_of(config_with(&from_file, env)), "from-env");
        let missing = CliOptions {
            token_file: Some(dir.path().join("missing")),
            ..options()
        };
        assert!(matches!(
            config_with(&missing, none),
            Err(CliError::TokenFile(..))
        ));
        std::fs::write(&file, "\n").unwrap();
        assert!(matches!(
            config_with(&from_file, none),
            Err(CliError::TokenFile(..))
        ));
        // With --name, the file is where the guest's token is kept, not a token to use.
        let named = CliOptions {
            name: Some("Woody".into()),
            ..from_file
        };
        assert!(matches!(
            config_with(&named, env).unwrap().login,
            Login::Name { .. }
        ));
    }
}
