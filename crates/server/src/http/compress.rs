//! gzip for what the browser client downloads: its own files (`http::web_assets`) and the public
//! JSON it loads (manifests, `/api/map` and its chunks, skill unlocks).
//!
//! These bodies are fixed for a build or a content version, so each is compressed once, the first
//! time a client that accepts gzip asks for it, and the compressed bytes are kept beside the raw
//! ones (`crate::gzip::LazyGzip`); no request pays for compression after the first. A request whose
//! `Accept-Encoding` does not accept gzip gets the raw bytes. Every such response says
//! `Vary: Accept-Encoding`, so a shared cache keeps the two apart, and the gzip form has its own
//! entity tag (the raw tag with `-gzip` before the closing quote): equal tags still mean equal bytes.

use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;

/// Whether the request's `Accept-Encoding` accepts gzip (RFC 9110 §12.5.3): `gzip` or `x-gzip`
/// with a non-zero weight, or `*` with a non-zero weight when gzip is not named at all.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut named = None;
    let mut star = None;
    for value in headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
    {
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let mut q = 1.0_f32;
            for param in parts {
                if let Some((k, v)) = param.split_once('=') {
                    if k.trim().eq_ignore_ascii_case("q") {
                        q = v.trim().parse().unwrap_or(0.0);
                    }
                }
            }
            match coding.as_str() {
                "gzip" | "x-gzip" => named = Some(named.unwrap_or(false) || q > 0.0),
                "*" => star = Some(q > 0.0),
                _ => {}
            }
        }
    }
    named.or(star).unwrap_or(false)
}

/// The entity tag of the gzip form of a body tagged `etag` (quoted, possibly weak).
pub fn gzip_etag(etag: &str) -> String {
    match etag.strip_suffix('"') {
        Some(open) => format!("{open}-gzip\""),
        None => format!("{etag}-gzip"),
    }
}

/// Marks `response` as varying with `Accept-Encoding` and, when `gzipped`, as gzip-encoded.
pub fn mark(response: &mut Response, gzipped: bool) {
    let h = response.headers_mut();
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if gzipped {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        h
    }

    #[test]
    fn accept_encoding_is_read_with_its_weights() {
        assert!(accepts_gzip(&accept("gzip, deflate, br, zstd")));
        assert!(accepts_gzip(&accept("br;q=1.0, GZIP;q=0.5")));
        assert!(accepts_gzip(&accept("x-gzip")));
        assert!(accepts_gzip(&accept("*")));
        assert!(!accepts_gzip(&HeaderMap::new()));
        assert!(!accepts_gzip(&accept("identity")));
        assert!(!accepts_gzip(&accept("br, deflate")));
        assert!(!accepts_gzip(&accept("gzip;q=0")));
        assert!(!accepts_gzip(&accept("gzip;q=0.000, *")));
        assert!(!accepts_gzip(&accept("*;q=0")));
    }

    #[test]
    fn the_gzip_form_has_its_own_tag() {
        assert_eq!(gzip_etag("\"abc\""), "\"abc-gzip\"");
        assert_eq!(gzip_etag("W/\"abc\""), "W/\"abc-gzip\"");
    }
}
