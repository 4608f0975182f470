//! Bad configuration stops the real binary at start with one line naming the variable.

use std::process::Command;

fn run_with(vars: &[(&str, &str)]) -> (i32, String) {
    let world = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .arg("serve")
        .current_dir(world.path())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("WORLD", world.path())
        .env("PORT", "0")
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn bad_values_stop_start_up_with_one_line_naming_the_variable() {
    for (vars, variable) in [
        (vec![("PORT", "abc")], "PORT"),
        (vec![("SAVE_INTERVAL", "-1")], "SAVE_INTERVAL"),
        (vec![("NODE_ENV", "staging")], "NODE_ENV"),
        (vec![("TICK_MS", "0")], "TICK_MS"),
        (vec![("TICK_MS", "manual")], "TICK_MS"),
        (
            vec![("DISABLE_RATE_LIMIT", "perhaps")],
            "DISABLE_RATE_LIMIT",
        ),
        (vec![("DATABASE_URL", "mysql://db")], "DATABASE_URL"),
    ] {
        let (code, stderr) = run_with(&vars);
        assert_eq!(code, 2, "{vars:?}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "exactly one line: {stderr}");
        assert!(lines[0].contains(variable), "{variable} named in {stderr}");
        assert!(
            lines[0].starts_with("error: invalid configuration"),
            "{stderr}"
        );
    }
}

#[test]
fn help_lists_the_subcommands() {
    let output = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for sub in ["serve", "migrate"] {
        assert!(help.contains(sub), "{sub} in {help}");
    }
}

#[test]
fn use_local_postgres_without_the_tools_says_so_in_one_line() {
    let empty = tempfile::tempdir().unwrap();
    let (code, stderr) = run_with(&[
        ("USE_LOCAL_POSTGRES", "true"),
        ("PG_BIN_DIR", empty.path().to_str().unwrap()),
        ("LOG_FORMAT", "json"),
        ("RUST_LOG", "off"),
    ]);
    assert_ne!(code, 0);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("initdb and pg_ctl were not found"),
        "{stderr}"
    );
}

#[test]
fn use_local_postgres_is_refused_in_production() {
    let (code, stderr) = run_with(&[("USE_LOCAL_POSTGRES", "true"), ("NODE_ENV", "production")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("USE_LOCAL_POSTGRES"), "{stderr}");
}

#[test]
fn a_dotenv_file_supplies_missing_variables() {
    let world = tempfile::tempdir().unwrap();
    std::fs::write(world.path().join(".env"), "PORT=notaport\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .arg("serve")
        .current_dir(world.path())
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("WORLD", world.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("PORT"), "the .env value was read: {stderr}");
}

#[test]
fn production_refuses_a_missing_or_short_jwt_secret() {
    for secret in [None, Some("too-short")] {
        let mut vars = vec![("NODE_ENV", "production")];
        if let Some(secret) = secret {
            vars.push(("JWT_SECRET", secret));
        }
        let (code, stderr) = run_with(&vars);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("JWT_SECRET"), "{stderr}");
        assert_eq!(stderr.lines().filter(|l| !l.trim().is_empty()).count(), 1);
    }
}

/// Issue 50: only the length of `ADMIN_CODE` was checked, so `aaaaaaaaaaaaaaaa` started production.
#[test]
fn production_refuses_a_guessable_admin_code() {
    for code in ["aaaaaaaaaaaaaaaa", "abababababababab", "0123456789012345"] {
        let (exit, stderr) = run_with(&[
            ("NODE_ENV", "production"),
            ("JWT_SECRET", "0123456789abcdef0123456789abcdef"),
            ("ADMIN_CODE", code),
        ]);
        assert_eq!(exit, 2, "{code}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "exactly one line: {stderr}");
        assert!(lines[0].contains("ADMIN_CODE"), "{stderr}");
        assert!(
            !lines[0].contains(code),
            "the code itself is never printed: {stderr}"
        );
    }
}

#[test]
fn migrate_applies_the_schema_and_exits() {
    let world = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .arg("migrate")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("WORLD", world.path())
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = format!("applied {} migration", wayfarer_store::MIGRATIONS.len());
    assert!(
        String::from_utf8_lossy(&output.stdout).contains(&expected),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(world.path().join("wayfarer.db").exists());
    let again = Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .arg("migrate")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("WORLD", world.path())
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("applied 0 migration"));
}
