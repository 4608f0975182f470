//! Measures the game server against the floor (the `floor` example) and prints how many times
//! slower the game is:
//!
//! ```text
//! cargo run --release -p wayfarer-bench --example floor -- --port 5602 &
//! cargo run --release -p wayfarer-bench --example compare -- \
//!     --game http://127.0.0.1:5601 --floor http://127.0.0.1:5602 \
//!     [--seconds 10] [--concurrency 16] [--key LOAD_TEST_KEY] [--json compare.json]
//! ```
//!
//! Four runs of `--seconds` each, one after another: `GET /health` from `--concurrency` keep-alive
//! clients on the game, then on the floor; then `--concurrency` WebSocket clients doing round trips:
//! on the game, logged-in players (guest account and character, as load bots; give the server's
//! `LOAD_TEST_KEY` with `--key`) sending `player:sync` and waiting for the answer; on the floor,
//! the same frame echoed. The game's `player:sync` is answered by the tick, so its round trip
//! includes the wait for the next tick.

use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;
use wayfarer_bench::echo_bench::{echo_round_trips, sync_round_trips, EchoReport};
use wayfarer_bench::http_bench::{hammer, HttpReport};
use wayfarer_bench::load::Endpoints;

const USAGE: &str =
    "usage: compare --game URL --floor URL [--seconds S] [--concurrency C] [--key K] [--json FILE]";

struct Options {
    game: String,
    floor: String,
    seconds: u64,
    concurrency: usize,
    key: Option<String>,
    json: Option<String>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        game: String::new(),
        floor: String::new(),
        seconds: 10,
        concurrency: 16,
        key: None,
        json: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--game" => options.game = value,
            "--floor" => options.floor = value,
            "--seconds" => {
                options.seconds = value.parse().map_err(|e| format!("--seconds: {e}"))?
            }
            "--concurrency" => {
                options.concurrency = value.parse().map_err(|e| format!("--concurrency: {e}"))?
            }
            "--key" => options.key = Some(value),
            "--json" => options.json = Some(value),
            _ => return Err(format!("unexpected argument {arg:?}")),
        }
    }
    if options.game.is_empty() || options.floor.is_empty() {
        return Err("--game and --floor are required".into());
    }
    if options.seconds == 0 || options.concurrency == 0 {
        return Err("--seconds and --concurrency must be at least 1".into());
    }
    Ok(options)
}

/// One server's figures.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Side {
    health: HttpReport,
    ws: EchoReport,
}

/// game / floor for each figure (above 1: the game is slower).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Ratios {
    health_requests_per_second: f64,
    health_p50: f64,
    health_p95: f64,
    health_p99: f64,
    ws_round_trips_per_second: f64,
    ws_rtt_p50: f64,
    ws_rtt_p95: f64,
    ws_rtt_p99: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Comparison {
    seconds: u64,
    concurrency: usize,
    game: Side,
    floor: Side,
    /// game / floor.
    ratios: Ratios,
}

