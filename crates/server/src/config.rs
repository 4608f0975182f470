//! The one `Config`: every setting of specification section 8 (and ours), read from the environment once,
//! validated, and handed to whatever needs it. A bad value stops start-up with one line naming the variable.

use std::path::PathBuf;

pub mod connections;

/// The deployment environment (`NODE_ENV`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeEnv {
    Development,
    Production,
    Test,
}

impl NodeEnv {
    /// The name as written in `NODE_ENV`.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeEnv::Development => "development",
            NodeEnv::Production => "production",
            NodeEnv::Test => "test",
        }
    }
}

/// How logs are written (`LOG_FORMAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Human,
    Json,
}

/// A configuration value that cannot be used; the message names the variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid configuration: {variable}: {message}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub message: String,
}

/// Every setting the server reads.
#[derive(Debug, Clone)]
pub struct Config {
    pub port: u16,
    /// Interface to listen on (`HOST`, default all interfaces).
    pub host: String,
    pub node_env: NodeEnv,
    /// The world directory (`WORLD`): SQLite file, manifest cache, generated secrets.
    pub world_dir: PathBuf,
    /// The layout seed (`WORLD_SEED`): where the map's procedural parts go. Unset, one is generated at
    /// the first start and kept in the world directory (`world_seed`).
    pub world_seed: Option<u64>,
    /// The dice seed (combat, drops, gathering rolls, wandering): fresh each start unless set in
    /// code. No variable sets it: only `wayfarer bench-agents` fixes it, so a task's run repeats.
    pub dice_seed: Option<u64>,
    pub database_url: Option<String>,
    pub use_local_postgres: bool,
    /// Where to look for `initdb`/`pg_ctl` for `USE_LOCAL_POSTGRES` (`PG_BIN_DIR`); PATH and Debian's
    /// /usr/lib/postgresql/*/bin otherwise.
    pub pg_bin_dir: Option<PathBuf>,
    pub public_cdn_url: Option<String>,
    pub public_ws_url: Option<String>,
    pub public_api_url: Option<String>,
    pub save_interval_secs: u64,
    /// The store's pools as set (`DB_REST_CONNECTIONS`, `DB_ENTRY_CONNECTIONS`,
    /// `DB_WRITE_CONNECTIONS`, `DB_REST_WAIT_MS`, `DB_ENTRY_WAIT_MS`, `DB_WRITE_WAIT_MS`); unset,
    /// the database's defaults ([`Config::pool_settings`]).
    pub db_pools: DbPools,
    /// Most players the world takes in a tick (`JOINS_PER_TICK`); the others wait in order for
    /// the next ticks (`world_thread::admission`).
    pub joins_per_tick: u64,
    /// Most the join budget grows to while ticks run fast and players wait
    /// (`JOINS_PER_TICK_MAX`, at least `joins_per_tick`; equal to it, the budget stays fixed).
    pub joins_per_tick_max: u64,
    pub disable_rate_limit: bool,
    pub commit_hash: Option<String>,
    pub voice_api_key: Option<String>,
    pub voice_api_secret: Option<String>,
    pub voice_url: Option<String>,
    pub agent_runtime_api_url: Option<String>,
    pub agent_runtime_url: Option<String>,
    pub client_url: Option<String>,
    pub public_app_url: Option<String>,
    pub jwt_secret: Option<String>,
    pub admin_code: Option<String>,
    pub public_idp_app_id: Option<String>,
    pub idp_app_secret: Option<String>,
    /// Game tick length (`TICK_MS`, default 600); tests run the game faster. With the manual clock
    /// it is the length that what counts time in ticks assumes (the save cycle, agents' timers,
    /// `/api/config`), [`DEFAULT_TICK_MS`].
    pub tick_ms: u64,
    /// `TICK_MS=manual` (tests only): the world ticks when a test steps it
    /// (`world_thread::TickClock`, `POST /__test/ticks`), never on time.
    pub manual_clock: bool,
    /// Production frontend origins (`CORS_ORIGINS`, comma-separated).
    pub cors_origins: Vec<String>,
    /// Preview-deployment origins (`CORS_PREVIEW_PATTERN`, a glob such as `https://*-preview.example.app`).
    pub cors_preview_pattern: Option<String>,
    pub log_format: LogFormat,
    /// The identity provider's ES256 public key (`IDP_VERIFICATION_KEY`): PEM text or a file path.
    pub idp_verification_key: Option<String>,
    /// The identity provider's JWKS (`IDP_JWKS_URL`): an http(s) URL or a file path.
    pub idp_jwks_url: Option<String>,
    /// Expected `iss` of identity-provider tokens (`IDP_ISSUER`, default `privy.io`).
    pub idp_issuer: String,
    /// Least time between two JWKS refreshes (`IDP_JWKS_MIN_REFRESH_SECS`, default 60).
    pub idp_jwks_min_refresh_secs: u64,
    /// Proxies whose `X-Forwarded-For` is believed (`TRUSTED_PROXIES`, comma-separated IPs or CIDRs).
    pub trusted_proxies: crate::client_addr::TrustedProxies,
    /// The REST and authentication rate-limit window (60 s; `RATE_LIMIT_WINDOW_SECS` in test mode only).
    pub rate_limit_window_secs: u64,
    /// How often the CDN's manifests are revalidated (`MANIFEST_REFRESH_SECONDS`, default 300).
    pub manifest_refresh_secs: u64,
    /// A secret that lets load-generator bots skip the authentication rate limit (`LOAD_TEST_KEY`).
    pub load_test_key: Option<String>,
    /// Serve the browser client from this directory instead of the copy built into the binary
    /// (`WEB_DIR`, for client developers: edits show on reload).
    pub web_dir: Option<PathBuf>,
    /// This world's number among several sharing a database (`WORLD_ID`, 1 alone).
    pub world_id: i64,
    /// The name players see in the world list (`WORLD_NAME`).
    pub world_name: String,
    /// NATS for several worlds (`NATS_URL`); unset: a single world, no NATS code runs.
    pub nats_url: Option<String>,
    /// How long a character's lease outlives its world's last heartbeat (`WORLD_LEASE_SECS`).
    pub world_lease_secs: u64,
    /// Players at which the world list shows this world as full (`WORLD_CAPACITY`).
    pub world_capacity: u64,
    /// Global chat reaches every world, not only this one (`CROSS_WORLD_GLOBAL_CHAT`; needs
    /// `NATS_URL`).
    pub cross_world_global_chat: bool,
    /// Built-in-planner agents the server runs in its own process (`EMBEDDED_AGENTS`, or
    /// `serve --agents N`, which wins); 0: none.
    pub embedded_agents: u32,
    /// Their characters are named this prefix and a number from 1 (`EMBEDDED_AGENT_PREFIX`).
    pub embedded_agent_prefix: String,
    /// Connection caps and time limits (`config::connections`).
    pub connections: connections::ConnectionSettings,
    /// Threads a tick's views and walk planning may use (`TICK_THREADS`, default the machine's
    /// cores; 1: all on the world thread). The result is the same whatever the count (`World::set_tick_threads`).
    pub tick_threads: usize,
    /// The world thread asks for real-time priority where the process may
    /// (`WORLD_THREAD_REALTIME`, default true; `priority::make_current_thread_realtime`).
    pub world_thread_realtime: bool,
    /// The bearer token that opens `/metrics` on the main port in production (`METRICS_TOKEN`;
    /// unset: production's main port does not serve it).
    pub metrics_token: Option<String>,
    /// A listener of its own serving `/metrics` alone, without a token (`METRICS_ADDR`): in
    /// production [`DEFAULT_METRICS_ADDR`] unless set (`off`: none); elsewhere none unless set.
    pub metrics_addr: Option<std::net::SocketAddr>,
}

