//! The content the server runs now: the manifest files (served at `/manifests/<file>`), the loaded
//! model, and the ready-made public answers derived from it, each with a strong ETag. Replaced whole
//! when the CDN delivers a valid new version; readers clone an `Arc` and never hold the lock.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use sha2::{Digest, Sha256};

use crate::cdn::Origin;
use crate::gzip::LazyGzip;
use wayfarer_content::{Content, ManifestSet, FALLBACK_ITEMS_FILE};

/// The manifest of the spells (`/manifests/spells.json`).
const SPELLS_FILE: &str = "spells.json";

/// The body of `GET /api/v1/world/areas` (rendered once per content version).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct WorldAreas {
    pub areas: Vec<wayfarer_content::Area>,
}

/// A response body with its strong entity tag.
#[derive(Debug, Clone)]
pub struct Tagged {
    pub body: Arc<[u8]>,
    /// Quoted, as sent in the `ETag` header.
    pub etag: String,
    /// The body gzip-compressed, made at the first request that accepts it.
    pub gzip: LazyGzip,
}

impl Tagged {
    /// Tags `body` with a digest of its bytes (a strong validator: equal tags mean equal bytes).
    pub fn new(body: Vec<u8>) -> Tagged {
        let digest = Sha256::digest(&body);
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        Tagged {
            body: body.into(),
            etag: format!("\"{hex}\""),
            gzip: LazyGzip::default(),
        }
    }
}

/// One version of the content.
pub struct ActiveContent {
    /// The manifest files as loaded (what the CDN revalidation compares against).
    pub set: ManifestSet,
    pub content: Arc<Content>,
    pub origin: Origin,
    pub files: BTreeMap<String, Tagged>,
    /// `GET /api/data/skill-unlocks`.
    pub skill_unlocks: Tagged,
    /// `GET /api/v1/world/areas`.
    pub areas: Tagged,
}

impl ActiveContent {
    /// Prepares everything served from `set` and its loaded `content`.
    pub fn new(set: &ManifestSet, content: Content, origin: Origin) -> ActiveContent {
        let mut files: BTreeMap<String, Tagged> = set
            .files
            .iter()
            .map(|(path, bytes)| (path.clone(), Tagged::new(bytes.clone())))
            .collect();
        // Content without a `spells.json` plays the bundled spells (CONTRACT.md section 11,
        // fallback): serve that file too, or the client's spellbook (which reads it) says the
        // world has no spells while they can be cast, and its request is a 404 in the console.
        if !files.contains_key(SPELLS_FILE) && !content.spells.is_empty() {
            if let Some(bytes) = wayfarer_content::bundled().files.get(SPELLS_FILE) {
                files.insert(SPELLS_FILE.to_owned(), Tagged::new(bytes.clone()));
            }
        }
        // Items the content plays that its files lack (the fallback food of a world without any,
        // the runes magic names) are served from their bundled definitions, so a client reading
        // `items/*.json` can name them and offer Eat; always present (empty when nothing is
        // missing), so the client's request is never a 404.
        if !files.contains_key(FALLBACK_ITEMS_FILE) {
            let missing = wayfarer_content::missing_item_definitions(set, &content);
            files.insert(
                FALLBACK_ITEMS_FILE.to_owned(),
                Tagged::new(serde_json::to_vec(&missing).unwrap_or_else(|_| b"[]".to_vec())),
            );
        }
        // Serialising the loaded model cannot fail: plain data with string keys.
        let skill_unlocks =
            Tagged::new(serde_json::to_vec(&content.skill_unlocks).unwrap_or_default());
        let areas = Tagged::new(
            serde_json::to_vec(&WorldAreas {
                areas: content.areas.values().cloned().collect(),
            })
            .unwrap_or_default(),
        );
        ActiveContent {
            set: set.clone(),
            content: Arc::new(content),
            origin,
            files,
            skill_unlocks,
            areas,
        }
    }
}

/// The current content, swapped atomically.
pub struct ContentHolder {
    current: RwLock<Arc<ActiveContent>>,
}

impl ContentHolder {
    /// Holds `initial`.
    pub fn new(initial: ActiveContent) -> Self {
        Self {
            current: RwLock::new(Arc::new(initial)),
        }
    }

    /// The content now (a cheap clone; the lock is held only for the clone).
    pub fn get(&self) -> Arc<ActiveContent> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Makes `next` the current content.
    pub fn replace(&self, next: ActiveContent) {
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Content whose files lack `spells.json` serves the bundled spells it plays; content with its
    /// own serves its own bytes.
    #[test]
    fn the_fallback_spells_are_served() {
        let mut set = wayfarer_content::bundled();
        let own = set.files.get(SPELLS_FILE).cloned().expect("bundled spells");
        let with = ActiveContent::new(&set, wayfarer_content::load_bundled(), Origin::Bundled);
        assert_eq!(&*with.files[SPELLS_FILE].body, own.as_slice());

        set.files.remove(SPELLS_FILE);
        let (content, _) =
            Content::from_files_with(&set, wayfarer_content::LoadOptions { strict: false })
                .expect("loads without spells.json");
        assert!(
            !content.spells.is_empty(),
            "the loader falls back to the bundled spells"
        );
        let without = ActiveContent::new(&set, content, Origin::Cdn);
        assert_eq!(&*without.files[SPELLS_FILE].body, own.as_slice());
        // What the CDN revalidation compares is still the set as loaded.
        assert!(!without.set.files.contains_key(SPELLS_FILE));
    }

    fn served_ids(active: &ActiveContent) -> Vec<String> {
        let list: Vec<serde_json::Value> =
            serde_json::from_slice(&active.files[FALLBACK_ITEMS_FILE].body).unwrap();
        list.iter()
            .map(|item| item["id"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The bundled content defines every item it plays: the fallback file is served empty. Take
    /// away the file that defines the food: the loader falls back to the bundled food, and those
    /// definitions (with their heal amounts) are served under `items/fallback.json`.
    #[test]
    fn items_played_but_not_in_the_files_are_served_from_the_bundled_definitions() {
        let mut set = wayfarer_content::bundled();
        let whole = ActiveContent::new(&set, wayfarer_content::load_bundled(), Origin::Bundled);
        assert!(served_ids(&whole).is_empty());

        set.files.remove("items/misc.json");
        let (content, _) =
            Content::from_files_with(&set, wayfarer_content::LoadOptions { strict: false })
                .expect("loads without items/misc.json");
        let active = ActiveContent::new(&set, content, Origin::Cdn);
        let ids = served_ids(&active);
        assert!(ids.iter().any(|id| id == "shrimp"), "{ids:?}");
        let list: Vec<serde_json::Value> =
            serde_json::from_slice(&active.files[FALLBACK_ITEMS_FILE].body).unwrap();
        let shrimp = list.iter().find(|item| item["id"] == "shrimp").unwrap();
        assert!(shrimp["healAmount"].as_i64().unwrap_or(0) > 0, "{shrimp}");
        // Every served id is played and defined by no served file.
        for id in &ids {
            assert!(active.content.items.contains_key(id), "{id} is played");
        }
    }
}
