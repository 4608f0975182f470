//! The HTTP surface: routes, extractors and the layers every request passes through.

pub mod auth_user;
pub mod bank_shop;
pub mod compress;
pub mod connection_limits;
pub mod cors;
pub mod error;
pub mod game_socket_route;
pub mod health;
pub mod json;
pub mod limits;
pub mod listener;
pub mod metrics;
pub mod openapi;
pub mod parse_errors;
pub mod route_table;
pub mod routes;
pub mod security_headers;
pub mod social;
pub mod test_hooks;
pub mod web_assets;
pub mod ws;
pub mod ws_transport;

/// The server's layers point one way: HTTP calls the services, never the reverse. Outside this
/// module only the assembly names it (`app.rs` builds the router, `server.rs` starts the
/// listener); the services (characters, agents, auth, the world thread, …) return their own
/// errors, which `http::error` converts (`service_errors`).
#[cfg(test)]
mod layering {
    use std::path::{Path, PathBuf};

    /// Files outside `http/` that may import it.
    const ASSEMBLY: [&str; 2] = ["app.rs", "server.rs"];

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("the source tree reads") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The lines of `text` that name the HTTP layer (`crate::http…`, `crate::{…http…}`,
    /// `super::http`), comments left out.
    fn imports_of_http(text: &str) -> Vec<String> {
        text.lines()
            .map(str::trim)
            .filter(|line| !line.starts_with("//"))
            .filter(|line| {
                line.contains("crate::http")
                    || line.contains("super::http")
                    || line.split_once("crate::{").is_some_and(|(_, list)| {
                        list.split([',', ' ', '}'])
                            .any(|n| n == "http" || n.starts_with("http::"))
                    })
            })
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn nothing_outside_the_http_layer_imports_it_but_the_assembly() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let mut offending = Vec::new();
        let mut assembly_imports = 0;
        for file in files {
            let relative = file.strip_prefix(&src).expect("under src").to_path_buf();
            if relative.starts_with("http") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("a source file reads");
            let found = imports_of_http(&text);
            if ASSEMBLY.iter().any(|a| relative == Path::new(a)) {
                assembly_imports += found.len();
            } else {
                offending.extend(
                    found
                        .into_iter()
                        .map(|l| format!("{}: {l}", relative.display())),
                );
            }
        }
        // The scan sees imports where they are (else it would pass on anything).
        assert!(
            assembly_imports > 0,
            "app.rs and server.rs import the HTTP layer"
        );
        assert!(
            offending.is_empty(),
            "outside http/ only the assembly may import it; return a service error instead \
             (see service_errors):\n{}",
            offending.join("\n")
        );
    }

    #[test]
    fn every_way_of_naming_the_http_layer_is_seen() {
        for line in [
            "use crate::http::error::ApiError;",
            "use crate::{app, http};",
            "use crate::{http::cors, app};",
            "    let e = super::http::error::ApiError::internal(x);",
        ] {
            assert_eq!(imports_of_http(line).len(), 1, "{line}");
        }
        for line in [
            "// crate::http in a comment",
            "use axum::http::HeaderMap;",
            "use crate::{app, https_only};",
        ] {
            assert!(imports_of_http(line).is_empty(), "{line}");
        }
    }
}
