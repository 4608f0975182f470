//! The limits of specification section 8 at their exact boundaries.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::auth::SECRET;
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
async fn the_hundredth_rest_request_passes_and_the_hundred_and_first_is_429() {
    let app = proxied_app(vec![]).await;
    // The accounts are made elsewhere, so this address and this account start with 100 each.
    let token = guest_from(&app, "198.51.100.200").await;
    let other = guest_from(&app, "198.51.100.201").await;
    let home = "203.0.113.9";
    // A non-admin calling an admin route: authenticated, counted, answered 403.
    let call = |t: &str, address: &str| {
        let request = app
            .client
            .post(app.url("/api/admin/unban"))
            .bearer_auth(t)
            .header("x-forwarded-for", address)
            .json(&serde_json::json!({"accountId": "x"}));
        async move { request.send().await.unwrap() }
    };
    for i in 1..=100 {
        let response = call(&token, home).await;
        assert_eq!(response.status(), 403, "request {i}");
        assert_eq!(header(&response, "ratelimit-limit"), 100);
        assert_eq!(header(&response, "ratelimit-remaining"), 100 - i);
    }
    let response = call(&token, home).await;
    assert!(header(&response, "retry-after") >= 60);
    assert_error(response, 429, "rate_limited").await;
    // Both are spent: the account from elsewhere, and the address for another account.
    assert_error(call(&token, "203.0.113.10").await, 429, "rate_limited").await;
    assert_error(call(&other, home).await, 429, "rate_limited").await;
    // Another account from another address is untouched.
    assert_eq!(call(&other, "203.0.113.10").await.status(), 403);
}

