//! Identity: guest accounts, server and identity-provider tokens, bans, admin routes, voice tokens.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::ecdsa::SigningKey;
use p256::pkcs8::{EncodePrivateKey, EncodePublicKey, LineEnding};
use serde_json::{json, Value};

use crate::support::{assert_error, AppOptions, TestApp};

pub const SECRET: &str = "test-secret-test-secret-test-secret-0123";
const APP_ID: &str = "wayfarer-test-app";

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

/// A server with a known JWT secret and, optionally, more settings.
async fn app_with(env: Vec<(&'static str, String)>) -> TestApp {
    let mut all = vec![("JWT_SECRET", SECRET.to_string())];
    all.extend(env);
    TestApp::spawn_with(AppOptions {
        env: all,
        ..Default::default()
    })
    .await
}

/// Creates a guest account: (token, account id).
pub async fn guest(app: &TestApp) -> (String, String) {
    let response = app
        .client
        .post(app.url("/api/auth/guest"))
        .json(&json!({"name": "Tester"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    (
        body["token"].as_str().unwrap().to_owned(),
        body["accountId"].as_str().unwrap().to_owned(),
    )
}

async fn refresh(app: &TestApp, authorization: Option<&str>) -> reqwest::Response {
    let mut request = app.client.post(app.url("/api/auth/refresh"));
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    request.send().await.unwrap()
}

fn hs256(secret: &[u8], claims: &Value) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret),
    )
    .unwrap()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// An identity provider's key pair, generated in the test.
struct IdpKey {
    signing: SigningKey,
    kid: String,
}

impl IdpKey {
    fn new(kid: &str) -> IdpKey {
        IdpKey {
            signing: SigningKey::random(&mut rand_core::OsRng),
            kid: kid.into(),
        }
    }

    fn public_pem(&self) -> String {
        self.signing
            .verifying_key()
            .to_public_key_pem(LineEnding::LF)
            .unwrap()
    }

    fn jwk(&self) -> Value {
        let public = p256::PublicKey::from(self.signing.verifying_key());
        let mut jwk: Value = serde_json::from_str(&public.to_jwk_string()).unwrap();
        jwk["kid"] = json!(self.kid);
        jwk["alg"] = json!("ES256");
        jwk["use"] = json!("sig");
        jwk
    }

    fn sign(&self, claims: &Value) -> String {
        let pem = self.signing.to_pkcs8_pem(LineEnding::LF).unwrap();
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(
            &header,
            claims,
            &EncodingKey::from_ec_pem(pem.as_bytes()).unwrap(),
        )
        .unwrap()
    }
}

fn idp_claims(sub: &str) -> Value {
    json!({"sub": sub, "aud": APP_ID, "iss": "privy.io", "iat": now(), "exp": now() + 3600})
}

fn idp_env(key: &IdpKey) -> Vec<(&'static str, String)> {
    vec![
        ("PUBLIC_IDP_APP_ID", APP_ID.into()),
        ("IDP_APP_SECRET", "idp-app-secret".into()),
        ("IDP_VERIFICATION_KEY", key.public_pem()),
    ]
}

#[tokio::test]
async fn guest_accounts_get_tokens_that_refresh() {
    let app = app_with(vec![]).await;
    let response = app
        .client
        .post(app.url("/api/auth/guest"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    for key in ["token", "accountId", "expiresAt"] {
        assert!(body[key].is_string(), "{key}: {body}");
    }
    let claims = jsonwebtoken::dangerous::insecure_decode::<Value>(body["token"].as_str().unwrap())
        .unwrap()
        .claims;
    assert_eq!(claims["sub"], body["accountId"]);
    assert_eq!(claims["iss"], "wayfarer");
    assert_eq!(
        claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
        7 * 24 * 3600
    );

    let token = body["token"].as_str().unwrap();
    let refreshed = refresh(&app, Some(&format!("Bearer {token}"))).await;
    assert_eq!(refreshed.status(), 200);
    let refreshed: Value = refreshed.json().await.unwrap();
    assert!(refreshed["token"].is_string() && refreshed["expiresAt"].is_string());
    // The account persists.
    assert!(app
        .store()
        .users()
        .get(body["accountId"].as_str().unwrap())
        .await
        .unwrap()
        .is_some());

    let bad_name = app
        .client
        .post(app.url("/api/auth/guest"))
        .json(&json!({"name": "x".repeat(33)}))
        .send()
        .await
        .unwrap();
    assert_error(bad_name, 400, "bad_request").await;
}

#[tokio::test]
async fn every_bad_token_is_401() {
    let key = IdpKey::new("k1");
    let app = app_with(idp_env(&key)).await;
    let (_, account) = guest(&app).await;
    let valid = hs256(
        SECRET.as_bytes(),
        &json!({"sub": account, "iat": now(), "exp": now() + 60, "iss": "wayfarer"}),
    );
    assert_eq!(
        refresh(&app, Some(&format!("Bearer {valid}")))
            .await
            .status(),
        200
    );

    let header_none = b64(br#"{"alg":"none","typ":"JWT"}"#);
    let payload = b64(
        json!({"sub": account, "iat": now(), "exp": now() + 60, "iss": "wayfarer"})
            .to_string()
            .as_bytes(),
    );
    let signed = |claims: Value| Some(format!("Bearer {}", hs256(SECRET.as_bytes(), &claims)));
    let not_valid = |why: &str| format!("the token is not valid: {why}");
    let header_shape = "the Authorization header must be `Bearer <token>`".to_owned();
    let cases: Vec<(&str, Option<String>, String)> = vec![
        ("missing", None, "missing bearer token".into()),
        ("no scheme", Some(valid.clone()), header_shape.clone()),
        (
            "wrong scheme",
            Some(format!("Basic {valid}")),
            header_shape.clone(),
        ),
        ("empty bearer", Some("Bearer ".into()), header_shape),
        (
            "garbage",
            Some("Bearer not.a.jwt".into()),
            not_valid("it is not a JWT (three base64url parts separated by dots)"),
        ),
        (
            "expired",
            signed(json!({"sub": account, "iat": now() - 7200, "exp": now() - 3600, "iss": "wayfarer"})),
            "the token has expired: log in again".into(),
        ),
        (
            "no expiry",
            signed(json!({"sub": account, "iat": now(), "iss": "wayfarer"})),
            not_valid("it has no expiry (`exp`)"),
        ),
        (
            "an expiry that is not a number",
            signed(json!({"sub": account, "iat": now(), "exp": "tomorrow", "iss": "wayfarer"})),
            not_valid("its expiry (`exp`) is not of the right type"),
        ),
        (
            "no issue time",
            signed(json!({"sub": account, "exp": now() + 60, "iss": "wayfarer"})),
            not_valid("its `iat` is missing"),
        ),
        (
            "an issue time that is not a whole number",
            signed(json!({"sub": account, "iat": "now", "exp": now() + 60, "iss": "wayfarer"})),
            not_valid("its `iat` must be a whole number, not a string"),
        ),
        (
            "wrong signature",
            Some(format!(
                "Bearer {}",
                hs256(
                    b"some-other-secret-some-other-secret!",
                    &json!({"sub": account, "iat": now(), "exp": now() + 60, "iss": "wayfarer"})
                )
            )),
            not_valid("its signature does not match"),
        ),
        (
            "wrong issuer",
            signed(json!({"sub": account, "iat": now(), "exp": now() + 60, "iss": "someone-else"})),
            not_valid("it was issued by someone else (`iss`)"),
        ),
        (
            "alg none",
            Some(format!("Bearer {header_none}.{payload}.")),
            not_valid(
                "its header or claims cannot be read (not JSON, or an algorithm this server does not know)",
            ),
        ),
        (
            "algorithm confusion: HS256 signed with the provider's public key",
            Some(format!(
                "Bearer {}",
                hs256(key.public_pem().as_bytes(), &idp_claims("did:confused"))
            )),
            not_valid("its signature does not match"),
        ),
        (
            "wrong audience",
            Some(format!(
                "Bearer {}",
                key.sign(&json!({"sub": "did:x", "aud": "another-app", "iss": "privy.io", "exp": now() + 60}))
            )),
            not_valid("it is meant for someone else (`aud`)"),
        ),
        (
            "provider token signed by an unknown key",
            Some(format!("Bearer {}", IdpKey::new("k1").sign(&idp_claims("did:x")))),
            not_valid("its signature does not match"),
        ),
        (
            "account that does not exist",
            signed(json!({"sub": "no-such-account", "iat": now(), "exp": now() + 60, "iss": "wayfarer"})),
            "the account no longer exists".into(),
        ),
    ];
    for (case, authorization, message) in cases {
        let response = refresh(&app, authorization.as_deref()).await;
        assert_eq!(response.status(), 401, "{case}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "unauthorized", "{case}: {body}");
        assert_eq!(body["message"], message.as_str(), "{case}");
    }
}

#[tokio::test]
async fn a_server_token_before_its_nbf_is_401() {
    // RFC 7519 section 4.1.5: a token must not be accepted before its `nbf`.
    let app = app_with(vec![]).await;
    let (_, account) = guest(&app).await;
    let token = |nbf: u64| {
        hs256(
            SECRET.as_bytes(),
            &json!({"sub": account, "iat": now(), "exp": now() + 3600, "iss": "wayfarer", "nbf": nbf}),
        )
    };
    let early = token(now() + 600);
    let response = refresh(&app, Some(&format!("Bearer {early}"))).await;
    assert_error(response, 401, "unauthorized").await;
    let player = app
        .client
        .get(app.url("/api/v1/player"))
        .bearer_auth(&early)
        .send()
        .await
        .unwrap();
    assert_error(player, 401, "unauthorized").await;
    assert_eq!(
        crate::support::WsClient::connect(&app, &format!("token={early}"))
            .await
            .err(),
        Some(401),
        "the socket refuses it before the upgrade"
    );
    // From its nbf on, it is good.
    let ready = token(now() - 1);
    assert_eq!(
        refresh(&app, Some(&format!("Bearer {ready}")))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn provider_tokens_with_a_pem_key_create_the_account_once_and_work_as_bearer() {
    let key = IdpKey::new("k1");
    let app = app_with(idp_env(&key)).await;
    let token = key.sign(&idp_claims("did:privy:alice"));
    let login = |t: String| {
        let app = &app;
        async move {
            app.client
                .post(app.url("/api/auth/idp"))
                .json(&json!({ "token": t }))
                .send()
                .await
                .unwrap()
        }
    };
    let first: Value = login(token.clone()).await.json().await.unwrap();
    let second: Value = login(token.clone()).await.json().await.unwrap();
    assert!(first["token"].is_string());
    assert_eq!(
        first["accountId"], second["accountId"],
        "one account per identity"
    );
    let user = app
        .store()
        .users()
        .find_by_identity("did:privy:alice")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(Value::String(user.id.clone()), first["accountId"]);

    // The provider token itself is a bearer token on every route.
    let response = refresh(&app, Some(&format!("Bearer {token}"))).await;
    assert_eq!(response.status(), 200);

    // 60 s leeway: expired 30 s ago passes, 120 s ago does not; nbf likewise.
    let mut claims = idp_claims("did:privy:alice");
    claims["exp"] = json!(now() - 30);
    assert_eq!(login(key.sign(&claims)).await.status(), 200);
    claims["exp"] = json!(now() - 120);
    assert_error(login(key.sign(&claims)).await, 401, "unauthorized").await;
    let mut claims = idp_claims("did:privy:alice");
    claims["nbf"] = json!(now() + 300);
    assert_error(login(key.sign(&claims)).await, 401, "unauthorized").await;
    let mut claims = idp_claims("did:privy:alice");
    claims["iss"] = json!("not-privy");
    assert_error(login(key.sign(&claims)).await, 401, "unauthorized").await;
}

#[tokio::test]
async fn provider_login_without_configuration_is_503() {
    let app = app_with(vec![]).await;
    let key = IdpKey::new("k1");
    let response = app
        .client
        .post(app.url("/api/auth/idp"))
        .json(&json!({"token": key.sign(&idp_claims("did:x"))}))
        .send()
        .await
        .unwrap();
    assert_error(response, 503, "idp_not_configured").await;
}

/// A JWKS endpoint served by the test, counting fetches; the key set can be swapped (rotation).
struct JwksServer {
    url: String,
    keys: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
}

impl JwksServer {
    async fn start(keys: Value) -> JwksServer {
        let keys = Arc::new(Mutex::new(keys));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (k, f) = (keys.clone(), fetches.clone());
        let router = axum::Router::new().route(
            "/jwks.json",
            axum::routing::get(move || {
                let (k, f) = (k.clone(), f.clone());
                async move {
                    f.fetch_add(1, Ordering::SeqCst);
                    axum::Json(k.lock().unwrap().clone())
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        JwksServer { url, keys, fetches }
    }
}

async fn idp_login(app: &TestApp, token: &str) -> u16 {
    app.client
        .post(app.url("/api/auth/idp"))
        .json(&json!({ "token": token }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn jwks_keys_are_cached_and_an_unknown_kid_refreshes_at_most_once_a_minute() {
    let old = IdpKey::new("old");
    let jwks = JwksServer::start(json!({"keys": [old.jwk()]})).await;
    let app = app_with(vec![
        ("PUBLIC_IDP_APP_ID", APP_ID.into()),
        ("IDP_APP_SECRET", "s".into()),
        ("IDP_JWKS_URL", jwks.url.clone()),
    ])
    .await;
    assert_eq!(idp_login(&app, &old.sign(&idp_claims("did:a"))).await, 200);
    assert_eq!(idp_login(&app, &old.sign(&idp_claims("did:a"))).await, 200);
    assert_eq!(
        jwks.fetches.load(Ordering::SeqCst),
        1,
        "cached after the first fetch"
    );

    // The provider rotates; within a minute of the last fetch an unknown kid is refused without
    // hammering the provider.
    let new = IdpKey::new("new");
    *jwks.keys.lock().unwrap() = json!({"keys": [new.jwk()]});
    for _ in 0..3 {
        assert_eq!(idp_login(&app, &new.sign(&idp_claims("did:b"))).await, 401);
    }
    assert_eq!(jwks.fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_rotated_jwks_key_is_picked_up_and_jwks_files_work() {
    let old = IdpKey::new("old");
    let jwks = JwksServer::start(json!({"keys": [old.jwk()]})).await;
    let app = app_with(vec![
        ("PUBLIC_IDP_APP_ID", APP_ID.into()),
        ("IDP_APP_SECRET", "s".into()),
        ("IDP_JWKS_URL", jwks.url.clone()),
        ("IDP_JWKS_MIN_REFRESH_SECS", "0".into()),
    ])
    .await;
    assert_eq!(idp_login(&app, &old.sign(&idp_claims("did:a"))).await, 200);
    let new = IdpKey::new("new");
    *jwks.keys.lock().unwrap() = json!({"keys": [new.jwk()]});
    assert_eq!(idp_login(&app, &new.sign(&idp_claims("did:a"))).await, 200);
    assert_eq!(jwks.fetches.load(Ordering::SeqCst), 2);
    let stranger = IdpKey::new("nobody");
    assert_eq!(
        idp_login(&app, &stranger.sign(&idp_claims("did:a"))).await,
        401
    );

    // A JWKS file path works the same way.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jwks.json");
    std::fs::write(&path, json!({"keys": [new.jwk()]}).to_string()).unwrap();
    let file_app = app_with(vec![
        ("PUBLIC_IDP_APP_ID", APP_ID.into()),
        ("IDP_APP_SECRET", "s".into()),
        ("IDP_JWKS_URL", path.display().to_string()),
    ])
    .await;
    assert_eq!(
        idp_login(&file_app, &new.sign(&idp_claims("did:f"))).await,
        200
    );
}

async fn make_admin(app: &TestApp) -> String {
    let (token, account) = guest(app).await;
    app.store()
        .users()
        .set_roles(&account, &["admin".into()])
        .await
        .unwrap();
    token
}

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = app.client.post(app.url(path)).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn admin_routes_are_401_403_or_200() {
    let app = app_with(vec![]).await;
    let (player_token, player) = guest(&app).await;
    let admin = make_admin(&app).await;
    for path in ["/api/admin/ban", "/api/admin/unban"] {
        let body = json!({"accountId": player, "reason": "test"});
        assert_error(
            post(&app, path, None, body.clone()).await,
            401,
            "unauthorized",
        )
        .await;
        assert_error(
            post(&app, path, Some(&player_token), body.clone()).await,
            403,
            "forbidden",
        )
        .await;
    }
    let ban = post(
        &app,
        "/api/admin/ban",
        Some(&admin),
        json!({"accountId": player, "reason": "botting"}),
    )
    .await;
    assert_eq!(ban.status(), 200);
    let ban: Value = ban.json().await.unwrap();
    assert_eq!(ban["ban"]["reason"], "botting");
    assert!(ban["ban"]["expiresAt"].is_null());
    assert_error(
        post(
            &app,
            "/api/admin/ban",
            Some(&admin),
            json!({"accountId": "nobody", "reason": "x"}),
        )
        .await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        post(
            &app,
            "/api/admin/ban",
            Some(&admin),
            json!({"accountId": player, "reason": ""}),
        )
        .await,
        400,
        "bad_request",
    )
    .await;
    let unban = post(
        &app,
        "/api/admin/unban",
        Some(&admin),
        json!({"accountId": player}),
    )
    .await;
    assert_eq!(unban.status(), 200);
    assert_eq!(unban.json::<Value>().await.unwrap()["lifted"], 1);
}

#[tokio::test]
async fn banned_accounts_are_403_with_reason_and_end_until_lifted_or_expired() {
    let app = app_with(vec![]).await;
    let admin = make_admin(&app).await;
    let (token, account) = guest(&app).await;
    let bearer = format!("Bearer {token}");

    post(
        &app,
        "/api/admin/ban",
        Some(&admin),
        json!({"accountId": account, "reason": "spamming chat"}),
    )
    .await;
    let body = assert_error(refresh(&app, Some(&bearer)).await, 403, "forbidden").await;
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("spamming chat") && message.contains("permanently"),
        "{message}"
    );

    post(
        &app,
        "/api/admin/unban",
        Some(&admin),
        json!({"accountId": account}),
    )
    .await;
    assert_eq!(refresh(&app, Some(&bearer)).await.status(), 200);

    post(
        &app,
        "/api/admin/ban",
        Some(&admin),
        json!({"accountId": account, "reason": "cooling off", "minutes": 30}),
    )
    .await;
    let body = assert_error(refresh(&app, Some(&bearer)).await, 403, "forbidden").await;
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("cooling off") && message.contains("until 20"),
        "{message}"
    );
    app.store().bans().lift(&account).await.unwrap();

    // A ban whose end has passed no longer applies.
    app.store()
        .bans()
        .create(&account, "old", None, Some(wayfarer_store::now_ms() - 1))
        .await
        .unwrap();
    assert_eq!(refresh(&app, Some(&bearer)).await.status(), 200);
}

#[tokio::test]
async fn voice_tokens_grant_the_world_room_to_the_character_for_six_hours() {
    let unconfigured = app_with(vec![]).await;
    let (token, _) = guest(&unconfigured).await;
    assert_error(
        post(&unconfigured, "/api/voice/token", Some(&token), json!({})).await,
        503,
        "voice_not_configured",
    )
    .await;

    let app = app_with(vec![
        ("VOICE_API_KEY", "APIkey123".into()),
        (
            "VOICE_API_SECRET",
            "voice-secret-voice-secret-voice-secret".into(),
        ),
        ("VOICE_URL", "wss://voice.example.com".into()),
    ])
    .await;
    let (token, account) = guest(&app).await;
    assert_error(
        post(&app, "/api/voice/token", Some(&token), json!({})).await,
        409,
        "conflict",
    )
    .await;
    let character = app
        .store()
        .characters()
        .create(&wayfarer_store::NewCharacter {
            account_id: account.clone(),
            name: "Singer".into(),
            position: None,
        })
        .await
        .unwrap();
    let response = post(&app, "/api/voice/token", Some(&token), json!({})).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["url"], "wss://voice.example.com");
    assert_eq!(body["room"], "wayfarer-world");
    let mut validation = jsonwebtoken::Validation::new(Algorithm::HS256);
    validation.validate_aud = false;
    let claims = jsonwebtoken::decode::<Value>(
        body["token"].as_str().unwrap(),
        &jsonwebtoken::DecodingKey::from_secret(b"voice-secret-voice-secret-voice-secret"),
        &validation,
    )
    .unwrap()
    .claims;
    assert_eq!(claims["iss"], "APIkey123");
    assert_eq!(claims["sub"], Value::String(character.id));
    assert_eq!(claims["video"]["room"], "wayfarer-world");
    assert_eq!(claims["video"]["roomJoin"], true);
    assert_eq!(
        claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
        6 * 3600
    );
}

#[tokio::test]
async fn a_generated_development_secret_survives_a_restart() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("NODE_ENV", "development".into())],
        ..Default::default()
    })
    .await;
    let (token, account) = guest(&app).await;
    assert!(app.world_dir.join("jwt-secret").exists());
    let stopped = app.stop().await;
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("NODE_ENV", "development".into())],
        world_dir: Some(stopped.world_dir.clone()),
        database_url: Some(stopped.database_url.clone()),
        ..Default::default()
    })
    .await;
    let response = refresh(&app, Some(&format!("Bearer {token}"))).await;
    assert_eq!(response.status(), 200, "the token and the account survive");
    assert!(app.store().users().get(&account).await.unwrap().is_some());
}
