//! Strict reading of JSON into the wire types: a struct is read only from a JSON object.
//!
//! serde's derived `Deserialize` for a struct also accepts a JSON array, read field by field in
//! declaration order (`[5, 5]` would be a `player:move` to 5,5, `["Bobby"]` a name). Nothing in the
//! protocol is documented that way, so every client message (`ws::ClientMessage::parse`) and every
//! REST body (the server's `ApiJson`) is read through [`from_value`], whose deserializer refuses
//! anything but an object where a struct is expected, at any depth. Everything else is read as
//! `serde_json` reads it (numbers, strings, options, lists, maps); unknown fields stay allowed.
//!
//! Limits of the rule: serde buffers the input of `#[serde(flatten)]` fields and of untagged or
//! internally tagged enums before reading it, and a struct read from that buffer accepts arrays
//! again. No client message or REST body uses those (a test in this module checks the types that
//! do reach it); a new one that does must keep the rule by other means.

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, Expected, IntoDeserializer, MapAccess,
    SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde::{Deserialize, Deserializer};
use serde_json::{Error, Map, Value};

mod shape_error;

pub use shape_error::ShapeError;

/// Reads `value` as a `T`, refusing a non-object wherever a struct is expected. The error says
/// where and what in words ([`ShapeError::describe`]).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, ShapeError> {
    T::deserialize(Strict(value))
}

/// Why JSON text could not be read as a `T`.
#[derive(Debug)]
pub enum TextError {
    /// The text is not JSON (syntax, truncated, not UTF-8).
    NotJson(Error),
    /// Valid JSON, but not the expected shape (including JSON nested deeper than `serde_json`'s
    /// limit of 128 levels: valid, but refused).
    Shape(ShapeError),
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextError::NotJson(err) => f.write_str(&not_json(err)),
            TextError::Shape(err) => err.fmt(f),
        }
    }
}

/// Why text is not JSON, in words with where, to follow "the request body is": "not valid JSON
/// (line 1, column 7)". serde_json's own text names what its parser expected next (`expected
/// ident`), which tells a client little.
pub fn not_json(err: &Error) -> String {
    use serde_json::error::Category;
    let at = format!("line {}, column {}", err.line(), err.column());
    match err.classify() {
        Category::Eof => format!("not valid JSON: it ends before it is complete ({at})"),
        Category::Io => "not readable as text".to_owned(),
        Category::Syntax | Category::Data => format!("not valid JSON ({at})"),
    }
}

/// Reads JSON text as a `T`: text that is not JSON is [`TextError::NotJson`], valid JSON of the
/// wrong shape (a key twice in one object included) [`TextError::Shape`].
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, TextError> {
    let value = unique_value(&mut serde_json::Deserializer::from_slice(bytes)).map_err(|err| {
        if too_deep(&err, bytes) {
            TextError::Shape(ShapeError::other(format!(
                "nested deeper than {MAX_DEPTH} levels"
            )))
        } else if let Some(twice) = duplicate_key(&err) {
            TextError::Shape(ShapeError::other(twice))
        } else {
            TextError::NotJson(err)
        }
    })?;
    from_value(value).map_err(TextError::Shape)
}

/// Reads one JSON text as a [`Value`], refusing an object that has a key twice, at any depth.
/// `serde_json` keeps the last of two equal keys, so `{"type":"a","type":"b"}` would be read as
/// one message while a different reader (a proxy, a log filter, another server) saw the other: a
/// message means one thing or is refused ([`duplicate_key`] tells that refusal apart).
pub fn unique_value_from_str(text: &str) -> Result<Value, Error> {
    unique_value(&mut serde_json::Deserializer::from_str(text))
}

/// The whole text as one [`UniqueValue`], nothing after it but whitespace.
fn unique_value<'de, R: serde_json::de::Read<'de>>(
    reader: &mut serde_json::Deserializer<R>,
) -> Result<Value, Error> {
    let value = UniqueValue::deserialize(&mut *reader)?;
    reader.end()?;
    Ok(value.0)
}

/// The text of a [`unique_value_from_str`] refusal for a repeated key ("the key \"type\" appears
/// twice in one object"), or `None` for any other error.
pub fn duplicate_key(err: &Error) -> Option<String> {
    // The value reader's one data error (everything else it meets is syntax or end of input).
    (err.classify() == serde_json::error::Category::Data).then(|| {
        let text = err.to_string();
        // serde_json appends " at line L column C"; the key is what matters.
        match text.rfind(" at line ") {
            Some(cut) => text[..cut].to_owned(),
            None => text,
        }
    })
}

