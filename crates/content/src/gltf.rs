//! A minimal glTF 2.0 reader: the bounding box of every POSITION accessor in a `.gltf` or `.glb`.
//!
//! Node transforms are not applied (see `docs/content.md`): bounds are in mesh space, as the
//! reference `model-bounds.json` generator produced them from accessor min/max values.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde::Deserialize;

/// Why a model could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The GLB container is malformed.
    #[error("malformed GLB: {0}")]
    Glb(String),
    /// The glTF JSON is malformed.
    #[error("malformed glTF JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The document refers to data that is missing or out of range.
    #[error("invalid glTF: {0}")]
    Invalid(String),
}

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest x, y, z.
    pub min: [f64; 3],
    /// Largest x, y, z.
    pub max: [f64; 3],
}

impl Aabb {
    /// The box holding both.
    pub fn union(self, other: Aabb) -> Aabb {
        let mut out = self;
        for axis in 0..3 {
            out.min[axis] = out.min[axis].min(other.min[axis]);
            out.max[axis] = out.max[axis].max(other.max[axis]);
        }
        out
    }
}

/// The glTF JSON subset needed for positions.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    #[serde(default)]
    meshes: Vec<Mesh>,
    #[serde(default)]
    accessors: Vec<Accessor>,
    #[serde(default)]
    buffer_views: Vec<BufferView>,
    #[serde(default)]
    buffers: Vec<Buffer>,
}

#[derive(Debug, Deserialize)]
struct Mesh {
    #[serde(default)]
    primitives: Vec<Primitive>,
}

