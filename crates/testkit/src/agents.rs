//! Agents playing against a test server: spawning them, steering them with owner's commands,
//! watching their status, all in lockstep with the manual world: the test steps the world one
//! tick at a time, and after each tick every agent of the server reads that tick's messages,
//! decides and sends before the next one runs ([`TestAgent::run_until`]). Nothing depends on the
//! machine's speed: a wait is counted in the game's ticks.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use wayfarer_agent::lockstep;
use wayfarer_agent::runtime::{DecisionRecord, Host};
use wayfarer_agent::{AgentConfig, AgentHandle, AgentStatus, Brain, Control, Goal, Login, Outcome};
use wayfarer_host::world_thread::TickClock;

use crate::app::{TestApp, ADMIN_CODE};

/// Ticks an owner's command may run: the longest, a walk of some 260 tiles and back, takes a
/// few hundred.
pub const COMMAND_TICKS: u64 = 1_500;
/// Ticks a gift or a teleport takes to show (one, then the agent's step reads it).
pub const ADMIN_TICKS: u64 = 20;
/// Ticks until something looked for comes into view (a mob's respawn included).
pub const VIEW_TICKS: u64 = 500;
/// The longest an agent may take to enter the world (logging in and connecting: no tick needed).
const ENTER_WAIT: Duration = Duration::from_secs(30);

/// The agents of one test server, stepped together with its world
/// ([`wayfarer_agent::lockstep::Crowd`]; the server's embedded agents among them when it runs
/// some): one tick at a time however many waits run at once, each agent in the order it joined.
#[derive(Clone, Default)]
pub(crate) struct Crowd(pub(crate) lockstep::Crowd);

impl Crowd {
    fn join(&self, control: mpsc::Sender<Control>) {
        self.0.join(control);
    }

    /// Every agent has read what the world sent, and the world holds what each sent.
    async fn sync(&self) {
        self.0
            .sync()
            .await
            .unwrap_or_else(|err| panic!("lockstep: {err}"));
    }

    /// One tick: the world takes what the agents sent (an owner's command since their last
    /// step included), runs the tick, and each agent takes its step for it.
    pub(crate) async fn tick(&self, clock: &TickClock) {
        self.0
            .tick(clock.step(1))
            .await
            .unwrap_or_else(|err| panic!("lockstep: {err}"));
    }
}

impl TestApp {
    /// An agent of its own guest account and character `name`, playing with `brain` in lockstep
    /// with the manual world.
    pub fn agent(
        &self,
        name: &str,
        goal: Option<Goal>,
        brain: Brain,
        template: Option<&str>,
    ) -> TestAgent {
        self.agent_with(AgentConfig {
            server: self.base.clone(),
            login: Login::Name {
                name: name.to_owned(),
                template: template.map(str::to_owned),
                token_file: self.world_dir.join(format!("{name}.token")),
            },
            goal,
            brain,
            label: name.to_owned(),
        })
    }

    /// An agent as `config` says (a registered agent's token, say), in lockstep with the manual
    /// world: it steps only when the test runs a tick ([`TestAgent::run_until`]).
    pub fn agent_with(&self, config: AgentConfig) -> TestAgent {
        assert!(
            self.is_manual(),
            "agents in tests step with the world: start it on the manual clock"
        );
        let host = Host {
            http: Some(wayfarer_agent_http::client()),
            lockstep: true,
            ..Host::default()
        };
        let handle = wayfarer_agent::runtime::spawn_hosted(config, host);
        self.crowd.join(handle.control.clone());
        TestAgent {
            handle,
            clock: self.clock(),
            crowd: self.crowd.clone(),
        }
    }

    /// An agent that only does what the test commands (an idle goal, on the planner), once it is
    /// in the world; `template` is its character template (`None` for a starter).
    pub async fn idle_agent(&self, name: &str, template: Option<&str>) -> TestAgent {
        let agent = self.agent(
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
        let agent = self.idle_agent(name, template).await;
        agent.become_admin().await;
        agent
    }

    /// Runs one tick of the manual world in lockstep with its agents (for a test that watches
    /// something other than an agent's status between ticks: a REST route, say).
    pub async fn tick_with_agents(&self) {
        self.crowd.tick(&self.clock()).await;
    }
}

/// A running agent with helpers to steer and watch it, stepped with the world.
pub struct TestAgent {
    pub handle: AgentHandle,
    clock: TickClock,
    crowd: Crowd,
}

impl TestAgent {
    /// The latest status.
    pub fn status(&self) -> AgentStatus {
        self.handle.status.borrow().clone()
    }

