//! Characters over REST (CONTRACT.md section 2).

use serde_json::{json, Value};

use crate::auth::guest;
use crate::support::{assert_error, enter, player, TestApp};

async fn post_player(app: &TestApp, token: &str, name: &str) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/player"))
        .bearer_auth(token)
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_new_character_has_the_record_defaults_the_starter_kit_and_the_spawn_point() {
    let app = TestApp::spawn().await;
    let (token, _) = guest(&app).await;
    let missing = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_error(missing, 404, "not_found").await;

    let created = post_player(&app, &token, "Rowan").await;
    assert_eq!(created.status(), 201);
    let player: Value = created.json().await.unwrap();
    let p = &player["player"];
    for key in [
        "id",
        "accountId",
        "name",
        "combatLevel",
        "health",
        "maxHealth",
        "coins",
        "position",
        "skills",
        "inventory",
        "equipment",
        "online",
    ] {
        assert!(p.get(key).is_some(), "{key} in {p}");
    }
    assert_eq!(p["name"], "Rowan");
    assert_eq!(p["combatLevel"], 3);
    // Health from Constitution (level 10), not the schema's old default of 100.
    assert_eq!(p["health"], 10);
    assert_eq!(p["maxHealth"], 10);
    assert_eq!(p["online"], false);
    assert_eq!(p["skills"]["constitution"]["level"], 10);
    assert_eq!(p["skills"]["woodcutting"], json!({"level": 1, "xp": 0}));
    let content = wayfarer_content::load_bundled();
    let spawn = content.spawn_point();
    assert_eq!(p["position"]["x"].as_f64().unwrap(), spawn.x);
    assert_eq!(p["position"]["z"].as_f64().unwrap(), spawn.z);
    let items: Vec<&str> = p["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["itemId"].as_str().unwrap())
        .collect();
    for kit in content.starter_kit() {
        assert!(
            items.contains(&kit.item_id.as_str()),
            "{} in {items:?}",
            kit.item_id
        );
    }
    assert_eq!(p["coins"], 25);
    for slot in p["inventory"].as_array().unwrap() {
        assert!(slot["slot"].as_u64().unwrap() < 28);
        assert!(slot["name"].is_string());
    }

    let again: Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(again["player"]["id"], p["id"]);

    // Posting again renames the active character (200).
    let renamed = post_player(&app, &token, "Rowan Two").await;
    assert_eq!(renamed.status(), 200);
    assert_eq!(
        renamed.json::<Value>().await.unwrap()["player"]["name"],
        "Rowan Two"
    );
}

#[tokio::test]
async fn names_follow_the_rules_and_are_unique_ignoring_case() {
    let app = TestApp::spawn().await;
    let (token, _) = guest(&app).await;
    for bad in [
        "",
        "abcdefghijklm",
        " Lead",
        "Trail ",
        "Two  Spaces",
        "under_score",
        "émile",
    ] {
        assert_error(post_player(&app, &token, bad).await, 400, "bad_request").await;
    }
    assert_eq!(
        post_player(&app, &token, "abcdefghijkl").await.status(),
        201,
        "12 characters pass"
    );
    let (other, _) = guest(&app).await;
    assert_error(
        post_player(&app, &other, "ABCDEFGHIJKL").await,
        409,
        "conflict",
    )
    .await;
}

#[tokio::test]
async fn at_most_three_characters_select_and_delete() {
    let app = TestApp::spawn().await;
    let (token, _) = guest(&app).await;
    let mut ids = Vec::new();
    for name in ["One", "Two", "Three"] {
        let response = app
            .client
            .post(app.url("/api/character"))
            .bearer_auth(&token)
            .json(&json!({"name": name}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        ids.push(
            response.json::<Value>().await.unwrap()["character"]["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let fourth = app
        .client
        .post(app.url("/api/character"))
        .bearer_auth(&token)
        .json(&json!({"name": "Four"}))
        .send()
        .await
        .unwrap();
    assert_error(fourth, 409, "conflict").await;
    let list: Value = app
        .client
        .get(app.url("/api/character"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["characters"].as_array().unwrap().len(), 3);

    let selected = app
        .client
        .post(app.url(&format!("/api/character/{}/select", ids[0])))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(selected.status(), 200);
    let active: Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(active["player"]["id"], Value::String(ids[0].clone()));

    // Another account sees 404 for these ids.
    let (stranger, _) = guest(&app).await;
    let response = app
        .client
        .delete(app.url(&format!("/api/character/{}", ids[1])))
        .bearer_auth(&stranger)
        .send()
        .await
        .unwrap();
    assert_error(response, 404, "not_found").await;
    let response = app
        .client
        .post(app.url(&format!("/api/character/{}/select", ids[1])))
        .bearer_auth(&stranger)
        .send()
        .await
        .unwrap();
    assert_error(response, 404, "not_found").await;

    let deleted = app
        .client
        .delete(app.url(&format!("/api/character/{}", ids[2])))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let list: Value = app
        .client
        .get(app.url("/api/character"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["characters"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_character_online_cannot_be_deleted() {
    let app = TestApp::spawn().await;
    let (token, id) = player(&app, "Busy").await;
    let (_ws, _) = enter(&app, &token).await;
    let deadline = std::time::Instant::now() + crate::support::WAIT;
    loop {
        let response = app
            .client
            .delete(app.url(&format!("/api/character/{id}")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        if response.status() == 409 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never reported online"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn skills_are_public_and_positions_private() {
    let app = TestApp::spawn().await;
    let (token, id) = player(&app, "Public").await;
    let skills: Value = app
        .get(&format!("/api/characters/{id}/skills"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(skills["characterId"], Value::String(id.clone()));
    assert_eq!(skills["skills"]["constitution"]["level"], 10);
    assert_eq!(skills["skills"].as_object().unwrap().len(), 17);
    assert_error(
        app.get("/api/characters/nobody/skills").await,
        404,
        "not_found",
    )
    .await;

    assert_error(
        app.get(&format!("/api/characters/{id}/position")).await,
        401,
        "unauthorized",
    )
    .await;
    let (stranger, _) = guest(&app).await;
    let response = app
        .client
        .get(app.url(&format!("/api/characters/{id}/position")))
        .bearer_auth(&stranger)
        .send()
        .await
        .unwrap();
    assert_error(response, 404, "not_found").await;
    let own: Value = app
        .client
        .get(app.url(&format!("/api/characters/{id}/position")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(own["online"], false);
    assert!(own["tile"]["x"].is_i64() && own["position"]["x"].is_number());
}

#[tokio::test]
async fn world_snapshot_counts_players_and_lists_areas() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Counter").await;
    let (_ws, _) = enter(&app, &token).await;
    let deadline = std::time::Instant::now() + crate::support::WAIT;
    loop {
        let world: Value = app
            .client
            .get(app.url("/api/v1/world"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(world["tick"].is_u64() && world["time"].is_string());
        assert!(!world["areas"].as_array().unwrap().is_empty());
        assert!(world["entities"]["npcs"].as_u64().unwrap() > 0);
        assert!(world["entities"]["resources"].as_u64().unwrap() > 0);
        if world["playersOnline"] == 1 && world["entities"]["players"] == 1 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{world}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
