//! The agent runtime (issue 15): programs that play Wayfarer as ordinary players over the real
//! WebSocket. An agent keeps a model of what it sees ([`model`]), reads it through the
//! providers of specification section 1 ([`providers`]), acts only through one action table
//! ([`actions`]) whose every outcome is matched to its request by `ref` ([`outcome`]), and picks
//! its next action with the built-in [`planner`] or a language model ([`brain`]) towards a goal
//! ([`goals`]). [`runtime::spawn`] starts one; a host may start any number in one process and
//! steer each through [`runtime::Control`].

pub mod account;
pub mod actions;
pub mod brain;
pub mod cli;
pub mod commands;
pub mod control_plane;
pub mod docs;
pub mod goals;
pub mod http;
pub mod in_view;
pub mod interned;
pub mod knowledge;
pub mod lockstep;
pub mod magic;
pub mod making;
pub mod model;
pub mod outcome;
pub mod planner;
pub mod procedure;
pub mod providers;
pub mod quests;
pub mod runtime;

pub use account::{Login, TokenMint};
pub use brain::{Brain, BrainChoice};
pub use goals::Goal;
pub use http::{Http, HttpClient};
pub use outcome::Outcome;
pub use runtime::{spawn, spawn_hosted, AgentConfig, AgentHandle, AgentStatus, Control, Host};

/// The intended layering, held by the workspace's own manifests: an agent is a client of the game,
/// so it plays by the protocol and reads the content (and the rules kept with it), never the
/// server's game itself.
#[cfg(test)]
mod layering {
    use std::collections::BTreeSet;

    use serde_json::Value;

    /// The workspace's crates (`cargo metadata --no-deps`: the members' own manifests, nothing
    /// downloaded or resolved).
    fn members() -> Vec<Value> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
        let output = std::process::Command::new(cargo)
            .args([
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--offline",
            ])
            .args(["--manifest-path", manifest])
            .output()
            .expect("cargo metadata runs");
        assert!(
            output.status.success(),
            "cargo metadata: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
        metadata["packages"]
            .as_array()
            .expect("a list of packages")
            .clone()
    }

    /// The workspace crates `name` builds with (normal dependencies, whatever the target, followed
    /// through the other workspace crates; a registry crate cannot depend on these unpublished ones).
    fn builds_with(members: &[Value], name: &str) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let mut next = vec![name.to_owned()];
        while let Some(name) = next.pop() {
            let Some(package) = members.iter().find(|p| p["name"] == name.as_str()) else {
                continue;
            };
            let dependencies = package["dependencies"].as_array().expect("dependencies");
            for dependency in dependencies {
                let normal = dependency["kind"].is_null();
                let dependency = dependency["name"].as_str().expect("a name").to_owned();
                let member = members.iter().any(|p| p["name"] == dependency.as_str());
                if normal && member && found.insert(dependency.clone()) {
                    next.push(dependency);
                }
            }
        }
        found
    }

    #[test]
    fn the_agent_depends_on_no_sim() {
        let members = members();
        let agent = builds_with(&members, "wayfarer-agent");
        // The scan sees dependencies where they are (else it would pass on anything).
        assert!(
            agent.contains("wayfarer-protocol") && agent.contains("wayfarer-content"),
            "the agent builds with the protocol and the content: {agent:?}"
        );
        assert!(
            !agent.contains("wayfarer-sim"),
            "the agent must not build with the sim (put a rule it needs in wayfarer-content): \
             {agent:?}"
        );
        assert!(
            builds_with(&members, "wayfarer-server").contains("wayfarer-sim"),
            "the server builds with the sim"
        );
    }
}
