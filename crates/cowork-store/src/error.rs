//! Everything a store operation can fail with. Each variant has a name a program branches on
//! ([`StoreError::name`], the `--json` line's `error.name`) and, where we know the fix, a hint.

use cowork_account::AccountError;
use cowork_core::error_name::ErrorName;
use std::path::PathBuf;

/// What went wrong in the store's lifecycle on this machine.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `<team-server>/<item>[@X.Y.Z]` (or a version, a name) that does not parse.
    #[error("failed to read {spec:?}: {why}")]
    BadSpec {
        /// The text as given.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// A flag's value that does not do (`--name` of a template, `--host`, `--commit`): the reason
    /// says what would.
    #[error("failed to use {value:?} as {flag}: {why}")]
    BadFlag {
        /// The flag, as typed (`--name`).
        flag: &'static str,
        /// Its value as given.
        value: String,
        /// What is wrong with it, and what would do.
        why: String,
    },
    /// No such team server, item, version or app.
    #[error("{what} was not found")]
    NotFound {
        /// What was looked for, as the person named it.
        what: String,
    },
    /// `cowork push` found no team server to push to.
    #[error("failed to choose a team server for {dir}: no --to, no install receipt, no publishTo in .cowork/workspace.json")]
    NoTarget {
        /// The app folder.
        dir: String,
        /// The team servers the account belongs to, for the hint.
        known: Vec<String>,
    },
    /// A team server this account does not belong to (never remembered).
    #[error("failed to use the team server {slug:?}: you are not a member of it")]
    UnknownTeamServer {
        /// The slug as given.
        slug: String,
        /// The team servers the account belongs to, for the hint.
        known: Vec<String>,
    },
    /// The content does not verify: no valid signature by the team server's pinned key, a key not
    /// signed by the one pinned, a manifest of another item, or a file that does not match it.
    #[error("failed to verify {what}: {why}")]
    Unverified {
        /// The item (`<team-server>/<name>@<version>`).
        what: String,
        /// What does not hold.
        why: String,
    },
    /// A downloaded blob's bytes do not match what the manifest gives for it (its SHA-256 or its
    /// size): the store's object was changed after it was published. Nothing was written.
    #[error("failed to download {path} of {item}: {why} (tampered)")]
    TamperedBlob {
        /// The item (`<team-server>/<name>@<version>`).
        item: String,
        /// The file, relative to the item.
        path: String,
        /// What does not match, with both values.
        why: String,
    },
    /// The store holds a newer version than this copy: pushing would go backwards.
    #[error("failed to push {name} {local}: the store already has {store}")]
    UpdateFirst {
        /// The app's name.
        name: String,
        /// This copy's version.
        local: String,
        /// The store's latest version.
        store: String,
    },
    /// The app's files changed since they were installed: an update needs a choice.
    #[error(
        "{dir} was edited since it was installed ({}): an update needs a choice",
        summary(changed)
    )]
    Edited {
        /// The app folder.
        dir: String,
        /// The installed files changed, then those gone, relative to it.
        changed: Vec<String>,
    },
    /// A path a scaffold or an install would write is already there.
    #[error("failed to write {}: it already exists (nothing was written)", path.display())]
    Exists {
        /// The path that exists.
        path: PathBuf,
    },
    /// The app an install would add has a manifest name another app of the workspace owns: it
    /// would register nothing, or take the name over (its routines answering for the other's).
    #[error("failed to install {item}: its cowork.json names the app {name:?}, which {dir} already is (nothing was written)")]
    NameTaken {
        /// The store item, `<team-server>/<name>`.
        item: String,
        /// The manifest name.
        name: String,
        /// The app folder that owns it.
        dir: String,
    },
    /// The app was not installed from a store (a local app is the person's own).
    #[error("{dir} was not installed from a team server's store")]
    NotInstalled {
        /// The app folder.
        dir: String,
    },
    /// A manifest or folder that cannot be published as it is.
    #[error("failed to publish {what}: {why}")]
    Invalid {
        /// The folder or file.
        what: String,
        /// What is wrong, with the fix.
        why: String,
    },
    /// Over a limit (a file's size, the number of files, a course's size).
    #[error("failed to publish {what}: {why}")]
    TooLarge {
        /// The folder or file.
        what: String,
        /// Which limit, and by how much.
        why: String,
    },
    /// An external program (git, the `claude` CLI) failed or is missing.
    #[error("failed to run {program}: {why}")]
    Program {
        /// The program (`git`, `claude`).
        program: String,
        /// What it said, or that it is missing.
        why: String,
    },
    /// The hub refused, did not answer, or nobody is signed in.
    #[error(transparent)]
    Account(#[from] AccountError),
    /// A file or folder could not be read or written.
    #[error("failed to {action} {}", path.display())]
    Io {
        /// What was being done (`read`, `write`, `rename` …).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
}

fn summary(changed: &[String]) -> String {
    match changed {
        [] => "files changed".into(),
        [one] => one.clone(),
        [one, rest @ ..] => format!("{one} and {} more", rest.len()),
    }
}

impl StoreError {
    /// [`StoreError::TamperedBlob`]'s reason when a blob's bytes hash to another name.
    pub fn hash_mismatch(expected: &str, actual: &str) -> String {
        format!("the store's blob {expected} hashes to {actual}")
    }

    /// The error's name, as `--json` lines show it: the hub's own name for a refusal.
    pub fn name(&self) -> ErrorName {
        let own = |name: &str| ErrorName::Other(name.to_string());
        match self {
            StoreError::BadSpec { .. }
            | StoreError::BadFlag { .. }
            | StoreError::Invalid { .. } => ErrorName::BadRequest,
            StoreError::NotFound { .. } => ErrorName::NotFound,
            StoreError::NoTarget { .. } => own("NoTeamServer"),
            StoreError::UnknownTeamServer { .. } => own("NotMember"),
            StoreError::Unverified { .. } => own("Unverified"),
            StoreError::TamperedBlob { .. } => own("TamperedBlob"),
            StoreError::UpdateFirst { .. } => own("UpdateFirst"),
            StoreError::Edited { .. } => own("Edited"),
            StoreError::Exists { .. } | StoreError::NameTaken { .. } => own("AlreadyExists"),
            StoreError::NotInstalled { .. } => own("NotInstalled"),
            StoreError::TooLarge { .. } => ErrorName::TooLarge,
            StoreError::Program { .. } | StoreError::Io { .. } => own("Failed"),
            StoreError::Account(error) => error.name(),
        }
    }

    /// Whether this is "not found" (the CLI's exit 3).
    pub fn is_not_found(&self) -> bool {
        match self {
            StoreError::NotFound { .. } => true,
            StoreError::Account(error) => {
                error.hub_name() == Some(cowork_wire::hub::HubErrorName::NotFound)
            }
            _ => false,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            StoreError::BadSpec { .. } => {
                "name it as <team-server>/<name>, with @X.Y.Z to pin a version (acme/gmail@1.2.0)"
                    .into()
            }
            StoreError::NotFound { .. } => {
                "`cowork team-server store <team-server>` lists what it publishes (`cowork team-server store cowork`: the built-in templates); `cowork app list` the apps here".into()
            }
            StoreError::NoTarget { known, .. } | StoreError::UnknownTeamServer { known, .. } => {
                if known.is_empty() {
                    "you belong to no team server: `cowork team-server list`, then `cowork push --to <team-server>`".into()
                } else {
                    format!(
                        "push with --to <team-server> (add --remember to keep it for this workspace); yours: {}",
                        known.join(", ")
                    )
                }
            }
            StoreError::Unverified { .. } => {
                "don't install it; only if the person explicitly asks, pass --allow-unverified"
                    .into()
            }
            StoreError::TamperedBlob { .. } => {
                "nothing was written: tell the team server's admins (its stored file changed); try again later".into()
            }
            // `app update` takes only a copy installed from the store; anything else moves on
            // by its own version.
            StoreError::UpdateFirst { name, store, .. } => {
                format!("a copy installed from the store: `cowork app update {name}` takes v{store}, then push your change again; anything else: give it a version above {store} (cowork.json's \"version\", or publish's --version)")
            }
            StoreError::Edited { dir, .. } => format!(
                "choose one: `cowork app update {dir} --replace | --keep-both | --ai-merge | --skip`"
            ),
            // Only `template install` takes a --name; an install or a Keep both copy has its
            // folder's name from the store.
            StoreError::Exists { .. } => {
                "move it away first (a template can also be scaffolded under another --name)".into()
            }
            StoreError::NameTaken { dir, .. } => {
                format!("remove or rename the app in {dir} first, or install it in another workspace")
            }
            StoreError::NotInstalled { dir } => {
                format!("a local app is yours: delete its folder ({dir}) yourself")
            }
            StoreError::Invalid { .. } => "fix it, then publish again".into(),
            StoreError::TooLarge { .. } => {
                "keep generated data, videos and builds out of what you publish".into()
            }
            StoreError::Program { program, .. } if program == "claude" => {
                "install Claude Code (`npm install -g @anthropic-ai/claude-code`) or choose --keep-both".into()
            }
            StoreError::Program { program, .. } if program == "git" => {
                "install git (`apt install git`) and check the repository's address".into()
            }
            StoreError::Program { .. } | StoreError::BadFlag { .. } => return None,
            StoreError::Account(error) => return error.hint(),
            StoreError::Io { .. } => return None,
        })
    }

    /// An I/O failure on `path`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io { action, path: path.into(), source }
    }
}

impl From<cowork_wire::hub::client::ClientError> for StoreError {
    fn from(error: cowork_wire::hub::client::ClientError) -> Self {
        StoreError::Account(AccountError::Hub(error))
    }
}

/// A store operation's result: [`StoreError`] unless said otherwise.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
