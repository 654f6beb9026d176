//! A crate's module tree read from its files, and where each module's paths lead.
//!
//! What a module depends on is every path its code names that leads into another module of the
//! crate: its `use` declarations (in functions too) and the paths written out in its code
//! (`crate::x::f()`, `super::Y`, `child::z`, in macro arguments too), each followed through the
//! `use` re-exports of the modules it passes (`crate::Workspace` is `workspace::Workspace` when
//! the root says `pub use workspace::Workspace`). Code only compiled for tests (`#[cfg(test)]`
//! items and modules) is left out: a test may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::lex::{self, Delimiter, Token, Tree};

/// A crate's modules: the root first, then in the order they are declared.
#[derive(Debug)]
pub struct Crate {
    /// Its modules; `modules[0]` is the root.
    pub modules: Vec<Module>,
}

/// One module: a file or an inline `mod x { … }`.
#[derive(Debug)]
pub struct Module {
    /// Its path from the crate root (empty for the root).
    pub path: Vec<String>,
    /// The file it is written in.
    pub file: PathBuf,
    /// The module that declares it.
    pub parent: Option<usize>,
    /// The modules it declares, by name.
    children: BTreeMap<String, usize>,
    /// The names of the items it defines (functions, types, constants, macros …).
    items: BTreeSet<String>,
    /// The names its `use` declarations bind, and the path (from this module) each stands for.
    bindings: BTreeMap<String, Vec<String>>,
    /// The paths (from this module) of its glob imports.
    globs: Vec<Vec<String>>,
    /// The paths its code names, with the line each is on.
    pub refs: Vec<Ref>,
}

/// A path a module's code names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ref {
    /// Its segments as written (`crate`, `super`, `self` included).
    pub path: Vec<String>,
    /// The line it is on, in the module's file.
    pub line: u32,
}

/// Why a crate's modules could not be read.
#[derive(Debug)]
pub struct LoadError {
    /// The file.
    pub file: PathBuf,
    /// What went wrong, with the line where there is one.
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "failed to read the module {}: {}", self.file.display(), self.message)
    }
}

impl Crate {
    /// Reads the crate whose root file (`lib.rs`, `main.rs`, a test's file) is `root`, following
    /// its `mod` declarations (`#[path]` included) to their files.
    pub fn load(root: &Path) -> Result<Crate, LoadError> {
        let mut krate = Crate { modules: Vec::new() };
        let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
        krate.load_file(root, Vec::new(), None, dir)?;
        Ok(krate)
    }

    /// Reads one file as the module `path`, whose children's files are looked for in `dir`.
    fn load_file(
        &mut self,
        file: &Path,
        path: Vec<String>,
        parent: Option<usize>,
        dir: PathBuf,
    ) -> Result<usize, LoadError> {
        let error = |message: String| LoadError { file: file.to_path_buf(), message };
        let source = fs::read_to_string(file).map_err(|e| error(e.to_string()))?;
        let tokens =
            lex::lex(&source).map_err(|e| error(format!("line {}: {}", e.line, e.message)))?;
        let index = self.add(path, file, parent);
        self.read_items(index, &tokens, &dir)?;
        Ok(index)
    }

    fn add(&mut self, path: Vec<String>, file: &Path, parent: Option<usize>) -> usize {
        let index = self.modules.len();
        if let (Some(parent), Some(name)) = (parent, path.last()) {
            self.modules[parent].children.insert(name.clone(), index);
        }
        self.modules.push(Module {
            path,
            file: file.to_path_buf(),
            parent,
            children: BTreeMap::new(),
            items: BTreeSet::new(),
            bindings: BTreeMap::new(),
            globs: Vec::new(),
            refs: Vec::new(),
        });
        index
    }

