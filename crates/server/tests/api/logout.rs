//! Logging out (`auth::revocation`): `POST /api/auth/logout` revokes the bearer token, with
//! `{"all": true}` every token of the account, and `POST /api/admin/accounts/{id}/revoke-tokens`
//! does the same for any account. A revoked token is refused everywhere (REST and the socket
//! upgrade), its open sockets close with 4002, and the revocation survives a restart. Each runs on
//! SQLite and on PostgreSQL: revocations are stored.

use serde_json::{json, Value};

use crate::support::{
    assert_error, both_databases, enter, player, AppOptions, FreshDatabase, TestApp, WsClient,
};

/// Close code of a socket whose token was revoked.
const TOKEN_REVOKED: u16 = 4002;

async fn app_on(db: FreshDatabase) -> TestApp {
    TestApp::spawn_with(AppOptions {
        database: Some(db),
        ..Default::default()
    })
    .await
}

async fn post(app: &TestApp, path: &str, token: &str, body: Option<Value>) -> reqwest::Response {
    let mut request = app.client.post(app.url(path)).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap()
}

async fn status_of_player(app: &TestApp, token: &str) -> u16 {
    app.client
        .get(app.url("/api/v1/player"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// A second token of the same account (`POST /api/auth/refresh`).
async fn refreshed(app: &TestApp, token: &str) -> String {
    let response = post(app, "/api/auth/refresh", token, None).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    body["token"].as_str().unwrap().to_owned()
}

async fn account_of(app: &TestApp, token: &str) -> String {
    let body: Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["player"]["accountId"].as_str().unwrap().to_owned()
}

/// Asserts `token` is refused as revoked: REST, refresh and the socket upgrade all answer 401.
async fn assert_revoked(app: &TestApp, token: &str) {
    let response = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let body = assert_error(response, 401, "unauthorized").await;
    assert!(
        body["message"].as_str().unwrap().contains("revoked"),
        "{body}"
    );
    assert_error(
        post(app, "/api/auth/refresh", token, None).await,
        401,
        "unauthorized",
    )
    .await;
    assert_eq!(
        WsClient::connect(app, &format!("token={token}"))
            .await
            .err(),
        Some(401),
        "the socket upgrade refuses it"
    );
}

async fn logout_revokes_the_presented_token_everywhere(db: FreshDatabase) {
    let app = app_on(db).await;
    let (token, _) = player(&app, "Leaver").await;
    let other = refreshed(&app, &token).await;
    let (mut ws, _) = enter(&app, &token).await;

    // An empty body is `{}`: this token only.
    let response = post(&app, "/api/auth/logout", &token, None).await;
    assert_eq!(response.status(), 204);
    assert_eq!(ws.expect_close().await, Some(TOKEN_REVOKED));
    assert_revoked(&app, &token).await;
    assert_error(
        post(&app, "/api/auth/logout", &token, None).await,
        401,
        "unauthorized",
    )
    .await;
    // The account's other token is untouched.
    assert_eq!(status_of_player(&app, &other).await, 200);

    // Stored: still refused after a restart, while the other token still works.
    let (app, _stopped) = app.stop().await.restart().await;
    assert_revoked(&app, &token).await;
    assert_eq!(status_of_player(&app, &other).await, 200);
    let (ws, _) = enter(&app, &other).await;
    ws.close().await;
}

both_databases!(logout_revokes_the_presented_token_everywhere, |db| {
    logout_revokes_the_presented_token_everywhere(db)
});

async fn logout_all_revokes_every_token_of_the_account_issued_before_now(db: FreshDatabase) {
    let app = app_on(db).await;
    let (first, _) = player(&app, "Everywhere").await;
    let second = refreshed(&app, &first).await;
    let account = account_of(&app, &first).await;
    // An agent of the account: its token is one of the account's tokens too.
    let registered: Value = post(
        &app,
        "/api/agent/register",
        &first,
        Some(json!({"name": "Helper"})),
    )
    .await
    .json()
    .await
    .unwrap();
    let agent = registered["token"].as_str().unwrap().to_owned();
    let (stranger, _) = player(&app, "Stranger").await;
    let (mut own_socket, _) = enter(&app, &first).await;
    let (mut agent_socket, _) = enter(&app, &agent).await;
    let (stranger_socket, _) = enter(&app, &stranger).await;

    let response = post(
        &app,
        "/api/auth/logout",
        &second,
        Some(json!({"all": true})),
    )
    .await;
    assert_eq!(response.status(), 204);
    assert_eq!(own_socket.expect_close().await, Some(TOKEN_REVOKED));
    assert_eq!(agent_socket.expect_close().await, Some(TOKEN_REVOKED));
    for token in [&first, &second, &agent] {
        assert_revoked(&app, token).await;
    }
    // Another account is untouched, its socket too.
    assert_eq!(status_of_player(&app, &stranger).await, 200);
    stranger_socket.close().await;

    // A token issued from now on works (a provider login, or here the server in process).
    let fresh = app.state().auth.tokens.issue(&account).unwrap().token;
    assert_eq!(status_of_player(&app, &fresh).await, 200);

    let (app, _stopped) = app.stop().await.restart().await;
    for token in [&first, &second, &agent] {
        assert_revoked(&app, token).await;
    }
    assert_eq!(status_of_player(&app, &fresh).await, 200);
}

both_databases!(
    logout_all_revokes_every_token_of_the_account_issued_before_now,
    |db| logout_all_revokes_every_token_of_the_account_issued_before_now(db)
);

async fn an_admin_revokes_every_token_of_an_account(db: FreshDatabase) {
    let app = app_on(db).await;
    let (admin, _) = player(&app, "Warden").await;
    let admin_account = account_of(&app, &admin).await;
    app.store()
        .users()
        .set_roles(&admin_account, &["admin".into()])
        .await
        .unwrap();
    let (target, _) = player(&app, "Leaked").await;
    let account = account_of(&app, &target).await;
    let (bystander, _) = player(&app, "Bystander").await;
    let path = format!("/api/admin/accounts/{account}/revoke-tokens");

    // Not for players, nor for an admin's agent: its token never acts as the account.
    assert_error(post(&app, &path, &bystander, None).await, 403, "forbidden").await;
    let registered: Value = post(
        &app,
        "/api/agent/register",
        &admin,
        Some(json!({"name": "WardenBot"})),
    )
    .await
    .json()
    .await
    .unwrap();
    let admin_agent = registered["token"].as_str().unwrap();
    assert_error(post(&app, &path, admin_agent, None).await, 403, "forbidden").await;
    assert_error(
        post(
            &app,
            "/api/admin/accounts/nobody/revoke-tokens",
            &admin,
            None,
        )
        .await,
        404,
        "not_found",
    )
    .await;

    let (mut socket, _) = enter(&app, &target).await;
    let response = post(&app, &path, &admin, None).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["accountId"], account.as_str());
    assert_eq!(body["connectionsClosed"], 1);
    assert!(body["tokensValidAfter"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
    assert_eq!(socket.expect_close().await, Some(TOKEN_REVOKED));
    assert_revoked(&app, &target).await;
    assert_eq!(status_of_player(&app, &bystander).await, 200);
    // The admin's own tokens are not the target's.
    assert_eq!(post(&app, &path, &admin, None).await.status(), 200);

    let (app, _stopped) = app.stop().await.restart().await;
    assert_revoked(&app, &target).await;
}

both_databases!(an_admin_revokes_every_token_of_an_account, |db| {
    an_admin_revokes_every_token_of_an_account(db)
});
