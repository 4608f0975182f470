//! What the server says about itself during a load run: `/status` sampled before the bots start
//! and every second while they play, so a report shows the server's memory per connected player
//! and its tick times under the load, not only what the bots measured.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;
use tokio::time::timeout;

/// How often `/status` is read during a run.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(1);

/// One `/status` reading.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusSample {
    pub players_online: u64,
    pub rss_bytes: u64,
    pub tick_p50_ms: f64,
    pub tick_p99_ms: f64,
    pub late_ticks: u64,
    pub outbound_queue_max: u64,
    /// `player:sync` inside the server (request read → reply written), over its recent replies.
    #[serde(default)]
    pub sync_p50_ms: f64,
    #[serde(default)]
    pub sync_p99_ms: f64,
    /// The same less any wait for a running tick.
    #[serde(default)]
    pub sync_beyond_tick_wait_p99_ms: f64,
}

impl StatusSample {
    fn read(v: &Value) -> StatusSample {
        StatusSample {
            players_online: v["playersOnline"].as_u64().unwrap_or(0),
            rss_bytes: v["process"]["rssBytes"].as_u64().unwrap_or(0),
            tick_p50_ms: v["tick"]["p50Ms"].as_f64().unwrap_or(0.0),
            tick_p99_ms: v["tick"]["p99Ms"].as_f64().unwrap_or(0.0),
            late_ticks: v["tick"]["lateTicks"].as_u64().unwrap_or(0),
            outbound_queue_max: v["outboundQueue"]["max"].as_u64().unwrap_or(0),
            sync_p50_ms: v["syncReply"]["p50Ms"].as_f64().unwrap_or(0.0),
            sync_p99_ms: v["syncReply"]["p99Ms"].as_f64().unwrap_or(0.0),
            sync_beyond_tick_wait_p99_ms: v["syncReply"]["beyondTickWaitP99Ms"]
                .as_f64()
                .unwrap_or(0.0),
        }
    }
}

/// The server's side of a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerFigures {
    /// Before any bot started.
    pub before: StatusSample,
    /// The reading with the most players online (the last one among equals).
    pub at_peak: StatusSample,
    /// The highest tick p99 seen (over the server's last 1,000 ticks at each reading).
    pub worst_tick_p99_ms: f64,
    /// Ticks that started late during the run.
    pub late_ticks: u64,
    /// The fullest outbound queue seen.
    pub outbound_queue_max: u64,
    /// Server memory per player at the peak: (RSS at peak − RSS before) / players online.
    pub bytes_per_player: Option<u64>,
    pub samples: u64,
}

/// Reads `/status` once.
pub(crate) async fn sample(http: &reqwest::Client, base: &str) -> Option<StatusSample> {
    let response = timeout(SAMPLE_EVERY * 3, http.get(format!("{base}/status")).send())
        .await
        .ok()?
        .ok()?;
    let value: Value = response.json().await.ok()?;
    Some(StatusSample::read(&value))
}

/// Samples until `done` turns true; returns what it saw.
pub(crate) async fn watch_server(
    http: reqwest::Client,
    base: String,
    before: StatusSample,
    mut done: watch::Receiver<bool>,
) -> ServerFigures {
    let mut figures = ServerFigures {
        before,
        at_peak: before,
        ..ServerFigures::default()
    };
    loop {
        tokio::select! {
            _ = done.changed() => {}
            () = tokio::time::sleep(SAMPLE_EVERY) => {}
        }
        if *done.borrow() {
            break;
        }
        if let Some(now) = sample(&http, &base).await {
            figures.add(now);
        }
    }
    figures
}

impl ServerFigures {
    /// Adds a reading taken during the run.
    pub fn add(&mut self, now: StatusSample) {
        self.samples += 1;
        if now.players_online >= self.at_peak.players_online {
            self.at_peak = now;
        }
        self.worst_tick_p99_ms = self.worst_tick_p99_ms.max(now.tick_p99_ms);
        self.late_ticks = now.late_ticks.saturating_sub(self.before.late_ticks);
        self.outbound_queue_max = self.outbound_queue_max.max(now.outbound_queue_max);
        let added = self.at_peak.players_online;
        self.bytes_per_player = (added > 0 && self.at_peak.rss_bytes > 0)
            .then(|| self.at_peak.rss_bytes.saturating_sub(self.before.rss_bytes) / added);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn memory_per_player_comes_from_the_peak() {
        let before = StatusSample::read(&json!({
            "playersOnline": 0, "process": {"rssBytes": 50_000_000},
            "tick": {"p50Ms": 0.1, "p99Ms": 0.5, "lateTicks": 2}, "outboundQueue": {"max": 0}
        }));
        let mut f = ServerFigures {
            before,
            at_peak: before,
            ..ServerFigures::default()
        };
        for (players, rss, p99, late) in [
            (500, 55_000_000, 3.0, 2),
            (1000, 60_000_000, 9.0, 3),
            (400, 58_000_000, 4.0, 3),
        ] {
            f.add(StatusSample {
                players_online: players,
                rss_bytes: rss,
                tick_p99_ms: p99,
                late_ticks: late,
                ..StatusSample::default()
            });
        }
        assert_eq!(f.at_peak.players_online, 1000);
        assert_eq!(f.bytes_per_player, Some(10_000));
        assert_eq!(f.worst_tick_p99_ms, 9.0);
        assert_eq!(f.late_ticks, 1);
        assert_eq!(f.samples, 3);
    }
}
