//! REST response bodies (CONTRACT.md section 2).

use serde::{Deserialize, Serialize};

/// `GET /health`: the legacy liveness check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Health {
    pub status: String,
    /// ISO 8601 UTC.
    pub timestamp: String,
    pub version: String,
}

/// Whether the database answered the status probe in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DatabaseHealth {
    Ok,
    Degraded,
}

/// Tick timing reported by `/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TickStatus {
    pub number: u64,
    pub last_ms: f64,
    pub p99_ms: f64,
    /// Median and 95th percentile over the last 1,000 ticks.
    #[serde(default)]
    pub p50_ms: f64,
    #[serde(default)]
    pub p95_ms: f64,
    /// Ticks that started more than a tick late since the start.
    #[serde(default)]
    pub late_ticks: u64,
    /// Per phase (`input`, `npcs`, `movement`, `actions`, `view`, `dispatch`, `persist`).
    #[serde(default)]
    pub phases: std::collections::BTreeMap<String, PhaseStatus>,
}

/// One tick phase's percentiles over the last 1,000 ticks.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PhaseStatus {
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
}

/// Outbound queue depths, in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueStatus {
    /// The fullest connection's queue.
    pub max: u64,
    /// All queues together.
    pub total: u64,
}

/// The server process's resources (absent where the platform does not say).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProcessStatus {
    pub rss_bytes: u64,
    pub cpu_seconds: f64,
    /// CPU use since the previous `/status`, in percent of one core.
    pub cpu_percent: Option<f64>,
    /// Bytes the allocator has handed out and not had back (glibc's `mallinfo2`, every arena):
    /// what the server holds live. Resident memory growing while this stays flat is allocator
    /// slack, not a leak (`scripts/soak.sh` reads both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_in_use_bytes: Option<u64>,
    /// Bytes the allocator holds free for reuse (in its arenas, not given back to the system).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_free_bytes: Option<u64>,
}

/// `GET /status`: the health probe of the hosting platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub status: String,
    pub version: String,
    pub commit: String,
    pub uptime_seconds: u64,
    pub players_online: u64,
    pub tick: TickStatus,
    pub database: DatabaseHealth,
    /// Open game sockets.
    #[serde(default)]
    pub connections: u64,
    #[serde(default)]
    pub outbound_queue: QueueStatus,
    #[serde(default)]
    pub process: Option<ProcessStatus>,
    /// `player:sync` replies over the server's recent ones.
    #[serde(default)]
    pub sync_reply: SyncReplyStatus,
}

/// `GET /status` in production: what CONTRACT.md section 2 promises a player or a status page,
/// and nothing of the server's insides (per-phase timings, queues, connections, memory and CPU
/// stay with the operator's `/metrics`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PublicStatus {
    pub status: String,
    pub version: String,
    pub commit: String,
    pub uptime_seconds: u64,
    pub players_online: u64,
    pub tick: PublicTickStatus,
    pub database: DatabaseHealth,
}

/// The tick as [`PublicStatus`] shows it: CONTRACT.md's `{number, lastMs, p99Ms}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PublicTickStatus {
    pub number: u64,
    pub last_ms: f64,
    pub p99_ms: f64,
}

impl From<&Status> for PublicStatus {
    fn from(full: &Status) -> PublicStatus {
        PublicStatus {
            status: full.status.clone(),
            version: full.version.clone(),
            commit: full.commit.clone(),
            uptime_seconds: full.uptime_seconds,
            players_online: full.players_online,
            tick: PublicTickStatus {
                number: full.tick.number,
                last_ms: full.tick.last_ms,
                p99_ms: full.tick.p99_ms,
            },
            database: full.database,
        }
    }
}

/// How long `player:sync` requests took inside the server: from reading the request to writing
/// the reply, and the same less any wait for a tick that was running (the world answers between
/// ticks). Milliseconds, over the last [`SYNC_REPLY_WINDOW`] replies.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SyncReplyStatus {
    /// Replies in the window.
    pub count: u64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub beyond_tick_wait_p50_ms: f64,
    pub beyond_tick_wait_p95_ms: f64,
    pub beyond_tick_wait_p99_ms: f64,
}

/// How many recent `player:sync` replies [`SyncReplyStatus`] covers.
pub const SYNC_REPLY_WINDOW: usize = 20_000;

/// What one address's character creations received in a window (`address_grants`): the counts
/// of `GET /api/admin/economy`'s `grantsByAddress` rows, as the store sums them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GrantCounts {
    /// Distinct accounts whose characters received starting grants.
    pub accounts: i64,
    /// Characters that received starting grants.
    pub grants: i64,
    /// Starting coins those grants carried.
    pub coins: i64,
    /// Characters created without their grant (the account's or the address's rule).
    pub withheld: i64,
    /// Of `grants`, those the per-address rule did not apply to (rate limits off, load-test bots).
    pub exempt: i64,
}
