//! `cowork login` and `cowork logout`, and what every hub command shares: the session, how a
//! refusal of the hub is printed, and telling a running daemon that the account changed.

use crate::cli::LoginArgs;
use crate::exit::{CommandResult, Exit, Failure};
use cowork_account::login::{self, BrowserSignIn, DeviceSignIn, PasteSignIn, BROWSER_TIMEOUT};
use cowork_account::{AccountError, Session, SignedIn};
use cowork_core::paths::Root;
use cowork_wire::hub::HubErrorName;
use serde_json::json;
use std::io::{BufRead, IsTerminal, Read};

/// This process's session with its hub.
pub fn session() -> Session {
    Session::new(&Root::from_env())
}

/// A failed account or hub call as the CLI prints it: `failed to <doing>: <what the hub or the
/// session said>`, its causes, its hint, and its name in the `--json` line. Nothing the hub knows
/// by that name is exit 3; everything else is exit 1.
pub fn failure(doing: &str, error: AccountError) -> Failure {
    let code = match error.hub_name() {
        Some(HubErrorName::NotFound) => Exit::NotFound,
        Some(HubErrorName::BadRequest) => Exit::Usage,
        _ => Exit::Failed,
    };
    // The hub words its refusals as this CLI does ("failed to …"): said once, not twice.
    let message = match &error {
        AccountError::Hub(cowork_wire::hub::client::ClientError::Hub {
            error: refusal, ..
        }) if refusal.message.starts_with("failed to ") => refusal.message.clone(),
        _ => format!("failed to {doing}: {error}"),
    };
    let mut failure = Failure::new(code, message).caused_by(&error).named(error.name());
    if let Some(hint) = error.hint() {
        failure = failure.hint(hint);
    }
    failure
}

/// Tells a running daemon that the account changed (signed in, out, another account): it reads
/// `account.json` again, polls the hub at once, and every open window follows. Nothing runs: fine.
pub async fn tell_daemon() {
    if let Some(running) = cowork_daemon::discovery::discover(&Root::from_env()).await {
        if let Err(error) = running.daemon.account_changed().await {
            tracing::debug!(%error, "the daemon did not hear of the account change");
        }
    }
}

/// Whether this machine has a display to open a browser on.
fn has_display() -> bool {
    if cfg!(any(target_os = "macos", windows)) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()))
}

/// `cowork login`.
pub async fn login(args: LoginArgs) -> CommandResult {
    let session = session();
    let hub = session.hub(args.hub.as_deref()).map_err(|e| failure("sign in", e))?;
    let signed_in = match &args.email {
        Some(email) => {
            let password = read_password(email)?;
            login::password(&session, &hub, email, &password).await
        }
        None if args.paste => paste(&session, &hub).await,
        None if args.device || !has_display() => device(&session, &hub).await,
        None => browser(&session, &hub).await,
    }
    .map_err(|e| failure(&format!("sign in to {hub}"), e))?;
    tell_daemon().await;
    if args.json {
        outln!(
            "{}",
            json!({ "ok": true, "hub": signed_in.hub, "user": signed_in.user, "organization": signed_in.organization })
        );
    } else {
        outln!("Signed in to {} as {}.", signed_in.hub, describe(&signed_in));
    }
    Ok(Exit::Ok)
}

/// `ana@example.com (Acme)`.
pub fn describe(signed_in: &SignedIn) -> String {
    match &signed_in.organization {
        Some(org) => format!("{} ({})", signed_in.user.email, org.name),
        None => signed_in.user.email.clone(),
    }
}

