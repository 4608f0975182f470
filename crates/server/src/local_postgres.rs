//! `USE_LOCAL_POSTGRES=true` (development only): a PostgreSQL server of our own under the world
//! directory, started with the machine's `initdb` and `pg_ctl`, stopped again on shutdown.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{bail, Context};
use tokio::process::Command;

use crate::config::Config;

/// The database and role the local server gets.
const DATABASE: &str = "wayfarer";
const ROLE: &str = "wayfarer";
/// The unprivileged account PostgreSQL runs as when we are root (it refuses to run as root).
const SYSTEM_USER: &str = "postgres";

/// A running local PostgreSQL.
pub struct LocalPostgres {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    port: u16,
    as_system_user: bool,
}

/// Finds the directory holding `initdb` and `pg_ctl`: `PG_BIN_DIR` if set (and only it), else PATH, else
/// the newest of Debian's /usr/lib/postgresql/*/bin.
pub fn find_bin_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    let has_tools = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(dir) = explicit {
        return has_tools(dir).then(|| dir.to_path_buf());
    }
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(dir) = std::env::split_paths(&path).find(|d| has_tools(d)) {
            return Some(dir);
        }
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|d| has_tools(d))
        .collect();
    debian.sort_by_key(|d| {
        d.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    debian.pop()
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|uid| uid == "0"))
        })
        .unwrap_or(false)
}

impl LocalPostgres {
    /// Initialises (first time) and starts the server; reuses the port chosen the first time.
    pub async fn start(config: &Config) -> anyhow::Result<LocalPostgres> {
        let Some(bin_dir) = find_bin_dir(config.pg_bin_dir.as_deref()) else {
            bail!(
                "USE_LOCAL_POSTGRES=true but initdb and pg_ctl were not found (install Debian's postgresql package, or set PG_BIN_DIR to the directory holding them)"
            );
        };
        let data_dir = std::fs::canonicalize(&config.world_dir)?.join("postgres");
        let as_system_user = running_as_root();
        let pg = LocalPostgres {
            port: Self::port_for(&data_dir)?,
            bin_dir,
            data_dir,
            as_system_user,
        };
        if !pg.data_dir.join("PG_VERSION").exists() {
            pg.init().await?;
        }
        if pg.as_system_user {
            pg.check_reachable().await?;
        }
        pg.run(
            "pg_ctl",
            &[
                "-D",
                &pg.data_dir.display().to_string(),
                "-l",
                &pg.data_dir.join("server.log").display().to_string(),
                "-o",
                &format!(
                    "-p {} -c listen_addresses=127.0.0.1 -k {}",
                    pg.port,
                    pg.data_dir.display()
                ),
                "-w",
                "start",
            ],
        )
        .await
        .context("pg_ctl start failed (see server.log in the world's postgres directory)")?;
        pg.ensure_database().await?;
        tracing::info!(port = pg.port, data_dir = %pg.data_dir.display(), "local PostgreSQL started");
        Ok(pg)
    }

    /// The connection URL of the local server.
    pub fn url(&self) -> String {
        format!("postgres://{ROLE}@127.0.0.1:{}/{DATABASE}", self.port)
    }

    /// Stops the server (fast mode: connections are closed, data is flushed).
    pub async fn stop(self) {
        let data_dir = self.data_dir.display().to_string();
        match self
            .run("pg_ctl", &["-D", &data_dir, "-m", "fast", "-w", "stop"])
            .await
        {
            Ok(()) => tracing::info!("local PostgreSQL stopped"),
            Err(err) => tracing::warn!(error = %err, "local PostgreSQL did not stop cleanly"),
        }
    }

    fn port_for(data_dir: &Path) -> anyhow::Result<u16> {
        let port_file = data_dir.with_file_name("postgres.port");
        if let Some(port) = std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|s| s.trim().parse::<u16>().ok())
        {
            return Ok(port);
        }
        // Let the kernel pick a free port once, and keep it for every later start.
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        std::fs::write(&port_file, port.to_string())?;
        Ok(port)
    }

    async fn init(&self) -> anyhow::Result<()> {
        std::fs::create_dir_all(&self.data_dir)?;
        if self.as_system_user {
            let status = Command::new("chown")
                .args([
                    &format!("{SYSTEM_USER}:"),
                    &self.data_dir.display().to_string(),
                ])
                .status()
                .await?;
            if !status.success() {
                bail!(
                    "cannot hand {} to the {SYSTEM_USER} user",
                    self.data_dir.display()
                );
            }
        }
        self.run(
            "initdb",
            &[
                "-D",
                &self.data_dir.display().to_string(),
                "-U",
                ROLE,
                "--auth=trust",
                "--encoding=UTF8",
                "--no-instructions",
            ],
        )
        .await
        .context("initdb failed")
    }

    /// As root we run PostgreSQL as the `postgres` user, which must be able to reach the data directory
    /// (a world under a private home directory is not reachable).
    async fn check_reachable(&self) -> anyhow::Result<()> {
        let dir = self.data_dir.display().to_string();
        let status = Command::new("runuser")
            .args([
                "-u",
                SYSTEM_USER,
                "--",
                "test",
                "-w",
                &dir,
                "-a",
                "-x",
                &dir,
            ])
            .status()
            .await
            .context("cannot run runuser")?;
        if !status.success() {
            bail!(
                "USE_LOCAL_POSTGRES runs PostgreSQL as the {SYSTEM_USER} user (it refuses root), which cannot reach {dir}; put WORLD under a directory every user can traverse (e.g. /var/tmp/wayfarer-world) or run as an ordinary user"
            );
        }
        Ok(())
    }

    async fn ensure_database(&self) -> anyhow::Result<()> {
        use sqlx::Connection;
        let admin = format!("postgres://{ROLE}@127.0.0.1:{}/postgres", self.port);
        let mut conn = sqlx::PgConnection::connect(&admin)
            .await
            .context("cannot connect to the local PostgreSQL")?;
        let exists: Option<(i32,)> = sqlx::query_as("SELECT 1 FROM pg_database WHERE datname = $1")
            .bind(DATABASE)
            .fetch_optional(&mut conn)
            .await?;
        if exists.is_none() {
            sqlx::raw_sql(&format!("CREATE DATABASE {DATABASE}"))
                .execute(&mut conn)
                .await?;
        }
        conn.close().await?;
        Ok(())
    }

    /// Runs a PostgreSQL tool, as the `postgres` user when we are root; its output goes to our log.
    async fn run(&self, tool: &str, args: &[&str]) -> anyhow::Result<()> {
        let program = self.bin_dir.join(tool);
        let mut command = if self.as_system_user {
            let mut c = Command::new("runuser");
            c.args(["-u", SYSTEM_USER, "--"]).arg(&program);
            c
        } else {
            Command::new(&program)
        };
        let output = command
            .args(args)
            .current_dir(self.data_dir.parent().unwrap_or(Path::new("/")))
            .stdin(Stdio::null())
            .output()
            .await
            .with_context(|| format!("cannot run {}", program.display()))?;
        if !output.status.success() {
            bail!(
                "{tool} exited with {}: {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(())
    }
}
