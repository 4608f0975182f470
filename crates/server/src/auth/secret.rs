//! The token-signing secret: `JWT_SECRET`, or in development and test a random one generated once and
//! kept in the world directory so tokens survive a restart.

use anyhow::Context;

use crate::config::{Config, NodeEnv};

/// The file in the world directory that holds a generated secret.
pub const SECRET_FILE: &str = "jwt-secret";

/// The signing secret to use.
pub fn resolve(config: &Config) -> anyhow::Result<Vec<u8>> {
    if let Some(secret) = &config.jwt_secret {
        return Ok(secret.as_bytes().to_vec());
    }
    // Production cannot get here: the configuration refuses to start without a secret.
    debug_assert!(config.node_env != NodeEnv::Production);
    let path = config.world_dir.join(SECRET_FILE);
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let existing = existing.trim();
        if existing.len() >= crate::config::MIN_JWT_SECRET_BYTES {
            // A secret saved by an older version, or copied in, may be readable by others.
            wayfarer_store::private_file::restrict(&path)
                .with_context(|| format!("cannot make the secret in {} private", path.display()))?;
            return Ok(existing.as_bytes().to_vec());
        }
    }
    let secret = generate()?;
    wayfarer_store::private_file::write(&path, &secret)
        .with_context(|| format!("cannot save the generated secret to {}", path.display()))?;
    tracing::warn!(
        path = %path.display(),
        "JWT_SECRET is not set: generated a random token-signing secret and saved it in the world directory (set JWT_SECRET in production)"
    );
    Ok(secret.into_bytes())
}

fn generate() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no system randomness: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