/// Shortest `JWT_SECRET` accepted in production (CONTRACT.md section 4).
pub const MIN_JWT_SECRET_BYTES: usize = 32;
/// Shortest `ADMIN_CODE` accepted in production: `/admin <code>` is typed in chat by anyone, so the
/// code is a password, and ten guesses a minute per address must never find it.
pub const MIN_ADMIN_CODE_CHARS: usize = 16;
/// Fewest different characters in a production `ADMIN_CODE` (`aaaaaaaaaaaaaaaa` is 16 long and
/// one guess).
pub const MIN_ADMIN_CODE_DISTINCT: usize = 8;
/// Longest run of one character in a production `ADMIN_CODE`.
pub const MAX_ADMIN_CODE_RUN: usize = 3;
/// Least estimated strength of a production `ADMIN_CODE`, in bits ([`admin_code_weakness`]).
pub const MIN_ADMIN_CODE_BITS: f64 = 64.0;

/// Why `code` is too weak for production, if it is: shorter than [`MIN_ADMIN_CODE_CHARS`], fewer
/// than [`MIN_ADMIN_CODE_DISTINCT`] different characters, a run of one character longer than
/// [`MAX_ADMIN_CODE_RUN`], or an estimated strength below [`MIN_ADMIN_CODE_BITS`]. The estimate is
/// the length times log2 of the alphabet its character classes span (lower case 26, upper case
/// 26, digits 10, anything else 33): 16 lower-case letters are 75 bits, 16 digits only 53.
pub fn admin_code_weakness(code: &str) -> Option<String> {
    let chars: Vec<char> = code.chars().collect();
    if chars.len() < MIN_ADMIN_CODE_CHARS {
        return Some(format!(
            "production needs a code of at least {MIN_ADMIN_CODE_CHARS} characters (or none: admin then comes only from the account's stored role)"
        ));
    }
    let distinct = chars.iter().collect::<std::collections::HashSet<_>>().len();
    if distinct < MIN_ADMIN_CODE_DISTINCT {
        return Some(format!(
            "production needs a code of at least {MIN_ADMIN_CODE_DISTINCT} different characters; this one has {distinct}"
        ));
    }
    let longest_run = chars
        .chunk_by(|a, b| a == b)
        .map(<[char]>::len)
        .max()
        .unwrap_or(0);
    if longest_run > MAX_ADMIN_CODE_RUN {
        return Some(format!(
            "production needs a code with no character more than {MAX_ADMIN_CODE_RUN} times in a row; this one has {longest_run}"
        ));
    }
    let alphabet: u32 = [
        (chars.iter().any(char::is_ascii_lowercase), 26),
        (chars.iter().any(char::is_ascii_uppercase), 26),
        (chars.iter().any(char::is_ascii_digit), 10),
        (chars.iter().any(|c| !c.is_ascii_alphanumeric()), 33),
    ]
    .into_iter()
    .filter_map(|(present, size)| present.then_some(size))
    .sum();
    let bits = chars.len() as f64 * f64::from(alphabet.max(1)).log2();
    if bits < MIN_ADMIN_CODE_BITS {
        return Some(format!(
            "production needs a code of an estimated {MIN_ADMIN_CODE_BITS} bits or more; this one is about {bits:.0} (make it longer or mix letters, digits and symbols)"
        ));
    }
    None
}

/// Variables whose values never appear in logs.
const SECRET_VARIABLES: &[&str] = &[
    "JWT_SECRET",
    "ADMIN_CODE",
    "IDP_APP_SECRET",
    "VOICE_API_SECRET",
    "VOICE_API_KEY",
    "LOAD_TEST_KEY",
    "METRICS_TOKEN",
];

/// Where production serves `/metrics` to a scraper on the same machine (`METRICS_ADDR` unset):
/// loopback only, the Prometheus exporters' customary port.
pub const DEFAULT_METRICS_ADDR: &str = "127.0.0.1:9464";

/// The default port of specification section 4.
pub const DEFAULT_PORT: u16 = 5555;
/// The default auto-save interval of specification section 8.
pub const DEFAULT_SAVE_INTERVAL_SECS: u64 = 60;
/// `JOINS_PER_TICK` when unset: at the default 600 ms tick, 166 players a second (10,000 in a
/// minute), more than a 10,000-player join over 30 s brings on average, while no tick does the
/// first views and entry messages of more than 100 newcomers.
pub const DEFAULT_JOINS_PER_TICK: u64 = 100;
/// `JOINS_PER_TICK_MAX` when unset: the join budget grows towards this while ticks stay fast and
/// players wait (a restart), so a quiet world lets a burst in faster than the floor would.
pub const DEFAULT_JOINS_PER_TICK_MAX: u64 = 1_000;
/// The classic game tick.
pub const DEFAULT_TICK_MS: u64 = 600;
/// `TICK_MS` of a world that ticks only when a test steps it.
pub const MANUAL_CLOCK: &str = "manual";
/// Default lease time: a world killed with -9 frees its players for other worlds this long after
/// its last heartbeat (renewals run every third of it).
pub const DEFAULT_WORLD_LEASE_SECS: u64 = 30;
/// Default number of players at which a world is listed as full.
pub const DEFAULT_WORLD_CAPACITY: u64 = 2000;
/// The default name prefix of embedded agents' characters (`Wanderer1`, `Wanderer2`, …).
pub const DEFAULT_EMBEDDED_AGENT_PREFIX: &str = "Wanderer";
/// World numbers are small: players read them in the world list.
pub const MAX_WORLD_ID: u64 = 65_535;