/// A [`Value`] read by [`UniqueValueVisitor`].
struct UniqueValue(Value);

impl<'de> Deserialize<'de> for UniqueValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(UniqueValueVisitor)
            .map(UniqueValue)
    }
}

/// `serde_json::Value`'s own reading, but an object's repeated key is an error.
struct UniqueValueVisitor;

impl<'de> Visitor<'de> for UniqueValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        UniqueValue::deserialize(deserializer).map(|v| v.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(UniqueValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let UniqueValue(value) = map.next_value()?;
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key {} appears twice in one object",
                    crate::text::quoted(&key)
                )));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// How deep `serde_json` reads nested arrays and objects.
const MAX_DEPTH: usize = 128;

/// Whether `serde_json` refused well-formed JSON for nesting deeper than its limit. It reports that
/// as a syntax error, whose text is the one way to tell (the test `nesting_too_deep_is_a_shape_error`
/// notices if it changes); the text is then checked with [`is_json`], which has no depth limit.
fn too_deep(err: &Error, bytes: &[u8]) -> bool {
    err.to_string().starts_with("recursion limit exceeded") && is_json(bytes)
}

/// Whether `bytes` is one JSON text (RFC 8259), at any depth: an iterative check with a stack of
/// open brackets, for the rare text `serde_json` declines to read for its depth.
pub fn is_json(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let text = text.as_bytes();
    let mut at = 0;
    let mut open: Vec<u8> = Vec::new();
    'value: loop {
        skip_whitespace(text, &mut at);
        // A value.
        match text.get(at) {
            Some(b'{') => {
                at += 1;
                skip_whitespace(text, &mut at);
                if text.get(at) == Some(&b'}') {
                    at += 1;
                } else {
                    open.push(b'{');
                    if !key(text, &mut at) {
                        return false;
                    }
                    continue 'value;
                }
            }
            Some(b'[') => {
                at += 1;
                skip_whitespace(text, &mut at);
                if text.get(at) == Some(&b']') {
                    at += 1;
                } else {
                    open.push(b'[');
                    continue 'value;
                }
            }
            Some(b'"') => {
                if !string(text, &mut at) {
                    return false;
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                if !number(text, &mut at) {
                    return false;
                }
            }
            _ => {
                let literal = ["true", "false", "null"]
                    .into_iter()
                    .find(|l| text[at..].starts_with(l.as_bytes()));
                match literal {
                    Some(l) => at += l.len(),
                    None => return false,
                }
            }
        }
        // After a value: a separator, the end of containers, or the end of the text.
        loop {
            skip_whitespace(text, &mut at);
            let Some(&container) = open.last() else {
                return at == text.len();
            };
            match (container, text.get(at)) {
                (b'[', Some(b',')) => {
                    at += 1;
                    continue 'value;
                }
                (b'{', Some(b',')) => {
                    at += 1;
                    skip_whitespace(text, &mut at);
                    if !key(text, &mut at) {
                        return false;
                    }
                    continue 'value;
                }
                (b'[', Some(b']')) | (b'{', Some(b'}')) => {
                    at += 1;
                    open.pop();
                }
                _ => return false,
            }
        }
    }
}