/// The password of `email`: a hidden prompt on a terminal, else the first line of stdin.
fn read_password(email: &str) -> Result<String, Failure> {
    let password = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("Password for {email}: "))
            .map_err(|e| Failure::new(Exit::Failed, format!("failed to read the password: {e}")))?
    } else {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            Failure::new(Exit::Failed, format!("failed to read the password from stdin: {e}"))
        })?;
        // One trailing newline is the shell's, not the password's.
        text.strip_suffix("\r\n").or_else(|| text.strip_suffix('\n')).unwrap_or(&text).to_string()
    };
    if password.is_empty() {
        return Err(Failure::new(Exit::Usage, format!("failed to sign in as {email}: the password is empty"))
            .hint("type it at the prompt, or pass it on stdin: `cowork login --email <address> < password-file`"));
    }
    Ok(password)
}

async fn browser(session: &Session, hub: &str) -> Result<SignedIn, AccountError> {
    let sign_in = match BrowserSignIn::start(hub).await {
        Ok(sign_in) => sign_in,
        // No loopback port to come back to: the address is pasted instead.
        Err(AccountError::Listen(_)) => return paste(session, hub).await,
        Err(error) => return Err(error),
    };
    eprintln!(
        "Opening the hub's sign-in page in your browser. If it does not open, visit:\n\n    {}\n",
        sign_in.url
    );
    crate::commands::start::open_browser(&sign_in.url);
    eprintln!("Waiting for the browser (Ctrl-C to stop)…");
    sign_in.finish(session, BROWSER_TIMEOUT).await
}

async fn device(session: &Session, hub: &str) -> Result<SignedIn, AccountError> {
    let sign_in = match DeviceSignIn::start(session, hub).await {
        Ok(sign_in) => sign_in,
        // A hub that offers no device flow: nothing to poll, so the address is pasted.
        Err(AccountError::Hub(error)) if matches!(error.name(), Some(HubErrorName::NotFound)) => {
            return paste(session, hub).await
        }
        Err(error) => return Err(error),
    };
    let auth = &sign_in.authorization;
    eprintln!(
        "To sign in, open {} on any device and enter the code\n\n    {}\n\n(or open {})\nWaiting for the approval (Ctrl-C to stop)…",
        auth.verification_uri, auth.user_code, auth.verification_uri_complete
    );
    sign_in.finish(session).await
}

async fn paste(session: &Session, hub: &str) -> Result<SignedIn, AccountError> {
    let sign_in = PasteSignIn::start(hub);
    eprintln!(
        "Open this address in any browser and sign in:\n\n    {}\n\nThen paste here the address the browser ends on:",
        sign_in.url
    );
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|source| AccountError::Prompt { what: "the address", source })?;
    sign_in.finish(session, &line).await
}

fn warn_not_revoked(report: &cowork_account::SignedOutReport) {
    if let Some(error) = &report.not_revoked {
        eprintln!("warning: the hub could not be told of the sign-out ({error}): the session ends there when it expires, or sign it out on the hub's sessions page");
    }
}

/// `cowork logout [--forget] [--json]`.
pub async fn logout(forget: bool, json: bool) -> CommandResult {
    let session = session();
    let report =
        cowork_account::logout(&session, forget).await.map_err(|e| failure("sign out", e))?;
    tell_daemon().await;
    if json {
        let signed_out = report
            .signed_out
            .as_ref()
            .map(|signed_in| json!({ "email": signed_in.user.email, "hub": signed_in.hub }));
        let forgotten: Vec<String> = report.forgotten.iter().map(ToString::to_string).collect();
        let not_revoked = report.not_revoked.as_ref().map(ToString::to_string);
        outln!(
            "{}",
            json!({
                "ok": true,
                "signedOut": signed_out,
                "notRevoked": not_revoked,
                "forgotten": forgotten,
            })
        );
        return Ok(Exit::Ok);
    }
    match &report.signed_out {
        Some(signed_in) => outln!("Signed out {} from {}.", signed_in.user.email, signed_in.hub),
        None => outln!("Not signed in: nothing to sign out."),
    }
    warn_not_revoked(&report);
    for forgotten in &report.forgotten {
        outln!("Forgot {forgotten}.");
    }
    if forget && report.forgotten.is_empty() {
        outln!("Nothing of an account was kept on this machine.");
    }
    Ok(Exit::Ok)
}
