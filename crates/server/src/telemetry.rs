//! Logging through `tracing`: human-readable in development, JSON lines with `LOG_FORMAT=json`.
//! Every line goes through `log_redaction` on its way to stdout, so no token is ever logged.

use tracing::Subscriber;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;
use crate::log_redaction::RedactingMakeWriter;

/// The filter when `RUST_LOG` is unset.
const DEFAULT_FILTER: &str = "info,sqlx=warn,tower_http=info";

/// Installs the global subscriber; `RUST_LOG` overrides the default filter.
pub fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    // `try_init` also routes the `log` crate's records (tungstenite, among others) to this
    // subscriber, and so through the same redaction.
    let colors = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let _ = subscriber(format, filter, colors, std::io::stdout).try_init();
}

/// The subscriber `init` installs, writing to `writer` (tests capture it); human-readable lines
/// are colored only for a terminal (`colors`), not in files and journals.
pub fn subscriber<W>(
    format: LogFormat,
    filter: EnvFilter,
    colors: bool,
    writer: W,
) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colors)
        .with_writer(RedactingMakeWriter::new(writer));
    match format {
        LogFormat::Json => Box::new(builder.json().flatten_event(true).finish()),
        LogFormat::Human => Box::new(builder.finish()),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};
    use std::sync::{Arc, Mutex};

    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;
    use tower_http::trace::TraceLayer;

    use super::*;
    use crate::log_redaction::RequestSpan;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A request to the game socket's path with `?token=` and an `Authorization` header, through
    /// the server's request tracing, at trace level, in both formats: the log shows the request
    /// but never the token. The stock tower-http span with the request's headers, which logs the
    /// token raw, is redacted on the way out as well.
    #[tokio::test]
    async fn no_token_reaches_the_log_at_trace_level() {
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQifQ.c2VjcmV0LXNpZ25hdHVyZQ";
        for format in [LogFormat::Human, LogFormat::Json] {
            for ours in [true, false] {
                let captured = Captured::default();
                let sink = captured.clone();
                let subscriber =
                    subscriber(format, EnvFilter::new("trace"), false, move || sink.clone());
                let _guard = tracing::subscriber::set_default(subscriber);
                let handler = get(|| async {
                    tracing::info!("handler ran");
                    "ok"
                });
                let app: Router = if ours {
                    Router::new()
                        .route("/ws", handler)
                        .layer(TraceLayer::new_for_http().make_span_with(RequestSpan))
                } else {
                    let stock = tower_http::trace::DefaultMakeSpan::new()
                        .include_headers(true)
                        .level(tracing::Level::DEBUG);
                    Router::new()
                        .route("/ws", handler)
                        .layer(TraceLayer::new_for_http().make_span_with(stock))
                };
                let request =
                    axum::http::Request::get(format!("/ws?token={token}&characterId=c-1"))
                        .header("authorization", format!("Bearer {token}"))
                        .body(axum::body::Body::empty())
                        .unwrap();
                let response = app.oneshot(request).await.unwrap();
                assert_eq!(response.status(), 200);
                // Something a library might log, the way tungstenite logs a client's request.
                tracing::trace!(
                    "Request: \"GET /ws?token={token} HTTP/1.1\\r\\nAuthorization: Bearer {token}\\r\\n\""
                );
                let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
                let case = format!("{format:?}, our span: {ours}: {log}");
                assert!(log.contains("handler ran"), "{case}");
                let span_uri = match format {
                    LogFormat::Human => "uri=/ws?token=[redacted]&characterId=c-1",
                    LogFormat::Json => "\"uri\":\"/ws?token=[redacted]&characterId=c-1\"",
                };
                assert!(log.contains(span_uri), "{case}");
                for secret in [token, "c2VjcmV0LXNpZ25hdHVyZQ", "eyJzdWIiOiJzZWNyZXQifQ"] {
                    assert!(!log.contains(secret), "{case}");
                }
            }
        }
    }
}
