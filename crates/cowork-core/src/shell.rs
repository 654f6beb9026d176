//! Commands printed for a person to paste into a POSIX shell (`hint:` lines, next-page commands).

/// `text` as one shell word: unchanged when it has only characters no shell treats specially,
/// else in single quotes (a `'` inside becomes `'\''`).
pub fn quote(text: &str) -> String {
    if !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c))
    {
        return text.to_string();
    }
    single_quoted(text)
}

/// `text` in single quotes whatever it holds, each `'` in it written `'\''` (close, an escaped
/// quote, reopen).
pub fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn words_with_spaces_or_quotes_are_single_quoted() {
        assert_eq!(quote("/home/ana/work"), "/home/ana/work");
        assert_eq!(quote("/home/ana/my work"), "'/home/ana/my work'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
