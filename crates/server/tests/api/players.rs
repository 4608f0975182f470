//! `/api/player/*`: who is online (paged) and public profiles.

use std::time::{Duration, Instant};

use serde_json::Value;
use wayfarer_protocol::ws::{ClientMessage, UseRequest};

use crate::support::messages::to_slot;
use crate::support::{assert_error, enter, player, TestApp};

async fn online(app: &TestApp, query: &str) -> reqwest::Response {
    app.get(&format!("/api/player/online{query}")).await
}

/// Waits until the online list has `n` players (presence is published after the join's tick).
async fn wait_online(app: &TestApp, n: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let body: Value = online(app, "").await.json().await.unwrap();
        if body["total"] == n {
            return body;
        }
        assert!(Instant::now() < deadline, "never {n} online: {body}");
        app.pass_time().await;
    }
}

#[tokio::test]
async fn the_online_list_is_sorted_paged_and_follows_logins() {
    let app = TestApp::spawn().await;
    let mut sockets = Vec::new();
    for name in ["Carla", "alma", "Bert"] {
        let (token, _) = player(&app, name).await;
        sockets.push(enter(&app, &token).await.0);
    }
    let all = wait_online(&app, 3).await;
    let names: Vec<&str> = all["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alma", "Bert", "Carla"], "by name, any letter case");
    assert_eq!(all["players"][0]["combatLevel"], 3);
    assert_eq!(
        (all["page"].as_u64(), all["limit"].as_u64()),
        (Some(1), Some(50))
    );

    let second: Value = online(&app, "?page=2&limit=2").await.json().await.unwrap();
    assert_eq!(second["players"].as_array().unwrap().len(), 1);
    assert_eq!(second["players"][0]["name"], "Carla");
    assert_eq!(second["total"], 3);
    let beyond: Value = online(&app, "?page=9&limit=2").await.json().await.unwrap();
    assert_eq!(beyond["players"].as_array().unwrap().len(), 0);

    for bad in [
        "?limit=0",
        "?limit=101",
        "?page=0",
        "?page=abc",
        "?limit=-1",
    ] {
        assert_error(online(&app, bad).await, 400, "bad_request").await;
    }
    // Boundaries that pass.
    assert_eq!(online(&app, "?limit=100").await.status(), 200);
    assert_eq!(online(&app, "?limit=1").await.status(), 200);

    sockets.pop().unwrap().close().await;
    wait_online(&app, 2).await;
}

#[tokio::test]
async fn a_profile_is_public_live_while_online_and_reveals_nothing_private() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Famous").await;
    let offline: Value = app.get("/api/player/famous").await.json().await.unwrap();
    assert_eq!(offline["name"], "Famous");
    assert_eq!(offline["online"], false);
    assert_eq!(offline["combatLevel"], 3);
    assert_eq!(offline["skills"]["constitution"], 10);
    assert_eq!(offline["skills"].as_object().unwrap().len(), 17);
    // 16 skills at 1 and constitution at 10.
    assert_eq!(offline["totalLevel"], 16 + 10);
    assert_eq!(offline["questPoints"], 0);
    for private in ["accountId", "inventory", "position", "coins", "id"] {
        assert!(offline.get(private).is_none(), "{private} is not public");
    }

    let (_ws, _) = enter(&app, &token).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let live: Value = app.get("/api/player/FAMOUS").await.json().await.unwrap();
        if live["online"] == true {
            assert_eq!(live["totalLevel"], 26);
            break;
        }
        assert!(Instant::now() < deadline, "never shown online: {live}");
        app.pass_time().await;
    }
    assert_error(app.get("/api/player/nobody").await, 404, "not_found").await;
}

/// Buries one bone over the socket (admin `/give`): a few prayer XP.
async fn bury_a_bone(app: &TestApp, token: &str) -> crate::support::WsClient {
    let (mut ws, _) = enter(app, token).await;
    let slot = crate::support::admin_give(&mut ws, "hiscores", "bones", 1).await;
    ws.send(ClientMessage::Use(UseRequest::new(to_slot(&slot))), None)
        .await;
    ws.expect_type("skill:xp").await;
    ws
}

async fn prayer_rank(app: &TestApp, name: &str) -> Value {
    let body: Value = app
        .get(&format!("/api/player/{name}/hiscores"))
        .await
        .json()
        .await
        .unwrap();
    body["skills"]["prayer"].clone()
}

#[tokio::test]
async fn hiscores_rank_by_xp_and_equal_xp_by_who_reached_it_first() {
    let app = TestApp::spawn_with(crate::support::AppOptions {
        env: vec![("ADMIN_CODE", "hiscores".into())],
        ..Default::default()
    })
    .await;
    let (first, _) = player(&app, "Quick").await;
    let (second, _) = player(&app, "Slow").await;
    player(&app, "Idle").await;
    let quick = bury_a_bone(&app, &first).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let slow = bury_a_bone(&app, &second).await;
    // Live while online: each sees its own XP at once (the others as the store has them).
    let q = prayer_rank(&app, "quick").await;
    let s = prayer_rank(&app, "slow").await;
    assert_eq!(q["xp"], s["xp"]);
    assert!(q["xp"].as_i64().unwrap() > 0);
    // Once both are saved (logging out): the same XP, and Quick reached it first.
    quick.close().await;
    slow.close().await;
    assert_eq!(prayer_rank(&app, "quick").await["rank"], 1);
    assert_eq!(prayer_rank(&app, "slow").await["rank"], 2);
    assert_eq!(prayer_rank(&app, "idle").await["rank"], 3);
    let all: Value = app
        .get("/api/player/idle/hiscores")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(all["skills"].as_object().unwrap().len(), 17);
    assert_eq!(all["online"], false);
    assert_error(
        app.get("/api/player/nobody/hiscores").await,
        404,
        "not_found",
    )
    .await;
}
