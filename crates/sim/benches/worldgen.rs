//! Generating the reference world from its `world-config.json` (`wayfarer_sim::worldgen::apply`:
//! the island, biomes, towns, roads, buildings, spawns by biome and the supplies store), and laying
//! out the walkable map from it (`World::new`). The reference files are read from
//! `../shared/reference-content/hyperscape-manifests`; without them the bench does nothing.
//!
//! Run with `cargo bench -p wayfarer-sim --bench worldgen`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use wayfarer_content::{Content, ManifestSet};
use wayfarer_sim::{worldgen, World};

fn reference() -> Option<Content> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference-content/hyperscape-manifests"
    ));
    let set = ManifestSet::read_dir(&dir).ok()?;
    Content::from_files(&set).ok().map(|(content, _)| content)
}

fn bench(c: &mut Criterion) {
    let Some(content) = reference() else {
        eprintln!("no reference corpus: nothing to measure");
        return;
    };
    let mut group = c.benchmark_group("worldgen");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("reference_world", |b| {
        b.iter(|| {
            let mut content = content.clone();
            assert!(worldgen::apply(&mut content, None));
            content
        })
    });
    let mut generated = content.clone();
    worldgen::apply(&mut generated, None);
    let generated = Arc::new(generated);
    group.bench_function("reference_layout", |b| {
        b.iter(|| World::new(generated.clone(), 1))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
