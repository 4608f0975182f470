//! Integration tests for wayfarer-content (one binary to keep link time low).

mod bundled;
mod model_bounds;
mod recipe_ids;
mod reference;
mod spells;
mod validation;

/// The reference corpus beside the repository (the one rule: `store::testing`).
pub use wayfarer_store::testing::reference_manifests as reference_dir;
