//! Identity-provider tokens: ES256 JWTs verified offline against a PEM public key or the keys of a JWKS
//! document (a file or an http(s) URL, fetched lazily and cached; refreshed when a token names an
//! unknown `kid`, at most once per `IDP_JWKS_MIN_REFRESH_SECS`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use tokio::sync::Mutex;

use super::revocation::TokenStamp;
use super::AuthError;
use crate::config::Config;

/// Clock skew tolerated on `exp` and `nbf`.
pub const LEEWAY_SECS: u64 = 60;
/// How long a JWKS download may take.
const JWKS_FETCH_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Deserialize)]
struct IdpClaims {
    sub: String,
    exp: u64,
    #[serde(default)]
    iat: Option<u64>,
}

/// Verifies identity-provider tokens.
pub struct IdpVerifier {
    validation: Validation,
    keys: KeySource,
}

enum KeySource {
    Static(DecodingKey),
    Jwks(Jwks),
}

struct Jwks {
    location: String,
    min_refresh: Duration,
    http: reqwest::Client,
    state: Mutex<JwksState>,
}

#[derive(Default)]
struct JwksState {
    by_kid: HashMap<String, DecodingKey>,
    without_kid: Vec<DecodingKey>,
    fetched_at: Option<Instant>,
}

impl IdpVerifier {
    /// The verifier the configuration asks for, or `None` when identity-provider login is off.
    pub fn from_config(config: &Config) -> anyhow::Result<Option<IdpVerifier>> {
        if !config.idp_enabled() {
            return Ok(None);
        }
        let app_id = config.public_idp_app_id.clone().unwrap_or_default();
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_audience(&[app_id]);
        validation.set_issuer(std::slice::from_ref(&config.idp_issuer));
        validation.set_required_spec_claims(&["exp", "sub", "aud", "iss"]);
        validation.leeway = LEEWAY_SECS;
        validation.validate_nbf = true;
        let keys = if let Some(key) = &config.idp_verification_key {
            KeySource::Static(load_pem(key)?)
        } else if let Some(location) = &config.idp_jwks_url {
            KeySource::Jwks(Jwks {
                location: location.clone(),
                min_refresh: Duration::from_secs(config.idp_jwks_min_refresh_secs),
                http: reqwest::Client::builder()
                    .timeout(JWKS_FETCH_TIMEOUT)
                    .build()?,
                state: Mutex::new(JwksState::default()),
            })
        } else {
            bail!("identity-provider login needs IDP_VERIFICATION_KEY or IDP_JWKS_URL");
        };
        Ok(Some(IdpVerifier { validation, keys }))
    }

    /// The provider's subject of a valid token, and the token's stamp for the revocation checks
    /// (named by its digest: the provider's `jti`, if any, is the provider's business).
    pub async fn verify(&self, token: &str) -> Result<(String, TokenStamp), AuthError> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|err| super::token_refusal(&err, token))?;
        if header.alg != Algorithm::ES256 {
            return Err(AuthError::WrongAlgorithm);
        }
        let check = |key: &DecodingKey| {
            jsonwebtoken::decode::<serde_json::Value>(token, key, &self.validation)
                .map_err(|err| super::token_refusal(&err, token))
                .and_then(|d| super::read_claims::<IdpClaims>(d.claims))
                .map(|claims| {
                    let iat_ms = claims.iat.map(|s| s.saturating_mul(1000));
                    (claims.sub, TokenStamp::new(token, None, iat_ms, claims.exp))
                })
        };
        match &self.keys {
            KeySource::Static(key) => check(key),
            KeySource::Jwks(jwks) => {
                let candidates = jwks.keys_for(header.kid.as_deref()).await;
                if candidates.is_empty() {
                    return Err(AuthError::Invalid(format!(
                        "no identity-provider key{}",
                        header
                            .kid
                            .map(|k| format!(" with kid {k:?}"))
                            .unwrap_or_default()
                    )));
                }
                let mut last =
                    AuthError::Invalid("it matches none of the identity provider's keys".into());
                for key in &candidates {
                    match check(key) {
                        Ok(verified) => return Ok(verified),
                        Err(e) => last = e,
                    }
                }
                Err(last)
            }
        }
    }
}

impl Jwks {
    /// The keys a token with `kid` may be signed with, refreshing the set when the kid is unknown and
    /// the last refresh is old enough.
    async fn keys_for(&self, kid: Option<&str>) -> Vec<DecodingKey> {
        let mut state = self.state.lock().await;
        let lookup = |state: &JwksState| match kid {
            Some(kid) => state
                .by_kid
                .get(kid)
                .cloned()
                .into_iter()
                .collect::<Vec<_>>(),
            None => state
                .by_kid
                .values()
                .chain(state.without_kid.iter())
                .cloned()
                .collect(),
        };
        let found = lookup(&state);
        let may_refresh = state
            .fetched_at
            .is_none_or(|at| at.elapsed() >= self.min_refresh);
        if !found.is_empty() || !may_refresh {
            return found;
        }
        state.fetched_at = Some(Instant::now());
        match self.fetch().await {
            Ok(fresh) => {
                tracing::info!(
                    keys = fresh.by_kid.len() + fresh.without_kid.len(),
                    "identity-provider keys loaded"
                );
                state.by_kid = fresh.by_kid;
                state.without_kid = fresh.without_kid;
            }
            // Keep the keys we had: a provider outage must not log everyone out.
            Err(err) => {
                tracing::warn!(error = %err, location = %self.location, "cannot load the identity provider's JWKS")
            }
        }
        lookup(&state)
    }

    async fn fetch(&self) -> anyhow::Result<JwksState> {
        let body = if self.location.starts_with("http://") || self.location.starts_with("https://")
        {
            self.http
                .get(&self.location)
                .send()
                .await?
                .error_for_status()?
                .bytes()
                .await?
                .to_vec()
        } else {
            tokio::fs::read(&self.location)
                .await
                .with_context(|| format!("cannot read {}", self.location))?
        };
        let set: JwkSet = serde_json::from_slice(&body).context("not a JWKS document")?;
        let mut state = JwksState::default();
        for jwk in &set.keys {
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                continue;
            };
            match &jwk.common.key_id {
                Some(kid) => {
                    state.by_kid.insert(kid.clone(), key);
                }
                None => state.without_kid.push(key),
            }
        }
        Ok(state)
    }
}

/// `IDP_VERIFICATION_KEY` is PEM text (with real or `\n`-escaped newlines) or a path to a PEM file.
fn load_pem(value: &str) -> anyhow::Result<DecodingKey> {
    let pem = if value.trim_start().starts_with("-----BEGIN") {
        value.replace("\\n", "\n")
    } else {
        std::fs::read_to_string(value)
            .with_context(|| format!("IDP_VERIFICATION_KEY: cannot read {value}"))?
    };
    DecodingKey::from_ec_pem(pem.as_bytes())
        .context("IDP_VERIFICATION_KEY is not an EC public key in PEM form")
}
