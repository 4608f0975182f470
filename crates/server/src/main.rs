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
}

fn main() -> ExitCode {
    // A `.env` file fills in variables the environment does not set.
    let _ = dotenvy::dotenv();
    let cli = Cli::parse();
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
