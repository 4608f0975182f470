//! The name rule (`characters::name`, docs/protocol.md): invisible characters and staff words are
//! refused wherever a character is named, an admin may use staff words, and the guest display name
//! is stripped and refuses markup and staff words.

use serde_json::{json, Value};

use crate::support::{admin_token, assert_error, TestApp};

async fn guest_with(app: &TestApp, body: Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/auth/guest"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn guest(app: &TestApp) -> String {
    let body: Value = guest_with(app, json!({})).await.json().await.unwrap();
    body["token"].as_str().unwrap().to_owned()
}

async fn post(app: &TestApp, token: &str, path: &str, body: Value) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// Every route that names a new character, with the body for `name`.
const CREATING: [&str; 3] = ["/api/character", "/api/v1/player", "/api/agent/register"];

#[tokio::test]
async fn invisible_characters_and_staff_words_are_refused_on_every_creating_route() {
    let app = TestApp::spawn().await;
    let token = guest(&app).await;
    let refused = [
        ("Ann\u{202E}Lee", "invisible"),
        ("\u{200B}", "invisible"),
        ("Bob\u{200D}", "invisible"),
        ("\u{3164}", "invisible"),
        ("Admin", "reserved for staff"),
        ("admin", "reserved for staff"),
        ("System", "reserved for staff"),
        ("Mod Admin", "reserved for staff"),
        ("Ad\u{200B}min", "reserved for staff"),
        ("Jmod", "reserved for staff"),
        ("A Moderator", "reserved for staff"),
    ];
    for path in CREATING {
        for (name, why) in refused {
            let body = assert_error(
                post(&app, &token, path, json!({ "name": name })).await,
                400,
                "bad_request",
            )
            .await;
            let message = body["message"].as_str().unwrap();
            assert!(message.contains(why), "{path} {name:?}: {message}");
        }
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
    assert_eq!(list["characters"], json!([]), "nothing was created");

    // The near misses are ordinary names (an account each: `/api/v1/player` creates only a first).
    for (path, name) in CREATING.iter().zip(["Modest", "Sysadmina", "Admiral"]) {
        let token = guest(&app).await;
        let response = post(&app, &token, path, json!({ "name": name })).await;
        assert_eq!(response.status(), 201, "{path} {name}");
    }
}

#[tokio::test]
async fn renaming_follows_the_same_rule() {
    let app = TestApp::spawn().await;
    let token = guest(&app).await;
    let first = post(&app, &token, "/api/v1/player", json!({"name": "Rowan"})).await;
    assert_eq!(first.status(), 201);
    for name in ["Admin", "Ro\u{202E}wan", "Mod"] {
        assert_error(
            post(&app, &token, "/api/v1/player", json!({ "name": name })).await,
            400,
            "bad_request",
        )
        .await;
    }
    let renamed = post(&app, &token, "/api/v1/player", json!({"name": "Modest Ro"})).await;
    assert_eq!(renamed.status(), 200);
}

#[tokio::test]
async fn an_admin_may_give_staff_names() {
    let app = TestApp::spawn().await;
    let admin = admin_token(&app).await;
    let created = post(&app, &admin, "/api/character", json!({"name": "Mod Ann"})).await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    assert_eq!(created["character"]["name"], "Mod Ann");
    let registered = post(
        &app,
        &admin,
        "/api/agent/register",
        json!({"name": "System"}),
    )
    .await;
    assert_eq!(registered.status(), 201);
    // Invisible characters are refused to admins too.
    assert_error(
        post(
            &app,
            &admin,
            "/api/character",
            json!({"name": "Mod\u{202E}Bo"}),
        )
        .await,
        400,
        "bad_request",
    )
    .await;
}

#[tokio::test]
async fn the_guest_display_name_is_stripped_and_refuses_markup_and_staff_words() {
    let app = TestApp::spawn().await;
    for (name, why) in [
        ("<script>alert(1)</script>", "markup"),
        ("a > b", "markup"),
        ("Admin", "reserved for staff"),
        ("[mod] Ann", "reserved for staff"),
        ("\u{200B}\u{202E}", "1-32"),
        ("   ", "1-32"),
    ] {
        let body = assert_error(
            guest_with(&app, json!({ "name": name })).await,
            400,
            "bad_request",
        )
        .await;
        let message = body["message"].as_str().unwrap();
        assert!(message.contains(why), "{name:?}: {message}");
    }
    // 32 visible characters pass (invisible ones do not count), 33 do not.
    let long = "x".repeat(32);
    let response = guest_with(&app, json!({ "name": format!("{long}\u{200B}") })).await;
    assert_eq!(response.status(), 201);
    assert_error(
        guest_with(&app, json!({ "name": format!("{long}y") })).await,
        400,
        "bad_request",
    )
    .await;
    // Stripped, not refused: the account keeps the visible name.
    let created: Value = guest_with(&app, json!({"name": " Zoë\u{202E} O'Brien"}))
        .await
        .json()
        .await
        .unwrap();
    let account = app
        .store()
        .users()
        .get(created["accountId"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(account.name, "Zoë O'Brien");
}

/// Issue 50: staff words were matched as written: `Adm1n` was a fine character name, and a guest
/// display name with a Cyrillic "А" and U+202E was accepted.
#[tokio::test]
async fn disguised_staff_words_are_refused_in_character_and_display_names() {
    let app = TestApp::spawn().await;
    let token = guest(&app).await;
    for name in ["Adm1n", "M0D", "5ystem", "\u{0410}dmin", "Adm\u{202E}in"] {
        for path in CREATING {
            let body = assert_error(
                post(&app, &token, path, json!({ "name": name })).await,
                400,
                "bad_request",
            )
            .await;
            let message = body["message"].as_str().unwrap();
            assert!(
                message.contains("reserved for staff"),
                "{path} {name:?}: {message}"
            );
        }
    }
    for name in [
        "Adm1n",
        "M0D",
        "5ystem",
        "\u{0410}dmin",
        "\u{0410}d\u{202E}min",
        "the m.o.d",
    ] {
        let body = assert_error(
            guest_with(&app, json!({ "name": name })).await,
            400,
            "bad_request",
        )
        .await;
        let message = body["message"].as_str().unwrap();
        assert!(
            message.contains("reserved for staff"),
            "{name:?}: {message}"
        );
    }
    // Names that only look alike in part stay fine.
    for name in ["Modest", "Admiral", "Systems"] {
        assert_eq!(
            guest_with(&app, json!({ "name": name })).await.status(),
            201,
            "{name}"
        );
    }
}
