//! The WebSocket transport of `/ws`: the upgrade handshake, and a socket that writes the server's
//! text frames itself.
//!
//! Why not axum's `WebSocket`: tungstenite formats each frame into a per-connection output buffer
//! that keeps the capacity of the largest frame it ever held. A player's first `world:update` in a
//! crowd is 30–40 KiB, so every idle connection kept that much memory for nothing (measured: 62 KiB
//! per idle player, BENCHMARKS.md). And it costs one write system call per message, where a tick
//! sends a player dozens (chat lines, hits, the update).
//!
//! So tungstenite keeps reading frames and answering pings and closes, and data frames go out
//! here: a server frame is unmasked (RFC 6455 section 5.1), just a header and the payload, so a
//! batch of messages is formatted into one temporary buffer and written with one call, and nothing
//! stays allocated between writes. Before writing, tungstenite's own buffer is flushed, so its
//! control frames never interleave with ours.

use axum::extract::FromRequestParts;
use axum::http::header::{CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, UPGRADE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::future::OptionFuture;
use futures_util::{FutureExt, SinkExt, StreamExt};
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{self, Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

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

impl From<NotAnUpgrade> for crate::http::error::ApiError {
    fn from(why: NotAnUpgrade) -> Self {
        crate::http::error::ApiError::bad_request(format!("expected a WebSocket upgrade: {why}"))
    }
}

impl IntoResponse for NotAnUpgrade {
    fn into_response(self) -> Response {
        crate::http::error::ApiError::from(self).into_response()
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
        let upgrade = async move {
            match on_upgrade.await {
                Ok(upgraded) => Some(Socket::new(TokioIo::new(upgraded), config).await),
                Err(err) => {
                    tracing::debug!(error = %err, "WebSocket upgrade did not complete");
                    None
                }
            }
        };
        // Two stages, the second replacing the first: one `async` block awaiting both kept the
        // upgrade's state (the config, the callback) for the connection's whole life, 120 bytes
        // of every idle player's task.
        tokio::spawn(upgrade.then(|socket| OptionFuture::from(socket.map(serve))));
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

/// The close code and reason for a read error that RFC 6455 gives one: 1007 for a text message
/// that is not UTF-8, 1009 for a message over the configured size; `None` for the others (I/O
/// errors, protocol violations), after which the connection just ends.
fn close_for(err: &tungstenite::Error) -> Option<(u16, &'static str)> {
    match err {
        tungstenite::Error::Utf8(_) => Some((1007, "text messages must be UTF-8")),
        tungstenite::Error::Capacity(tungstenite::error::CapacityError::MessageTooLong {
            ..
        }) => Some((1009, "message too big")),
        _ => None,
    }
}

/// The transport failed; the connection is over.
#[derive(Debug, thiserror::Error)]
#[error("WebSocket send failed: {0}")]
pub struct SendError(#[from] tungstenite::Error);

/// One upgraded connection (generic over the byte stream so tests can run it over a pipe).
pub struct Socket<S = TokioIo<Upgraded>> {
    stream: WebSocketStream<S>,
}

/// Text messages formatted as unmasked server frames, ready to write.
#[derive(Debug, Default)]
pub struct Frames {
    buffer: Vec<u8>,
}

/// FIN set, opcode text: every message is one whole frame.
const FIN_TEXT: u8 = 0x80 | 0x1;
/// The longest header: two bytes and a 64-bit length.
const MAX_HEADER_BYTES: usize = 10;
/// The header [`Frames::push_with`] leaves room for before it knows the length: the 16-bit length
/// form, which holds a crowd's `world:update` (126 bytes to 64 KiB), so those are never moved.
const GUESSED_HEADER_BYTES: usize = 4;

/// The frame header for a payload of `len` bytes, the shortest form that holds it (RFC 6455
/// section 5.2), and how many of the bytes it uses.
fn header(len: usize) -> ([u8; MAX_HEADER_BYTES], usize) {
    let mut header = [0u8; MAX_HEADER_BYTES];
    header[0] = FIN_TEXT;
    if len < 126 {
        header[1] = len as u8;
        (header, 2)
    } else if let Ok(len) = u16::try_from(len) {
        header[1] = 126;
        header[2..4].copy_from_slice(&len.to_be_bytes());
        (header, 4)
    } else {
        header[1] = 127;
        header[2..10].copy_from_slice(&(len as u64).to_be_bytes());
        (header, 10)
    }
}

impl Frames {
    /// Appends one text message as one frame.
    pub fn push(&mut self, text: &str) {
        let (header, header_len) = header(text.len());
        self.buffer.reserve(header_len + text.len());
        self.buffer.extend_from_slice(&header[..header_len]);
        self.buffer.extend_from_slice(text.as_bytes());
    }

    /// Appends one text message that `write` appends to the buffer itself (it must only append, and
    /// only UTF-8): a message is encoded straight into the frame, with no `String` of its own.
    ///
    /// The length is known only afterwards, so room for a 16-bit-length header is left first; a
    /// payload that needs the short or the long form is moved once (short ones are under 126 bytes,
    /// long ones rare). Encoding into a scratch buffer and copying it would need that buffer kept
    /// somewhere, which is the per-connection memory this transport exists to avoid; a standalone
    /// measurement of both (and of a 10-byte placeholder, always moving) was within noise, the
    /// buffer's allocation dominating.
    pub fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let start = self.buffer.len();
        let payload_start = start + GUESSED_HEADER_BYTES;
        self.buffer.resize(payload_start, 0);
        write(&mut self.buffer);
        debug_assert!(self.buffer.len() >= payload_start, "`write` only appends");
        let payload_len = self.buffer.len().saturating_sub(payload_start);
        let (header, header_len) = header(payload_len);
        let payload_end = payload_start + payload_len;
        if header_len < GUESSED_HEADER_BYTES {
            self.buffer
                .copy_within(payload_start..payload_end, start + header_len);
            self.buffer.truncate(start + header_len + payload_len);
        } else if header_len > GUESSED_HEADER_BYTES {
            self.buffer
                .resize(payload_end + header_len - GUESSED_HEADER_BYTES, 0);
            self.buffer
                .copy_within(payload_start..payload_end, start + header_len);
        }
        self.buffer[start..start + header_len].copy_from_slice(&header[..header_len]);
    }

    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
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
            Some(Err(err)) => {
                // A message the protocol says ends the connection with a code (RFC 6455 section
                // 7.4.1): the client is told why before the TCP connection goes.
                // Boxed: this future is part of every idle player's task (see
                // `Connection::serve`), and a close frame's would double it.
                if let Some((code, reason)) = close_for(&err) {
                    Box::pin(self.close(code, reason)).await;
                }
                Incoming::Error(err)
            }
        }
    }

    /// Sends a ping (the client's pong, or any frame, shows it is still there).
    pub async fn ping(&mut self) -> Result<(), SendError> {
        self.stream.send(Message::Ping(Default::default())).await?;
        Ok(())
    }

    /// Sends one text message.
    pub async fn send_text(&mut self, text: &str) -> Result<(), SendError> {
        let mut frames = Frames::default();
        frames.push(text);
        self.send(frames).await
    }

    /// Writes `frames` to the client in one go. (An `async` block, not an `async fn`, which
    /// would hold the frames twice in a future that every delivery awaits.)
    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn would keep its arguments twice in its future"
    )]
    pub fn send(
        &mut self,
        frames: Frames,
    ) -> impl std::future::Future<Output = Result<(), SendError>> + '_ {
        async move {
            if frames.buffer.is_empty() {
                return Ok(());
            }
            // tungstenite may hold a pong or close reply; it goes first, whole.
            self.stream.flush().await?;
            self.stream
                .get_mut()
                .write_all(&frames.buffer)
                .await
                .map_err(tungstenite::Error::Io)?;
            Ok(())
        }
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

    /// Reads one raw server frame (RFC 6455 section 5.2): FIN, opcode, payload.
    async fn read_frame(pipe: &mut tokio::io::DuplexStream) -> (bool, u8, Vec<u8>) {
        let mut head = [0u8; 2];
        pipe.read_exact(&mut head).await.unwrap();
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
        (head[0] & 0x80 != 0, head[0] & 0x0f, payload)
    }

    #[tokio::test]
    async fn each_length_gets_the_shortest_header_that_holds_it() {
        let (server_end, mut client_end) = tokio::io::duplex(1 << 20);
        let mut socket = Socket::new(server_end, config()).await;
        // The edges of the 7-bit, 16-bit and 64-bit length forms.
        let lengths = [0, 1, 125, 126, 127, 65_535, 65_536, 100_000];
        let mut frames = Frames::default();
        let texts: Vec<String> = lengths
            .iter()
            .map(|&n| "é".repeat(n / 2) + &"a".repeat(n % 2))
            .collect();
        for text in &texts {
            frames.push(text);
        }
        socket.send(frames).await.unwrap();
        for text in &texts {
            let (fin, opcode, payload) = read_frame(&mut client_end).await;
            assert!(fin, "every message is one whole frame");
            assert_eq!(opcode, 0x1, "a text frame");
            assert_eq!(payload, text.as_bytes());
        }
    }

    /// The header bytes RFC 6455 section 5.2 gives a text frame of `len` bytes.
    fn expected_header(len: usize) -> Vec<u8> {
        match len {
            0..=125 => vec![0x81, len as u8],
            126..=65_535 => [[0x81, 126].as_slice(), &(len as u16).to_be_bytes()].concat(),
            _ => [[0x81, 127].as_slice(), &(len as u64).to_be_bytes()].concat(),
        }
    }

    #[test]
    fn a_message_written_into_the_buffer_gets_the_header_of_its_length() {
        let lengths = [0, 1, 125, 126, 127, 65_535, 65_536, 100_000];
        for len in lengths {
            let payload: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            // Alone, and after a frame already in the buffer (the batch case).
            for before in ["", "earlier message"] {
                let mut frames = Frames::default();
                if !before.is_empty() {
                    frames.push(before);
                }
                let start = frames.buffer.len();
                frames.push_with(|buf| buf.extend_from_slice(&payload));
                let header = expected_header(len);
                assert_eq!(
                    &frames.buffer[start..start + header.len()],
                    header,
                    "{len} bytes"
                );
                assert_eq!(
                    &frames.buffer[start + header.len()..],
                    payload,
                    "{len} bytes"
                );

                let mut pushed = Frames::default();
                if !before.is_empty() {
                    pushed.push(before);
                }
                pushed.push(std::str::from_utf8(&payload).unwrap());
                assert_eq!(frames.buffer, pushed.buffer, "push and push_with agree");
            }
        }
    }

    #[tokio::test]
    async fn a_client_library_reads_a_batch_as_separate_messages_in_order() {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let mut socket = Socket::new(server_end, config()).await;
        let mut client = WebSocketStream::from_raw_socket(client_end, Role::Client, None).await;
        let texts = ["first".to_owned(), "x".repeat(40_000), "third é".to_owned()];
        let mut frames = Frames::default();
        for (i, text) in texts.iter().enumerate() {
            if i % 2 == 0 {
                frames.push(text);
            } else {
                frames.push_with(|buf| buf.extend_from_slice(text.as_bytes()));
            }
        }
        socket.send(frames).await.unwrap();
        socket.send_text("after").await.unwrap();
        for expected in texts.iter().map(String::as_str).chain(["after"]) {
            match client.next().await {
                Some(Ok(Message::Text(text))) => assert_eq!(text.as_str(), expected),
                other => panic!("expected a text message, got {other:?}"),
            }
        }
    }

    /// A server socket limited to 64 KiB messages and the client at its other end.
    async fn limited_pair() -> (
        Socket<tokio::io::DuplexStream>,
        WebSocketStream<tokio::io::DuplexStream>,
    ) {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let limited = config()
            .max_message_size(Some(64 * 1024))
            .max_frame_size(Some(64 * 1024));
        let socket = Socket::new(server_end, limited).await;
        let client = WebSocketStream::from_raw_socket(client_end, Role::Client, None).await;
        (socket, client)
    }

    /// The close code the client receives after sending `frame` to a server socket limited to
    /// 64 KiB messages.
    async fn close_code_after(frame: Message) -> Option<u16> {
        let (mut socket, mut client) = limited_pair().await;
        client.send(frame).await.unwrap();
        assert!(matches!(socket.recv().await, Incoming::Error(_)));
        match client.next().await {
            Some(Ok(Message::Close(Some(frame)))) => Some(u16::from(frame.code)),
            other => panic!("expected a close frame, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn bad_utf8_closes_with_1007_and_oversized_messages_with_1009() {
        use tungstenite::protocol::frame::{coding::Data, coding::OpCode, Frame};
        let not_utf8 = Frame::message(vec![b'{', 0xff, 0xfe, b'}'], OpCode::Data(Data::Text), true);
        assert_eq!(close_code_after(Message::Frame(not_utf8)).await, Some(1007));
        let big = Message::Text("x".repeat(64 * 1024 + 1).into());
        assert_eq!(close_code_after(big).await, Some(1009));
        // Within the limit, split in fragments whose sum is over it: 1009 as well.
        let first = Frame::message(vec![b'a'; 40_000], OpCode::Data(Data::Text), false);
        let (mut socket, mut client) = limited_pair().await;
        client.send(Message::Frame(first)).await.unwrap();
        let rest = Frame::message(vec![b'a'; 40_000], OpCode::Data(Data::Continue), true);
        client.send(Message::Frame(rest)).await.unwrap();
        assert!(matches!(socket.recv().await, Incoming::Error(_)));
        assert!(matches!(
            client.next().await,
            Some(Ok(Message::Close(Some(f)))) if u16::from(f.code) == 1009
        ));
    }

    #[tokio::test]
    async fn pings_are_answered_and_closes_are_replied_between_our_frames() {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        let mut socket = Socket::new(server_end, config()).await;
        let mut client = WebSocketStream::from_raw_socket(client_end, Role::Client, None).await;
        client.send(Message::Ping("p".into())).await.unwrap();
        client.send(Message::Text("hi".into())).await.unwrap();
        assert!(matches!(socket.recv().await, Incoming::Control));
        assert!(matches!(socket.recv().await, Incoming::Text(t) if t.as_str() == "hi"));
        socket.send_text("reply").await.unwrap();
        // The pong tungstenite queued goes out before our frame, whole.
        assert!(matches!(client.next().await, Some(Ok(Message::Pong(p))) if &p[..] == b"p"));
        assert!(matches!(client.next().await, Some(Ok(Message::Text(t))) if t.as_str() == "reply"));
        client.close(None).await.unwrap();
        assert!(matches!(socket.recv().await, Incoming::Closed));
        // The reply close frame was sent when the close arrived.
        assert!(matches!(
            client.next().await,
            Some(Ok(Message::Close(_))) | None
        ));
    }
}
