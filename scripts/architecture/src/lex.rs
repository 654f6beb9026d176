//! A Rust lexer just good enough to find paths: identifiers, `::`, punctuation and literals, with
//! comments dropped and delimiters nested into groups, each token with its line.
//!
//! Why not `proc-macro2`: its tokens carry lines only with its `span-locations` feature, and
//! turning that on here would change the features of the copy the workspace's other crates build
//! (one rebuild of everything that depends on it). What the checker needs is this small.

/// One token tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Tree {
    /// An identifier or keyword (`r#` removed), or `$crate`.
    Ident(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character (`;`, `,`, `#`, `!`, `*`, `=` …), one per token.
    Punct(char),
    /// A string literal's contents, escapes left as written (what `#[path = "…"]` needs).
    Str(String),
    /// Any other literal (a number, a character, a byte string).
    Literal,
    /// A lifetime or a loop label.
    Lifetime,
    /// `(…)`, `[…]` or `{…}` and what is inside.
    Group(Delimiter, Vec<Token>),
}

/// The delimiter of a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delimiter {
    /// `( … )`
    Parenthesis,
    /// `[ … ]`
    Bracket,
    /// `{ … }`
    Brace,
}

/// A token tree and the line (from 1) it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The token.
    pub tree: Tree,
    /// Its line, from 1.
    pub line: u32,
}

/// Why a file could not be read as tokens.
#[derive(Debug, PartialEq, Eq)]
pub struct LexError {
    /// Where it went wrong.
    pub line: u32,
    /// What was wrong.
    pub message: &'static str,
}

/// The file's token trees.
pub fn lex(source: &str) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = source.chars().collect();
    let mut lexer = Lexer { chars: &chars, pos: 0, line: 1 };
    // The open groups: their delimiter, the line they opened on and the tokens so far.
    let mut stack: Vec<(Delimiter, u32, Vec<Token>)> = vec![(Delimiter::Brace, 0, Vec::new())];
    while let Some(step) = lexer.next()? {
        match step {
            Step::Token(token) => stack.last_mut().expect("the file's own level").2.push(token),
            Step::Open(delimiter, line) => stack.push((delimiter, line, Vec::new())),
            Step::Close(delimiter) => {
                if stack.len() == 1 {
                    return Err(lexer.error("a closing delimiter that closes nothing"));
                }
                let (open, line, tokens) = stack.pop().expect("checked above");
                if open != delimiter {
                    return Err(lexer.error("a closing delimiter that does not match"));
                }
                let tree = Tree::Group(delimiter, tokens);
                stack.last_mut().expect("the file's own level").2.push(Token { tree, line });
            }
        }
    }
    if stack.len() != 1 {
        let (_, line, _) = stack.pop().expect("checked above");
        return Err(LexError { line, message: "a delimiter that is never closed" });
    }
    Ok(stack.pop().expect("the file's own level").2)
}

enum Step {
    Token(Token),
    Open(Delimiter, u32),
    Close(Delimiter),
}

struct Lexer<'a> {
    chars: &'a [char],
    pos: usize,
    line: u32,
}

