//! The browser client (`web/`), served at `/`.
//!
//! The files are built into the binary (`build.rs` writes the table) unless `WEB_DIR` names a
//! directory to serve from disk. URLs:
//! - `/` and page paths (`/dashboard`, …): `index.html`, revalidated on every load (`no-cache` and an
//!   ETag), with `__VERSION__` replaced by the build's version;
//! - `/v/<version>/<path>`: a client file. The version is a digest of every embedded file, so the
//!   bytes behind a URL never change: `Cache-Control: public, max-age=31536000, immutable`. A URL
//!   of another version is a 404 (a page of an older build must not get newer modules mixed into
//!   its cache under its own URLs). From `WEB_DIR` the version is `dev` and files are `no-cache`.
//!
//! Text files (the page, modules, styles, JSON, SVG) are sent gzip-compressed to a request that
//! accepts gzip (`http::compress`), with `Vary: Accept-Encoding` and the gzip form's own ETag. The
//! embedded files are compressed once, at the first request for each, and kept; files from
//! `WEB_DIR` are compressed at every request, as they are read at every request.
//!
//! The page fallback answers only `GET`/`HEAD` of paths outside the server's own prefixes
//! ([`RESERVED_PREFIXES`]), whose last segment has no dot (a missing `favicon.ico` is not a page)
//! and that a browser navigates to (`Accept` names `text/html`); everything else keeps the JSON 404.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use crate::gzip::{self, LazyGzip};
use crate::http::compress;
use crate::http::error::ApiError;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));
}

/// Paths the client never shadows: they keep their own routes and their JSON 404s.
pub const RESERVED_PREFIXES: &[&str] = &[
    "/api",
    "/ws",
    "/health",
    "/status",
    "/metrics",
    "/manifests",
    "/v",
    "/__test",
];

/// Cache policy of versioned assets: the URL changes whenever the bytes do.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Cache policy of the page and of files served from `WEB_DIR`: ask every time.
pub const REVALIDATE: &str = "no-cache";

/// The placeholder in `index.html` that becomes the version.
const VERSION_PLACEHOLDER: &str = "__VERSION__";
/// The version used for files served from `WEB_DIR`.
const DEV_VERSION: &str = "dev";

/// Where the client files come from.
#[derive(Debug, Clone)]
pub enum WebAssets {
    /// The copy built into the binary.
    Embedded,
    /// A directory read at every request (`WEB_DIR`).
    Dir(Arc<PathBuf>),
}

impl WebAssets {
    /// The embedded client, or `dir` when set.
    pub fn new(dir: Option<PathBuf>) -> WebAssets {
        match dir {
            Some(dir) => WebAssets::Dir(Arc::new(dir)),
            None => WebAssets::Embedded,
        }
    }

    /// The version in asset URLs.
    pub fn version(&self) -> &'static str {
        match self {
            WebAssets::Embedded => embedded::VERSION,
            WebAssets::Dir(_) => DEV_VERSION,
        }
    }

    /// The bytes of `path` (relative to `web/`), if it is a served file, and for an embedded one
    /// the place its gzip form is kept.
    async fn read(&self, path: &str) -> Option<(Bytes, Option<&'static LazyGzip>)> {
        match self {
            WebAssets::Embedded => {
                let at = embedded::FILES.iter().position(|(p, _)| *p == path)?;
                let lazy = embedded_gzip().get(at);
                Some((Bytes::from_static(embedded::FILES[at].1), lazy))
            }
            WebAssets::Dir(dir) => {
                let relative = Path::new(path);
                // Only plain names: no `..`, no absolute paths, nothing outside the directory.
                if !relative
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)))
                {
                    return None;
                }
                let bytes = tokio::fs::read(dir.join(relative)).await.ok()?;
                Some((Bytes::from(bytes), None))
            }
        }
    }

    /// The page with the current version filled in, its tag, and for the embedded page the place
    /// its gzip form is kept.
    async fn index(&self) -> Option<(Bytes, String, Option<&'static LazyGzip>)> {
        if let WebAssets::Embedded = self {
            static PAGE: OnceLock<Option<(Bytes, LazyGzip)>> = OnceLock::new();
            let (html, lazy) = PAGE
                .get_or_init(|| {
                    let raw = embedded::FILES.iter().find(|(p, _)| *p == "index.html")?.1;
                    let html = String::from_utf8_lossy(raw)
                        .replace(VERSION_PLACEHOLDER, embedded::VERSION);
                    Some((Bytes::from(html), LazyGzip::default()))
                })
                .as_ref()?;
            return Some((
                html.clone(),
                format!("\"{}\"", embedded::VERSION),
                Some(lazy),
            ));
        }
        let (raw, _) = self.read("index.html").await?;
        let html = String::from_utf8_lossy(&raw).replace(VERSION_PLACEHOLDER, self.version());
        let etag = format!("\"{}\"", digest(html.as_bytes()));
        Some((Bytes::from(html), etag, None))
    }
}

/// One kept gzip form per embedded file, by its place in [`embedded::FILES`].
fn embedded_gzip() -> &'static [LazyGzip] {
    static GZIP: OnceLock<Vec<LazyGzip>> = OnceLock::new();
    // One each: `vec![x; n]` would clone one `LazyGzip`, and clones share their kept form.
    GZIP.get_or_init(|| {
        (0..embedded::FILES.len())
            .map(|_| LazyGzip::default())
            .collect()
    })
}

