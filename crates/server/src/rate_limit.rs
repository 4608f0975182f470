//! Rate limits of specification section 8: a keyed GCRA limiter (governor) plus a temporary block.
//! Exceeding a limit blocks that key until its window frees, and at least one full window (60 s), as the
//! specification's "temporary blocks" asks; every answer carries the figures for the RateLimit-* headers.
//! Memory stays bounded: idle keys are forgotten by a periodic [`KeyedLimiter::prune`].

use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock, Reference};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

/// REST requests per window per address, and per account for requests with a valid token (a request
/// counts against both).
pub const REST_PER_WINDOW: u32 = 100;
/// Authentication attempts per window per address.
pub const AUTH_PER_WINDOW: u32 = 10;
/// WebSocket messages per second per connection.
pub const WS_PER_SECOND: u32 = 60;
/// The window of the REST and authentication limits.
/// `/status` requests per address a window: one a second on average, as often as a status page or
/// a platform probe asks, while polling it to load the server is cut short.
pub const STATUS_PER_WINDOW: u32 = 60;
pub const WINDOW: Duration = Duration::from_secs(60);

/// What a limiter says about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Allowed; `remaining` more fit now, and the window is wholly free again in `reset_secs`.
    Allowed {
        limit: u32,
        remaining: u32,
        reset_secs: u64,
    },
    /// Refused; the key is blocked for `retry_after_secs` more.
    Limited { limit: u32, retry_after_secs: u64 },
}

type Limiter<K, C> = RateLimiter<K, DefaultKeyedStateStore<K>, C, StateInformationMiddleware>;

/// A per-key limit of `limit` events per `window`, with blocking on excess.
pub struct KeyedLimiter<K: Hash + Eq + Clone, C: Clock = DefaultClock> {
    limit: u32,
    window: Duration,
    limiter: Limiter<K, C>,
    blocked_until: Mutex<HashMap<K, C::Instant>>,
    clock: C,
}

impl<K: Hash + Eq + Clone> KeyedLimiter<K, DefaultClock> {
    /// `limit` events per `window` on the real clock.
    pub fn new(limit: u32, window: Duration) -> Self {
        Self::with_clock(limit, window, DefaultClock::default())
    }
}

impl<K: Hash + Eq + Clone, C: Clock + Clone> KeyedLimiter<K, C> {
    /// `limit` events per `window` on `clock` (tests use a fake clock).
    pub fn with_clock(limit: u32, window: Duration, clock: C) -> Self {
        let limit = limit.max(1);
        let burst = NonZeroU32::new(limit).unwrap_or(NonZeroU32::MIN);
        // Replenish one event every window/limit, up to a burst of the whole limit: a fresh key may use
        // the full limit at once, and after that gets it back gradually over one window.
        let quota = Quota::with_period(window / limit)
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        let limiter: Limiter<K, C> =
            RateLimiter::new(quota, DefaultKeyedStateStore::default(), clock.clone());
        Self {
            limit,
            window,
            limiter,
            blocked_until: Mutex::new(HashMap::new()),
            clock,
        }
    }

    /// Counts one event for `key` and decides.
    pub fn check(&self, key: &K) -> Decision {
        let now = self.clock.now();
        {
            let mut blocked = self.blocked_until.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(until) = blocked.get(key) {
                if *until > now {
                    return Decision::Limited {
                        limit: self.limit,
                        retry_after_secs: ceil_secs(until.duration_since(now).into()),
                    };
                }
                blocked.remove(key);
            }
        }
        match self.limiter.check_key(key) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let per_event = self.window / self.limit;
                Decision::Allowed {
                    limit: self.limit,
                    remaining,
                    reset_secs: ceil_secs(per_event * (self.limit - remaining)),
                }
            }
            Err(not_until) => {
                // Blocked until the window frees, and never for less than one whole window.
                let frees_in: Duration = not_until.wait_time_from(now);
                let block = frees_in.max(self.window);
                let until = now + block.into();
                self.blocked_until
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(key.clone(), until);
                Decision::Limited {
                    limit: self.limit,
                    retry_after_secs: ceil_secs(block),
                }
            }
        }
    }

    /// Forgets keys that have been idle long enough to be back at full capacity, and ended blocks.
    pub fn prune(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
        let now = self.clock.now();
        self.blocked_until
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, until| *until > now);
    }

    /// How many keys are tracked (for tests and metrics).
    pub fn tracked_keys(&self) -> usize {
        self.limiter.len()
    }
}

fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

impl Decision {
    /// The answer when one request counts against two limits: refused when either refuses (the
    /// longer wait when both do), otherwise the figures of the one with less room left, so the
    /// RateLimit-* headers always describe the limit the client will meet first.
    pub fn stricter(self, other: Decision) -> Decision {
        use Decision::{Allowed, Limited};
        match (self, other) {
            (
                Limited {
                    retry_after_secs: a,
                    ..
                },
                Limited {
                    retry_after_secs: b,
                    ..
                },
            ) => {
                if b > a {
                    other
                } else {
                    self
                }
            }
            (Limited { .. }, Allowed { .. }) => self,
            (Allowed { .. }, Limited { .. }) => other,
            (
                Allowed {
                    remaining: a,
                    reset_secs: ra,
                    ..
                },
                Allowed {
                    remaining: b,
                    reset_secs: rb,
                    ..
                },
            ) => {
                if (b, std::cmp::Reverse(rb)) < (a, std::cmp::Reverse(ra)) {
                    other
                } else {
                    self
                }
            }
        }
    }
}

