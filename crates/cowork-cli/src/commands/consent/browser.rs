//! `cowork consent allow|revoke <site> --browser --app <app>|--agent <name>` and `cowork consent
//! list --browser`: browser automation's consent given (or withdrawn) ahead of the desktop app's
//! dialog — how a person, or a setup script on a machine nobody sits at, lets an app's routines or
//! an agent drive the browser on a site. The same file the daemon writes when the person answers
//! the dialog (`<root>/browser-consent.json`, under its lock), and one audit line per change.

use crate::cli::ConsentWho;
use crate::exit::{CommandResult, Exit, Failure};
use crate::workspace;
use cowork_core::audit::{AuditLog, Context, Record, Source, Status};
use cowork_core::browser_consent::{agent_key, app_key, BrowserConsentError, BrowserConsents};
use cowork_core::paths::Root;
use cowork_core::registry;
use cowork_wire::browser::site_of;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Who the consent is for, resolved: the driver key and how the person reads it.
struct Driver {
    key: String,
    /// `notes (app)`, `claude-code (agent)`.
    label: String,
    /// The app's name, for the audit line's `appId`.
    app: Option<String>,
    /// Where the audit line goes.
    workspace: PathBuf,
}

/// The site as consent names it (`github.com`, `127.0.0.1:8123`): a bare host (with a port) or
/// an http(s) address on it.
fn site(value: &str) -> Result<String, Failure> {
    let value = value.trim();
    let address = if value.contains("://") { value.to_string() } else { format!("http://{value}") };
    let bare_ok = value.contains("://") || !value.contains(['/', '?', '#', '@']);
    let site = site_of(&address).filter(|site| bare_ok && plausible(site));
    site.ok_or_else(|| {
        Failure::new(Exit::Usage, format!("failed to read the site \"{value}\": it is not a web site"))
            .hint("name it as the address bar shows it: github.com, 127.0.0.1:8123, or an http(s) address on it")
    })
}

/// A host (a name, an IPv4 or a bracketed IPv6 literal) with an optional numeric port.
fn plausible(site: &str) -> bool {
    let (host, port) = match site.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((inside, rest)) => (inside, rest.strip_prefix(':')),
            None => return false,
        },
        None => match site.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (site, None),
        },
    };
    let host_ok = if site.starts_with('[') {
        host.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
    } else {
        host.split('.').all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
    };
    let port_ok = port.is_none_or(|port| port.parse::<u16>().is_ok_and(|p| p > 0));
    host_ok && port_ok
}

fn driver(who: &ConsentWho, flag: Option<&Path>) -> Result<Driver, Failure> {
    let ws = workspace::resolve(flag)?;
    if let Some(name) = &who.agent {
        let name = name.trim();
        if name.is_empty() || name.contains(['\n', '\r']) {
            return Err(Failure::new(
                Exit::Usage,
                format!("failed to read the agent's name \"{name}\": it is empty or more than one line"),
            )
            .hint("name it as `cowork mcp-browser --agent <name>` does (else the MCP client's own name, e.g. claude-code)"));
        }
        return Ok(Driver {
            key: agent_key(name),
            label: format!("{name} (agent)"),
            app: None,
            workspace: ws,
        });
    }
    let spec = who.app.as_deref().expect("clap requires --app or --agent");
    let registry = registry::load(&ws);
    let app = registry.resolve_app(spec).ok_or_else(|| {
        Failure::new(Exit::NotFound, format!("no app \"{spec}\" in {}", ws.display())).hint("name its folder (.cowork/apps/gmail), the folder's basename, or the manifest name; `cowork app list` shows them")
    })?;
    let name = app.manifest.name.clone();
    if !app.manifest.requires.contains(&cowork_core::manifest::Requirement::Desktop) {
        return Err(Failure::new(
            Exit::Usage,
            format!("failed to allow {name} to drive the browser: its cowork.json does not declare \"requires\": [\"desktop\"]"),
        )
        .hint(format!("add \"requires\": [\"desktop\"] to {}/cowork.json: only then may its routines use ctx.browser", app.dir)));
    }
    Ok(Driver {
        key: app_key(&ws.display().to_string(), &name),
        label: format!("{name} (app)"),
        app: Some(name),
        workspace: ws,
    })
}

fn failed(error: BrowserConsentError) -> Failure {
    Failure::new(Exit::Failed, error)
}

