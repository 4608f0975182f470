//! Character templates: `GET /api/template`, `GET /api/template/<id>`, and `POST /api/character`
//! with `templateId` (the template's items instead of the starter kit, its skill levels).

use serde_json::{json, Value};

use crate::support::{assert_error, TestApp, WsClient};

async fn guest(app: &TestApp) -> String {
    let body: Value = app
        .client
        .post(app.url("/api/auth/guest"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_bundled_templates_are_listed_and_each_can_be_read() {
    let app = TestApp::spawn().await;
    let list: Value = app.get("/api/template").await.json().await.unwrap();
    let templates = list["templates"].as_array().unwrap();
    let ids: Vec<&str> = templates
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    for id in ["skiller", "fighter", "merchant", "completionist"] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    for template in templates {
        assert!(template["name"].is_string() && template["description"].is_string());
        assert!(
            !template["items"].as_array().unwrap().is_empty(),
            "{template}"
        );
        assert!(template["skills"].is_object());
        assert!(template["goal"]["kind"].is_string(), "{template}");
        let one: Value = app
            .get(&format!(
                "/api/template/{}",
                template["id"].as_str().unwrap()
            ))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(&one["template"], template);
    }
    assert_error(app.get("/api/template/nope").await, 404, "not_found").await;
}

#[tokio::test]
async fn a_character_made_from_a_template_starts_with_its_items_and_levels() {
    let app = TestApp::spawn().await;
    let token = guest(&app).await;
    let template: Value = app.get("/api/template/fighter").await.json().await.unwrap();
    let template = &template["template"];
    let response = app
        .client
        .post(app.url("/api/character"))
        .bearer_auth(&token)
        .json(&json!({"name": "Brawler", "templateId": "fighter"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let created: Value = response.json().await.unwrap();
    let character = &created["character"];
    // Exactly the template's items, not the starter kit.
    let mut held: Vec<(String, i64)> = Vec::new();
    for slot in character["inventory"].as_array().unwrap() {
        let id = slot["itemId"].as_str().unwrap().to_owned();
        match held.iter_mut().find(|(i, _)| *i == id) {
            Some((_, q)) => *q += slot["quantity"].as_i64().unwrap(),
            None => held.push((id, slot["quantity"].as_i64().unwrap())),
        }
    }
    held.sort();
    let mut listed: Vec<(String, i64)> = template["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["itemId"].as_str().unwrap().to_owned(),
                i["quantity"].as_i64().unwrap(),
            )
        })
        .collect();
    listed.sort();
    assert_eq!(held, listed);
    assert_eq!(
        character["coins"],
        listed
            .iter()
            .find(|(i, _)| i == "coins")
            .map_or(0, |(_, q)| *q)
    );
    // Its levels, with the XP that reaches them, and the combat level and health they give.
    for (skill, level) in template["skills"].as_object().unwrap() {
        assert_eq!(character["skills"][skill]["level"], *level, "{skill}");
        assert!(character["skills"][skill]["xp"].as_i64().unwrap() > 0);
    }
    assert_eq!(character["maxHealth"], template["skills"]["constitution"]);
    assert_eq!(character["health"], character["maxHealth"]);
    assert!(
        character["combatLevel"].as_i64().unwrap() > 3,
        "{character}"
    );

    // The world agrees when the character enters.
    let mut ws = WsClient::connect(&app, &format!("token={token}"))
        .await
        .unwrap();
    let sync = ws.expect_type("player:sync").await;
    assert_eq!(sync["data"]["skills"], character["skills"]);
    assert_eq!(sync["data"]["combatLevel"], character["combatLevel"]);
    assert_eq!(sync["data"]["maxHealth"], character["maxHealth"]);
}

#[tokio::test]
async fn an_unknown_or_malformed_template_id_creates_nothing() {
    let app = TestApp::spawn().await;
    let token = guest(&app).await;
    for body in [
        json!({"name": "Nobody", "templateId": "wizard"}),
        json!({"name": "Nobody", "templateId": 7}),
        json!({"name": "Nobody", "templateId": ["fighter"]}),
    ] {
        let response = app
            .client
            .post(app.url("/api/character"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "bad_request").await;
    }
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
    assert_eq!(list["characters"], json!([]));
}
