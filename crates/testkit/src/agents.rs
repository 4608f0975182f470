//! Agents playing against a test server: spawning them, steering them with owner's commands,
//! watching their status, and stepping a manual world in time with one.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::oneshot;
use wayfarer_agent::runtime::{DecisionRecord, Host};
use wayfarer_agent::{AgentConfig, AgentHandle, AgentStatus, Brain, Control, Goal, Login, Outcome};

use crate::app::{TestApp, ADMIN_CODE};

/// An agent's own tick on a manual world: its steps set the pace of [`TestApp::lockstep`], one
/// server tick each (the agent reads the server's tick length from `/api/config` otherwise).
const LOCKSTEP_AGENT_TICK_MS: u64 = 20;

impl TestApp {
    /// An agent of its own guest account and character `name`, playing with `brain`. On a
    /// manual world its own tick is short, for [`TestApp::lockstep`].
    pub fn agent(
        &self,
        name: &str,
        goal: Option<Goal>,
        brain: Brain,
        template: Option<&str>,
    ) -> TestAgent {
        let config = AgentConfig {
            server: self.base.clone(),
            login: Login::Name {
                name: name.to_owned(),
                template: template.map(str::to_owned),
                token_file: self.world_dir.join(format!("{name}.token")),
            },
            goal,
            brain,
            label: name.to_owned(),
        };
        let host = Host {
            tick_ms: self.is_manual().then_some(LOCKSTEP_AGENT_TICK_MS),
            ..Host::default()
        };
        TestAgent {
            handle: wayfarer_agent::runtime::spawn_hosted(config, host),
        }
    }

    /// An agent that only does what the test commands (an idle goal, on the planner), once it is
    /// in the world; `template` is its character template (`None` for a starter).
    pub async fn idle_agent(&self, name: &str, template: Option<&str>) -> TestAgent {
        let mut agent = self.agent(
            name,
            Some(goal(json!({"kind": "idle"}))),
            Brain::Planner,
            template,
        );
        agent.entered().await;
        agent
    }

    /// [`TestApp::idle_agent`], then made admin for `/tp` and `/give` (needs [`ADMIN_CODE`]:
    /// [`TestApp::for_agents`]).
    pub async fn idle_admin(&self, name: &str, template: Option<&str>) -> TestAgent {
        let mut agent = self.idle_agent(name, template).await;
        agent.become_admin().await;
        agent
    }

    /// Steps a manual world one tick at a time in time with `agent`, until its status satisfies
    /// `until`: after each tick the agent runs a step of its own (having read that tick's
    /// messages, which were on its socket before the tick was answered) and sends what it
    /// decided, and only then does the next tick run. So the agent is never behind the world,
    /// however busy the machine. Returns the status and the ticks run; panics when `until` does
    /// not hold within `max_ticks`, or the agent stops stepping.
    pub async fn lockstep(
        &self,
        agent: &mut TestAgent,
        max_ticks: u64,
        what: &str,
        until: impl Fn(&AgentStatus) -> bool,
    ) -> (AgentStatus, u64) {
        let mut ticks = 0;
        loop {
            {
                let status = agent.handle.status.borrow_and_update();
                if until(&status) {
                    return (status.clone(), ticks);
                }
            }
            assert!(
                ticks < max_ticks,
                "{what}: not within {max_ticks} ticks; last decisions {:#?}",
                agent.status().recent_decisions
            );
            self.step(1).await;
            ticks += 1;
            let answered = agent.status().steps + 1;
            agent
                .wait_for(Duration::from_secs(30), "the agent's step", |s| {
                    s.steps >= answered
                })
                .await;
        }
    }
}

/// A running agent with helpers to steer and watch it.
pub struct TestAgent {
    pub handle: AgentHandle,
}

impl TestAgent {
    /// The latest status.
    pub fn status(&self) -> AgentStatus {
        self.handle.status.borrow().clone()
    }

