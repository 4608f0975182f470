//! Embeds the browser client (`web/`) in the binary: writes `$OUT_DIR/web_assets.rs`, a table of
//! every served file (`include_bytes!` of the file in the source tree) and one version string, the
//! digest of all of them. Asset URLs carry the version (`/v/<version>/src/main.js`), so they can be
//! cached forever and a new build is fetched whole; `index.html` names the current version.
//!
//! Only `web/index.html` and the `web/src/` and `web/assets/` trees are served: `node_modules`,
//! tests and npm files stay out of the binary. No Node is needed to build the server.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The parts of `web/` the server serves.
const SERVED: &[&str] = &["index.html", "src", "assets"];

fn collect(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = format!("{rel}/{name}");
        if path.is_dir() {
            collect(&path, &rel, out);
        } else {
            out.push((rel, path));
        }
    }
}

/// FNV-1a over every served path and its bytes: a change to any file changes the version. (Not a
/// security digest; it only has to differ between builds.)
fn version(files: &[(String, Vec<u8>)]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, bytes) in files {
        for b in path
            .bytes()
            .chain([0])
            .chain(bytes.iter().copied())
            .chain([0])
        {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let web = manifest_dir.join("../../web");
    println!("cargo:rerun-if-changed={}", web.display());
    let mut found = Vec::new();
    for part in SERVED {
        let path = web.join(part);
        // A path that does not exist would make cargo rerun this script (and rebuild the server)
        // at every build; `web` itself is watched, so a part created later is still noticed.
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        if path.is_dir() {
            collect(&path, part, &mut found);
        } else if path.is_file() {
            found.push(((*part).to_owned(), path));
        }
    }
    // Directories: cargo only notices added files when told to watch each directory.
    for (_, path) in &found {
        println!("cargo:rerun-if-changed={}", path.display());
        if let Some(parent) = path.parent() {
            println!("cargo:rerun-if-changed={}", parent.display());
        }
    }
    let contents: Vec<(String, Vec<u8>)> = found
        .iter()
        .map(|(rel, path)| (rel.clone(), std::fs::read(path).expect("readable web file")))
        .collect();
    let mut code = String::new();
    let _ = writeln!(
        code,
        "/// Digest of every embedded client file.\npub const VERSION: &str = \"{}\";",
        version(&contents)
    );
    let _ = writeln!(
        code,
        "/// The embedded client files: path under `web/`, bytes.\npub const FILES: &[(&str, &[u8])] = &["
    );
    for (rel, path) in &found {
        let abs = path.canonicalize().expect("canonical web path");
        let _ = writeln!(
            code,
            "    ({rel:?}, include_bytes!({:?})),",
            abs.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("web_assets.rs");
    std::fs::write(out, code).expect("writable OUT_DIR");
}