impl Config {
    /// Reads the process environment (after a `.env` file, when present, has been merged into it).
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests can supply their own environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let node_env = match get("NODE_ENV").as_deref().map(str::trim) {
            None | Some("development") => NodeEnv::Development,
            Some("production") => NodeEnv::Production,
            Some("test") => NodeEnv::Test,
            Some(other) => {
                return Err(ConfigError {
                    variable: "NODE_ENV",
                    message: format!("{other:?} is not one of development, production, test"),
                })
            }
        };
        let port = match get("PORT") {
            None => DEFAULT_PORT,
            Some(v) => v.trim().parse::<u16>().map_err(|_| ConfigError {
                variable: "PORT",
                message: format!("{v:?} is not a port number (0-65535)"),
            })?,
        };
        let save_interval_secs =
            positive_integer(&get, "SAVE_INTERVAL", DEFAULT_SAVE_INTERVAL_SECS)?;
        let optional = |variable: &'static str| -> Result<Option<u64>, ConfigError> {
            get(variable)
                .map(|_| positive_integer(&get, variable, 1))
                .transpose()
        };
        let db_pools = DbPools {
            rest_connections: optional("DB_REST_CONNECTIONS")?,
            entry_connections: optional("DB_ENTRY_CONNECTIONS")?,
            write_connections: optional("DB_WRITE_CONNECTIONS")?,
            rest_wait_ms: optional("DB_REST_WAIT_MS")?,
            entry_wait_ms: optional("DB_ENTRY_WAIT_MS")?,
            write_wait_ms: optional("DB_WRITE_WAIT_MS")?,
        };
        let joins_per_tick = positive_integer(&get, "JOINS_PER_TICK", DEFAULT_JOINS_PER_TICK)?;
        let joins_per_tick_max = match get("JOINS_PER_TICK_MAX") {
            // Unset: the default ceiling, or the floor when that is set higher.
            None => DEFAULT_JOINS_PER_TICK_MAX.max(joins_per_tick),
            Some(_) => {
                let max = positive_integer(&get, "JOINS_PER_TICK_MAX", DEFAULT_JOINS_PER_TICK_MAX)?;
                if max < joins_per_tick {
                    return Err(ConfigError {
                        variable: "JOINS_PER_TICK_MAX",
                        message: format!(
                            "{max} is below JOINS_PER_TICK ({joins_per_tick}): the budget's ceiling must be at least its floor"
                        ),
                    });
                }
                max
            }
        };
        let (tick_ms, manual_clock) = match get("TICK_MS").as_deref().map(str::trim) {
            Some(MANUAL_CLOCK) if node_env == NodeEnv::Test => (DEFAULT_TICK_MS, true),
            Some(MANUAL_CLOCK) => {
                return Err(ConfigError {
                    variable: "TICK_MS",
                    message: format!(
                        "{MANUAL_CLOCK:?} (a world that ticks only when a test steps it) exists for tests only (NODE_ENV=test)"
                    ),
                })
            }
            _ => (positive_integer(&get, "TICK_MS", DEFAULT_TICK_MS)?, false),
        };
        let use_local_postgres = boolean(&get, "USE_LOCAL_POSTGRES")?;
        let disable_rate_limit = boolean(&get, "DISABLE_RATE_LIMIT")?;
        let database_url = get("DATABASE_URL");
        if let Some(url) = &database_url {
            wayfarer_store::Backend::from_url(url).map_err(|_| ConfigError {
                variable: "DATABASE_URL",
                message: "must start with sqlite:, postgres:// or postgresql://".into(),
            })?;
        }
        if use_local_postgres && node_env == NodeEnv::Production {
            return Err(ConfigError {
                variable: "USE_LOCAL_POSTGRES",
                message: "is for development only; set DATABASE_URL in production".into(),
            });
        }
        if use_local_postgres && database_url.is_some() {
            return Err(ConfigError {
                variable: "USE_LOCAL_POSTGRES",
                message: "cannot be combined with DATABASE_URL; choose one".into(),
            });
        }
        let log_format = match get("LOG_FORMAT").as_deref().map(str::trim) {
            None | Some("human") | Some("pretty") | Some("text") => LogFormat::Human,
            Some("json") => LogFormat::Json,
            Some(other) => {
                return Err(ConfigError {
                    variable: "LOG_FORMAT",
                    message: format!("{other:?} is not one of human, json"),
                })
            }
        };
        let url = |name: &'static str| -> Result<Option<String>, ConfigError> {
            match get(name) {
                None => Ok(None),
                Some(v) if v.contains("://") => Ok(Some(v.trim().trim_end_matches('/').to_owned())),
                Some(v) => Err(ConfigError {
                    variable: name,
                    message: format!("{v:?} is not a URL (expected scheme://host…)"),
                }),
            }
        };
        let cors_origins = get("CORS_ORIGINS")
            .map(|v| {
                v.split(',')
                    .map(|o| o.trim().trim_end_matches('/').to_owned())
                    .filter(|o| !o.is_empty())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        if let Some(bad) = cors_origins.iter().find(|o| !o.contains("://")) {
            return Err(ConfigError {
                variable: "CORS_ORIGINS",
                message: format!("{bad:?} is not an origin (expected scheme://host[:port])"),
            });
        }
        let jwt_secret = get("JWT_SECRET");
        if node_env == NodeEnv::Production
            && jwt_secret
                .as_ref()
                .is_none_or(|s| s.len() < MIN_JWT_SECRET_BYTES)
        {
            return Err(ConfigError {
                variable: "JWT_SECRET",
                message: format!(
                    "production needs a secret of at least {MIN_JWT_SECRET_BYTES} bytes"
                ),
            });
        }
        let admin_code = get("ADMIN_CODE").map(|v| v.trim().to_owned());
        if let Some(code) = &admin_code {
            if code.chars().any(char::is_whitespace) {
                return Err(ConfigError {
                    variable: "ADMIN_CODE",
                    message: "must be one word: `/admin <code>` cannot carry a space".into(),
                });
            }
            if node_env == NodeEnv::Production {
                if let Some(message) = admin_code_weakness(code) {
                    return Err(ConfigError {
                        variable: "ADMIN_CODE",
                        message,
                    });
                }
            }
        }
        let public_idp_app_id = get("PUBLIC_IDP_APP_ID");
        let idp_app_secret = get("IDP_APP_SECRET");
        let idp_verification_key = get("IDP_VERIFICATION_KEY");
        let idp_jwks_url = get("IDP_JWKS_URL");
        if public_idp_app_id.is_some()
            && idp_app_secret.is_some()
            && idp_verification_key.is_none()
            && idp_jwks_url.is_none()
        {
            return Err(ConfigError {
                variable: "IDP_VERIFICATION_KEY",
                message: "identity-provider login is enabled (PUBLIC_IDP_APP_ID and IDP_APP_SECRET are set) but neither IDP_VERIFICATION_KEY nor IDP_JWKS_URL says how to verify its tokens".into(),
            });
        }
        let trusted_proxies = crate::client_addr::TrustedProxies::parse(
            get("TRUSTED_PROXIES").as_deref().unwrap_or(""),
        )
        .map_err(|bad| ConfigError {
            variable: "TRUSTED_PROXIES",
            message: format!("{bad:?} is not an IP address or CIDR network"),
        })?;
        let rate_limit_window_secs = match get("RATE_LIMIT_WINDOW_SECS") {
            Some(_) if node_env != NodeEnv::Test => {
                return Err(ConfigError {
                    variable: "RATE_LIMIT_WINDOW_SECS",
                    message: "exists for tests only (NODE_ENV=test); the specification fixes the window at one minute".into(),
                })
            }
            _ => positive_integer(&get, "RATE_LIMIT_WINDOW_SECS", 60)?,
        };
        let nats_url = get("NATS_URL").map(|v| v.trim().to_owned());
        if let Some(nats) = &nats_url {
            if !nats.contains("://") && !nats.contains(':') {
                return Err(ConfigError {
                    variable: "NATS_URL",
                    message: format!("{nats:?} is not a NATS address (nats://host:4222)"),
                });
            }
            // The character leases that keep a character in one world live in the shared
            // database; a SQLite file is one machine's, so several worlds need PostgreSQL.
            let shared = database_url
                .as_deref()
                .and_then(|u| wayfarer_store::Backend::from_url(u).ok())
                == Some(wayfarer_store::Backend::Postgres);
            if !shared {
                return Err(ConfigError {
                    variable: "NATS_URL",
                    message:
                        "several worlds share one PostgreSQL: set DATABASE_URL=postgres://… too"
                            .into(),
                });
            }
            if get("WORLD_ID").is_none() {
                return Err(ConfigError {
                    variable: "WORLD_ID",
                    message: "is required with NATS_URL: give each world its own number".into(),
                });
            }
        }
        let cross_world_global_chat = boolean(&get, "CROSS_WORLD_GLOBAL_CHAT")?;
        if cross_world_global_chat && nats_url.is_none() {
            return Err(ConfigError {
                variable: "CROSS_WORLD_GLOBAL_CHAT",
                message: "relays global chat between worlds over NATS: set NATS_URL too".into(),
            });
        }
        let embedded_agents = match get("EMBEDDED_AGENTS") {
            None => 0,
            Some(v) => v.trim().parse::<u32>().map_err(|_| ConfigError {
                variable: "EMBEDDED_AGENTS",
                message: format!("{v:?} is not a whole number of agents (0 for none)"),
            })?,
        };
        let embedded_agent_prefix = get("EMBEDDED_AGENT_PREFIX")
            .map(|v| v.trim().to_owned())
            .unwrap_or_else(|| DEFAULT_EMBEDDED_AGENT_PREFIX.to_owned());
        check_embedded_agents(embedded_agents, &embedded_agent_prefix, "EMBEDDED_AGENTS")?;
        let world_id = positive_integer(&get, "WORLD_ID", 1)?;
        if world_id > MAX_WORLD_ID {
            return Err(ConfigError {
                variable: "WORLD_ID",
                message: format!("{world_id} is above {MAX_WORLD_ID}"),
            });
        }
        let connections = connections::ConnectionSettings::from_lookup(&get)?;
        let tick_threads = tick_threads(&get)?;
        let world_thread_realtime = boolean_or(&get, "WORLD_THREAD_REALTIME", true)?;
        let metrics_token = get("METRICS_TOKEN").map(|v| v.trim().to_owned());
        let metrics_addr = match get("METRICS_ADDR").as_deref().map(str::trim) {
            Some("off" | "none") => None,
            None if node_env != NodeEnv::Production => None,
            given => {
                let text = given.unwrap_or(DEFAULT_METRICS_ADDR);
                Some(text.parse().map_err(|_| ConfigError {
                    variable: "METRICS_ADDR",
                    message: format!(
                        "{} is not an address and port (127.0.0.1:9464), nor off",
                        wayfarer_protocol::text::quoted(text)
                    ),
                })?)
            }
        };
        Ok(Config {
            metrics_token,
            metrics_addr,
            connections,
            tick_threads,
            world_thread_realtime,
            embedded_agents,
            embedded_agent_prefix,
            world_id: world_id as i64,
            world_name: get("WORLD_NAME")
                .map(|v| v.trim().to_owned())
                .unwrap_or_else(|| format!("World {world_id}")),
            nats_url,
            world_lease_secs: positive_integer(&get, "WORLD_LEASE_SECS", DEFAULT_WORLD_LEASE_SECS)?,
            world_capacity: positive_integer(&get, "WORLD_CAPACITY", DEFAULT_WORLD_CAPACITY)?,
            cross_world_global_chat,
            idp_verification_key,
            idp_jwks_url,
            idp_issuer: get("IDP_ISSUER").unwrap_or_else(|| "privy.io".into()),
            idp_jwks_min_refresh_secs: match get("IDP_JWKS_MIN_REFRESH_SECS") {
                None => 60,
                Some(v) => v.trim().parse().map_err(|_| ConfigError {
                    variable: "IDP_JWKS_MIN_REFRESH_SECS",
                    message: format!("{v:?} is not a whole number of seconds"),
                })?,
            },
            trusted_proxies,
            rate_limit_window_secs,
            manifest_refresh_secs: positive_integer(&get, "MANIFEST_REFRESH_SECONDS", 300)?,
            load_test_key: get("LOAD_TEST_KEY"),
            web_dir: get("WEB_DIR").map(PathBuf::from),
            port,
            host: get("HOST").unwrap_or_else(|| "0.0.0.0".into()),
            node_env,
            world_dir: PathBuf::from(get("WORLD").unwrap_or_else(|| "./world".into())),
            dice_seed: None,
            world_seed: match get("WORLD_SEED") {
                None => None,
                Some(v) => Some(v.trim().parse::<u64>().map_err(|_| ConfigError {
                    variable: "WORLD_SEED",
                    message: format!("{v:?} is not a whole number from 0 to 2^64-1"),
                })?),
            },
            database_url,
            use_local_postgres,
            pg_bin_dir: get("PG_BIN_DIR").map(PathBuf::from),
            public_cdn_url: url("PUBLIC_CDN_URL")?,
            public_ws_url: url("PUBLIC_WS_URL")?,
            public_api_url: url("PUBLIC_API_URL")?,
            save_interval_secs,
            db_pools,
            joins_per_tick,
            joins_per_tick_max,
            disable_rate_limit,
            commit_hash: get("COMMIT_HASH"),
            voice_api_key: get("VOICE_API_KEY"),
            voice_api_secret: get("VOICE_API_SECRET"),
            voice_url: url("VOICE_URL")?,
            agent_runtime_api_url: url("AGENT_RUNTIME_API_URL")?,
            agent_runtime_url: url("AGENT_RUNTIME_URL")?,
            client_url: url("CLIENT_URL")?,
            public_app_url: url("PUBLIC_APP_URL")?,
            jwt_secret,
            admin_code,
            public_idp_app_id,
            idp_app_secret,
            tick_ms,
            manual_clock,
            cors_origins,
            cors_preview_pattern: get("CORS_PREVIEW_PATTERN"),
            log_format,
        })
    }

    /// `serve --agents N`: the flag wins over `EMBEDDED_AGENTS`, checked the same way.
    pub fn with_embedded_agents(mut self, count: u32) -> Result<Config, ConfigError> {
        check_embedded_agents(count, &self.embedded_agent_prefix, "--agents")?;
        self.embedded_agents = count;
        Ok(self)
    }

    /// What this world says and needs about itself in a group of worlds (the host's
    /// `cluster::ClusterSettings`); `None` without `NATS_URL` (a single world).
    pub fn cluster_settings(&self) -> Option<wayfarer_host::cluster::ClusterSettings> {
        Some(wayfarer_host::cluster::ClusterSettings {
            nats_url: self.nats_url.clone()?,
            me: wayfarer_host::cluster::WorldAnnouncement {
                id: self.world_id,
                name: self.world_name.clone(),
                ws_url: self.public_ws_url.clone(),
                api_url: self.public_api_url.clone(),
                players: 0,
                capacity: self.world_capacity,
                full: false,
            },
            lease_ttl_ms: i64::try_from(self.world_lease_secs.saturating_mul(1000))
                .unwrap_or(i64::MAX),
            global_chat: self.cross_world_global_chat,
        })
    }

    /// The database to use: `DATABASE_URL`, else the SQLite file in the world directory.
    pub fn effective_database_url(&self) -> String {
        self.database_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}", self.world_dir.join("wayfarer.db").display()))
    }

    /// The store's pools for the database at `url`: its backend's defaults, with what the
    /// `DB_*` settings set over them.
    pub fn pool_settings(&self, url: &str) -> wayfarer_store::PoolSettings {
        let backend =
            wayfarer_store::Backend::from_url(url).unwrap_or(wayfarer_store::Backend::Sqlite);
        let mut pools = wayfarer_store::PoolSettings::defaults(backend);
        let set = &self.db_pools;
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let wait = std::time::Duration::from_millis;
        if let Some(n) = set.rest_connections {
            pools.rest_connections = count(n);
        }
        if let Some(n) = set.entry_connections {
            pools.entry_connections = count(n);
        }
        if let Some(n) = set.write_connections {
            pools.write_connections = count(n);
        }
        if let Some(ms) = set.rest_wait_ms {
            pools.rest_acquire = wait(ms);
        }
        if let Some(ms) = set.entry_wait_ms {
            pools.entry_acquire = wait(ms);
        }
        if let Some(ms) = set.write_wait_ms {
            pools.write_acquire = wait(ms);
        }
        pools
    }

    /// Identity-provider login is on when both the app id and the app secret are set.
    pub fn idp_enabled(&self) -> bool {
        self.public_idp_app_id.is_some() && self.idp_app_secret.is_some()
    }

    /// Rate limits are off only when asked for outside production.
    pub fn rate_limits_disabled(&self) -> bool {
        self.disable_rate_limit && self.node_env != NodeEnv::Production
    }

    /// The commit this build reports (`COMMIT_HASH`, else "unknown").
    pub fn commit(&self) -> &str {
        self.commit_hash.as_deref().unwrap_or("unknown")
    }

    /// Every setting as (variable, value) with secrets masked, for the start-up log.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".into());
        let mut out = vec![
            ("PORT", self.port.to_string()),
            ("HOST", self.host.clone()),
            (
                "WEB_DIR",
                self.web_dir.as_ref().map_or_else(
                    || "(unset: the client built into the binary)".into(),
                    |d| d.display().to_string(),
                ),
            ),
            ("NODE_ENV", self.node_env.as_str().into()),
            ("WORLD", self.world_dir.display().to_string()),
            (
                "WORLD_SEED",
                self.world_seed.map(|s| s.to_string()).unwrap_or_else(|| {
                    "(unset: generated once, kept in the world directory)".into()
                }),
            ),
            (
                "DATABASE_URL",
                self.database_url
                    .as_deref()
                    .map(wayfarer_store::redact_url)
                    .unwrap_or_else(|| "(unset: SQLite in the world directory)".into()),
            ),
            ("USE_LOCAL_POSTGRES", self.use_local_postgres.to_string()),
            ("PUBLIC_CDN_URL", opt(&self.public_cdn_url)),
            ("PUBLIC_WS_URL", opt(&self.public_ws_url)),
            ("PUBLIC_API_URL", opt(&self.public_api_url)),
            ("SAVE_INTERVAL", self.save_interval_secs.to_string()),
            ("DB_REST_CONNECTIONS", opt_n(self.db_pools.rest_connections)),
            (
                "DB_ENTRY_CONNECTIONS",
                opt_n(self.db_pools.entry_connections),
            ),
            (
                "DB_WRITE_CONNECTIONS",
                opt_n(self.db_pools.write_connections),
            ),
            ("DB_REST_WAIT_MS", opt_n(self.db_pools.rest_wait_ms)),
            ("DB_ENTRY_WAIT_MS", opt_n(self.db_pools.entry_wait_ms)),
            ("DB_WRITE_WAIT_MS", opt_n(self.db_pools.write_wait_ms)),
            ("JOINS_PER_TICK", self.joins_per_tick.to_string()),
            ("JOINS_PER_TICK_MAX", self.joins_per_tick_max.to_string()),
            ("DISABLE_RATE_LIMIT", self.disable_rate_limit.to_string()),
            ("COMMIT_HASH", opt(&self.commit_hash)),
            ("VOICE_API_KEY", opt(&self.voice_api_key)),
            ("VOICE_API_SECRET", opt(&self.voice_api_secret)),
            ("VOICE_URL", opt(&self.voice_url)),
            ("AGENT_RUNTIME_API_URL", opt(&self.agent_runtime_api_url)),
            ("AGENT_RUNTIME_URL", opt(&self.agent_runtime_url)),
            ("CLIENT_URL", opt(&self.client_url)),
            ("PUBLIC_APP_URL", opt(&self.public_app_url)),
            ("JWT_SECRET", opt(&self.jwt_secret)),
            ("ADMIN_CODE", opt(&self.admin_code)),
            ("PUBLIC_IDP_APP_ID", opt(&self.public_idp_app_id)),
            ("IDP_APP_SECRET", opt(&self.idp_app_secret)),
            (
                "TICK_MS",
                if self.manual_clock {
                    format!(
                        "{MANUAL_CLOCK} (ticks when a test steps it; counts {} ms a tick)",
                        self.tick_ms
                    )
                } else {
                    self.tick_ms.to_string()
                },
            ),
            ("CORS_ORIGINS", self.cors_origins.join(",")),
            ("CORS_PREVIEW_PATTERN", opt(&self.cors_preview_pattern)),
            (
                "IDP_VERIFICATION_KEY",
                opt(&self
                    .idp_verification_key
                    .as_ref()
                    .map(|_| "(set)".to_owned())),
            ),
            ("IDP_JWKS_URL", opt(&self.idp_jwks_url)),
            ("IDP_ISSUER", self.idp_issuer.clone()),
            ("TRUSTED_PROXIES", format!("{:?}", self.trusted_proxies)),
            (
                "MANIFEST_REFRESH_SECONDS",
                self.manifest_refresh_secs.to_string(),
            ),
            ("WORLD_ID", self.world_id.to_string()),
            ("WORLD_NAME", self.world_name.clone()),
            (
                "NATS_URL",
                self.nats_url
                    .as_deref()
                    .map(wayfarer_store::redact_url)
                    .unwrap_or_else(|| "(unset: a single world)".into()),
            ),
            ("WORLD_LEASE_SECS", self.world_lease_secs.to_string()),
            ("WORLD_CAPACITY", self.world_capacity.to_string()),
            (
                "CROSS_WORLD_GLOBAL_CHAT",
                self.cross_world_global_chat.to_string(),
            ),
            ("EMBEDDED_AGENTS", self.embedded_agents.to_string()),
            ("EMBEDDED_AGENT_PREFIX", self.embedded_agent_prefix.clone()),
            ("TICK_THREADS", self.tick_threads.to_string()),
            (
                "WORLD_THREAD_REALTIME",
                self.world_thread_realtime.to_string(),
            ),
            ("METRICS_TOKEN", opt(&self.metrics_token)),
            (
                "METRICS_ADDR",
                self.metrics_addr
                    .map_or_else(|| "(none)".into(), |a| a.to_string()),
            ),
        ];
        out.extend(self.connections.describe());
        for (name, value) in &mut out {
            if SECRET_VARIABLES.contains(name) && value != "(unset)" {
                *value = "***".into();
            }
        }
        out
    }
}

