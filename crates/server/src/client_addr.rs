//! The client's address: the socket peer, or the forwarded-for address when the peer is a trusted proxy.
//! Never trust `X-Forwarded-For` from anyone else, or any client could pick its own rate-limit key.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;

/// A network in CIDR form (`10.0.0.0/8`, `::1/128`) or a single address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpNet {
    addr: IpAddr,
    prefix: u8,
}

impl IpNet {
    /// Parses `a.b.c.d`, `a.b.c.d/n` or the IPv6 forms.
    pub fn parse(s: &str) -> Option<IpNet> {
        let s = s.trim();
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a.parse::<IpAddr>().ok()?, p.parse::<u8>().ok()?),
            None => {
                let a = s.parse::<IpAddr>().ok()?;
                (a, if a.is_ipv4() { 32 } else { 128 })
            }
        };
        let max = if addr.is_ipv4() { 32 } else { 128 };
        (prefix <= max).then_some(IpNet { addr, prefix })
    }

    /// Whether `ip` lies inside this network.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// The key every per-address limit counts under: an IPv4 address as it is, an IPv6 address by its
/// /64 network. One IPv6 subscriber is normally given a whole /64 (RFC 6177), so keying on the exact
/// address would give one machine 2^64 budgets.
pub fn limit_key(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & (u128::MAX << 64);
            IpAddr::V6(prefix.into())
        }
        v4 => v4,
    }
}

/// IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) compare as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    }
}

/// The proxies whose `X-Forwarded-For` we believe (`TRUSTED_PROXIES`).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses a comma-separated list; returns the first bad entry on failure.
    pub fn parse(list: &str) -> Result<TrustedProxies, String> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| IpNet::parse(s).ok_or_else(|| s.to_owned()))
            .collect::<Result<Vec<_>, _>>()
            .map(TrustedProxies)
    }

    /// Whether `ip` is one of the proxies whose forwarding headers are believed.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|net| net.contains(ip))
    }

    /// The client behind `peer`: walking `X-Forwarded-For` from the right while each hop is a trusted
    /// proxy, the first untrusted address is the client. An untrusted peer is itself the client.
    pub fn client_ip(&self, peer: SocketAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = canonical(peer.ip());
        if !self.trusts(client) {
            return client;
        }
        let hops = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        for hop in hops.into_iter().rev() {
            let Ok(ip) = hop.parse::<IpAddr>() else { break };
            client = canonical(ip);
            if !self.trusts(client) {
                break;
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    #[test]
    fn cidr_membership() {
        let net = IpNet::parse("10.0.0.0/8").unwrap();
        assert!(net.contains("10.200.1.1".parse().unwrap()));
        assert!(!net.contains("11.0.0.1".parse().unwrap()));
        assert!(net.contains("::ffff:10.1.2.3".parse().unwrap()));
        assert!(IpNet::parse("::1")
            .unwrap()
            .contains("::1".parse().unwrap()));
        assert!(IpNet::parse("0.0.0.0/0")
            .unwrap()
            .contains("8.8.8.8".parse().unwrap()));
        assert!(IpNet::parse("10.0.0.0/33").is_none());
        assert!(IpNet::parse("nonsense").is_none());
    }

    #[test]
    fn forwarded_for_is_ignored_from_untrusted_peers() {
        let proxies = TrustedProxies::parse("10.0.0.1").unwrap();
        let peer: SocketAddr = "203.0.113.9:5000".parse().unwrap();
        assert_eq!(
            proxies.client_ip(peer, &headers("1.2.3.4")),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn forwarded_for_from_a_trusted_proxy_names_the_client() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, 192.168.1.1").unwrap();
        let peer: SocketAddr = "10.0.0.1:5000".parse().unwrap();
        // A client-supplied spoof at the left is ignored: the rightmost untrusted hop wins.
        assert_eq!(
            proxies.client_ip(peer, &headers("6.6.6.6, 198.51.100.7, 192.168.1.1")),
            "198.51.100.7".parse::<IpAddr>().unwrap()
        );
        // No header: the proxy itself.
        assert_eq!(
            proxies.client_ip(peer, &HeaderMap::new()),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn ipv6_addresses_share_the_key_of_their_64() {
        let key = |s: &str| limit_key(s.parse().unwrap());
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:ffff:1:2:3"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(
            key("2001:db8:1:2:aaaa::1"),
            "2001:db8:1:2::".parse::<IpAddr>().unwrap()
        );
        assert_eq!(key("203.0.113.9"), "203.0.113.9".parse::<IpAddr>().unwrap());
        assert_eq!(
            key("::ffff:203.0.113.9"),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn bad_entries_are_reported() {
        assert_eq!(TrustedProxies::parse("10.0.0.1, x").unwrap_err(), "x");
    }
}
