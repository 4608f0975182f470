//! Connection hygiene: how many connections one address and the whole server may hold open, how
//! long a connection may idle, and the open-file limit that all of it must stay below.
//!
//! Why: a connection costs a file descriptor and a task whether or not it ever sends a request. With
//! nothing bounding them, one address holding a thousand silent or half-sent connections exhausted
//! the process's files (`accept error: Too many open files`), and `/health` stopped answering for
//! everyone. So every accepted connection takes a [`Slot`] from the [`ConnectionTracker`], refused
//! when its address (IPv6 by its /64, `client_addr::limit_key`) or the server is full, and the
//! accept loop (`http::listener`) closes connections that idle past their time. The game socket
//! has its own liveness check (pings, `http::ws`). The settings are read with the rest of the
//! configuration (`config::connections`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::client_addr::{limit_key, IpNet, TrustedProxies};
use crate::config::connections::ConnectionSettings;

/// Raises the soft limit of open files to the hard limit (the common soft limit of 1,024 is what
/// the attack above exhausted) and returns the limit now in force.
pub fn raise_open_file_limit() -> u64 {
    // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let before = limit.rlim_cur;
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                tracing::info!(
                    before,
                    after = raised.rlim_cur,
                    "raised the open-file limit to its hard limit"
                );
                return raised.rlim_cur;
            }
            tracing::warn!(
                before,
                hard = limit.rlim_max,
                "could not raise the open-file limit"
            );
        }
        limit.rlim_cur
    }
}

/// Why a connection was refused at accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its address holds `MAX_CONNECTIONS_PER_ADDRESS` already.
    Address,
    /// The server holds its global cap already.
    Server,
}

impl Refusal {
    /// The metric label.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Address => "per_address",
            Refusal::Server => "server_full",
        }
    }
}

/// The open connections, by address and in all.
pub struct ConnectionTracker {
    per_address: usize,
    global: usize,
    exempt: Vec<IpNet>,
    trusted: TrustedProxies,
    open: AtomicUsize,
    by_address: Mutex<HashMap<IpAddr, usize>>,
}

impl ConnectionTracker {
    pub fn new(settings: &ConnectionSettings, global: usize, trusted: TrustedProxies) -> Self {
        Self {
            per_address: settings.per_address,
            global,
            exempt: settings.exempt.clone(),
            trusted,
            open: AtomicUsize::new(0),
            by_address: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a slot for a connection from `peer`, or says why not. The slot is given back when
    /// the connection (and the game socket it may become) is dropped.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Arc<Slot>, Refusal> {
        // Counted before the check, so two accepts racing for the last place cannot both win.
        if self.open.fetch_add(1, Ordering::AcqRel) >= self.global {
            self.open.fetch_sub(1, Ordering::AcqRel);
            return Err(Refusal::Server);
        }
        let exempt = self.trusted.trusts(peer) || self.exempt.iter().any(|net| net.contains(peer));
        let key = if exempt {
            None
        } else {
            let key = limit_key(peer);
            let mut map = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
            let held = map.entry(key).or_insert(0);
            if *held >= self.per_address {
                drop(map);
                self.open.fetch_sub(1, Ordering::AcqRel);
                return Err(Refusal::Address);
            }
            *held += 1;
            Some(key)
        };
        metrics::gauge!("http_connections_open").increment(1.0);
        Ok(Arc::new(Slot {
            tracker: self.clone(),
            key,
            opened: Instant::now(),
            last_write_ms: AtomicU64::new(NEVER),
            read_since_write: AtomicBool::new(false),
        }))
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// Connections open now from `peer`'s address (0 for an exempt one).
    pub fn open_from(&self, peer: IpAddr) -> usize {
        let map = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&limit_key(peer)).copied().unwrap_or(0)
    }

    fn release(&self, key: Option<IpAddr>) {
        if let Some(key) = key {
            let mut map = self.by_address.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(held) = map.get_mut(&key) {
                *held -= 1;
                if *held == 0 {
                    map.remove(&key);
                }
            }
        }
        self.open.fetch_sub(1, Ordering::AcqRel);
        metrics::gauge!("http_connections_open").decrement(1.0);
    }
}

const NEVER: u64 = u64::MAX;

/// One connection's place, and what the idle check needs to know of its traffic.
pub struct Slot {
    tracker: Arc<ConnectionTracker>,
    key: Option<IpAddr>,
    opened: Instant,
    /// Milliseconds after `opened` of the last write ([`NEVER`] before the first).
    last_write_ms: AtomicU64,
    /// Whether a byte was read since that write.
    read_since_write: AtomicBool,
}

impl Slot {
    /// How long the connection has been waiting for a next request after a response; `None`
    /// while no response was sent yet or a next request has started to arrive.
    pub fn idle_for(&self) -> Option<Duration> {
        let last = self.last_write_ms.load(Ordering::Relaxed);
        if last == NEVER || self.read_since_write.load(Ordering::Relaxed) {
            return None;
        }
        let now = self.opened.elapsed().as_millis() as u64;
        Some(Duration::from_millis(now.saturating_sub(last)))
    }