    /// Waits until `check` holds for the status, or panics after `limit`.
    pub async fn wait_for(
        &mut self,
        limit: Duration,
        what: &str,
        check: impl Fn(&AgentStatus) -> bool,
    ) -> AgentStatus {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            {
                let status = self.handle.status.borrow_and_update();
                if check(&status) {
                    return status.clone();
                }
            }
            if tokio::time::timeout_at(deadline, self.handle.status.changed())
                .await
                .is_err()
            {
                let status = self.status();
                panic!(
                    "{what}: not within {limit:?}; last decisions {:#?}; state {}",
                    status.recent_decisions, status.state
                );
            }
        }
    }

    /// Waits until the agent is in the world.
    pub async fn entered(&mut self) -> AgentStatus {
        self.wait_for(Duration::from_secs(30), "entering", |s| {
            s.character_id.is_some() && s.state["gameState"]["maxHealth"].as_i64().unwrap_or(0) > 0
        })
        .await
    }

    /// Runs `action` with `params` as an owner's command and returns its outcome.
    /// Runs each `(action, params, code)` and checks the agent's own check refused it with `code`
    /// (before anything was sent).
    pub async fn refused_by_agent<'a>(
        &mut self,
        refused: impl IntoIterator<Item = (&'a str, Value, &'a str)>,
    ) {
        for (action, params, expected) in refused {
            let outcome = self.command(action, params.clone()).await;
            assert_eq!(
                code(&outcome),
                ("agent", expected.to_owned()),
                "{action} {params}: {outcome}"
            );
        }
    }

    pub async fn command(&mut self, action: &str, params: Value) -> Outcome {
        let before = self
            .status()
            .recent_decisions
            .back()
            .map_or(0, |d| d.number);
        self.handle
            .control
            .send(Control::Message(format!("{action} {params}")))
            .await
            .expect("the agent runs");
        let status = self
            .wait_for(
                Duration::from_secs(60),
                &format!("{action} to finish"),
                |s| owner_decision(s, action, before).is_some(),
            )
            .await;
        owner_decision(&status, action, before)
            .and_then(|d| d.outcome.clone())
            .expect("checked")
    }

    /// Runs an owner's command again when a reflex preempted it (a mob met on a long walk makes the
    /// agent eat or flee first, as it should), at most a few times; the last outcome and how many
    /// times it was sent.
    pub async fn command_through_reflexes(
        &mut self,
        action: &str,
        params: Value,
    ) -> (Outcome, usize) {
        let mut outcome = self.command(action, params.clone()).await;
        let mut sent = 1;
        while sent < 5 {
            match &outcome {
                Outcome::Failed { reason } if reason.contains("preempted by") => {
                    outcome = self.command(action, params.clone()).await;
                    sent += 1;
                }
                _ => break,
            }
        }
        (outcome, sent)
    }

    /// Grants admin for this session (`/admin`), so `/tp` and `/give` work.
    pub async fn become_admin(&mut self) {
        let outcome = self
            .command(
                "chatMessage",
                serde_json::json!({"text": format!("/admin {ADMIN_CODE}")}),
            )
            .await;
        assert!(outcome.is_success(), "{outcome}");
    }

    /// `/give item quantity` and waits until the inventory holds it.
    pub async fn give(&mut self, item: &str, quantity: i64) {
        self.command(
            "chatMessage",
            serde_json::json!({"text": format!("/give {item} {quantity}")}),
        )
        .await;
        let item = item.to_owned();
        self.wait_for(Duration::from_secs(10), "the gift", move |s| {
            holds(s, &item) > 0
        })
        .await;
    }

    /// `/tp x z` and waits until the agent stands there.
    pub async fn teleport(&mut self, x: i64, z: i64) {
        self.command(
            "chatMessage",
            serde_json::json!({"text": format!("/tp {x} {z}")}),
        )
        .await;
        self.wait_for(Duration::from_secs(10), "the teleport", move |s| {
            position(s) == (x, z)
        })
        .await;
    }

    /// Sends an owner's command without waiting for its outcome (to act while it runs).
    pub async fn send(&self, action: &str, params: Value) {
        self.handle
            .control
            .send(Control::Message(format!("{action} {params}")))
            .await
            .expect("the agent runs");
    }

    /// Runs `action` again while it fails (a chance-based action can stall with no result: a
    /// gathering roll that keeps missing), at most `tries` times; the last outcome.
    pub async fn command_until_success(
        &mut self,
        action: &str,
        params: Value,
        tries: usize,
    ) -> Outcome {
        let mut outcome = self.command(action, params.clone()).await;
        for _ in 1..tries {
            if !matches!(outcome, Outcome::Failed { .. }) {
                break;
            }
            outcome = self.command(action, params.clone()).await;
        }
        outcome
    }

    /// Every provider's state now (nearby entities, dialogue, shop, trade, quests, prayer).
    pub async fn inspect(&self) -> Value {
        let (tx, rx) = oneshot::channel();
        self.handle
            .control
            .send(Control::Inspect(tx))
            .await
            .expect("the agent runs");
        rx.await.expect("an answer")
    }

    /// Polls the providers until `check` finds what it looks for, or panics after `limit`.
    pub async fn wait_state<T>(
        &self,
        limit: Duration,
        what: &str,
        check: impl Fn(&Value) -> Option<T>,
    ) -> T {
        match self.poll_state(limit, &check).await {
            Some(found) => found,
            None => panic!(
                "{what}: not within {limit:?}; state {:#}",
                self.inspect().await
            ),
        }
    }

    /// Polls the providers until `check` finds what it looks for; `None` after `limit`.
    pub async fn poll_state<T>(
        &self,
        limit: Duration,
        check: impl Fn(&Value) -> Option<T>,
    ) -> Option<T> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if let Some(found) = check(&self.inspect().await) {
                return Some(found);
            }
            if tokio::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The id of the nearest entity in view of `kind` (players, npcs, resources, groundItems)
    /// for which `keep` holds, waiting for one to come into view.
    pub async fn nearest_id(&self, kind: &str, keep: impl Fn(&Value) -> bool) -> String {
        self.wait_state(Duration::from_secs(20), &format!("a {kind} in view"), |s| {
            s["nearbyEntities"][kind]
                .as_array()?
                .iter()
                .find(|e| keep(e))
                .and_then(|e| e["id"].as_str().map(str::to_owned))
        })
        .await
    }

    /// Sets a goal through the control channel.
    pub async fn set_goal(&self, goal: Goal) -> Result<(), String> {
        let (tx, rx) = oneshot::channel();
        self.handle
            .control
            .send(Control::SetGoal(Box::new(goal), tx))
            .await
            .expect("the agent runs");
        rx.await.expect("an answer")
    }
}