fn skip_whitespace(text: &[u8], at: &mut usize) {
    while matches!(text.get(*at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        *at += 1;
    }
}

/// An object key and its colon.
fn key(text: &[u8], at: &mut usize) -> bool {
    if text.get(*at) != Some(&b'"') || !string(text, at) {
        return false;
    }
    skip_whitespace(text, at);
    if text.get(*at) != Some(&b':') {
        return false;
    }
    *at += 1;
    true
}

/// A string starting at its opening quote (the text is already known to be UTF-8).
fn string(text: &[u8], at: &mut usize) -> bool {
    *at += 1;
    loop {
        match text.get(*at) {
            Some(b'"') => {
                *at += 1;
                return true;
            }
            Some(b'\\') => match text.get(*at + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => *at += 2,
                Some(b'u') => {
                    let hex = text.get(*at + 2..*at + 6);
                    if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                        return false;
                    }
                    *at += 6;
                }
                _ => return false,
            },
            Some(&c) if c >= 0x20 => *at += 1,
            _ => return false,
        }
    }
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
fn number(text: &[u8], at: &mut usize) -> bool {
    let digits = |at: &mut usize| {
        let start = *at;
        while text.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at > start
    };
    if text.get(*at) == Some(&b'-') {
        *at += 1;
    }
    match text.get(*at) {
        Some(b'0') => *at += 1,
        Some(b'1'..=b'9') => {
            digits(at);
        }
        _ => return false,
    }
    if text.get(*at) == Some(&b'.') {
        *at += 1;
        if !digits(at) {
            return false;
        }
    }
    if matches!(text.get(*at), Some(b'e' | b'E')) {
        *at += 1;
        if matches!(text.get(*at), Some(b'+' | b'-')) {
            *at += 1;
        }
        if !digits(at) {
            return false;
        }
    }
    true
}

/// How serde names a JSON value in "invalid type: …, expected …".
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Unexpected::Unsigned(u)
            } else if let Some(i) = n.as_i64() {
                Unexpected::Signed(i)
            } else {
                Unexpected::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn invalid_type(value: &Value, expected: &dyn Expected) -> ShapeError {
    de::Error::invalid_type(unexpected(value), expected)
}

/// A JSON value read strictly; nested values are wrapped again, so the rule holds at every depth.
struct Strict(Value);

/// The scalar readers: each visits the value as it is, and the visitor refuses a kind it does not
/// take (an `i64` field given a string is `invalid_type`), as `serde_json::Value` does.
macro_rules! forward_to_any {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
                self.deserialize_any(visitor)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for Strict {
    type Error = ShapeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(map) => visit_object(map, visitor),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        visitor.visit_unit()
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ShapeError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Strict(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        match self.0 {
            // A unit variant by name.
            Value::String(name) => visitor.visit_enum(name.into_deserializer()),
            // `{"Variant": content}`.
            Value::Object(map) if map.len() == 1 => {
                let Some((variant, content)) = map.into_iter().next() else {
                    return Err(de::Error::invalid_length(0, &"an object with one entry"));
                };
                visitor.visit_enum(Variant { variant, content })
            }
            other => Err(invalid_type(
                &other,
                &"a variant name or a one-entry object",
            )),
        }
    }

    forward_to_any! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_identifier
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        self.deserialize_unit(visitor)
    }
}

fn visit_array<'de, V: Visitor<'de>>(
    items: Vec<Value>,
    visitor: V,
) -> Result<V::Value, ShapeError> {
    let len = items.len();
    let mut access = Items(items.into_iter(), 0);
    let value = visitor.visit_seq(&mut access)?;
    if access.0.len() == 0 {
        Ok(value)
    } else {
        Err(ShapeError::too_many(len, "items"))
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    map: Map<String, Value>,
    visitor: V,
) -> Result<V::Value, ShapeError> {
    let len = map.len();
    let mut access = Entries {
        entries: map.into_iter(),
        value: None,
    };
    let value = visitor.visit_map(&mut access)?;
    if access.entries.len() == 0 {
        Ok(value)
    } else {
        Err(ShapeError::too_many(len, "entries"))
    }
}

/// A list's items, and the position of the next (for the path of an error).
struct Items(std::vec::IntoIter<Value>, usize);

impl<'de> SeqAccess<'de> for Items {
    type Error = ShapeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ShapeError> {
        let index = self.1;
        self.1 += 1;
        self.0
            .next()
            .map(|item| {
                seed.deserialize(Strict(item))
                    .map_err(|err| err.at_index(index))
            })
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries {
    entries: serde_json::map::IntoIter,
    /// The value of the key just read, and the key (for the path of an error).
    value: Option<(String, Value)>,
}

impl<'de> MapAccess<'de> for Entries {
    type Error = ShapeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ShapeError> {
        match self.entries.next() {
            Some((key, value)) => {
                // Read from a borrow: no copy of every key of every message for the error path.
                let read = seed.deserialize(de::value::StrDeserializer::<ShapeError>::new(&key));
                self.value = Some((key, value));
                read.map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, ShapeError> {
        match self.value.take() {
            Some((key, value)) => seed
                .deserialize(Strict(value))
                .map_err(|err| err.in_field(&key)),
            None => Err(de::Error::custom("a value was asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// The content of a `{"Variant": content}` enum value.
struct Variant {
    variant: String,
    content: Value,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = ShapeError;
    type Variant = Strict;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Strict), ShapeError> {
        let variant = seed.deserialize(Strict(Value::String(self.variant)))?;
        Ok((variant, Strict(self.content)))
    }
}

impl<'de> VariantAccess<'de> for Strict {
    type Error = ShapeError;

    fn unit_variant(self) -> Result<(), ShapeError> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(invalid_type(&other, &"a unit variant")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, ShapeError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        self.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ShapeError> {
        self.deserialize_map(visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Inner {
        a: i32,
        #[serde(default)]
        b: Option<String>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        Plain,
        Wrapped(Inner),
        Shaped { inner: Inner },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Outer {
        inner: Inner,
        list: Vec<Inner>,
        #[serde(default)]
        maybe: Option<Inner>,
        #[serde(default)]
        map: BTreeMap<String, Inner>,
        #[serde(default)]
        kind: Option<Kind>,
        #[serde(default)]
        raw: Option<Value>,
        #[serde(default)]
        pair: Option<(u8, Inner)>,
    }

    fn read<T: DeserializeOwned>(value: Value) -> Result<T, ShapeError> {
        from_value(value)
    }

    #[test]
    fn objects_read_as_serde_json_reads_them() {
        let value = json!({
            "inner": {"a": 1, "unknown": [1, 2]},
            "list": [{"a": 2, "b": "x"}],
            "maybe": null,
            "map": {"k": {"a": 3}},
            "kind": {"shaped": {"inner": {"a": 4}}},
            "raw": [1, {"deep": [2]}],
            "pair": [7, {"a": 5}],
            "extra": "unknown fields are allowed"
        });
        let strict: Outer = read(value.clone()).unwrap();
        let loose: Outer = serde_json::from_value(value).unwrap();
        assert_eq!(strict, loose);
        assert_eq!(strict.raw, Some(json!([1, {"deep": [2]}])));
        assert_eq!(read::<Kind>(json!("plain")).unwrap(), Kind::Plain);
        assert_eq!(
            read::<Kind>(json!({"wrapped": {"a": 1}})).unwrap(),
            Kind::Wrapped(Inner { a: 1, b: None })
        );
    }

    #[test]
    fn arrays_are_refused_wherever_a_struct_is_expected() {
        // Each of these is accepted by serde_json's own reading.
        let cases = [
            json!([1, "x"]),
            json!({"inner": [1], "list": []}),
            json!({"inner": {"a": 1}, "list": [[2]]}),
            json!({"inner": {"a": 1}, "list": [], "maybe": [3]}),
            json!({"inner": {"a": 1}, "list": [], "map": {"k": [4]}}),
            json!({"inner": {"a": 1}, "list": [], "kind": {"wrapped": [5]}}),
            json!({"inner": {"a": 1}, "list": [], "kind": {"shaped": [[6]]}}),
            json!({"inner": {"a": 1}, "list": [], "pair": [7, [8]]}),
        ];
        for case in cases {
            let err = read::<Outer>(case.clone()).unwrap_err();
            assert!(
                err.to_string().ends_with("must be an object, not a list"),
                "{case}: {err}"
            );
        }
        assert!(
            serde_json::from_value::<Inner>(json!([1])).is_ok(),
            "serde's own reading"
        );
        assert!(read::<Inner>(json!([1])).is_err());
    }

    #[test]
    fn wrong_types_and_lengths_are_refused() {
        for case in [
            json!(null),
            json!(1),
            json!("a"),
            json!({"a": "1"}),
            json!({"a": 1.5}),
            json!({"a": 1e10}),
            json!({"a": 1, "b": 2}),
            json!({}),
        ] {
            assert!(read::<Inner>(case.clone()).is_err(), "{case}");
        }
        assert!(read::<(u8, u8)>(json!([1, 2, 3])).is_err());
        assert!(read::<(u8, u8)>(json!([1])).is_err());
        assert!(read::<Kind>(json!({"plain": 1, "wrapped": {"a": 1}})).is_err());
    }

    #[test]
    fn errors_name_the_field_and_what_it_must_be() {
        let body = |value: Value| read::<Outer>(value).unwrap_err().describe("the body");
        let inner = json!({"a": 1});
        for (value, message) in [
            (json!([]), "the body must be an object, not a list"),
            (json!({"list": []}), "`inner` is missing"),
            (json!({"inner": {}, "list": []}), "`inner.a` is missing"),
            (
                json!({"inner": {"a": "7"}, "list": []}),
                "`inner.a` must be a whole number, not a string",
            ),
            (
                json!({"inner": {"a": 2.5}, "list": []}),
                "`inner.a` must be a whole number, not 2.5",
            ),
            (
                json!({"inner": {"a": 5_000_000_000u64}, "list": []}),
                "`inner.a` must be a whole number from -2147483648 to 2147483647, not 5000000000",
            ),
            (
                json!({"inner": inner, "list": [inner, {"a": true}]}),
                "`list[1].a` must be a whole number, not true",
            ),
            (
                json!({"inner": {"a": 1, "b": 5}, "list": []}),
                "`inner.b` must be a string, not 5",
            ),
            (
                json!({"inner": inner, "list": {}}),
                "`list` must be a list, not an object",
            ),
            (
                json!({"inner": inner, "list": [], "kind": "odd"}),
                "`kind` must be one of `plain`, `wrapped`, `shaped`",
            ),
            (
                json!({"inner": inner, "list": [], "pair": [300, inner]}),
                "`pair[0]` must be a whole number from 0 to 255, not 300",
            ),
            (
                json!({"inner": inner, "list": [], "pair": [1]}),
                "`pair` has 1 item; it must be a list of 2 items",
            ),
            (
                json!({"inner": inner, "list": [], "pair": [1, inner, 3]}),
                "`pair` has 3 items, more than it can hold",
            ),
            (
                json!({"inner": inner, "list": [], "maybe": null, "map": {"k": null}}),
                "`map.k` must be an object, not null",
            ),
        ] {
            assert_eq!(body(value.clone()), message, "{value}");
        }
        let err = read::<Outer>(json!({"inner": {"a": -1}, "list": [], "pair": [-1, inner]}))
            .unwrap_err();
        assert_eq!(err.path(), "pair[0]");
        assert_eq!(
            err.to_string(),
            "`pair[0]` must be a whole number from 0 to 255, not -1"
        );
    }

    #[test]
    fn text_that_is_not_json_is_said_so_with_where() {
        let err = serde_json::from_str::<Value>("{\"a\": tru}").unwrap_err();
        assert_eq!(not_json(&err), "not valid JSON (line 1, column 10)");
        let err = serde_json::from_str::<Value>("{\"a\": ").unwrap_err();
        assert_eq!(
            not_json(&err),
            "not valid JSON: it ends before it is complete (line 1, column 6)"
        );
    }

    #[test]
    fn text_that_is_not_json_is_told_apart_from_a_wrong_shape() {
        assert!(matches!(
            from_slice::<Inner>(b"{\"a\":"),
            Err(TextError::NotJson(_))
        ));
        assert!(matches!(
            from_slice::<Inner>(b"[1] x"),
            Err(TextError::NotJson(_))
        ));
        assert!(matches!(
            from_slice::<Inner>(b"[\"Arrayname\", 1]"),
            Err(TextError::Shape(_))
        ));
        assert_eq!(from_slice::<Inner>(b" {\"a\": 1} ").unwrap().a, 1);
    }

    #[test]
    fn nesting_too_deep_is_a_shape_error() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(matches!(
            from_slice::<Value>(deep.as_bytes()),
            Err(TextError::Shape(_))
        ));
        let shallow = "[".repeat(100) + &"]".repeat(100);
        assert!(from_slice::<Value>(shallow.as_bytes()).is_ok());
        let broken = "[".repeat(200);
        assert!(matches!(
            from_slice::<Value>(broken.as_bytes()),
            Err(TextError::NotJson(_))
        ));
        let deep_object = r#"{"a":"#.repeat(200) + "1" + &"}".repeat(200);
        assert!(matches!(
            from_slice::<Value>(deep_object.as_bytes()),
            Err(TextError::Shape(_))
        ));
    }

    #[test]
    fn the_depth_free_check_agrees_with_serde_json() {
        let valid = [
            "0",
            "-0",
            "1.5e+3",
            "-12E-2",
            "true",
            " null ",
            "\"a\\u00e9\\n\"",
            "[]",
            "{}",
            "[1, [2, {\"a\": [3]}], \"x\"]",
            "{\"a\": {\"b\": null}, \"c\": []}",
        ];
        let invalid = [
            "",
            " ",
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "[,1]",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{a:1}",
            "[1 2]",
            "\"a",
            "\"\\x\"",
            "\"\\u12g4\"",
            "[]]",
            "{}{}",
            "\"\u{1}\"",
            "[1}",
            "{\"a\":1]",
            "1 2",
        ];
        for text in valid {
            assert!(is_json(text.as_bytes()), "{text}");
            assert!(serde_json::from_str::<Value>(text).is_ok(), "{text}");
        }
        for text in invalid {
            assert!(!is_json(text.as_bytes()), "{text}");
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        }
        assert!(!is_json(b"\"\xff\""), "not UTF-8");
    }
}
