//! `cowork publish [folder] … --type workspace|workspace-component|template|course` (page 05):
//! the package is made once by `cowork-store`; with no `--team-server` it is written to a file,
//! else each named team server gets it and answers on its own row (a failure there exits 1 while
//! the others still publish). Apps are published with `cowork push`.

use super::account::session;
use super::store::failure;
use crate::cli::{HostArg, PublishArgs, PublishType, SubtypeArg};
use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::error_name::ErrorName;
use cowork_core::paths::Root;
use cowork_store::hub::HubRemote;
use cowork_store::publish::{self, Package, PublishOptions};
use cowork_store::StoreError;
use cowork_wire::hub::{CardUpdate, Host, ItemKind, PublishOutcome, TemplateSubtype};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn options(args: &PublishArgs, folder: PathBuf, screenshot: Option<PathBuf>) -> PublishOptions {
    PublishOptions {
        folder,
        items: args.items.iter().filter(|i| !i.is_empty()).cloned().collect(),
        kind: args.kind.map(|k| match k {
            PublishType::Workspace => ItemKind::Workspace,
            PublishType::WorkspaceComponent => ItemKind::WorkspaceComponent,
            PublishType::Template => ItemKind::Template,
            PublishType::Course => ItemKind::Course,
        }),
        subtype: args.subtype.map(|s| match s {
            SubtypeArg::App => TemplateSubtype::App,
            SubtypeArg::Routine => TemplateSubtype::Routine,
            SubtypeArg::Skill => TemplateSubtype::Skill,
            SubtypeArg::Workspace => TemplateSubtype::Workspace,
        }),
        requires: args
            .requires
            .iter()
            .map(|h| match h {
                HostArg::Desktop => Host::Desktop,
                HostArg::Web => Host::Web,
            })
            .collect(),
        version: args.version.clone(),
        name: args.name.clone(),
        card: CardUpdate {
            title: args.title.clone(),
            description: args.description.clone(),
            tags: args.tags.clone(),
            ..CardUpdate::default()
        },
        screenshot,
    }
}

/// `<name>: <kind>, N files, B bytes`, then a course's outline (page 11: the dry run checks it).
fn summary(package: &Package) -> String {
    let n = package.files.len();
    let line = format!(
        "{}: {}, {n} file{}, {} bytes",
        package.name,
        package.kind,
        if n == 1 { "" } else { "s" },
        package.bytes()
    );
    match &package.outline {
        Some(outline) => format!("{line}\n{}", outline.trim_end()),
        None => line,
    }
}

/// `--screenshot`: the desktop app's last capture of `folder`'s workspace (page 05), which only a
/// workspace or a workspace template has; refused by name before anything is uploaded.
fn last_capture(folder: &Path, package: &Package) -> Result<PathBuf, Failure> {
    let workspace = matches!(package.kind, ItemKind::Workspace)
        || (matches!(package.kind, ItemKind::Template)
            && package.subtype == Some(TemplateSubtype::Workspace));
    if !workspace {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "failed to publish {} with --screenshot: it is {}, and only a workspace or a workspace template has a last capture",
                package.name, package.kind.with_article()
            ),
        )
        .named(ErrorName::BadRequest)
        .hint("publish it without --screenshot, or publish the workspace (--type workspace)"));
    }
    let path = Root::from_env().last_capture_file(folder);
    if !path.is_file() {
        return Err(Failure::new(
            Exit::NotFound,
            format!(
                "failed to publish {} with --screenshot: {} has no last capture ({} is missing)",
                package.name,
                folder.display(),
                path.display()
            ),
        )
        .named(ErrorName::NotFound)
        .hint(
            "open the workspace in the desktop app, then leave it, or publish without --screenshot",
        ));
    }
    Ok(path)
}

/// [`summary`] with a note on its first line.
fn summary_with(package: &Package, note: &str) -> String {
    let text = summary(package);
    match text.split_once('\n') {
        Some((first, rest)) => format!("{first} {note}\n{rest}"),
        None => format!("{text} {note}"),
    }
}

/// A package's file name when `--out` names no file (nothing, or a folder): unique per run.
fn archive_name(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!("cowork-{name}-{}-{nanos:08x}.tar.gz", std::process::id())
}

