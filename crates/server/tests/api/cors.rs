use crate::support::{AppOptions, TestApp};

async fn app_with_origins() -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: vec![
            ("CLIENT_URL", "https://client.example.com/play".into()),
            ("PUBLIC_APP_URL", "https://app.example.com".into()),
            ("AGENT_RUNTIME_URL", "http://agents.internal:4000".into()),
            (
                "AGENT_RUNTIME_API_URL",
                "https://agent-api.example.com".into(),
            ),
            (
                "CORS_ORIGINS",
                "https://wayfarer.example, https://www.wayfarer.example".into(),
            ),
            (
                "CORS_PREVIEW_PATTERN",
                "https://*-preview.example.app".into(),
            ),
        ],
        ..Default::default()
    })
    .await
}

const ALLOWED: &[&str] = &[
    "http://localhost:3000",
    "http://localhost:5173",
    "http://127.0.0.1:8080",
    "http://localhost",
    "https://client.example.com",
    "https://app.example.com",
    "http://agents.internal:4000",
    "https://agent-api.example.com",
    "https://wayfarer.example",
    "https://www.wayfarer.example",
    "https://pr-17-preview.example.app",
];

const REFUSED: &[&str] = &[
    "https://evil.example.com",
    "http://localhost.evil.com",
    "https://client.example.com.evil.com",
    "http://app.example.com",
    "https://wayfarer.example:8443",
    "https://a.b-preview.example.app",
    "https://pr-17-preview.example.app.evil.com",
    "null",
];

#[tokio::test]
async fn simple_requests_echo_only_allowed_origins() {
    let app = app_with_origins().await;
    for origin in ALLOWED {
        let response = app
            .client
            .get(app.url("/health"))
            .header("origin", *origin)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response
                .headers()
                .get("access-control-allow-origin")
                .map(|v| v.to_str().unwrap()),
            Some(*origin),
            "{origin} should be allowed"
        );
        assert_eq!(
            response.headers()["access-control-allow-credentials"],
            "true"
        );
    }
    for origin in REFUSED {
        let response = app
            .client
            .get(app.url("/health"))
            .header("origin", *origin)
            .send()
            .await
            .unwrap();
        assert!(
            response
                .headers()
                .get("access-control-allow-origin")
                .is_none(),
            "{origin} must not be allowed"
        );
    }
}

#[tokio::test]
async fn preflights_allow_methods_and_headers_for_allowed_origins_only() {
    let app = app_with_origins().await;
    for origin in ALLOWED {
        let response = app
            .client
            .request(reqwest::Method::OPTIONS, app.url("/api/v1/player"))
            .header("origin", *origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type",
            )
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "{origin}: {}",
            response.status()
        );
        let h = response.headers();
        assert_eq!(h["access-control-allow-origin"], *origin);
        let methods = h["access-control-allow-methods"].to_str().unwrap();
        assert!(
            methods.contains("POST") && methods.contains("DELETE"),
            "{methods}"
        );
        let headers = h["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .to_ascii_lowercase();
        assert!(headers.contains("authorization") && headers.contains("content-type"));
        assert!(h.contains_key("access-control-max-age"));
    }
    for origin in REFUSED {
        let response = app
            .client
            .request(reqwest::Method::OPTIONS, app.url("/api/v1/player"))
            .header("origin", *origin)
            .header("access-control-request-method", "POST")
            .send()
            .await
            .unwrap();
        assert!(
            response
                .headers()
                .get("access-control-allow-origin")
                .is_none(),
            "{origin} must not be allowed"
        );
    }
}

#[tokio::test]
async fn error_responses_carry_cors_headers_too() {
    let app = app_with_origins().await;
    let response = app
        .client
        .get(app.url("/api/missing"))
        .header("origin", "https://app.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "https://app.example.com"
    );
}

#[tokio::test]
async fn without_configuration_only_localhost_is_allowed() {
    let app = TestApp::spawn().await;
    let allowed = app
        .client
        .get(app.url("/health"))
        .header("origin", "http://127.0.0.1:9999")
        .send()
        .await
        .unwrap();
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "http://127.0.0.1:9999"
    );
    let refused = app
        .client
        .get(app.url("/health"))
        .header("origin", "https://app.example.com")
        .send()
        .await
        .unwrap();
    assert!(refused
        .headers()
        .get("access-control-allow-origin")
        .is_none());
}
