//! `docs/reference/cowork-json.md` and `workspace-json.md` from `schemas/*.json`: the schema's
//! own descriptions are the text; types, defaults, accepted values and limits are read from its
//! rules.

use serde_json::Value;
use std::fmt::Write;

pub fn render(schema_path: &str) -> String {
    let schema: Value = serde_json::from_str(&crate::read(schema_path))
        .unwrap_or_else(|e| panic!("{schema_path} is not JSON: {e}"));
    let title = text(&schema, "title");
    let mut page = format!("# `{title}`\n\n{}\n\n", text(&schema, "description"));
    let _ = writeln!(
        page,
        "Editors validate the file against [`{schema_path}`](../../{schema_path}). Keys are \
         listed as paths: `a.b` is key `b` of object `a`, `a[]` an item of array `a`, `a.<key>` \
         any key of map `a`. The schema also covers parts of Cowork this build does not have yet \
         (publishing to a team server, the store, deployments); the repository's \
         [README](../../README.md#what-works-in-this-build) says what works today."
    );
    let mut entries = Vec::new();
    properties(&schema, "", &schema, &mut entries);
    for (path, node, required) in entries {
        field(&mut page, &path, node, required);
    }
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        page.push_str("\n## Shared definitions\n");
        for (name, node) in defs {
            field(&mut page, &format!("$defs/{name}"), node, false);
        }
    }
    page
}

/// The keys under `node` (its own, an object branch's of `if`/`then`/`else`, its items' and its
/// map values'), depth first, each with whether it is required.
fn properties<'a>(
    node: &'a Value,
    prefix: &str,
    root: &'a Value,
    into: &mut Vec<(String, &'a Value, bool)>,
) {
    let join =
        |key: &str| if prefix.is_empty() { key.to_string() } else { format!("{prefix}.{key}") };
    for branch in [Some(node), node.get("then"), node.get("else")].into_iter().flatten() {
        let required = strings(branch.get("required"));
        if let Some(Value::Object(props)) = branch.get("properties") {
            for (key, child) in props {
                into.push((join(key), child, required.contains(&key.as_str())));
                properties(child, &join(key), root, into);
            }
        }
    }
    if let Some(items) = node.get("items").filter(|items| items.get("properties").is_some()) {
        properties(items, &format!("{prefix}[]"), root, into);
    }
    if let Some(values) = node.get("additionalProperties").filter(|v| v.is_object()) {
        properties(values, &format!("{prefix}.<key>"), root, into);
    }
    // A shared definition's keys are listed where it is used (`routines.<key>.file`).
    if let Some(definition) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| root.pointer(r.trim_start_matches('#')))
    {
        properties(definition, prefix, root, into);
    }
}

fn field(page: &mut String, path: &str, node: &Value, required: bool) {
    let depth = path.matches('.').count().min(2);
    let _ = writeln!(page, "\n##{} `{path}`\n", "#".repeat(depth));
    let mut facts = Vec::new();
    if let Some(kind) = kind(node) {
        facts.push(format!("Type: {kind}."));
    }
    if required {
        facts.push("Required.".to_string());
    }
    if let Some(values) =
        node.get("enum").or_else(|| node.pointer("/items/enum")).and_then(Value::as_array)
    {
        let values: Vec<String> = values.iter().map(|v| format!("`{}`", plain(v))).collect();
        facts.push(format!("One of: {}.", values.join(", ")));
    }
    if let Some(default) = node.get("default") {
        facts.push(format!("Default: `{default}`."));
    }
    if let Some(expected) =
        node.get("x-expected").or_else(|| node.pointer("/items/x-expected")).and_then(Value::as_str)
    {
        facts.push(format!("Expects {expected}."));
    }
    if let Some(keys) = node.pointer("/propertyNames/x-expected").and_then(Value::as_str) {
        facts.push(format!("Keys: {keys}."));
    }
    if let Some(values) = node.pointer("/additionalProperties/x-expected").and_then(Value::as_str) {
        facts.push(format!("Values: {values}."));
    }
    for (key, what) in [
        ("maxLength", "At most {} characters."),
        ("minItems", "At least {} items."),
        ("maxItems", "At most {} items."),
        ("maxProperties", "At most {} keys."),
        ("minimum", "At least {}."),
        ("maximum", "At most {}."),
    ] {
        if let Some(n) = node.get(key) {
            facts.push(what.replace("{}", &n.to_string()));
        }
    }
    for reference in
        [node.get("$ref"), node.pointer("/then/$ref"), node.pointer("/additionalProperties/$ref")]
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
    {
        let name = reference.trim_start_matches("#/$defs/");
        facts.push(format!("See [`$defs/{name}`](#defs{}).", name.to_lowercase()));
    }
    if node.get("deprecated") == Some(&Value::Bool(true)) {
        let by = node.get("x-replaced-by").and_then(Value::as_str).unwrap_or("nothing");
        facts.push(format!("Deprecated: replaced by {by}."));
    }
    if !facts.is_empty() {
        let _ = writeln!(page, "{}\n", facts.join(" "));
    }
    let description = text(node, "description");
    if !description.is_empty() {
        let _ = writeln!(page, "{description}");
    }
}

/// The JSON type(s) a key takes, with an array's item type: `string`, `array of string`.
fn kind(node: &Value) -> Option<String> {
    let of = |node: &Value| match node.get("type") {
        Some(Value::String(t)) => Some(format!("`{t}`")),
        Some(Value::Array(types)) => {
            Some(types.iter().map(|t| format!("`{}`", plain(t))).collect::<Vec<_>>().join(" or "))
        }
        _ => None,
    };
    let own = of(node)?;
    match node
        .get("items")
        .and_then(|items| of(items).or_else(|| items.get("enum").map(|_| "`string`".into())))
    {
        Some(items) if own == "`array`" => Some(format!("`array` of {items}")),
        _ => Some(own),
    }
}

fn strings(value: Option<&Value>) -> Vec<&str> {
    value
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn text<'a>(node: &'a Value, key: &str) -> &'a str {
    node.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn plain(value: &Value) -> String {
    value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string())
}
