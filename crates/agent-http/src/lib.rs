//! The agent's HTTP client on reqwest: [`client`] is what a program running agents gives them
//! ([`wayfarer_agent::Host::http`], [`wayfarer_agent::spawn`]).

use futures_util::future::BoxFuture;
use wayfarer_agent::http::{Http, HttpClient, HttpError, Method, Request, Response};

/// [`HttpClient`] on a reqwest client (its connection pool and TLS roots shared by every agent
/// given the same [`Http`]).
#[derive(Debug, Clone, Default)]
pub struct Reqwest(pub reqwest::Client);

impl HttpClient for Reqwest {
    fn send(&self, request: Request) -> BoxFuture<'_, Result<Response, HttpError>> {
        Box::pin(async move {
            let mut builder = match request.method {
                Method::Get => self.0.get(&request.url),
                Method::Post => self.0.post(&request.url),
            };
            for (name, value) in request.headers {
                builder = builder.header(name, value);
            }
            if let Some(body) = request.body {
                builder = builder.body(body);
            }
            let response = builder.send().await.map_err(describe)?;
            let status = response.status().as_u16();
            let body = response.bytes().await.map_err(describe)?.to_vec();
            Ok(Response { status, body })
        })
    }
}

/// A reqwest error with its causes, on one line (reqwest's own text names only the request).
fn describe(err: reqwest::Error) -> HttpError {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    HttpError(text)
}

/// A new client for agents to share.
pub fn client() -> Http {
    Http::new(Reqwest::default())
}