fn ratio(game: f64, floor: f64) -> f64 {
    if floor > 0.0 {
        game / floor
    } else {
        f64::NAN
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let (game, floor) = match (
        Endpoints::from_base(&options.game),
        Endpoints::from_base(&options.floor),
    ) {
        (Ok(game), Ok(floor)) => (game, floor),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let duration = Duration::from_secs(options.seconds);
    let c = options.concurrency;

    eprintln!(
        "GET /health on the game ({c} clients, {} s)…",
        options.seconds
    );
    let game_health = hammer(&format!("{}/health", game.http_base), c, duration).await;
    eprintln!("  {game_health}");
    eprintln!("GET /health on the floor…");
    let floor_health = hammer(&format!("{}/health", floor.http_base), c, duration).await;
    eprintln!("  {floor_health}");
    eprintln!("player:sync round trips on the game ({c} players entering first)…");
    let game_ws = sync_round_trips(&game.http_base, options.key.as_deref(), c, duration).await;
    eprintln!("  {game_ws}");
    eprintln!("echo round trips on the floor…");
    let floor_ws = echo_round_trips(&floor.ws, c, duration).await;
    eprintln!("  {floor_ws}");

    let ratios = Ratios {
        health_requests_per_second: ratio(
            game_health.requests_per_second,
            floor_health.requests_per_second,
        ),
        health_p50: ratio(game_health.latency.p50, floor_health.latency.p50),
        health_p95: ratio(game_health.latency.p95, floor_health.latency.p95),
        health_p99: ratio(game_health.latency.p99, floor_health.latency.p99),
        ws_round_trips_per_second: ratio(
            game_ws.round_trips_per_second,
            floor_ws.round_trips_per_second,
        ),
        ws_rtt_p50: ratio(game_ws.rtt.p50, floor_ws.rtt.p50),
        ws_rtt_p95: ratio(game_ws.rtt.p95, floor_ws.rtt.p95),
        ws_rtt_p99: ratio(game_ws.rtt.p99, floor_ws.rtt.p99),
    };
    let rows: [(&str, f64, f64, f64); 10] = [
        (
            "/health req/s",
            game_health.requests_per_second,
            floor_health.requests_per_second,
            ratios.health_requests_per_second,
        ),
        (
            "/health p50 ms",
            game_health.latency.p50,
            floor_health.latency.p50,
            ratios.health_p50,
        ),
        (
            "/health p95 ms",
            game_health.latency.p95,
            floor_health.latency.p95,
            ratios.health_p95,
        ),
        (
            "/health p99 ms",
            game_health.latency.p99,
            floor_health.latency.p99,
            ratios.health_p99,
        ),
        (
            "/health errors",
            game_health.errors as f64,
            floor_health.errors as f64,
            f64::NAN,
        ),
        (
            "ws round trips/s",
            game_ws.round_trips_per_second,
            floor_ws.round_trips_per_second,
            ratios.ws_round_trips_per_second,
        ),
        (
            "ws RTT p50 ms",
            game_ws.rtt.p50,
            floor_ws.rtt.p50,
            ratios.ws_rtt_p50,
        ),
        (
            "ws RTT p95 ms",
            game_ws.rtt.p95,
            floor_ws.rtt.p95,
            ratios.ws_rtt_p95,
        ),
        (
            "ws RTT p99 ms",
            game_ws.rtt.p99,
            floor_ws.rtt.p99,
            ratios.ws_rtt_p99,
        ),
        (
            "ws errors",
            game_ws.errors as f64,
            floor_ws.errors as f64,
            f64::NAN,
        ),
    ];
    println!(
        "\n{} s per run, {c} concurrent clients; game {} vs floor {}\n",
        options.seconds, game.http_base, floor.http_base
    );
    println!(
        "{:<18} {:>12} {:>12} {:>11}",
        "", "game", "floor", "game/floor"
    );
    for (name, g, f, r) in rows {
        let r = if r.is_finite() {
            format!("{r:.2}")
        } else {
            "-".to_owned()
        };
        println!("{name:<18} {g:>12.3} {f:>12.3} {r:>11}");
    }

    let comparison = Comparison {
        seconds: options.seconds,
        concurrency: c,
        game: Side {
            health: game_health,
            ws: game_ws,
        },
        floor: Side {
            health: floor_health,
            ws: floor_ws,
        },
        ratios,
    };
    if let Some(path) = &options.json {
        // NaN ratios (a floor figure of 0) are written as null by serde_json.
        let written = serde_json::to_string_pretty(&comparison)
            .map_err(|e| e.to_string())
            .and_then(|text| std::fs::write(path, text + "\n").map_err(|e| e.to_string()));
        if let Err(e) = written {
            eprintln!("could not write {path}: {e}");
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {path}");
    }
    ExitCode::SUCCESS
}
