//! The agent control plane (docs/agent-control.md): registration and its limited token, the agent
//! routes of CONTRACT.md section 7, and steering a live agent over its own socket. What is stored
//! (registration, the mapping, goals across a restart, the reported status) is tested on SQLite
//! and on PostgreSQL.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wayfarer_protocol::agent::{ActionReport, AgentStatus, DecisionReport, ReportedGoal};
use wayfarer_protocol::ws::ClientMessage;

use crate::support::messages::{chat, to_id, walk_to};
use crate::support::{
    admin_give, assert_error, both_databases, enter, player, AppOptions, FreshDatabase, TestApp,
    WsClient,
};

/// A server on `db`: the tests that store agents (registration, mappings, goals, status)
/// run on SQLite and on PostgreSQL.
fn on(db: FreshDatabase) -> AppOptions {
    AppOptions {
        database: Some(db),
        ..Default::default()
    }
}

/// A registered agent: its owner's token, its character, its id and its own token.
struct Agent {
    owner: String,
    character_id: String,
    agent_id: String,
    token: String,
}

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = app.client.post(app.url(path)).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn get(app: &TestApp, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = app.client.get(app.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn json_of(response: reqwest::Response, status: u16) -> Value {
    assert_eq!(
        response.status().as_u16(),
        status,
        "{}",
        response.text().await.unwrap_or_default()
    );
    response.json().await.unwrap()
}

/// A new account with a character named `name`, registered as an agent.
async fn agent(app: &TestApp, name: &str) -> Agent {
    let (owner, character_id) = player(app, name).await;
    let body = json_of(
        post(
            app,
            "/api/agent/register",
            Some(&owner),
            json!({ "characterId": character_id }),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(body["characterId"], character_id.as_str());
    Agent {
        owner,
        character_id,
        agent_id: body["agentId"].as_str().unwrap().to_owned(),
        token: body["token"].as_str().unwrap().to_owned(),
    }
}

/// The agent's socket, past `player:sync`, the first `world:update` and the `agent:goal` the
/// server sends on entry (returned).
async fn connect(app: &TestApp, agent: &Agent) -> (WsClient, Value) {
    let (mut ws, sync) = enter(app, &agent.token).await;
    assert_eq!(sync["id"], agent.character_id.as_str());
    let goal = ws.expect_type("agent:goal").await;
    assert_eq!(goal["data"]["agentId"], agent.agent_id.as_str());
    (ws, goal["data"].clone())
}

async fn tick(app: &TestApp) -> u64 {
    json_of(get(app, "/status", None).await, 200).await["tick"]["number"]
        .as_u64()
        .unwrap()
}

/// Waits (with a deadline) until the world has run `ticks` more ticks.
async fn ticks_pass(app: &TestApp, ticks: u64) {
    let until = tick(app).await + ticks;
    let deadline = Instant::now() + Duration::from_secs(10);
    while tick(app).await < until {
        assert!(Instant::now() < deadline, "the world stopped ticking");
        app.pass_time().await;
    }
}

async fn tile(app: &TestApp, agent: &Agent) -> (i64, i64) {
    let body = json_of(
        get(
            app,
            &format!("/api/characters/{}/position", agent.character_id),
            Some(&agent.owner),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(body["online"], true);
    (
        body["tile"]["x"].as_i64().unwrap(),
        body["tile"]["z"].as_i64().unwrap(),
    )
}

both_databases!(
    an_agent_is_registered_for_one_of_the_accounts_characters_or_a_new_one,
    |db| an_agent_is_registered_for_one_of_the_accounts_characters_or_a_new_one(db)
);

async fn an_agent_is_registered_for_one_of_the_accounts_characters_or_a_new_one(db: FreshDatabase) {
    let app = TestApp::spawn_with(on(db)).await;
    let bot = agent(&app, "Owned").await;
    let mapping = json_of(
        get(
            &app,
            &format!("/api/agents/mapping/{}", bot.agent_id),
            Some(&bot.owner),
        )
        .await,
        200,
    )
    .await;
    let account = json_of(get(&app, "/api/v1/player", Some(&bot.owner)).await, 200).await["player"]
        ["accountId"]
        .clone();
    assert_eq!(
        mapping,
        json!({"agentId": bot.agent_id, "characterId": bot.character_id,
               "accountId": account, "name": "Owned"})
    );

    // By name: a new character of the same account; the owner's active character stays.
    let created = json_of(
        post(
            &app,
            "/api/agent/register",
            Some(&bot.owner),
            json!({"name": "Helper Bot"}),
        )
        .await,
        201,
    )
    .await;
    assert_ne!(created["characterId"], bot.character_id.as_str());
    assert!(created["token"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(created["expiresAt"].as_str().is_some());
    let me = json_of(get(&app, "/api/v1/player", Some(&bot.owner)).await, 200).await;
    assert_eq!(me["player"]["id"], bot.character_id.as_str());
    let listed = json_of(get(&app, "/api/agent", Some(&bot.owner)).await, 200).await;
    let names: Vec<&str> = listed["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Owned", "Helper Bot"]);
    assert_eq!(listed["agents"][0]["connected"], false);
    assert_eq!(listed["agents"][0]["paused"], false);

    // Registering again keeps the agent and rotates its token: the old one is refused.
    let again = json_of(
        post(
            &app,
            "/api/agent/register",
            Some(&bot.owner),
            json!({"characterId": bot.character_id}),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(again["agentId"], bot.agent_id.as_str());
    assert_error(
        get(&app, "/api/agent", Some(&bot.token)).await,
        401,
        "unauthorized",
    )
    .await;
    let fresh = again["token"].as_str().unwrap();
    json_of(get(&app, "/api/agent", Some(fresh)).await, 200).await;
}

both_databases!(
    registration_refuses_each_bad_field_a_missing_token_and_a_foreign_character,
    |db| registration_refuses_each_bad_field_a_missing_token_and_a_foreign_character(db)
);

async fn registration_refuses_each_bad_field_a_missing_token_and_a_foreign_character(
    db: FreshDatabase,
) {
    let app = TestApp::spawn_with(on(db)).await;
    let (owner, _) = player(&app, "Regger").await;
    let (_, foreign) = player(&app, "Stranger").await;
    for body in [
        json!({}),
        json!({"characterId": "x", "name": "Both"}),
        json!({"characterId": 5}),
        json!({"characterId": ""}),
        json!({"characterId": ["x"]}),
        json!({"name": 7}),
        json!({"name": "bad!!name"}),
        json!({"name": " Spaced"}),
        json!({"name": "much too long a name"}),
        json!(["name"]),
    ] {
        let response = post(&app, "/api/agent/register", Some(&owner), body.clone()).await;
        assert_error(response, 400, "bad_request").await;
    }
    let response = post(&app, "/api/agent/register", None, json!({"name": "Nobody"})).await;
    assert_error(response, 401, "unauthorized").await;
    let response = post(
        &app,
        "/api/agent/register",
        Some(&owner),
        json!({"characterId": foreign}),
    )
    .await;
    assert_error(response, 404, "not_found").await;
    let response = post(
        &app,
        "/api/agent/register",
        Some(&owner),
        json!({"characterId": "no-such-character"}),
    )
    .await;
    assert_error(response, 404, "not_found").await;
    // A taken name is a conflict, as for any new character.
    let response = post(
        &app,
        "/api/agent/register",
        Some(&owner),
        json!({"name": "stranger"}),
    )
    .await;
    assert_error(response, 409, "conflict").await;
}

#[tokio::test]
async fn an_agent_token_opens_its_own_socket_and_agent_routes_and_nothing_else() {
    let app = TestApp::spawn().await;
    let bot = agent(&app, "Scoped").await;
    // The owner's second character, and its own agent.
    let second = json_of(
        post(
            &app,
            "/api/agent/register",
            Some(&bot.owner),
            json!({"name": "Second"}),
        )
        .await,
        201,
    )
    .await;
    let second_id = second["agentId"].as_str().unwrap();

    for path in ["/api/v1/player", "/api/character", "/api/v1/world"] {
        assert_error(get(&app, path, Some(&bot.token)).await, 403, "forbidden").await;
    }
    for (path, body) in [
        ("/api/agent/register", json!({"name": "Sneaky"})),
        ("/api/character", json!({"name": "Sneaky"})),
        ("/api/auth/refresh", json!({})),
    ] {
        let response = post(&app, path, Some(&bot.token), body).await;
        assert_error(response, 403, "forbidden").await;
    }
    let path = format!("/api/characters/{}/position", bot.character_id);
    assert_error(get(&app, &path, Some(&bot.token)).await, 403, "forbidden").await;

    // Its own agent routes answer; another agent's, even of the same account, do not.
    let own = format!("/api/agents/{}/goal", bot.agent_id);
    json_of(get(&app, &own, Some(&bot.token)).await, 200).await;
    let other = format!("/api/agents/{second_id}/goal");
    assert_error(get(&app, &other, Some(&bot.token)).await, 403, "forbidden").await;
    let listed = json_of(get(&app, "/api/agent", Some(&bot.token)).await, 200).await;
    assert_eq!(listed["agents"].as_array().unwrap().len(), 1);
    assert_eq!(listed["agents"][0]["agentId"], bot.agent_id.as_str());

    // The socket: its own character only.
    let refused = WsClient::connect(
        &app,
        &format!(
            "token={}&characterId={}",
            bot.token,
            second["characterId"].as_str().unwrap()
        ),
    )
    .await;
    assert_eq!(refused.err(), Some(403));
    let (ws, _) = connect(&app, &bot).await;
    ws.close().await;

    // Deleting the character removes the agent and so revokes its token.
    let response = app
        .client
        .delete(app.url(&format!("/api/character/{}", bot.character_id)))
        .bearer_auth(&bot.owner)
        .send()
        .await
        .unwrap();
    json_of(response, 200).await;
    assert_error(get(&app, &own, Some(&bot.token)).await, 401, "unauthorized").await;
    assert_eq!(
        WsClient::connect(&app, &format!("token={}", bot.token))
            .await
            .err(),
        Some(401)
    );
}

#[tokio::test]
async fn an_agent_never_becomes_admin_by_code_or_by_its_owners_role() {
    const CODE: &str = "agents-never-admin";
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("ADMIN_CODE", CODE.into()),
            ("DISABLE_RATE_LIMIT", "false".into()),
            ("RATE_LIMIT_WINDOW_SECS", "6000".into()),
        ],
        ..Default::default()
    })
    .await;
    let bot = agent(&app, "NoCrown").await;
    // Even an admin account's agent is not an admin.
    let owner: Value = json_of(get(&app, "/api/v1/player", Some(&bot.owner)).await, 200).await;
    app.store()
        .users()
        .set_roles(
            owner["player"]["accountId"].as_str().unwrap(),
            &["admin".into()],
        )
        .await
        .unwrap();
    let (mut ws, _) = connect(&app, &bot).await;
    let refused =
        |code: &'static str| move |m: &Value| m["type"] == "error" && m["data"]["ref"] == code;
    // The right code, twelve times: more than the address's ten authentication attempts, were
    // they counted.
    for i in 0..12 {
        let reference = format!("admin-{i}");
        ws.send(chat(format!("/admin {CODE}")), Some(json!(reference)))
            .await;
        let error = ws
            .expect("the refusal", |m| {
                m["type"] == "error" && m["data"]["ref"] == reference.as_str()
            })
            .await;
        assert_eq!(error["data"]["code"], "forbidden", "{error}");
    }
    ws.send(chat("/give logs 1"), Some(json!("give"))).await;
    let error = ws.expect("/give refused", refused("give")).await;
    assert_eq!(error["data"]["code"], "forbidden", "{error}");
    // No attempt was counted: the address may still sign up.
    let signup = app
        .client
        .post(app.url("/api/auth/guest"))
        .send()
        .await
        .unwrap();
    assert_eq!(signup.status(), 201);
    // The admin routes refuse the agent's token (the owner's own token is an admin's).
    assert_error(
        get(&app, "/api/admin/economy", Some(&bot.token)).await,
        403,
        "forbidden",
    )
    .await;
    let kick = json!({"characterId": bot.character_id});
    assert_error(
        post(&app, "/api/admin/kick", Some(&bot.token), kick.clone()).await,
        403,
        "forbidden",
    )
    .await;
    json_of(get(&app, "/api/admin/economy", Some(&bot.owner)).await, 200).await;
    ws.close().await;
}

both_databases!(
    every_agent_route_answers_its_owner_and_refuses_others_and_unknown_ids,
    |db| every_agent_route_answers_its_owner_and_refuses_others_and_unknown_ids(db)
);

async fn every_agent_route_answers_its_owner_and_refuses_others_and_unknown_ids(db: FreshDatabase) {
    let app = TestApp::spawn_with(on(db)).await;
    let bot = agent(&app, "Routed").await;
    let (stranger, _) = player(&app, "Outsider").await;
    let id = bot.agent_id.as_str();
    let routes: Vec<(&str, String, Option<Value>, u16)> = vec![
        ("GET", format!("/api/agents/{id}/goal"), None, 200),
        (
            "POST",
            format!("/api/agents/{id}/goal"),
            Some(json!({"kind": "idle"})),
            200,
        ),
        ("POST", format!("/api/agents/{id}/goal/stop"), None, 200),
        ("POST", format!("/api/agents/{id}/goal/resume"), None, 200),
        (
            "POST",
            format!("/api/agents/{id}/message"),
            Some(json!({"text": "hello"})),
            202,
        ),
        ("GET", format!("/api/agents/{id}/quick-actions"), None, 200),
        ("GET", format!("/api/agents/mapping/{id}"), None, 200),
        ("GET", format!("/api/agent/{id}/decisions"), None, 200),
    ];
    for (method, path, body, ok) in &routes {
        let call = |token: Option<String>, path: String| {
            let mut request = match *method {
                "GET" => app.client.get(app.url(&path)),
                _ => app
                    .client
                    .post(app.url(&path))
                    .json(body.as_ref().unwrap_or(&json!({}))),
            };
            if let Some(token) = token {
                request = request.bearer_auth(token);
            }
            async move { request.send().await.unwrap() }
        };
        let response = call(Some(bot.owner.clone()), path.clone()).await;
        assert_eq!(response.status().as_u16(), *ok, "{method} {path}");
        let response = call(None, path.clone()).await;
        assert_error(response, 401, "unauthorized").await;
        let response = call(Some(stranger.clone()), path.clone()).await;
        assert_error(response, 403, "forbidden").await;
        let unknown = path.replace(id, "no-such-agent");
        let response = call(Some(bot.owner.clone()), unknown).await;
        assert_error(response, 404, "not_found").await;
    }
    assert_error(get(&app, "/api/agent", None).await, 401, "unauthorized").await;
    let mine = json_of(get(&app, "/api/agent", Some(&stranger)).await, 200).await;
    assert_eq!(mine["agents"], json!([]));
}

#[tokio::test]
async fn goals_are_checked_by_kind_target_and_content() {
    let app = TestApp::spawn().await;
    let bot = agent(&app, "Goalie").await;
    let path = format!("/api/agents/{}/goal", bot.agent_id);
    let empty = json_of(get(&app, &path, Some(&bot.owner)).await, 200).await;
    assert_eq!(
        empty,
        json!({"agentId": bot.agent_id, "characterId": bot.character_id, "goal": null, "paused": false})
    );
    for body in [
        json!({"kind": "dance"}),
        json!({"kind": "skill", "target": {"skill": "juggling", "level": 5}}),
        json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 0}}),
        json!({"kind": "gather", "target": {"itemId": "no_such_item", "quantity": 5}}),
        json!({"kind": "gather", "target": {"itemId": "logs"}}),
        json!({"kind": "combat", "target": {"npcId": "no_such_npc"}}),
        json!({"kind": "explore", "target": {"areaId": "atlantis"}}),
        json!({"kind": "earn", "target": {"coins": 0}}),
        json!({"kind": "follow", "target": ["Bob"]}),
        json!({"target": {}}),
    ] {
        let response = post(&app, &path, Some(&bot.owner), body.clone()).await;
        let error = assert_error(response, 400, "bad_request").await;
        assert!(!error["message"].as_str().unwrap().is_empty(), "{body}");
    }
    let set = json_of(
        post(
            &app,
            &path,
            Some(&bot.owner),
            json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 5}}),
        )
        .await,
        200,
    )
    .await;
    let goal = &set["goal"];
    assert_eq!(goal["kind"], "skill");
    assert_eq!(goal["description"], "Train woodcutting to level 5");
    assert_eq!(goal["target"], json!({"skill": "woodcutting", "level": 5}));
    assert!(goal["id"].as_str().is_some() && goal["setAt"].as_str().is_some());
    let now = json_of(get(&app, &path, Some(&bot.owner)).await, 200).await;
    assert_eq!(now["goal"]["id"], goal["id"]);
}

