use crate::support::{assert_error, TestApp};

#[tokio::test]
async fn unknown_routes_are_json_404_everywhere() {
    let app = TestApp::spawn().await;
    for path in [
        "/api/nope",
        "/api/v1/nothing/here",
        "/ws/x",
        "/health/extra",
        "/status/x",
        "/random",
    ] {
        assert_error(app.get(path).await, 404, "not_found").await;
    }
}

#[tokio::test]
async fn wrong_method_is_json_405() {
    let app = TestApp::spawn().await;
    let response = app.client.delete(app.url("/health")).send().await.unwrap();
    assert!(response.headers().contains_key("allow"));
    assert_error(response, 405, "method_not_allowed").await;
}

#[tokio::test]
async fn malformed_json_is_400_invalid_json() {
    let app = TestApp::spawn().await;
    for body in ["{", "{\"a\":", "not json", "{\"a\": 1,}", "\u{0}"] {
        let response = app
            .client
            .post(app.url("/__test/echo"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "invalid_json").await;
    }
    // A well-formed body goes through.
    let ok = app
        .client
        .post(app.url("/__test/echo"))
        .json(&serde_json::json!({"a": [1, 2]}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
}

#[tokio::test]
async fn bodies_over_one_mebibyte_are_413_json_and_exactly_one_passes() {
    let app = TestApp::spawn().await;
    const LIMIT: usize = 1024 * 1024;
    // A JSON string literal filling exactly the limit: quotes plus LIMIT - 2 letters.
    let at_limit = format!("\"{}\"", "a".repeat(LIMIT - 2));
    assert_eq!(at_limit.len(), LIMIT);
    let response = app
        .client
        .post(app.url("/__test/echo"))
        .header("content-type", "application/json")
        .body(at_limit)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let over = format!("\"{}\"", "a".repeat(LIMIT - 1));
    let response = app
        .client
        .post(app.url("/__test/echo"))
        .header("content-type", "application/json")
        .body(over.clone())
        .send()
        .await
        .unwrap();
    assert_error(response, 413, "payload_too_large").await;

    // Without a Content-Length (chunked), the limit still holds.
    let stream = futures_util::stream::iter(
        over.into_bytes()
            .chunks(64 * 1024)
            .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
            .collect::<Vec<_>>(),
    );
    let response = app
        .client
        .post(app.url("/__test/echo"))
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await
        .unwrap();
    assert_error(response, 413, "payload_too_large").await;
}

#[tokio::test]
async fn a_panicking_handler_is_500_internal_and_the_server_keeps_serving() {
    let app = TestApp::spawn().await;
    for _ in 0..3 {
        let body = assert_error(app.get("/__test/panic").await, 500, "internal").await;
        assert!(
            !body["message"].as_str().unwrap().contains("deliberate"),
            "panic details stay in the log"
        );
        assert_eq!(app.get("/health").await.status(), 200);
    }
}

#[tokio::test]
async fn test_hooks_do_not_exist_outside_test_mode() {
    let app = TestApp::spawn_with(crate::support::AppOptions {
        env: vec![("NODE_ENV", "development".into())],
        ..Default::default()
    })
    .await
    .unwrap();
    assert_error(app.get("/__test/panic").await, 404, "not_found").await;
}
