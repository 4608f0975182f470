//! The server under chaos: a `wayfarer serve` child process on a world folder (and a database),
//! killed with SIGKILL and started again on the same world.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::time::Instant;

use super::ChaosError;

/// How long a start may take before the run gives up (a restart replays nothing, but PostgreSQL
/// and SQLite recovery and the world's restore take a moment).
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Where and how the server runs.
#[derive(Debug, Clone)]
pub struct ServerSetup {
    /// The `wayfarer` binary.
    pub binary: PathBuf,
    /// The world folder (SQLite's file lives there when there is no `database_url`).
    pub world: PathBuf,
    /// PostgreSQL (or another SQLite file): `DATABASE_URL` for the server.
    pub database_url: Option<String>,
    pub port: u16,
    /// The world's `TICK_MS`.
    pub tick_ms: u64,
    /// `ADMIN_CODE`: the players use `/admin` for `/tp` and `/give`.
    pub admin_code: String,
}

impl ServerSetup {
    /// `http://127.0.0.1:<port>`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The database the server writes: `database_url`, else the world's SQLite file.
    pub fn store_url(&self) -> String {
        match &self.database_url {
            Some(url) => url.clone(),
            None => format!("sqlite://{}", self.world.join("wayfarer.db").display()),
        }
    }
}

/// A running server process.
pub struct ServerProcess {
    child: Child,
}

impl ServerProcess {
    /// Starts the server and waits until `/health` answers.
    pub async fn start(setup: &ServerSetup, http: &reqwest::Client) -> Result<Self, ChaosError> {
        let mut command = Command::new(&setup.binary);
        command
            .arg("serve")
            .current_dir(&setup.world)
            .env("WORLD", &setup.world)
            .env("PORT", setup.port.to_string())
            .env("HOST", "127.0.0.1")
            .env("NODE_ENV", "test")
            .env("TICK_MS", setup.tick_ms.to_string())
            .env("ADMIN_CODE", &setup.admin_code)
            .env("DISABLE_RATE_LIMIT", "true")
            .env("RUST_LOG", "warn")
            .env_remove("NATS_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        match &setup.database_url {
            Some(url) => command.env("DATABASE_URL", url),
            None => command.env_remove("DATABASE_URL"),
        };
        let child = command.spawn().map_err(|err| {
            ChaosError::Server(format!("{} would not start: {err}", setup.binary.display()))
        })?;
        let mut server = ServerProcess { child };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(response) = http.get(format!("{}/health", setup.base())).send().await {
                if response.status().is_success() {
                    return Ok(server);
                }
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(ChaosError::Server(format!(
                    "the server exited while starting: {status}"
                )));
            }
            if Instant::now() > deadline {
                return Err(ChaosError::Server(format!(
                    "the server did not answer /health within {START_TIMEOUT:?}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// `kill -9`: no shutdown, no final saves; returns once the process is gone.
    pub async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }

    /// SIGTERM: the graceful shutdown (final saves); returns once the process is gone, or kills it
    /// after `limit`.
    pub async fn stop(mut self, limit: Duration) {
        if let Some(pid) = self.child.id() {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(pid.to_string())
                .status()
                .await;
        }
        if tokio::time::timeout(limit, self.child.wait())
            .await
            .is_err()
        {
            self.kill().await;
        }
    }
}

/// A free TCP port on 127.0.0.1 (bound and released).
pub fn free_port() -> Result<u16, ChaosError> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|err| ChaosError::Server(format!("no free port: {err}")))
}

/// Whether `path` is a folder the server can use as its world (created when missing).
pub fn prepare_world(path: &Path) -> Result<(), ChaosError> {
    std::fs::create_dir_all(path)
        .map_err(|err| ChaosError::Server(format!("world folder {}: {err}", path.display())))
}
