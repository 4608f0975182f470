//! The model-bounds builder on small glTF files with known geometry.

use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::json;
use wayfarer_content::model_bounds::{build_model_bounds, ModelBounds};

use crate::reference_dir;

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A glTF document with one buffer and the given accessors, buffer views and meshes.
fn document(
    buffer_uri: Option<String>,
    byte_length: usize,
    views: serde_json::Value,
    accessors: serde_json::Value,
    meshes: serde_json::Value,
) -> serde_json::Value {
    let mut buffer = json!({"byteLength": byte_length});
    if let Some(uri) = buffer_uri {
        buffer["uri"] = json!(uri);
    }
    json!({
        "asset": {"version": "2.0"},
        "buffers": [buffer],
        "bufferViews": views,
        "accessors": accessors,
        "meshes": meshes,
        "nodes": [{"mesh": 0, "scale": [10.0, 10.0, 10.0]}],
        "scenes": [{"nodes": [0]}]
    })
}

fn one_mesh() -> serde_json::Value {
    json!([{"primitives": [{"attributes": {"POSITION": 0}}]}])
}

fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut json_bytes = serde_json::to_vec(json).unwrap();
    json_bytes.resize(json_bytes.len() + (4 - json_bytes.len() % 4) % 4, b' ');
    let mut bin = bin.to_vec();
    bin.resize(bin.len() + (4 - bin.len() % 4) % 4, 0);
    let total = 12 + 8 + json_bytes.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    out.extend_from_slice(&json_bytes);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(&bin);
    out
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Builds the test model tree and returns (models dir, stations.json).
fn fixture(name: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!(
        "wayfarer-model-bounds-{name}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&root);
    let models = root.join("models");

    // 1. .gltf with a data: URI buffer; accessor min/max present (the data disagrees on purpose).
    let data = floats(&[0.0, 0.0, 0.0, 9.0, 9.0, 9.0]);
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&data)
    );
    let doc = document(
        Some(uri),
        data.len(),
        json!([{"buffer": 0, "byteOffset": 0, "byteLength": 24}]),
        json!([{"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3",
                "min": [-1.25, 0.0, -0.75], "max": [1.25, 2.0, 0.75]}]),
        one_mesh(),
    );
    write(
        &models.join("crate/crate.gltf"),
        &serde_json::to_vec(&doc).unwrap(),
    );

    // 2. .glb with a BIN chunk, float positions, no min/max (read from the data).
    let data = floats(&[-1.0, 0.0, -1.0, 1.0, 1.5, 1.0, 0.5, 0.25, -0.5]);
    let doc = document(
        None,
        data.len(),
        json!([{"buffer": 0, "byteLength": 36}]),
        json!([{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}]),
        one_mesh(),
    );
    write(&models.join("furnace/furnace.glb"), &glb(&doc, &data));

    // 3. .glb with normalized UNSIGNED_SHORT positions, byteStride 8, no min/max.
    let mut data = Vec::new();
    for (x, y, z) in [
        (0u16, 65535u16, 0u16),
        (65535, 0, 13107),
        (32768, 100, 6000),
    ] {
        data.extend_from_slice(&x.to_le_bytes());
        data.extend_from_slice(&y.to_le_bytes());
        data.extend_from_slice(&z.to_le_bytes());
        data.extend_from_slice(&[0xAB, 0xCD]);
    }
    let doc = document(
        None,
        data.len(),
        json!([{"buffer": 0, "byteLength": 24, "byteStride": 8}]),
        json!([{"bufferView": 0, "componentType": 5123, "normalized": true, "count": 3, "type": "VEC3"}]),
        one_mesh(),
    );
    write(&models.join("rock/rock_quant.glb"), &glb(&doc, &data));

    // 4. .gltf with normalized BYTE positions whose min/max are stored as integers.
    let data: Vec<u8> = [-127i8, -64, 0, 127, 127, 64]
        .iter()
        .map(|b| *b as u8)
        .collect();
    let uri = format!(
        "data:application/gltf-buffer;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&data)
    );
    let doc = document(
        Some(uri),
        data.len(),
        json!([{"buffer": 0, "byteLength": 6}]),
        json!([{"bufferView": 0, "componentType": 5120, "normalized": true, "count": 2, "type": "VEC3",
                "min": [-127, -64, 0], "max": [127, 127, 64]}]),
        one_mesh(),
    );
    write(
        &models.join("rock/backup/rock_byte.gltf"),
        &serde_json::to_vec(&doc).unwrap(),
    );

    // 5. Several meshes and primitives; one accessor without min/max reads an external .bin with an offset.
    let mut data = floats(&[7.0, 7.0, 7.0]); // 12 bytes of padding before the real data
    data.extend(floats(&[-3.0, 0.5, 0.0, 0.0, 4.0, 2.5]));
    write(&models.join("tree/tree.bin"), &data);
    let doc = document(
        Some("tree.bin".to_string()),
        data.len(),
        json!([{"buffer": 0, "byteOffset": 12, "byteLength": 24}]),
        json!([
            {"componentType": 5126, "count": 4, "type": "VEC3", "min": [-1.0, 0.0, -1.0], "max": [1.0, 6.0, 1.0]},
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"componentType": 5126, "count": 4, "type": "VEC3", "min": [0.0, -0.5, -2.0], "max": [2.0, 1.0, 0.0]}
        ]),
        json!([
            {"primitives": [{"attributes": {"POSITION": 0}}, {"attributes": {"POSITION": 1, "NORMAL": 0}}]},
            {"primitives": [{"attributes": {"POSITION": 2}}]}
        ]),
    );
    write(
        &models.join("tree/tree.gltf"),
        &serde_json::to_vec(&doc).unwrap(),
    );

    // 6. A station model scaled by 0.5 in stations.json.
    let doc = document(
        None,
        0,
        json!([]),
        json!([{"componentType": 5126, "count": 8, "type": "VEC3", "min": [-1.0, 0.0, -0.5], "max": [1.0, 1.0, 0.5]}]),
        one_mesh(),
    );
    write(
        &models.join("anvil/anvil.gltf"),
        &serde_json::to_vec(&doc).unwrap(),
    );

    // Not a model.
    write(&models.join("anvil/notes.txt"), b"ignored");

    let stations = root.join("stations.json");
    write(
        &stations,
        serde_json::to_string(&json!({"stations": [
            {"type": "anvil", "name": "Anvil", "model": "asset://models/anvil/anvil.glb", "modelScale": 0.5},
            {"type": "furnace", "name": "Furnace", "model": "asset://models/furnace/furnace.glb", "modelScale": 1.5},
            {"type": "range", "name": "Range", "model": null, "modelScale": 1.0}
        ]}))
        .unwrap()
        .as_bytes(),
    );
    (models, stations)
}

