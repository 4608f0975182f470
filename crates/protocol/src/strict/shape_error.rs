//! What was wrong with JSON of the wrong shape, in words a client's author reads: which field (a
//! path of names and list positions) and what it must be ("`quantity` must be a whole number, not
//! a string"), rather than serde's internal names (`expected i64`, `invalid type: sequence`).
//!
//! The strict deserializer reports its errors as this type, so serde's derived code hands over
//! each problem already taken apart (the kind of value found, what was expected, the missing
//! field) and the path is added on the way out of each object and list.

use std::fmt;

use serde::de::{self, Expected, Unexpected};

/// Why valid JSON does not fit the expected shape. Boxed, as `serde_json::Error` is: every
/// step of a deserialization returns a `Result` with this error in it, and a pointer keeps those
/// results as small on the path where nothing is wrong (every socket message) as they were.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeError(Box<Inner>);

#[derive(Debug, Clone, PartialEq)]
struct Inner {
    /// Where, innermost first (segments are added while the error travels outwards).
    path: Vec<Segment>,
    problem: Problem,
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Field(String),
    Index(usize),
}

#[derive(Debug, Clone, PartialEq)]
enum Problem {
    /// A value of the wrong kind.
    Type {
        found: Found,
        expected: String,
    },
    /// A value of the right kind out of range (a negative count, a number past the type).
    Value {
        found: Found,
        expected: String,
    },
    /// A list of the wrong length.
    Length {
        len: usize,
        expected: String,
    },
    /// A list or object with more than its reader took (`items` or `entries`).
    TooMany {
        len: usize,
        noun: &'static str,
    },
    /// A name that is not one of a fixed set.
    Variant {
        found: String,
        expected: &'static [&'static str],
    },
    Missing(&'static str),
    Duplicate(&'static str),
    UnknownField {
        found: String,
        expected: &'static [&'static str],
    },
    /// Any other refusal, worded by the type that refused (a slot number, a tagged enum).
    Other(String),
}

/// The kind of value found, as the message names it (a string's content is not repeated: it
/// may be long, and it is the client's own).
#[derive(Debug, Clone, PartialEq)]
enum Found {
    Bool(bool),
    Whole(i128),
    Number(f64),
    Text,
    Null,
    List,
    Object,
    Other(String),
}

impl From<Unexpected<'_>> for Found {
    fn from(unexpected: Unexpected<'_>) -> Found {
        match unexpected {
            Unexpected::Bool(b) => Found::Bool(b),
            Unexpected::Unsigned(n) => Found::Whole(i128::from(n)),
            Unexpected::Signed(n) => Found::Whole(i128::from(n)),
            Unexpected::Float(f) => Found::Number(f),
            Unexpected::Char(_) | Unexpected::Str(_) => Found::Text,
            Unexpected::Unit | Unexpected::Option => Found::Null,
            Unexpected::Seq => Found::List,
            Unexpected::Map => Found::Object,
            other => Found::Other(other.to_string()),
        }
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Bool(b) => write!(f, "{b}"),
            Found::Whole(n) => write!(f, "{n}"),
            Found::Number(n) => write!(f, "{n}"),
            Found::Text => f.write_str("a string"),
            Found::Null => f.write_str("null"),
            Found::List => f.write_str("a list"),
            Found::Object => f.write_str("an object"),
            Found::Other(other) => f.write_str(other),
        }
    }
}

/// The kind of value serde's `expected` names, in words.
fn kind_words(expected: &str) -> String {
    let whole = [
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
    ];
    if whole.contains(&expected) {
        return "a whole number".to_owned();
    }
    match expected {
        "f32" | "f64" => "a number".to_owned(),
        "a string" | "a borrowed string" | "string" => "a string".to_owned(),
        "a boolean" => "true or false".to_owned(),
        "a character" | "char" => "a single character".to_owned(),
        "a sequence" => "a list".to_owned(),
        "a map" => "an object".to_owned(),
        "unit" => "null".to_owned(),
        "a variant name or a one-entry object" => "a name, or an object with one entry".to_owned(),
        e if e.starts_with("struct ") => "an object".to_owned(),
        e if e.starts_with("a tuple of size ") => {
            format!("a list of {} items", &e["a tuple of size ".len()..])
        }
        e if e.starts_with("tuple struct ") || e.starts_with("tuple variant ") => {
            "a list".to_owned()
        }
        e if e.starts_with("enum ") || e == "variant identifier" || e == "field identifier" => {
            "a name".to_owned()
        }
        other => other.to_owned(),
    }
}

