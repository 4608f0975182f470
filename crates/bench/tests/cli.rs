//! The `wayfarer-load` command line as CI and BENCHMARKS.md use it: its flags parse, and a run
//! that cannot reach its server is not clean, so the exit code fails the caller.
//! (Also makes `cargo test --workspace` build the binary, which `.ci/load-smoke.sh` then runs.)

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_wayfarer-load");

#[test]
fn help_lists_the_flags_ci_uses() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "--url",
        "--bots",
        "--seconds",
        "--ramp",
        "--scenario",
        "--key",
        "--json",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
}

#[test]
fn a_run_against_no_server_fails_and_says_it_is_not_reachable() {
    // Port 1 on loopback: nothing listens there, so every connect is refused at once.
    let out = Command::new(BIN)
        .args([
            "--url",
            "http://127.0.0.1:1",
            "--bots",
            "2",
            "--seconds",
            "1",
        ])
        .args(["--ramp", "0", "--scenario", "idle"])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "an unreachable server is not a clean run"
    );
    let errors = String::from_utf8_lossy(&out.stderr);
    assert!(
        errors.contains("http://127.0.0.1:1/health is not reachable"),
        "it says why: {errors}"
    );
}

#[test]
fn an_unknown_scenario_is_refused_before_any_bot_starts() {
    let out = Command::new(BIN)
        .args(["--url", "http://127.0.0.1:1", "--scenario", "dance"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("dance"));
}
