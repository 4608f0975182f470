//! A registered agent steered by its owner over REST: the runtime hears `agent:goal`,
//! `agent:stop`, `agent:resume` and `agent:message` on its own socket and reports `agent:status`,
//! which the owner's routes show (docs/agent-control.md).

use serde_json::{json, Value};
use wayfarer_agent::{AgentConfig, Brain, Login};

use crate::{stepped, TestAgent};

async fn call(
    method: reqwest::Method,
    url: String,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let client = reqwest::Client::new();
    let mut request = client.request(method, url).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Ticks until the agent's first status report shows in its owner's routes (one every 5 steps).
const REPORT_TICKS: u64 = 50;

#[tokio::test]
async fn the_owner_steers_a_registered_agent_over_rest() {
    let server = stepped().await;
    let base = server.base.clone();
    let (status, guest) = call(
        reqwest::Method::POST,
        format!("{base}/api/auth/guest"),
        "",
        Some(json!({"name": "Owner"})),
    )
    .await;
    assert_eq!(status, 201, "{guest}");
    let owner = guest["token"].as_str().expect("a token").to_owned();
    let (status, registered) = call(
        reqwest::Method::POST,
        format!("{base}/api/agent/register"),
        &owner,
        Some(json!({"name": "Steered"})),
    )
    .await;
    assert_eq!(status, 201, "{registered}");
    let agent_id = registered["agentId"].as_str().unwrap().to_owned();
    let agent = server.agent_with(AgentConfig {
        server: base.clone(),
        login: Login::Token(registered["token"].as_str().unwrap().to_owned()),
        goal: None,
        brain: Brain::Planner,
        label: "Steered".into(),
    });
    agent.entered().await;

    // The owner's goal reaches the agent, and the agent's report reaches the owner's routes.
    let (status, body) = call(
        reqwest::Method::POST,
        format!("{base}/api/agents/{agent_id}/goal"),
        &owner,
        Some(json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 3}})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    agent
        .wait_for(20, "the owner's goal", |s| {
            s.goal
                .as_ref()
                .is_some_and(|g| g["kind"] == "skill" && g["target"]["level"] == 3)
        })
        .await;
    let mut ticks = 0;
    loop {
        let (_, list) = call(
            reqwest::Method::GET,
            format!("{base}/api/agent"),
            &owner,
            None,
        )
        .await;
        // The stored goal is the owner's; the report adds the agent's progress on it.
        let reported = &list["agents"][0]["status"];
        if list["agents"][0]["goal"]["kind"] == "skill"
            && reported["paused"] == false
            && reported["progress"].is_number()
            && reported["tokensSpent"] == 0
        {
            break;
        }
        assert!(ticks < REPORT_TICKS, "no status report: {list}");
        server.tick_with_agents().await;
        ticks += 1;
    }

    // Stop: the agent pauses, a new goal is refused until resume.
    let (status, _) = call(
        reqwest::Method::POST,
        format!("{base}/api/agents/{agent_id}/goal/stop"),
        &owner,
        None,
    )
    .await;
    assert_eq!(status, 200);
    agent.wait_for(20, "paused", |s| s.paused).await;
    let (status, _) = call(
        reqwest::Method::POST,
        format!("{base}/api/agents/{agent_id}/goal"),
        &owner,
        Some(json!({"kind": "idle"})),
    )
    .await;
    assert_eq!(status, 409);
    // An owner's command still runs while paused.
    let (status, _) = call(
        reqwest::Method::POST,
        format!("{base}/api/agents/{agent_id}/message"),
        &owner,
        Some(json!({"text": "idle"})),
    )
    .await;
    assert_eq!(status, 202);
    agent
        .wait_for(20, "the owner's command", |s| {
            s.recent_decisions
                .iter()
                .any(|d| d.by == "owner" && d.action == "idle")
        })
        .await;
    let (status, _) = call(
        reqwest::Method::POST,
        format!("{base}/api/agents/{agent_id}/goal/resume"),
        &owner,
        None,
    )
    .await;
    assert_eq!(status, 200);
    agent.wait_for(20, "resumed", |s| !s.paused).await;
    agent.handle.shutdown().await;
    server.stop().await;
}

