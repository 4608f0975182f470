//! gzip of bodies that are fixed for a build or a content version (the browser client's files,
//! manifests, map chunks, skill unlocks): compressed once, the first time a client that accepts it
//! asks, and kept ([`LazyGzip`]). Which requests get it is the HTTP layer's (`http::compress`).

use std::io::Write as _;
use std::sync::{Arc, OnceLock};

/// Bodies smaller than this are sent as they are: gzip's header and trailer would eat the gain.
pub const MIN_SIZE: usize = 256;

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

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
}
