//! What a client needs before logging in (`GET /api/config`), the socket's rate limit under
//! `DISABLE_RATE_LIMIT` and under sustained abuse, and a ban taking a playing account out at once.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wayfarer_protocol::ws::{ActionRequest, ClientMessage};

use crate::support::{admin_token, enter, player, AppOptions, TestApp, WsClient};

async fn client_config(app: &TestApp, headers: &[(&str, &str)]) -> Value {
    client_config_response(app, headers)
        .await
        .json()
        .await
        .unwrap()
}

async fn client_config_response(app: &TestApp, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = app.client.get(app.url("/api/config"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    // Never kept by a cache: an answer built from one client's request must not reach another.
    assert_eq!(response.headers()["cache-control"], "no-store");
    response
}

/// The `Vary` values of a response, lower-cased.
fn vary(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all("vary")
        .iter()
        .flat_map(|v| v.to_str().unwrap().split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect()
}

#[tokio::test]
async fn api_config_says_it_varies_by_host_only_when_the_request_was_used() {
    let derived = TestApp::spawn().await;
    let response = client_config_response(&derived, &[("host", "attacker.example")]).await;
    assert!(
        vary(&response).contains(&"host".to_owned()),
        "{:?}",
        vary(&response)
    );
    let config: Value = response.json().await.unwrap();
    assert_eq!(config["wsUrl"], "ws://attacker.example/ws");

    // With both addresses configured the request is not used at all: the Host is not reflected.
    let configured = TestApp::spawn_with(AppOptions {
        env: vec![
            ("PUBLIC_WS_URL", "wss://game.example.com/ws".into()),
            ("PUBLIC_API_URL", "https://game.example.com".into()),
        ],
        ..Default::default()
    })
    .await;
    let response = client_config_response(&configured, &[("host", "attacker.example")]).await;
    assert!(
        !vary(&response).contains(&"host".to_owned()),
        "{:?}",
        vary(&response)
    );
    let text = response.text().await.unwrap();
    assert!(!text.contains("attacker.example"), "{text}");

    // One of the two configured: the other is still derived, and says so.
    let half = TestApp::spawn_with(AppOptions {
        env: vec![("PUBLIC_WS_URL", "wss://game.example.com/ws".into())],
        ..Default::default()
    })
    .await;
    let response = client_config_response(&half, &[("host", "play.example")]).await;
    assert!(vary(&response).contains(&"host".to_owned()));
    let config: Value = response.json().await.unwrap();
    assert_eq!(config["wsUrl"], "wss://game.example.com/ws");
    assert_eq!(config["apiUrl"], "http://play.example");
}

#[tokio::test]
async fn api_config_derives_the_addresses_from_the_request_and_they_work() {
    let app = TestApp::spawn().await;
    let config = client_config(&app, &[]).await;
    let host = app.base.trim_start_matches("http://");
    assert_eq!(config["wsUrl"], format!("ws://{host}/ws"));
    assert_eq!(config["apiUrl"], app.base.as_str());
    assert_eq!(config["cdnUrl"], Value::Null);
    assert_eq!(config["idpAppId"], Value::Null);
    // A manual world's ticks stand for the game's 600 ms ones.
    assert_eq!(config["tickMs"], 600);
    let limits = &config["limits"];
    assert_eq!(limits["wsMessagesPerSecond"], 60);
    assert_eq!(limits["wsMaxFrameBytes"], 16 * 1024);
    assert_eq!(limits["restRequestsPerWindow"], 100);
    assert_eq!(limits["authRequestsPerWindow"], 10);
    assert_eq!(limits["maxMoveTiles"], 200);
    assert_eq!(limits["maxChatChars"], 200);
    assert_eq!(limits["inventorySlots"], 28);
    assert_eq!(limits["viewDistanceTiles"], 32);
    assert_eq!(limits["rateLimitsDisabled"], true);

    // The socket address it gives is the game's: a guest enters through it.
    let (token, _) = player(&app, "Configured").await;
    let ws_url = config["wsUrl"].as_str().unwrap();
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{ws_url}?token={token}"))
        .await
        .expect("the advertised socket accepts the player");
    use futures_util::StreamExt;
    let first = tokio::time::timeout(Duration::from_secs(10), ws.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(first.to_text().unwrap().contains("player:sync"));

    // A proxy we do not trust cannot make it claim TLS.
    let config = client_config(&app, &[("x-forwarded-proto", "https")]).await;
    assert_eq!(config["wsUrl"], format!("ws://{host}/ws"));
}

#[tokio::test]
async fn api_config_gives_the_configured_addresses_and_trusts_only_trusted_proxies() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("PUBLIC_WS_URL", "wss://game.example.com/ws".into()),
            ("PUBLIC_API_URL", "https://api.example.com/".into()),
            ("PUBLIC_CDN_URL", "https://cdn.example.com/".into()),
            ("PUBLIC_IDP_APP_ID", "app-123".into()),
        ],
        ..Default::default()
    })
    .await;
    let config = client_config(&app, &[]).await;
    assert_eq!(config["wsUrl"], "wss://game.example.com/ws");
    assert_eq!(config["apiUrl"], "https://api.example.com");
    assert_eq!(config["cdnUrl"], "https://cdn.example.com");
    assert_eq!(config["idpAppId"], "app-123");

    let proxied = TestApp::spawn_with(AppOptions {
        env: vec![("TRUSTED_PROXIES", "127.0.0.1".into())],
        ..Default::default()
    })
    .await;
    let config = client_config(
        &proxied,
        &[("x-forwarded-proto", "https"), ("host", "play.example.com")],
    )
    .await;
    assert_eq!(config["wsUrl"], "wss://play.example.com/ws");
    assert_eq!(config["apiUrl"], "https://play.example.com");
}