/// Embedded agents' names (`<prefix><n>` up to `<prefix><count>`) must be valid character names
/// by the one rule (`characters::CharacterName`, as the operator's, like an admin's), and the
/// prefix one word of ASCII letters and digits, so the number reads as part of it. A bad count or
/// prefix names `variable` (or `EMBEDDED_AGENT_PREFIX` when the prefix alone is wrong).
fn check_embedded_agents(
    count: u32,
    prefix: &str,
    variable: &'static str,
) -> Result<(), ConfigError> {
    use crate::characters::{CharacterName, Namer};
    if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ConfigError {
            variable: "EMBEDDED_AGENT_PREFIX",
            message: format!("{prefix:?} must be ASCII letters and digits, at least one"),
        });
    }
    let last = count.max(1);
    for n in [1, last] {
        let name = format!("{prefix}{n}");
        if let Err(err) = CharacterName::parse(&name, Namer::Admin) {
            return Err(ConfigError {
                variable: if n == 1 {
                    "EMBEDDED_AGENT_PREFIX"
                } else {
                    variable
                },
                message: format!(
                    "{count} agents named {prefix}1…{prefix}{last} would need the name {name:?}, \
                     which is not a character name ({err}); shorten EMBEDDED_AGENT_PREFIX"
                ),
            });
        }
    }
    Ok(())
}

