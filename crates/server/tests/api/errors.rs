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
    .await;
    assert_error(app.get("/__test/panic").await, 404, "not_found").await;
}

/// Sends `request` over a fresh TCP connection and reads the response until the server closes it.
async fn raw_exchange(app: &TestApp, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .unwrap();
    tcp.write_all(request).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        tcp.read_to_end(&mut response),
    )
    .await
    .expect("the server answers and closes")
    .unwrap();
    String::from_utf8(response).unwrap()
}

/// The status, the lower-cased head and the body of one HTTP response.
fn split_response(response: &str) -> (u16, String, serde_json::Value) {
    let (head, body) = response.split_once("\r\n\r\n").expect("a whole response");
    let status = head[9..12].parse().unwrap();
    let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"));
    (status, head.to_ascii_lowercase(), body)
}

#[tokio::test]
async fn requests_hyper_cannot_read_get_the_json_error_body() {
    // hyper answers these itself, below every layer; CONTRACT section 2 wants the JSON body on
    // every status >= 400 all the same.
    let app = TestApp::spawn().await;
    let long_uri = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    let many_headers = format!(
        "GET /health HTTP/1.1\r\nHost: x\r\n{}\r\n",
        (0..120)
            .map(|i| format!("x-h{i}: v\r\n"))
            .collect::<String>()
    );
    let cases = [
        (long_uri.as_str(), 414, "uri_too_long"),
        (many_headers.as_str(), 431, "headers_too_large"),
        (
            "GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
            400,
            "bad_request",
        ),
    ];
    for (request, status, code) in cases {
        let response = raw_exchange(&app, request.as_bytes()).await;
        let (got, head, body) = split_response(&response);
        assert_eq!(got, status, "{head}");
        assert!(
            head.contains("\r\ncontent-type: application/json"),
            "{head}"
        );
        assert_eq!(body["error"], code, "{body}");
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }

    // The same on a kept-alive connection, after a request it answered.
    {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(app.base.trim_start_matches("http://"))
            .await
            .unwrap();
        tcp.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut first = Vec::new();
        let mut chunk = [0u8; 4096];
        // The health body is one JSON object: the response is whole when it has ended.
        while !(first.windows(4).any(|w| w == b"\r\n\r\n") && first.ends_with(b"}")) {
            let n = tcp.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the first response");
            first.extend_from_slice(&chunk[..n]);
        }
        tcp.write_all(many_headers.as_bytes()).await.unwrap();
        let mut second = Vec::new();
        tokio::time::timeout(
            std::time::Duration::from_secs(10),
            tcp.read_to_end(&mut second),
        )
        .await
        .unwrap()
        .unwrap();
        let (got, _, body) = split_response(std::str::from_utf8(&second).unwrap());
        assert_eq!(got, 431);
        assert_eq!(body["error"], "headers_too_large");
    }

    // The server still serves.
    assert_eq!(app.get("/health").await.status(), 200);
}
