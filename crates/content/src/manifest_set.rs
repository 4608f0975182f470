//! The raw bytes of a set of manifest files, keyed by their path relative to the manifest root.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Failure to read a manifest directory.
#[derive(Debug, thiserror::Error)]
pub enum ManifestSetError {
    /// A file or directory could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A file name is not valid UTF-8, so it cannot be served or reported.
    #[error("file name is not valid UTF-8: {0}")]
    NonUtf8Path(PathBuf),
}

/// Raw manifest files exactly as loaded (the server serves these bytes at `/manifests/<file>`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestSet {
    /// File bytes keyed by relative path with `/` separators, like `items/tools.json`.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl ManifestSet {
    /// An empty set.
    pub fn new() -> Self {
        ManifestSet::default()
    }

    /// Reads every `*.json` file under `dir`, recursively, skipping hidden files and folders.
    pub fn read_dir(dir: impl AsRef<Path>) -> Result<ManifestSet, ManifestSetError> {
        let root = dir.as_ref();
        let mut set = ManifestSet::new();
        let mut pending = vec![root.to_path_buf()];
        while let Some(current) = pending.pop() {
            let entries = fs::read_dir(&current).map_err(|source| ManifestSetError::Io {
                path: current.clone(),
                source,
            })?;
            for entry in entries {
                let entry = entry.map_err(|source| ManifestSetError::Io {
                    path: current.clone(),
                    source,
                })?;
                let path = entry.path();
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    return Err(ManifestSetError::NonUtf8Path(path));
                };
                if name.starts_with('.') {
                    continue;
                }
                let file_type = entry.file_type().map_err(|source| ManifestSetError::Io {
                    path: path.clone(),
                    source,
                })?;
                if file_type.is_dir() {
                    pending.push(path);
                } else if name.ends_with(".json") {
                    let bytes = fs::read(&path).map_err(|source| ManifestSetError::Io {
                        path: path.clone(),
                        source,
                    })?;
                    let relative = relative_key(root, &path)?;
                    set.files.insert(relative, bytes);
                }
            }
        }
        Ok(set)
    }

    /// Adds or replaces one file.
    pub fn insert(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), bytes.into());
    }

    /// The bytes of one file.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    /// True when the set has a file at `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Relative paths of all files, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when the set holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Writes every file under `dir`, creating folders as needed (for a local manifest cache).
    pub fn write_dir(&self, dir: impl AsRef<Path>) -> Result<(), ManifestSetError> {
        let root = dir.as_ref();
        for (relative, bytes) in &self.files {
            let path = root.join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|source| ManifestSetError::Io {
                    path: parent.to_path_buf(),
                    source,
                })?;
            }
            fs::write(&path, bytes).map_err(|source| ManifestSetError::Io { path, source })?;
        }
        Ok(())
    }
}

/// `root/items/tools.json` → `items/tools.json`.
fn relative_key(root: &Path, path: &Path) -> Result<String, ManifestSetError> {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let mut parts = Vec::new();
    for component in relative.components() {
        let Some(part) = component.as_os_str().to_str() else {
            return Err(ManifestSetError::NonUtf8Path(path.to_path_buf()));
        };
        parts.push(part);
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_dir_keys_files_by_relative_path_and_round_trips() {
        let dir =
            std::env::temp_dir().join(format!("wayfarer-manifest-set-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let mut set = ManifestSet::new();
        set.insert("npcs.json", b"[]".to_vec());
        set.insert("items/tools.json", b"[]".to_vec());
        set.write_dir(&dir).unwrap();
        fs::write(dir.join("notes.txt"), b"ignored").unwrap();
        fs::write(dir.join(".hidden.json"), b"ignored").unwrap();
        let read = ManifestSet::read_dir(&dir).unwrap();
        assert_eq!(read, set);
        assert_eq!(
            read.paths().collect::<Vec<_>>(),
            ["items/tools.json", "npcs.json"]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn read_dir_of_a_missing_folder_fails() {
        assert!(ManifestSet::read_dir("/nonexistent/wayfarer/manifests").is_err());
    }
}