    /// Reads a module's items: its `mod`s (loaded in turn), `use`s, item names and the paths in
    /// its code. `dir` is where its `mod x;` children live.
    fn read_items(&mut self, module: usize, tokens: &[Token], dir: &Path) -> Result<(), LoadError> {
        let mut attributes = Attributes::default();
        let mut i = 0;
        while i < tokens.len() {
            // `#![…]`: the module's own attributes.
            if is_punct(&tokens[i], '#') && tokens.get(i + 1).is_some_and(|t| is_punct(t, '!')) {
                i += 3;
                continue;
            }
            if is_punct(&tokens[i], '#') {
                if let Some(Tree::Group(Delimiter::Bracket, inner)) =
                    tokens.get(i + 1).map(|t| &t.tree)
                {
                    attributes.read(inner);
                    i += 2;
                    continue;
                }
            }
            let end = item_end(tokens, i);
            let item = &tokens[i..end];
            i = end;
            let attributes = std::mem::take(&mut attributes);
            if !attributes.test {
                self.read_item(module, item, dir, attributes.path)?;
            }
        }
        Ok(())
    }

    fn read_item(
        &mut self,
        module: usize,
        item: &[Token],
        dir: &Path,
        path_attr: Option<String>,
    ) -> Result<(), LoadError> {
        let words = leading_words(item);
        let keyword = item_keyword(&words);
        let name_after = |keyword: &str| {
            let at = words.iter().position(|(_, w)| w == keyword)?;
            words
                .get(at + 1)
                .filter(|(at_next, _)| *at_next == words[at].0 + 1)
                .map(|(_, w)| w.clone())
        };
        match keyword {
            Some("mod") => {
                let Some(name) = name_after("mod") else { return Ok(()) };
                let mut path = self.modules[module].path.clone();
                path.push(name.clone());
                match item.last().map(|t| &t.tree) {
                    Some(Tree::Group(Delimiter::Brace, inner)) => {
                        let file = self.modules[module].file.clone();
                        let index = self.add(path, &file, Some(module));
                        self.read_items(index, inner, &dir.join(&name))?;
                    }
                    _ => {
                        let (file, child_dir) = match path_attr {
                            // A file named by `#[path]` holds its children beside it, as `mod.rs` does.
                            Some(relative) => {
                                let file = self.modules[module]
                                    .file
                                    .parent()
                                    .unwrap_or(Path::new(""))
                                    .join(relative);
                                let child_dir =
                                    file.parent().unwrap_or(Path::new("")).to_path_buf();
                                (file, child_dir)
                            }
                            None => {
                                let flat = dir.join(format!("{name}.rs"));
                                if flat.exists() {
                                    (flat, dir.join(&name))
                                } else {
                                    (dir.join(&name).join("mod.rs"), dir.join(&name))
                                }
                            }
                        };
                        self.load_file(&file, path, Some(module), child_dir)?;
                    }
                }
            }
            Some("use") => {
                let at = item
                    .iter()
                    .position(|t| t.tree == Tree::Ident("use".into()))
                    .expect("found above");
                let line = item[at].line;
                let end = if item.last().is_some_and(|t| is_punct(t, ';')) {
                    item.len() - 1
                } else {
                    item.len()
                };
                let tree = &item[at + 1..end];
                let mut leaves = Vec::new();
                use_tree(tree, Vec::new(), &mut leaves);
                let this = &mut self.modules[module];
                for leaf in leaves {
                    match leaf.bound {
                        Bound::Name(name) => {
                            this.bindings.insert(name, leaf.path.clone());
                        }
                        Bound::Glob => this.globs.push(leaf.path.clone()),
                        Bound::Nothing => {}
                    }
                    this.refs.push(Ref { path: leaf.path, line });
                }
            }
            Some("impl") | None => scan(item, &mut self.modules[module].refs),
            Some(keyword) => {
                let name = if keyword == "macro_rules" {
                    item.iter().find_map(|t| match &t.tree {
                        Tree::Ident(w) if w != "macro_rules" => Some(w.clone()),
                        _ => None,
                    })
                } else {
                    name_after(keyword)
                };
                if let Some(name) = name.filter(|n| n != "_") {
                    self.modules[module].items.insert(name);
                }
                scan(item, &mut self.modules[module].refs);
            }
        }
        Ok(())
    }