#[derive(Debug, Deserialize)]
struct Primitive {
    #[serde(default)]
    attributes: BTreeMap<String, usize>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Accessor {
    #[serde(default)]
    buffer_view: Option<usize>,
    #[serde(default)]
    byte_offset: usize,
    component_type: u32,
    #[serde(default)]
    normalized: bool,
    count: usize,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    min: Option<Vec<f64>>,
    #[serde(default)]
    max: Option<Vec<f64>>,
    #[serde(default)]
    sparse: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BufferView {
    buffer: usize,
    #[serde(default)]
    byte_offset: usize,
    byte_length: usize,
    #[serde(default)]
    byte_stride: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Buffer {
    #[serde(default)]
    uri: Option<String>,
}

/// glTF component types.
const BYTE: u32 = 5120;
const UNSIGNED_BYTE: u32 = 5121;
const SHORT: u32 = 5122;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;

/// GLB magic and chunk types.
const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// Reads a `.gltf` or `.glb` file and returns the union of its POSITION bounds (`None` without meshes).
pub fn position_bounds(path: &Path) -> Result<Option<Aabb>, GltfError> {
    let bytes = fs::read(path).map_err(|source| GltfError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    position_bounds_from_bytes(&bytes, base)
}

/// Like [`position_bounds`] for bytes already in memory; `base` resolves external buffer files.
pub fn position_bounds_from_bytes(bytes: &[u8], base: &Path) -> Result<Option<Aabb>, GltfError> {
    let (json, bin) = if bytes.starts_with(GLB_MAGIC) {
        split_glb(bytes)?
    } else {
        (bytes, None)
    };
    let doc: Document = serde_json::from_slice(json)?;
    let mut buffers: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    let mut total: Option<Aabb> = None;
    for mesh in &doc.meshes {
        for primitive in &mesh.primitives {
            let Some(&index) = primitive.attributes.get("POSITION") else {
                continue;
            };
            let accessor = doc
                .accessors
                .get(index)
                .ok_or_else(|| GltfError::Invalid(format!("accessor {index} does not exist")))?;
            let bounds = accessor_bounds(&doc, accessor, bin, base, &mut buffers)?;
            total = Some(match total {
                Some(t) => t.union(bounds),
                None => bounds,
            });
        }
    }
    Ok(total)
}

/// Splits a GLB container into its JSON chunk and optional BIN chunk.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), GltfError> {
    let word = |at: usize| -> Result<u32, GltfError> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| GltfError::Glb(format!("truncated at byte {at}")))
    };
    let version = word(4)?;
    if version != 2 {
        return Err(GltfError::Glb(format!("version {version} is not 2")));
    }
    let length = (word(8)? as usize).min(bytes.len());
    let mut offset = 12;
    let mut json = None;
    let mut bin = None;
    while offset + 8 <= length {
        let chunk_length = word(offset)? as usize;
        let chunk_type = word(offset + 4)?;
        let start = offset + 8;
        let end = start
            .checked_add(chunk_length)
            .filter(|end| *end <= length)
            .ok_or_else(|| GltfError::Glb(format!("chunk at byte {offset} overruns the file")))?;
        match chunk_type {
            CHUNK_JSON if json.is_none() => json = Some(&bytes[start..end]),
            CHUNK_BIN if bin.is_none() => bin = Some(&bytes[start..end]),
            _ => {}
        }
        offset = end;
    }
    let json = json.ok_or_else(|| GltfError::Glb("no JSON chunk".to_string()))?;
    Ok((json, bin))
}

/// Size in bytes of one component.
fn component_size(component_type: u32) -> Result<usize, GltfError> {
    Ok(match component_type {
        BYTE | UNSIGNED_BYTE => 1,
        SHORT | UNSIGNED_SHORT => 2,
        UNSIGNED_INT | FLOAT => 4,
        other => return Err(GltfError::Invalid(format!("unknown componentType {other}"))),
    })
}

/// Converts a stored component value to a float, dequantizing normalized integers per the glTF spec.
fn dequantize(value: f64, component_type: u32, normalized: bool) -> f64 {
    if !normalized {
        return value;
    }
    match component_type {
        BYTE => (value / 127.0).max(-1.0),
        UNSIGNED_BYTE => value / 255.0,
        SHORT => (value / 32767.0).max(-1.0),
        UNSIGNED_SHORT => value / 65535.0,
        _ => value,
    }
}

/// Reads one little-endian component at `at`.
fn read_component(data: &[u8], at: usize, component_type: u32) -> f64 {
    match component_type {
        BYTE => f64::from(data[at] as i8),
        UNSIGNED_BYTE => f64::from(data[at]),
        SHORT => f64::from(i16::from_le_bytes([data[at], data[at + 1]])),
        UNSIGNED_SHORT => f64::from(u16::from_le_bytes([data[at], data[at + 1]])),
        UNSIGNED_INT => f64::from(u32::from_le_bytes([
            data[at],
            data[at + 1],
            data[at + 2],
            data[at + 3],
        ])),
        _ => f64::from(f32::from_le_bytes([
            data[at],
            data[at + 1],
            data[at + 2],
            data[at + 3],
        ])),
    }
}

/// Bounds of one POSITION accessor: from min/max when present, else from the vertex data.
fn accessor_bounds(
    doc: &Document,
    accessor: &Accessor,
    bin: Option<&[u8]>,
    base: &Path,
    buffers: &mut BTreeMap<usize, Vec<u8>>,
) -> Result<Aabb, GltfError> {
    if accessor.kind != "VEC3" {
        return Err(GltfError::Invalid(format!(
            "POSITION accessor has type {}, not VEC3",
            accessor.kind
        )));
    }
    let size = component_size(accessor.component_type)?;
    let convert = |v: f64| dequantize(v, accessor.component_type, accessor.normalized);
    if let (Some(min), Some(max)) = (&accessor.min, &accessor.max) {
        if min.len() != 3 || max.len() != 3 {
            return Err(GltfError::Invalid(
                "POSITION min/max must have 3 values".to_string(),
            ));
        }
        return Ok(Aabb {
            min: [convert(min[0]), convert(min[1]), convert(min[2])],
            max: [convert(max[0]), convert(max[1]), convert(max[2])],
        });
    }
    if accessor.sparse.is_some() {
        return Err(GltfError::Invalid(
            "sparse POSITION accessor without min/max is not supported".to_string(),
        ));
    }
    if accessor.count == 0 {
        return Err(GltfError::Invalid(
            "POSITION accessor has no vertices".to_string(),
        ));
    }
    let Some(view_index) = accessor.buffer_view else {
        // Without a buffer view every element is zero (glTF 2.0, accessors).
        return Ok(Aabb {
            min: [0.0; 3],
            max: [0.0; 3],
        });
    };
    let view = doc
        .buffer_views
        .get(view_index)
        .ok_or_else(|| GltfError::Invalid(format!("bufferView {view_index} does not exist")))?;
    let data: &Vec<u8> = match buffers.entry(view.buffer) {
        std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
        std::collections::btree_map::Entry::Vacant(entry) => {
            entry.insert(load_buffer(doc, view.buffer, bin, base)?)
        }
    };
    let element = 3 * size;
    let stride = view.byte_stride.unwrap_or(element);
    if stride < element {
        return Err(GltfError::Invalid(format!(
            "byteStride {stride} is smaller than an element"
        )));
    }
    let start = view.byte_offset + accessor.byte_offset;
    let last_end = start + (accessor.count - 1) * stride + element;
    let view_end = view.byte_offset + view.byte_length;
    if last_end > view_end || view_end > data.len() {
        return Err(GltfError::Invalid(format!(
            "POSITION data (bytes {start}..{last_end}) runs past bufferView {view_index} or its buffer"
        )));
    }
    let mut aabb = Aabb {
        min: [f64::INFINITY; 3],
        max: [f64::NEG_INFINITY; 3],
    };
    for i in 0..accessor.count {
        let at = start + i * stride;
        for axis in 0..3 {
            let value = convert(read_component(
                data,
                at + axis * size,
                accessor.component_type,
            ));
            aabb.min[axis] = aabb.min[axis].min(value);
            aabb.max[axis] = aabb.max[axis].max(value);
        }
    }
    Ok(aabb)
}

/// Loads buffer `index`: the GLB BIN chunk, a base64 `data:` URI, or a file beside the model.
fn load_buffer(
    doc: &Document,
    index: usize,
    bin: Option<&[u8]>,
    base: &Path,
) -> Result<Vec<u8>, GltfError> {
    let buffer = doc
        .buffers
        .get(index)
        .ok_or_else(|| GltfError::Invalid(format!("buffer {index} does not exist")))?;
    match &buffer.uri {
        None => bin.map(<[u8]>::to_vec).ok_or_else(|| {
            GltfError::Invalid(format!(
                "buffer {index} has no uri and there is no BIN chunk"
            ))
        }),
        Some(uri) if uri.starts_with("data:") => {
            let Some(comma) = uri.find(',') else {
                return Err(GltfError::Invalid("data URI without a comma".to_string()));
            };
            if !uri[..comma].ends_with(";base64") {
                return Err(GltfError::Invalid(
                    "only base64 data URIs are supported".to_string(),
                ));
            }
            base64::engine::general_purpose::STANDARD
                .decode(&uri[comma + 1..])
                .map_err(|e| GltfError::Invalid(format!("bad base64 in buffer {index}: {e}")))
        }
        Some(uri) => {
            let path = base.join(percent_decode(uri));
            fs::read(&path).map_err(|source| GltfError::Io { path, source })
        }
    }
}

/// Decodes `%XX` escapes in a relative URI.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| char::from(b).to_digit(16);
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dequantization_follows_the_spec() {
        assert_eq!(dequantize(127.0, BYTE, true), 1.0);
        assert_eq!(dequantize(-128.0, BYTE, true), -1.0);
        assert_eq!(dequantize(255.0, UNSIGNED_BYTE, true), 1.0);
        assert_eq!(dequantize(-32768.0, SHORT, true), -1.0);
        assert_eq!(dequantize(65535.0, UNSIGNED_SHORT, true), 1.0);
        assert_eq!(dequantize(300.0, UNSIGNED_SHORT, false), 300.0);
    }

    #[test]
    fn percent_escapes_are_decoded() {
        assert_eq!(percent_decode("my%20model.bin"), "my model.bin");
        assert_eq!(percent_decode("plain.bin"), "plain.bin");
        assert_eq!(percent_decode("bad%zz.bin"), "bad%zz.bin");
        assert_eq!(percent_decode("end%2"), "end%2");
    }

    #[test]
    fn a_truncated_glb_is_rejected() {
        let mut glb = b"glTF".to_vec();
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&100u32.to_le_bytes());
        glb.extend_from_slice(&50u32.to_le_bytes());
        glb.extend_from_slice(&CHUNK_JSON.to_le_bytes());
        assert!(matches!(
            position_bounds_from_bytes(&glb, Path::new(".")),
            Err(GltfError::Glb(_))
        ));
    }
}
