//! The WebSocket transport of `/ws`: the upgrade handshake and a socket whose writes keep no
//! per-connection buffer at the size of the largest message.
//!
//! Why not axum's `WebSocket`: tungstenite formats each frame into a per-connection output buffer
//! that keeps the capacity of the largest frame it ever held. A player's first `world:update` in a
//! crowd is 30–40 KiB, so every idle connection kept that much memory for nothing (measured: 62 KiB
//! per idle player, BENCHMARKS.md). Owning the tungstenite stream lets us send a long text as
//! fragments of at most [`FRAGMENT_BYTES`] (RFC 6455 section 5.4; every client library reassembles
//! them), so the buffer never grows past one fragment. Shared texts (one encoding for many
//! recipients) are sliced without copying.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::{CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, UPGRADE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{self, Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

/// Longest frame the server writes; longer texts go out as several fragments.
pub const FRAGMENT_BYTES: usize = 4 * 1024;

/// A valid WebSocket upgrade request (RFC 6455 section 4.2.1), taken apart for [`Upgrade::accept`].
pub struct Upgrade {
    key: HeaderValue,
    on_upgrade: OnUpgrade,
}

/// Why a request is not a WebSocket upgrade.
#[derive(Debug)]
pub struct NotAnUpgrade(&'static str);

impl std::fmt::Display for NotAnUpgrade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl IntoResponse for NotAnUpgrade {
    fn into_response(self) -> Response {
        crate::http::error::ApiError::bad_request(format!(
            "expected a WebSocket upgrade: {}",
            self.0
        ))
        .into_response()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = NotAnUpgrade;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        if parts.method != Method::GET {
            return Err(NotAnUpgrade("a WebSocket upgrade is a GET"));
        }
        let headers = &parts.headers;
        if !header_has_token(headers, CONNECTION, "upgrade") {
            return Err(NotAnUpgrade("`Connection: upgrade` is missing"));
        }
        if !header_has_token(headers, UPGRADE, "websocket") {
            return Err(NotAnUpgrade("`Upgrade: websocket` is missing"));
        }
        if headers
            .get("sec-websocket-version")
            .is_none_or(|v| v.as_bytes() != b"13")
        {
            return Err(NotAnUpgrade("`Sec-WebSocket-Version: 13` is missing"));
        }
        let key = headers
            .get(SEC_WEBSOCKET_KEY)
            .cloned()
            .ok_or(NotAnUpgrade("`Sec-WebSocket-Key` is missing"))?;
        let on_upgrade = parts
            .extensions
            .remove::<OnUpgrade>()
            .ok_or(NotAnUpgrade("this connection cannot be upgraded"))?;
        Ok(Upgrade { key, on_upgrade })
    }
}

/// Whether a comma-separated header (any of its values) lists `token`, in any letter case.
fn header_has_token(headers: &HeaderMap, name: axum::http::HeaderName, token: &str) -> bool {
    headers.get_all(name).iter().any(|value| {
        value.to_str().is_ok_and(|v| {
            v.split(',')
                .any(|part| part.trim().eq_ignore_ascii_case(token))
        })
    })
}

impl Upgrade {
    /// Answers `101 Switching Protocols` and runs `serve` on the socket once hyper hands the
    /// connection over.
    pub fn accept<F, Fut>(self, config: WebSocketConfig, serve: F) -> Response
    where
        F: FnOnce(Socket) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let accept = tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        let on_upgrade = self.on_upgrade;
        tokio::spawn(async move {
            let upgraded = match on_upgrade.await {
                Ok(upgraded) => upgraded,
                Err(err) => {
                    tracing::debug!(error = %err, "WebSocket upgrade did not complete");
                    return;
                }
            };
            serve(Socket::new(TokioIo::new(upgraded), config).await).await;
        });
        let mut response = StatusCode::SWITCHING_PROTOCOLS.into_response();
        let headers = response.headers_mut();
        headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
        headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
        if let Ok(accept) = HeaderValue::from_str(&accept) {
            headers.insert(SEC_WEBSOCKET_ACCEPT, accept);
        }
        response
    }
}

/// What the client sent.
#[derive(Debug)]
pub enum Incoming {
    Text(Utf8Bytes),
    Binary,
    /// Ping or pong (tungstenite answers pings itself).
    Control,
    /// The client closed, or the stream ended.
    Closed,
    Error(tungstenite::Error),
}

