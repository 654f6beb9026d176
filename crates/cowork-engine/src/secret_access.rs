//! Which secrets a routine may reach (docs/guides/secrets-and-consent.md): a capability's routine
//! its own `<name>.*` (and it reads `cowork.openrouter`), an app's routine none, and a package that
//! declares neither `kind` nor `uses` keeps its old, unrestricted access. The `cowork.` prefix is
//! Cowork's own: of it a routine only ever reads `cowork.openrouter`, and writes nothing.
//!
//! (A "grant" is something else: what the owner lets an agent run, `cowork_core::agents`.)

use cowork_core::error_name::{CtxError, ErrorName};
use cowork_core::registry::{Kind, RoutineEntry};

/// How a package that declares neither `kind` nor `uses` is marked wherever it is listed.
pub const UNRESTRICTED: &str = "unrestricted (declares neither kind nor uses)";

/// Whether a package from before capabilities (neither `kind` nor `uses`) keeps unrestricted
/// access. Only routines reach secrets: a package with none (a site app, widgets alone) has
/// nothing to restrict, and is not marked.
pub fn is_unrestricted(manifest: &cowork_core::manifest::Manifest) -> bool {
    !manifest.kind_declared && !manifest.declares_uses && !manifest.routines.is_empty()
}

/// Why `entry` may not run in a workspace whose `config` refuses unrestricted packages, with the
/// fix; `None` when it may.
pub fn unrestricted_refusal(
    config: &cowork_core::workspace_json::WorkspaceConfig,
    entry: &RoutineEntry,
) -> Option<String> {
    (Access::of(entry) == Access::Unrestricted && !config.allows_unrestricted()).then(|| format!(
        "{} ({}) is {UNRESTRICTED}, and .cowork/workspace.json sets \"unrestrictedPackages\": false; hint: declare \"kind\" (or \"uses\") in its cowork.json, or allow such packages with \"unrestrictedPackages\": true",
        entry.app_name, entry.app_dir
    ))
}

/// The one reserved name a routine may read.
pub const OPENROUTER: &str = "cowork.openrouter";

/// What a routine's package may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// A package from before capabilities: every name outside `cowork.`.
    Unrestricted,
    /// A capability: its own `<name>.*`.
    Capability(String),
    /// An app under the capability model: nothing.
    None,
}

impl Access {
    /// The access of `entry`'s package.
    pub fn of(entry: &RoutineEntry) -> Access {
        if !entry.kind_declared && !entry.declares_uses {
            Access::Unrestricted
        } else if entry.kind == Kind::Capability {
            Access::Capability(entry.app_name.clone())
        } else {
            Access::None
        }
    }

    /// Whether `name` may be read.
    pub fn may_read(&self, name: &str) -> bool {
        if name == OPENROUTER {
            return *self != Access::None;
        }
        self.may_write(name)
    }

    /// Whether `name` may be written (never a `cowork.` name).
    pub fn may_write(&self, name: &str) -> bool {
        if name.starts_with("cowork.") {
            return false;
        }
        match self {
            Access::Unrestricted => true,
            Access::Capability(own) => {
                name.strip_prefix(own.as_str()).is_some_and(|rest| rest.starts_with('.'))
            }
            Access::None => false,
        }
    }

    /// The `NotGranted` message for `package` asking for `name`.
    pub fn refusal(&self, package: &str, name: &str) -> String {
        match self {
            Access::None => format!("{package} may not reach the secret \"{name}\": an app's routines reach no secrets — read it in a capability's routine and call that"),
            Access::Capability(own) if name.starts_with("cowork.") => format!("{package} may not reach \"{name}\": the cowork. prefix is reserved (a capability reads only {OPENROUTER}); its own secrets are \"{own}.*\""),
            Access::Capability(own) => format!("{package} may not reach the secret \"{name}\": a capability reaches only its own \"{own}.*\" secrets"),
            Access::Unrestricted => format!("{package} may not reach \"{name}\": the cowork. prefix is reserved (a routine reads only {OPENROUTER})"),
        }
    }
}

/// `Unavailable`: the secret store cannot be reached, and what to do about it.
pub(crate) fn unavailable(error: cowork_secrets::SecretError) -> CtxError {
    let ctx = CtxError::new(ErrorName::Unavailable, format!("the secret store: {error}"));
    match error.hint() {
        Some(hint) if !error.to_string().contains(&hint) => ctx.with_hint(hint),
        _ => ctx,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(access: &Access, name: &str) -> (bool, bool) {
        (access.may_read(name), access.may_write(name))
    }

    #[test]
    fn the_access_table() {
        let cap = Access::Capability("clickup".into());
        assert_eq!(case(&cap, "clickup.user_id"), (true, true));
        assert_eq!(case(&cap, "clickup.token"), (true, true));
        assert_eq!(case(&cap, "clickup"), (false, false), "the bare name is not <name>.*");
        assert_eq!(
            case(&cap, "clickupx.token"),
            (false, false),
            "a longer name sharing the prefix is another package's"
        );
        assert_eq!(case(&cap, "gmail.token"), (false, false));
        assert_eq!(case(&cap, OPENROUTER), (true, false));
        assert_eq!(case(&cap, "cowork.oauth.google"), (false, false));

        let app = Access::None;
        assert_eq!(case(&app, "clickup.token"), (false, false));
        assert_eq!(case(&app, OPENROUTER), (false, false));
        assert_eq!(case(&app, "anything"), (false, false));

        let old = Access::Unrestricted;
        assert_eq!(case(&old, "openai.key"), (true, true));
        assert_eq!(case(&old, "clickup.token"), (true, true));
        assert_eq!(case(&old, OPENROUTER), (true, false));
        assert_eq!(case(&old, "cowork.oauth.google"), (false, false));
    }

    #[test]
    fn refusals_name_the_package_and_the_name() {
        assert!(Access::None
            .refusal("board", "x.y")
            .starts_with("board may not reach the secret \"x.y\""));
        assert!(Access::Capability("a".into()).refusal("a", "b.c").contains("its own \"a.*\""));
    }
}