/// Whether files of this media type are worth compressing (images and fonts already are).
fn compressible(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.starts_with("application/json")
        || content_type.starts_with("image/svg")
}

/// A short digest for ETags of files read from disk.
fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The media type of a client file.
fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

/// Whether `path` is `prefix` or lies under it (`/api` and `/api/x`, not `/apiary`).
fn under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Whether the page fallback may answer this request (see the module comment).
pub fn is_page_request(method: &Method, path: &str, headers: &HeaderMap) -> bool {
    if method != Method::GET && method != Method::HEAD {
        return false;
    }
    if path == "/" {
        return true;
    }
    if RESERVED_PREFIXES.iter().any(|p| under(path, p)) {
        return false;
    }
    let last = path.rsplit('/').next().unwrap_or("");
    if last.contains('.') {
        return false;
    }
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/html"))
}

/// Whether `If-None-Match` names `etag` (or `*`).
fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag)
}

/// 200 with `body` (or 304 on a matching `If-None-Match`) with the given type, cache policy and
/// tag; gzip-compressed when the type is worth it and the request accepts it (from `kept` when the
/// body's gzip form is kept, else compressed now).
fn respond(
    headers: &HeaderMap,
    body: Bytes,
    kept: Option<&'static LazyGzip>,
    content_type: &'static str,
    cache: &'static str,
    etag: &str,
) -> Response {
    let gzipped: Option<Bytes> = if compressible(content_type) && compress::accepts_gzip(headers) {
        match kept {
            Some(lazy) => lazy.get(&body).map(Bytes::from_owner),
            None => gzip::gzip_if_smaller(&body, 6).map(Bytes::from),
        }
    } else {
        None
    };
    let etag = match gzipped {
        Some(_) => compress::gzip_etag(etag),
        None => etag.to_owned(),
    };
    let unchanged = not_modified(headers, &etag);
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        Response::new(Body::from(gzipped.clone().unwrap_or(body)))
    };
    if compressible(content_type) {
        compress::mark(&mut response, gzipped.is_some() && !unchanged);
    }
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Ok(tag) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, tag);
    }
    // The client is one origin's own page; nothing else should frame or sniff it.
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The page (`index.html`), or a JSON 404 when no client is there (an empty `WEB_DIR`).
pub async fn page(assets: &WebAssets, headers: &HeaderMap) -> Response {
    match assets.index().await {
        Some((body, etag, kept)) => respond(
            headers,
            body,
            kept,
            "text/html; charset=utf-8",
            REVALIDATE,
            &etag,
        ),
        None => ApiError::not_found("no client is installed").into_response(),
    }
}

/// `GET /v/<version>/<path>`.
pub async fn asset(assets: &WebAssets, uri: &Uri, headers: &HeaderMap) -> Response {
    let missing = || ApiError::not_found(format!("no route for {}", uri.path())).into_response();
    let Some((version, path)) = uri
        .path()
        .strip_prefix("/v/")
        .and_then(|rest| rest.split_once('/'))
    else {
        return missing();
    };
    // index.html is only ever the page: served here it would escape its revalidation.
    if version != assets.version() || path == "index.html" {
        return missing();
    }
    let Some((body, kept)) = assets.read(path).await else {
        return missing();
    };
    let (cache, etag) = match assets {
        WebAssets::Embedded => (IMMUTABLE, format!("\"{}\"", embedded::VERSION)),
        WebAssets::Dir(_) => (REVALIDATE, format!("\"{}\"", digest(&body))),
    };
    respond(headers, body, kept, content_type(path), cache, &etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html() -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/html,application/xhtml+xml,*/*;q=0.8"),
        );
        h
    }

    #[test]
    fn the_page_fallback_never_takes_the_servers_own_prefixes() {
        for path in [
            "/api",
            "/api/nope",
            "/ws",
            "/ws/x",
            "/health/x",
            "/status/x",
            "/metrics/x",
            "/manifests/none.json",
            "/v/old/src/main.js",
            "/__test/x",
        ] {
            assert!(!is_page_request(&Method::GET, path, &html()), "{path}");
        }
        assert!(is_page_request(&Method::GET, "/", &HeaderMap::new()));
        assert!(is_page_request(&Method::GET, "/dashboard", &html()));
        assert!(is_page_request(&Method::GET, "/apiary", &html()));
        assert!(!is_page_request(&Method::GET, "/favicon.ico", &html()));
        assert!(!is_page_request(&Method::POST, "/dashboard", &html()));
        // A program that does not ask for HTML keeps the JSON 404.
        assert!(!is_page_request(&Method::GET, "/random", &HeaderMap::new()));
    }

    #[test]
    fn the_embedded_client_has_its_page_and_entry_module() {
        let names: Vec<&str> = embedded::FILES.iter().map(|(p, _)| *p).collect();
        assert!(names.contains(&"index.html"), "{names:?}");
        assert!(names.contains(&"src/main.js"), "{names:?}");
        assert!(
            !names
                .iter()
                .any(|n| n.contains("node_modules") || n.starts_with("test")),
            "{names:?}"
        );
        let page = embedded::FILES
            .iter()
            .find(|(p, _)| *p == "index.html")
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        assert!(page.contains("/v/__VERSION__/src/main.js"));
    }

    #[test]
    fn if_none_match_compares_weakly() {
        let mut h = HeaderMap::new();
        h.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("W/\"abc\", \"x\""),
        );
        assert!(not_modified(&h, "\"abc\""));
        assert!(!not_modified(&h, "\"abd\""));
    }
}
