//! `cowork doctor [--fix]`: what is wrong with this install, and the repair for each finding.

use crate::exit::{CommandResult, Exit};
use cowork_core::paths::Root;
use cowork_daemon::discovery::{is_alive, Found, PidFile};

/// How bad a finding is.
#[derive(PartialEq)]
enum Level {
    Ok,
    Warn,
    Fail,
}

/// A repair `--fix` can apply: what it does, and doing it.
type Repair = (&'static str, Box<dyn FnOnce() -> std::io::Result<()>>);

struct Finding {
    level: Level,
    topic: &'static str,
    text: String,
    fix: Option<Repair>,
}

fn ok(topic: &'static str, text: String) -> Finding {
    Finding { level: Level::Ok, topic, text, fix: None }
}

pub async fn run(apply: bool) -> CommandResult {
    let root = Root::from_env();
    let mut findings = Vec::new();

    let dir = root.dir().to_path_buf();
    if dir.is_dir() {
        findings.push(ok("root", dir.display().to_string()));
    } else {
        let create = root.clone();
        findings.push(Finding {
            level: Level::Warn,
            topic: "root",
            text: format!("{} does not exist yet", dir.display()),
            fix: Some(("create it", Box::new(move || create.create()))),
        });
    }

    let found = cowork_daemon::discovery::find(&root).await;
    let pidfile = PidFile::read(&root);
    let daemon = match &found {
        Found::Running(running) => Some(running.clone()),
        Found::NotAnswering { .. } | Found::Nothing => None,
    };
    match (&found, &pidfile) {
        (Found::Running(d), _) => findings.push(ok("daemon", format!("running and healthy (pid {}, http://127.0.0.1:{})", d.pid, d.daemon.port()))),
        // Its pidfile must stay: without it a second daemon would start on the same root.
        (Found::NotAnswering { pid, .. }, _) => findings.push(Finding {
            level: Level::Fail,
            topic: "daemon",
            text: format!("pid {pid} is Cowork's daemon but does not answer: `cowork start --headless --force` ends it and starts a new one (or kill -9 {pid})"),
            fix: None,
        }),
        (Found::Nothing, Some(p)) => {
            let path = root.pid_file();
            let why = if is_alive(p.pid) { format!("pid {} is another program now", p.pid) } else { format!("pid {} is gone", p.pid) };
            findings.push(Finding { level: Level::Warn, topic: "pidfile", text: format!("stale {} ({why})", path.display()), fix: Some(("remove it", Box::new(move || std::fs::remove_file(&path)))) });
        }
        // There, but not a daemon's record (cut short, edited): nothing reads it, so it is stale.
        (Found::Nothing, None) if root.pid_file().exists() => {
            let path = root.pid_file();
            findings.push(Finding { level: Level::Warn, topic: "pidfile", text: format!("{} is not a daemon's record (no daemon runs)", path.display()), fix: Some(("remove it", Box::new(move || std::fs::remove_file(&path)))) });
        }
        (Found::Nothing, None) => findings.push(ok("daemon", "not running (start it with `cowork start --headless`)".into())),
    }

    match &daemon {
        // The port it really listens on: `--port` or a move may differ from the remembered one.
        Some(d) => findings.push(ok("port", format!("{} (the running daemon's)", d.daemon.port()))),
        None => {
            let port = cowork_daemon::configured_port(&root);
            match std::net::TcpListener::bind(("127.0.0.1", port)) {
                Ok(_) => findings.push(ok("port", format!("{port} is free"))),
                Err(_) => findings.push(Finding { level: Level::Warn, topic: "port", text: format!("{port} is held by another program; `cowork start` will move to a free port and remember it"), fix: None }),
            }
        }
    }
    findings.extend(moved_port(&root));

    match cowork_engine::runtime::find() {
        Ok(runtime) => findings.push(ok(
            "runtime",
            format!(
                "{} {} ({}, found in {})",
                runtime.kind,
                runtime.version,
                runtime.path.display(),
                runtime.found_in
            ),
        )),
        Err(error) => findings.push(Finding {
            level: Level::Fail,
            topic: "runtime",
            text: format!("{error}; {}", error.hint()),
            fix: None,
        }),
    }
    for warning in cowork_engine::runtime::warnings() {
        findings.push(Finding { level: Level::Warn, topic: "runtime", text: warning, fix: None });
    }

    let confinement = cowork_engine::confine::Confinement::detect();
    let level = match confinement {
        cowork_engine::confine::Confinement::Landlock { .. } => Level::Ok,
        cowork_engine::confine::Confinement::NotConfined { .. } => Level::Warn,
    };
    findings.push(Finding { level, topic: "confine", text: confinement.describe(), fix: None });
    // The packages of the workspace here (if this is one) that reach every secret.
    if let Ok(ws) = crate::workspace::resolve(None) {
        // A folder Cowork writes into that is a link: the workspace does not open until it goes.
        if let Err(link) = cowork_core::own_folders::check(&ws) {
            findings.push(Finding {
                level: Level::Fail,
                topic: "workspace",
                text: format!("{link}: {}", link.hint()),
                fix: None,
            });
        }
        // A workspace overlapping the root runs no routine (`HoldsRoot`): say why before a run does.
        if let Some(overlap) = root.overlap(&ws).filter(|_| ws.join(".cowork").is_dir()) {
            let text = overlap.explain(&ws, root.dir());
            findings.push(Finding { level: Level::Fail, topic: "workspace", text, fix: None });
        }
        // The task store is never recreated on its own: a damaged one is reported here.
        match cowork_queue::schema::check(&ws.join(cowork_queue::STORE)) {
            Ok(None) => {}
            Ok(Some(state)) => {
                findings.push(ok("queues", format!("{} ({state})", cowork_queue::STORE)))
            }
            Err(error) => findings.push(Finding {
                level: Level::Fail,
                topic: "queues",
                text: format!("{error}: {}", error.hint().unwrap_or_default()),
                fix: None,
            }),
        }
        let registry = cowork_core::registry::load(&ws);
        for app in registry
            .apps
            .iter()
            .filter(|a| cowork_engine::secret_access::is_unrestricted(&a.manifest))
        {
            let refused = if registry.config.allows_unrestricted() {
                ""
            } else {
                "; refused here (\"unrestrictedPackages\": false)"
            };
            findings.push(Finding {
                level: Level::Warn,
                topic: "package",
                text: format!(
                    "{} ({}) is {}{refused}: declare its kind in its cowork.json",
                    app.manifest.name,
                    app.dir,
                    cowork_engine::secret_access::UNRESTRICTED
                ),
                fix: None,
            });
        }
    }

    let attached = match &daemon {
        Some(d) => d.daemon.health().await.is_ok_and(|health| health.desktop),
        None => false,
    };
    findings.push(ok("desktop", match (attached, super::open::desktop_binary(), super::open::has_display()) {
        (true, _, _) => "Cowork Studio is running (attached to the daemon)".into(),
        (false, Some(bin), true) => format!("{} (`cowork open` starts it)", bin.display()),
        (false, Some(bin), false) => format!("{} — no display here: `cowork open` opens a browser tab", bin.display()),
        (false, None, _) => "the desktop app is not installed beside this CLI: `cowork open` opens a browser tab".into(),
    }));

    let autostart = cowork_core::autostart::Autostart::from_env();
    findings.push(ok(
        "autostart",
        if autostart.is_enabled() {
            format!(
                "on ({}; `cowork doctor --disable-autostart` switches it off)",
                autostart.file().display()
            )
        } else {
            "off (`cowork install` starts Cowork Studio at login)".into()
        },
    ));

    // The kill switch is a choice, not a fault: a warning, so nobody forgets it is set.
    findings.push(if cowork_store::auto::disabled() {
        Finding {
            level: Level::Warn,
            topic: "updates",
            text: format!(
                "automatic app updates are off ({}=1): `cowork app update` takes a newer version by hand",
                cowork_store::auto::NO_AUTO_UPDATE_ENV
            ),
            fix: None,
        }
    } else {
        ok(
            "updates",
            format!(
                "automatic app updates are on (clean, verified, unpinned apps; {}=1 stops them)",
                cowork_store::auto::NO_AUTO_UPDATE_ENV
            ),
        )
    });

    // Extra trust is never silent: a set COWORK_EXTRA_CA_CERTS is always a line of its own.
    let extra_ca = cowork_daemon::web_download::EXTRA_CA_ENV;
    match cowork_daemon::web_download::extra_authorities() {
        Ok(None) => {}
        Ok(Some((path, found))) => findings.push(Finding {
            level: Level::Warn,
            topic: "trust",
            text: format!(
                "{extra_ca}={}: {} certificate authorit{} trusted for web apps' downloads besides the built-in roots (unset it to trust those alone)",
                path.display(),
                found.len(),
                if found.len() == 1 { "y" } else { "ies" }
            ),
            fix: None,
        }),
        Err(error) => findings.push(Finding {
            level: Level::Fail,
            topic: "trust",
            text: format!("{}; {}", error.message, error.hint.unwrap_or_default()),
            fix: None,
        }),
    }

    let key = cowork_secrets::probe(&root);
    let key_text = format!("{} — {}", key.kind, key.detail);
    match &key.problem {
        None => findings.push(ok("secrets", key_text)),
        Some(problem) => findings.push(Finding {
            level: Level::Warn,
            topic: "secrets",
            text: format!("{key_text}: {problem}"),
            fix: None,
        }),
    }
    if let Some(d) = &daemon {
        let theirs = d.daemon.status().await.ok().and_then(|status| status.secrets);
        if let Some(difference) = super::status::secrets_differ(&key, theirs.as_ref()) {
            findings.push(Finding {
                level: Level::Warn,
                topic: "secrets",
                text: difference,
                fix: None,
            });
        }
    }

    findings.push(account_finding(&root, &key).await);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let token = root.token_file();
        if let Ok(meta) = std::fs::metadata(&token) {
            let mode = meta.permissions().mode() & 0o777;
            if mode != 0o600 {
                let path = token.clone();
                findings.push(Finding {
                    level: Level::Fail,
                    topic: "token",
                    text: format!("{} is readable by others (mode {mode:o})", token.display()),
                    fix: Some((
                        "make it 0600",
                        Box::new(move || {
                            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                        }),
                    )),
                });
            }
        }
    }

    let mut worst = Exit::Ok;
    for finding in findings {
        let label = match finding.level {
            Level::Ok => "ok  ",
            Level::Warn => "warn",
            Level::Fail => "FAIL",
        };
        outln!("{label} {:<8} {}", finding.topic, finding.text);
        if let Some((what, repair)) = finding.fix {
            if apply {
                match repair() {
                    Ok(()) => outln!("     fixed: {what}"),
                    Err(error) => {
                        outln!("     could not {what}: {error}");
                        worst = Exit::Failed;
                    }
                }
                continue;
            }
            outln!("     fix: `cowork doctor --fix` will {what}");
        }
        if finding.level == Level::Fail {
            worst = Exit::Failed;
        }
    }
    Ok(worst)
}