pub fn allow(value: &str, who: &ConsentWho, flag: Option<&Path>) -> CommandResult {
    let site = site(value)?;
    let driver = driver(who, flag)?;
    let root = Root::from_env();
    let changed =
        BrowserConsents::new(root.dir()).allow(&driver.key, Some(&site)).map_err(failed)?;
    if changed {
        audit(&root, &driver, "allow", &site);
        outln!("Allowed {} to drive the browser on {site}: no dialog asks.", driver.label);
    } else {
        outln!("Already allowed: {} on {site}.", driver.label);
    }
    Ok(Exit::Ok)
}

pub fn revoke(value: &str, who: &ConsentWho, flag: Option<&Path>) -> CommandResult {
    let site = site(value)?;
    let driver = driver(who, flag)?;
    let root = Root::from_env();
    if !BrowserConsents::new(root.dir()).revoke(&driver.key, &site).map_err(failed)? {
        return Err(Failure::new(
            Exit::NotFound,
            format!("failed to revoke: {} is not allowed on {site}", driver.label),
        )
        .hint("`cowork consent list --browser` shows who is"));
    }
    audit(&root, &driver, "revoke", &site);
    outln!("Revoked: {} is asked again on {site}.", driver.label);
    Ok(Exit::Ok)
}

/// Every driver with its sites, in key order: agents by name, then apps by workspace and name.
pub fn list(json: bool) -> CommandResult {
    let root = Root::from_env();
    let drivers = BrowserConsents::new(root.dir()).list().map_err(failed)?;
    let rows: Vec<Value> = drivers
        .into_iter()
        .filter_map(|(key, sites)| {
            if let Some(name) = key.strip_prefix("agent:") {
                return Some(json!({"agent": name, "sites": sites}));
            }
            // `app:<workspace>:<app>`: the workspace may hold colons, an app's name never does.
            let (workspace, app) = key.strip_prefix("app:")?.rsplit_once(':')?;
            Some(json!({"app": app, "workspace": workspace, "sites": sites}))
        })
        .collect();
    if json {
        outln!("{}", Value::Array(rows));
        return Ok(Exit::Ok);
    }
    if rows.is_empty() {
        outln!("Nothing may drive the browser yet: the desktop app asks at the first action (or `cowork consent allow <site> --browser --app <app>`).");
    }
    for row in rows {
        let sites: Vec<&str> =
            row["sites"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let sites = if sites.is_empty() { "(no site yet)".to_string() } else { sites.join(", ") };
        match row["agent"].as_str() {
            Some(agent) => outln!("{agent} (agent): {sites}"),
            None => outln!(
                "{} (app) in {}: {sites}",
                row["app"].as_str().unwrap_or_default(),
                row["workspace"].as_str().unwrap_or_default()
            ),
        }
    }
    Ok(Exit::Ok)
}

/// `cowork.browser.allow` / `cowork.browser.revoke` in the workspace's audit log, `source` `cli`.
/// A line that cannot be written is a warning, never the command's failure.
fn audit(root: &Root, driver: &Driver, action: &str, site: &str) {
    let actor = cowork_store::audit::Actor::of(
        root,
        Source::Cli,
        std::env::var("COWORK_AGENT").ok().filter(|a| !a.is_empty()),
    );
    let mut input = json!({"site": site});
    if driver.app.is_none() {
        input["agent"] = json!(driver.key.trim_start_matches("agent:"));
    }
    let now = time::OffsetDateTime::now_utc();
    let record = Record {
        ts: cowork_core::audit::format_ts(now),
        capability: format!("cowork.browser.{action}"),
        input,
        status: Status::Ok,
        duration_ms: 0,
        queued_ms: None,
        context: Context {
            // Unique enough for one person's consent changes: the clock and the process.
            run_id: format!("browser-{:x}-{:x}", now.unix_timestamp_nanos(), std::process::id()),
            user_id: actor.user_id,
            organization_id: actor.organization_id,
            device_id: actor.device_id,
            workspace: driver.workspace.display().to_string(),
            source: actor.source,
            principal: None,
            agent: actor.agent,
            task_id: None,
            app_id: driver.app.clone(),
            app_version: None,
            kind: None,
            caller: None,
        },
        error: None,
        result: None,
        log: None,
        unchanged: false,
        repeated: None,
    };
    if let Err(error) = AuditLog::new(root.audit_dir(&driver.workspace)).append(&record) {
        eprintln!("warning: failed to write the audit line of this consent change: {error}");
    }
}