    /// The module a path named in `from` leads to: the deepest module of the crate it passes
    /// through, following re-exports; `None` when it leaves the crate (another crate, `std`, a
    /// generic parameter, a local name).
    pub fn resolve(&self, from: usize, path: &[String]) -> Option<usize> {
        self.named(from, path).pop()
    }

    /// The modules a path named in `from` depends on: the module it leads to (last) and, before
    /// it, each module whose re-export it goes through by name (`crate::protocol::ErrorName`,
    /// which `protocol` re-exports from `error_name`, names both). Empty when it leaves the crate.
    pub fn named(&self, from: usize, path: &[String]) -> Vec<usize> {
        let mut named = Vec::new();
        if let Some(last) = self.resolve_within(from, from, path, 0, &mut named) {
            named.push(last);
        }
        named
    }

    fn resolve_within(
        &self,
        origin: usize,
        from: usize,
        path: &[String],
        depth: u32,
        named: &mut Vec<usize>,
    ) -> Option<usize> {
        // A re-export that leads back to itself (which rustc refuses) ends here.
        if depth > 32 {
            return None;
        }
        let (first, mut rest) = path.split_first()?;
        let mut at = match first.as_str() {
            "crate" | "$crate" => 0,
            "self" => from,
            "super" => {
                let mut at = self.modules[from].parent?;
                while rest.first().is_some_and(|s| s == "super") {
                    at = self.modules[at].parent?;
                    rest = &rest[1..];
                }
                at
            }
            name => match self.lookup(from, name, depth)? {
                Found::Module(index) => index,
                Found::Binding(holder, target) => {
                    let full: Vec<String> = target.iter().chain(rest).cloned().collect();
                    return self.resolve_within(origin, holder, &full, depth + 1, named);
                }
                Found::Item => return Some(from),
            },
        };
        for (n, segment) in rest.iter().enumerate() {
            match self.lookup(at, segment, depth) {
                Some(Found::Module(index)) => at = index,
                Some(Found::Binding(holder, target)) => {
                    if at != origin {
                        named.push(at);
                    }
                    let full: Vec<String> = target.iter().chain(&rest[n + 1..]).cloned().collect();
                    return self
                        .resolve_within(origin, holder, &full, depth + 1, named)
                        .or(Some(at));
                }
                Some(Found::Item) | None => return Some(at),
            }
        }
        Some(at)
    }

    /// What `name` is in module `at`: a child module, a `use` binding (and the module it is
    /// written in), an item, or something a glob import brings.
    fn lookup(&self, at: usize, name: &str, depth: u32) -> Option<Found> {
        let module = &self.modules[at];
        if let Some(&child) = module.children.get(name) {
            return Some(Found::Module(child));
        }
        if let Some(target) = module.bindings.get(name) {
            return Some(Found::Binding(at, target.clone()));
        }
        if module.items.contains(name) {
            return Some(Found::Item);
        }
        if depth > 32 {
            return None;
        }
        module.globs.iter().find_map(|glob| {
            let source = self.resolve_within(at, at, glob, depth + 1, &mut Vec::new())?;
            match self.lookup(source, name, depth + 1)? {
                // An item of the glob's module is found there.
                Found::Item => Some(Found::Binding(source, vec!["self".into(), name.into()])),
                found => Some(found),
            }
        })
    }
}

enum Found {
    Module(usize),
    /// A `use` binding: the module it is written in, and its path from there.
    Binding(usize, Vec<String>),
    Item,
}

const ITEM_KEYWORDS: &[&str] = &[
    "mod",
    "use",
    "fn",
    "struct",
    "enum",
    "union",
    "trait",
    "type",
    "const",
    "static",
    "macro_rules",
    "impl",
];

/// The attributes before an item that matter here.
#[derive(Default)]
struct Attributes {
    /// `#[cfg(test)]` or `#[cfg(all(test, …))]`: the item exists only in tests.
    test: bool,
    /// `#[path = "…"]`.
    path: Option<String>,
}