    /// Steps the world one tick at a time in lockstep with its agents until this agent's status
    /// satisfies `until`: before each tick the world holds what every agent sent, and after it
    /// each agent has read the tick's messages, decided, sent what it decided and published its
    /// status. Returns the status and the ticks run; panics when `until` does not hold within
    /// `max_ticks`.
    pub async fn run_until(
        &self,
        max_ticks: u64,
        what: &str,
        until: impl Fn(&AgentStatus) -> bool,
    ) -> (AgentStatus, u64) {
        self.crowd.sync().await;
        let mut ticks = 0;
        loop {
            {
                let status = self.handle.status.borrow();
                if until(&status) {
                    return (status.clone(), ticks);
                }
            }
            if ticks >= max_ticks {
                let status = self.status();
                panic!(
                    "{what}: not within {max_ticks} ticks; last decisions {:#?}; state {}",
                    status.recent_decisions, status.state
                );
            }
            self.crowd.tick(&self.clock).await;
            ticks += 1;
        }
    }

    /// [`TestAgent::run_until`], for the status alone.
    pub async fn wait_for(
        &self,
        max_ticks: u64,
        what: &str,
        until: impl Fn(&AgentStatus) -> bool,
    ) -> AgentStatus {
        self.run_until(max_ticks, what, until).await.0
    }

    /// Waits until the agent is in the world (logging in and entering need no tick: the world
    /// takes a join between ticks).
    pub async fn entered(&self) -> AgentStatus {
        let mut status = self.handle.status.clone();
        let entered = |s: &AgentStatus| {
            s.character_id.is_some() && s.state["gameState"]["maxHealth"].as_i64().unwrap_or(0) > 0
        };
        let waited = tokio::time::timeout(ENTER_WAIT, status.wait_for(entered)).await;
        match waited {
            Ok(Ok(status)) => status.clone(),
            _ => panic!(
                "entering: not within {ENTER_WAIT:?}; last decisions {:#?}",
                self.status().recent_decisions
            ),
        }
    }

    /// Runs each `(action, params, code)` and checks the agent's own check refused it with `code`
    /// (before anything was sent).
    pub async fn refused_by_agent<'a>(
        &self,
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

    /// Runs `action` with `params` as an owner's command, stepping the world until it ends, and
    /// returns its outcome.
    pub async fn command(&self, action: &str, params: Value) -> Outcome {
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
            .wait_for(COMMAND_TICKS, &format!("{action} to finish"), |s| {
                owner_decision(s, action, before).is_some()
            })
            .await;
        owner_decision(&status, action, before)
            .and_then(|d| d.outcome.clone())
            .expect("checked")
    }

    /// Runs an owner's command again when a reflex preempted it (a mob met on a long walk makes the
    /// agent eat or flee first, as it should), at most a few times; the last outcome and how many
    /// times it was sent.
    pub async fn command_through_reflexes(&self, action: &str, params: Value) -> (Outcome, usize) {
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
    pub async fn become_admin(&self) {
        let outcome = self
            .command(
                "chatMessage",
                serde_json::json!({"text": format!("/admin {ADMIN_CODE}")}),
            )
            .await;
        assert!(outcome.is_success(), "{outcome}");
    }

    /// `/give item quantity` and waits until the inventory holds it.
    pub async fn give(&self, item: &str, quantity: i64) {
        self.command(
            "chatMessage",
            serde_json::json!({"text": format!("/give {item} {quantity}")}),
        )
        .await;
        let item = item.to_owned();
        self.wait_for(ADMIN_TICKS, "the gift", move |s| holds(s, &item) > 0)
            .await;
    }

    /// `/tp x z` and waits until the agent stands there.
    pub async fn teleport(&self, x: i64, z: i64) {
        self.command(
            "chatMessage",
            serde_json::json!({"text": format!("/tp {x} {z}")}),
        )
        .await;
        self.wait_for(ADMIN_TICKS, "the teleport", move |s| position(s) == (x, z))
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
        &self,
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

    /// Steps the world in lockstep with its agents until `check` finds what it looks for in
    /// the providers' state; panics after `max_ticks`.
    pub async fn wait_state<T>(
        &self,
        max_ticks: u64,
        what: &str,
        check: impl Fn(&Value) -> Option<T>,
    ) -> T {
        match self.poll_state(max_ticks, &check).await {
            Some(found) => found,
            None => panic!(
                "{what}: not within {max_ticks} ticks; state {:#}",
                self.inspect().await
            ),
        }
    }

    /// Steps the world in lockstep with its agents until `check` finds what it looks for in the
    /// providers' state; `None` after `max_ticks`.
    pub async fn poll_state<T>(
        &self,
        max_ticks: u64,
        check: impl Fn(&Value) -> Option<T>,
    ) -> Option<T> {
        self.crowd.sync().await;
        for _ in 0..max_ticks {
            if let Some(found) = check(&self.inspect().await) {
                return Some(found);
            }
            self.crowd.tick(&self.clock).await;
        }
        check(&self.inspect().await)
    }

    /// The id of the nearest entity in view of `kind` (players, npcs, resources, groundItems)
    /// for which `keep` holds, waiting for one to come into view.
    pub async fn nearest_id(&self, kind: &str, keep: impl Fn(&Value) -> bool) -> String {
        self.wait_state(VIEW_TICKS, &format!("a {kind} in view"), |s| {
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