impl Lexer<'_> {
    fn error(&self, message: &'static str) -> LexError {
        LexError { line: self.line, message }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn next(&mut self) -> Result<Option<Step>, LexError> {
        loop {
            let Some(c) = self.peek(0) else { return Ok(None) };
            let line = self.line;
            let token = |tree| Ok(Some(Step::Token(Token { tree, line })));
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '/' if self.peek(1) == Some('/') => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                '/' if self.peek(1) == Some('*') => self.block_comment()?,
                '(' | '[' | '{' => {
                    self.bump();
                    return Ok(Some(Step::Open(delimiter(c), line)));
                }
                ')' | ']' | '}' => {
                    self.bump();
                    return Ok(Some(Step::Close(delimiter(c))));
                }
                '"' => {
                    let contents = self.string()?;
                    return token(Tree::Str(contents));
                }
                '\'' => return token(self.quote()?),
                ':' if self.peek(1) == Some(':') => {
                    self.pos += 2;
                    return token(Tree::PathSep);
                }
                '$' if self.word_at(1) == "crate" => {
                    self.pos += 1 + "crate".len();
                    return token(Tree::Ident("$crate".into()));
                }
                c if c.is_ascii_digit() => {
                    self.number();
                    return token(Tree::Literal);
                }
                c if is_ident_start(c) => return token(self.word()?),
                _ => {
                    self.bump();
                    return token(Tree::Punct(c));
                }
            }
        }
    }

    fn block_comment(&mut self) -> Result<(), LexError> {
        let start = self.line;
        self.pos += 2;
        let mut depth = 1;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (Some('/'), Some('*')) => {
                    self.pos += 2;
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.pos += 2;
                    depth -= 1;
                }
                (Some(_), _) => {
                    self.bump();
                }
                (None, _) => {
                    return Err(LexError {
                        line: start,
                        message: "a block comment that never ends",
                    })
                }
            }
        }
        Ok(())
    }

    /// A `"…"` string from its opening quote: its contents, escapes as written.
    fn string(&mut self) -> Result<String, LexError> {
        let start = self.line;
        self.bump();
        let mut contents = String::new();
        loop {
            match self.bump() {
                Some('\\') => {
                    contents.push('\\');
                    if let Some(c) = self.bump() {
                        contents.push(c);
                    }
                }
                Some('"') => return Ok(contents),
                Some(c) => contents.push(c),
                None => return Err(LexError { line: start, message: "a string that never ends" }),
            }
        }
    }

    /// A raw string from its `#`s or opening quote: `#…#"…"#…#`.
    fn raw_string(&mut self) -> Result<String, LexError> {
        let start = self.line;
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            self.bump();
            hashes += 1;
        }
        if self.bump() != Some('"') {
            return Err(self.error("a raw string without its opening quote"));
        }
        let mut contents = String::new();
        loop {
            match self.bump() {
                Some('"') if (0..hashes).all(|i| self.peek(i) == Some('#')) => {
                    self.pos += hashes;
                    return Ok(contents);
                }
                Some(c) => contents.push(c),
                None => {
                    return Err(LexError { line: start, message: "a raw string that never ends" })
                }
            }
        }
    }

    /// A character literal or a lifetime (a label), from the quote.
    fn quote(&mut self) -> Result<Tree, LexError> {
        self.bump();
        match (self.peek(0), self.peek(1)) {
            (Some('\\'), _) => {
                // The backslash and the character it escapes, then up to the closing quote
                // (`'\u{1F600}'`).
                self.pos += 2;
                while let Some(c) = self.bump() {
                    if c == '\'' || c == '\n' {
                        break;
                    }
                }
                Ok(Tree::Literal)
            }
            (Some(_), Some('\'')) => {
                self.pos += 2;
                Ok(Tree::Literal)
            }
            _ => {
                self.word()?;
                Ok(Tree::Lifetime)
            }
        }
    }

    fn number(&mut self) {
        while let Some(c) = self.peek(0) {
            let decimal_point = c == '.' && self.peek(1).is_some_and(|c| c.is_ascii_digit());
            if !(c.is_alphanumeric() || c == '_' || decimal_point) {
                break;
            }
            self.bump();
        }
    }

    fn word_at(&self, ahead: usize) -> String {
        self.chars[(self.pos + ahead).min(self.chars.len())..]
            .iter()
            .take_while(|c| is_ident_continue(**c))
            .collect()
    }

    /// An identifier, or a literal that starts like one (`b"…"`, `r#"…"#`, `c"…"`, `b'x'`).
    fn word(&mut self) -> Result<Tree, LexError> {
        let word = self.word_at(0);
        let after = self.peek(word.len());
        let raw = |w: &str| matches!(w, "r" | "br" | "cr");
        match (word.as_str(), after) {
            ("r", Some('#')) if self.peek(2).is_some_and(is_ident_start) => {
                self.pos += 2;
                let word = self.word_at(0);
                self.pos += word.len();
                Ok(Tree::Ident(word))
            }
            (w, Some('"' | '#')) if raw(w) => {
                self.pos += w.len();
                self.raw_string()?;
                Ok(Tree::Literal)
            }
            ("b" | "c", Some('"')) => {
                self.pos += 1;
                self.string()?;
                Ok(Tree::Literal)
            }
            ("b", Some('\'')) => {
                self.pos += 1;
                self.quote()
            }
            _ => {
                self.pos += word.len();
                Ok(Tree::Ident(word))
            }
        }
    }
}

fn delimiter(c: char) -> Delimiter {
    match c {
        '(' | ')' => Delimiter::Parenthesis,
        '[' | ']' => Delimiter::Bracket,
        _ => Delimiter::Brace,
    }
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The identifiers and `::` of a source, groups flattened, with their lines.
    fn words(source: &str) -> Vec<(u32, String)> {
        fn walk(tokens: &[Token], out: &mut Vec<(u32, String)>) {
            for token in tokens {
                match &token.tree {
                    Tree::Ident(word) => out.push((token.line, word.clone())),
                    Tree::PathSep => out.push((token.line, "::".into())),
                    Tree::Group(_, inner) => walk(inner, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&lex(source).unwrap(), &mut out);
        out
    }

    #[test]
    fn comments_strings_and_characters_hide_what_they_hold() {
        let source = r###"
            // crate::a
            /* crate::b /* nested crate::c */ still comment */
            let s = "crate::d \" crate::e";
            let r = r#"crate::f " crate::g"#;
            let b = b"crate::h"; let c = '"'; let q = '\''; let u = '\u{1F600}'; let e = '\\';
            fn f<'a>(x: &'a str) {}
            crate::i
        "###;
        let found: Vec<String> = words(source).into_iter().map(|(_, w)| w).collect();
        assert_eq!(
            found,
            [
                "let", "s", "let", "r", "let", "b", "let", "c", "let", "q", "let", "u", "let", "e",
                "fn", "f", "x", "str", "crate", "::", "i"
            ]
        );
        assert_eq!(words(source).last().unwrap().0, 8);
    }

    #[test]
    fn raw_identifiers_and_dollar_crate_are_identifiers() {
        let found: Vec<String> =
            words("r#type::x; $crate::y").into_iter().map(|(_, w)| w).collect();
        assert_eq!(found, ["type", "::", "x", "$crate", "::", "y"]);
    }

    #[test]
    fn groups_nest_and_unbalanced_ones_are_errors() {
        let tokens = lex("mod a { fn f() { [1, 2] } }").unwrap();
        assert!(
            matches!(&tokens[2].tree, Tree::Group(Delimiter::Brace, inner) if inner.len() == 4)
        );
        assert_eq!(lex("fn f() {").unwrap_err().message, "a delimiter that is never closed");
        assert_eq!(lex("fn f() }").unwrap_err().message, "a closing delimiter that closes nothing");
    }

    #[test]
    fn a_path_attribute_keeps_its_string() {
        let tokens = lex(r#"#[path = "cli/queue.rs"] mod queue;"#).unwrap();
        let Tree::Group(_, inner) = &tokens[1].tree else { panic!("{tokens:?}") };
        assert_eq!(inner[2].tree, Tree::Str("cli/queue.rs".into()));
    }
}