/// The server's limiters. Every per-address key is [`crate::client_addr::limit_key`] of the
/// client's address (an IPv6 client by its /64).
pub struct Limits {
    /// REST requests per account (requests with a valid token).
    pub rest_account: KeyedLimiter<String>,
    /// REST requests per address, whoever signs them: signing up more accounts from one address
    /// does not buy more requests.
    pub rest_address: KeyedLimiter<std::net::IpAddr>,
    /// Authentication attempts (and `/admin` codes), per address.
    pub auth: KeyedLimiter<std::net::IpAddr>,
    /// `/status` requests, per address (it is public: no account to count against).
    pub status: KeyedLimiter<std::net::IpAddr>,
    /// `DISABLE_RATE_LIMIT` outside production.
    pub disabled: bool,
}

impl Limits {
    /// The limits `config` asks for (`RATE_LIMIT_WINDOW_SECS`; `DISABLE_RATE_LIMIT` only outside
    /// production).
    pub fn from_config(config: &crate::config::Config) -> Self {
        if config.disable_rate_limit && !config.rate_limits_disabled() {
            tracing::warn!("DISABLE_RATE_LIMIT is refused in production: rate limits stay on");
        }
        Self::new(
            Duration::from_secs(config.rate_limit_window_secs),
            config.rate_limits_disabled(),
        )
    }

    /// The limits of specification section 8 over `window`.
    pub fn new(window: Duration, disabled: bool) -> Self {
        Self {
            rest_account: KeyedLimiter::new(REST_PER_WINDOW, window),
            rest_address: KeyedLimiter::new(REST_PER_WINDOW, window),
            auth: KeyedLimiter::new(AUTH_PER_WINDOW, window),
            status: KeyedLimiter::new(STATUS_PER_WINDOW, window),
            disabled,
        }
    }

    /// The window of the REST and authentication limits.
    pub fn window(&self) -> Duration {
        self.rest_account.window
    }

    /// Counts an authentication attempt (or an `/admin` code) from `ip`.
    pub fn check_auth(&self, ip: std::net::IpAddr) -> Decision {
        self.auth.check(&crate::client_addr::limit_key(ip))
    }

    /// Counts a `/status` request from `ip`.
    pub fn check_status(&self, ip: std::net::IpAddr) -> Decision {
        self.status.check(&crate::client_addr::limit_key(ip))
    }

    /// Counts a REST request from `ip` against its address (unless `skip_address`: the load
    /// generator's bots, which all come from one address) and, when `account` is the key of a
    /// valid token's account, against that account too.
    pub fn check_rest(
        &self,
        ip: std::net::IpAddr,
        account: Option<&String>,
        skip_address: bool,
    ) -> Option<Decision> {
        let by_address =
            (!skip_address).then(|| self.rest_address.check(&crate::client_addr::limit_key(ip)));
        // An address already refused does not also spend the account's budget.
        if let Some(refused @ Decision::Limited { .. }) = by_address {
            return Some(refused);
        }
        let by_account = account.map(|key| self.rest_account.check(key));
        match (by_address, by_account) {
            (Some(a), Some(b)) => Some(a.stricter(b)),
            (a, b) => a.or(b),
        }
    }

