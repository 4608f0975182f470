//! The model-bounds manifest (`model-bounds.json`) and the builder that scans glTF models.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize, Serializer};

use crate::gltf::{self, GltfError};

/// `model-bounds.json` (interface specification 2.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelBoundsManifest {
    /// ISO 8601 UTC time of generation.
    pub generated_at: String,
    /// Size of one tile in world units (written as an integer when whole, like the reference).
    #[serde(serialize_with = "whole_as_integer")]
    pub tile_size: f64,
    /// One entry per model file.
    pub models: Vec<ModelBounds>,
}

/// Bounds of one model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelBounds {
    /// Folder of the model relative to the models root (`furnace`, `tree/backup`).
    pub id: String,
    /// `asset://models/<relative path>`.
    pub asset_path: String,
    /// Mesh-space box.
    pub bounds: Bounds3,
    /// `max - min` per axis.
    pub dimensions: Vec3,
    /// Tiles covered at the station's model scale.
    pub footprint: Footprint,
}

/// A min/max box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds3 {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

/// Three numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Vec3 {
    /// x.
    pub x: f64,
    /// y.
    pub y: f64,
    /// z.
    pub z: f64,
}

/// A tile footprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    /// Tiles along x.
    pub width: u32,
    /// Tiles along z.
    pub depth: u32,
}

/// Why the manifest could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ModelBoundsError {
    /// A folder or file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `stations.json` is not valid.
    #[error("invalid stations file {path}: {source}")]
    Stations {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// A model could not be read.
    #[error("model {path}: {source}")]
    Model {
        /// The model file.
        path: PathBuf,
        /// The cause.
        source: GltfError,
    },
}

/// Writes whole numbers as integers (`1` rather than `1.0`).
fn whole_as_integer<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// Tiles covered by a length: `max(1, round_half_up(length × scale / tile_size))`.
pub fn footprint_tiles(length: f64, scale: f64, tile_size: f64) -> u32 {
    let tiles = (length * scale / tile_size + 0.5).floor();
    if tiles.is_finite() && tiles >= 1.0 {
        tiles.min(f64::from(u32::MAX)) as u32
    } else {
        1
    }
}

/// The model id of an asset path relative to the models root: its folder (`tree/backup`), or
/// the file stem for a file at the root.
pub fn model_id(relative: &str) -> String {
    match relative.rsplit_once('/') {
        Some((folder, _)) => folder.to_string(),
        None => relative
            .rsplit_once('.')
            .map_or(relative, |(stem, _)| stem)
            .to_string(),
    }
}