fn owner_decision<'a>(
    status: &'a AgentStatus,
    action: &str,
    after: u64,
) -> Option<&'a DecisionRecord> {
    status
        .recent_decisions
        .iter()
        .find(|d| d.number > after && d.by == "owner" && d.action == action && d.outcome.is_some())
}

/// How many of `item` the status's inventory holds.
pub fn holds(status: &AgentStatus, item: &str) -> i64 {
    status.state["inventory"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["itemId"] == item)
        .map(|s| s["quantity"].as_i64().unwrap_or(0))
        .sum()
}

/// The agent's tile.
pub fn position(status: &AgentStatus) -> (i64, i64) {
    let p = &status.state["gameState"]["position"];
    (
        p["x"].as_i64().unwrap_or(i64::MIN),
        p["z"].as_i64().unwrap_or(i64::MIN),
    )
}

/// The agent's level in `skill`.
pub fn level(status: &AgentStatus, skill: &str) -> i64 {
    status.state["skills"]["skills"][skill]["level"]
        .as_i64()
        .unwrap_or(1)
}

/// The source and code of a refusal (`("", kind)` for any other outcome), for assertions.
pub fn code(outcome: &Outcome) -> (&'static str, String) {
    match outcome {
        Outcome::Rejected { source, code, .. } => (source, code.clone()),
        other => ("", other.kind().to_owned()),
    }
}

/// The inventory slot of the first `item` in the status, if held.
pub fn slot_of(status: &AgentStatus, item: &str) -> Option<i64> {
    status.state["inventory"]["items"]
        .as_array()?
        .iter()
        .find(|s| s["itemId"] == item)
        .and_then(|s| s["slot"].as_i64())
}

/// A goal from its JSON.
pub fn goal(value: Value) -> Goal {
    Goal::from_request(&value).expect("a valid goal")
}
