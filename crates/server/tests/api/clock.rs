//! The test clock: a `TICK_MS=manual` world ticks only when stepped, in process
//! (`RunningServer::clock`) or over HTTP (`POST /__test/ticks`), and answers its inputs between
//! steps.

use serde_json::{json, Value};
use wayfarer_host::world_thread::{StepError, MAX_TICKS_PER_STEP};

use crate::support::messages::walk_to;
use crate::support::{assert_error, enter, player, TestApp, WsClient};

async fn status_tick(app: &TestApp) -> u64 {
    let status: Value = app.get("/status").await.json().await.unwrap();
    status["tick"]["number"].as_u64().unwrap()
}

async fn step_route(app: &TestApp, body: Value) -> reqwest::Response {
    app.client
        .post(app.url("/__test/ticks"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn n_steps_advance_exactly_n_ticks() {
    let app = TestApp::spawn_manual().await;
    let clock = app.clock();
    assert_eq!(status_tick(&app).await, 0, "nothing ticks on its own");
    assert_eq!(clock.step(0).await, Ok(0));
    assert_eq!(clock.step(5).await, Ok(5));
    assert_eq!(status_tick(&app).await, 5);
    assert_eq!(clock.step(1).await, Ok(6));
    assert_eq!(clock.step(1).await, Ok(7));
    assert_eq!(clock.step(0).await, Ok(7));
    assert_eq!(status_tick(&app).await, 7);

    // A player's updates carry the stepped ticks: it enters between steps, and the next step's
    // update shows it everything in view.
    let (token, id) = player(&app, "Stepper").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    let sync = ws.expect_type("player:sync").await;
    app.in_world(&id).await;
    assert_eq!(clock.step(1).await, Ok(8));
    let update = ws.expect_type("world:update").await;
    assert_eq!(update["data"]["tick"], 8);

    // A command queued before a step is in that step's tick: the walk's first steps show in
    // tick 9's update, none before.
    let tile = &sync["data"]["tile"];
    let target = walk_to(tile["x"].as_i64().unwrap() + 3, tile["z"].as_i64().unwrap());
    ws.send(target, None).await;
    ws.barrier().await;
    assert_eq!(clock.step(1).await, Ok(9));
    let moved = ws
        .expect("the first steps of the walk", |m| {
            m["type"] == "world:update"
                && m["data"]["moved"]
                    .as_array()
                    .is_some_and(|moves| moves.iter().any(|e| e["id"] == id.as_str()))
        })
        .await;
    assert_eq!(moved["data"]["tick"], 9);
    assert_eq!(status_tick(&app).await, 9);
}

#[tokio::test]
async fn a_manual_world_answers_between_steps() {
    let app = TestApp::spawn_manual().await;
    let clock = app.clock();
    let (token, id) = player(&app, "Patient").await;
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    ws.expect_type("player:sync").await;
    assert_eq!(clock.step(2).await, Ok(2));
    // Nobody steps from here: REST answered from the world's live record, a sync on the socket.
    let character = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(character.status(), 200);
    let body: Value = character.json().await.unwrap();
    assert_eq!(body["player"]["id"], id.as_str(), "{body}");
    let sync = ws.barrier().await;
    assert_eq!(sync["data"]["id"], id.as_str());
    assert_eq!(status_tick(&app).await, 2, "answering took no tick");
}

#[tokio::test]
async fn the_step_route_runs_up_to_its_bound_and_refuses_beyond() {
    let app = TestApp::spawn_manual().await;
    let last_allowed = MAX_TICKS_PER_STEP;
    let response = step_route(&app, json!({"ticks": last_allowed})).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["tick"], u64::from(last_allowed));
    assert_eq!(status_tick(&app).await, u64::from(last_allowed));

    let refused = step_route(&app, json!({"ticks": last_allowed + 1})).await;
    let body = assert_error(refused, 400, "bad_request").await;
    assert!(body["message"].as_str().unwrap().contains("1000"), "{body}");
    for bad in [
        json!({"ticks": -1}),
        json!({"ticks": 1.5}),
        json!({"ticks": "3"}),
        json!({}),
        json!({"ticks": 1, "extra": true}),
    ] {
        assert_error(step_route(&app, bad.clone()).await, 400, "bad_request").await;
    }
    let zero: Value = step_route(&app, json!({"ticks": 0}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(zero["tick"], u64::from(last_allowed), "nothing refused ran");
    assert_eq!(
        app.clock().step(last_allowed + 1).await,
        Err(StepError::TooMany(last_allowed + 1))
    );
}

#[tokio::test]
async fn a_timed_world_is_not_stepped() {
    let app = TestApp::spawn_timed().await;
    assert_eq!(app.clock().step(1).await, Err(StepError::NotManual));
    let refused = step_route(&app, json!({"ticks": 1})).await;
    let body = assert_error(refused, 409, "conflict").await;
    assert!(
        body["message"].as_str().unwrap().contains("TICK_MS=manual"),
        "{body}"
    );
}

#[tokio::test]
async fn a_leave_is_saved_by_the_next_step() {
    let app = TestApp::spawn_manual().await;
    let (token, id) = player(&app, "Leaving").await;
    let (ws, _) = enter(&app, &token).await;
    // The close handshake completes once the final save is written: it waits on the steps.
    let closing = tokio::spawn(ws.close());
    // The world takes a leaving player out in the tick after the leave, and saves it then:
    // without a step the session stays open.
    let sessions = app.store().sessions().for_character(&id).await.unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        sessions[0].close_reason, None,
        "nothing saved before a step"
    );
    app.left(&id).await;
    let sessions = app.store().sessions().for_character(&id).await.unwrap();
    assert_eq!(sessions[0].close_reason.as_deref(), Some("logout"));
    closing.await.unwrap();
}
