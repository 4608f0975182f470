//! The browser client served at `/` (`http::web_assets`) and the terrain routes it draws from
//! (`/api/map`, `/api/map/chunk/<cx>/<cz>`).

use crate::support::{assert_error, AppOptions, TestApp};

const HTML: &str = "text/html,application/xhtml+xml,*/*;q=0.8";

/// The versioned URL of the entry module, as the page names it.
fn entry_url(page: &str) -> String {
    let end = page
        .find("/src/main.js")
        .expect("the page names its entry module");
    let start = page[..end].rfind("/v/").expect("under a versioned path");
    format!("{}/src/main.js", &page[start..end])
}

#[tokio::test]
async fn the_page_is_revalidated_and_its_assets_are_immutable() {
    let app = TestApp::spawn().await;
    let page = app.get("/").await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["cache-control"], "no-cache");
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let etag = page.headers()["etag"].to_str().unwrap().to_owned();
    let html = page.text().await.unwrap();
    assert!(!html.contains("__VERSION__"), "the version is filled in");
    let again = app
        .client
        .get(app.url("/"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);

    let entry = app.get(&entry_url(&html)).await;
    assert_eq!(entry.status(), 200);
    assert_eq!(
        entry.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(entry.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    // Another build's URL is not answered with this build's bytes.
    assert_error(
        app.get("/v/0000000000000000/src/main.js").await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        app.get(&entry_url(&html).replace("main.js", "nothing.js"))
            .await,
        404,
        "not_found",
    )
    .await;
}

#[tokio::test]
async fn page_paths_fall_back_to_the_client_but_never_the_servers_own_prefixes() {
    let app = TestApp::spawn().await;
    let get_html = |path: &str| app.client.get(app.url(path)).header("accept", HTML).send();
    let dashboard = get_html("/dashboard").await.unwrap();
    assert_eq!(dashboard.status(), 200);
    assert!(dashboard.text().await.unwrap().contains("/src/main.js"));
    for path in [
        "/api/nope",
        "/api/map/chunk/9999/9999",
        "/ws/x",
        "/health/x",
        "/status/x",
        "/metrics/x",
        "/manifests/none.json",
        "/favicon.ico",
    ] {
        assert_error(get_html(path).await.unwrap(), 404, "not_found").await;
    }
    // The routes themselves still answer as before.
    assert_eq!(get_html("/health").await.unwrap().status(), 200);
    // A program that does not ask for HTML keeps the JSON 404.
    assert_error(app.get("/dashboard").await, 404, "not_found").await;
    // Other methods are never the page.
    let post = app
        .client
        .post(app.url("/dashboard"))
        .header("accept", HTML)
        .send()
        .await
        .unwrap();
    assert_error(post, 404, "not_found").await;
}

#[tokio::test]
async fn web_dir_serves_a_directory_from_disk_unversioned() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<script src=\"/v/__VERSION__/src/main.js\"></script>",
    )
    .unwrap();
    std::fs::write(dir.path().join("src/main.js"), "export const edited = 1;").unwrap();
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("WEB_DIR", dir.path().display().to_string())],
        ..Default::default()
    })
    .await;
    let html = app.get("/").await.text().await.unwrap();
    assert!(html.contains("/v/dev/src/main.js"), "{html}");
    let module = app.get("/v/dev/src/main.js").await;
    assert_eq!(module.headers()["cache-control"], "no-cache");
    assert_eq!(module.text().await.unwrap(), "export const edited = 1;");
    std::fs::write(dir.path().join("src/main.js"), "export const edited = 2;").unwrap();
    assert_eq!(
        app.get("/v/dev/src/main.js").await.text().await.unwrap(),
        "export const edited = 2;"
    );
    // Nothing outside the directory.
    assert_error(app.get("/v/dev/../../etc/passwd").await, 404, "not_found").await;
    assert_error(
        app.get("/v/dev/src/%2e%2e/%2e%2e/x").await,
        404,
        "not_found",
    )
    .await;
}

