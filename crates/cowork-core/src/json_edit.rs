//! A JSON object written back into the text it was read from, so that a file people write by hand
//! and keep in git (`.cowork/workspace.json`) shows only the change Cowork made: `cowork app
//! disable notes` rewrites `"disabled"` and leaves every other member as its author typed it —
//! their indent, their one-line arrays, their line endings.
//!
//! Only the object's top-level members are told apart: a changed member is rewritten whole (in the
//! file's indent), a new one is added at the end. Anything else (a member taken away or moved, a
//! file that is not one object) is pretty-printed whole, still in the file's indent and line
//! endings.

use serde::Serialize;
use serde_json::{Map, Value};

/// The text to write for `new`, given the text `old_text` that was read (and parsed) as `old`.
pub fn rewrite(old_text: &str, old: &Map<String, Value>, new: &Map<String, Value>) -> String {
    let style = Style::of(old_text);
    in_place(old_text, old, new, &style)
        .filter(|text| {
            serde_json::from_str::<Map<String, Value>>(text).is_ok_and(|read| &read == new)
        })
        .unwrap_or_else(|| style.whole(new))
}

/// How the file is laid out: the indent of one level and the line ending.
struct Style {
    indent: String,
    newline: &'static str,
}

impl Style {
    fn of(text: &str) -> Style {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        // The first indented line is a member of the top-level object: one level.
        let indent = text
            .lines()
            .skip(1)
            .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()])
            .find(|indent| !indent.is_empty())
            .unwrap_or("  ")
            .to_owned();
        Style { indent, newline }
    }

    /// `value` pretty-printed in this style, its lines after the first indented by `depth` levels.
    fn value(&self, value: &impl Serialize, depth: usize) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        value.serialize(&mut serializer).expect("a JSON value always serializes");
        let text = String::from_utf8(out).expect("serde_json writes UTF-8");
        let continuation = format!("{}{}", self.newline, self.indent.repeat(depth));
        text.replace('\n', &continuation)
    }

    fn whole(&self, object: &Map<String, Value>) -> String {
        format!("{}{}", self.value(object, 0), self.newline)
    }
}

/// The edit that touches only changed members, or `None` when the change is not one it makes
/// (members taken away or reordered, no member to add after) or the text does not scan.
fn in_place(
    text: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    style: &Style,
) -> Option<String> {
    let members = members(text)?;
    let kept = new.keys().take(old.len());
    if members.len() != old.len() || !kept.eq(members.iter().map(|m| &m.key)) {
        return None;
    }
    let last = members.last()?;
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for member in &members {
        if old.get(&member.key) != new.get(&member.key) {
            out.push_str(&text[from..member.value.start]);
            out.push_str(&style.value(&new[&member.key], 1));
            from = member.value.end;
        }
    }
    out.push_str(&text[from..last.value.end]);
    for (key, value) in new.iter().skip(old.len()) {
        let key = serde_json::to_string(key).expect("a string always serializes");
        let value = style.value(value, 1);
        out.push_str(&format!(",{}{}{key}: {value}", style.newline, style.indent));
    }
    out.push_str(&text[last.value.end..]);
    Some(out)
}

/// A top-level member: its key, and where its value's text is.
struct Member {
    key: String,
    value: std::ops::Range<usize>,
}

/// The top-level members of `text`, which holds one JSON object (it has been parsed already, so
/// this only has to find where things are).
fn members(text: &str) -> Option<Vec<Member>> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    let mut members = Vec::new();
    loop {
        at = skip_space(bytes, at);
        match bytes.get(at)? {
            b'}' => return Some(members),
            b',' => at = skip_space(bytes, at + 1),
            _ => {}
        }
        let key_end = skip_value(bytes, at)?;
        let key = serde_json::from_str(&text[at..key_end]).ok()?;
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_space(bytes, at + 1);
        let end = skip_value(bytes, start)?;
        members.push(Member { key, value: start..end });
        at = end;
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// Where the value starting at `at` ends: a string, a nested object or array (brackets counted
/// outside strings), or a number, `true`, `false` or `null`.
fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &byte) in bytes.iter().enumerate().skip(at) {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(text: &str, change: impl FnOnce(&mut Map<String, Value>)) -> String {
        let old: Map<String, Value> = serde_json::from_str(text).unwrap();
        let mut new = old.clone();
        change(&mut new);
        rewrite(text, &old, &new)
    }

    const HAND_WRITTEN: &str = "{\n    \"name\": \"Acme\",\n    \"openWith\": { \"*.csv\": \"sheet\" },\n    \"disabled\": { \"apps\": [\".cowork/apps/a\"] },\n    \"rail\": {\"order\": [\"x\", \"y\"]}\n}\n";

    #[test]
    fn only_the_changed_member_is_rewritten_in_the_files_indent() {
        let text = edit(HAND_WRITTEN, |o| {
            o["disabled"]["apps"].as_array_mut().unwrap().push(".cowork/apps/b".into())
        });
        assert_eq!(
            text,
            "{\n    \"name\": \"Acme\",\n    \"openWith\": { \"*.csv\": \"sheet\" },\n    \"disabled\": {\n        \"apps\": [\n            \".cowork/apps/a\",\n            \".cowork/apps/b\"\n        ]\n    },\n    \"rail\": {\"order\": [\"x\", \"y\"]}\n}\n"
        );
    }

    #[test]
    fn a_new_member_goes_at_the_end_and_crlf_stays() {
        let crlf = "{\r\n\t\"name\": \"A \\\"quoted\\\" }name\",\r\n\t\"n\": 1\r\n}";
        let text = edit(crlf, |o| {
            o.insert("publishTo".into(), "acme".into());
            o.insert("muted".into(), serde_json::json!(["x"]));
        });
        assert_eq!(
            text,
            "{\r\n\t\"name\": \"A \\\"quoted\\\" }name\",\r\n\t\"n\": 1,\r\n\t\"publishTo\": \"acme\",\r\n\t\"muted\": [\r\n\t\t\"x\"\r\n\t]\r\n}"
        );
    }

    #[test]
    fn what_it_cannot_place_is_printed_whole_in_the_files_style() {
        let removed = edit(HAND_WRITTEN, |o| {
            o.shift_remove("openWith");
        });
        assert!(removed
            .starts_with("{\n    \"name\": \"Acme\",\n    \"disabled\": {\n        \"apps\""));
        assert_eq!(
            edit("{}", |o| {
                o.insert("a".into(), 1.into());
            }),
            "{\n  \"a\": 1\n}\n"
        );
    }
}