/// A limited server behind a trusted proxy: each request names its client in `X-Forwarded-For`.
async fn proxied_app(env: Vec<(&'static str, String)>) -> TestApp {
    let mut all = vec![("TRUSTED_PROXIES", "127.0.0.1".to_string())];
    all.extend(env);
    slow_refill_app(all).await
}

/// A REST request from `address` (through the trusted proxy) with `token`.
async fn rest_from(app: &TestApp, address: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = app
        .client
        .get(app.url("/api/template"))
        .header("x-forwarded-for", address);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

/// A guest account created from `address`: its token.
async fn guest_from(app: &TestApp, address: &str) -> String {
    let response = guest_status(app, Some(address)).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    body["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_rest_limit_is_shared_by_every_account_of_one_address() {
    let app = proxied_app(vec![]).await;
    let home = "198.51.100.7";
    // Signing up is a REST request too: five accounts, five of the address's hundred.
    let mut tokens = Vec::new();
    for _ in 0..5 {
        tokens.push(guest_from(&app, home).await);
    }
    for i in 1..=95u64 {
        let token = &tokens[i as usize % tokens.len()];
        let response = rest_from(&app, home, Some(token)).await;
        assert_eq!(response.status(), 200, "request {i}");
        // The address is the stricter limit: its figures are the ones shown.
        assert_eq!(header(&response, "ratelimit-remaining"), 95 - i);
    }
    // The hundred-and-first from the address is refused, whichever account signs it, and
    // without a token too.
    for token in tokens.iter().map(|t| Some(t.as_str())).chain([None]) {
        let response = rest_from(&app, home, token).await;
        assert!(header(&response, "retry-after") >= 60);
        assert_eq!(header(&response, "ratelimit-remaining"), 0);
        assert_error(response, 429, "rate_limited").await;
    }
    // The accounts are not spent (19 requests each): from another address they still work.
    let away = rest_from(&app, "203.0.113.50", Some(&tokens[0])).await;
    assert_eq!(away.status(), 200);
    assert_eq!(header(&away, "ratelimit-remaining"), 80);
}

#[tokio::test]
async fn one_account_is_limited_across_addresses() {
    let app = proxied_app(vec![]).await;
    let token = guest_from(&app, "198.51.100.1").await;
    for i in 1..=100u32 {
        let address = format!("10.2.{}.{}", i / 256, i % 256);
        let response = rest_from(&app, &address, Some(&token)).await;
        assert_eq!(response.status(), 200, "request {i}");
        // The account is the stricter limit: each address has used one.
        assert_eq!(header(&response, "ratelimit-remaining"), 100 - u64::from(i));
    }
    let response = rest_from(&app, "10.9.9.9", Some(&token)).await;
    assert_eq!(header(&response, "ratelimit-limit"), 100);
    assert_error(response, 429, "rate_limited").await;
    // That address itself is fresh: without the account's token it is served.
    assert_eq!(rest_from(&app, "10.9.9.9", None).await.status(), 200);
}

#[tokio::test]
async fn ipv6_clients_of_one_64_share_the_address_limit() {
    let app = proxied_app(vec![]).await;
    for i in 0..100u32 {
        let address = format!("2001:db8:5:5:{i:x}::1");
        assert_eq!(rest_from(&app, &address, None).await.status(), 200, "{i}");
    }
    let same_64 = rest_from(&app, "2001:db8:5:5:ffff::9", None).await;
    assert_error(same_64, 429, "rate_limited").await;
    assert_eq!(
        rest_from(&app, "2001:db8:5:6::1", None).await.status(),
        200,
        "the next /64 is another client"
    );
}

#[tokio::test]
async fn after_the_block_requests_pass_again() {
    // The window is one minute; test mode shortens it so the test need not wait a minute.
    let app = limited_app(vec![("RATE_LIMIT_WINDOW_SECS", "2".into())]).await;
    for _ in 0..10 {
        assert_eq!(guest_status(&app, None).await.status(), 201);
    }
    // Taken before the refused request is sent, so no later than the server starts the block.
    let refused_at = Instant::now();
    let limited = guest_status(&app, None).await;
    let retry_after = header(&limited, "retry-after");
    assert_eq!(retry_after, 2);
    assert_eq!(limited.status(), 429);
    // Refused until the block ends, then served: whenever the machine gets round to asking, a
    // request passes again only once a whole window has gone by since the refusal.
    let deadline = refused_at + Duration::from_secs(15);
    loop {
        let response = guest_status(&app, None).await;
        if response.status() == 201 {
            break;
        }
        assert_eq!(response.status(), 429);
        assert!(Instant::now() < deadline, "still blocked after 15 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let blocked_for = refused_at.elapsed();
    assert!(
        blocked_for >= Duration::from_secs(2),
        "served again after {blocked_for:?}, within the 2 s window"
    );
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
async fn the_load_test_key_skips_the_per_address_limits_but_never_an_accounts() {
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
    let mut bots = Vec::new();
    for _ in 0..3 {
        bots.push(guest_with_key(&app).await.0);
    }
    let unban = |token: &str, key: Option<&str>| {
        let mut request = app
            .client
            .post(app.url("/api/admin/unban"))
            .bearer_auth(token)
            .json(&serde_json::json!({"accountId": "x"}));
        if let Some(key) = key {
            request = request.header("x-load-test-key", key);
        }
        async move { request.send().await.unwrap() }
    };
    // The address has served 11 requests without the key (the guests above); 89 more spend it.
    for i in 0..89 {
        assert_eq!(unban(&bots[2], None).await.status(), 403, "request {i}");
    }
    assert_eq!(unban(&bots[2], None).await.status(), 429);
    // Bots with the key, from this same address, go on past it.
    for i in 0..60 {
        for bot in &bots[..2] {
            assert_eq!(
                unban(bot, Some("bots-welcome")).await.status(),
                403,
                "request {i}"
            );
        }
    }
    // The key does not lift an account's own limit: 40 more for the first bot (100), then 429.
    for _ in 0..40 {
        assert_eq!(unban(&bots[0], Some("bots-welcome")).await.status(), 403);
    }
    let response = unban(&bots[0], Some("bots-welcome")).await;
    assert_eq!(header(&response, "ratelimit-limit"), 100);
    assert_error(response, 429, "rate_limited").await;
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