#[tokio::test]
async fn the_map_serves_the_walkable_grid_and_ground_types_by_chunk() {
    let app = TestApp::spawn().await;
    let summary = app.get("/api/map").await;
    assert_eq!(summary.status(), 200);
    assert!(summary.headers().contains_key("etag"));
    let summary: serde_json::Value = summary.json().await.unwrap();
    let size = summary["chunkTiles"].as_i64().unwrap();
    let grounds: Vec<&str> = summary["grounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    assert_eq!(grounds[0], "void");
    assert!(grounds.contains(&"town"), "{grounds:?}");
    let spawn = &summary["spawn"];
    let (sx, sz) = (spawn["x"].as_i64().unwrap(), spawn["z"].as_i64().unwrap());
    let (cx, cz) = (sx.div_euclid(size), sz.div_euclid(size));
    let chunk = app.get(&format!("/api/map/chunk/{cx}/{cz}")).await;
    assert_eq!(chunk.status(), 200);
    let etag = chunk.headers()["etag"].to_str().unwrap().to_owned();
    let chunk: serde_json::Value = chunk.json().await.unwrap();
    let walkable = chunk["walkable"].as_str().unwrap().as_bytes();
    assert_eq!(walkable.len() as i64, size * size);
    let i =
        ((sz - chunk["z"].as_i64().unwrap()) * size + (sx - chunk["x"].as_i64().unwrap())) as usize;
    assert_eq!(walkable[i], b'1', "players stand on the spawn tile");
    let ground = chunk["ground"].as_array().unwrap()[i].as_u64().unwrap() as usize;
    assert_eq!(grounds[ground], "town");
    // A stored copy is confirmed, not sent again.
    let again = app
        .client
        .get(app.url(&format!("/api/map/chunk/{cx}/{cz}")))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    let max = summary["chunks"]["maxX"].as_i64().unwrap();
    assert_error(
        app.get(&format!("/api/map/chunk/{}/{cz}", max + 1)).await,
        404,
        "not_found",
    )
    .await;
    assert_error(app.get("/api/map/chunk/x/1").await, 400, "bad_request").await;
}

/// `body` gunzipped.
fn gunzip(body: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

/// GET `path` with the given `Accept-Encoding` (reqwest here decompresses nothing: the raw bytes).
async fn get_encoded(app: &TestApp, path: &str, encoding: &str) -> reqwest::Response {
    app.client
        .get(app.url(path))
        .header("accept-encoding", encoding)
        .header("accept", HTML)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn client_files_are_gzipped_for_clients_that_accept_it_and_identity_otherwise() {
    let app = TestApp::spawn().await;
    let plain = app.get("/").await;
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.headers()["vary"], "accept-encoding");
    let plain_tag = plain.headers()["etag"].to_str().unwrap().to_owned();
    let html = plain.text().await.unwrap();

    let packed = get_encoded(&app, "/", "gzip, deflate, br").await;
    assert_eq!(packed.status(), 200);
    assert_eq!(packed.headers()["content-encoding"], "gzip");
    assert_eq!(packed.headers()["vary"], "accept-encoding");
    assert_eq!(packed.headers()["cache-control"], "no-cache");
    assert!(packed.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let packed_tag = packed.headers()["etag"].to_str().unwrap().to_owned();
    assert_ne!(packed_tag, plain_tag, "each encoding has its own tag");
    let bytes = packed.bytes().await.unwrap();
    assert!(bytes.len() < html.len());
    assert_eq!(gunzip(&bytes), html.as_bytes());
    // Revalidation: the gzip tag is confirmed for a gzip request, not the identity one.
    let again = app
        .client
        .get(app.url("/"))
        .header("accept-encoding", "gzip")
        .header("if-none-match", &packed_tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), packed_tag);
    assert_eq!(again.headers()["vary"], "accept-encoding");
    assert!(again.headers().get("content-encoding").is_none());
    let stale = app
        .client
        .get(app.url("/"))
        .header("accept-encoding", "gzip")
        .header("if-none-match", &plain_tag)
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 200);
    assert_eq!(stale.headers()["content-encoding"], "gzip");

    // Every module and the stylesheet the page loads: immutable either way, the same bytes.
    let entry = entry_url(&html);
    let version = &entry[..entry.len() - "/src/main.js".len()];
    for file in [
        "src/main.js",
        "src/game.js",
        "src/style.css",
        "src/ui/hud.js",
    ] {
        let url = format!("{version}/{file}");
        let raw = app.get(&url).await;
        assert_eq!(raw.status(), 200, "{url}");
        assert!(raw.headers().get("content-encoding").is_none(), "{url}");
        let raw = raw.bytes().await.unwrap();
        for accept in ["gzip", "br;q=1, gzip;q=0.8", "*"] {
            let gz = get_encoded(&app, &url, accept).await;
            assert_eq!(gz.headers()["content-encoding"], "gzip", "{url} {accept}");
            assert_eq!(gz.headers()["vary"], "accept-encoding");
            assert_eq!(
                gz.headers()["cache-control"],
                "public, max-age=31536000, immutable"
            );
            let body = gz.bytes().await.unwrap();
            assert!(body.len() < raw.len(), "{url}");
            assert_eq!(gunzip(&body), raw, "{url}");
        }
        // Refused explicitly, or not offered: the identity bytes.
        for accept in ["gzip;q=0", "identity", "br"] {
            let id = get_encoded(&app, &url, accept).await;
            assert!(id.headers().get("content-encoding").is_none(), "{accept}");
            assert_eq!(id.bytes().await.unwrap(), raw);
        }
    }
}

#[tokio::test]
async fn map_chunks_and_manifests_are_gzipped_when_accepted() {
    let app = TestApp::spawn().await;
    let summary: serde_json::Value = app.get("/api/map").await.json().await.unwrap();
    let (cx, cz) = (
        summary["chunks"]["minX"].as_i64().unwrap(),
        summary["chunks"]["minZ"].as_i64().unwrap(),
    );
    for path in [
        format!("/api/map/chunk/{cx}/{cz}"),
        "/api/map".to_owned(),
        "/api/data/skill-unlocks".to_owned(),
        "/manifests/items/weapons.json".to_owned(),
    ] {
        let raw = app.get(&path).await;
        assert_eq!(raw.status(), 200, "{path}");
        assert!(raw.headers().get("content-encoding").is_none());
        assert_eq!(raw.headers()["vary"], "accept-encoding");
        let raw_tag = raw.headers()["etag"].to_str().unwrap().to_owned();
        let raw = raw.bytes().await.unwrap();
        let gz = get_encoded(&app, &path, "gzip").await;
        assert_eq!(gz.status(), 200);
        assert_eq!(gz.headers()["content-encoding"], "gzip", "{path}");
        assert_eq!(gz.headers()["content-type"], "application/json");
        assert_eq!(
            gz.headers()["cache-control"],
            "public, max-age=300, must-revalidate"
        );
        let tag = gz.headers()["etag"].to_str().unwrap().to_owned();
        assert_ne!(tag, raw_tag);
        let body = gz.bytes().await.unwrap();
        assert!(body.len() < raw.len(), "{path}");
        assert_eq!(gunzip(&body), raw, "{path}");
        let again = app
            .client
            .get(app.url(&path))
            .header("accept-encoding", "gzip")
            .header("if-none-match", &tag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
    }
    // A chunk of 64 × 64 tiles is mostly repetition: well under a fifth of its JSON.
    let path = format!("/api/map/chunk/{cx}/{cz}");
    let raw = app.get(&path).await.bytes().await.unwrap().len();
    let gz = get_encoded(&app, &path, "gzip")
        .await
        .bytes()
        .await
        .unwrap()
        .len();
    assert!(gz * 5 < raw, "{gz} of {raw} bytes");
}

/// The security headers every response carries.
fn assert_security_headers(response: &reqwest::Response, what: &str) {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .unwrap_or_else(|| panic!("{what}: no {name}"))
            .to_str()
            .unwrap()
            .to_owned()
    };
    let policy = header("content-security-policy");
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(directive), "{what}: {policy}");
    }
    assert!(!policy.contains("unsafe-"), "{what}: {policy}");
    assert_eq!(header("x-frame-options"), "DENY", "{what}");
    assert_eq!(header("x-content-type-options"), "nosniff", "{what}");
    assert_eq!(header("referrer-policy"), "no-referrer", "{what}");
}