/// A port remembered in `config.json` instead of the default: Cowork moved there once when another
/// program held the default, and stays (that program may hold it for good). The workbench keeps
/// its layout and theme per address, so a move looks like a fresh workbench: say why, and offer
/// the way back once the default is free.
fn moved_port(root: &Root) -> Option<Finding> {
    let (port, default) = (cowork_daemon::configured_port(root), cowork_daemon::DEFAULT_PORT);
    if port == default {
        return None;
    }
    let why = format!(
        "Cowork uses port {port}, remembered in {} (it moves there when another program holds {default}, and stays); the workbench keeps its layout and theme per port",
        root.config_file().display()
    );
    if std::net::TcpListener::bind(("127.0.0.1", default)).is_err() {
        return Some(ok("port", format!("{why}; {default} is still taken")));
    }
    let root = root.clone();
    Some(Finding {
        level: Level::Warn,
        topic: "port",
        text: format!("{why}; {default} is free now"),
        fix: Some((
            "forget the port: the next start listens on the default again",
            Box::new(move || cowork_daemon::forget_port(&root)),
        )),
    })
}

/// The sign-in: who is signed in, on which hub, whether the hub still takes the session (asked
/// with a few seconds' patience), and where its tokens are kept.
async fn account_finding(root: &Root, key: &cowork_secrets::KeyMode) -> Finding {
    let session = cowork_account::Session::new(root);
    let signed_in = match session.signed_in() {
        Ok(signed_in) => signed_in,
        Err(error) => {
            return Finding {
                level: Level::Warn,
                topic: "account",
                text: error.to_string(),
                fix: None,
            }
        }
    };
    let Some(signed_in) = signed_in else {
        let text = match session.hub(None) {
            Ok(hub) => format!("signed out (hub {hub}: `cowork login`)"),
            Err(_) => "signed out, no hub named (`cowork login --hub <url>`)".into(),
        };
        return ok("account", text);
    };
    let who = format!("{} on {}", super::account::describe(&signed_in), signed_in.hub);
    let kept = format!("the session is kept in the secret store ({})", key.kind);
    let asked = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        session.call(|hub| async move { hub.me().await }),
    )
    .await;
    match asked {
        Ok(Ok(_)) => ok("account", format!("{who}; the hub takes the session; {kept}")),
        Ok(Err(error)) => Finding {
            level: Level::Warn,
            topic: "account",
            text: format!(
                "{who}: {error}{}",
                error.hint().map(|h| format!(" ({h})")).unwrap_or_default()
            ),
            fix: None,
        },
        Err(_) => Finding {
            level: Level::Warn,
            topic: "account",
            text: format!("{who}: the hub did not answer within 5 s; {kept}"),
            fix: None,
        },
    }
}