/// A registered agent on a stepped world, with its owner's token and its own.
struct Registered {
    agent: TestAgent,
    agent_id: String,
    owner: String,
    token: String,
}

async fn registered(server: &crate::TestApp, name: &str) -> Registered {
    let base = server.base.clone();
    let (_, guest) = call(
        reqwest::Method::POST,
        format!("{base}/api/auth/guest"),
        "",
        Some(json!({"name": format!("{name}Owner")})),
    )
    .await;
    let owner = guest["token"].as_str().expect("a token").to_owned();
    let (status, body) = call(
        reqwest::Method::POST,
        format!("{base}/api/agent/register"),
        &owner,
        Some(json!({"name": name})),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let token = body["token"].as_str().unwrap().to_owned();
    let agent = server.agent_with(AgentConfig {
        server: base,
        login: Login::Token(token.clone()),
        goal: None,
        brain: Brain::Planner,
        label: name.into(),
    });
    agent.entered().await;
    Registered {
        agent,
        agent_id: body["agentId"].as_str().unwrap().to_owned(),
        owner,
        token,
    }
}

/// Ticks a quick action may take to be offered after the agent connects.
const QUICK_ACTION_TICKS: usize = 20;

/// Runs the first quick action offered whose command starts with `prefix`, as the owner sends it,
/// and returns the parameters and outcome the agent ran it with.
async fn run_quick_action(
    server: &crate::TestApp,
    r: &Registered,
    prefix: &str,
) -> (Value, wayfarer_agent::Outcome) {
    let url = |path: &str| format!("{}/api/agents/{}/{path}", server.base, r.agent_id);
    // The world has the character in it once its join is taken in, at a tick after the join
    // arrives (a loaded machine's socket may take longer than one step): tick by tick, at most
    // QUICK_ACTION_TICKS.
    let mut offered = Value::Null;
    let mut command = None;
    for _ in 0..QUICK_ACTION_TICKS {
        server.tick_with_agents().await;
        let (status, body) = call(reqwest::Method::GET, url("quick-actions"), &r.owner, None).await;
        assert_eq!(status, 200, "{body}");
        command = body["actions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a["command"].as_str())
            .find(|c| c.starts_with(prefix))
            .map(str::to_owned);
        offered = body;
        if command.is_some() {
            break;
        }
    }
    let command = command.unwrap_or_else(|| panic!("{prefix} offered: {offered}"));
    let action = command.split(' ').next().unwrap().to_owned();
    let before = r
        .agent
        .status()
        .recent_decisions
        .back()
        .map_or(0, |d| d.number);
    let (status, _) = call(
        reqwest::Method::POST,
        url("message"),
        &r.owner,
        Some(json!({"text": command})),
    )
    .await;
    assert_eq!(status, 202);
    let mine = |s: &wayfarer_agent::AgentStatus| {
        s.recent_decisions
            .iter()
            .find(|d| {
                d.number > before && d.by == "owner" && d.action == action && d.outcome.is_some()
            })
            .cloned()
    };
    let (ran, _) = r
        .agent
        .run_until(300, &command, |s| mine(s).is_some())
        .await;
    let run = mine(&ran).unwrap();
    let params: Value = serde_json::from_str(run.params.get()).unwrap();
    (params, run.outcome.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn goals_record_who_set_them_and_progress_is_xp_towards_the_level() {
    let server = crate::TestApp::for_agents(crate::Clock::Manual).await;
    let base = server.base.clone();
    let r = registered(&server, "Setter").await;
    let url = format!("{base}/api/agents/{}/goal", r.agent_id);
    let goal = json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 10}});
    let (status, body) = call(
        reqwest::Method::POST,
        url.clone(),
        &r.token,
        Some(goal.clone()),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["goal"]["setBy"], "agent",
        "the agent's own token: {body}"
    );
    let (status, body) = call(reqwest::Method::POST, url.clone(), &r.owner, Some(goal)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["goal"]["setBy"], "owner", "{body}");
    let (_, state) = call(reqwest::Method::GET, url, &r.owner, None).await;
    assert_eq!(state["goal"]["setBy"], "owner", "{state}");
    // Woodcutting level 1 of 10 with no XP is no progress (a ratio of levels said 10%).
    let (status, _) = r
        .agent
        .run_until(20, "the owner's goal", |s| {
            s.goal.as_ref().is_some_and(|g| g["target"]["level"] == 10)
        })
        .await;
    assert_eq!(status.goal.as_ref().unwrap()["progress"], 0.0);
    r.agent.handle.shutdown().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_actions_run_with_their_arguments_and_resume_returns_to_the_target() {
    let server = crate::TestApp::for_agents(crate::Clock::Manual).await;
    let base = server.base.clone();
    let r = registered(&server, "Lumber").await;
    let agent_id = r.agent_id.clone();
    let agent_url = |path: &str| format!("{base}/api/agents/{agent_id}/{path}");
    // A quick action, sent as offered (`talkToNpc npc-6`), runs with its argument.
    let (params, outcome) = run_quick_action(&server, &r, "talkToNpc ").await;
    assert!(
        params["targetId"]
            .as_str()
            .is_some_and(|t| t.starts_with("npc-")),
        "{params}"
    );
    assert!(outcome.is_success(), "{outcome}");
    let (status, _) = call(
        reqwest::Method::POST,
        agent_url("goal"),
        &r.owner,
        Some(json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 30}})),
    )
    .await;
    assert_eq!(status, 200);
    // The planner walks to the trees and chops one.
    r.agent
        .run_until(600, "chopping", |s| {
            s.current_action.as_deref() == Some("chopTree")
        })
        .await;
    let (status, _) = call(
        reqwest::Method::POST,
        agent_url("goal/stop"),
        &r.owner,
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (stopped, _) = r.agent.run_until(20, "paused", |s| s.paused).await;
    let interrupted = stopped
        .recent_decisions
        .iter()
        .rev()
        .find(|d| d.action == "chopTree")
        .expect("the chop the stop interrupted");
    let tree: Value = serde_json::from_str(interrupted.params.get()).unwrap();
    let tree = tree["targetId"].as_str().expect("a target").to_owned();

    // A plain message is answered.
    let (status, _) = call(
        reqwest::Method::POST,
        agent_url("message"),
        &r.owner,
        Some(json!({"text": "could you do some fishing?"})),
    )
    .await;
    assert_eq!(status, 202);
    let (answered, _) = r
        .agent
        .run_until(20, "the answer", |s| {
            s.recent_decisions.iter().any(|d| d.action == "reply")
        })
        .await;
    let reply = answered
        .recent_decisions
        .iter()
        .find(|d| d.action == "reply")
        .unwrap();
    assert!(reply.reason.contains("fishing"), "{reply:?}");

    // Resume: the agent takes up the goal on the tree it was stopped on.
    let (status, _) = call(
        reqwest::Method::POST,
        agent_url("goal/resume"),
        &r.owner,
        None,
    )
    .await;
    assert_eq!(status, 200);
    let (done, _) = r
        .agent
        .run_until(400, "the resumed chop", |s| {
            s.recent_decisions
                .iter()
                .any(|d| d.reason.starts_with("resumed") && d.outcome.is_some())
        })
        .await;
    let again = done
        .recent_decisions
        .iter()
        .find(|d| d.reason.starts_with("resumed"))
        .unwrap();
    let params: Value = serde_json::from_str(again.params.get()).unwrap();
    assert_eq!(params["targetId"], tree.as_str(), "{again:?}");
    // `bankDeposit all` runs as "everything", not as an argument-less deposit.
    let (params, outcome) = run_quick_action(&server, &r, "bankDeposit").await;
    assert_eq!(params, json!({"all": true}));
    assert!(outcome.is_success(), "{outcome}");
    r.agent.handle.shutdown().await;
    server.stop().await;
}
