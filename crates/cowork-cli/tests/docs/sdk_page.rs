//! `docs/reference/sdk.md` from `cowork.d.ts`: the widget SDK (`window.cowork`), the routine
//! context (`ctx`) and the types they use, each member with its JSDoc. A small reader of the
//! file's own shape (declarations, members, object-literal namespaces), not a TypeScript parser.

use std::fmt::Write;

/// A declaration or member: its JSDoc, its name, and either its signature or, for an object
/// literal (`queue: { … }`), the members inside.
struct Item {
    doc: String,
    name: String,
    signature: String,
    members: Vec<Item>,
}

pub fn render(source: &str) -> String {
    let items = read_items(source);
    let find = |name: &str| {
        items
            .iter()
            .find(|item| item.name == name)
            .unwrap_or_else(|| panic!("cowork.d.ts declares {name}"))
    };
    let mut page = String::from("# The SDK: `window.cowork` and `ctx`\n\n");
    page.push_str(
        "What a widget and a routine can call, read from the types Cowork writes into every \
         workspace it opens as `.cowork/local/cowork.d.ts` (ambient: nothing to import). Failures \
         reject with an error whose `name` is one of [the error names](errors.md).\n",
    );
    for (title, interface, prefix) in [
        ("Widgets: `window.cowork`", "CoworkSDK", "cowork"),
        ("Routines: `ctx`", "CoworkRoutineContext", "ctx"),
    ] {
        let item = find(interface);
        let _ = writeln!(page, "\n## {title}\n\n{}", item.doc);
        members(&mut page, &item.members, prefix, true);
    }
    page.push_str("\n## Types\n");
    for item in items.iter().filter(|item| {
        !matches!(item.name.as_str(), "CoworkSDK" | "CoworkRoutineContext" | "Window")
    }) {
        let _ = writeln!(page, "\n### `{}`", item.name);
        if !item.doc.is_empty() {
            let _ = writeln!(page, "\n{}", item.doc);
        }
        if item.members.is_empty() {
            let _ = writeln!(page, "\n```ts\n{}\n```", item.signature);
        } else {
            members(&mut page, &item.members, &item.name, false);
        }
    }
    page
}

/// A list of members; a namespace (`cowork.queue`) gets a heading of its own when `headings`.
fn members(page: &mut String, items: &[Item], prefix: &str, headings: bool) {
    let (leaves, namespaces): (Vec<&Item>, Vec<&Item>) =
        items.iter().partition(|item| item.members.is_empty() || !headings);
    if !leaves.is_empty() {
        page.push('\n');
    }
    for item in leaves {
        let _ = write!(page, "- `{}`", item.signature);
        if !item.doc.is_empty() {
            let _ = write!(page, ": {}", item.doc);
        }
        page.push('\n');
    }
    for item in namespaces {
        let _ = writeln!(page, "\n### `{prefix}.{}`", item.name);
        if !item.doc.is_empty() {
            let _ = writeln!(page, "\n{}", item.doc);
        }
        members(page, &item.members, &format!("{prefix}.{}", item.name), headings);
    }
}

/// The top-level declarations: `type`, `interface`, `declare const`.
fn read_items(source: &str) -> Vec<Item> {
    let mut items = Vec::new();
    for (doc, text) in statements(source) {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("interface ") {
            let name =
                rest.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or_default();
            let open = text.find('{').expect("an interface has a body");
            let body = &text[open + 1..text.rfind('}').expect("an interface closes")];
            let members =
                statements(body).into_iter().map(|(doc, text)| member(doc, &text)).collect();
            items.push(Item { doc, name: name.to_string(), signature: flatten(text), members });
        } else if let Some(rest) = text.strip_prefix("type ") {
            let name = rest.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
            items.push(Item {
                doc,
                name: name.to_string(),
                signature: flatten(text),
                members: Vec::new(),
            });
        }
    }
    items
}

/// One member: an object literal becomes a namespace of members, anything else a signature.
fn member(doc: String, text: &str) -> Item {
    let text = text.trim();
    let name_end =
        text.find(|c: char| !c.is_alphanumeric() && c != '_' && c != ' ').unwrap_or(text.len());
    let name = text[..name_end].trim().trim_start_matches("readonly ").to_string();
    let rest = text[name_end..].trim_start_matches('?').trim_start_matches(':').trim();
    let members =
        if text[name_end..].starts_with(':') && rest.starts_with('{') && rest.ends_with('}') {
            statements(&rest[1..rest.len() - 1])
                .into_iter()
                .map(|(doc, text)| member(doc, &text))
                .collect()
        } else {
            Vec::new()
        };
    Item { doc, name, signature: flatten(text), members }
}

/// Splits declarations or members at the `;` (or `,` between members) that ends each at depth 0,
/// pairing each with the JSDoc before it; `//` comments are dropped.
fn statements(source: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut doc = String::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut chars = source.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let rest = &source[at..];
        if rest.starts_with("/**") || rest.starts_with("/*") {
            let end = rest.find("*/").expect("a comment closes") + 2;
            if depth == 0 && current.trim().is_empty() {
                doc = jsdoc(&rest[..end]);
            } else {
                current.push_str(&rest[..end]);
            }
            while chars.peek().is_some_and(|(next, _)| *next < at + end) {
                chars.next();
            }
            continue;
        }
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            while chars.peek().is_some_and(|(next, _)| *next < at + end) {
                chars.next();
            }
            continue;
        }
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            '<' => depth += 1,
            '>' if !current.ends_with('=') => depth -= 1,
            _ => {}
        }
        let ends_interface =
            c == '}' && depth == 0 && current.trim_start().starts_with("interface");
        if depth == 0 && (c == ';' || c == ',' || ends_interface) {
            if ends_interface {
                current.push(c);
            }
            if !current.trim().is_empty() {
                out.push((std::mem::take(&mut doc), std::mem::take(&mut current)));
            }
            current.clear();
            continue;
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push((doc, current));
    }
    out
}

/// A JSDoc's text on one line.
fn jsdoc(comment: &str) -> String {
    let inner = comment.trim_start_matches("/**").trim_start_matches("/*").trim_end_matches("*/");
    inner
        .lines()
        .map(|line| line.trim().trim_start_matches('*').trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A declaration on one line, JSDoc inside it dropped.
fn flatten(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = &rest[start + rest[start..].find("*/").expect("a comment closes") + 2..];
    }
    out.push_str(rest);
    let line = out.split_whitespace().collect::<Vec<_>>().join(" ");
    line.replace("= | ", "= ")
        .replace("( ", "(")
        .replace(", )", ")")
        .replace("; }", " }")
        .replace(", }", " }")
        .replace("{ }", "{}")
}