    fn wrote(&self) {
        self.last_write_ms
            .store(self.opened.elapsed().as_millis() as u64, Ordering::Relaxed);
        self.read_since_write.store(false, Ordering::Relaxed);
    }

    fn read(&self) {
        self.read_since_write.store(true, Ordering::Relaxed);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.tracker.release(self.key);
    }
}

/// An accepted connection's byte stream, holding its [`Slot`] for as long as it lives (through
/// an upgrade to a game socket too) and noting its traffic for the idle check.
pub struct Tracked<S> {
    inner: S,
    slot: Arc<Slot>,
}

impl<S> Tracked<S> {
    pub fn new(inner: S, slot: Arc<Slot>) -> Self {
        Self { inner, slot }
    }

    /// The wrapped stream.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.slot.read();
        }
        result
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.slot.wrote();
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.slot.wrote();
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracker(per_address: usize, global: usize, exempt: &str) -> Arc<ConnectionTracker> {
        let settings = ConnectionSettings {
            per_address,
            exempt: exempt.split(',').filter_map(IpNet::parse).collect(),
            ..ConnectionSettings::default()
        };
        Arc::new(ConnectionTracker::new(
            &settings,
            global,
            TrustedProxies::parse("10.0.0.1").unwrap(),
        ))
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_address_holds_its_cap_and_the_next_is_refused_until_one_closes() {
        let t = tracker(3, 100, "127.0.0.1");
        let held: Vec<_> = (0..3)
            .map(|_| t.admit(ip("203.0.113.9")).unwrap())
            .collect();
        assert_eq!(t.admit(ip("203.0.113.9")).err(), Some(Refusal::Address));
        // Another address is untouched.
        let other = t.admit(ip("198.51.100.7")).unwrap();
        assert_eq!(t.open(), 4);
        drop(held);
        assert_eq!(t.open_from(ip("203.0.113.9")), 0);
        assert!(t.admit(ip("203.0.113.9")).is_ok());
        drop(other);
    }

    #[test]
    fn one_ipv6_64_is_one_address() {
        let t = tracker(2, 100, "none");
        let _a = t.admit(ip("2001:db8:1:2::1")).unwrap();
        let _b = t.admit(ip("2001:db8:1:2:ffff::9")).unwrap();
        assert_eq!(
            t.admit(ip("2001:db8:1:2:1234::1")).err(),
            Some(Refusal::Address)
        );
        assert!(t.admit(ip("2001:db8:1:3::1")).is_ok());
    }

    #[test]
    fn exempt_addresses_and_trusted_proxies_count_only_against_the_global_cap() {
        let t = tracker(1, 5, "127.0.0.1");
        let held: Vec<_> = (0..3)
            .map(|_| t.admit(ip("127.0.0.1")).unwrap())
            .chain((0..2).map(|_| t.admit(ip("10.0.0.1")).unwrap()))
            .collect();
        assert_eq!(t.admit(ip("203.0.113.9")).err(), Some(Refusal::Server));
        assert_eq!(t.open(), 5);
        drop(held);
        assert_eq!(t.open(), 0);
    }
}
