//! Diagnostics collected while loading and validating manifests, and their printed form.

use std::fmt;

use serde::Serialize;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The content is unusable as given; loading fails.
    Error,
    /// The content loads, but an entry (or part of one) was dropped or normalised.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// The class of a diagnostic, so callers and tests can filter without parsing messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// The file is not valid JSON.
    Syntax,
    /// The JSON is valid but a field has the wrong type or a required field is missing.
    Type,
    /// A value is out of range or otherwise impossible (negative level, empty id, chance > 1).
    InvalidValue,
    /// An id is defined twice.
    Duplicate,
    /// A reference names an id that no manifest defines.
    UnknownReference,
    /// A reference names an entry that exists but was itself disabled by another problem.
    DisabledReference,
    /// A file in the set is not part of the manifest format and was ignored.
    UnknownFile,
    /// The manifest set is empty or unreadable.
    Missing,
}

/// One problem found in the manifests.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The diagnostic class.
    pub code: Code,
    /// Manifest path relative to the manifest root, like `items/tools.json`.
    pub file: String,
    /// Id (or synthetic key) of the entry concerned, when there is one.
    pub entry: Option<String>,
    /// Field path inside the file or entry, like `items[3].itemId`.
    pub field: Option<String>,
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    /// 1-based column in the file, when known.
    pub column: Option<usize>,
    /// For [`Code::UnknownReference`] and [`Code::DisabledReference`]: the id that was referenced.
    pub missing: Option<String>,
    /// Human-readable explanation.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic with only a file, code, severity and message; add the rest with the builders.
    pub fn new(severity: Severity, code: Code, file: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code,
            file: file.to_string(),
            entry: None,
            field: None,
            line: None,
            column: None,
            missing: None,
            message: message.into(),
        }
    }

    /// Sets the entry id.
    pub fn entry(mut self, entry: impl Into<String>) -> Self {
        self.entry = Some(entry.into());
        self
    }

    /// Sets the field path.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Sets line and column.
    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    /// Sets the referenced id.
    pub fn missing(mut self, id: impl Into<String>) -> Self {
        self.missing = Some(id.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.severity, self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        if let Some(entry) = &self.entry {
            write!(f, " [{entry}]")?;
        }
        if let Some(field) = &self.field {
            write!(f, " {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every diagnostic from one load or check, in the order found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// The diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// Files and fields read but not acted on (`Content::ignored`), printed as `ignored: …`.
    pub ignored: Vec<String>,
    /// What the bundled content filled in (`Content::filled_in`), printed as `filled in: …`.
    pub filled_in: Vec<String>,
}

impl Report {
    /// An empty report.
    pub fn new() -> Self {
        Report::default()
    }

    /// Adds a diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Adds an error.
    pub fn error(&mut self, code: Code, file: &str, message: impl Into<String>) -> &mut Diagnostic {
        self.diagnostics
            .push(Diagnostic::new(Severity::Error, code, file, message));
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last]
    }

    /// Adds a warning.
    pub fn warning(
        &mut self,
        code: Code,
        file: &str,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.diagnostics
            .push(Diagnostic::new(Severity::Warning, code, file, message));
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last]
    }

    /// True when at least one diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// Number of warnings.
    pub fn warning_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }

    /// True when the report holds nothing at all.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }

    /// Diagnostics of one class.
    pub fn with_code(&self, code: Code) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(move |d| d.code == code)
    }

    /// Turns every warning into an error (strict mode).
    pub fn make_strict(&mut self) {
        for diagnostic in &mut self.diagnostics {
            diagnostic.severity = Severity::Error;
        }
    }

    /// Appends all diagnostics of another report.
    pub fn extend(&mut self, other: Report) {
        self.diagnostics.extend(other.diagnostics);
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for diagnostic in &self.diagnostics {
            writeln!(f, "{diagnostic}")?;
        }
        for line in &self.ignored {
            writeln!(f, "ignored: {line}")?;
        }
        for line in &self.filled_in {
            writeln!(f, "filled in: {line}")?;
        }
        let errors = self.error_count();
        let warnings = self.warning_count();
        write!(
            f,
            "{errors} error{}, {warnings} warning{}",
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_one_line_per_diagnostic_and_a_summary() {
        let mut report = Report::new();
        report.push(
            Diagnostic::new(
                Severity::Error,
                Code::Type,
                "items/tools.json",
                "invalid type: string, expected i64",
            )
            .entry("bronze_hatchet")
            .field("[0].value")
            .at(12, 18),
        );
        report.push(
            Diagnostic::new(
                Severity::Warning,
                Code::UnknownReference,
                "stores.json",
                "unknown item `shrimp`; the stock line is dropped",
            )
            .entry("central_store")
            .field("items[60].itemId")
            .missing("shrimp"),
        );
        let text = report.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "error: items/tools.json:12:18 [bronze_hatchet] [0].value: invalid type: string, expected i64"
        );
        assert_eq!(
            lines[1],
            "warning: stores.json [central_store] items[60].itemId: unknown item `shrimp`; the stock line is dropped"
        );
        assert_eq!(lines[2], "1 error, 1 warning");
        assert!(report.has_errors());
    }

    #[test]
    fn strict_turns_warnings_into_errors() {
        let mut report = Report::new();
        report.warning(Code::UnknownReference, "a.json", "x");
        assert!(!report.has_errors());
        report.make_strict();
        assert!(report.has_errors());
        assert_eq!(report.to_string(), "error: a.json: x\n1 error, 0 warnings");
    }
}