pub async fn run(args: PublishArgs) -> CommandResult {
    let folder = match &args.folder {
        Some(folder) => folder.clone(),
        None => std::env::current_dir().map_err(|e| {
            Failure::new(Exit::Failed, format!("failed to read the current folder: {e}"))
        })?,
    };
    let folder = folder.canonicalize().map_err(|e| {
        Failure::new(Exit::NotFound, format!("failed to open {}: {e}", folder.display()))
            .hint("name a workspace, a component or template folder, or .cowork/courses/<name>")
    })?;
    let mut options = options(&args, folder, None);
    let package = publish::package(&options).map_err(failure)?;
    if args.screenshot {
        options.screenshot = Some(last_capture(&options.folder, &package)?);
    }
    let mut head = json!({
        "name": package.name,
        "type": package.kind,
        "files": package.files.len(),
        "bytes": package.bytes(),
        "missing": package.missing,
        "dryRun": args.dry_run,
    });
    if let Some(outline) = &package.outline {
        head["outline"] = outline.clone().into();
    }
    if !args.json {
        for missing in &package.missing {
            outln!("missing: {missing} (not packaged)");
        }
    }

    if args.team_servers.is_empty() {
        if args.dry_run {
            if !args.json {
                outln!("{}", summary_with(&package, "(dry run: nothing written)"));
            }
        } else {
            // A folder given as --out gets the package under its own name.
            let out = match args.out.clone() {
                Some(dir) if dir.is_dir() => dir.join(archive_name(&package.name)),
                Some(file) => file,
                None => std::env::temp_dir().join(archive_name(&package.name)),
            };
            publish::write_archive(&package, &out).map_err(failure)?;
            head["out"] = out.display().to_string().into();
            if !args.json {
                outln!("{}", summary_with(&package, &format!("→ {}", out.display())));
            }
        }
        if args.json {
            head["ok"] = true.into();
            outln!("{head}");
        }
        return Ok(Exit::Ok);
    }

    if !args.json {
        outln!("{}", summary(&package));
    }
    let session = Arc::new(session());
    let limit = Duration::from_secs(args.timeout.max(1));
    let mut rows = Vec::new();
    let mut failed = false;
    for slug in &args.team_servers {
        let answer = match HubRemote::new(session.clone(), slug) {
            Ok(remote) => {
                match tokio::time::timeout(
                    limit,
                    publish::publish(&remote, &package, &options, args.dry_run),
                )
                .await
                {
                    Ok(answer) => answer.map_err(|e| failed_row(&e)),
                    Err(_) => Err(json!({
                        "name": "Timeout",
                        "message": format!("failed to publish {} to {slug}: the upload took longer than {} s", package.name, limit.as_secs()),
                        "hint": "--timeout <s> raises the wait",
                    })),
                }
            }
            Err(error) => Err(failed_row(&error)),
        };
        match answer {
            Ok(published) => {
                let version = published.version.version.version.clone();
                let result = match (published.outcome, args.dry_run) {
                    (PublishOutcome::UpToDate, _) => "up to date",
                    (PublishOutcome::Published, true) => "would publish",
                    (PublishOutcome::Published, false) => "published",
                };
                if !args.json {
                    outln!("{slug}: {result} {} v{version}", package.name);
                }
                rows.push(json!({ "teamServer": slug, "result": result, "version": version }));
            }
            Err(error) => {
                failed = true;
                if !args.json {
                    outln!("{slug}: failed: {}", error["message"].as_str().unwrap_or_default());
                    if let Some(hint) = error["hint"].as_str() {
                        eprintln!("hint: {hint}");
                    }
                }
                rows.push(json!({ "teamServer": slug, "result": "failed", "error": error }));
            }
        }
    }
    if args.json {
        head["ok"] = (!failed).into();
        head["teamServers"] = Value::Array(rows);
        outln!("{head}");
    }
    Ok(if failed { Exit::Failed } else { Exit::Ok })
}

fn failed_row(error: &StoreError) -> Value {
    json!({ "name": error.name(), "message": error.to_string(), "hint": error.hint() })
}