#[tokio::test]
async fn stop_cancels_the_walk_on_the_server_within_a_tick_and_resume_restores_the_agent() {
    let app = TestApp::spawn().await;
    let bot = agent(&app, "Walker").await;
    let (mut ws, entry) = connect(&app, &bot).await;
    assert_eq!(entry["goal"], Value::Null);
    assert_eq!(entry["paused"], false);
    let goal_path = format!("/api/agents/{}/goal", bot.agent_id);

    // A goal set over REST reaches the agent.
    let set = json_of(
        post(
            &app,
            &goal_path,
            Some(&bot.owner),
            json!({"kind": "explore", "description": "look around"}),
        )
        .await,
        200,
    )
    .await;
    let relayed = ws.expect_type("agent:goal").await;
    assert_eq!(relayed["data"]["goal"]["id"], set["goal"]["id"]);
    assert_eq!(relayed["data"]["goal"]["description"], "look around");

    // A long walk (2 tiles a tick), stopped once it is under way.
    let start = tile(&app, &bot).await;
    ws.send(walk_to(start.0 + 60, start.1), None).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while tile(&app, &bot).await == start {
        assert!(Instant::now() < deadline, "the walk never started");
        app.pass_time().await;
    }
    let stopped = json_of(
        post(
            &app,
            &format!("/api/agents/{}/goal/stop", bot.agent_id),
            Some(&bot.owner),
            json!({}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(stopped, json!({"paused": true}));
    let at_stop = ticks_after_stop(&app, &bot).await;
    let event = ws.expect_type("agent:stop").await;
    assert_eq!(
        event["data"],
        json!({"agentId": bot.agent_id, "paused": true})
    );
    // The agent never sent anything more; the server cleared the path itself.
    ticks_pass(&app, 6).await;
    assert_eq!(tile(&app, &bot).await, at_stop, "no step after the stop");
    assert!(
        at_stop.0 - start.0 < 60,
        "stopped on the way, not at the end"
    );

    // Paused: a new goal is refused, owner messages still reach the agent.
    let response = post(&app, &goal_path, Some(&bot.owner), json!({"kind": "bank"})).await;
    assert_error(response, 409, "conflict").await;
    let state = json_of(get(&app, &goal_path, Some(&bot.owner)).await, 200).await;
    assert_eq!(state["paused"], true);
    assert_eq!(state["goal"]["id"], set["goal"]["id"], "the goal is kept");
    let response = post(
        &app,
        &format!("/api/agents/{}/message", bot.agent_id),
        Some(&bot.owner),
        json!({"text": "  chopTree res-1 \u{7}"}),
    )
    .await;
    assert_eq!(json_of(response, 202).await, json!({"accepted": true}));
    let message = ws.expect_type("agent:message").await;
    assert_eq!(message["data"]["text"], "chopTree res-1");
    assert_eq!(message["data"]["paused"], true);
    assert!(message["data"]["ts"].as_i64().is_some());
    let response = post(
        &app,
        &format!("/api/agents/{}/message", bot.agent_id),
        Some(&bot.owner),
        json!({"text": "   "}),
    )
    .await;
    assert_error(response, 400, "bad_request").await;

    // Resume: the agent is told, and goals are accepted again.
    let resumed = json_of(
        post(
            &app,
            &format!("/api/agents/{}/goal/resume", bot.agent_id),
            Some(&bot.owner),
            json!({}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(resumed, json!({"paused": false}));
    let event = ws.expect_type("agent:resume").await;
    assert_eq!(event["data"]["paused"], false);
    let set = json_of(
        post(&app, &goal_path, Some(&bot.owner), json!({"kind": "bank"})).await,
        200,
    )
    .await;
    assert_eq!(set["goal"]["kind"], "bank");
    let relayed = ws.expect_type("agent:goal").await;
    assert_eq!(relayed["data"]["paused"], false);
    // The agent walks again once it asks to.
    let here = tile(&app, &bot).await;
    ws.send(walk_to(here.0 - 3, here.1), None).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while tile(&app, &bot).await == here {
        assert!(Instant::now() < deadline, "the agent could not walk again");
        app.pass_time().await;
    }
}

/// The tile once the stop has been applied: the tick after the stop has run.
async fn ticks_after_stop(app: &TestApp, agent: &Agent) -> (i64, i64) {
    ticks_pass(app, 2).await;
    tile(app, agent).await
}

both_databases!(
    the_status_an_agent_reports_shows_in_its_owners_routes,
    |db| the_status_an_agent_reports_shows_in_its_owners_routes(db)
);

async fn the_status_an_agent_reports_shows_in_its_owners_routes(db: FreshDatabase) {
    let app = TestApp::spawn_with(on(db)).await;
    let bot = agent(&app, "Reporter").await;
    let (mut ws, _) = connect(&app, &bot).await;
    let goal_path = format!("/api/agents/{}/goal", bot.agent_id);

    // With no goal, the agent picks its own: it becomes the goal, set by the agent.
    let logs = || ReportedGoal {
        id: None,
        kind: "gather".into(),
        description: None,
        target: Some(json!({"itemId": "logs", "quantity": 10})),
    };
    let first = AgentStatus {
        goal: Some(logs()),
        progress: Some(0.2),
        last_actions: vec![ActionReport {
            action: "chopTree".into(),
            outcome: "accepted".into(),
            code: None,
            ts: None,
        }],
        decisions: vec![DecisionReport {
            action: "chopTree".into(),
            goal: Some("gather logs".into()),
            reason: Some("a tree is near".into()),
            brain: Some("planner".into()),
            outcome: Some("accepted".into()),
            ts: Some(1),
        }],
        tokens_spent: Some(12),
        model: Some(wayfarer_protocol::agent::ModelReport {
            calls: 3,
            decisions: 2,
            fallbacks: [("timeout".to_owned(), 1)].into_iter().collect(),
            input_tokens: 2_400,
            output_tokens: 40,
            cached_tokens: 1_200,
            mean_latency_ms: Some(900),
            p50_latency_ms: Some(800),
            p95_latency_ms: Some(1_900),
            tokens_per_decision: Some(813),
        }),
        ..AgentStatus::default()
    };
    ws.send(ClientMessage::AgentStatus(Box::new(first)), None)
        .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let state = loop {
        let state = json_of(get(&app, &goal_path, Some(&bot.owner)).await, 200).await;
        if !state["goal"].is_null() {
            break state;
        }
        assert!(Instant::now() < deadline, "the reported goal never showed");
        app.pass_time().await;
    };
    assert_eq!(state["goal"]["kind"], "gather");
    assert_eq!(state["goal"]["setBy"], "agent");
    assert_eq!(state["goal"]["progress"], 0.2);
    let decisions = json_of(
        get(
            &app,
            &format!("/api/agent/{}/decisions", bot.agent_id),
            Some(&bot.owner),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(decisions["decisions"].as_array().unwrap().len(), 1);
    assert_eq!(decisions["decisions"][0]["action"], "chopTree");
    assert_eq!(decisions["decisions"][0]["reason"], "a tree is near");
    let listed = json_of(get(&app, "/api/agent", Some(&bot.owner)).await, 200).await;
    let me = &listed["agents"][0];
    assert_eq!(me["connected"], true);
    assert_eq!(me["status"]["tokensSpent"], 12);
    // The model's fallbacks, latency and tokens, for the dashboard.
    assert_eq!(me["status"]["model"]["fallbacks"]["timeout"], 1);
    assert_eq!(me["status"]["model"]["meanLatencyMs"], 900);
    assert_eq!(me["status"]["model"]["inputTokens"], 2_400);
    assert_eq!(me["status"]["model"]["p50LatencyMs"], 800);
    assert_eq!(me["status"]["model"]["p95LatencyMs"], 1_900);
    assert_eq!(me["status"]["model"]["tokensPerDecision"], 813);
    assert_eq!(me["status"]["model"]["calls"], 3);
    assert_eq!(me["status"]["model"]["decisions"], 2);
    assert_eq!(me["status"]["lastActions"][0]["action"], "chopTree");

    // Progress on the same goal (named by its id) updates it without replacing it.
    let goal_id = state["goal"]["id"].clone();
    let progress = AgentStatus {
        goal: Some(ReportedGoal {
            id: Some(to_id(&goal_id)),
            ..logs()
        }),
        progress: Some(0.6),
        ..AgentStatus::default()
    };
    ws.send(ClientMessage::AgentStatus(Box::new(progress)), None)
        .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = json_of(get(&app, &goal_path, Some(&bot.owner)).await, 200).await;
        if state["goal"]["progress"] == 0.6 {
            assert_eq!(state["goal"]["id"], goal_id);
            break;
        }
        assert!(Instant::now() < deadline, "progress never updated");
        app.pass_time().await;
    }

    // Reports are checked strictly; a bad one changes nothing and the socket stays.
    for (data, what) in [
        (json!({"progress": 1.5}), "progress"),
        (
            json!({"lastActions": [{"action": "chopTree", "outcome": "great"}]}),
            "outcome",
        ),
        (
            json!({"decisions": vec![json!({"action": "x"}); 21]}),
            "decisions",
        ),
        (json!({"decisions": [{"action": "x".repeat(65)}]}), "action"),
        (json!({"goal": {"kind": "dance"}}), "goal"),
        (json!({"tokensSpent": -1}), "tokens"),
        (json!([1]), "array"),
    ] {
        ws.send_raw("agent:status", data, Some(json!(what))).await;
        let error = ws.expect_type("error").await;
        assert_eq!(error["data"]["code"], "invalid_message", "{what}");
        assert_eq!(error["data"]["ref"], what);
    }

    // Only an agent connection may report.
    let (mut owner_ws, _) = enter(&app, &player(&app, "Human").await.0).await;
    let report = AgentStatus {
        progress: Some(0.5),
        ..AgentStatus::default()
    };
    owner_ws
        .send(ClientMessage::AgentStatus(Box::new(report)), Some(json!(1)))
        .await;
    let error = owner_ws.expect_type("error").await;
    assert_eq!(error["data"]["code"], "forbidden");
}

both_databases!(
    goal_pause_and_waiting_messages_survive_a_reconnect_and_a_restart,
    |db| goal_pause_and_waiting_messages_survive_a_reconnect_and_a_restart(db)
);

async fn goal_pause_and_waiting_messages_survive_a_reconnect_and_a_restart(db: FreshDatabase) {
    let app = TestApp::spawn_with(on(db)).await;
    let bot = agent(&app, "Sticky").await;
    let goal_path = format!("/api/agents/{}/goal", bot.agent_id);
    json_of(
        post(
            &app,
            &goal_path,
            Some(&bot.owner),
            json!({"kind": "earn", "target": {"coins": 100}}),
        )
        .await,
        200,
    )
    .await;
    json_of(
        post(
            &app,
            &format!("/api/agents/{}/goal/stop", bot.agent_id),
            Some(&bot.owner),
            json!({}),
        )
        .await,
        200,
    )
    .await;
    // Sent while the agent is away: delivered when it enters.
    let response = post(
        &app,
        &format!("/api/agents/{}/message", bot.agent_id),
        Some(&bot.owner),
        json!({"text": "bankDeposit all"}),
    )
    .await;
    json_of(response, 202).await;
    let (mut ws, entry) = connect(&app, &bot).await;
    assert_eq!(entry["paused"], true);
    assert_eq!(entry["goal"]["kind"], "earn");
    let waiting = ws.expect_type("agent:message").await;
    assert_eq!(waiting["data"]["text"], "bankDeposit all");
    ws.close().await;

    let (app, _stopped) = app.stop().await.restart().await;
    let (ws, entry) = connect(&app, &bot).await;
    assert_eq!(entry["paused"], true);
    assert_eq!(entry["goal"]["target"], json!({"coins": 100}));
    ws.close().await;
}

#[tokio::test]
async fn quick_actions_follow_what_the_character_holds_and_has_around_it() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", "qa".into())],
        ..Default::default()
    })
    .await;
    let bot = agent(&app, "Quick").await;
    let path = format!("/api/agents/{}/quick-actions", bot.agent_id);
    let offline = json_of(get(&app, &path, Some(&bot.owner)).await, 200).await;
    assert_eq!(
        offline["actions"],
        json!([{"id": "idle", "label": "Stay idle", "command": "idle"}])
    );

    // An agent has no admin rights: the owner gives the logs in a session of its own on the
    // agent's character first.
    let mut owner = WsClient::connect(
        &app,
        &format!("token={}&characterId={}", bot.owner, bot.character_id),
    )
    .await
    .unwrap();
    let slot = admin_give(&mut owner, "qa", "logs", 1).await;
    owner.close().await;
    let (_ws, _) = connect(&app, &bot).await;
    let actions = json_of(get(&app, &path, Some(&bot.token)).await, 200).await["actions"]
        .as_array()
        .unwrap()
        .clone();
    let commands: Vec<&str> = actions
        .iter()
        .map(|a| a["command"].as_str().unwrap())
        .collect();
    assert!(
        commands.contains(&format!("lightFire {slot}").as_str()),
        "{commands:?}"
    );
    assert!(commands.contains(&"stopMovement"), "{commands:?}");
    let mut ids: Vec<&str> = actions.iter().map(|a| a["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), actions.len(), "ids are unique");
    assert!(actions
        .iter()
        .all(|a| !a["label"].as_str().unwrap().is_empty()));
}

#[tokio::test]
async fn agent_routes_count_against_the_accounts_rest_limit() {
    // Each request comes from an address of its own (through a trusted proxy), so only the
    // account's limit binds; the long window gives nothing back while the test runs.
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("DISABLE_RATE_LIMIT", "false".into()),
            ("RATE_LIMIT_WINDOW_SECS", "6000".into()),
            ("TRUSTED_PROXIES", "127.0.0.1".into()),
        ],
        ..Default::default()
    })
    .await;
    let bot = agent(&app, "Limited").await;
    let goal = format!("/api/agents/{}/goal", bot.agent_id);
    let mut sent = 0u32;
    let mut get_goal = |token: String| {
        sent += 1;
        let address = format!("10.1.{}.{}", sent / 256, sent % 256);
        let request = app
            .client
            .get(app.url(&goal))
            .bearer_auth(token)
            .header("x-forwarded-for", address);
        async move { request.send().await.unwrap() }
    };
    // What the owner used so far (its account, its character, the registration) counts too.
    let first = get_goal(bot.token.clone()).await;
    assert_eq!(first.status(), 200);
    let remaining: u32 = first.headers()["ratelimit-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        remaining < 99,
        "the owner's requests were counted: {remaining}"
    );
    for _ in 0..remaining {
        let response = get_goal(bot.owner.clone()).await;
        assert_eq!(response.status(), 200);
    }
    // The agent's token and its owner's share the account's window.
    assert_error(get_goal(bot.token.clone()).await, 429, "rate_limited").await;
    assert_error(get_goal(bot.owner.clone()).await, 429, "rate_limited").await;
}

#[tokio::test]
async fn an_in_process_agent_registers_without_http_and_plays_over_its_socket() {
    let app = TestApp::spawn().await;
    let account = app
        .store()
        .users()
        .create(&wayfarer_store::NewUser::default())
        .await
        .unwrap();
    let (mapping, registered) = wayfarer_server::agents::registration::register_new_character(
        app.state(),
        &account.id,
        &wayfarer_server::characters::CharacterName::parse(
            "Embedded",
            wayfarer_server::characters::Namer::Player,
        )
        .unwrap(),
        None,
    )
    .await
    .unwrap();
    assert_eq!(registered.agent_id, mapping.agent_id);
    let bot = Agent {
        owner: String::new(),
        character_id: registered.character_id,
        agent_id: registered.agent_id,
        token: registered.token,
    };
    let (ws, entry) = connect(&app, &bot).await;
    assert_eq!(entry["goal"], Value::Null);
    ws.close().await;
}
