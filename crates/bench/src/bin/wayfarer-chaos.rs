//! `wayfarer-chaos`: the chaos run's command line (`scripts/chaos.sh`; docs/operations.md, "The
//! chaos run"). Starts `wayfarer serve` on a world folder, plays the economy with many players and
//! kills the process with SIGKILL at random moments; exits 1 on the first imbalance.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use wayfarer_bench::chaos::{self, ChaosOptions, ServerSetup};

/// Play the whole economy while killing the server, and check every item after each kill.
#[derive(Parser)]
#[command(name = "wayfarer-chaos", version)]
struct Args {
    /// The server's binary (`target/release/wayfarer`).
    #[arg(long)]
    bin: PathBuf,
    /// Minutes of play in all.
    #[arg(long, default_value_t = 2.0)]
    minutes: f64,
    /// Kills with SIGKILL, at random moments spread over the run.
    #[arg(long, default_value_t = 4)]
    kills: u32,
    /// Players (pairs trade and duel together).
    #[arg(long, default_value_t = chaos::DEFAULT_PLAYERS)]
    players: usize,
    /// The seed of the kills' moments and the players' choices (printed; random when absent).
    #[arg(long)]
    seed: Option<u64>,
    /// The world folder (created; a temporary one when absent).
    #[arg(long)]
    world: Option<PathBuf>,
    /// PostgreSQL for the server (`DATABASE_URL`); SQLite in the world folder when absent.
    #[arg(long, env = "DATABASE_URL")]
    database_url: Option<String>,
    /// The world's tick.
    #[arg(long, default_value_t = 50)]
    tick_ms: u64,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let world = match &args.world {
        Some(world) => world.clone(),
        None => std::env::temp_dir().join(format!("wayfarer-chaos-{seed}")),
    };
    let port = match chaos::free_port() {
        Ok(port) => port,
        Err(err) => {
            eprintln!("chaos: {err}");
            return ExitCode::FAILURE;
        }
    };
    let options = ChaosOptions {
        server: ServerSetup {
            binary: args.bin,
            world,
            database_url: args.database_url,
            port,
            tick_ms: args.tick_ms,
            admin_code: "chaos-admin-code".to_owned(),
        },
        players: args.players,
        play: Duration::from_secs_f64(args.minutes.max(0.05) * 60.0),
        kills: args.kills,
        seed,
    };
    match chaos::run(options).await {
        Ok(summary) => {
            println!("{}", summary.line());
            for (kind, n) in &summary.stats.sent {
                print!("{kind} {n}  ");
            }
            println!();
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("chaos: FAILED: {err}");
            eprintln!("chaos: replay with --seed {seed}");
            ExitCode::FAILURE
        }
    }
}
