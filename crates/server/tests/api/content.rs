//! Content over HTTP: manifests served with cache validators, the skill unlocks and world areas, live
//! reload from a CDN, and the offline content tools.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{assert_error, AppOptions, Cdn, TestApp};

#[tokio::test]
async fn manifests_are_served_with_cache_control_a_strong_etag_and_304() {
    let app = TestApp::spawn().await;
    let response = app.get("/manifests/items/tools.json").await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["cache-control"],
        "public, max-age=300, must-revalidate"
    );
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    assert!(
        etag.starts_with('"') && etag.ends_with('"'),
        "strong: {etag}"
    );
    let body: Value = response.json().await.unwrap();
    let bundled = wayfarer_content::bundled();
    let expected: Value = serde_json::from_slice(bundled.get("items/tools.json").unwrap()).unwrap();
    assert_eq!(body, expected);

    let again = app
        .client
        .get(app.url("/manifests/items/tools.json"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert!(again.bytes().await.unwrap().is_empty());

    let stale = app
        .client
        .get(app.url("/manifests/items/tools.json"))
        .header("if-none-match", "\"something-else\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 200);
    assert_error(app.get("/manifests/nope.json").await, 404, "not_found").await;
}

#[tokio::test]
async fn a_weak_if_none_match_is_304_by_the_weak_comparison() {
    // RFC 9110 section 13.1.2: If-None-Match compares weakly, so W/"x" matches our strong "x".
    let app = TestApp::spawn().await;
    for path in ["/manifests/items/tools.json", "/api/data/skill-unlocks"] {
        let etag = app.get(path).await.headers()["etag"]
            .to_str()
            .unwrap()
            .to_owned();
        for header in [
            format!("W/{etag}"),
            format!("\"other\", W/{etag}"),
            format!("W/\"other\",{etag}"),
        ] {
            let response = app
                .client
                .get(app.url(path))
                .header("if-none-match", &header)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 304, "{path} {header}");
            assert_eq!(response.headers()["etag"].to_str().unwrap(), etag);
        }
        let other = app
            .client
            .get(app.url(path))
            .header("if-none-match", "W/\"other\"")
            .send()
            .await
            .unwrap();
        assert_eq!(other.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn skill_unlocks_are_public_and_cacheable() {
    let app = TestApp::spawn().await;
    let response = app.get("/api/data/skill-unlocks").await;
    assert_eq!(response.status(), 200);
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    assert!(response.headers()["cache-control"]
        .to_str()
        .unwrap()
        .contains("max-age=300"));
    let body: BTreeMap<String, Vec<Value>> = response.json().await.unwrap();
    for skill in wayfarer_protocol::Skill::ALL {
        let entries = body
            .get(skill.as_str())
            .unwrap_or_else(|| panic!("{skill} missing"));
        assert!(!entries.is_empty(), "{skill}");
        for entry in entries {
            assert!(entry["level"].is_number(), "{entry}");
            assert!(entry["description"].is_string(), "{entry}");
            let kind = entry["type"].as_str().unwrap();
            assert!(["item", "ability", "area", "quest", "activity"].contains(&kind));
        }
    }
    let cached = app
        .client
        .get(app.url("/api/data/skill-unlocks"))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(cached.status(), 304);
}

#[tokio::test]
async fn world_areas_need_a_token_and_list_the_content_areas() {
    let app = TestApp::spawn().await;
    assert_error(app.get("/api/v1/world/areas").await, 401, "unauthorized").await;
    let (token, _) = crate::auth::guest(&app).await;
    let response = app
        .client
        .get(app.url("/api/v1/world/areas"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    let areas = body["areas"].as_array().unwrap();
    let content = wayfarer_content::load_bundled();
    assert_eq!(areas.len(), content.areas.len());
    for area in areas {
        for key in ["id", "name", "bounds", "safeZone", "pvp"] {
            assert!(area.get(key).is_some(), "{key} in {area}");
        }
    }
    assert!(areas.iter().any(|a| a["safeZone"] == true));
    assert!(areas.iter().any(|a| a["pvp"] == true));
}

async fn attack_unlocks(app: &TestApp) -> Vec<Value> {
    let body: Value = app
        .get("/api/data/skill-unlocks")
        .await
        .json()
        .await
        .unwrap();
    body["attack"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_changed_cdn_file_is_swapped_in_live_and_an_invalid_one_is_rejected() {
    let (cdn, url) = Cdn::start().await;
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("PUBLIC_CDN_URL", url),
            ("MANIFEST_REFRESH_SECONDS", "1".into()),
        ],
        ..Default::default()
    })
    .await;
    let downloads_at_start = cdn.downloads.load(Ordering::SeqCst);
    assert!(
        downloads_at_start > 0,
        "test mode fetches from the CDN at start"
    );
    assert!(
        app.world_dir
            .join("manifests-cache/skill-unlocks.json")
            .exists(),
        "cached"
    );
    let before = attack_unlocks(&app).await;

    // Unchanged files cost no download: revalidation is answered with 304s.
    let deadline = Instant::now() + Duration::from_secs(10);
    while cdn.not_modified.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no revalidation happened");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(cdn.downloads.load(Ordering::SeqCst), downloads_at_start);

    cdn.edit("skill-unlocks.json", |v| {
        v["skills"]["attack"]
            .as_array_mut()
            .unwrap()
            .push(json!({"level": 98, "description": "Live-reloaded unlock", "type": "ability"}));
    });
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let now = attack_unlocks(&app).await;
        if now
            .iter()
            .any(|e| e["description"] == "Live-reloaded unlock")
        {
            assert_eq!(now.len(), before.len() + 1);
            break;
        }
        assert!(Instant::now() < deadline, "the change never went live");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // An invalid version (a type error) is rejected; the running content stays.
    let served_before = app
        .get("/manifests/skill-unlocks.json")
        .await
        .text()
        .await
        .unwrap();
    cdn.files.lock().unwrap().insert(
        "skill-unlocks.json".into(),
        br#"{"skills": {"attack": [{"level": "high"}]}}"#.to_vec(),
    );
    // A rejected version keeps the running validators, so each revalidation downloads it again;
    // the refresher checks one set at a time, so by its second download the first was judged.
    let downloads = cdn.downloads.load(Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(15);
    while cdn.downloads.load(Ordering::SeqCst) < downloads + 2 {
        assert!(
            Instant::now() < deadline,
            "the invalid version was not fetched twice"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(attack_unlocks(&app)
        .await
        .iter()
        .any(|e| e["description"] == "Live-reloaded unlock"));
    assert_eq!(
        app.get("/manifests/skill-unlocks.json")
            .await
            .text()
            .await
            .unwrap(),
        served_before
    );
}

#[tokio::test]
async fn an_unreachable_cdn_at_start_falls_back_and_the_server_runs() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let app = TestApp::spawn_with(AppOptions {
        env: vec![("PUBLIC_CDN_URL", format!("http://127.0.0.1:{port}"))],
        ..Default::default()
    })
    .await;
    let served: Value = app
        .get("/manifests/items/tools.json")
        .await
        .json()
        .await
        .unwrap();
    let bundled: Value =
        serde_json::from_slice(wayfarer_content::bundled().get("items/tools.json").unwrap())
            .unwrap();
    assert_eq!(served, bundled, "bundled content is the last resort");
}

fn wayfarer(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wayfarer"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn check_content_passes_the_bundled_content_strictly_and_fails_broken_files() {
    let ok = wayfarer(&["check-content", "--strict"]);
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stdout).contains("0 errors, 0 warnings"));

    let dir = tempfile::tempdir().unwrap();
    wayfarer_content::bundled().write_dir(dir.path()).unwrap();
    std::fs::write(dir.path().join("npcs.json"), "{ not json").unwrap();
    let broken = wayfarer(&["check-content", dir.path().to_str().unwrap()]);
    assert!(!broken.status.success());
    let out = String::from_utf8_lossy(&broken.stdout);
    assert!(out.contains("npcs.json:1:"), "file, line and column: {out}");

    // A dangling reference is a warning, and an error with --strict.
    let dir = tempfile::tempdir().unwrap();
    wayfarer_content::bundled().write_dir(dir.path()).unwrap();
    let stores = dir.path().join("stores.json");
    let text = std::fs::read_to_string(&stores).unwrap();
    let first_item = first_item_id(&text);
    let edited = text.replacen(
        &format!("\"itemId\": {first_item}"),
        "\"itemId\": \"no_such_item_anywhere\"",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&stores, edited).unwrap();
    let warned = wayfarer(&["check-content", dir.path().to_str().unwrap()]);
    assert!(warned.status.success(), "warnings only");
    assert!(String::from_utf8_lossy(&warned.stdout).contains("no_such_item_anywhere"));
    let strict = wayfarer(&["check-content", dir.path().to_str().unwrap(), "--strict"]);
    assert!(!strict.status.success());
}

/// The first `itemId` value in a stores file, quoted.
fn first_item_id(text: &str) -> String {
    fn find(v: &Value) -> Option<String> {
        match v {
            Value::Object(map) => map
                .get("itemId")
                .and_then(|i| i.as_str().map(|s| format!("\"{s}\"")))
                .or_else(|| map.values().find_map(find)),
            Value::Array(items) => items.iter().find_map(find),
            _ => None,
        }
    }
    find(&serde_json::from_str(text).unwrap()).expect("a store line with an itemId")
}

#[test]
fn bounds_builds_a_manifest_from_a_gltf_model() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models/anvil");
    std::fs::create_dir_all(&models).unwrap();
    let positions: Vec<f32> = vec![0.0, 0.0, 0.0, 2.0, 1.0, 3.0, 1.0, 0.5, 1.0];
    let bytes: Vec<u8> = positions.iter().flat_map(|f| f.to_le_bytes()).collect();
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let gltf = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bytes.len(), "uri": uri}],
        "bufferViews": [{"buffer": 0, "byteLength": bytes.len()}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                        "min": [0.0, 0.0, 0.0], "max": [2.0, 1.0, 3.0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]
    });
    std::fs::write(models.join("anvil.gltf"), gltf.to_string()).unwrap();
    let stations = dir.path().join("stations.json");
    std::fs::write(&stations, r#"{"stations": []}"#).unwrap();
    let out = dir.path().join("model-bounds.json");
    let result = wayfarer(&[
        "bounds",
        "--models",
        dir.path().join("models").to_str().unwrap(),
        "--stations",
        stations.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let model = &manifest["models"][0];
    assert_eq!(model["id"], "anvil");
    assert_eq!(model["assetPath"], "asset://models/anvil/anvil.gltf");
    assert_eq!(model["dimensions"], json!({"x": 2.0, "y": 1.0, "z": 3.0}));
    assert_eq!(model["footprint"], json!({"width": 2, "depth": 3}));
    assert_eq!(manifest["tileSize"], 1.0);
    assert!(manifest["generatedAt"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn the_item_catalogue_follows_the_active_content() {
    let (cdn, url) = Cdn::start().await;
    let app = TestApp::spawn_with(AppOptions {
        env: vec![
            ("PUBLIC_CDN_URL", url),
            ("MANIFEST_REFRESH_SECONDS", "1".into()),
        ],
        ..Default::default()
    })
    .await;
    // Written at start: every item of the content, by name and value, for SQL.
    let catalog = app.store().catalog().all().await.unwrap();
    let content = wayfarer_content::load_bundled();
    assert_eq!(catalog.len(), content.items.len());
    let logs = catalog.iter().find(|i| i.id == "logs").unwrap();
    assert_eq!(logs.name, content.items["logs"].name);
    assert_eq!(logs.value, content.items["logs"].value as i64);
    let data: Value = serde_json::from_str(&logs.data).unwrap();
    assert_eq!(data["id"], "logs");
    assert!(catalog.iter().find(|i| i.id == "coins").unwrap().stackable);

    // New content from the CDN rewrites it.
    cdn.edit("items/resources.json", |items| {
        for item in items.as_array_mut().unwrap() {
            if item["id"] == "logs" {
                item["value"] = json!(777);
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let catalog = app.store().catalog().all().await.unwrap();
        if catalog.iter().any(|i| i.id == "logs" && i.value == 777) {
            assert_eq!(catalog.len(), content.items.len());
            break;
        }
        assert!(Instant::now() < deadline, "the catalogue never followed");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
