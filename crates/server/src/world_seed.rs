//! The layout seed: where the procedural parts of the map go (fishing spots, mob spawn tiles). It is
//! `WORLD_SEED`, or one generated at the first start and kept in the world directory, so the world
//! looks the same after every restart. A seed taken from the clock at each start moved the fishing
//! spots (which block their tile) at every restart, so a tile a player saved on or walked to could
//! be blocked the next time; that was the flaky `position_survives_logout_and_restart` test.
//! The game's dice (combat rolls, drops) are seeded separately and freshly at each start.

use anyhow::Context;

use crate::config::Config;

/// The file in the world directory that holds a generated seed.
pub const SEED_FILE: &str = "world-seed";

/// The layout seed to use.
pub fn resolve(config: &Config) -> anyhow::Result<u64> {
    if let Some(seed) = config.world_seed {
        return Ok(seed);
    }
    let path = config.world_dir.join(SEED_FILE);
    if let Ok(existing) = std::fs::read_to_string(&path) {
        match existing.trim().parse::<u64>() {
            Ok(seed) => {
                wayfarer_store::private_file::restrict(&path).with_context(|| {
                    format!("cannot make the world seed in {} private", path.display())
                })?;
                return Ok(seed);
            }
            Err(_) => tracing::warn!(
                path = %path.display(),
                "the saved world seed is not a number: generating a new one"
            ),
        }
    }
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no system randomness: {e}"))?;
    let seed = u64::from_le_bytes(bytes);
    // Private: the procedural spots (and where fishing spots move) follow from it.
    wayfarer_store::private_file::write(&path, &format!("{seed}\n"))
        .with_context(|| format!("cannot save the world seed to {}", path.display()))?;
    tracing::info!(path = %path.display(), seed, "generated the world's layout seed");
    Ok(seed)
}

/// A fresh seed for the game's dice.
pub fn dice() -> u64 {
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => wayfarer_store::now_ms() as u64,
    }
}

/// The world to start with: `content` laid out by the layout seed, dice from `DICE_SEED` or
/// fresh, the chat limits on with the other rate limits, and `TICK_THREADS`.
pub fn world(
    config: &Config,
    content: std::sync::Arc<wayfarer_content::Content>,
) -> anyhow::Result<wayfarer_sim::World> {
    let mut world = wayfarer_sim::World::with_seeds(
        content,
        resolve(config)?,
        config.dice_seed.unwrap_or_else(dice),
    );
    world.set_chat_limits(!config.rate_limits_disabled());
    world.set_tick_threads(config.tick_threads);
    Ok(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &std::path::Path, seed: Option<&str>) -> Config {
        let mut vars = vec![("WORLD", dir.display().to_string())];
        if let Some(seed) = seed {
            vars.push(("WORLD_SEED", seed.to_owned()));
        }
        Config::from_lookup(|k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone()))
            .expect("valid configuration")
    }

    #[test]
    fn a_generated_seed_is_kept_and_world_seed_wins() {
        let dir = tempfile::tempdir().unwrap();
        let first = resolve(&config(dir.path(), None)).unwrap();
        assert_eq!(resolve(&config(dir.path(), None)).unwrap(), first);
        assert_eq!(resolve(&config(dir.path(), Some("42"))).unwrap(), 42);
        std::fs::write(dir.path().join(SEED_FILE), "not a number").unwrap();
        let replaced = resolve(&config(dir.path(), None)).unwrap();
        assert_eq!(resolve(&config(dir.path(), None)).unwrap(), replaced);
    }
}
