//! The limits of specification section 8 at their exact boundaries.

use std::time::Duration;

use serde_json::Value;

use crate::auth::{guest, SECRET};
use crate::support::{assert_error, AppOptions, TestApp};

async fn limited_app(env: Vec<(&'static str, String)>) -> TestApp {
    let mut all = vec![
        ("DISABLE_RATE_LIMIT", "false".to_string()),
        ("JWT_SECRET", SECRET.to_string()),
    ];
    all.extend(env);
    TestApp::spawn_with(AppOptions {
        env: all,
        ..Default::default()
    })
    .await
    .unwrap()
}

/// A limited app whose budget refills one request a minute instead of one every 600 ms. The limiter
/// gives a spent request back every window/limit, so at the real window a slow machine that takes more
/// than 600 ms over a hundred requests earns one back and the hundred-and-first passes. The boundary on
/// the real one-minute window is proved on a fake clock in `rate_limit`'s unit tests; here the long
/// window keeps the route-level boundary exact however fast the machine is.
async fn slow_refill_app(env: Vec<(&'static str, String)>) -> TestApp {
    let mut all = vec![("RATE_LIMIT_WINDOW_SECS", "6000".to_string())];
    all.extend(env);
    limited_app(all).await
}

async fn guest_status(app: &TestApp, forwarded_for: Option<&str>) -> reqwest::Response {
    let mut request = app.client.post(app.url("/api/auth/guest"));
    if let Some(xff) = forwarded_for {
        request = request.header("x-forwarded-for", xff);
    }
    request.send().await.unwrap()
}

fn header(response: &reqwest::Response, name: &str) -> u64 {
    response.headers()[name].to_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn the_tenth_authentication_attempt_passes_and_the_eleventh_is_429() {
    let app = limited_app(vec![]).await;
    for i in 1..=10 {
        let response = guest_status(&app, None).await;
        assert_eq!(response.status(), 201, "attempt {i}");
        assert_eq!(header(&response, "ratelimit-limit"), 10);
        assert_eq!(header(&response, "ratelimit-remaining"), 10 - i);
    }
    let response = guest_status(&app, None).await;
    assert_eq!(header(&response, "retry-after"), 60);
    assert_eq!(header(&response, "ratelimit-remaining"), 0);
    let body = assert_error(response, 429, "rate_limited").await;
    assert_eq!(body["retryAfter"], 60);
    // Refresh counts as an authentication attempt too.
    let response = app
        .client
        .post(app.url("/api/auth/refresh"))
        .send()
        .await
        .unwrap();
    assert_error(response, 429, "rate_limited").await;
}

#[tokio::test]
async fn the_hundredth_rest_request_passes_and_the_hundred_and_first_is_429_per_account() {
    let app = slow_refill_app(vec![]).await;
    let (token, _) = guest(&app).await;
    let (other, _) = guest(&app).await;
    // A non-admin calling an admin route: authenticated, counted, answered 403.
    let call = |t: String| {
        let app = &app;
        async move {
            app.client
                .post(app.url("/api/admin/unban"))
                .bearer_auth(t)
                .json(&serde_json::json!({"accountId": "x"}))
                .send()
                .await
                .unwrap()
        }
    };
    for i in 1..=100 {
        let response = call(token.clone()).await;
        assert_eq!(response.status(), 403, "request {i}");
        assert_eq!(header(&response, "ratelimit-limit"), 100);
        assert_eq!(header(&response, "ratelimit-remaining"), 100 - i);
    }
    let response = call(token.clone()).await;
    assert!(header(&response, "retry-after") >= 60);
    assert_error(response, 429, "rate_limited").await;
    // Counting is per account: another account from the same address is unaffected.
    assert_eq!(call(other).await.status(), 403);
}

#[tokio::test]
async fn after_the_block_requests_pass_again() {
    // The window is one minute; test mode shortens it so the test need not wait a minute.
    let app = limited_app(vec![("RATE_LIMIT_WINDOW_SECS", "2".into())]).await;
    for _ in 0..10 {
        assert_eq!(guest_status(&app, None).await.status(), 201);
    }
    let limited = guest_status(&app, None).await;
    let retry_after = header(&limited, "retry-after");
    assert_eq!(retry_after, 2);
    assert_eq!(limited.status(), 429);
    // Still blocked just before the end.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(guest_status(&app, None).await.status(), 429);
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(guest_status(&app, None).await.status(), 201);
}

#[tokio::test]
async fn forwarded_for_from_an_untrusted_peer_is_ignored() {
    let app = limited_app(vec![]).await;
    for i in 0..10 {
        let spoof = format!("198.51.100.{i}");
        assert_eq!(guest_status(&app, Some(&spoof)).await.status(), 201);
    }
    assert_eq!(
        guest_status(&app, Some("203.0.113.77")).await.status(),
        429,
        "a new X-Forwarded-For does not buy a new budget"
    );
}

#[tokio::test]
async fn forwarded_for_from_a_trusted_proxy_separates_clients() {
    let app = limited_app(vec![("TRUSTED_PROXIES", "127.0.0.1".into())]).await;
    for _ in 0..10 {
        assert_eq!(guest_status(&app, Some("198.51.100.1")).await.status(), 201);
    }
    assert_eq!(guest_status(&app, Some("198.51.100.1")).await.status(), 429);
    assert_eq!(guest_status(&app, Some("198.51.100.2")).await.status(), 201);
}

#[tokio::test]
async fn disable_rate_limit_works_in_development_and_is_refused_in_production() {
    let dev = limited_app(vec![
        ("NODE_ENV", "development".into()),
        ("DISABLE_RATE_LIMIT", "true".into()),
    ])
    .await;
    for _ in 0..15 {
        assert_eq!(guest_status(&dev, None).await.status(), 201);
    }
    let prod = limited_app(vec![
        ("NODE_ENV", "production".into()),
        ("DISABLE_RATE_LIMIT", "true".into()),
    ])
    .await;
    for _ in 0..10 {
        assert_eq!(guest_status(&prod, None).await.status(), 201);
    }
    let response = guest_status(&prod, None).await;
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "rate_limited");
}

#[tokio::test]
async fn the_load_test_key_skips_only_the_authentication_limit() {
    let app = slow_refill_app(vec![("LOAD_TEST_KEY", "bots-welcome".into())]).await;
    for i in 0..15 {
        let response = app
            .client
            .post(app.url("/api/auth/guest"))
            .header("x-load-test-key", "bots-welcome")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201, "bot {i}");
    }
    // A wrong key is an ordinary client.
    for _ in 0..10 {
        let response = app
            .client
            .post(app.url("/api/auth/guest"))
            .header("x-load-test-key", "guess")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
    }
    let response = app
        .client
        .post(app.url("/api/auth/guest"))
        .header("x-load-test-key", "guess")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    // The key does nothing on other routes: an account's REST budget still applies.
    let (token, _) = guest_with_key(&app).await;
    for _ in 0..100 {
        app.client
            .post(app.url("/api/admin/unban"))
            .bearer_auth(&token)
            .header("x-load-test-key", "bots-welcome")
            .json(&serde_json::json!({"accountId": "x"}))
            .send()
            .await
            .unwrap();
    }
    let response = app
        .client
        .post(app.url("/api/admin/unban"))
        .bearer_auth(&token)
        .header("x-load-test-key", "bots-welcome")
        .json(&serde_json::json!({"accountId": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
}

async fn guest_with_key(app: &TestApp) -> (String, String) {
    let body: Value = app
        .client
        .post(app.url("/api/auth/guest"))
        .header("x-load-test-key", "bots-welcome")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (
        body["token"].as_str().unwrap().to_owned(),
        body["accountId"].as_str().unwrap().to_owned(),
    )
}