fn triple(v: &wayfarer_content::model_bounds::Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn find<'a>(models: &'a [ModelBounds], asset: &str) -> &'a ModelBounds {
    models
        .iter()
        .find(|m| m.asset_path == asset)
        .unwrap_or_else(|| panic!("{asset} missing"))
}

#[test]
fn builder_reads_every_container_and_encoding() {
    let (models_dir, stations) = fixture("encodings");
    let manifest = build_model_bounds(&models_dir, &stations).expect("builds");
    assert_eq!(manifest.tile_size, 1.0);
    assert!(manifest.generated_at.ends_with('Z') && manifest.generated_at.len() == 24);
    let assets: Vec<&str> = manifest
        .models
        .iter()
        .map(|m| m.asset_path.as_str())
        .collect();
    assert_eq!(
        assets,
        [
            "asset://models/anvil/anvil.gltf",
            "asset://models/crate/crate.gltf",
            "asset://models/furnace/furnace.glb",
            "asset://models/rock/backup/rock_byte.gltf",
            "asset://models/rock/rock_quant.glb",
            "asset://models/tree/tree.gltf",
        ]
    );
    let m = &manifest.models;

    let crate_ = find(m, "asset://models/crate/crate.gltf");
    assert_eq!(crate_.id, "crate");
    assert_eq!(triple(&crate_.bounds.min), [-1.25, 0.0, -0.75]);
    assert_eq!(triple(&crate_.bounds.max), [1.25, 2.0, 0.75]);
    assert_eq!(triple(&crate_.dimensions), [2.5, 2.0, 1.5]);
    assert_eq!(
        (crate_.footprint.width, crate_.footprint.depth),
        (3, 2),
        "2.5 and 1.5 round half up"
    );

    let furnace = find(m, "asset://models/furnace/furnace.glb");
    assert_eq!(furnace.id, "furnace");
    assert_eq!(triple(&furnace.bounds.min), [-1.0, 0.0, -1.0]);
    assert_eq!(triple(&furnace.bounds.max), [1.0, 1.5, 1.0]);
    assert_eq!(
        (furnace.footprint.width, furnace.footprint.depth),
        (3, 3),
        "2 × modelScale 1.5"
    );

    let quant = find(m, "asset://models/rock/rock_quant.glb");
    assert_eq!(quant.id, "rock");
    assert_eq!(triple(&quant.bounds.min), [0.0, 0.0, 0.0]);
    assert_eq!(triple(&quant.bounds.max), [1.0, 1.0, 13107.0 / 65535.0]);
    assert_eq!((quant.footprint.width, quant.footprint.depth), (1, 1));

    let byte = find(m, "asset://models/rock/backup/rock_byte.gltf");
    assert_eq!(byte.id, "rock/backup");
    assert_eq!(triple(&byte.bounds.min), [-1.0, -64.0 / 127.0, 0.0]);
    assert_eq!(triple(&byte.bounds.max), [1.0, 1.0, 64.0 / 127.0]);
    assert_eq!(byte.dimensions.y, 1.0 - (-64.0 / 127.0));
    assert_eq!((byte.footprint.width, byte.footprint.depth), (2, 1));

    let tree = find(m, "asset://models/tree/tree.gltf");
    assert_eq!(tree.id, "tree");
    assert_eq!(
        triple(&tree.bounds.min),
        [-3.0, -0.5, -2.0],
        "union of three primitives, node scale ignored"
    );
    assert_eq!(triple(&tree.bounds.max), [2.0, 6.0, 2.5]);
    assert_eq!(triple(&tree.dimensions), [5.0, 6.5, 4.5]);
    assert_eq!((tree.footprint.width, tree.footprint.depth), (5, 5));

    let anvil = find(m, "asset://models/anvil/anvil.gltf");
    assert_eq!(triple(&anvil.dimensions), [2.0, 1.0, 1.0]);
    assert_eq!(
        (anvil.footprint.width, anvil.footprint.depth),
        (1, 1),
        "2 × 0.5 and max(1, 0.5)"
    );

    fs::remove_dir_all(models_dir.parent().unwrap()).unwrap();
}

