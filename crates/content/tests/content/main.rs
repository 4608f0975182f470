//! Integration tests for wayfarer-content (one binary to keep link time low).

mod bundled;
mod model_bounds;
mod recipe_ids;
mod reference;
mod spells;
mod validation;

use std::path::PathBuf;

/// The reference corpus beside the repository, or `None` (the test skips) when it is absent.
pub fn reference_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference-content/hyperscape-manifests"
    ));
    if dir.is_dir() {
        return Some(dir);
    }
    wayfarer_store::testing::skip(&format!("the reference corpus is not at {}", dir.display()));
    None
}