impl Attributes {
    fn read(&mut self, inner: &[Token]) {
        match inner {
            [Token { tree: Tree::Ident(cfg), .. }, Token { tree: Tree::Group(Delimiter::Parenthesis, predicate), .. }]
                if cfg == "cfg" =>
            {
                let test =
                    |tokens: &[Token]| tokens.iter().any(|t| t.tree == Tree::Ident("test".into()));
                self.test |= match predicate.as_slice() {
                    [only] => only.tree == Tree::Ident("test".into()),
                    [Token { tree: Tree::Ident(all), .. }, Token { tree: Tree::Group(_, inner), .. }]
                        if all == "all" =>
                    {
                        test(inner)
                    }
                    _ => false,
                };
            }
            [Token { tree: Tree::Ident(path), .. }, eq, Token { tree: Tree::Str(value), .. }]
                if path == "path" && is_punct(eq, '=') =>
            {
                self.path = Some(value.clone());
            }
            _ => {}
        }
    }
}

fn is_punct(token: &Token, c: char) -> bool {
    token.tree == Tree::Punct(c)
}

/// Where the item starting at `start` ends (exclusive): after its `;`, or after its body's braces
/// for an item that has one (a `use`, a `const`, a `static` or a `type` always ends at its `;`).
fn item_end(tokens: &[Token], start: usize) -> usize {
    let rest = &tokens[start..];
    let until_semicolon =
        matches!(item_keyword(&leading_words(rest)), Some("use" | "const" | "static" | "type"));
    for (i, token) in rest.iter().enumerate() {
        match &token.tree {
            Tree::Punct(';') => return start + i + 1,
            Tree::Group(Delimiter::Brace, _) if !until_semicolon => return start + i + 1,
            _ => {}
        }
    }
    tokens.len()
}

/// The keyword that says what an item is (`const fn` is a function).
fn item_keyword(words: &[(usize, String)]) -> Option<&str> {
    let mut words = words.iter().map(|(_, w)| w.as_str()).peekable();
    while let Some(word) = words.next() {
        let qualifier = word == "const"
            && words
                .peek()
                .is_some_and(|next| matches!(*next, "fn" | "unsafe" | "async" | "extern"));
        if ITEM_KEYWORDS.contains(&word) && !qualifier {
            return Some(word);
        }
    }
    None
}

/// The identifiers at the start of an item, before its first group or punctuation other than
/// `!` (`pub(crate)`'s group is skipped), with their positions.
fn leading_words(item: &[Token]) -> Vec<(usize, String)> {
    let mut words = Vec::new();
    let mut i = 0;
    while i < item.len() {
        match &item[i].tree {
            Tree::Ident(w) if w == "pub" => {
                i += 1;
                if matches!(
                    item.get(i).map(|t| &t.tree),
                    Some(Tree::Group(Delimiter::Parenthesis, _))
                ) {
                    i += 1;
                }
                continue;
            }
            Tree::Ident(w) => words.push((i, w.clone())),
            Tree::Punct('!') | Tree::Str(_) => {}
            _ => break,
        }
        i += 1;
    }
    words
}

/// What a `use` leaf binds.
#[derive(Debug, PartialEq)]
enum Bound {
    Name(String),
    Glob,
    /// `use x as _;`
    Nothing,
}

#[derive(Debug, PartialEq)]
struct Leaf {
    path: Vec<String>,
    bound: Bound,
}

