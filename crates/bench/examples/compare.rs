//! Measures the game server against the floor (the `floor` example) and prints how the game
//! compares:
//!
//! ```text
//! cargo run --release -p wayfarer-bench --example floor -- --port 5602 &
//! cargo run --release -p wayfarer-bench --example compare -- \
//!     --game http://127.0.0.1:5601 --floor http://127.0.0.1:5602 \
//!     [--seconds 10] [--concurrency 16] [--pace 50] [--key LOAD_TEST_KEY] [--json compare.json]
//! ```
//!
//! Five runs of `--seconds` each, one after another:
//!
//! 1. `GET /health` from `--concurrency` keep-alive clients on the game;
//! 2. the same on the floor;
//! 3. `--concurrency` logged-in players on the game (guest account and character, as load bots;
//!    give the server's `LOAD_TEST_KEY` with `--key`) each sending `player:sync` and waiting for the
//!    answer;
//! 4. the same frame echoed by the floor;
//! 5. the floor's echo again, unpaced: the stack's ceiling.
//!
//! The game server drops messages beyond 60 a second on a socket, so in runs 3 and 4 each client
//! sends at most `--pace` frames a second (default 50; 0 for as fast as answers come, which the
//! game refuses with `rate_limited` errors). Ratios are game / floor.

use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;
use wayfarer_bench::echo_bench::{
    echo_round_trips, echo_round_trips_paced, sync_round_trips, EchoReport, DEFAULT_PACE,
};
use wayfarer_bench::http_bench::{hammer, HttpReport};
use wayfarer_bench::load::Endpoints;

const USAGE: &str = "usage: compare --game URL --floor URL [--seconds S] [--concurrency C] \
                     [--pace PER_SECOND] [--key K] [--json FILE]";

struct Options {
    game: String,
    floor: String,
    seconds: u64,
    concurrency: usize,
    /// WebSocket frames a second per client at most (0: unpaced).
    pace: f64,
    key: Option<String>,
    json: Option<String>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        game: String::new(),
        floor: String::new(),
        seconds: 10,
        concurrency: 16,
        pace: 1.0 / DEFAULT_PACE.as_secs_f64(),
        key: None,
        json: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
        let number = |what: &str| format!("{arg}: not a valid {what}: {value:?}");
        match arg.as_str() {
            "--game" => options.game = value,
            "--floor" => options.floor = value,
            "--seconds" => options.seconds = value.parse().map_err(|_| number("count"))?,
            "--concurrency" => options.concurrency = value.parse().map_err(|_| number("count"))?,
            "--pace" => {
                options.pace = value.parse().map_err(|_| number("rate"))?;
                if !(options.pace.is_finite() && options.pace >= 0.0) {
                    return Err(number("rate"));
                }
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

/// game / floor for each figure (rates below 1 and latencies above 1: the game is slower).
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
    /// WebSocket frames a second per client at most in the paced runs (0: unpaced).
    pace_per_second: f64,
    game: Side,
    floor: Side,
    /// The floor's echo without pacing: the stack's ceiling.
    floor_ws_unpaced: EchoReport,
    /// game / floor; null when either side measured nothing.
    ratios: Ratios,
}

/// game / floor; NaN (`-` in the table, null in JSON) when either side measured nothing.
fn ratio(game: f64, floor: f64) -> f64 {
    if game > 0.0 && floor > 0.0 {
        game / floor
    } else {
        f64::NAN
    }
}

fn cell(value: f64) -> String {
    if value.is_nan() {
        "-".to_owned()
    } else {
        format!("{value:.3}")
    }
}

fn print_table(c: &Comparison) {
    let (g, f, r) = (&c.game, &c.floor, &c.ratios);
    let nan = f64::NAN;
    let rows = [
        (
            "/health req/s",
            g.health.requests_per_second,
            f.health.requests_per_second,
            r.health_requests_per_second,
        ),
        (
            "/health p50 ms",
            g.health.latency.p50,
            f.health.latency.p50,
            r.health_p50,
        ),
        (
            "/health p95 ms",
            g.health.latency.p95,
            f.health.latency.p95,
            r.health_p95,
        ),
        (
            "/health p99 ms",
            g.health.latency.p99,
            f.health.latency.p99,
            r.health_p99,
        ),
        (
            "/health errors",
            g.health.errors as f64,
            f.health.errors as f64,
            nan,
        ),
        (
            "ws round trips/s",
            g.ws.round_trips_per_second,
            f.ws.round_trips_per_second,
            r.ws_round_trips_per_second,
        ),
        ("ws RTT p50 ms", g.ws.rtt.p50, f.ws.rtt.p50, r.ws_rtt_p50),
        ("ws RTT p95 ms", g.ws.rtt.p95, f.ws.rtt.p95, r.ws_rtt_p95),
        ("ws RTT p99 ms", g.ws.rtt.p99, f.ws.rtt.p99, r.ws_rtt_p99),
        ("ws errors", g.ws.errors as f64, f.ws.errors as f64, nan),
        (
            "ws unpaced rt/s",
            nan,
            c.floor_ws_unpaced.round_trips_per_second,
            nan,
        ),
        ("ws unpaced p99 ms", nan, c.floor_ws_unpaced.rtt.p99, nan),
    ];
    println!(
        "\n{} s per run, {} concurrent clients, WebSocket clients paced at {} frames/s (0: unpaced)\n",
        c.seconds, c.concurrency, c.pace_per_second
    );
    println!(
        "{:<18} {:>12} {:>12} {:>11}",
        "", "game", "floor", "game/floor"
    );
    for (name, game, floor, ratio) in rows {
        let ratio = if ratio.is_nan() {
            "-".to_owned()
        } else {
            format!("{ratio:.2}")
        };
        println!(
            "{name:<18} {:>12} {:>12} {ratio:>11}",
            cell(game),
            cell(floor)
        );
    }
    for (side, report) in [("game", &g.ws), ("floor", &f.ws)] {
        if let Some(error) = &report.first_error {
            println!("first WebSocket error on the {side}: {error}");
        }
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
    let pace = if options.pace > 0.0 {
        Duration::from_secs_f64(1.0 / options.pace)
    } else {
        Duration::ZERO
    };

    eprintln!(
        "GET /health on the game ({c} clients, {} s)…",
        options.seconds
    );
    let game_health = hammer(&format!("{}/health", game.http_base), c, duration).await;
    eprintln!("  {game_health}");
    eprintln!("GET /health on the floor…");
    let floor_health = hammer(&format!("{}/health", floor.http_base), c, duration).await;
    eprintln!("  {floor_health}");
    eprintln!("player:sync round trips on the game ({c} players enter first)…");
    let game_ws =
        sync_round_trips(&game.http_base, options.key.as_deref(), c, duration, pace).await;
    eprintln!("  {game_ws}");
    eprintln!("echo round trips on the floor, paced the same…");
    let floor_ws = echo_round_trips_paced(&floor.ws, c, duration, pace).await;
    eprintln!("  {floor_ws}");
    eprintln!("echo round trips on the floor, unpaced…");
    let floor_ws_unpaced = echo_round_trips(&floor.ws, c, duration).await;
    eprintln!("  {floor_ws_unpaced}");

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
    let comparison = Comparison {
        seconds: options.seconds,
        concurrency: c,
        pace_per_second: options.pace,
        game: Side {
            health: game_health,
            ws: game_ws,
        },
        floor: Side {
            health: floor_health,
            ws: floor_ws,
        },
        floor_ws_unpaced,
        ratios,
    };
    print_table(&comparison);

    if let Some(path) = &options.json {
        // NaN ratios are written as null by serde_json.
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
