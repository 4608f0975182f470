//! Getting a token to play with: a given one (a registered agent's), or a guest account and
//! character of the agent's own, its token kept in a file so the next start plays the same
//! character.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::http::{Http, HttpError, Request};

/// How the agent logs in.
#[derive(Debug, Clone)]
pub enum Login {
    /// A bearer token the socket accepts (a registered agent's character-limited token).
    Token(String),
    /// A token made fresh for every connection by the host (a server running agents inside its
    /// own process mints them itself), so a token never outlives its use however long the agent
    /// runs.
    Mint(TokenMint),
    /// A guest account and character named `name`, with its token in `token_file`.
    Name {
        name: String,
        template: Option<String>,
        token_file: PathBuf,
    },
}

/// Makes a token on demand; its error is one line for the log.
#[derive(Clone)]
pub struct TokenMint(Arc<dyn Fn() -> Result<String, String> + Send + Sync>);

impl TokenMint {
    /// Wraps the function that makes a token.
    pub fn new(mint: impl Fn() -> Result<String, String> + Send + Sync + 'static) -> TokenMint {
        TokenMint(Arc::new(mint))
    }
}

impl std::fmt::Debug for TokenMint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenMint")
    }
}

/// Why no token could be had.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("no token could be minted: {0}")]
    Mint(String),
    #[error("request to {url} failed: {source}")]
    Http {
        url: String,
        #[source]
        source: HttpError,
    },
    #[error("{url} answered {status}: {body}")]
    Refused {
        url: String,
        status: u16,
        body: String,
    },
    #[error("cannot write the token file {path}: {source}")]
    TokenFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The default token file for a named agent.
pub fn default_token_file(name: &str) -> PathBuf {
    PathBuf::from(format!(
        ".wayfarer-agent-{}.token",
        name.to_lowercase().replace(' ', "_")
    ))
}

impl Login {
    /// A token for the socket: the given one, the stored one when it still works, or a new
    /// guest account with a character of that name.
    pub async fn token(&self, http: &Http, base: &str) -> Result<String, LoginError> {
        match self {
            Login::Token(token) => Ok(token.clone()),
            Login::Mint(mint) => (mint.0)().map_err(LoginError::Mint),
            Login::Name {
                name,
                template,
                token_file,
            } => {
                if let Some(token) = stored_token(token_file) {
                    if has_character(http, base, &token).await? {
                        return Ok(token);
                    }
                }
                let token = create(http, base, name, template.as_deref()).await?;
                std::fs::write(token_file, &token).map_err(|source| LoginError::TokenFile {
                    path: token_file.clone(),
                    source,
                })?;
                Ok(token)
            }
        }
    }
}

fn stored_token(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let token = text.trim();
    (!token.is_empty()).then(|| token.to_owned())
}

async fn has_character(http: &Http, base: &str, token: &str) -> Result<bool, LoginError> {
    let url = format!("{base}/api/v1/player");
    let response = http
        .send(Request::get(&url).bearer_auth(token))
        .await
        .map_err(|source| LoginError::Http { url, source })?;
    Ok(response.is_success())
}

async fn post(
    http: &Http,
    url: String,
    token: Option<&str>,
    body: Value,
) -> Result<Value, LoginError> {
    let mut request = Request::post(&url).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = http
        .send(request)
        .await
        .map_err(|source| LoginError::Http {
            url: url.clone(),
            source,
        })?;
    let status = response.status;
    let text = String::from_utf8_lossy(&response.body).into_owned();
    if !response.is_success() {
        return Err(LoginError::Refused {
            url,
            status,
            body: text,
        });
    }
    Ok(serde_json::from_str(&text).unwrap_or_default())
}

async fn create(
    http: &Http,
    base: &str,
    name: &str,
    template: Option<&str>,
) -> Result<String, LoginError> {
    let guest = post(
        http,
        format!("{base}/api/auth/guest"),
        None,
        json!({"name": name}),
    )
    .await?;
    let token = guest
        .get("token")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut body = json!({"name": name});
    if let Some(template) = template {
        body["templateId"] = json!(template);
    }
    post(http, format!("{base}/api/character"), Some(&token), body).await?;
    Ok(token)
}
