//! An HTTP throughput and latency probe: `concurrency` keep-alive clients, each issuing one `GET`
//! after another for a fixed time, measured as requests per second and latency percentiles.
//!
//! ```no_run
//! # async fn example() {
//! use std::time::Duration;
//! let report = wayfarer_bench::http_bench::hammer("http://127.0.0.1:5601/health", 32, Duration::from_secs(10)).await;
//! println!("{report}");
//! # }
//! ```

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;
use tokio::time::{timeout, Instant};

use crate::load::{LatencySummary, Samples};

/// Longest one request may take before it counts as an error.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// What [`hammer`] measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpReport {
    /// The URL requested.
    pub url: String,
    /// Concurrent clients.
    pub concurrency: usize,
    /// From the start to the end of the last request, in seconds.
    pub duration_seconds: f64,
    /// Requests answered with a success status and a complete body.
    pub requests: u64,
    /// Requests that failed: transport errors, timeouts, non-success statuses.
    pub errors: u64,
    /// `requests / duration_seconds`.
    pub requests_per_second: f64,
    /// Latency of the successful requests (from sending to the end of the body), in milliseconds.
    pub latency: LatencySummary,
}

impl fmt::Display for HttpReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GET {} x{}: {} requests in {:.1} s = {:.0} req/s, {} errors; latency ms p50 {:.3} p95 {:.3} p99 {:.3} max {:.3}",
            self.url,
            self.concurrency,
            self.requests,
            self.duration_seconds,
            self.requests_per_second,
            self.errors,
            self.latency.p50,
            self.latency.p95,
            self.latency.p99,
            self.latency.max,
        )
    }
}

/// `concurrency` clients (at least one), each with its own keep-alive connection, send `GET url`
/// one after another until `duration` has passed; requests in flight at the end are finished and
/// counted. A client that cannot be built, or a request that fails, counts as an error.
pub async fn hammer(url: &str, concurrency: usize, duration: Duration) -> HttpReport {
    let concurrency = concurrency.max(1);
    let start = Instant::now();
    let deadline = start + duration;
    let mut clients = JoinSet::new();
    for _ in 0..concurrency {
        let url = url.to_owned();
        clients.spawn(async move { client(&url, deadline).await });
    }
    let mut samples = Samples::new();
    let mut errors = 0;
    while let Some(result) = clients.join_next().await {
        match result {
            Ok((client_samples, client_errors)) => {
                samples.merge(client_samples);
                errors += client_errors;
            }
            Err(_) => errors += 1,
        }
    }
    let duration_seconds = start.elapsed().as_secs_f64();
    let requests = samples.len() as u64;
    HttpReport {
        url: url.to_owned(),
        concurrency,
        duration_seconds,
        requests,
        errors,
        requests_per_second: rate(requests, duration_seconds),
        latency: samples.summary(),
    }
}

/// `n` per second over `seconds` (0 for no time).
pub(crate) fn rate(n: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        n as f64 / seconds
    } else {
        0.0
    }
}

/// One client's loop: its latencies and its error count.
async fn client(url: &str, deadline: Instant) -> (Samples, u64) {
    let mut samples = Samples::new();
    let mut errors = 0;
    // One connection per client: no sharing of a pool between clients.
    let http = match reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(REQUEST_TIMEOUT)
        .build()
    {
        Ok(http) => http,
        Err(_) => return (samples, 1),
    };
    while Instant::now() < deadline {
        let sent = Instant::now();
        let outcome = timeout(REQUEST_TIMEOUT, async {
            let response = http.get(url).send().await.ok()?;
            let ok = response.status().is_success();
            // Read the whole body, so that the connection is reused and the body's cost counted.
            response.bytes().await.ok()?;
            ok.then_some(())
        })
        .await;
        match outcome {
            Ok(Some(())) => samples.record(sent.elapsed()),
            _ => errors += 1,
        }
    }
    (samples, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hammering_the_floor_counts_requests_without_errors() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(crate::echo::serve_floor(listener));
        let url = format!("http://{addr}/health");
        let report = hammer(&url, 4, Duration::from_secs(1)).await;
        assert!(report.requests > 0, "{report}");
        assert_eq!(report.errors, 0, "{report}");
        assert_eq!(report.latency.count, report.requests);
        assert!(report.requests_per_second > 0.0);
        assert!(report.duration_seconds >= 1.0);
        assert!(report.latency.p50 <= report.latency.p99);
    }

    #[tokio::test]
    async fn a_missing_page_counts_as_errors() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(crate::echo::serve_floor(listener));
        let report = hammer(
            &format!("http://{addr}/missing"),
            1,
            Duration::from_millis(200),
        )
        .await;
        assert_eq!(report.requests, 0);
        assert!(report.errors > 0);
    }
}
