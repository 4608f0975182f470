//! Typed JSON parsing that reports file, line, column, field path and entry on failure.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::report::{Code, Diagnostic, Report, Severity};

/// Parses `bytes` as `T`; on failure pushes one error (syntax or type) and returns `None`.
pub(crate) fn parse_file<T: DeserializeOwned>(
    file: &str,
    bytes: &[u8],
    report: &mut Report,
) -> Option<T> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let result: Result<T, _> = serde_path_to_error::deserialize(&mut deserializer);
    match result {
        Ok(value) => match deserializer.end() {
            Ok(()) => Some(value),
            Err(err) => {
                report.push(json_error(file, &err, None, None));
                None
            }
        },
        Err(err) => {
            let inner = err.inner();
            let path = err.path().to_string();
            let (field, entry) = if inner.classify() == serde_json::error::Category::Data {
                let segments: Vec<PathStep> = err.path().iter().map(PathStep::from).collect();
                let entry = entry_for_path(bytes, &segments);
                let field = if path == "." { None } else { Some(path) };
                (field, entry)
            } else {
                (None, None)
            };
            report.push(json_error(file, inner, field, entry));
            None
        }
    }
}

/// Builds the diagnostic for a serde_json error, moving its position into line and column.
fn json_error(
    file: &str,
    err: &serde_json::Error,
    field: Option<String>,
    entry: Option<String>,
) -> Diagnostic {
    let code = match err.classify() {
        serde_json::error::Category::Data => Code::Type,
        _ => Code::Syntax,
    };
    let full = err.to_string();
    let message = match full.rfind(" at line ") {
        Some(cut) => full[..cut].to_string(),
        None => full,
    };
    let message = if code == Code::Syntax {
        format!("malformed JSON: {message}")
    } else {
        message
    };
    let mut diagnostic = Diagnostic::new(Severity::Error, code, file, message);
    if err.line() > 0 {
        diagnostic = diagnostic.at(err.line(), err.column());
    }
    diagnostic.entry = entry;
    diagnostic.field = field;
    diagnostic
}

/// One step of a serde_path_to_error path, detached from its lifetime.
enum PathStep {
    Index(usize),
    Key(String),
    Other,
}

impl From<&serde_path_to_error::Segment> for PathStep {
    fn from(segment: &serde_path_to_error::Segment) -> Self {
        match segment {
            serde_path_to_error::Segment::Seq { index } => PathStep::Index(*index),
            serde_path_to_error::Segment::Map { key } => PathStep::Key(key.clone()),
            _ => PathStep::Other,
        }
    }
}

/// Finds the id of the outermost entry on the path: its `id` (or `output`, `runeItemId`), else the
/// key under which a nested map holds it (quests, areas, skill-unlock lists), else its `type`.
fn entry_for_path(bytes: &[u8], path: &[PathStep]) -> Option<String> {
    let root: Value = serde_json::from_slice(bytes).ok()?;
    let mut current = &root;
    let mut map_key: Option<&str> = None;
    for (depth, step) in path.iter().enumerate() {
        let next = match step {
            PathStep::Index(index) => current.get(*index),
            PathStep::Key(key) => current.get(key.as_str()),
            PathStep::Other => None,
        }?;
        if let PathStep::Key(key) = step {
            if depth >= 1 && current.is_object() && map_key.is_none() {
                map_key = Some(key.as_str());
            }
        }
        if let Value::Object(map) = next {
            for key in ["id", "output", "runeItemId"] {
                if let Some(Value::String(id)) = map.get(key) {
                    return Some(id.clone());
                }
            }
            if let Some(key) = map_key {
                return Some(key.to_string());
            }
            if let Some(Value::String(id)) = map.get("type") {
                return Some(id.clone());
            }
        }
        current = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Thing {
        id: String,
        value: i64,
    }

    #[test]
    fn type_error_names_line_column_field_and_entry() {
        let text = "[\n  {\"id\": \"a\", \"value\": 1},\n  {\"id\": \"b\", \"value\": \"x\"}\n]";
        let mut report = Report::new();
        assert!(
            parse_file::<Vec<Thing>>("items/misc.json", text.as_bytes(), &mut report).is_none()
        );
        let d = &report.diagnostics[0];
        assert_eq!(d.code, Code::Type);
        assert_eq!(d.line, Some(3));
        assert_eq!(d.column, Some(26));
        assert_eq!(d.field.as_deref(), Some("[1].value"));
        assert_eq!(d.entry.as_deref(), Some("b"));
        assert_eq!(d.message, "invalid type: string \"x\", expected i64");
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let mut report = Report::new();
        assert!(parse_file::<Vec<Thing>>("npcs.json", b"[\n {\"id\": }\n]", &mut report).is_none());
        let d = &report.diagnostics[0];
        assert_eq!(d.code, Code::Syntax);
        assert_eq!((d.line, d.column), (Some(2), Some(9)));
        assert!(d.message.starts_with("malformed JSON: "), "{}", d.message);
    }

    #[test]
    fn trailing_garbage_is_a_syntax_error() {
        let mut report = Report::new();
        assert!(parse_file::<Vec<Thing>>("a.json", b"[] x", &mut report).is_none());
        assert_eq!(report.diagnostics[0].code, Code::Syntax);
    }
}
