//! The accept loop: every TCP connection is admitted against the connection caps, wrapped (its
//! slot, `connection_limits::Tracked`; hyper's own error responses made JSON, `parse_errors::Io`),
//! and served by hyper's HTTP/1 with the header time limit and the keep-alive idle check.
//!
//! Why not `axum::serve`: it gives no way to set hyper's header timer, to refuse a connection
//! before it costs a task, or to close a kept-alive connection that idles.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt;

use super::connection_limits::{ConnectionTracker, Slot, Tracked};
use super::parse_errors::Io;
use crate::config::connections::ConnectionSettings;

/// Kernel send buffer per connection: game messages are small and latency-sensitive, and a client
/// that cannot take this much backlog is slow, which the outbound queue then detects quickly
/// instead of the kernel buffering megabytes for it.
pub const SEND_BUFFER_BYTES: usize = 64 * 1024;

/// How often at most an accept failure (such as running out of files) is logged.
const ACCEPT_ERROR_LOG_EVERY: Duration = Duration::from_secs(10);
/// How often at most a refused connection is logged (each is counted in
/// `connections_refused_total`).
const REFUSAL_LOG_EVERY: Duration = Duration::from_secs(10);

/// The main listener, bound, with the connection caps it admits against.
pub struct Bound {
    pub listener: TcpListener,
    pub addr: SocketAddr,
    pub tracker: Arc<ConnectionTracker>,
    pub settings: ConnectionSettings,
}

impl Bound {
    /// Binds `HOST:PORT`. Connections are capped below the open-file limit (raised first), so
    /// `accept` never runs out of files and `/health` keeps answering whatever one address holds
    /// open.
    pub async fn bind(config: &crate::config::Config) -> anyhow::Result<Bound> {
        use anyhow::Context;
        let listener = TcpListener::bind((config.host.as_str(), config.port))
            .await
            .with_context(|| format!("cannot listen on {}:{}", config.host, config.port))?;
        let addr = listener.local_addr()?;
        let open_file_limit = super::connection_limits::raise_open_file_limit();
        let settings = config.connections.clone();
        let tracker = Arc::new(ConnectionTracker::new(
            &settings,
            settings.global_cap(open_file_limit, config.embedded_agents),
            config.trusted_proxies.clone(),
        ));
        Ok(Bound {
            listener,
            addr,
            tracker,
            settings,
        })
    }

    /// Serves `router` until `shutdown` completes (see [`serve`]).
    pub async fn serve(self, router: Router, shutdown: impl Future<Output = ()>) {
        serve(self.listener, router, self.tracker, self.settings, shutdown).await;
    }
}

/// Serves `router` on `listener` until `shutdown` completes; then stops accepting, asks every
/// HTTP connection to finish the request it is on, and returns once they have. (Game sockets have
/// left hyper by then: the server tells them itself.)
pub async fn serve(
    listener: TcpListener,
    router: Router,
    tracker: Arc<ConnectionTracker>,
    settings: ConnectionSettings,
    shutdown: impl Future<Output = ()>,
) {
    // Each connection holds a receiver: `stop_tx.closed()` is when the last one has ended.
    let (stop_tx, stop_rx) = watch::channel(false);
    let settings = Arc::new(settings);
    let mut last_error_log: Option<Instant> = None;
    let mut last_refusal_log: Option<Instant> = None;
    tokio::pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    if !is_connection_error(&err) {
                        if last_error_log.is_none_or(|at| at.elapsed() >= ACCEPT_ERROR_LOG_EVERY) {
                            tracing::error!(error = %err, "accept failed");
                            last_error_log = Some(Instant::now());
                        }
                        metrics::counter!("accept_errors_total").increment(1);
                        // Out of files or memory: give connections time to end before retrying.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let slot = match tracker.admit(peer.ip()) {
            Ok(slot) => slot,
            Err(refusal) => {
                metrics::counter!("connections_refused_total", "reason" => refusal.as_str())
                    .increment(1);
                if last_refusal_log.is_none_or(|at| at.elapsed() >= REFUSAL_LOG_EVERY) {
                    tracing::warn!(
                        address = %peer.ip(),
                        reason = refusal.as_str(),
                        open = tracker.open(),
                        "connection refused at accept (logged at most once every 10 s)"
                    );
                    last_refusal_log = Some(Instant::now());
                }
                // Closed at once: it never costs a task or a buffer.
                drop(tcp);
                continue;
            }
        };
        tokio::spawn(serve_connection(
            tcp,
            peer,
            slot,
            router.clone(),
            settings.clone(),
            stop_rx.clone(),
        ));
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(stop_rx);
    stop_tx.closed().await;
}

/// Errors of one connection that `accept` reports; the listener itself is fine.
fn is_connection_error(err: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        err.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

async fn serve_connection(
    tcp: TcpStream,
    peer: SocketAddr,
    slot: Arc<Slot>,
    router: Router,
    settings: Arc<ConnectionSettings>,
    mut stop: watch::Receiver<bool>,
) {
    let _ = tcp.set_nodelay(true);
    let _ = socket2::SockRef::from(&tcp).set_send_buffer_size(SEND_BUFFER_BYTES);
    let io = TokioIo::new(Io::new(Tracked::new(tcp, slot.clone())));
    let service = router.map_request(move |request: axum::http::Request<Incoming>| {
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ConnectInfo(peer));
        request
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_timeout)
        .serve_connection(io, TowerToHyperService::new(service))
        .with_upgrades();
    tokio::pin!(connection);
    let idle_check = tokio::time::sleep(settings.keepalive);
    tokio::pin!(idle_check);
    let mut closing = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(err) = result {
                    tracing::debug!(%peer, error = %err, "HTTP connection ended with an error");
                }
                break;
            }
            () = &mut idle_check, if !closing => match slot.idle_for() {
                Some(idle) if idle >= settings.keepalive => {
                    metrics::counter!("http_keepalive_closed_total").increment(1);
                    connection.as_mut().graceful_shutdown();
                    closing = true;
                }
                Some(idle) => idle_check.as_mut().reset(
                    tokio::time::Instant::now() + (settings.keepalive - idle),
                ),
                None => idle_check
                    .as_mut()
                    .reset(tokio::time::Instant::now() + settings.keepalive),
            },
            _ = stop.changed(), if !closing => {
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
        }
    }
}