/// `TICK_THREADS`: 1 to [`wayfarer_sim::MAX_TICK_THREADS`], the machine's cores when unset.
fn tick_threads(get: &impl Fn(&str) -> Option<String>) -> Result<usize, ConfigError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let default = cores.min(wayfarer_sim::MAX_TICK_THREADS) as u64;
    let threads = positive_integer(get, "TICK_THREADS", default)?;
    if threads > wayfarer_sim::MAX_TICK_THREADS as u64 {
        return Err(ConfigError {
            variable: "TICK_THREADS",
            message: format!(
                "{threads} is above {} (more threads than cores only take turns)",
                wayfarer_sim::MAX_TICK_THREADS
            ),
        });
    }
    Ok(threads as usize)
}

/// The store's pool settings as given (`None`: the database's default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DbPools {
    pub rest_connections: Option<u64>,
    pub entry_connections: Option<u64>,
    pub write_connections: Option<u64>,
    pub rest_wait_ms: Option<u64>,
    pub entry_wait_ms: Option<u64>,
    pub write_wait_ms: Option<u64>,
}

/// A setting left to its default, as the settings list shows it.
fn opt_n(value: Option<u64>) -> String {
    value.map_or_else(|| "(default)".into(), |n| n.to_string())
}

pub(crate) fn positive_integer(
    get: &impl Fn(&str) -> Option<String>,
    variable: &'static str,
    default: u64,
) -> Result<u64, ConfigError> {
    match get(variable) {
        None => Ok(default),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(ConfigError {
                variable,
                message: format!("{v:?} is not a positive whole number"),
            }),
        },
    }
}