/// The transport failed; the connection is over.
#[derive(Debug, thiserror::Error)]
#[error("WebSocket send failed: {0}")]
pub struct SendError(#[from] tungstenite::Error);

/// One upgraded connection (generic over the byte stream so tests can run it over a pipe).
pub struct Socket<S = TokioIo<Upgraded>> {
    stream: WebSocketStream<S>,
}

/// Lets an `Arc<str>` own the bytes of a `Bytes` without a copy.
struct SharedText(Arc<str>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Socket<S> {
    /// A server-side socket over `stream`, which has already done the handshake.
    pub async fn new(stream: S, config: WebSocketConfig) -> Self {
        Socket {
            stream: WebSocketStream::from_raw_socket(stream, Role::Server, Some(config)).await,
        }
    }

    /// The next message from the client.
    pub async fn recv(&mut self) -> Incoming {
        match self.stream.next().await {
            Some(Ok(Message::Text(text))) => Incoming::Text(text),
            Some(Ok(Message::Binary(_))) => Incoming::Binary,
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => Incoming::Control,
            Some(Ok(Message::Close(_))) => {
                // tungstenite queued the reply close frame; send it now, not when the socket drops
                // (leaving the world and saving come first and may take a while).
                let _ = self.stream.flush().await;
                Incoming::Closed
            }
            None => Incoming::Closed,
            Some(Err(err)) => Incoming::Error(err),
        }
    }

    /// Sends a text this connection owns.
    pub async fn send_text(&mut self, text: String) -> Result<(), SendError> {
        self.send_bytes(Bytes::from(text)).await
    }

    /// Sends a text encoded once for many connections; each fragment is a view into it.
    pub async fn send_shared(&mut self, text: &Arc<str>) -> Result<(), SendError> {
        self.send_bytes(Bytes::from_owner(SharedText(Arc::clone(text))))
            .await
    }

    /// Writes `text` (valid UTF-8: it comes from a `String` or a `str`) as one frame, or as fragments
    /// of at most [`FRAGMENT_BYTES`]. A fragment boundary may fall inside a character: UTF-8 is checked
    /// over the whole message by the receiver.
    async fn send_bytes(&mut self, text: Bytes) -> Result<(), SendError> {
        let mut start = 0;
        loop {
            let end = (start + FRAGMENT_BYTES).min(text.len());
            let opcode = if start == 0 {
                OpCode::Data(Data::Text)
            } else {
                OpCode::Data(Data::Continue)
            };
            let last = end == text.len();
            let frame = Frame::message(text.slice(start..end), opcode, last);
            // `feed` writes through once the buffer passes its write size (0 here), so at most one
            // fragment waits in it; the flush sends the last.
            self.stream.feed(Message::Frame(frame)).await?;
            if last {
                break;
            }
            start = end;
        }
        self.stream.flush().await?;
        Ok(())
    }

    /// Sends a close frame with `code` and `reason` (errors ignored: the connection ends anyway).
    pub async fn close(&mut self, code: u16, reason: &str) {
        let frame = CloseFrame {
            code: CloseCode::from(code),
            reason: reason.into(),
        };
        let _ = self.stream.send(Message::Close(Some(frame))).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn config() -> WebSocketConfig {
        WebSocketConfig::default().write_buffer_size(0)
    }

    /// A text of `len` bytes whose multi-byte characters straddle fragment boundaries.
    fn long_text(len: usize) -> String {
        let mut text = String::new();
        while text.len() + 3 <= len {
            text.push_str(if text.len().is_multiple_of(7) {
                "é"
            } else {
                "a"
            });
        }
        text
    }

    /// Reads raw server frames (unmasked, RFC 6455 section 5.2) until one has FIN set.
    async fn read_frames(pipe: &mut tokio::io::DuplexStream) -> Vec<(bool, u8, Vec<u8>)> {
        let mut frames = Vec::new();
        loop {
            let mut head = [0u8; 2];
            pipe.read_exact(&mut head).await.unwrap();
            let fin = head[0] & 0x80 != 0;
            let opcode = head[0] & 0x0f;
            assert_eq!(head[1] & 0x80, 0, "server frames are not masked");
            let len = match head[1] & 0x7f {
                126 => {
                    let mut ext = [0u8; 2];
                    pipe.read_exact(&mut ext).await.unwrap();
                    u64::from(u16::from_be_bytes(ext))
                }
                127 => {
                    let mut ext = [0u8; 8];
                    pipe.read_exact(&mut ext).await.unwrap();
                    u64::from_be_bytes(ext)
                }
                n => u64::from(n),
            };
            let mut payload = vec![0u8; len as usize];
            pipe.read_exact(&mut payload).await.unwrap();
            frames.push((fin, opcode, payload));
            if fin {
                return frames;
            }
        }
    }

    #[tokio::test]
    async fn long_texts_go_out_as_fragments_of_at_most_the_limit() {
        let (server_end, mut client_end) = tokio::io::duplex(1 << 20);
        let mut socket = Socket::new(server_end, config()).await;
        let text: Arc<str> = long_text(3 * FRAGMENT_BYTES + 100).into();
        socket.send_shared(&text).await.unwrap();

        let frames = read_frames(&mut client_end).await;
        assert_eq!(frames.len(), 4);
        assert_eq!(frames[0].1, 0x1, "the first fragment is a text frame");
        assert!(
            frames[1..].iter().all(|f| f.1 == 0x0),
            "the rest continue it"
        );
        assert!(frames[..3]
            .iter()
            .all(|f| !f.0 && f.2.len() == FRAGMENT_BYTES));
        assert!(frames[3].0 && frames[3].2.len() == text.len() - 3 * FRAGMENT_BYTES);
        let joined: Vec<u8> = frames.into_iter().flat_map(|f| f.2).collect();
        assert_eq!(joined, text.as_bytes());
    }

    #[tokio::test]
    async fn a_text_up_to_the_limit_is_one_frame() {
        let (server_end, mut client_end) = tokio::io::duplex(1 << 20);
        let mut socket = Socket::new(server_end, config()).await;
        let text = "x".repeat(FRAGMENT_BYTES);
        socket.send_text(text.clone()).await.unwrap();
        let frames = read_frames(&mut client_end).await;
        assert_eq!(frames.len(), 1);
        assert_eq!((frames[0].0, frames[0].1), (true, 0x1));
        assert_eq!(frames[0].2, text.as_bytes());
    }

    #[tokio::test]
    async fn a_client_library_reassembles_the_fragments_into_one_message() {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let mut socket = Socket::new(server_end, config()).await;
        let mut client = WebSocketStream::from_raw_socket(client_end, Role::Client, None).await;
        let first = long_text(10 * FRAGMENT_BYTES + 1);
        let second = "short".to_owned();
        socket.send_text(first.clone()).await.unwrap();
        socket.send_text(second.clone()).await.unwrap();
        for expected in [first, second] {
            match client.next().await {
                Some(Ok(Message::Text(text))) => assert_eq!(text.as_str(), expected),
                other => panic!("expected one text message, got {other:?}"),
            }
        }
    }
}
