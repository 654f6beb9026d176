//! The two JSON Schemas — `cowork.schema.json` (an app's manifest) and `workspace.schema.json`
//! (`.cowork/workspace.json`) — embedded, compiled once, and turned into [`Issue`]s a person can
//! read.
//!
//! The schemas in `schemas/` are the single source of what is valid: the editor validates the files
//! against them as the person types, and this crate validates against the very same documents, so the
//! two can never disagree. A schema node may carry an `x-expected` annotation (a noun phrase such as
//! "a lowercase name (…)") that turns a cryptic `pattern`, `anyOf` or `oneOf` failure into
//! `is not a lowercase name (…)`; `deprecated: true` marks a key that is read no more.
//!
//! ```
//! use cowork_core::schema;
//! let issues = schema::manifest().check(&serde_json::json!({"name": "mail", "version": "1.0.0", "display": "sideways"}));
//! assert_eq!(issues[0].describe(), r#""display": "sideways" is not one of sidebar, tab, modal, right"#);
//! ```

use std::fmt;
use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::{Location, LocationSegment};
use jsonschema::{ValidationError, Validator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The manifest schema's text, as the editor gets it.
pub const COWORK_SCHEMA: &str = include_str!("../../../schemas/cowork.schema.json");

/// The workspace state schema's text, as the editor gets it.
pub const WORKSPACE_SCHEMA: &str = include_str!("../../../schemas/workspace.schema.json");

/// Longest a quoted value gets in a problem line before it is cut with `…`.
const QUOTE_LIMIT: usize = 60;

/// One thing wrong with a file, as a person reads it: `<file>: <message>`.
///
/// `file` is workspace-relative (`.cowork/apps/mail/cowork.json`); `key` is the dotted key the
/// problem concerns (`display`, `routines.mail-send.readOnly`), when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// The file, relative to the workspace root.
    pub file: String,
    /// The dotted key inside the file, when the problem concerns one.
    pub key: Option<String>,
    /// What is wrong and what Cowork did about it, e.g. `"display": "sideways" is not one of
    /// sidebar, tab, modal, right — ignored`.
    pub message: String,
}

impl Problem {
    /// A problem with `file`, about `key` when given.
    pub fn new(file: impl Into<String>, key: Option<String>, message: impl Into<String>) -> Self {
        Problem { file: file.into(), key, message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// One step into a JSON document: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Segment {
    /// An object's key.
    Key(String),
    /// An array's index.
    Index(usize),
}

impl From<&str> for Segment {
    fn from(key: &str) -> Self {
        Segment::Key(key.to_owned())
    }
}

impl Segment {
    /// The key, when this step is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Segment::Key(key) => Some(key),
            Segment::Index(_) => None,
        }
    }
}

/// What an [`Issue`] is about.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    /// The value at the path is wrong (it is this value).
    Value(Value),
    /// The key at the path is required and missing.
    Missing,
    /// The key at the path has a name its object does not allow.
    Name,
}

/// One schema violation, located in the instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    /// Where in the instance, outermost first. For a missing key or a bad key name, the last
    /// segment is that key.
    pub path: Vec<Segment>,
    /// What is wrong there.
    pub subject: Subject,
    /// Why, e.g. `is not one of sidebar, tab, modal, right`.
    pub reason: String,
}

impl Issue {
    /// The dotted key, e.g. `routines.mail-send.timeout`; array indices read `capture[1]`.
    pub fn key(&self) -> String {
        dotted(&self.path)
    }

    /// `"<key>": <value> <reason>`, or `"<key>" <reason>` when there is no value to show.
    pub fn describe(&self) -> String {
        match &self.subject {
            Subject::Value(value) => {
                format!("\"{}\": {} {}", self.key(), quote(value), self.reason)
            }
            Subject::Missing | Subject::Name => format!("\"{}\" {}", self.key(), self.reason),
        }
    }
}

/// Joins a path into the dotted key a person reads: `routines.x.timeout`, `capture[1]`.
pub fn dotted(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A value as a problem line shows it: compact JSON, long strings cut, big objects and arrays
/// summarised.
pub fn quote(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= QUOTE_LIMIT {
        return text;
    }
    match value {
        Value::String(s) => {
            let head: String = s.chars().take(QUOTE_LIMIT - 20).collect();
            format!("\"{head}…\" ({} characters)", s.chars().count())
        }
        Value::Object(map) => format!("{{…{} keys}}", map.len()),
        Value::Array(items) => format!("[…{} items]", items.len()),
        _ => text,
    }
}

/// A compiled schema together with its document, so issues can read the document's annotations.
pub struct Schema {
    document: Value,
    validator: Validator,
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema").field("title", &self.document.get("title")).finish_non_exhaustive()
    }
}