fn boolean(
    get: &impl Fn(&str) -> Option<String>,
    variable: &'static str,
) -> Result<bool, ConfigError> {
    boolean_or(get, variable, false)
}

/// A boolean variable, `unset` when it is not set.
fn boolean_or(
    get: &impl Fn(&str) -> Option<String>,
    variable: &'static str,
    unset: bool,
) -> Result<bool, ConfigError> {
    match get(variable)
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        None => Ok(unset),
        Some("false") | Some("0") | Some("no") | Some("off") => Ok(false),
        Some("true") | Some("1") | Some("yes") | Some("on") => Ok(true),
        Some(other) => Err(ConfigError {
            variable,
            message: format!("{other:?} is not a boolean (true or false)"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_match_the_specification() {
        let c = config(&[]).unwrap();
        assert_eq!(c.port, 5555);
        assert_eq!(c.node_env, NodeEnv::Development);
        assert_eq!(c.world_dir, PathBuf::from("./world"));
        assert_eq!(c.save_interval_secs, 60);
        assert_eq!(c.joins_per_tick, 100);
        assert_eq!(c.joins_per_tick_max, 1_000);
        assert_eq!(c.tick_ms, 600);
        assert!(!c.disable_rate_limit);
        assert!(!c.use_local_postgres);
        assert_eq!(c.effective_database_url(), "sqlite://./world/wayfarer.db");
    }

    #[test]
    fn the_join_budget_ceiling_is_never_below_its_floor() {
        let c = config(&[("JOINS_PER_TICK", "2000")]).unwrap();
        assert_eq!(
            c.joins_per_tick_max, 2_000,
            "unset, it follows a higher floor"
        );
        let c = config(&[("JOINS_PER_TICK", "50"), ("JOINS_PER_TICK_MAX", "50")]).unwrap();
        assert_eq!((c.joins_per_tick, c.joins_per_tick_max), (50, 50));
    }

    #[test]
    fn the_world_thread_asks_for_real_time_priority_unless_told_not_to() {
        assert!(config(&[]).unwrap().world_thread_realtime);
        for (value, on) in [
            ("true", true),
            ("1", true),
            ("false", false),
            ("off", false),
        ] {
            let c = config(&[("WORLD_THREAD_REALTIME", value)]).unwrap();
            assert_eq!(c.world_thread_realtime, on, "{value}");
        }
        let error = config(&[("WORLD_THREAD_REALTIME", "sometimes")]).unwrap_err();
        assert_eq!(error.variable, "WORLD_THREAD_REALTIME");
    }

    #[test]
    fn tick_threads_default_to_the_cores_and_stay_within_their_bounds() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(
            config(&[]).unwrap().tick_threads,
            cores.min(wayfarer_sim::MAX_TICK_THREADS)
        );
        assert_eq!(config(&[("TICK_THREADS", "1")]).unwrap().tick_threads, 1);
        let most = wayfarer_sim::MAX_TICK_THREADS.to_string();
        assert_eq!(
            config(&[("TICK_THREADS", &most)]).unwrap().tick_threads,
            wayfarer_sim::MAX_TICK_THREADS
        );
        let too_many = (wayfarer_sim::MAX_TICK_THREADS + 1).to_string();
        for bad in ["0", too_many.as_str(), "two", "-1"] {
            let error = config(&[("TICK_THREADS", bad)]).unwrap_err();
            assert_eq!(error.variable, "TICK_THREADS", "{bad}");
        }
    }

    /// Issue 50: `aaaaaaaaaaaaaaaa` started production (only the length was checked).
    #[test]
    fn a_production_admin_code_needs_about_64_bits() {
        for weak in [
            "aaaaaaaaaaaaaaaa",
            "abababababababab",
            "abcdefgaaaaahijk",
            "0123456789012345",
            "short-Code-1",
        ] {
            assert!(admin_code_weakness(weak).is_some(), "{weak}");
        }
        for strong in [
            "letmein-0123456789",
            "k3v9-Qx2m-Lp7z-W8r4",
            "correcthorsebatterystaple",
            "01234567890123456789",
        ] {
            assert_eq!(admin_code_weakness(strong), None, "{strong}");
        }
        let production = |code: &str| {
            config(&[
                ("NODE_ENV", "production"),
                ("JWT_SECRET", "0123456789abcdef0123456789abcdef"),
                ("ADMIN_CODE", code),
            ])
        };
        assert_eq!(
            production("aaaaaaaaaaaaaaaa").unwrap_err().variable,
            "ADMIN_CODE"
        );
        assert!(production("letmein-0123456789").is_ok());
        // Outside production a short code stays a convenience.
        assert!(config(&[("ADMIN_CODE", "aaaa")]).is_ok());
    }

    #[test]
    fn metrics_listen_apart_in_production_unless_turned_off() {
        let production = |extra: &[(&str, &str)]| {
            let mut vars = vec![
                ("NODE_ENV", "production"),
                ("JWT_SECRET", "0123456789abcdef0123456789abcdef"),
            ];
            vars.extend_from_slice(extra);
            config(&vars)
        };
        assert_eq!(
            production(&[]).unwrap().metrics_addr,
            Some(DEFAULT_METRICS_ADDR.parse().unwrap())
        );
        assert_eq!(
            production(&[("METRICS_ADDR", "off")]).unwrap().metrics_addr,
            None
        );
        assert_eq!(
            production(&[("METRICS_ADDR", "0.0.0.0:9100")])
                .unwrap()
                .metrics_addr,
            Some("0.0.0.0:9100".parse().unwrap())
        );
        assert_eq!(
            production(&[("METRICS_ADDR", "nowhere")])
                .unwrap_err()
                .variable,
            "METRICS_ADDR"
        );
        assert_eq!(config(&[]).unwrap().metrics_addr, None);
        let described = production(&[("METRICS_TOKEN", "scrape-me")])
            .unwrap()
            .describe();
        assert!(described.contains(&("METRICS_TOKEN", "***".to_owned())));
    }

    #[test]
    fn bad_values_name_their_variable() {
        for (vars, variable) in [
            (vec![("PORT", "abc")], "PORT"),
            (vec![("PORT", "70000")], "PORT"),
            (vec![("SAVE_INTERVAL", "-1")], "SAVE_INTERVAL"),
            (vec![("SAVE_INTERVAL", "0")], "SAVE_INTERVAL"),
            (vec![("JOINS_PER_TICK", "0")], "JOINS_PER_TICK"),
            (vec![("JOINS_PER_TICK", "many")], "JOINS_PER_TICK"),
            (vec![("JOINS_PER_TICK_MAX", "0")], "JOINS_PER_TICK_MAX"),
            (
                vec![("JOINS_PER_TICK", "100"), ("JOINS_PER_TICK_MAX", "99")],
                "JOINS_PER_TICK_MAX",
            ),
            (vec![("TICK_MS", "fast")], "TICK_MS"),
            (vec![("TICK_MS", "manual")], "TICK_MS"),
            (
                vec![("NODE_ENV", "production"), ("TICK_MS", "manual")],
                "TICK_MS",
            ),
            (vec![("NODE_ENV", "staging")], "NODE_ENV"),
            (vec![("DISABLE_RATE_LIMIT", "maybe")], "DISABLE_RATE_LIMIT"),
            (vec![("DATABASE_URL", "mysql://x")], "DATABASE_URL"),
            (
                vec![("PUBLIC_CDN_URL", "cdn.example.com")],
                "PUBLIC_CDN_URL",
            ),
            (
                vec![("CORS_ORIGINS", "https://a.example, b.example")],
                "CORS_ORIGINS",
            ),
            (vec![("LOG_FORMAT", "xml")], "LOG_FORMAT"),
            (
                vec![("NODE_ENV", "production"), ("USE_LOCAL_POSTGRES", "true")],
                "USE_LOCAL_POSTGRES",
            ),
            (vec![("NODE_ENV", "production")], "JWT_SECRET"),
            (
                vec![("NODE_ENV", "production"), ("JWT_SECRET", "short")],
                "JWT_SECRET",
            ),
            (
                vec![
                    ("NODE_ENV", "production"),
                    ("JWT_SECRET", "0123456789abcdef0123456789abcdef"),
                    ("ADMIN_CODE", "1"),
                ],
                "ADMIN_CODE",
            ),
            (vec![("ADMIN_CODE", "two words")], "ADMIN_CODE"),
            (
                vec![("TRUSTED_PROXIES", "10.0.0.1, proxy")],
                "TRUSTED_PROXIES",
            ),
            (
                vec![("RATE_LIMIT_WINDOW_SECS", "5")],
                "RATE_LIMIT_WINDOW_SECS",
            ),
            (
                vec![("PUBLIC_IDP_APP_ID", "app"), ("IDP_APP_SECRET", "s")],
                "IDP_VERIFICATION_KEY",
            ),
            (vec![("EMBEDDED_AGENTS", "-3")], "EMBEDDED_AGENTS"),
            (vec![("EMBEDDED_AGENTS", "many")], "EMBEDDED_AGENTS"),
            (vec![("EMBEDDED_AGENTS", "100000")], "EMBEDDED_AGENTS"),
            (
                vec![("EMBEDDED_AGENT_PREFIX", "Bad Name")],
                "EMBEDDED_AGENT_PREFIX",
            ),
        ] {
            let err = config(&vars).unwrap_err();
            assert_eq!(err.variable, variable, "{vars:?}");
            assert!(err.to_string().contains(variable));
        }
    }

    #[test]
    fn every_specified_variable_is_read() {
        let c = config(&[
            ("PORT", "0"),
            ("NODE_ENV", "production"),
            ("WORLD", "/tmp/w"),
            ("DATABASE_URL", "postgres://u:p@h/db"),
            ("PUBLIC_CDN_URL", "https://cdn.example/"),
            ("PUBLIC_WS_URL", "wss://game.example/ws"),
            ("PUBLIC_API_URL", "https://game.example"),
            ("SAVE_INTERVAL", "15"),
            ("JOINS_PER_TICK", "1"),
            ("JOINS_PER_TICK_MAX", "1"),
            ("DISABLE_RATE_LIMIT", "true"),
            ("COMMIT_HASH", "abc123"),
            ("VOICE_API_KEY", "key"),
            ("VOICE_API_SECRET", "secret"),
            ("VOICE_URL", "wss://voice.example"),
            ("AGENT_RUNTIME_API_URL", "http://localhost:4000"),
            ("AGENT_RUNTIME_URL", "http://localhost:4001"),
            ("CLIENT_URL", "http://localhost:3333"),
            ("PUBLIC_APP_URL", "https://app.example"),
            ("JWT_SECRET", "s".repeat(40).as_str()),
            ("ADMIN_CODE", "letmein-0123456789"),
            ("PUBLIC_IDP_APP_ID", "app-id"),
            ("IDP_APP_SECRET", "idp-secret"),
            ("IDP_JWKS_URL", "https://idp.example/.well-known/jwks.json"),
            ("TRUSTED_PROXIES", "10.0.0.0/8"),
            ("TICK_MS", "50"),
        ])
        .unwrap();
        assert_eq!(c.port, 0);
        assert_eq!(c.node_env, NodeEnv::Production);
        assert_eq!(c.public_cdn_url.as_deref(), Some("https://cdn.example"));
        assert_eq!(c.save_interval_secs, 15);
        assert_eq!(c.joins_per_tick, 1, "the smallest allowed");
        assert_eq!(
            c.joins_per_tick_max, 1,
            "a ceiling equal to the floor: a fixed budget"
        );
        assert!(c.disable_rate_limit);
        assert_eq!(c.tick_ms, 50);
        assert_eq!(c.commit(), "abc123");
        assert_eq!(c.admin_code.as_deref(), Some("letmein-0123456789"));
        let described = c.describe();
        let value = |name: &str| {
            described
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap()
                .1
                .clone()
        };
        for secret in [
            "JWT_SECRET",
            "ADMIN_CODE",
            "IDP_APP_SECRET",
            "VOICE_API_SECRET",
            "VOICE_API_KEY",
        ] {
            assert_eq!(value(secret), "***");
        }
        assert_eq!(value("DATABASE_URL"), "postgres://u:***@h/db");
        assert_eq!(value("CLIENT_URL"), "http://localhost:3333");
    }
    #[test]
    fn the_manual_clock_is_for_tests_only() {
        let c = config(&[("NODE_ENV", "test"), ("TICK_MS", " manual ")]).unwrap();
        assert!(c.manual_clock);
        assert_eq!(c.tick_ms, DEFAULT_TICK_MS, "what counts time in ticks");
        let err = config(&[("NODE_ENV", "development"), ("TICK_MS", "manual")]).unwrap_err();
        assert_eq!(err.variable, "TICK_MS");
        assert!(err.message.contains("NODE_ENV=test"), "{err}");
        let timed = config(&[("NODE_ENV", "test"), ("TICK_MS", "50")]).unwrap();
        assert_eq!((timed.tick_ms, timed.manual_clock), (50, false));
        assert!(!config(&[]).unwrap().manual_clock);
    }

    #[test]
    fn production_refuses_a_short_admin_code() {
        let secret = "s".repeat(40);
        let production = |code: Option<&str>| {
            let mut vars = vec![("NODE_ENV", "production"), ("JWT_SECRET", secret.as_str())];
            vars.extend(code.map(|c| ("ADMIN_CODE", c)));
            config(&vars)
        };
        // The boundary: 15 characters refused, 16 accepted (counted in characters, not bytes;
        // strong enough otherwise: see `a_production_admin_code_needs_about_64_bits`).
        let err = production(Some("k3v9Qx2mLp7zW8r")).unwrap_err();
        assert_eq!(err.variable, "ADMIN_CODE");
        assert!(err.to_string().contains("at least 16 characters"), "{err}");
        assert_eq!(
            production(Some("k3v9Qx2mLp7zW8r4"))
                .unwrap()
                .admin_code
                .as_deref(),
            Some("k3v9Qx2mLp7zW8r4")
        );
        assert!(
            production(Some("ééééééééééééééé")).is_err(),
            "15 characters, 30 bytes"
        );
        // No code at all is allowed: no one becomes admin by code.
        assert_eq!(production(None).unwrap().admin_code, None);
        // Outside production a short code is a developer's choice.
        assert_eq!(
            config(&[("ADMIN_CODE", "1")])
                .unwrap()
                .admin_code
                .as_deref(),
            Some("1")
        );
    }

    #[test]
    fn several_worlds_need_postgres_and_a_world_number() {
        let pg = ("DATABASE_URL", "postgres://u:p@h/db");
        let nats = ("NATS_URL", "nats://127.0.0.1:4222");
        assert_eq!(config(&[nats]).unwrap_err().variable, "NATS_URL");
        assert_eq!(
            config(&[nats, ("DATABASE_URL", "sqlite://w.db"), ("WORLD_ID", "2")])
                .unwrap_err()
                .variable,
            "NATS_URL"
        );
        assert_eq!(config(&[nats, pg]).unwrap_err().variable, "WORLD_ID");
        assert_eq!(
            config(&[nats, pg, ("WORLD_ID", "0")]).unwrap_err().variable,
            "WORLD_ID"
        );
        assert_eq!(
            config(&[nats, pg, ("WORLD_ID", "70000")])
                .unwrap_err()
                .variable,
            "WORLD_ID"
        );
        let c = config(&[nats, pg, ("WORLD_ID", "3"), ("WORLD_LEASE_SECS", "5")]).unwrap();
        assert_eq!((c.world_id, c.world_name.as_str()), (3, "World 3"));
        assert_eq!(c.world_lease_secs, 5);
        assert_eq!(c.nats_url.as_deref(), Some("nats://127.0.0.1:4222"));
        assert!(!c.cross_world_global_chat, "off unless asked for");
        let chat = ("CROSS_WORLD_GLOBAL_CHAT", "true");
        assert!(
            config(&[nats, pg, ("WORLD_ID", "3"), chat])
                .unwrap()
                .cross_world_global_chat
        );
        // Relaying needs NATS; a bad flag names its variable.
        assert_eq!(
            config(&[chat]).unwrap_err().variable,
            "CROSS_WORLD_GLOBAL_CHAT"
        );
        assert_eq!(
            config(&[
                nats,
                pg,
                ("WORLD_ID", "3"),
                ("CROSS_WORLD_GLOBAL_CHAT", "maybe")
            ])
            .unwrap_err()
            .variable,
            "CROSS_WORLD_GLOBAL_CHAT"
        );
        // A single world needs none of it.
        let single = config(&[]).unwrap();
        assert_eq!((single.world_id, single.nats_url), (1, None));
    }

    #[test]
    fn embedded_agent_names_are_held_to_the_character_name_rule_at_its_boundary() {
        // 11 letters and one digit: the longest name; a tenth agent would need 13 characters.
        assert!(check_embedded_agents(9, "Abcdefghijk", "EMBEDDED_AGENTS").is_ok());
        let err = check_embedded_agents(10, "Abcdefghijk", "EMBEDDED_AGENTS").unwrap_err();
        assert_eq!(err.variable, "EMBEDDED_AGENTS");
        assert!(err.message.contains("\"Abcdefghijk10\""), "{err}");
        // A prefix with no room for a digit is the prefix's fault, whatever the count.
        let err = check_embedded_agents(1, "Abcdefghijkl", "EMBEDDED_AGENTS").unwrap_err();
        assert_eq!(err.variable, "EMBEDDED_AGENT_PREFIX");
    }

    #[test]
    fn embedded_agents_are_off_by_default_and_the_flag_wins_over_the_variable() {
        let c = config(&[]).unwrap();
        assert_eq!(
            (c.embedded_agents, c.embedded_agent_prefix.as_str()),
            (0, "Wanderer")
        );
        let c = config(&[("EMBEDDED_AGENTS", "20"), ("EMBEDDED_AGENT_PREFIX", "Npc")]).unwrap();
        assert_eq!(
            (c.embedded_agents, c.embedded_agent_prefix.as_str()),
            (20, "Npc")
        );
        let c = c.with_embedded_agents(1000).unwrap();
        assert_eq!(c.embedded_agents, 1000);
        // Wanderer + 5 digits is 13 characters: one too many for a name.
        let err = config(&[])
            .unwrap()
            .with_embedded_agents(10_000)
            .unwrap_err();
        assert_eq!(err.variable, "--agents");
        assert!(err.message.contains("EMBEDDED_AGENT_PREFIX"), "{err}");
        assert_eq!(
            config(&[("EMBEDDED_AGENT_PREFIX", "W")])
                .unwrap()
                .with_embedded_agents(10_000)
                .unwrap()
                .embedded_agents,
            10_000
        );
    }
}
