//! Security headers on every response the router gives: the browser client's page and files, the
//! API, the manifests, errors. The client (`web/`) has no inline script, no inline event handler
//! and no `eval`, and sets styles only through the CSSOM, so its page runs under a policy that allows
//! nothing but this server's own files, its own socket and API, and the configured public
//! addresses (`PUBLIC_WS_URL`, `PUBLIC_API_URL`, `PUBLIC_CDN_URL`). A JSON answer opened as a page
//! runs under the same policy, so nothing it reflects can run either.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use crate::config::Config;

/// The headers added to every response (unless the response set its own).
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl SecurityHeaders {
    /// The headers for this configuration (the policy names its public addresses).
    pub fn from_config(config: &Config) -> Arc<SecurityHeaders> {
        let policy = content_security_policy(config);
        let policy = HeaderValue::from_str(&policy).unwrap_or_else(|_| {
            // Configured URLs are checked at start; one that still cannot be a header value
            // leaves the strictest policy rather than none.
            HeaderValue::from_static(STRICTEST_POLICY)
        });
        Arc::new(SecurityHeaders {
            headers: vec![
                (header::CONTENT_SECURITY_POLICY, policy),
                // `frame-ancestors` for browsers that know it, this for those that do not.
                (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
                (
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                ),
                // The page's URL never leaves with a request to anyone.
                (
                    header::REFERRER_POLICY,
                    HeaderValue::from_static("no-referrer"),
                ),
            ],
        })
    }
}

/// What is left when the configured addresses cannot be put in a header.
const STRICTEST_POLICY: &str =
    "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The policy: the server's own origin (`'self'`, which covers its own `ws:`/`wss:` socket) and the
/// origins of the configured public addresses for connections and images.
pub fn content_security_policy(config: &Config) -> String {
    let origin = |url: &Option<String>| url.as_deref().and_then(origin_of);
    let cdn = origin(&config.public_cdn_url);
    let mut connect = vec!["'self'".to_owned()];
    for extra in [
        origin(&config.public_ws_url),
        origin(&config.public_api_url),
        cdn.clone(),
    ]
    .into_iter()
    .flatten()
    {
        if !connect.contains(&extra) {
            connect.push(extra);
        }
    }
    let mut img = vec!["'self'".to_owned()];
    img.extend(cdn);
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src {}; connect-src {}; \
         font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'",
        img.join(" "),
        connect.join(" ")
    )
}

/// `scheme://host[:port]` of a configured URL, when it is one a policy can name.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let host = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
    };
    (plain(scheme) && plain(host)).then(|| {
        format!(
            "{}://{}",
            scheme.to_ascii_lowercase(),
            host.to_ascii_lowercase()
        )
    })
}

/// The middleware: adds each header the response does not already carry.
pub async fn add(
    State(security): State<Arc<SecurityHeaders>>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in &security.headers {
        if !headers.contains_key(name) {
            headers.insert(name.clone(), value.clone());
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Config {
        let vars: std::collections::HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| vars.get(k).cloned()).unwrap()
    }

    #[test]
    fn the_policy_allows_only_this_server_without_public_addresses() {
        let policy = content_security_policy(&config(&[]));
        assert_eq!(
            policy,
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; \
             connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; \
             form-action 'self'; frame-ancestors 'none'"
        );
        assert!(!policy.contains("unsafe"));
    }

    #[test]
    fn the_policy_names_the_public_addresses_by_origin() {
        let policy = content_security_policy(&config(&[
            ("PUBLIC_WS_URL", "wss://Game.example.com/ws"),
            ("PUBLIC_API_URL", "https://game.example.com/"),
            ("PUBLIC_CDN_URL", "https://cdn.example.com/assets"),
        ]));
        assert!(
            policy.contains(
                "connect-src 'self' wss://game.example.com https://game.example.com https://cdn.example.com;"
            ),
            "{policy}"
        );
        assert!(
            policy.contains("img-src 'self' https://cdn.example.com;"),
            "{policy}"
        );
    }

    #[test]
    fn an_address_that_cannot_be_named_is_left_out() {
        assert_eq!(
            origin_of("https://a.example:8443/x?y"),
            Some("https://a.example:8443".into())
        );
        assert_eq!(origin_of("https://a b.example"), None);
        assert_eq!(origin_of("https://a.example;script-src *"), None);
    }
}