#[tokio::test]
async fn disable_rate_limit_switches_the_socket_limit_off_too() {
    // The default test server runs with DISABLE_RATE_LIMIT=true.
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Unlimited").await;
    let (mut ws, _) = enter(&app, &token).await;
    // 100 at once: over the 60 a second, under the 128 replies a connection's queue holds.
    for _ in 0..100 {
        ws.send(ClientMessage::Sync, None).await;
    }
    let mut syncs = 0;
    while syncs < 100 {
        let m = ws.next().await.expect("connected");
        assert_ne!(m["data"]["code"], "rate_limited", "{m}");
        if m["type"] == "player:sync" {
            syncs += 1;
        }
    }
}

#[tokio::test]
async fn more_than_ten_seconds_over_the_message_rate_closes_with_1008() {
    let app = TestApp::spawn_limited().await;
    let (token, _) = player(&app, "Flooder").await;
    let (mut ws, _) = enter(&app, &token).await;
    // 100 messages a second, steadily, for up to 13 seconds: dropping starts within the first
    // second and the connection must close once it has lasted more than 10.
    let started = Instant::now();
    let mut closed_at = None;
    while started.elapsed() < Duration::from_secs(13) {
        for _ in 0..10 {
            if ws
                .try_send_text(r#"{"type":"nope","data":{}}"#)
                .await
                .is_err()
            {
                closed_at = Some(started.elapsed());
                break;
            }
        }
        if closed_at.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ws.expect_close().await, Some(1008));
    if let Some(at) = closed_at {
        assert!(at > Duration::from_secs(10), "closed after only {at:?}");
    }
}

#[tokio::test]
async fn banning_a_playing_account_closes_its_connection_with_4003_and_keeps_it_out() {
    let app = TestApp::spawn().await;
    let admin = admin_token(&app).await;
    let (token, id) = player(&app, "Cheater").await;
    let (mut ws, sync) = enter(&app, &token).await;
    let account = sync["accountId"].as_str().unwrap().to_owned();
    // A change the periodic save has not written yet: the ban's logout saves it.
    let slot = sync["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["itemId"] == "tinderbox")
        .unwrap()["slot"]
        .clone();
    ws.send(
        ClientMessage::Action(ActionRequest::new("drop").with_slot(json!(slot))),
        None,
    )
    .await;
    ws.expect_type("inventory:update").await;

    let response = app
        .client
        .post(app.url("/api/admin/ban"))
        .bearer_auth(&admin)
        .json(&json!({"accountId": account, "reason": "duping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(ws.expect_close().await, Some(4003));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stored = app.store().inventories().get(&id).await.unwrap();
        if stored.iter().all(|s| s.item_id != "tinderbox") {
            break;
        }
        assert!(Instant::now() < deadline, "the final state was not saved");
        app.pass_time().await;
    }
    // And the account cannot come back while banned; REST and the socket say it in one wording.
    assert_eq!(
        WsClient::connect(&app, &format!("token={token}"))
            .await
            .err(),
        Some(403)
    );
    let socket: Value = app
        .get(&format!("/ws?token={token}"))
        .await
        .json()
        .await
        .unwrap();
    let rest: Value = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(socket, rest);
    assert_eq!(rest["error"], "forbidden");
    assert_eq!(rest["message"], "account banned permanently: duping");
}

/// Runs `wayfarer admin …` against the test server's database.
fn admin_cli(app: &TestApp, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .arg("admin")
        .args(args)
        .current_dir(&app.world_dir)
        .env("WORLD", &app.world_dir)
        .env("DATABASE_URL", &app.database_url)
        .env("NODE_ENV", "test")
        .env("RUST_LOG", "warn")
        .output()
        .expect("the wayfarer binary runs")
}

#[tokio::test]
async fn an_operator_grants_and_revokes_admin_from_the_command_line() {
    let app = TestApp::spawn().await;
    let (token, _) = player(&app, "Operator").await;
    let economy = || async {
        app.client
            .get(app.url("/api/admin/economy"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .status()
    };
    assert_eq!(economy().await, 403);

    // By character name, any letter case.
    let out = admin_cli(&app, &["grant-role", "operator", "admin"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("granted admin"), "{stdout}");
    assert_eq!(
        economy().await,
        200,
        "the running server sees the role at once"
    );
    let again = admin_cli(&app, &["grant-role", "Operator", "admin"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("already had admin"));

    let out = admin_cli(&app, &["revoke-role", "Operator", "admin"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("revoked admin"));
    assert_eq!(economy().await, 403);

    // Mistakes are named and change nothing.
    let out = admin_cli(&app, &["grant-role", "Operator", "superuser"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown role"));
    let out = admin_cli(&app, &["grant-role", "Nobody", "admin"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no account"));
    assert_eq!(economy().await, 403);
}
