//! Tokens never reach the logs, at any level. Every log line the server writes passes through
//! [`redact`] on its way out ([`RedactingMakeWriter`], installed by `telemetry`), whichever code
//! logged it: our own spans and events, tower-http's request spans, and libraries that log a URL or
//! a request (tungstenite logs a client handshake's whole request at trace level, which the
//! embedded agents make with `?token=`). The request span itself is built without the token too
//! ([`RequestSpan`]), so a subscriber of another shape would not see it either.
//!
//! What is replaced by [`REDACTED`]: the value of any `token=` (the game socket's `?token=`, and
//! `access_token=` and the like), what follows an `Authorization` header name or a `Bearer`
//! scheme, and anything shaped like a JWT (`eyJ…` `.` `…` `.` `…`), wherever it appears.

use std::borrow::Cow;
use std::io::{self, Write};

use axum::http::Request;
use tracing::Span;
use tracing_subscriber::fmt::MakeWriter;

/// What a secret becomes in a log line.
pub const REDACTED: &str = "[redacted]";

/// `text` with every token it carries replaced by [`REDACTED`]; borrowed when there is none.
pub fn redact(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        match secret_at(bytes, at) {
            Some((start, end)) if end > start => {
                let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                // Every boundary is next to an ASCII byte (or the end), so it is a char boundary.
                out.push_str(&text[copied..start]);
                out.push_str(REDACTED);
                copied = end;
                at = end;
            }
            _ => at += 1,
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// The byte range of a secret value whose marker starts at `at`, if one does.
fn secret_at(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let rest = &bytes[at..];
    let after_word = at == 0 || !bytes[at - 1].is_ascii_alphanumeric();
    if starts_with_ignore_case(rest, b"token") {
        // A field named `token` in colored output has escape codes before its `=`.
        let after = skip_ansi(bytes, at + "token".len());
        if bytes.get(after) == Some(&b'=') {
            let start = skip_ansi(bytes, after + 1);
            return Some((start, value_end(bytes, start)));
        }
    }
    if after_word && starts_with_ignore_case(rest, b"authorization") {
        // `authorization: Bearer x`, `"authorization": "x"`, `authorization=x`: the whole value.
        let mut start = at + "authorization".len();
        while start < bytes.len() && matches!(bytes[start], b'"' | b'\'' | b':' | b'=' | b' ') {
            start += 1;
        }
        return Some((start, header_value_end(bytes, start)));
    }
    if after_word && starts_with_ignore_case(rest, b"bearer ") {
        let mut start = at + "bearer ".len();
        while start < bytes.len() && bytes[start] == b' ' {
            start += 1;
        }
        return Some((start, value_end(bytes, start)));
    }
    if rest.starts_with(b"eyJ") && (at == 0 || !is_base64url(bytes[at - 1])) {
        return jwt_end(bytes, at).map(|end| (at, end));
    }
    None
}

fn starts_with_ignore_case(text: &[u8], prefix: &[u8]) -> bool {
    text.len() >= prefix.len() && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Past any terminal color codes (`ESC [ … letter`) at `at`.
fn skip_ansi(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at) == Some(&0x1b) && bytes.get(at + 1) == Some(&b'[') {
        match bytes[at + 2..].iter().position(u8::is_ascii_alphabetic) {
            Some(n) => at += 2 + n + 1,
            None => break,
        }
    }
    at
}

/// Where a value in a URL, a field or a quoted string ends (where it starts, for a value redacted
/// already: redacting twice changes nothing).
fn value_end(bytes: &[u8], start: usize) -> usize {
    if bytes[start..].starts_with(REDACTED.as_bytes()) {
        return start;
    }
    bytes[start..]
        .iter()
        .position(|&b| {
            b.is_ascii_whitespace()
                || matches!(
                    b,
                    b'&' | b'"'
                        | b'\''
                        | b','
                        | b';'
                        | b')'
                        | b']'
                        | b'}'
                        | b'<'
                        | b'>'
                        | b'#'
                        | b'\\'
                )
        })
        .map_or(bytes.len(), |n| start + n)
}

/// Where a header's value ends: it may hold a space (`Bearer x`), so only a quote, a separator
/// between fields or the end of the line ends it.
fn header_value_end(bytes: &[u8], start: usize) -> usize {
    if bytes[start..].starts_with(REDACTED.as_bytes()) {
        return start;
    }
    bytes[start..]
        .iter()
        .position(|&b| matches!(b, b'"' | b'\'' | b',' | b'}' | b'\n' | b'\r' | b'\\'))
        .map_or(bytes.len(), |n| start + n)
}

fn is_base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// The end of a JWT starting at `start` (three base64url parts joined by dots, the last possibly
/// empty, as in an unsigned token), if it is one.
fn jwt_end(bytes: &[u8], start: usize) -> Option<usize> {
    let part = |from: usize| {
        from + bytes[from..]
            .iter()
            .take_while(|&&b| is_base64url(b))
            .count()
    };
    let header_end = part(start);
    if bytes.get(header_end) != Some(&b'.') {
        return None;
    }
    let claims_end = part(header_end + 1);
    if claims_end == header_end + 1 || bytes.get(claims_end) != Some(&b'.') {
        return None;
    }
    Some(part(claims_end + 1))
}

/// A [`MakeWriter`] whose writers pass each log record through [`redact`] before `inner` sees it.
#[derive(Debug, Clone)]
pub struct RedactingMakeWriter<M> {
    inner: M,
}

impl<M> RedactingMakeWriter<M> {
    /// Redacts what is written to `inner`'s writers.
    pub fn new(inner: M) -> Self {
        Self { inner }
    }
}

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for RedactingMakeWriter<M> {
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter {
            inner: self.inner.make_writer(),
            record: Vec::new(),
        }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Self::Writer {
        RedactingWriter {
            inner: self.inner.make_writer_for(meta),
            record: Vec::new(),
        }
    }
}

/// Collects one log record (the formatter makes one writer per record) and writes it redacted
/// when flushed or dropped, so a token split over two writes is still seen whole.
pub struct RedactingWriter<W: Write> {
    inner: W,
    record: Vec<u8>,
}

impl<W: Write> RedactingWriter<W> {
    fn emit(&mut self) -> io::Result<()> {
        if self.record.is_empty() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.record);
        let result = self.inner.write_all(redact(&text).as_bytes());
        self.record.clear();
        result
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.record.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.emit()?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        // A log line that cannot be written has nowhere to be reported.
        let _ = self.emit();
    }
}

/// The span of each HTTP request (tower-http's `TraceLayer`): its method, version and the URI with
/// any token taken out, at debug level as tower-http's own span is.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestSpan;

impl<B> tower_http::trace::MakeSpan<B> for RequestSpan {
    fn make_span(&mut self, request: &Request<B>) -> Span {
        let uri = request.uri().to_string();
        tracing::debug_span!(
            "request",
            method = %request.method(),
            uri = %redact(&uri),
            version = ?request.version(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl-_x";

    #[test]
    fn the_socket_query_token_is_redacted_and_the_rest_kept() {
        assert_eq!(
            redact(&format!("GET /ws?token={JWT}&characterId=c-1 HTTP/1.1")),
            "GET /ws?token=[redacted]&characterId=c-1 HTTP/1.1"
        );
        assert_eq!(
            redact("uri=/ws?characterId=c-1&token=opaque-value"),
            "uri=/ws?characterId=c-1&token=[redacted]"
        );
        assert_eq!(redact("/ws?TOKEN=x%2Fy#frag"), "/ws?TOKEN=[redacted]#frag");
        assert_eq!(redact("?access_token=abc"), "?access_token=[redacted]");
    }

    #[test]
    fn redacting_twice_changes_nothing_and_colors_do_not_hide_a_field() {
        for line in [
            "GET /ws?token=abc&x=1 authorization: Bearer abc",
            "sent bearer abc",
        ] {
            let once = redact(line).into_owned();
            assert_eq!(redact(&once), once);
        }
        assert_eq!(
            redact("\x1b[3mtoken\x1b[0m\x1b[2m=\x1b[0mabc def"),
            "\x1b[3mtoken\x1b[0m\x1b[2m=\x1b[0m[redacted] def"
        );
    }

    #[test]
    fn authorization_headers_and_bearer_values_are_redacted() {
        assert_eq!(
            redact(r#"headers={"authorization": "Bearer abc.def", "host": "x"}"#),
            r#"headers={"authorization": "[redacted]", "host": "x"}"#
        );
        assert_eq!(
            redact("Authorization: Bearer abc\r\nHost: x"),
            "Authorization: [redacted]\r\nHost: x"
        );
        assert_eq!(
            redact("sent bearer abc, then"),
            "sent bearer [redacted], then"
        );
    }

    #[test]
    fn a_jwt_anywhere_is_redacted() {
        assert_eq!(
            redact(&format!(r#"{{"token":"{JWT}","n":1}}"#)),
            r#"{"token":"[redacted]","n":1}"#
        );
        assert_eq!(
            redact(&format!("invalid {JWT} seen")),
            "invalid [redacted] seen"
        );
        // Unsigned (`alg: none`) tokens have an empty third part.
        assert_eq!(
            redact("x eyJhbGciOiJub25lIn0.eyJzIjoxfQ. y"),
            "x [redacted] y"
        );
    }

    #[test]
    fn lines_without_secrets_are_untouched() {
        for line in [
            "GET /api/v1/player 200",
            "tokens=5 spent",
            "eyJ alone is not a token",
            "eyJa.b is not either",
            "player Brom said hello",
            "naïve ünïcode ✓ stays",
        ] {
            assert!(matches!(redact(line), Cow::Borrowed(_)), "{line}");
        }
        assert_eq!(redact("ünï token=✓✓ ünï"), "ünï token=[redacted] ünï");
    }

    #[test]
    fn the_writer_redacts_a_record_written_in_pieces() {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let make = RedactingMakeWriter::new({
            let out = out.clone();
            move || Sink(out.clone())
        });
        {
            let mut writer = make.make_writer();
            writer.write_all(b"GET /ws?tok").unwrap();
            writer.write_all(b"en=secret-value HTTP/1.1\n").unwrap();
        }
        assert_eq!(
            String::from_utf8(out.lock().unwrap().clone()).unwrap(),
            "GET /ws?token=[redacted] HTTP/1.1\n"
        );
    }

    /// A writer into a shared buffer.
    struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}
