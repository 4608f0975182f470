//! A registered agent steered by its owner over REST: the runtime hears `agent:goal`,
//! `agent:stop`, `agent:resume` and `agent:message` on its own socket and reports `agent:status`,
//! which the owner's routes show (docs/agent-control.md).

use std::time::Duration;

use serde_json::{json, Value};
use wayfarer_agent::{AgentConfig, Brain, Login};

use crate::{ticking, TestAgent};

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

#[tokio::test]
async fn the_owner_steers_a_registered_agent_over_rest() {
    let server = ticking(20).await;
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
    let handle = wayfarer_agent::spawn(AgentConfig {
        server: base.clone(),
        login: Login::Token(registered["token"].as_str().unwrap().to_owned()),
        goal: None,
        brain: Brain::Planner,
        label: "Steered".into(),
    });
    let mut agent = TestAgent { handle };
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
        .wait_for(Duration::from_secs(10), "the owner's goal", |s| {
            s.goal
                .as_ref()
                .is_some_and(|g| g["kind"] == "skill" && g["target"]["level"] == 3)
        })
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
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
        assert!(
            tokio::time::Instant::now() < deadline,
            "no status report: {list}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
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
    agent
        .wait_for(Duration::from_secs(10), "paused", |s| s.paused)
        .await;
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
        .wait_for(Duration::from_secs(10), "the owner's command", |s| {
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
    agent
        .wait_for(Duration::from_secs(10), "resumed", |s| !s.paused)
        .await;
    agent.handle.shutdown().await;
    server.stop().await;
}