#[tokio::test]
async fn the_page_its_assets_and_the_api_carry_the_security_headers() {
    let app = TestApp::spawn().await;
    let page = app
        .client
        .get(app.url("/dashboard"))
        .header("accept", HTML)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert_security_headers(&page, "a page path");
    let index = app.get("/").await;
    assert_security_headers(&index, "the index page");
    let html = index.text().await.unwrap();
    // The page runs no inline script: every script is a file of this server.
    assert!(!html.contains("<script>") && !html.contains("<script type=\"module\">"));
    assert!(!html.contains(" style=") && !html.contains(" onclick="));
    let asset = app.get(&entry_url(&html)).await;
    assert_eq!(asset.status(), 200);
    assert_security_headers(&asset, "an asset");
    let api = app.get("/api/config").await;
    assert_eq!(api.status(), 200);
    assert_security_headers(&api, "an API response");
    let error = app.get("/api/nothing-here").await;
    assert_eq!(error.status(), 404);
    assert_security_headers(&error, "an API error");
    assert_security_headers(&app.get("/health").await, "/health");
}

#[tokio::test]
async fn the_policy_allows_the_configured_socket_api_and_cdn() {
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("PUBLIC_WS_URL", "wss://game.example.com/ws".into()),
            ("PUBLIC_API_URL", "https://api.example.com".into()),
            ("PUBLIC_CDN_URL", "https://cdn.example.com/assets".into()),
        ],
        ..Default::default()
    })
    .await;
    let response = app.get("/").await;
    assert_security_headers(&response, "the page");
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        policy.contains(
            "connect-src 'self' wss://game.example.com https://api.example.com https://cdn.example.com"
        ),
        "{policy}"
    );
    assert!(
        policy.contains("img-src 'self' https://cdn.example.com"),
        "{policy}"
    );
}
