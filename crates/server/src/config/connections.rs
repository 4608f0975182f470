//! The connection settings: how many connections one address and the whole server may hold open,
//! and how long a connection may idle (enforced by `http::connection_limits` and `http::ws`).
//! Read here with the rest of the configuration, so the configuration depends on no server layer.

use std::time::Duration;

use super::{positive_integer as positive, ConfigError};
use crate::client_addr::IpNet;

/// Default `HTTP_HEADER_TIMEOUT_SECS`.
pub const DEFAULT_HEADER_TIMEOUT_SECS: u64 = 15;
/// Default `HTTP_KEEPALIVE_SECS`.
pub const DEFAULT_KEEPALIVE_SECS: u64 = 10;
/// Default `MAX_CONNECTIONS_PER_ADDRESS`: a household or an office behind one address, each player
/// with a browser's few HTTP connections and a game socket.
pub const DEFAULT_PER_ADDRESS: usize = 100;
/// Default `CONNECTION_LIMIT_EXEMPT`: the server's own machine (embedded agents, a reverse proxy
/// or a load generator on the same host). Proxies elsewhere are named in `TRUSTED_PROXIES`.
pub const DEFAULT_EXEMPT: &str = "127.0.0.1,::1";
/// Default `WS_PING_SECS`.
pub const DEFAULT_WS_PING_SECS: u64 = 20;
/// Default `WS_MISSED_PONGS`.
pub const DEFAULT_WS_MISSED_PONGS: u32 = 2;
/// Default `WS_PENDING_PER_CHARACTER`.
pub const DEFAULT_PENDING_PER_CHARACTER: usize = 2;
/// Open files kept for what is not an accepted connection (the database pool, NATS, the world
/// directory, log files), on top of one per embedded agent's own client socket.
pub const RESERVED_FILES: u64 = 256;

/// The connection settings (see the README's configuration table).
#[derive(Debug, Clone)]
pub struct ConnectionSettings {
    /// `HTTP_HEADER_TIMEOUT_SECS`: a request's head must have arrived whole within this long of the
    /// server starting to wait for it (the connection opened, or the previous response was sent).
    pub header_timeout: Duration,
    /// `HTTP_KEEPALIVE_SECS`: a kept-alive connection on which no byte of a next request arrives
    /// within this long of the last response is closed. At most the header timeout, which counts
    /// from the same moment.
    pub keepalive: Duration,
    /// `MAX_CONNECTIONS_PER_ADDRESS`: open connections (HTTP and game sockets) per address.
    pub per_address: usize,
    /// `MAX_CONNECTIONS`: open connections in all; `None` means derived from the open-file limit
    /// at start ([`ConnectionSettings::global_cap`]).
    pub max_connections: Option<usize>,
    /// `CONNECTION_LIMIT_EXEMPT`: addresses the per-address cap does not apply to.
    pub exempt: Vec<IpNet>,
    /// `WS_PING_SECS`: how often a silent game socket is pinged.
    pub ws_ping: Duration,
    /// `WS_MISSED_PONGS`: a game socket silent for this many ping intervals is closed.
    pub ws_missed_pongs: u32,
    /// `WS_PENDING_PER_CHARACTER`: game sockets of one character that may be entering the world at
    /// once (each waits for the one it replaces to be saved); more are refused before the upgrade.
    pub pending_per_character: usize,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(DEFAULT_HEADER_TIMEOUT_SECS),
            keepalive: Duration::from_secs(DEFAULT_KEEPALIVE_SECS),
            per_address: DEFAULT_PER_ADDRESS,
            max_connections: None,
            exempt: DEFAULT_EXEMPT.split(',').filter_map(IpNet::parse).collect(),
            ws_ping: Duration::from_secs(DEFAULT_WS_PING_SECS),
            ws_missed_pongs: DEFAULT_WS_MISSED_PONGS,
            pending_per_character: DEFAULT_PENDING_PER_CHARACTER,
        }
    }
}

