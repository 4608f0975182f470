//! Cross-origin policy (specification section 4, note 6): localhost on any port, the configured client,
//! app and agent-runtime origins, the production frontend list and preview deployments matching a glob.
//! Any other origin gets no `Access-Control-Allow-Origin`.

use std::time::Duration;

use axum::http::{header, HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

use crate::config::Config;

/// The origins one server accepts.
#[derive(Debug, Clone, Default)]
pub struct OriginPolicy {
    exact: Vec<String>,
    preview_pattern: Option<String>,
}

impl OriginPolicy {
    /// The policy the configuration describes.
    pub fn from_config(config: &Config) -> Self {
        let exact = [
            &config.client_url,
            &config.public_app_url,
            &config.agent_runtime_url,
            &config.agent_runtime_api_url,
        ]
        .into_iter()
        .flatten()
        .filter_map(|url| origin_of(url))
        .chain(config.cors_origins.iter().filter_map(|o| origin_of(o)))
        .collect();
        Self {
            exact,
            preview_pattern: config
                .cors_preview_pattern
                .as_ref()
                .map(|p| p.trim().trim_end_matches('/').to_ascii_lowercase()),
        }
    }

    /// Whether a browser on `origin` may call us.
    pub fn allows(&self, origin: &str) -> bool {
        let origin = origin.to_ascii_lowercase();
        is_local_origin(&origin)
            || self.exact.contains(&origin)
            || self
                .preview_pattern
                .as_deref()
                .is_some_and(|p| glob_matches(p, &origin))
    }
}

/// `scheme://host[:port]` of a URL, lower-cased (a configured URL may carry a path).
fn origin_of(url: &str) -> Option<String> {
    let url = url.trim().to_ascii_lowercase();
    let scheme_end = url.find("://")?;
    let rest = &url[scheme_end + 3..];
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (host_end > 0).then(|| format!("{}{}", &url[..scheme_end + 3], &rest[..host_end]))
}

/// `http://localhost[:port]` or `http://127.0.0.1[:port]`, any port.
fn is_local_origin(origin: &str) -> bool {
    ["http://localhost", "http://127.0.0.1"].iter().any(|base| {
        origin.strip_prefix(base).is_some_and(|rest| {
            rest.is_empty()
                || rest
                    .strip_prefix(':')
                    .is_some_and(|port| !port.is_empty() && port.parse::<u16>().is_ok())
        })
    })
}

/// Matches an origin against a glob whose `*` stands for one or more characters of a DNS label
/// (letters, digits, `-`): it can never cross a `.`, `:` or `/`, so `https://*-preview.example.app`
/// cannot be satisfied by `https://evil.com/-preview.example.app` or by another domain.
pub fn glob_matches(pattern: &str, origin: &str) -> bool {
    fn label_char(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'-'
    }
    fn matches(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => {
                let mut i = 0;
                while i < s.len() && label_char(s[i]) {
                    i += 1;
                    if matches(rest, &s[i..]) {
                        return true;
                    }
                }
                false
            }
            Some((c, rest)) => s.first() == Some(c) && matches(rest, &s[1..]),
        }
    }
    matches(pattern.as_bytes(), origin.as_bytes())
}

/// Headers a browser script may read on our responses (rate-limit state in particular).
const EXPOSED_HEADERS: [&str; 5] = [
    "retry-after",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "etag",
];

/// The CORS layer for this policy; preflights are answered here.
pub fn layer(policy: OriginPolicy) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin: &HeaderValue, _| {
            origin.to_str().is_ok_and(|o| policy.allows(o))
        }))
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers(AllowHeaders::list([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::IF_NONE_MATCH,
            header::ACCEPT,
        ]))
        .expose_headers(EXPOSED_HEADERS.map(HeaderName::from_static))
        .allow_credentials(true)
        .max_age(Duration::from_secs(600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_origins_on_any_port() {
        let p = OriginPolicy::default();
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "http://127.0.0.1:5173",
            "HTTP://LOCALHOST:8080",
        ] {
            assert!(p.allows(ok), "{ok}");
        }
        for bad in [
            "http://localhost.evil.com",
            "http://localhost:abc",
            "http://localhost:",
            "https://evil.com",
            "http://127.0.0.1.nip.io",
            "http://localhost:99999",
        ] {
            assert!(!p.allows(bad), "{bad}");
        }
    }

    #[test]
    fn preview_glob_stays_inside_one_label() {
        let pattern = "https://*-preview.example.app";
        assert!(glob_matches(pattern, "https://pr-42-preview.example.app"));
        assert!(!glob_matches(pattern, "https://-preview.example.app"));
        assert!(!glob_matches(pattern, "https://a.b-preview.example.app"));
        assert!(!glob_matches(
            pattern,
            "https://evil.com/x-preview.example.app"
        ));
        assert!(!glob_matches(
            pattern,
            "https://x-preview.example.app.evil.com"
        ));
        assert!(!glob_matches(pattern, "http://x-preview.example.app"));
    }

    #[test]
    fn configured_urls_contribute_their_origin() {
        assert_eq!(
            origin_of("https://App.Example.com/play?x=1").as_deref(),
            Some("https://app.example.com")
        );
        assert_eq!(
            origin_of("http://localhost:4000").as_deref(),
            Some("http://localhost:4000")
        );
        assert_eq!(origin_of("nonsense"), None);
    }
}
