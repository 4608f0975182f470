//! A saturated store answers with back-pressure, never a 500 (issue 52): with every connection of
//! its pools held (`Store::hold_connections`), guest sign-ups answer 503 `server_busy` with
//! `Retry-After`, a game entry waits with a `server_busy` notice saying how long, and once the
//! store is free every one of them gets in. A join wave against a saving world with pools of one
//! connection each answers 2xx or 503 to every call, and everyone gets in by trying again as told.

use std::time::Duration;

use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::support::{both_databases, AppOptions, FreshDatabase, TestApp, WsClient};

/// A server whose store has one connection a pool and waits 200 ms for it.
async fn small_pools(db: FreshDatabase, save_every_secs: u64) -> TestApp {
    let one = || "1".to_string();
    let wait = || "200".to_string();
    TestApp::spawn_with(AppOptions {
        database: Some(db),
        env: vec![
            ("DB_REST_CONNECTIONS", one()),
            ("DB_ENTRY_CONNECTIONS", one()),
            ("DB_WRITE_CONNECTIONS", one()),
            ("DB_REST_WAIT_MS", wait()),
            ("DB_ENTRY_WAIT_MS", wait()),
            ("DB_WRITE_WAIT_MS", wait()),
            ("SAVE_INTERVAL", save_every_secs.to_string()),
        ],
        ..Default::default()
    })
    .await
}

/// A 503 is the contract's back-pressure: `server_busy`, `Retry-After` in the header and the
/// body; anything else but a 2xx fails the test. The seconds to wait, for a 503.
async fn busy_or_ok(response: reqwest::Response, what: &str) -> Result<Value, u64> {
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(response.json().await.unwrap());
    }
    assert_eq!(status, 503, "{what}: {}", response.text().await.unwrap());
    let header = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("{what}: a 503 without Retry-After"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "server_busy", "{what}: {body}");
    assert_eq!(body["retryAfter"], header, "{what}: {body}");
    Err(header)
}

async fn sign_up(app: &TestApp) -> reqwest::Response {
    app.client
        .post(app.url("/api/auth/guest"))
        .send()
        .await
        .unwrap()
}

async fn create(app: &TestApp, token: &str, name: &str) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/player"))
        .bearer_auth(token)
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap()
}

/// Makes the call until it answers 2xx, waiting as each 503 says (the client's documented
/// retry); the answer, and how many 503s came first.
async fn until_ok<F, Fut>(what: &str, call: F) -> (Value, u32)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = reqwest::Response>,
{
    let mut busy = 0;
    loop {
        match busy_or_ok(call().await, what).await {
            Ok(body) => return (body, busy),
            Err(secs) => {
                busy += 1;
                assert!(busy < 30, "{what}: still busy after {busy} tries");
                // The test does not wait the whole hint: the store is free again at once.
                tokio::time::sleep(Duration::from_millis(100 * secs.min(1))).await;
            }
        }
    }
}

both_databases!(
    a_saturated_store_answers_busy_and_lets_everyone_in_once_free,
    |db| async move {
        let app = small_pools(db, 60).await;
        let held = app
            .store()
            .hold_connections(&["rest", "entry", "write"])
            .await;
        let answers = join_all((0..6).map(|_| sign_up(&app))).await;
        for answer in answers {
            let told = busy_or_ok(answer, "a sign-up while the store is held").await;
            assert_eq!(told, Err(2), "every sign-up is told to wait 2 s");
        }
        drop(held);
        // Free: the same calls pass, and each new player enters the world.
        for n in 0..6 {
            let (guest, _) = until_ok("a sign-up", || sign_up(&app)).await;
            let token = guest["token"].as_str().unwrap().to_owned();
            let name = format!("Waiter{n}");
            until_ok("a character", || create(&app, &token, &name)).await;
            let mut ws = WsClient::connect(&app, &format!("token={token}"))
                .await
                .expect("connects");
            ws.expect_type("player:sync").await;
            ws.expect_type("world:update").await;
        }
    }
);

both_databases!(
    an_entry_waits_out_a_saturated_store_and_is_told_how_long,
    |db| async move {
        let app = small_pools(db, 60).await;
        let (token, _) = crate::support::player(&app, "Patient").await;
        let held = app.store().hold_connections(&["entry"]).await;
        let mut ws = WsClient::connect(&app, &format!("token={token}"))
            .await
            .expect("the upgrade needs no entry connection");
        let notice = ws.next().await.expect("a notice");
        assert_eq!(notice["type"], "error", "{notice}");
        assert_eq!(notice["data"]["code"], "server_busy", "{notice}");
        assert!(
            notice["data"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("about 2 s")),
            "{notice}"
        );
        drop(held);
        // The entry tries again after the 2 s it said and gets in.
        let sync = ws.expect_type("player:sync").await;
        assert_eq!(sync["data"]["name"], "Patient", "{sync}");
        ws.expect_type("world:update").await;
    }
);

both_databases!(
    a_join_wave_against_a_saving_world_answers_ok_or_busy_and_everyone_gets_in,
    |db| async move {
        // Saves every second (each tick of a manual world's 600 ms counts) while players join.
        let app = std::sync::Arc::new(small_pools(db, 1).await);
        let mut resident = Vec::new();
        for n in 0..4 {
            let (token, _) = crate::support::player(&app, &format!("Resident{n}")).await;
            resident.push(crate::support::enter(&app, &token).await.0);
        }
        let stepping = {
            let app = app.clone();
            tokio::spawn(async move {
                loop {
                    app.step(1).await;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            })
        };
        let wave = (0..16).map(|n| {
            let app = app.clone();
            async move {
                let (guest, busy_a) = until_ok("a sign-up", || sign_up(&app)).await;
                let token = guest["token"].as_str().unwrap().to_owned();
                let name = format!("Wave{n}");
                let (_, busy_b) = until_ok("a character", || create(&app, &token, &name)).await;
                // The upgrade reads the store too: a 503 is waited out as a REST call's.
                let mut ws = loop {
                    match WsClient::connect_to(&app.base, &format!("token={token}")).await {
                        Ok(ws) => break ws,
                        Err(status) => {
                            assert_eq!(status, 503, "the upgrade answered {status}");
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                };
                loop {
                    let m = ws.next().await.expect("the entry");
                    if m["type"] == "player:sync" {
                        break;
                    }
                    assert_eq!(m["data"]["code"], "server_busy", "{m}");
                }
                busy_a + busy_b
            }
        });
        let busy: u32 = join_all(wave).await.into_iter().sum();
        stepping.abort();
        println!("503s told in the wave: {busy}");
        drop(resident);
    }
);
