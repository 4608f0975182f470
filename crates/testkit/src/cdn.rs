//! A CDN of manifests the test can edit.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;

/// A CDN in the test: serves a mutable manifest set at /manifests/<file> with strong ETags and 304s,
/// counting full downloads.
#[derive(Clone)]
pub struct Cdn {
    pub files: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
    pub downloads: Arc<AtomicUsize>,
    pub not_modified: Arc<AtomicUsize>,
}

fn etag_of(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    format!("\"{:016x}\"", h.finish())
}

async fn serve_manifest(
    State(cdn): State<Cdn>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> axum::response::Response {
    let Some(bytes) = cdn.files.lock().unwrap().get(&file).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let etag = etag_of(&bytes);
    if headers.get("if-none-match").and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
        cdn.not_modified.fetch_add(1, Ordering::SeqCst);
        return (StatusCode::NOT_MODIFIED, [("etag", etag)]).into_response();
    }
    cdn.downloads.fetch_add(1, Ordering::SeqCst);
    ([("etag", etag)], bytes).into_response()
}

impl Cdn {
    /// Serves the bundled content; returns the CDN and its base URL.
    pub async fn start() -> (Cdn, String) {
        let cdn = Cdn {
            files: Arc::new(Mutex::new(wayfarer_content::bundled().files)),
            downloads: Arc::new(AtomicUsize::new(0)),
            not_modified: Arc::new(AtomicUsize::new(0)),
        };
        let router = axum::Router::new()
            .route("/manifests/{*file}", axum::routing::get(serve_manifest))
            .with_state(cdn.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        (cdn, url)
    }

    /// Edits one file as JSON.
    pub fn edit(&self, file: &str, f: impl FnOnce(&mut serde_json::Value)) {
        let mut files = self.files.lock().unwrap();
        let mut value: serde_json::Value = serde_json::from_slice(&files[file]).unwrap();
        f(&mut value);
        files.insert(file.into(), serde_json::to_vec_pretty(&value).unwrap());
    }
}
