//! Servers run as processes (`wayfarer serve`): a port for them, and waiting until they answer.

use std::time::{Duration, Instant};

/// A free local port, for a server process to listen on.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until the server at `base` (`http://host:port`) answers `/health` with 200; panics after
/// `limit`.
pub async fn wait_healthy(base: &str, limit: Duration) {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(r) = client.get(format!("{base}/health")).send().await {
            if r.status() == 200 {
                return;
            }
        }
        assert!(Instant::now() < deadline, "{base} never became healthy");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
