//! gzip for what the browser client downloads: its own files (`http::web_assets`) and the public
//! JSON it loads (manifests, `/api/map` and its chunks, skill unlocks).
//!
//! These bodies are fixed for a build or a content version, so each is compressed once, the first
//! time a client that accepts gzip asks for it, and the compressed bytes are kept beside the raw
//! ones ([`LazyGzip`]); no request pays for compression after the first. A request whose
//! `Accept-Encoding` does not accept gzip gets the raw bytes. Every such response says
//! `Vary: Accept-Encoding`, so a shared cache keeps the two apart, and the gzip form has its own
//! entity tag (the raw tag with `-gzip` before the closing quote): equal tags still mean equal bytes.

use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::Response;

/// Bodies smaller than this are sent as they are: gzip's header and trailer would eat the gain.
pub const MIN_SIZE: usize = 256;

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

/// `bytes` gzip-compressed at `level` (0–9).
pub fn gzip(bytes: &[u8], level: u32) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 3 + 64),
        flate2::Compression::new(level),
    );
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

/// The gzip form of `bytes` when it is worth sending: the body is large enough and compresses.
pub fn gzip_if_smaller(bytes: &[u8], level: u32) -> Option<Vec<u8>> {
    if bytes.len() < MIN_SIZE {
        return None;
    }
    let packed = gzip(bytes, level);
    (packed.len() < bytes.len()).then_some(packed)
}

/// The entity tag of the gzip form of a body tagged `etag` (quoted, possibly weak).
pub fn gzip_etag(etag: &str) -> String {
    match etag.strip_suffix('"') {
        Some(open) => format!("{open}-gzip\""),
        None => format!("{etag}-gzip"),
    }
}

/// A body's gzip form, made the first time it is asked for and kept. Clones share it (a cloned
/// `Tagged` is the same body), so one per body: never `vec![LazyGzip::default(); n]`.
#[derive(Debug, Clone, Default)]
pub struct LazyGzip(Arc<OnceLock<Option<Arc<[u8]>>>>);

impl LazyGzip {
    /// The gzip form of `raw` (the body this belongs to), or `None` when it is not worth sending.
    pub fn get(&self, raw: &[u8]) -> Option<Arc<[u8]>> {
        self.0
            .get_or_init(|| gzip_if_smaller(raw, 9).map(Into::into))
            .clone()
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
    use std::io::Read as _;

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
    fn gzip_round_trips_and_small_bodies_stay_raw() {
        let body = "let x = 1;\n".repeat(200);
        let packed = gzip_if_smaller(body.as_bytes(), 9).expect("worth compressing");
        assert!(packed.len() < body.len() / 5);
        let mut out = String::new();
        flate2::read::GzDecoder::new(&packed[..])
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, body);
        assert!(gzip_if_smaller(b"{}", 9).is_none());
        let lazy = LazyGzip::default();
        let first = lazy.get(body.as_bytes()).unwrap();
        assert!(Arc::ptr_eq(&first, &lazy.get(body.as_bytes()).unwrap()));
    }

    #[test]
    fn the_gzip_form_has_its_own_tag() {
        assert_eq!(gzip_etag("\"abc\""), "\"abc-gzip\"");
        assert_eq!(gzip_etag("W/\"abc\""), "W/\"abc-gzip\"");
    }
}