/// Reads `modelScale` per model id from a `stations.json` (stations without a model are skipped).
pub fn station_scales(stations_json: &Path) -> Result<BTreeMap<String, f64>, ModelBoundsError> {
    #[derive(Deserialize)]
    struct File {
        stations: Vec<Station>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Station {
        #[serde(default)]
        model: Option<String>,
        #[serde(default)]
        model_scale: Option<f64>,
    }
    let bytes = fs::read(stations_json).map_err(|source| ModelBoundsError::Io {
        path: stations_json.to_path_buf(),
        source,
    })?;
    let file: File =
        serde_json::from_slice(&bytes).map_err(|source| ModelBoundsError::Stations {
            path: stations_json.to_path_buf(),
            source,
        })?;
    let mut scales = BTreeMap::new();
    for station in file.stations {
        if let Some(model) = station.model {
            let relative = model.strip_prefix("asset://models/").unwrap_or(&model);
            scales.insert(model_id(relative), station.model_scale.unwrap_or(1.0));
        }
    }
    Ok(scales)
}

/// Scans `models_dir` for `.glb`/`.gltf` files and builds the manifest, stamped with the time now.
pub fn build_model_bounds(
    models_dir: &Path,
    stations_json: &Path,
) -> Result<ModelBoundsManifest, ModelBoundsError> {
    let scales = station_scales(stations_json)?;
    build_model_bounds_with(models_dir, &scales, 1.0, &now_iso8601())
}

/// The builder with explicit scales (by model id), tile size and timestamp.
pub fn build_model_bounds_with(
    models_dir: &Path,
    scales: &BTreeMap<String, f64>,
    tile_size: f64,
    generated_at: &str,
) -> Result<ModelBoundsManifest, ModelBoundsError> {
    let mut files = Vec::new();
    collect_models(models_dir, &mut files)?;
    files.sort();
    let mut models = Vec::new();
    for path in files {
        let Some(aabb) =
            gltf::position_bounds(&path).map_err(|source| ModelBoundsError::Model {
                path: path.clone(),
                source,
            })?
        else {
            tracing::warn!(model = %path.display(), "model has no mesh positions; skipped");
            continue;
        };
        let relative = path
            .strip_prefix(models_dir)
            .unwrap_or(&path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let id = model_id(&relative);
        let scale = scales.get(&id).copied().unwrap_or(1.0);
        let min = Vec3 {
            x: aabb.min[0],
            y: aabb.min[1],
            z: aabb.min[2],
        };
        let max = Vec3 {
            x: aabb.max[0],
            y: aabb.max[1],
            z: aabb.max[2],
        };
        let dimensions = Vec3 {
            x: max.x - min.x,
            y: max.y - min.y,
            z: max.z - min.z,
        };
        models.push(ModelBounds {
            id,
            asset_path: format!("asset://models/{relative}"),
            bounds: Bounds3 { min, max },
            dimensions,
            footprint: Footprint {
                width: footprint_tiles(dimensions.x, scale, tile_size),
                depth: footprint_tiles(dimensions.z, scale, tile_size),
            },
        });
    }
    Ok(ModelBoundsManifest {
        generated_at: generated_at.to_string(),
        tile_size,
        models,
    })
}

/// Collects model files under `dir`, recursively.
fn collect_models(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ModelBoundsError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ModelBoundsError::Io { path, source }
    };
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let path = entry.path();
        if entry.file_type().map_err(io(&path))?.is_dir() {
            collect_models(&path, out)?;
        } else {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            if matches!(ext.as_deref(), Some("glb") | Some("gltf")) {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// The current UTC time as `2026-02-18T10:40:00.144Z`.
pub fn now_iso8601() -> String {
    let now = time::OffsetDateTime::now_utc();
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    // Formatting a valid UTC date with a fixed numeric description cannot fail.
    now.format(&format)
        .unwrap_or_else(|_| now.unix_timestamp().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footprint_rounds_half_up_with_a_minimum_of_one() {
        assert_eq!(footprint_tiles(0.47, 1.0, 1.0), 1);
        assert_eq!(footprint_tiles(1.204, 1.0, 1.0), 1);
        assert_eq!(footprint_tiles(1.5, 1.0, 1.0), 2);
        assert_eq!(footprint_tiles(2.013, 0.5, 1.0), 1);
        assert_eq!(footprint_tiles(2.014, 1.5, 1.0), 3);
        assert_eq!(footprint_tiles(17.735, 1.0, 1.0), 18);
        assert_eq!(footprint_tiles(0.0, 1.0, 1.0), 1);
    }

    #[test]
    fn model_ids_are_folders_relative_to_the_root() {
        assert_eq!(model_id("furnace/furnace.glb"), "furnace");
        assert_eq!(model_id("tree/backup/tree.glb"), "tree/backup");
        assert_eq!(model_id("rock.glb"), "rock");
    }

    #[test]
    fn timestamps_look_like_the_reference() {
        let stamp = now_iso8601();
        assert_eq!(stamp.len(), 24, "{stamp}");
        assert!(stamp.ends_with('Z'));
        assert_eq!(&stamp[10..11], "T");
    }

    #[test]
    fn the_reference_manifest_round_trips_in_shape() {
        let text = r#"{"generatedAt":"2026-02-18T10:40:00.144Z","tileSize":1,"models":[{"id":"tree","assetPath":"asset://models/tree/tree.glb","bounds":{"min":{"x":-1.0,"y":-1.0,"z":-1.0},"max":{"x":1.0,"y":1.0,"z":1.0}},"dimensions":{"x":2.0,"y":2.0,"z":2.0},"footprint":{"width":2,"depth":2}}]}"#;
        let manifest: ModelBoundsManifest = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&manifest).unwrap(), text);
    }
}
