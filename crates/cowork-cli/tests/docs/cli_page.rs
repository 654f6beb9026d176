//! `docs/reference/cli.md` from clap's description of `cowork`: every command, its usage, its
//! arguments and flags with their help, defaults and accepted values.

use crate::cli::Cli;
use clap::{Arg, CommandFactory};
use std::fmt::Write;

pub fn render() -> String {
    let mut root = Cli::command();
    root.build();
    let mut commands = Vec::new();
    collect(&root, "", &mut commands);

    let mut page = String::from("# The `cowork` command\n\n");
    let _ = writeln!(page, "{}\n", help_text(root.get_long_about().or(root.get_about())));
    page.push_str(
        "Every command below, its arguments and its flags, as `cowork <command> --help` prints \
         them (each also takes `-h`/`--help`, and `-V`/`--version`). Exit codes and environment \
         variables are in the repository's [README](../../README.md#exit-codes).\n\n",
    );
    for (path, _) in &commands {
        let _ = writeln!(page, "- [`{path}`](#{})", anchor(path));
    }
    for (path, command) in commands {
        let _ = writeln!(page, "\n## {path}\n");
        if let Some(about) = command.get_long_about().or(command.get_about()) {
            let _ = writeln!(page, "{}\n", help_text(Some(about)));
        }
        let usage = command.clone().render_usage().to_string();
        let _ = writeln!(page, "```text\n{}\n```", usage.trim().trim_start_matches("Usage: "));
        let arguments: Vec<&Arg> = command
            .get_arguments()
            .filter(|arg| {
                !arg.is_hide_set() && !matches!(arg.get_id().as_str(), "help" | "version")
            })
            .collect();
        if !arguments.is_empty() {
            page.push('\n');
        }
        for arg in arguments {
            let _ = writeln!(page, "- {}", describe(arg));
        }
        let subcommands: Vec<&str> =
            command.get_subcommands().filter(|sub| listed(sub)).map(|sub| sub.get_name()).collect();
        if !subcommands.is_empty() {
            let list: Vec<String> = subcommands
                .iter()
                .map(|name| format!("[`{name}`](#{})", anchor(&format!("{path} {name}"))))
                .collect();
            let _ = writeln!(page, "\nCommands: {}.", list.join(", "));
        }
    }
    page
}

/// Every command under `command` (itself first, then depth first), with its full name.
fn collect(command: &clap::Command, parent: &str, into: &mut Vec<(String, clap::Command)>) {
    let path = if parent.is_empty() {
        command.get_name().to_string()
    } else {
        format!("{parent} {}", command.get_name())
    };
    into.push((path.clone(), command.clone()));
    for sub in command.get_subcommands().filter(|sub| listed(sub)) {
        collect(sub, &path, into);
    }
}

/// Whether a command is on the page: not `help`, nor one `--help` hides (the reference's commands
/// this version lacks, which only say so).
fn listed(command: &clap::Command) -> bool {
    command.get_name() != "help" && !command.is_hide_set()
}

/// One argument: how it is written, then its help, default and accepted values.
fn describe(arg: &Arg) -> String {
    let names = || match arg.get_value_names() {
        Some(names) => names.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" "),
        None => arg.get_id().as_str().to_uppercase(),
    };
    let value = || format!("<{}>", names());
    let mut line = if arg.is_positional() {
        if arg.is_required_set() {
            format!("`{}`", value())
        } else {
            format!("`[{}]`", names())
        }
    } else {
        let flag = format!("--{}", arg.get_long().expect("every option has a long name"));
        let written =
            if arg.get_action().takes_values() { format!("{flag} {}", value()) } else { flag };
        if arg.is_required_set() {
            format!("`{written}` (required)")
        } else {
            format!("`{written}`")
        }
    };
    if let Some(help) = arg.get_long_help().or(arg.get_help()) {
        let _ = write!(line, ": {}", help_text(Some(help)));
    }
    let defaults: Vec<String> =
        arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    // A flag's implied `false` says nothing.
    if !defaults.is_empty() && arg.get_action().takes_values() {
        let _ = write!(line, " Default: `{}`.", defaults.join(" "));
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set())
        .map(|value| match value.get_help() {
            Some(help) => {
                format!("`{}` ({})", value.get_name(), help_text(Some(help)).trim_end_matches('.'))
            }
            None => format!("`{}`", value.get_name()),
        })
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        let _ = write!(line, " One of: {}.", values.join(", "));
    }
    line
}

/// Help on one line, as a sentence: clap drops the period that ends a one-paragraph doc comment.
fn help_text(text: Option<&clap::builder::StyledStr>) -> String {
    let line = text
        .map(|t| t.to_string().split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    if line.is_empty() || line.ends_with(['.', '?', '!']) {
        line
    } else {
        format!("{line}.")
    }
}

/// The anchor GitHub gives a heading: lowercase, spaces to dashes, other punctuation dropped.
pub fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}
