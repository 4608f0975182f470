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
    Serve {
        /// Run this many built-in-planner agents inside the server, playing over real sockets
        /// (overrides EMBEDDED_AGENTS; 0: none).
        #[arg(long)]
        agents: Option<u32>,
    },
    /// Apply database migrations and exit.
    Migrate,
    /// Copy the world's SQLite database to FILE while the world may be running (an online,
    /// consistent backup). PostgreSQL: use pg_dump (this says so and exits non-zero).
    Backup {
        /// The backup file to write; it must not exist.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Replace the world's SQLite database with a backup FILE (refused while a server runs on
    /// the world directory; the replaced database is kept beside it). PostgreSQL: use pg_restore.
    Restore {
        /// A file written by `wayfarer backup`.
        file: std::path::PathBuf,
    },
    /// Account administration on the configured database (DATABASE_URL, or the world's SQLite).
    Admin {
        #[command(subcommand)]
        action: AdminAction,
    },
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
    /// Run an agent: a program that plays as an ordinary player over the socket (docs/agents.md).
    Agent {
        /// The server's base URL, e.g. http://127.0.0.1:5555.
        #[arg(long)]
        server: String,
        /// Play the character of a registered agent with its token (shows in `ps`: prefer
        /// WAYFARER_AGENT_TOKEN or --token-file).
        #[arg(long, conflicts_with = "name")]
        token: Option<String>,
        /// Create (or reuse) a guest account and character of this name.
        #[arg(long)]
        name: Option<String>,
        /// The goal: JSON, or short forms such as skill:woodcutting:10, bank, earn:500.
        #[arg(long)]
        goal: Option<String>,
        /// The character template for a new character (--name).
        #[arg(long)]
        template: Option<String>,
        /// planner, llm (needs a model key) or auto (the model when a key is set).
        #[arg(long, default_value = "auto")]
        brain: wayfarer_agent::BrainChoice,
        /// The language model (default: the provider's small model).
        #[arg(long, env = "AGENT_MODEL")]
        model: Option<String>,
        /// With --name, where its token is kept (default .wayfarer-agent-<name>.token); without,
        /// a file whose first line is a registered agent's token.
        #[arg(long)]
        token_file: Option<std::path::PathBuf>,
    },
    /// Play the agent benchmark's tasks in lockstep worlds and score them (docs/agents.md).
    BenchAgents {
        /// Task ids, comma-separated (default: all).
        #[arg(long)]
        tasks: Option<String>,
        /// Seeds: N (1..N), A..B, or a list 1,5,9.
        #[arg(long, default_value = "1")]
        seeds: String,
        /// planner, llm (needs a model key) or auto.
        #[arg(long, default_value = "planner")]
        brain: wayfarer_agent::BrainChoice,
        /// The language model (default: the provider's small model).
        #[arg(long, env = "AGENT_MODEL")]
        model: Option<String>,
        /// Write the report as JSON here.
        #[arg(long)]
        json: Option<std::path::PathBuf>,
        /// Keep the model's answers in this directory, by prompt hash.
        #[arg(long, conflicts_with = "replay")]
        record: Option<std::path::PathBuf>,
        /// Play the answers kept in this directory back (no key, no request), as the model
        /// recorded there.
        #[arg(long)]
        replay: Option<std::path::PathBuf>,
        /// What plays a step the model does not serve: wait (scored: the planner never plays
        /// for the model) or planner (play only: the report says "scored": false).
        #[arg(long, default_value = "wait")]
        fallback: wayfarer_agent::brain::Fallback,
        /// The model's sampling temperature, sent to the provider (default: the provider's).
        #[arg(long)]
        temperature: Option<f64>,
        /// The most tokens a model answer may take, sent to the provider.
        #[arg(long)]
        max_tokens: Option<u32>,
        /// The seeds' split: dev (the seeds as given) or test (each mixed with the secret
        /// BENCH_TEST_SALT; the report keeps only its hash).
        #[arg(long, default_value = "dev", value_parser = ["dev", "test"])]
        split: String,
        /// Write each episode's steps here, one JSONL file an episode.
        #[arg(long)]
        trajectories: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
enum AdminAction {
    /// Give an account a role (`admin`), by account id or by the name of one of its characters.
    GrantRole { who: String, role: String },
    /// Take a role away from an account, by account id or character name.
    RevokeRole { who: String, role: String },
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
        Command::Agent { .. } => return agent(cli.command),
        Command::BenchAgents { .. } => return bench_agents(cli.command),
        Command::Serve { .. }
        | Command::Migrate
        | Command::Admin { .. }
        | Command::Backup { .. }
        | Command::Restore { .. } => {}
    }
    let config = Config::from_env().and_then(|config| match &cli.command {
        Command::Serve {
            agents: Some(count),
        } => config.with_embedded_agents(*count),
        _ => Ok(config),
    });
    let config = match config {
        Ok(config) => config,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    telemetry::init(config.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(|| {
            wayfarer_host::priority::lower_current_thread(wayfarer_host::priority::RUNTIME_NICENESS)
        })
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
            Command::Serve { .. } => serve(config).await,
            Command::Migrate => migrate(config).await,
            Command::Admin { action } => admin(config, action).await,
            Command::Backup { out } => wayfarer_server::backup_cli::backup(&config, &out)
                .await
                .map(|line| println!("{line}")),
            Command::Restore { file } => wayfarer_server::backup_cli::restore(&config, &file)
                .await
                .map(|line| println!("{line}")),
            Command::CheckContent { .. }
            | Command::Bounds { .. }
            | Command::Agent { .. }
            | Command::BenchAgents { .. } => Ok(()),
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

async fn admin(config: Config, action: AdminAction) -> anyhow::Result<()> {
    let (who, role, grant) = match &action {
        AdminAction::GrantRole { who, role } => (who, role, true),
        AdminAction::RevokeRole { who, role } => (who, role, false),
    };
    std::fs::create_dir_all(&config.world_dir)?;
    let store = wayfarer_store::Store::connect(&config.effective_database_url()).await?;
    store.migrate().await?;
    let result = wayfarer_server::admin_cli::set_role(&store, who, role, grant).await;
    store.close().await;
    let change = result?;
    let verb = match (grant, change.changed) {
        (true, true) => "granted",
        (false, true) => "revoked",
        (true, false) => "already had",
        (false, false) => "did not have",
    };
    println!(
        "account {}: {verb} {role}; roles now [{}]",
        change.account_id,
        change.roles.join(", ")
    );
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

/// `wayfarer agent`: checks the options (a missing model key for `--brain llm` stops here with
/// one line), then plays until Ctrl-C.
fn agent(command: Command) -> ExitCode {
    let Command::Agent {
        server,
        token,
        name,
        goal,
        template,
        brain,
        model,
        token_file,
    } = command
    else {
        return ExitCode::FAILURE;
    };
    let options = wayfarer_agent::cli::CliOptions {
        server,
        token,
        name,
        goal,
        template,
        brain,
        model,
        token_file,
    };
    let config = match wayfarer_agent::cli::config(&options) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    let json_logs = std::env::var("LOG_FORMAT").is_ok_and(|f| f.trim() == "json");
    telemetry::init(if json_logs {
        wayfarer_server::config::LogFormat::Json
    } else {
        wayfarer_server::config::LogFormat::Human
    });
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
    runtime.block_on(wayfarer_agent::cli::run(
        config,
        wayfarer_agent_http::client(),
    ));
    ExitCode::SUCCESS
}

/// `wayfarer bench-agents`: plays the bundled agent tasks in lockstep worlds of this process and
/// prints the table (and writes `--json`). Logs errors and one line a run unless RUST_LOG says
/// otherwise.
fn bench_agents(command: Command) -> ExitCode {
    let Command::BenchAgents {
        tasks,
        seeds,
        brain,
        model,
        json,
        record,
        replay,
        fallback,
        temperature,
        max_tokens,
        split,
        trajectories,
    } = command
    else {
        return ExitCode::FAILURE;
    };
    let split = if split == "test" {
        match std::env::var(wayfarer_server::bench_agents::TEST_SALT_VARIABLE) {
            Ok(salt) if !salt.is_empty() => wayfarer_server::bench_agents::Split::Test { salt },
            _ => {
                eprintln!(
                    "error: --split test needs {}",
                    wayfarer_server::bench_agents::TEST_SALT_VARIABLE
                );
                return ExitCode::from(2);
            }
        }
    } else {
        wayfarer_server::bench_agents::Split::Dev
    };
    use wayfarer_agent::brain::tape::{Tape, TapeMode};
    let (brain, tape) = match replay {
        Some(dir) => {
            let (brain, tape) = wayfarer_server::bench_agents::replay_brain(dir);
            (brain, Some(tape))
        }
        None => {
            let brain = match wayfarer_agent::Brain::select(brain, |k| std::env::var(k).ok(), model)
            {
                Ok(wayfarer_agent::Brain::Llm(config)) => {
                    wayfarer_agent::Brain::Llm(wayfarer_agent::brain::LlmConfig {
                        fallback,
                        temperature,
                        max_tokens,
                        ..config
                    })
                }
                Ok(brain) => brain,
                Err(err) => {
                    eprintln!("error: {err}");
                    return ExitCode::from(2);
                }
            };
            if record.is_some() && matches!(brain, wayfarer_agent::Brain::Planner) {
                eprintln!("error: --record needs a model (--brain llm and a key)");
                return ExitCode::from(2);
            }
            let tape = record.map(|dir| Tape::new(dir, TapeMode::Record));
            (brain, tape)
        }
    };
    let seeds = match wayfarer_server::bench_agents::parse_seeds(&seeds) {
        Ok(seeds) => seeds,
        Err(err) => {
            eprintln!("error: --seeds {err}");
            return ExitCode::from(2);
        }
    };
    if std::env::var_os("RUST_LOG").is_none() {
        // A run's own server says what any server says (joins, leaves, deaths): noise here.
        std::env::set_var("RUST_LOG", "error,wayfarer_server::bench_agents=info");
    }
    telemetry::init(wayfarer_server::config::LogFormat::Human);
    let options = wayfarer_server::bench_agents::BenchOptions {
        tasks: tasks
            .map(|t| {
                t.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
        seeds,
        brain,
        tape,
        split,
        trajectories,
    };
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
    let report = match runtime.block_on(wayfarer_server::bench_agents::run(&options)) {
        Ok(report) => report,
        Err(err) => {
            eprintln!("error: {err:#}");
            return ExitCode::FAILURE;
        }
    };
    print!("{}", wayfarer_server::bench_agents::table(&report));
    if let Some(path) = json {
        if let Err(err) = wayfarer_server::bench_agents::write_json(&report, &path) {
            eprintln!("error: {err:#}");
            return ExitCode::FAILURE;
        }
    }
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