impl ConnectionSettings {
    /// Reads the settings through `get` (the configuration's lookup; blank values are unset).
    pub fn from_lookup(get: &impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let defaults = Self::default();
        let secs = |name: &'static str, default: u64| -> Result<Duration, ConfigError> {
            Ok(Duration::from_secs(positive(get, name, default)?))
        };
        let header_timeout = secs("HTTP_HEADER_TIMEOUT_SECS", DEFAULT_HEADER_TIMEOUT_SECS)?;
        let keepalive = secs("HTTP_KEEPALIVE_SECS", DEFAULT_KEEPALIVE_SECS)?;
        if keepalive > header_timeout {
            return Err(ConfigError {
                variable: "HTTP_KEEPALIVE_SECS",
                message: format!(
                    "{} s is longer than HTTP_HEADER_TIMEOUT_SECS ({} s), which also counts from the \
                     end of a response and would close the connection first; raise that too",
                    keepalive.as_secs(),
                    header_timeout.as_secs()
                ),
            });
        }
        let exempt = match get("CONNECTION_LIMIT_EXEMPT") {
            None => defaults.exempt,
            Some(list) if list.trim() == "none" => Vec::new(),
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| {
                    IpNet::parse(s).ok_or_else(|| ConfigError {
                        variable: "CONNECTION_LIMIT_EXEMPT",
                        message: format!(
                            "{s:?} is not an IP address or CIDR network (`none` for no exemption)"
                        ),
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(Self {
            header_timeout,
            keepalive,
            per_address: positive(
                get,
                "MAX_CONNECTIONS_PER_ADDRESS",
                DEFAULT_PER_ADDRESS as u64,
            )? as usize,
            max_connections: match get("MAX_CONNECTIONS") {
                None => None,
                Some(_) => Some(positive(get, "MAX_CONNECTIONS", 1)? as usize),
            },
            exempt,
            ws_ping: secs("WS_PING_SECS", DEFAULT_WS_PING_SECS)?,
            ws_missed_pongs: positive(get, "WS_MISSED_PONGS", u64::from(DEFAULT_WS_MISSED_PONGS))?
                .min(u64::from(u32::MAX)) as u32,
            pending_per_character: positive(
                get,
                "WS_PENDING_PER_CHARACTER",
                DEFAULT_PENDING_PER_CHARACTER as u64,
            )? as usize,
        })
    }

    /// The cap on open connections in all: `MAX_CONNECTIONS`, never above what the open-file
    /// limit leaves after [`RESERVED_FILES`] and `embedded_agents` client sockets (past that,
    /// `accept` itself would fail and nobody, not even `/health`, would be served).
    pub fn global_cap(&self, open_file_limit: u64, embedded_agents: u32) -> usize {
        let room = open_file_limit
            .saturating_sub(RESERVED_FILES + u64::from(embedded_agents))
            .max(1);
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        match self.max_connections {
            Some(max) if max > room => {
                tracing::warn!(
                    configured = max,
                    open_file_limit,
                    capped = room,
                    "MAX_CONNECTIONS is above what the open-file limit allows; using the lower figure"
                );
                room
            }
            Some(max) => max,
            None => room,
        }
    }

    /// What `describe` logs at start.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "HTTP_HEADER_TIMEOUT_SECS",
                self.header_timeout.as_secs().to_string(),
            ),
            ("HTTP_KEEPALIVE_SECS", self.keepalive.as_secs().to_string()),
            ("MAX_CONNECTIONS_PER_ADDRESS", self.per_address.to_string()),
            (
                "MAX_CONNECTIONS",
                self.max_connections.map_or_else(
                    || "(unset: the open-file limit less what the server keeps)".into(),
                    |m| m.to_string(),
                ),
            ),
            ("CONNECTION_LIMIT_EXEMPT", format!("{:?}", self.exempt)),
            ("WS_PING_SECS", self.ws_ping.as_secs().to_string()),
            ("WS_MISSED_PONGS", self.ws_missed_pongs.to_string()),
            (
                "WS_PENDING_PER_CHARACTER",
                self.pending_per_character.to_string(),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::net::IpAddr;

    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_global_cap_stays_below_the_open_file_limit() {
        let settings = ConnectionSettings::default();
        assert_eq!(settings.global_cap(1024, 0), 1024 - 256);
        assert_eq!(settings.global_cap(1024, 500), 1024 - 256 - 500);
        let set = ConnectionSettings {
            max_connections: Some(100),
            ..ConnectionSettings::default()
        };
        assert_eq!(set.global_cap(1024, 0), 100);
        let too_many = ConnectionSettings {
            max_connections: Some(5000),
            ..ConnectionSettings::default()
        };
        assert_eq!(too_many.global_cap(1024, 0), 768);
    }

    #[test]
    fn settings_are_read_and_bad_values_named() {
        let read = |vars: &[(&str, &str)]| {
            let vars: HashMap<String, String> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            ConnectionSettings::from_lookup(&|name: &str| vars.get(name).cloned())
        };
        let d = read(&[]).unwrap();
        assert_eq!(d.header_timeout, Duration::from_secs(15));
        assert_eq!(d.keepalive, Duration::from_secs(10));
        assert_eq!(d.per_address, 100);
        assert_eq!(d.ws_ping, Duration::from_secs(20));
        assert_eq!(d.ws_missed_pongs, 2);
        assert_eq!(d.pending_per_character, 2);
        assert!(d.exempt.iter().any(|n| n.contains(ip("127.0.0.1"))));
        assert!(!d.exempt.iter().any(|n| n.contains(ip("127.0.0.2"))));
        let none = read(&[("CONNECTION_LIMIT_EXEMPT", "none")]).unwrap();
        assert!(none.exempt.is_empty());
        for (name, value) in [
            ("HTTP_HEADER_TIMEOUT_SECS", "0"),
            ("MAX_CONNECTIONS_PER_ADDRESS", "many"),
            ("MAX_CONNECTIONS", "-1"),
            ("WS_PING_SECS", "0"),
            ("CONNECTION_LIMIT_EXEMPT", "10.0.0.0/40"),
        ] {
            assert_eq!(read(&[(name, value)]).unwrap_err().variable, name);
        }
        let err = read(&[("HTTP_KEEPALIVE_SECS", "30")]).unwrap_err();
        assert_eq!(err.variable, "HTTP_KEEPALIVE_SECS");
        assert!(read(&[
            ("HTTP_KEEPALIVE_SECS", "30"),
            ("HTTP_HEADER_TIMEOUT_SECS", "30")
        ])
        .is_ok());
    }
}