/// The leaves of a use tree (the tokens between `use` and `;`), each path from the module.
/// A path from the root of the extern prelude (`::std::…`) is not the crate's: no leaf.
fn use_tree(tokens: &[Token], mut path: Vec<String>, out: &mut Vec<Leaf>) {
    let mut i = 0;
    if path.is_empty() && tokens.first().is_some_and(|t| t.tree == Tree::PathSep) {
        return;
    }
    while i < tokens.len() {
        match &tokens[i].tree {
            Tree::Ident(segment) => {
                path.push(segment.clone());
                i += 1;
                match tokens.get(i).map(|t| &t.tree) {
                    Some(Tree::PathSep) => i += 1,
                    Some(Tree::Ident(r#as)) if r#as == "as" => {
                        let bound = match tokens.get(i + 1).map(|t| &t.tree) {
                            Some(Tree::Ident(alias)) if alias == "_" => Bound::Nothing,
                            Some(Tree::Ident(alias)) => Bound::Name(alias.clone()),
                            _ => Bound::Nothing,
                        };
                        if path.last().is_some_and(|s| s == "self") {
                            path.pop();
                        }
                        out.push(Leaf { path, bound });
                        return;
                    }
                    _ => {
                        if path.last().is_some_and(|s| s == "self") && path.len() > 1 {
                            path.pop();
                        }
                        let name = path.last().cloned().unwrap_or_default();
                        out.push(Leaf { path, bound: Bound::Name(name) });
                        return;
                    }
                }
            }
            Tree::Punct('*') => {
                out.push(Leaf { path, bound: Bound::Glob });
                return;
            }
            Tree::Group(Delimiter::Brace, inner) => {
                for part in inner.split(|t| is_punct(t, ',')).filter(|part| !part.is_empty()) {
                    use_tree(part, path.clone(), out);
                }
                return;
            }
            _ => return,
        }
    }
}

/// Every path written in `tokens` (and the groups in them) that could lead into the crate: one
/// that starts with `crate`, `super`, `self` or a name followed by `::`, and the leaves of `use`
/// declarations inside functions.
fn scan(tokens: &[Token], out: &mut Vec<Ref>) {
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        match &token.tree {
            // `pub(in crate::x)` names no dependency.
            Tree::Ident(w) if w == "pub" => {
                if matches!(
                    tokens.get(i + 1).map(|t| &t.tree),
                    Some(Tree::Group(Delimiter::Parenthesis, _))
                ) {
                    i += 1;
                }
            }
            Tree::Ident(w) if w == "use" => {
                let end = tokens[i..]
                    .iter()
                    .position(|t| is_punct(t, ';'))
                    .map_or(tokens.len(), |p| i + p);
                let mut leaves = Vec::new();
                use_tree(&tokens[i + 1..end], Vec::new(), &mut leaves);
                out.extend(
                    leaves.into_iter().map(|leaf| Ref { path: leaf.path, line: token.line }),
                );
                i = end;
            }
            Tree::Ident(first) if tokens.get(i + 1).is_some_and(|t| t.tree == Tree::PathSep) => {
                let after_sep = i > 0 && tokens[i - 1].tree == Tree::PathSep;
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while tokens.get(j).is_some_and(|t| t.tree == Tree::PathSep) {
                    match tokens.get(j + 1).map(|t| &t.tree) {
                        Some(Tree::Ident(segment)) => {
                            path.push(segment.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                // A path of one segment (`f::<T>()`) or one after `::` (`::std::x`, `<T as X>::y`)
                // names nothing of the crate that a `use` has not already.
                if !after_sep && path.len() > 1 {
                    out.push(Ref { path, line: token.line });
                }
                i = j;
                continue;
            }
            Tree::Group(_, inner) => scan(inner, out),
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(source: &str) -> Vec<Leaf> {
        let tokens = lex::lex(source).unwrap();
        let mut out = Vec::new();
        use_tree(&tokens, Vec::new(), &mut out);
        out
    }

    fn named(path: &[&str], name: &str) -> Leaf {
        Leaf { path: path.iter().map(|s| s.to_string()).collect(), bound: Bound::Name(name.into()) }
    }

    #[test]
    fn a_use_tree_has_a_leaf_per_name_it_binds() {
        assert_eq!(
            leaves("crate::a::{self, b::{C as D, *}, e as _}"),
            [
                named(&["crate", "a"], "a"),
                named(&["crate", "a", "b", "C"], "D"),
                Leaf { path: vec!["crate".into(), "a".into(), "b".into()], bound: Bound::Glob },
                Leaf { path: vec!["crate".into(), "a".into(), "e".into()], bound: Bound::Nothing },
            ]
        );
        assert_eq!(leaves("::std::fmt"), []);
        assert_eq!(leaves("super::X"), [named(&["super", "X"], "X")]);
    }

    #[test]
    fn paths_are_found_in_code_and_macros_but_not_in_visibility() {
        let tokens = lex::lex(
            "pub(in crate::a) fn f() -> crate::b::B { use super::c::C; json!({ \"x\": crate::d::f() }); x.y::<T>(); a::b::<T>::c() }",
        )
        .unwrap();
        let mut refs = Vec::new();
        scan(&tokens, &mut refs);
        let paths: Vec<String> = refs.iter().map(|r| r.path.join("::")).collect();
        assert_eq!(paths, ["crate::b::B", "super::c::C", "crate::d::f", "a::b"]);
    }

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (name, contents) in files {
            let path = dir.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, contents).unwrap();
        }
    }

    fn paths(krate: &Crate) -> Vec<String> {
        krate.modules.iter().map(|m| m.path.join("::")).collect()
    }

    #[test]
    fn modules_are_found_where_rustc_looks_for_them() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                ("lib.rs", "mod a; mod b; mod inline { mod deep; } #[path = \"elsewhere/c.rs\"] mod c; #[cfg(test)] mod tests;"),
                ("a.rs", "mod child;"),
                ("a/child.rs", ""),
                ("b/mod.rs", "mod other;"),
                ("b/other.rs", ""),
                ("inline/deep.rs", ""),
                ("elsewhere/c.rs", "mod beside;"),
                ("elsewhere/beside.rs", ""),
            ],
        );
        let krate = Crate::load(&dir.path().join("lib.rs")).unwrap();
        assert_eq!(
            paths(&krate),
            ["", "a", "a::child", "b", "b::other", "inline", "inline::deep", "c", "c::beside"]
        );
    }

    #[test]
    fn a_missing_module_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &[("lib.rs", "mod gone;")]);
        let error = Crate::load(&dir.path().join("lib.rs")).unwrap_err();
        assert!(error.file.ends_with("gone/mod.rs"), "{error}");
    }

    #[test]
    fn paths_resolve_through_re_exports_globs_and_aliases() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                ("lib.rs", "mod a; mod b; mod c; pub use a::Thing; pub use c::*;"),
                ("a.rs", "pub struct Thing; pub mod inner { pub fn f() {} }"),
                ("b.rs", "use crate::a::inner as renamed; fn g() { renamed::f(); crate::Thing; crate::Other; std::mem::take(); }"),
                ("c.rs", "pub struct Other;"),
            ],
        );
        let krate = Crate::load(&dir.path().join("lib.rs")).unwrap();
        let b = krate.modules.iter().position(|m| m.path == ["b"]).unwrap();
        let targets: Vec<(String, Option<String>)> = krate.modules[b]
            .refs
            .iter()
            .map(|r| {
                (
                    r.path.join("::"),
                    krate.resolve(b, &r.path).map(|t| krate.modules[t].path.join("::")),
                )
            })
            .collect();
        assert_eq!(
            targets,
            [
                ("crate::a::inner".into(), Some("a::inner".into())),
                ("renamed::f".into(), Some("a::inner".into())),
                ("crate::Thing".into(), Some("a".into())),
                ("crate::Other".into(), Some("c".into())),
                ("std::mem::take".into(), None),
            ]
        );
    }

    #[test]
    fn test_only_code_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[(
                "lib.rs",
                "#[cfg(test)] use crate::x::A; #[cfg(all(test, unix))] fn f() { crate::y::B } \
                 #[cfg(any(test, feature = \"t\"))] fn g() { crate::z::C } #[cfg(test)] mod tests { use crate::w; }",
            )],
        );
        let krate = Crate::load(&dir.path().join("lib.rs")).unwrap();
        assert_eq!(paths(&krate), [""]);
        let refs: Vec<String> = krate.modules[0].refs.iter().map(|r| r.path.join("::")).collect();
        assert_eq!(refs, ["crate::z::C"]);
    }
}
