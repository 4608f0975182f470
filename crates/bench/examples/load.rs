//! Runs a load test from the command line without the server crate's CLI:
//!
//! `cargo run -p wayfarer-bench --example load -- http://127.0.0.1:5601 200 20 5 mixed [key] [report.json]`
//!
//! Arguments, in order (all but the URL optional): URL, bots, seconds, ramp seconds, scenario,
//! load-test key (`-` for none), JSON report path. Ctrl-C stops early and still prints the report.

use std::process::ExitCode;

use wayfarer_bench::load::{run_until, LoadOptions};

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(url) = args.first() else {
        eprintln!("usage: load URL [BOTS] [SECONDS] [RAMP] [SCENARIO] [KEY|-] [JSON]");
        return ExitCode::from(2);
    };
    let mut options = LoadOptions::new(url.clone());
    let number = |i: usize, what: &str| -> Result<Option<u64>, String> {
        args.get(i)
            .map(|v| v.parse::<u64>().map_err(|e| format!("{what}: {e}")))
            .transpose()
    };
    let parsed = (|| -> Result<(), String> {
        if let Some(bots) = number(1, "bots")? {
            options.bots = usize::try_from(bots).map_err(|e| e.to_string())?;
        }
        if let Some(seconds) = number(2, "seconds")? {
            options.seconds = seconds;
        }
        if let Some(ramp) = number(3, "ramp")? {
            options.ramp_seconds = ramp;
        }
        if let Some(scenario) = args.get(4) {
            options.scenario = scenario.parse().map_err(|e| format!("{e}"))?;
        }
        options.key = args.get(5).filter(|k| k.as_str() != "-").cloned();
        options.json_out = args.get(6).map(Into::into);
        Ok(())
    })();
    if let Err(e) = parsed {
        eprintln!("{e}");
        return ExitCode::from(2);
    }
    let json_out = options.json_out.clone();
    let stop = async {
        // Without a signal handler, run to the deadline.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    match run_until(options, stop).await {
        Ok(report) => {
            println!("{report}");
            if let Some(path) = json_out {
                if let Err(e) = report.write_json(&path) {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            }
            if report.is_clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
