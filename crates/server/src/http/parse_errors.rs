//! JSON bodies for the errors hyper answers by itself.
//!
//! When hyper cannot read a request head it writes a response of its own, below axum and every
//! layer, with an empty body, and closes the connection: 400 for a malformed request line or
//! header, 414 for a request target over 65,534 bytes (the limit of the `http` crate's `Uri`,
//! which no option raises), 431 for more than 100 header fields or a head over hyper's buffer
//! (about 400 KiB). CONTRACT.md section 2 wants the JSON error body on every status >= 400, and
//! hyper has no hook for these responses, so the connection's byte stream carries it: [`Io`]
//! wraps each accepted connection and replaces such a response as it is written with the same
//! status carrying `{"error", "message"}` (`bad_request`, `uri_too_long`, `headers_too_large`).
//!
//! Telling hyper's response from ours: every response of the router with status >= 400 is JSON
//! (`error::ensure_json_errors`), so a response head with status >= 400 and no `Content-Type` can
//! only be hyper's own. hyper writes that head alone, at the start of a write (it is the first
//! thing written after the request it could not read), which is where it is looked for. A
//! connection upgraded to a WebSocket (a `101` head) is passed through unchecked from then on.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use wayfarer_protocol::{ErrorBody, ErrorCode};

use super::error::code_for_status;

/// One accepted connection; see the module documentation.
pub struct Io<S> {
    inner: S,
    state: State,
}

enum State {
    /// HTTP/1 responses: each write is looked at.
    Http,
    /// Our replacement of hyper's response is being written: the bytes and how many are out.
    Replacing(Box<(Vec<u8>, usize)>),
    /// Upgraded, or the error response written: bytes pass through.
    Through,
}

impl<S> Io<S> {
    pub fn new(inner: S) -> Self {
        Io {
            inner,
            state: State::Http,
        }
    }

    /// The wrapped stream.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }
}

impl<S: AsyncWrite + Unpin> Io<S> {
    /// Writes what is left of the replacement; `Ready(Ok)` once it is all out.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let State::Replacing(replacement) = &mut self.state {
            let (bytes, written) = &mut **replacement;
            while *written < bytes.len() {
                let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
                if n == 0 {
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                *written += n;
            }
            self.state = State::Through;
        }
        Poll::Ready(Ok(()))
    }

    /// Looks at the start of a write while the connection speaks HTTP/1: `true` when `buf` is
    /// hyper's own error response, now replaced (and to be reported as written whole).
    fn inspect(&mut self, buf: &[u8]) -> bool {
        if !matches!(self.state, State::Http) {
            return false;
        }
        if buf.starts_with(b"HTTP/1.1 101 ") {
            self.state = State::Through;
            return false;
        }
        match replacement(buf) {
            Some(bytes) => {
                self.state = State::Replacing(Box::new((bytes, 0)));
                true
            }
            None => false,
        }
    }
}

/// The JSON response that replaces `head`, if `head` is exactly one response head with status
/// >= 400 and no `Content-Type`.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    let rest = head
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| head.strip_prefix(b"HTTP/1.0 "))?;
    let status = StatusCode::from_bytes(rest.get(..3)?).ok()?;
    if status.as_u16() < 400 || !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text[..text.len() - 4].split("\r\n");
    let status_line = lines.next()?;
    let mut kept = Vec::new();
    for line in lines {
        let (name, _) = line.split_once(':')?;
        let name = name.trim();
        if name.eq_ignore_ascii_case("content-type") {
            // A response of ours.
            return None;
        }
        if !name.eq_ignore_ascii_case("content-length") && !name.eq_ignore_ascii_case("connection")
        {
            kept.push(line);
        }
    }
    let code = code_for_status(status);
    let why = match code {
        ErrorCode::UriTooLong => "the request target is longer than the server reads",
        ErrorCode::HeadersTooLarge => {
            "the request has more header fields, or a longer head, than the server reads"
        }
        _ => "the request line or a header field could not be read",
    };
    let reason = status.canonical_reason().unwrap_or("Error");
    let body = serde_json::to_vec(&ErrorBody::new(code, format!("{reason}: {why}"))).ok()?;
    let mut out = Vec::with_capacity(head.len() + body.len() + 64);
    out.extend_from_slice(status_line.as_bytes());
    out.extend_from_slice(b"\r\n");
    for line in kept {
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"content-type: application/json\r\nconnection: close\r\n");
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(&body);
    Some(out)
}

impl<S: AsyncRead + Unpin> AsyncRead for Io<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Io<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        if this.inspect(buf) {
            // hyper's bytes are taken; ours go out now or on the flush that follows.
            if let Poll::Ready(Err(err)) = this.poll_replacement(cx) {
                return Poll::Ready(Err(err));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        if matches!(this.state, State::Http) {
            // A response head is the first slice of a vectored write.
            if let Some(first) = bufs.iter().find(|b| !b.is_empty()) {
                if this.inspect(first) {
                    if let Poll::Ready(Err(err)) = this.poll_replacement(cx) {
                        return Poll::Ready(Err(err));
                    }
                    return Poll::Ready(Ok(first.len()));
                }
            }
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn body_of(response: &[u8]) -> serde_json::Value {
        let text = std::str::from_utf8(response).unwrap();
        let (_, body) = text.split_once("\r\n\r\n").unwrap();
        serde_json::from_str(body).unwrap()
    }

    #[test]
    fn only_bare_error_heads_are_replaced() {
        let bare = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n";
        let replaced = replacement(bare).unwrap();
        let text = String::from_utf8(replaced.clone()).unwrap();
        assert!(text.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(text.contains("\r\ndate: Mon, 01 Jan 2024 00:00:00 GMT\r\n"));
        assert!(text.contains("\r\ncontent-type: application/json\r\n"));
        assert!(!text.contains("content-length: 0"));
        assert_eq!(body_of(&replaced)["error"], "headers_too_large");
        let uri = replacement(b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n").unwrap();
        assert_eq!(body_of(&uri)["error"], "uri_too_long");
        let bad = replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n").unwrap();
        assert_eq!(body_of(&bad)["error"], "bad_request");

        for kept in [
            // Ours: JSON.
            &b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n"[..],
            // Not an error.
            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 304 Not Modified\r\netag: \"x\"\r\n\r\n",
            // A head with its body in the same write is not hyper's bare answer.
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}",
            // Not a head at all.
            b"{\"error\":\"x\"}",
            b"HTTP/1.1 4",
        ] {
            assert!(replacement(kept).is_none(), "{}", String::from_utf8_lossy(kept));
        }
    }

    #[tokio::test]
    async fn the_replacement_goes_out_whole_and_upgraded_bytes_pass_through() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut io = Io::new(ours);
        let head = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n";
        // Reported written whole although the pipe takes 64 bytes at a time.
        let reader = tokio::spawn(async move {
            let mut all = Vec::new();
            theirs.read_to_end(&mut all).await.unwrap();
            all
        });
        io.write_all(head).await.unwrap();
        io.flush().await.unwrap();
        io.shutdown().await.unwrap();
        drop(io);
        let all = reader.await.unwrap();
        assert_eq!(body_of(&all)["error"], "uri_too_long");

        let (ours, mut theirs) = tokio::io::duplex(1024);
        let mut io = Io::new(ours);
        io.write_all(b"HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n")
            .await
            .unwrap();
        let later = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
        io.write_all(later).await.unwrap();
        drop(io);
        let mut all = Vec::new();
        theirs.read_to_end(&mut all).await.unwrap();
        assert!(all.ends_with(later), "after an upgrade nothing is changed");
    }
}
