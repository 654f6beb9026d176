//! What a run has read that must not be shown: the secret values masked as `[redacted]` in its
//! output, its error and its audit record.

use parking_lot::Mutex;
use std::sync::Arc;

/// Values shorter than this are not masked. A mask replaces every occurrence of the value in the
/// run's output, so a secret "on" or "1" would turn a log into a row of `[redacted]` — and, worse,
/// tell a reader which short strings the secret is. Four characters is where a value stops
/// being an ordinary word or number; README's Secrets paragraph says so.
const MASK_MIN_CHARS: usize = 4;

/// The secret values a run has read (`ctx.secrets.get`, a key's fields, a sign-in's token), masked
/// as `[redacted]` in its log lines, the Output stream, its error and its audit record — as
/// 1Password's `op run` masks what it injects.
///
/// A nested run's values are its callers' too: what it returns (or the caller logs after reading
/// it) may carry them, so every value is passed on to the runs waiting on this one.
#[derive(Default)]
pub(crate) struct Masks {
    values: Mutex<Vec<String>>,
    callers: Mutex<Vec<Arc<Masks>>>,
}

impl std::fmt::Debug for Masks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Masks { .. }") // never the values
    }
}

impl Masks {
    /// From now on, every value this run's masks hold is masked in `caller`'s output too
    /// (`ctx.routines.run` returned this run's result to it, or an identical call shares it).
    pub fn pass_on_to(&self, caller: &Arc<Masks>) {
        let known = self.values.lock().clone();
        self.callers.lock().push(caller.clone());
        caller.insert(known);
    }

    /// Masks `value` from now on, in every form it can reach the output in: whole; line by line
    /// (stdout and stderr are read a line at a time, so a multi-line value never shows whole
    /// there); and JSON-escaped (the audit record's result preview is masked after encoding, where
    /// a `"` or `\` of the value reads `\"` or `\\`).
    pub fn add(&self, value: &str) {
        let mut forms = vec![value.to_string()];
        if value.contains('\n') {
            forms.extend(value.split('\n').map(|line| line.trim_end_matches('\r').to_string()));
        }
        let escaped: Vec<String> = forms.iter().map(|form| json_escaped(form)).collect();
        forms.extend(escaped);
        self.insert(
            forms.into_iter().filter(|form| form.chars().count() >= MASK_MIN_CHARS).collect(),
        );
    }

    /// Keeps `forms` and passes the new ones on to the callers (only new ones, so shared runs
    /// waiting on each other cannot pass a value around forever).
    fn insert(&self, forms: Vec<String>) {
        let mut values = self.values.lock();
        let new: Vec<String> = forms.into_iter().filter(|form| !values.contains(form)).collect();
        if new.is_empty() {
            return;
        }
        values.extend(new.iter().cloned());
        // Longest first, so a secret containing another (or one of its own lines) is masked whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        drop(values);
        let callers = self.callers.lock().clone();
        for caller in callers {
            caller.insert(new.clone());
        }
    }

    pub fn apply(&self, text: &str) -> String {
        let values = self.values.lock();
        values
            .iter()
            .fold(text.to_string(), |acc, v| acc.replace(v.as_str(), cowork_core::audit::REDACTED))
    }

    /// [`Masks::apply`] to a line's start whose rest was cut off: a secret straddling the cut
    /// shows only its first characters there, which no mask matches, so a start ending in the
    /// first characters of a value loses them too. Returns the masked start and how many of its
    /// bytes that took off.
    pub fn apply_to_start(&self, start: &str) -> (String, usize) {
        let mut masked = self.apply(start);
        let values = self.values.lock();
        let partial = values
            .iter()
            .filter_map(|v| {
                let prefixes = v.char_indices().rev().map(|(at, _)| &v[..at]);
                prefixes.take_while(|p| !p.is_empty()).find(|p| masked.ends_with(p))
            })
            .map(str::len)
            .max()
            .unwrap_or(0);
        masked.truncate(masked.len() - partial);
        (masked, partial)
    }
}

/// `text` as it reads inside a JSON string (without the quotes).
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("a string always serializes");
    quoted[1..quoted.len() - 1].to_string()
}

#[cfg(test)]
mod tests {
    use super::Masks;

    fn masked(secret: &str, text: &str) -> String {
        let masks = Masks::default();
        masks.add(secret);
        masks.apply(text)
    }

    #[test]
    fn a_value_is_masked_whole() {
        assert_eq!(masked("sk-4242", "key sk-4242 used"), "key [redacted] used");
    }

    #[test]
    fn each_line_of_a_multi_line_value_is_masked_where_lines_are_read_one_by_one() {
        let pem = "-----BEGIN KEY-----\r\nMIIEabcd\nxyz\n-----END KEY-----";
        assert_eq!(masked(pem, "MIIEabcd"), "[redacted]");
        assert_eq!(masked(pem, "-----END KEY-----"), "[redacted]");
        assert_eq!(masked(pem, "xyz"), "xyz", "a line shorter than 4 characters is not masked");
        assert_eq!(
            masked(pem, &format!("got {pem}.")),
            "got [redacted].",
            "whole where it shows whole"
        );
    }

    #[test]
    fn the_json_escaped_form_is_masked_too() {
        let secret = r#"pa"ss\word"#;
        let preview = serde_json::json!({ "echo": secret }).to_string();
        assert_eq!(masked(secret, &preview), r#"{"echo":"[redacted]"}"#);
        let multi = "line-one\n\"two\"";
        assert_eq!(masked(multi, &serde_json::json!([multi]).to_string()), r#"["[redacted]"]"#);
    }

    #[test]
    fn a_line_cut_inside_a_secret_keeps_none_of_it() {
        let masks = Masks::default();
        masks.add("sk-live-4242");
        assert_eq!(masks.apply_to_start("key sk-live-42"), ("key ".into(), 10));
        assert_eq!(masks.apply_to_start("key sk-live-4242"), ("key [redacted]".into(), 0));
        assert_eq!(masks.apply_to_start("key s"), ("key ".into(), 1), "it may go on as the secret");
        assert_eq!(masks.apply_to_start("key 42"), ("key 42".into(), 0), "no secret starts so");
    }

    #[test]
    fn values_under_four_characters_are_not_masked() {
        assert_eq!(masked("abc", "abc abcd"), "abc abcd");
        assert_eq!(masked("abcd", "abc abcd"), "abc [redacted]");
    }
}