/// The range of a whole-number type, for a value outside it.
fn range_words(expected: &str) -> Option<String> {
    let (low, high): (i128, i128) = match expected {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        _ => return None,
    };
    Some(format!("a whole number from {low} to {high}"))
}

fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl ShapeError {
    fn new(problem: Problem) -> ShapeError {
        ShapeError(Box::new(Inner {
            path: Vec::new(),
            problem,
        }))
    }

    /// The same error, inside field `name`.
    pub(super) fn in_field(mut self, name: &str) -> ShapeError {
        self.0.path.push(Segment::Field(name.to_owned()));
        self
    }

    /// The same error, at position `index` of a list.
    pub(super) fn at_index(mut self, index: usize) -> ShapeError {
        self.0.path.push(Segment::Index(index));
        self
    }

    /// A list or object of `len` `noun` (items, entries), more than its reader took.
    pub(super) fn too_many(len: usize, noun: &'static str) -> ShapeError {
        ShapeError::new(Problem::TooMany { len, noun })
    }

    /// A refusal in words of the caller's own.
    pub fn other(message: impl Into<String>) -> ShapeError {
        ShapeError::new(Problem::Other(message.into()))
    }

    /// Where the problem is: `target.level`, `items[2].quantity`; empty for the whole value.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for segment in self.0.path.iter().rev() {
            match segment {
                Segment::Field(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    /// The problem in words, naming the whole value `whole` ("the request body") when it is the
    /// whole value that is wrong.
    pub fn describe(&self, whole: &str) -> String {
        let path = self.path();
        let subject = if path.is_empty() {
            whole.to_owned()
        } else {
            format!("`{path}`")
        };
        let within = |field: &str| {
            if path.is_empty() {
                format!("`{field}`")
            } else {
                format!("`{path}.{field}`")
            }
        };
        match &self.0.problem {
            Problem::Type { found, expected } => {
                format!("{subject} must be {}, not {found}", kind_words(expected))
            }
            Problem::Value { found, expected } => {
                let words = range_words(expected).unwrap_or_else(|| kind_words(expected));
                format!("{subject} must be {words}, not {found}")
            }
            Problem::Length { len, expected } => {
                let items = if *len == 1 { "item" } else { "items" };
                format!(
                    "{subject} has {len} {items}; it must be {}",
                    kind_words(expected)
                )
            }
            Problem::TooMany { len, noun } => {
                format!("{subject} has {len} {noun}, more than it can hold")
            }
            Problem::Variant {
                found,
                expected: [],
            } => {
                format!("{subject} cannot be `{found}`")
            }
            Problem::Variant { expected, .. } => {
                format!("{subject} must be one of {}", list(expected))
            }
            Problem::Missing(field) => format!("{} is missing", within(field)),
            Problem::Duplicate(field) => format!("{} is given twice", within(field)),
            Problem::UnknownField { found, expected } => format!(
                "{} is not a field here (the fields are {})",
                within(found),
                list(expected)
            ),
            Problem::Other(message) if path.is_empty() => message.clone(),
            Problem::Other(message) => format!("{subject}: {message}"),
        }
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe("the value"))
    }
}

impl std::error::Error for ShapeError {}

impl de::Error for ShapeError {
    fn custom<T: fmt::Display>(message: T) -> ShapeError {
        ShapeError::other(message.to_string())
    }

    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn Expected) -> ShapeError {
        ShapeError::new(Problem::Type {
            found: unexpected.into(),
            expected: expected.to_string(),
        })
    }

    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn Expected) -> ShapeError {
        ShapeError::new(Problem::Value {
            found: unexpected.into(),
            expected: expected.to_string(),
        })
    }

    fn invalid_length(len: usize, expected: &dyn Expected) -> ShapeError {
        ShapeError::new(Problem::Length {
            len,
            expected: expected.to_string(),
        })
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> ShapeError {
        ShapeError::new(Problem::Variant {
            // Echoed in the message: cut as every id a client sends is.
            found: crate::text::cut(variant).into_owned(),
            expected,
        })
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> ShapeError {
        ShapeError::new(Problem::UnknownField {
            found: crate::text::cut(field).into_owned(),
            expected,
        })
    }

    fn missing_field(field: &'static str) -> ShapeError {
        ShapeError::new(Problem::Missing(field))
    }

    fn duplicate_field(field: &'static str) -> ShapeError {
        ShapeError::new(Problem::Duplicate(field))
    }
}
