//! Runs the floor server (a bare `/health` and a WebSocket echo on `/ws`, see
//! `wayfarer_bench::echo`) standalone, so that it can be measured as a separate process, like the
//! game server:
//!
//! `cargo run --release -p wayfarer-bench --example floor -- [--port P] [--host H]`
//!
//! Defaults: host 127.0.0.1, port 5602. Ctrl-C stops it.

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut host = "127.0.0.1".to_owned();
    let mut port: u16 = 5602;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        let parsed = match (arg.as_str(), value) {
            ("--port", Some(v)) => v
                .parse()
                .map(|p| port = p)
                .map_err(|e| format!("--port: {e}")),
            ("--host", Some(v)) => {
                host = v;
                Ok(())
            }
            _ => Err(format!("unexpected argument {arg:?}")),
        };
        if let Err(e) = parsed {
            eprintln!("{e}\nusage: floor [--port P] [--host H]");
            return ExitCode::from(2);
        }
    }
    let listener = match tokio::net::TcpListener::bind((host.as_str(), port)).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("cannot listen on {host}:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = listener
        .local_addr()
        .map_or_else(|_| format!("{host}:{port}"), |a| a.to_string());
    println!("floor listening on http://{addr} (GET /health, WebSocket echo on /ws)");
    tokio::select! {
        served = wayfarer_bench::echo::serve_floor(listener) => {
            if let Err(e) = served {
                eprintln!("floor server failed: {e}");
                return ExitCode::FAILURE;
            }
        }
        _ = tokio::signal::ctrl_c() => {}
    }
    ExitCode::SUCCESS
}
