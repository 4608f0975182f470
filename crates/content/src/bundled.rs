//! Default content compiled into the binary, so a machine with no network runs a complete game.

use crate::content::Content;
use crate::manifest_set::ManifestSet;

/// Every bundled file: (relative path, bytes).
const FILES: &[(&str, &[u8])] = &[
    ("agility.json", include_bytes!("../bundled/agility.json")),
    ("biomes.json", include_bytes!("../bundled/biomes.json")),
    (
        "gathering/fishing.json",
        include_bytes!("../bundled/gathering/fishing.json"),
    ),
    (
        "gathering/mining.json",
        include_bytes!("../bundled/gathering/mining.json"),
    ),
    (
        "gathering/woodcutting.json",
        include_bytes!("../bundled/gathering/woodcutting.json"),
    ),
    (
        "items/ammunition.json",
        include_bytes!("../bundled/items/ammunition.json"),
    ),
    (
        "items/armor.json",
        include_bytes!("../bundled/items/armor.json"),
    ),
    (
        "items/misc.json",
        include_bytes!("../bundled/items/misc.json"),
    ),
    (
        "items/resources.json",
        include_bytes!("../bundled/items/resources.json"),
    ),
    (
        "items/tools.json",
        include_bytes!("../bundled/items/tools.json"),
    ),
    (
        "items/weapons.json",
        include_bytes!("../bundled/items/weapons.json"),
    ),
    ("npcs.json", include_bytes!("../bundled/npcs.json")),
    ("prayers.json", include_bytes!("../bundled/prayers.json")),
    ("quests.json", include_bytes!("../bundled/quests.json")),
    (
        "recipes/cooking.json",
        include_bytes!("../bundled/recipes/cooking.json"),
    ),
    (
        "recipes/crafting.json",
        include_bytes!("../bundled/recipes/crafting.json"),
    ),
    (
        "recipes/firemaking.json",
        include_bytes!("../bundled/recipes/firemaking.json"),
    ),
    (
        "recipes/fletching.json",
        include_bytes!("../bundled/recipes/fletching.json"),
    ),
    (
        "recipes/runecrafting.json",
        include_bytes!("../bundled/recipes/runecrafting.json"),
    ),
    (
        "recipes/smelting.json",
        include_bytes!("../bundled/recipes/smelting.json"),
    ),
    (
        "recipes/smithing.json",
        include_bytes!("../bundled/recipes/smithing.json"),
    ),
    (
        "recipes/tanning.json",
        include_bytes!("../bundled/recipes/tanning.json"),
    ),
    (
        "skill-unlocks.json",
        include_bytes!("../bundled/skill-unlocks.json"),
    ),
    ("spells.json", include_bytes!("../bundled/spells.json")),
    ("stations.json", include_bytes!("../bundled/stations.json")),
    ("stores.json", include_bytes!("../bundled/stores.json")),
    (
        "templates.json",
        include_bytes!("../bundled/templates.json"),
    ),
    (
        "world-areas.json",
        include_bytes!("../bundled/world-areas.json"),
    ),
    (
        "world-config.json",
        include_bytes!("../bundled/world-config.json"),
    ),
];

/// One bundled file's bytes (for fallbacks where served content lacks a file).
pub(crate) fn file(path: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

/// The agent benchmark's tasks (`wayfarer bench-agents`, CONTRACT.md section 12): a versioned
/// manifest read by the server's `bench_agents`, not part of the game's content.
pub const AGENT_BENCH: &str = include_str!("../bundled/agent-bench.json");

/// The bundled manifest files.
pub fn bundled() -> ManifestSet {
    let mut set = ManifestSet::new();
    for (path, bytes) in FILES {
        set.insert(*path, bytes.to_vec());
    }
    set
}

/// The bundled content, loaded in strict mode.
///
/// # Panics
/// Only if the bundled files are invalid, which the test `bundled_content_is_strictly_valid`
/// rules out for every build.
pub fn load_bundled() -> Content {
    match Content::from_files_with(&bundled(), crate::LoadOptions { strict: true }) {
        Ok((content, _)) => content,
        Err(report) => panic!("bundled content is invalid:\n{report}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_content_is_strictly_valid() {
        let report = crate::check(crate::Source::Bundled, true);
        assert!(report.is_empty(), "{report}");
        let content = load_bundled();
        assert!(!content.items.is_empty());
    }
}
