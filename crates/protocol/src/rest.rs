//! REST response bodies (CONTRACT.md section 2).

use serde::{Deserialize, Serialize};

/// `GET /health`: the legacy liveness check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    pub status: String,
    /// ISO 8601 UTC.
    pub timestamp: String,
    pub version: String,
}

/// Whether the database answered the status probe in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatabaseHealth {
    Ok,
    Degraded,
}

/// Tick timing reported by `/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TickStatus {
    pub number: u64,
    pub last_ms: f64,
    pub p99_ms: f64,
}

/// `GET /status`: the health probe of the hosting platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub status: String,
    pub version: String,
    pub commit: String,
    pub uptime_seconds: u64,
    pub players_online: u64,
    pub tick: TickStatus,
    pub database: DatabaseHealth,
}
