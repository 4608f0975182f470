//! What the agent asks of HTTP, as a trait of its own: a GET and a JSON POST with headers,
//! answered with the status and the body. The agent logs in, reads the public knowledge and the
//! tick length, and asks a language model through it; the implementation (reqwest, in
//! `wayfarer-agent-http`) is given by whoever runs the agent ([`crate::Host::http`]), so this
//! crate builds no HTTP stack and a game host can run agents without one
//! (`layering::the_agent_builds_no_http_crate` in `crates/host/src/layering.rs`).

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

/// The two methods the agent uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// One request: method, address, headers and body.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: Method,
    pub url: String,
    /// Header names and values, sent as given.
    pub headers: Vec<(&'static str, String)>,
    pub body: Option<Vec<u8>>,
}

impl Request {
    /// A GET of `url`.
    pub fn get(url: impl Into<String>) -> Request {
        Request {
            method: Method::Get,
            url: url.into(),
            headers: Vec::new(),
            body: None,
        }
    }

    /// A POST to `url`, its body to come ([`Request::json`]).
    pub fn post(url: impl Into<String>) -> Request {
        Request {
            method: Method::Post,
            ..Request::get(url)
        }
    }

    /// With `body` as its JSON body.
    pub fn json(mut self, body: &Value) -> Request {
        self.headers
            .push(("content-type", "application/json".to_owned()));
        self.body = Some(body.to_string().into_bytes());
        self
    }

    /// With `Authorization: Bearer <token>`.
    pub fn bearer_auth(self, token: &str) -> Request {
        self.header("authorization", format!("Bearer {token}"))
    }

    /// With the header `name: value`.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Request {
        self.headers.push((name, value.into()));
        self
    }
}

/// An answer: its status and its whole body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Response {
    /// A 2xx status.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Why a request got no answer (it did not reach the server, or the answer was cut): one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HttpError(pub String);

/// Sends requests. Object-safe, so agents share one client behind [`Http`].
pub trait HttpClient: Send + Sync {
    /// Sends `request` and reads the whole answer.
    fn send(&self, request: Request) -> BoxFuture<'_, Result<Response, HttpError>>;
}

/// A shared client. The default has none and refuses every request, for an agent that needs no
/// HTTP: given its token, the knowledge and the tick length, and playing with the planner.
#[derive(Clone, Default)]
pub struct Http(Option<Arc<dyn HttpClient>>);

impl Http {
    /// Shares `client`.
    pub fn new(client: impl HttpClient + 'static) -> Http {
        Http(Some(Arc::new(client)))
    }

    /// Sends `request` through the client.
    pub async fn send(&self, request: Request) -> Result<Response, HttpError> {
        match &self.0 {
            Some(client) => client.send(request).await,
            None => Err(HttpError(format!(
                "{}: this agent was given no HTTP client (Host::http)",
                request.url
            ))),
        }
    }
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Http"
        } else {
            "Http(none)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn no_client_refuses_and_says_where() {
        let refused = Http::default()
            .send(Request::get("http://x/api/config"))
            .await
            .unwrap_err();
        assert!(refused.0.starts_with("http://x/api/config: "), "{refused}");
    }

    #[test]
    fn a_json_post_carries_its_body_type_and_token() {
        let request = Request::post("http://x/api/character")
            .bearer_auth("t")
            .json(&serde_json::json!({"name": "Ada"}));
        assert_eq!(request.method, Method::Post);
        assert_eq!(request.body.as_deref(), Some(&b"{\"name\":\"Ada\"}"[..]));
        assert_eq!(
            request.headers,
            vec![
                ("authorization", "Bearer t".to_owned()),
                ("content-type", "application/json".to_owned())
            ]
        );
    }
}