impl Schema {
    fn compile(text: &str, what: &str) -> Schema {
        let document: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("the embedded {what} is JSON (checked by the tests): {e}"));
        let validator = jsonschema::draft202012::options()
            .build(&document)
            .unwrap_or_else(|e| panic!("the embedded {what} compiles (checked by the tests): {e}"));
        Schema { document, validator }
    }

    /// A schema someone else wrote — a routine's `input` — compiled under the draft it names
    /// (2020-12 when it names none); the compiler's complaint when it does not compile.
    pub fn of(document: &Value) -> Result<Schema, String> {
        let validator = jsonschema::options().build(document).map_err(|e| e.to_string())?;
        Ok(Schema { document: document.clone(), validator })
    }

    /// The schema document itself.
    pub fn document(&self) -> &Value {
        &self.document
    }

    /// The node at a JSON pointer into the schema document, e.g. `/properties/name`.
    pub fn node(&self, pointer: &str) -> Option<&Value> {
        self.document.pointer(pointer)
    }

    /// Every violation of this schema by `instance`, in the validator's order.
    pub fn check(&self, instance: &Value) -> Vec<Issue> {
        self.validator.iter_errors(instance).map(|error| self.issue(&error)).collect()
    }

    /// The properties marked `deprecated: true` under the object schema at `pointer`, each with its
    /// `x-replaced-by` phrase when it has one.
    pub fn deprecated_keys(&self, pointer: &str) -> Vec<(&str, Option<&str>)> {
        let Some(Value::Object(properties)) = self.node(pointer).and_then(|n| n.get("properties"))
        else {
            return Vec::new();
        };
        properties
            .iter()
            .filter(|(_, node)| node.get("deprecated") == Some(&Value::Bool(true)))
            .map(|(key, node)| (key.as_str(), node.get("x-replaced-by").and_then(Value::as_str)))
            .collect()
    }

    fn issue(&self, error: &ValidationError<'_>) -> Issue {
        let mut path = segments(error.instance_path());
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                path.push(Segment::from(property.as_str().unwrap_or_default()));
                Issue { path, subject: Subject::Missing, reason: "is missing".to_owned() }
            }
            ValidationErrorKind::PropertyNames { error: inner } => {
                path.push(Segment::from(inner.instance().as_str().unwrap_or_default()));
                Issue { path, subject: Subject::Name, reason: self.reason(inner) }
            }
            _ => Issue {
                path,
                subject: Subject::Value(error.instance().clone().into_owned()),
                reason: self.reason(error),
            },
        }
    }

    /// Why the keyword at `error.schema_path()` failed, in words.
    fn reason(&self, error: &ValidationError<'_>) -> String {
        let expected = self.expected(error.schema_path());
        match error.kind() {
            ValidationErrorKind::Type { kind } => {
                let names: Vec<&str> = match kind {
                    TypeKind::Single(t) => vec![with_article(t.as_str())],
                    TypeKind::Multiple(set) => {
                        set.iter().map(|t| with_article(t.as_str())).collect()
                    }
                };
                format!("is not {}", names.join(" or "))
            }
            ValidationErrorKind::Enum { options } => {
                let names: Vec<String> = options
                    .as_array()
                    .map(|items| {
                        items
                            .iter()
                            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                format!("is not one of {}", names.join(", "))
            }
            ValidationErrorKind::MaxLength { limit } => {
                format!("is longer than {limit} characters")
            }
            ValidationErrorKind::MinLength { limit } => {
                format!("is shorter than {limit} characters")
            }
            ValidationErrorKind::MaxItems { limit } => format!("has more than {limit} items"),
            ValidationErrorKind::MinItems { limit: 1 } => "is empty".to_owned(),
            ValidationErrorKind::MinItems { limit } => format!("has fewer than {limit} items"),
            ValidationErrorKind::MaxProperties { limit } => {
                format!("has more than {limit} entries")
            }
            ValidationErrorKind::MinProperties { limit: 1 } => "is empty".to_owned(),
            ValidationErrorKind::MinProperties { limit } => {
                format!("has fewer than {limit} entries")
            }
            ValidationErrorKind::Minimum { limit } => format!("is less than {limit}"),
            ValidationErrorKind::Maximum { limit } => format!("is more than {limit}"),
            ValidationErrorKind::Pattern { pattern } => match expected {
                Some(expected) => format!("is not {expected}"),
                None => format!("does not match {pattern}"),
            },
            _ => match expected {
                Some(expected) => format!("is not {expected}"),
                None => format!("does not satisfy \"{}\"", error.kind().keyword()),
            },
        }
    }

    /// The `x-expected` phrase of the schema node that holds the failing keyword.
    fn expected(&self, keyword_location: &Location) -> Option<&str> {
        let mut pointer = keyword_location.as_str();
        // The failing keyword is the last segment; its node is the parent. A `oneOf`/`anyOf` failure
        // is reported at the keyword itself, so the same rule applies.
        if let Some(cut) = pointer.rfind('/') {
            pointer = &pointer[..cut];
        }
        self.node(pointer)?.get("x-expected")?.as_str()
    }
}

fn segments(location: &Location) -> Vec<Segment> {
    location
        .iter()
        .map(|segment| match segment {
            LocationSegment::Property(name) => Segment::Key(name.into_owned()),
            LocationSegment::Index(i) => Segment::Index(i),
        })
        .collect()
}

fn with_article(type_name: &str) -> &'static str {
    match type_name {
        "array" => "an array",
        "boolean" => "a boolean",
        "integer" => "a whole number",
        "null" => "null",
        "number" => "a number",
        "object" => "an object",
        _ => "a string",
    }
}