    /// Forgets idle keys (run periodically so memory stays bounded).
    pub fn prune(&self) {
        self.rest_account.prune();
        self.rest_address.prune();
        self.auth.prune();
        self.status.prune();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use governor::clock::FakeRelativeClock;

    fn limiter(
        limit: u32,
    ) -> (
        KeyedLimiter<&'static str, FakeRelativeClock>,
        FakeRelativeClock,
    ) {
        let clock = FakeRelativeClock::default();
        (
            KeyedLimiter::with_clock(limit, WINDOW, clock.clone()),
            clock,
        )
    }

    #[test]
    fn the_limit_passes_and_the_next_is_refused() {
        let (l, _) = limiter(100);
        for i in 0..100 {
            match l.check(&"a") {
                Decision::Allowed { remaining, .. } => assert_eq!(remaining, 99 - i),
                other => panic!("request {} refused: {other:?}", i + 1),
            }
        }
        assert!(matches!(
            l.check(&"a"),
            Decision::Limited { limit: 100, .. }
        ));
        // Other keys are untouched.
        assert!(matches!(
            l.check(&"b"),
            Decision::Allowed { remaining: 99, .. }
        ));
    }

    #[test]
    fn a_block_lasts_one_whole_window_then_requests_pass() {
        let (l, clock) = limiter(10);
        for _ in 0..10 {
            assert!(matches!(l.check(&"a"), Decision::Allowed { .. }));
        }
        assert_eq!(
            l.check(&"a"),
            Decision::Limited {
                limit: 10,
                retry_after_secs: 60
            }
        );
        // Capacity returns gradually, but the block holds for the whole 60 s.
        clock.advance(Duration::from_secs(30));
        assert_eq!(
            l.check(&"a"),
            Decision::Limited {
                limit: 10,
                retry_after_secs: 30
            }
        );
        clock.advance(Duration::from_millis(29_900));
        assert!(matches!(
            l.check(&"a"),
            Decision::Limited {
                retry_after_secs: 1,
                ..
            }
        ));
        clock.advance(Duration::from_millis(100));
        assert!(matches!(l.check(&"a"), Decision::Allowed { .. }));
    }

    #[test]
    fn reset_reports_when_the_window_is_wholly_free() {
        let (l, _) = limiter(10);
        assert_eq!(
            l.check(&"a"),
            Decision::Allowed {
                limit: 10,
                remaining: 9,
                reset_secs: 6
            }
        );
    }

    #[test]
    fn the_stricter_decision_is_the_one_with_less_room() {
        let allowed = |remaining, reset_secs| Decision::Allowed {
            limit: 100,
            remaining,
            reset_secs,
        };
        let limited = |retry_after_secs| Decision::Limited {
            limit: 100,
            retry_after_secs,
        };
        assert_eq!(allowed(5, 57).stricter(allowed(40, 36)), allowed(5, 57));
        assert_eq!(allowed(40, 36).stricter(allowed(5, 57)), allowed(5, 57));
        assert_eq!(allowed(5, 3).stricter(allowed(5, 9)), allowed(5, 9));
        assert_eq!(allowed(0, 60).stricter(limited(60)), limited(60));
        assert_eq!(limited(60).stricter(allowed(99, 1)), limited(60));
        assert_eq!(limited(30).stricter(limited(60)), limited(60));
        assert_eq!(limited(60).stricter(limited(30)), limited(60));
    }

    #[test]
    fn a_rest_request_counts_against_its_address_and_its_account() {
        // A long window: no request is given back while the test runs, however slow the machine.
        let limits = Limits::new(WINDOW * 100, false);
        let home: std::net::IpAddr = "203.0.113.9".parse().unwrap();
        let accounts: Vec<String> = (0..3).map(|i| format!("account:{i}")).collect();
        // Three accounts from one address share the address's 100.
        for i in 0..REST_PER_WINDOW {
            let account = &accounts[i as usize % 3];
            assert!(matches!(
                limits.check_rest(home, Some(account), false),
                Some(Decision::Allowed { .. })
            ));
        }
        assert!(matches!(
            limits.check_rest(home, Some(&accounts[0]), false),
            Some(Decision::Limited { .. })
        ));
        // The address is spent, not the accounts: account 0 has used 34 and has room elsewhere.
        let away: std::net::IpAddr = "198.51.100.1".parse().unwrap();
        assert!(matches!(
            limits.check_rest(away, Some(&accounts[0]), false),
            Some(Decision::Allowed { remaining: 65, .. })
        ));
        // Skipping the address (the load-test key) still counts the account (33 used before).
        assert!(matches!(
            limits.check_rest(home, Some(&accounts[1]), true),
            Some(Decision::Allowed { remaining: 66, .. })
        ));
        assert_eq!(limits.check_rest(home, None, true), None);
    }

    #[test]
    fn addresses_of_one_ipv6_64_share_a_budget() {
        let limits = Limits::new(WINDOW * 100, false);
        for i in 0..AUTH_PER_WINDOW {
            let ip = format!("2001:db8:7:7:{i:x}::1").parse().unwrap();
            assert!(matches!(limits.check_auth(ip), Decision::Allowed { .. }));
        }
        let same_64 = "2001:db8:7:7:ffff:ffff:ffff:ffff".parse().unwrap();
        assert!(matches!(
            limits.check_auth(same_64),
            Decision::Limited { .. }
        ));
        let next_64 = "2001:db8:7:8::1".parse().unwrap();
        assert!(matches!(
            limits.check_auth(next_64),
            Decision::Allowed { .. }
        ));
        // The REST limit keys the same way.
        for i in 0..REST_PER_WINDOW {
            let ip = format!("2001:db8:9:9::{i:x}").parse().unwrap();
            assert!(matches!(
                limits.check_rest(ip, None, false),
                Some(Decision::Allowed { .. })
            ));
        }
        let same_64 = "2001:db8:9:9:1::".parse().unwrap();
        assert!(matches!(
            limits.check_rest(same_64, None, false),
            Some(Decision::Limited { .. })
        ));
    }

    #[test]
    fn idle_keys_are_pruned() {
        let (l, clock) = limiter(10);
        for key in ["a", "b", "c"] {
            l.check(&key);
        }
        assert_eq!(l.tracked_keys(), 3);
        clock.advance(WINDOW);
        l.prune();
        assert_eq!(l.tracked_keys(), 0);
    }
}
