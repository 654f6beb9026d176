//! `docs/reference/errors.md` from the doc comments of `error_names!` in
//! `crates/cowork-core/src/error_name.rs` (the test checks the list against `ErrorName::ALL`).

use std::fmt::Write;

/// Each name of `error_names! { … }` with its doc comment, in declaration order.
pub fn names(source: &str) -> Vec<(String, String)> {
    let body = source
        .split("error_names! {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("error_name.rs invokes error_names! { … }");
    let mut names = Vec::new();
    let mut doc = Vec::new();
    for line in body.lines().map(str::trim).filter(|line| !line.is_empty()) {
        if let Some(text) = line.strip_prefix("///") {
            doc.push(text.trim().to_string());
        } else {
            names.push((line.trim_end_matches(',').to_string(), doc.join(" ")));
            doc.clear();
        }
    }
    names
}

pub fn render(source: &str) -> String {
    let mut page = String::from("# Error names\n\n");
    page.push_str(
        "Every failure Cowork reports carries a name: a routine's `ctx` call rejects with it \
         (`e.name`), so does a widget's `window.cowork` call, the daemon's JSON errors carry it, and \
         `cowork … --json` prints it in its failure line (`{\"ok\":false,\"error\":{\"name\",\"message\",\"hint\"}}`). \
         Branch on the name, never on the message. A routine may also throw a name of its own \
         (`throw ctx.error(\"RateLimited\", \"…\")`); it is passed through unchanged.\n\n",
    );
    page.push_str("| name | meaning |\n| --- | --- |\n");
    for (name, meaning) in names(source) {
        let _ = writeln!(page, "| `{name}` | {} |", meaning.replace('|', "\\|"));
    }
    page.push_str(
        "\nThe command line adds its own names for a failure that is not a routine's: `Usage` \
         (exit 2), `NotFound` (exit 3), `NoDaemon` (exit 4), `Unsupported` (exit 5: a command \
         of the reference this version lacks), `Interrupted` (exit 130: Ctrl-C stopped the \
         command's wait, while the daemon goes on running the routine) and `Failed` (exit 1); \
         see [the CLI reference](cli.md).\n",
    );
    page
}