/// The compiled manifest schema (`schemas/cowork.schema.json`).
pub fn manifest() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::compile(COWORK_SCHEMA, "cowork.schema.json"))
}

/// The compiled workspace state schema (`schemas/workspace.schema.json`).
pub fn workspace() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::compile(WORKSPACE_SCHEMA, "workspace.schema.json"))
}

/// Why `text`, which did not parse as JSON (`error`), did not, as a person can act on: an empty
/// file, and a byte-order mark (which Windows Notepad writes, and JSON does not allow), are named
/// as such rather than as serde's "expected value at line 1 column 1".
pub fn not_json(text: &str, error: &serde_json::Error) -> String {
    if text.trim().is_empty() {
        "is empty (a JSON object is expected)".into()
    } else if text.starts_with('\u{feff}') {
        "starts with a byte-order mark (U+FEFF), which JSON does not allow: save it as UTF-8 without one".into()
    } else {
        format!("is not valid JSON ({error})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_schemas_are_valid_draft_2020_12_documents() {
        for schema in [manifest(), workspace()] {
            assert!(jsonschema::meta::validate(schema.document()).is_ok(), "{schema:?}");
            assert_eq!(
                schema.document()["$schema"],
                "https://json-schema.org/draft/2020-12/schema"
            );
        }
    }

    #[test]
    fn pattern_failures_read_the_x_expected_phrase() {
        let issues = manifest().check(&json!({"name": "Mail", "version": "1.0.0"}));
        assert_eq!(
            issues[0].describe(),
            "\"name\": \"Mail\" is not a lowercase name (letters, digits and dashes, starting with a letter or digit, at most 63 characters)"
        );
    }

    #[test]
    fn a_bad_property_name_is_located_at_the_property() {
        let issues = manifest()
            .check(&json!({"name": "m", "version": "1.0.0", "routines": {"bad id": "x.ts"}}));
        assert_eq!(issues[0].path, [Segment::from("routines"), Segment::from("bad id")]);
        assert_eq!(issues[0].subject, Subject::Name);
    }

    #[test]
    fn a_missing_key_is_located_at_the_key() {
        let issues = manifest().check(&json!({"name": "m"}));
        assert_eq!(issues[0].describe(), "\"version\" is missing");
    }

    #[test]
    fn array_indices_read_as_brackets() {
        assert_eq!(dotted(&["capture".into(), Segment::Index(1)]), "capture[1]");
        assert_eq!(
            dotted(&["routines".into(), "7".into(), "timeout".into()]),
            "routines.7.timeout"
        );
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(401);
        assert_eq!(quote(&json!(long)), format!("\"{}…\" (401 characters)", "x".repeat(40)));
        assert_eq!(quote(&json!("sideways")), "\"sideways\"");
    }

    #[test]
    fn deprecated_keys_come_from_the_schema() {
        let keys = |pointer| {
            manifest().deprecated_keys(pointer).into_iter().map(|(k, _)| k).collect::<Vec<_>>()
        };
        assert_eq!(keys(""), ["accounts", "secrets"]);
        assert_eq!(keys("/$defs/routine/else"), ["permission"]);
    }
}
