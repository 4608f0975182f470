//! The `wayfarer` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use wayfarer_server::{config::Config, server::RunningServer, telemetry};

#[derive(Parser)]
#[command(
    name = "wayfarer",
    version,
    about = "Wayfarer: an authoritative MMORPG server"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the game server (HTTP and WebSocket on PORT, default 5555).
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Validate a manifest directory (default: the bundled content); exits non-zero on errors.
    CheckContent {
        /// The manifest directory to check.
        dir: Option<std::path::PathBuf>,
        /// Treat warnings (e.g. references to undefined ids) as errors.
        #[arg(long)]
        strict: bool,
    },
    /// Build model-bounds.json from the .glb/.gltf models under a directory.
    Bounds {
        /// The models directory (ids are folder paths under it).
        #[arg(long)]
        models: std::path::PathBuf,
        /// stations.json, for each station's modelScale.
        #[arg(long)]
        stations: std::path::PathBuf,
        /// Where to write the manifest.
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

fn main() -> ExitCode {
    // A `.env` file fills in variables the environment does not set.
    let _ = dotenvy::dotenv();
    let cli = Cli::parse();
    // The offline tools need no server configuration.
    match &cli.command {
        Command::CheckContent { dir, strict } => return check_content(dir.as_deref(), *strict),
        Command::Bounds {
            models,
            stations,
            out,
        } => return bounds(models, stations, out),
        Command::Serve | Command::Migrate => {}
    }
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(config.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            Command::Serve => serve(config).await,
            Command::Migrate => migrate(config).await,
            Command::CheckContent { .. } | Command::Bounds { .. } => Ok(()),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> anyhow::Result<()> {
    for (name, value) in config.describe() {
        tracing::info!(variable = name, value = %value, "configuration");
    }
    let mut server = RunningServer::start(config).await?;
    let trigger = server.shutdown_trigger();
    tokio::spawn(async move {
        let signal = shutdown_signal().await;
        tracing::info!(signal, "signal received");
        if let Some(trigger) = trigger {
            let _ = trigger.send(());
        }
    });
    server.wait().await
}

async fn migrate(config: Config) -> anyhow::Result<()> {
    std::fs::create_dir_all(&config.world_dir)?;
    let store = wayfarer_store::Store::connect(&config.effective_database_url()).await?;
    let applied = store.migrate().await?;
    store.close().await;
    println!("applied {} migration(s): {applied:?}", applied.len());
    Ok(())
}

fn check_content(dir: Option<&std::path::Path>, strict: bool) -> ExitCode {
    let source = match dir {
        Some(dir) => wayfarer_content::Source::Dir(dir),
        None => wayfarer_content::Source::Bundled,
    };
    let report = wayfarer_content::check(source, strict);
    println!("{report}");
    if report.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn bounds(models: &std::path::Path, stations: &std::path::Path, out: &std::path::Path) -> ExitCode {
    let manifest = match wayfarer_content::build_model_bounds(models, stations) {
        Ok(m) => m,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    let json = match serde_json::to_string_pretty(&manifest) {
        Ok(json) => json,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(err) = std::fs::write(out, json + "\n") {
        eprintln!("error: cannot write {}: {err}", out.display());
        return ExitCode::FAILURE;
    }
    println!(
        "wrote {} models to {}",
        manifest.models.len(),
        out.display()
    );
    ExitCode::SUCCESS
}

/// Resolves on SIGINT or SIGTERM with the signal's name.
async fn shutdown_signal() -> &'static str {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    name = ctrl_c => name,
                    _ = term.recv() => "SIGTERM",
                }
            }
            Err(_) => ctrl_c.await,
        }
    }
    #[cfg(not(unix))]
    {
        ctrl_c.await
    }
}