#[test]
fn output_has_the_reference_shape() {
    let (models_dir, stations) = fixture("shape");
    let manifest = build_model_bounds(&models_dir, &stations).expect("builds");
    let value = serde_json::to_value(&manifest).unwrap();
    let text = serde_json::to_string_pretty(&manifest).unwrap();
    assert!(
        text.contains("\"tileSize\": 1,"),
        "whole tile size written as an integer"
    );
    fs::remove_dir_all(models_dir.parent().unwrap()).unwrap();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&value), ["generatedAt", "models", "tileSize"]);
    let model = &value["models"][0];
    assert_eq!(
        keys(model),
        ["assetPath", "bounds", "dimensions", "footprint", "id"]
    );
    assert_eq!(keys(&model["footprint"]), ["depth", "width"]);
    assert!(model["footprint"]["width"].is_u64());
    let Some(dir) = reference_dir() else { return };
    let reference: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("model-bounds.json")).unwrap()).unwrap();
    assert_eq!(keys(&reference), keys(&value));
    let ref_model = &reference["models"][0];
    for key in ["bounds", "dimensions", "footprint"] {
        assert_eq!(keys(&ref_model[key]), keys(&model[key]), "{key}");
    }
    assert_eq!(
        keys(&ref_model["bounds"]["min"]),
        keys(&model["bounds"]["min"])
    );
    // The reference footprints follow the same rounding rule (at scale 1, see docs/content.md).
    for entry in reference["models"].as_array().unwrap() {
        let dx = entry["dimensions"]["x"].as_f64().unwrap();
        let dz = entry["dimensions"]["z"].as_f64().unwrap();
        assert_eq!(
            entry["footprint"]["width"].as_u64().unwrap(),
            u64::from(wayfarer_content::model_bounds::footprint_tiles(
                dx, 1.0, 1.0
            ))
        );
        assert_eq!(
            entry["footprint"]["depth"].as_u64().unwrap(),
            u64::from(wayfarer_content::model_bounds::footprint_tiles(
                dz, 1.0, 1.0
            ))
        );
    }
}

#[test]
fn a_broken_model_is_an_error_naming_the_file() {
    let root = std::env::temp_dir().join(format!(
        "wayfarer-model-bounds-broken-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&root);
    write(&root.join("models/bad/bad.gltf"), b"{not json");
    write(&root.join("stations.json"), br#"{"stations": []}"#);
    let err =
        build_model_bounds(&root.join("models"), &root.join("stations.json")).expect_err("fails");
    assert!(err.to_string().contains("bad.gltf"), "{err}");
    fs::remove_dir_all(&root).unwrap();
}
