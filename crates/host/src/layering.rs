//! The host, and the agent runtime it runs, build no HTTP crate: the fitness tests of
//! docs/architecture.md "Layering".

use std::collections::{BTreeMap, BTreeSet};

/// The crates that make an HTTP server or client. The host reaches the outside through the
/// database and NATS only (its agents through the HTTP client the server gives them); sockets and
/// requests are the server crate's.
const HTTP_CRATES: [&str; 6] = [
    "axum",
    "axum-core",
    "hyper",
    "reqwest",
    "tower-http",
    "utoipa-axum",
];

/// One package of a `Cargo.lock`: its name and the names of what it depends on.
type Lock = BTreeMap<String, Vec<String>>;

/// Reads the packages of a `Cargo.lock` (name → dependency names; versions are not told apart,
/// which only widens the walk).
fn read_lock(text: &str) -> Lock {
    let mut lock = Lock::new();
    for package in text.split("[[package]]").skip(1) {
        let mut name = None;
        let mut dependencies = Vec::new();
        let mut in_dependencies = false;
        for line in package.lines().map(str::trim) {
            if let Some(value) = line.strip_prefix("name = ") {
                name = Some(value.trim_matches('"').to_owned());
            } else if line.starts_with("dependencies = [") {
                in_dependencies = true;
            } else if in_dependencies && line.starts_with(']') {
                in_dependencies = false;
            } else if in_dependencies {
                // `"name"` or `"name version"` (when several versions are locked).
                let entry = line.trim_end_matches(',').trim_matches('"');
                if let Some(dependency) = entry.split_whitespace().next() {
                    dependencies.push(dependency.to_owned());
                }
            }
        }
        if let Some(name) = name {
            lock.entry(name).or_default().extend(dependencies);
        }
    }
    lock
}

/// Every crate `root` builds. A registry crate's dependencies come from the lock; a workspace
/// member's from the `[dependencies]` of its `Cargo.toml` (`members`: name → manifest), since the
/// lock lists its dev-dependencies too, which are not built into it.
fn built_by(lock: &Lock, members: &BTreeMap<String, String>, root: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut next = vec![root.to_owned()];
    while let Some(name) = next.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        match members.get(&name) {
            Some(manifest) => next.extend(normal_dependencies(manifest)),
            None => next.extend(lock.get(&name).into_iter().flatten().cloned()),
        }
    }
    seen
}

/// The `[dependencies]` of a `Cargo.toml` (not the dev-dependencies), as crate names.
fn normal_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
        } else if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            if let Some((key, _)) = line.split_once(['=', '.']) {
                names.push(key.trim().to_owned());
            }
        }
    }
    names
}

/// The package name a `Cargo.toml` declares.
fn package_name(manifest: &str) -> Option<String> {
    let package = manifest.split("[package]").nth(1)?;
    let line = package
        .lines()
        .find_map(|l| l.trim().strip_prefix("name = "))?;
    Some(line.trim_matches('"').to_owned())
}

/// The HTTP crates `root` builds, per the workspace's manifests and its lock.
fn http_crates_built(
    members: &BTreeMap<String, String>,
    lock: &str,
    root: &str,
) -> Vec<&'static str> {
    let built = built_by(&read_lock(lock), members, root);
    HTTP_CRATES
        .into_iter()
        .filter(|name| built.contains(*name))
        .collect()
}

/// Every workspace member's manifest by package name (`crates/*/Cargo.toml`).
fn workspace_members() -> BTreeMap<String, String> {
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut members = BTreeMap::new();
    for entry in std::fs::read_dir(&crates).expect("the workspace's crates/ folder") {
        let Ok(manifest) =
            std::fs::read_to_string(entry.expect("a crate folder").path().join("Cargo.toml"))
        else {
            continue;
        };
        if let Some(name) = package_name(&manifest) {
            members.insert(name, manifest);
        }
    }
    members
}

#[test]
fn the_host_builds_no_http_crate() {
    let members = workspace_members();
    assert!(members.contains_key("wayfarer-host") && members.contains_key("wayfarer-server"));
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
        .expect("the workspace's Cargo.lock");
    assert!(
        http_crates_built(&members, &lock, "wayfarer-server").contains(&"axum"),
        "the walk finds the server's axum"
    );
    assert_eq!(
        http_crates_built(&members, &lock, "wayfarer-host"),
        Vec::<&str>::new(),
        "wayfarer-host must not build an HTTP crate: HTTP is the server crate's (docs/architecture.md, \"Layering\")"
    );
}

#[test]
fn the_agent_builds_no_http_crate() {
    let members = workspace_members();
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
        .expect("the workspace's Cargo.lock");
    assert!(
        http_crates_built(&members, &lock, "wayfarer-agent-http").contains(&"reqwest"),
        "the walk finds the agent's HTTP client's reqwest"
    );
    assert_eq!(
        http_crates_built(&members, &lock, "wayfarer-agent"),
        Vec::<&str>::new(),
        "wayfarer-agent must not build an HTTP crate: its requests go through `http::HttpClient`, \
         which wayfarer-agent-http implements (docs/architecture.md, \"Layering\")"
    );
}

#[test]
fn the_check_sees_an_http_crate_a_dependency_brings_and_skips_dev_dependencies() {
    let host = "[package]\nname = \"host\"\n\n[dependencies]\nstore.workspace = true\nreqwest = \"0.12\"\n\n[dev-dependencies]\naxum = \"0.8\"\n";
    let store = "[package]\nname = \"store\"\n\n[dev-dependencies]\ntower-http = \"0.6\"\n";
    let members = [host, store]
        .into_iter()
        .map(|m| (package_name(m).unwrap(), m.to_owned()))
        .collect();
    let lock = r#"
[[package]]
name = "host"
version = "0.1.0"
dependencies = [
 "axum",
 "reqwest",
 "store",
]

[[package]]
name = "store"
version = "0.1.0"
dependencies = [
 "tower-http",
]

[[package]]
name = "reqwest"
version = "0.12.0"
dependencies = [
 "hyper 1.0.0",
 "serde",
]

[[package]]
name = "hyper"
version = "1.0.0"

[[package]]
name = "axum"
version = "0.8.0"
dependencies = [
 "axum-core",
]
"#;
    assert_eq!(
        http_crates_built(&members, lock, "host"),
        vec!["hyper", "reqwest"]
    );
    assert_eq!(normal_dependencies(host), vec!["store", "reqwest"]);
}
