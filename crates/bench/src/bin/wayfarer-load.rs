//! `wayfarer-load`: the load generator's command line (README, BENCHMARKS.md). A binary of its own,
//! so the game server's binary does not link the load generator.

use std::process::ExitCode;

use clap::Parser;

/// Run a load test: N real WebSocket players against a running server.
#[derive(Parser)]
#[command(name = "wayfarer-load", version)]
struct Args {
    /// The server's base URL, e.g. http://127.0.0.1:5555. Several worlds: repeat `--url` or
    /// separate them with commas; the bots are spread over them round-robin.
    #[arg(long, required = true)]
    url: Vec<String>,
    /// How many bots to connect (in all, over every world).
    #[arg(long, default_value_t = wayfarer_bench::load::LoadOptions::DEFAULT_BOTS)]
    bots: usize,
    /// How long the test runs, in seconds.
    #[arg(long, default_value_t = wayfarer_bench::load::LoadOptions::DEFAULT_SECONDS)]
    seconds: u64,
    /// Seconds over which the bots start, evenly spread.
    #[arg(long, default_value_t = wayfarer_bench::load::LoadOptions::DEFAULT_RAMP_SECONDS)]
    ramp: u64,
    /// What the bots do: wander, chat, gather, trade (pairs swap a coin, over and over; the
    /// report adds trades a second, their durations and a coin conservation check), mixed, idle,
    /// trade-pairs (trade with no pause between trades: the store's durable commits a second),
    /// spread (one in ten in a crowd at the spawn, the rest travel to the towns of `/api/map` to
    /// wander, chat and gather there),
    /// reconnect-storm (idle, then everyone drops and reconnects at once, as after a restart).
    #[arg(long, default_value = "mixed")]
    scenario: wayfarer_bench::load::Scenario,
    /// The server's LOAD_TEST_KEY, so the bots pass the per-address rate limits.
    #[arg(long, env = "LOAD_TEST_KEY")]
    key: Option<String>,
    /// Write the report as JSON to this file as well.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// Seconds between a chatting bot's lines, MIN-MAX or one number (1 to 3600), instead of the
    /// scenario's pace (chat and mixed: 2-5, a stress; spread: 30-90, a player's pace).
    #[arg(long, value_name = "SECONDS", value_parser = wayfarer_bench::load::parse_chat_every)]
    chat_every: Option<(std::time::Duration, std::time::Duration)>,
}

/// Runs the bots, prints the summary, writes the JSON, and fails when any bot saw an error, a
/// failed connect or a disconnect, or (trading) a trade was cancelled, refused or stalled or the
/// coins do not add up (so CI can assert a clean run by the exit code).
fn main() -> ExitCode {
    let Args {
        url,
        bots,
        seconds,
        ramp,
        scenario,
        key,
        json,
        chat_every,
    } = Args::parse();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    let mut options = wayfarer_bench::load::LoadOptions::new(url.join(","));
    options.bots = bots;
    options.seconds = seconds;
    options.ramp_seconds = ramp;
    options.scenario = scenario;
    options.key = key;
    options.json_out = json.clone();
    options.chat_every = chat_every;
    // The multi-threaded runtime with I/O and timers.
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(wayfarer_bench::load::run_until(options, async {
        // Ctrl-C ends the run early and still prints what was measured.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }));
    let report = match result {
        Ok(report) => report,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    };
    println!("{report}");
    if let Some(path) = json {
        if let Err(err) = report.write_json(&path) {
            eprintln!("error: {err}");
            return ExitCode::FAILURE;
        }
    }
    if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: the load run was not clean (errors, failed connects or disconnects, or \
             trade cancels, errors, stalls or unbalanced coins)"
        );
        ExitCode::FAILURE
    }
}
