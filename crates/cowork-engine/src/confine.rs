//! Keeping a routine's process away from what it was not given: the Cowork root (the daemon token,
//! the secret store's key), other workspaces, and other processes' `/proc` entries (the daemon's
//! `environ` names the root).
//!
//! On Linux with Landlock (5.13 and later, enabled), each routine process gets a Landlock domain
//! before it execs: it reads and runs the system (`/usr`, `/lib`, `/etc` for DNS and TLS …), the
//! runtime it runs on, the directories on `PATH` and the runner script; it reads and writes its
//! workspace (its data folder and the transpiled mirror are inside it), a private temp folder
//! (`$TMPDIR`) and its workspace's shared memory — a folder of the machine's `/dev/shm`, mounted
//! in place of `/dev/shm` in a user and mount namespace of the process's own where the system
//! allows one (else `/dev/shm` is out of reach: never the machine's, which every process shares);
//! of `/proc` it sees its own entry and the machine-wide files (`meminfo`, `cpuinfo` …), never
//! another process's. The network is not restricted. With ABI 6 and later it can neither signal a
//! process outside its domain (the daemon) nor reach an abstract Unix socket (the session bus
//! behind the OS keychain). What a routine runs (`ctx.command.run`) inherits the domain.
//!
//! Nothing is enforced elsewhere (macOS, Windows, a kernel without Landlock): [`Confinement`] says
//! so, and `cowork doctor` and `cowork status` print it — never a silent fallback.

use std::path::{Path, PathBuf};

/// Whether routine processes are confined on this machine, and why not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum Confinement {
    /// Landlock confines every routine process; `abi` is the kernel's Landlock ABI version.
    Landlock {
        /// The kernel's Landlock ABI version.
        abi: i32,
    },
    /// Routines run with the daemon's whole reach.
    NotConfined {
        /// Why not, in words (`cowork doctor` prints it).
        why: String,
    },
}

impl Confinement {
    /// What this machine's kernel offers.
    pub fn detect() -> Confinement {
        imp::detect()
    }

    /// One line for `cowork doctor` and `cowork status`.
    pub fn describe(&self) -> String {
        match self {
            Confinement::Landlock { abi } => format!("routines are confined (Landlock ABI {abi}): the Cowork root, other workspaces and other processes are out of their reach"),
            Confinement::NotConfined { why } => format!("routines are not confined: {why}"),
        }
    }
}

/// What one routine process is given.
pub struct Reach<'a> {
    /// Read and written: the workspace (with its data folder and the transpiled mirror).
    pub workspace: &'a Path,
    /// Read: the runner script's folder under the Cowork root's cache (the runner, Bun's cache of
    /// it, `warm.mjs`, the queue module's copy); the folder is granted (Bun lists the folder of the
    /// script it runs).
    pub runner: &'a Path,
    /// Never granted, not even through an ancestor (a `PATH` entry or a runtime directory).
    pub cowork_root: &'a Path,
}

/// The private temp folder of a workspace's routines: the system temp folder is shared with every
/// other process (and, in tests, holds the Cowork root), so each workspace gets its own.
fn temp_folder(workspace: &Path) -> PathBuf {
    std::env::temp_dir()
        .join(format!("cowork-routines-{}", cowork_core::paths::workspace_key(workspace)))
}

/// Where the system keeps POSIX shared memory (`shm_open`, semaphores, Chromium's buffers).
const SHM: &str = "/dev/shm";

/// The shared memory of a workspace's routines, in memory as the system's is: every process of
/// the machine shares `/dev/shm`, so routines get this folder instead — where the kernel lets
/// them have a mount namespace, in place of `/dev/shm` itself (see `Prepared::enter_namespaces`).
fn shm_folder(workspace: &Path) -> PathBuf {
    Path::new(SHM).join(format!("cowork-routines-{}", cowork_core::paths::workspace_key(workspace)))
}

/// `dir`, a folder of `workspace`'s routines in a folder every user may write to, created private;
/// one that is not a plain directory owned by the workspace's owner (a link planted by someone
/// else) is refused rather than granted.
fn ensure_private_folder(dir: PathBuf, workspace: &Path) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    let found = std::fs::symlink_metadata(&dir)?;
    let owner = std::fs::metadata(workspace)?.uid();
    if !found.is_dir() || found.uid() != owner {
        return Err(std::io::Error::other(format!(
            "{} is not a directory of the workspace's owner: remove it",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Whether granting `grant` would open `root` (it is `root` or one of its ancestors).
fn opens(grant: &Path, root: &Path) -> bool {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    canonical(root).starts_with(canonical(grant))
}

/// The prefix a `…/bin` folder is installed under (`/usr`, `~/.cargo`, an npm package).
fn install_prefix(bin: &Path) -> Option<PathBuf> {
    let name = bin.file_name()?;
    (name == "bin" || name == "sbin").then(|| bin.parent().map(Path::to_path_buf)).flatten()
}

/// What a routine may read of the prefix a `PATH` folder is installed under: all of a system
/// one (`/opt/tool`); of one inside the person's `home` (`~/.cargo`, `~/.local`), only what its
/// programs load — `lib`, `lib64`, `libexec` — and the `env` file a login profile sources, never
/// the rest (`~/.cargo/credentials.toml`, `~/.local/share/keyrings`).
fn prefix_grants(prefix: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    if prefix.parent().is_none() || Some(prefix) == home {
        return Vec::new();
    }
    match home {
        Some(home) if prefix.starts_with(home) => ["lib", "lib64", "libexec", "env"]
            .iter()
            .map(|name| prefix.join(name))
            .filter(|grant| grant.exists())
            .collect(),
        _ => vec![prefix.to_path_buf()],
    }
}

/// Where the runtime `program` is installed: the prefix of its `bin/` (Node's and Bun's npm
/// packages, `/usr`), else the program alone.
fn runtime_install(program: &Path) -> PathBuf {
    let real = program.canonicalize().unwrap_or_else(|_| program.to_path_buf());
    real.parent().and_then(install_prefix).unwrap_or(real)
}

/// `grants` less those inside another: `/bin`, `/sbin`, `/usr/local/bin` … are all in `/usr` on
/// most systems now (once canonical), and each rule is four system calls of every run.
fn one_per_tree(mut grants: Vec<PathBuf>) -> Vec<PathBuf> {
    grants.sort();
    grants.into_iter().fold(Vec::new(), |mut kept, grant| {
        if !kept.iter().any(|outer| grant.starts_with(outer)) {
            kept.push(grant);
        }
        kept
    })
}

pub(crate) use imp::{namespaces_refused, Prepared};

/// Builds the routine's confinement before the child is created (everything that allocates
/// happens here); `None` where nothing is enforced. Its [`Prepared::env`] (`TMPDIR`) goes to the
/// process. A workspace that holds the Cowork root, or lies inside it, is never granted: Landlock
/// grants a folder with everything beneath it, so that grant would be the root's. Runs there are
/// refused before this (`HoldsRoot`); this keeps a spare, or any later caller, from granting it.
pub(crate) fn prepare(reach: &Reach<'_>, program: &Path) -> std::io::Result<Option<Prepared>> {
    let root = cowork_core::paths::Root::new(reach.cowork_root);
    if let Some(overlap) = root.overlap(reach.workspace) {
        return Err(std::io::Error::other(overlap.explain(reach.workspace, reach.cowork_root)));
    }
    imp::prepare(reach, program)
}

#[cfg(target_os = "linux")]
mod imp {
    #![allow(unsafe_code)] // three Landlock syscalls the crate does not offer: see each block.

    use super::{opens, Confinement, Reach};
    use landlock::{
        make_bitflags, path_beneath_rules, Access, AccessFs, CompatLevel, Compatible, Ruleset,
        RulesetAttr, RulesetCreatedAttr, Scope, ABI,
    };
    use parking_lot::Mutex;
    use std::collections::HashMap;
    use std::ffi::{CStr, CString};
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, OnceLock};

    /// The rights handled (so denied unless granted): those of ABI 6, whose scopes keep a routine
    /// from signalling the daemon. An older kernel enforces what it knows (best effort).
    const HANDLED: ABI = ABI::V6;

    /// Read (and run) only.
    const SYSTEM: &[&str] = &[
        "/usr",
        "/lib",
        "/lib32",
        "/lib64",
        "/bin",
        "/sbin",
        "/etc",
        "/opt",
        "/nix/store",
        "/sys",
    ];
    /// Of `/proc`, the files about the machine (the runtime sizes itself from them), none about
    /// another process; its own entry is granted in the child (see [`Prepared::enter`]).
    const PROC: &[&str] = &[
        "/proc/meminfo",
        "/proc/cpuinfo",
        "/proc/stat",
        "/proc/loadavg",
        "/proc/uptime",
        "/proc/version",
        "/proc/filesystems",
        "/proc/sys",
    ];
    /// Read, in the person's home: the login shell's start-up files (`ctx.command.run` runs a
    /// login shell so that a command finds what the person's PATH has), nothing else of it.
    const LOGIN_FILES: &[&str] = &[
        ".profile",
        ".bash_profile",
        ".bash_login",
        ".bashrc",
        ".zshenv",
        ".zprofile",
        ".zshrc",
        ".zlogin",
    ];
    /// Read and written.
    const DEVICES: &[&str] =
        &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"];

    pub(super) fn detect() -> Confinement {
        // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the VERSION flag only
        // returns the ABI version (or -1 and errno); it touches no memory.
        let abi = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32, // LANDLOCK_CREATE_RULESET_VERSION
            )
        };
        if abi >= 1 {
            return Confinement::Landlock { abi: abi as i32 };
        }
        let why = match io::Error::last_os_error().raw_os_error() {
            Some(libc::EOPNOTSUPP) => {
                "this kernel has Landlock but it is not enabled (add landlock to the lsm= boot option)"
            }
            _ => "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)",
        };
        Confinement::NotConfined { why: why.into() }
    }

    /// A ruleset built in the daemon, entered by the child between its creation and exec.
    pub struct Prepared {
        ruleset: OwnedFd,
        /// The rights on the child's own `/proc/<pid>`.
        own_proc: u64,
        env: Vec<(String, String)>,
        /// The workspace's shared-memory folder, which the child puts on `/dev/shm` in namespaces
        /// of its own; `None` where the system has no `/dev/shm`.
        shm: Option<PrivateShm>,
    }

    /// What the child needs, made beforehand, to see its workspace's folder as `/dev/shm`.
    struct PrivateShm {
        folder: CString,
        /// `<uid> <uid> 1`: the user namespace maps the daemon's user (and group) to itself, so
        /// the routine is who it was, with no other identity and no privilege outside.
        uid_map: CString,
        gid_map: CString,
    }

    /// Set once the system refused routines a user and mount namespace of their own (Ubuntu's
    /// AppArmor restriction, `user.max_user_namespaces` at 0, a container): from then on they
    /// get their folder without it being `/dev/shm` (`shm_open` fails for them).
    static NAMESPACES_REFUSED: AtomicBool = AtomicBool::new(false);

    /// The system refused the namespaces (`error`): every later routine goes without them.
    pub(crate) fn namespaces_refused(error: &io::Error) {
        if !NAMESPACES_REFUSED.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                %error,
                "failed to give routines a /dev/shm of their workspace's own (a user and mount namespace was refused): they get only their workspace's folder in /dev/shm, and shm_open fails for them"
            );
        }
    }

    /// `struct landlock_path_beneath_attr` (packed in the kernel's UAPI).
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }

    pub(super) fn prepare(reach: &Reach<'_>, program: &Path) -> io::Result<Option<Prepared>> {
        static DETECTED: OnceLock<Confinement> = OnceLock::new();
        if !matches!(DETECTED.get_or_init(detect), Confinement::Landlock { .. }) {
            return Ok(None);
        }
        let temp =
            super::ensure_private_folder(super::temp_folder(reach.workspace), reach.workspace)?;
        let shm = if Path::new(super::SHM).is_dir() {
            Some(super::ensure_private_folder(super::shm_folder(reach.workspace), reach.workspace)?)
        } else {
            None
        };
        let read = AccessFs::from_read(HANDLED);
        let all = AccessFs::from_all(HANDLED);
        let readable: Vec<PathBuf> = system_grants(program, reach.cowork_root)
            .iter()
            .cloned()
            .chain(login_files())
            .chain([reach.runner.parent().unwrap_or(reach.runner).to_path_buf()])
            .collect();
        let writable: Vec<PathBuf> = [reach.workspace.to_path_buf(), temp.clone()]
            .into_iter()
            .chain(shm.clone())
            .chain(DEVICES.iter().map(PathBuf::from))
            .collect();
        let created = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)
            .and_then(|r| r.scope(make_bitflags!(Scope::{AbstractUnixSocket | Signal})))
            .and_then(|r| r.create())
            .and_then(|r| r.add_rules(path_beneath_rules(&readable, read)))
            .and_then(|r| {
                r.add_rules(path_beneath_rules(PROC, AccessFs::ReadFile | AccessFs::ReadDir))
            })
            .and_then(|r| r.add_rules(path_beneath_rules(&writable, all)))
            .map_err(io::Error::other)?;
        let Some(ruleset) = Option::<OwnedFd>::from(created) else {
            return Ok(None);
        };
        let ruleset = above_child_fds(ruleset)?;
        let env = vec![("TMPDIR".to_string(), temp.display().to_string())];
        let shm = match shm {
            Some(folder) => Some(PrivateShm::new(&folder)?),
            None => None,
        };
        Ok(Some(Prepared {
            ruleset,
            own_proc: (AccessFs::ReadFile | AccessFs::ReadDir).bits(),
            env,
            shm,
        }))
    }

    impl PrivateShm {
        fn new(folder: &Path) -> io::Result<PrivateShm> {
            // SAFETY: geteuid and getegid have no memory effects.
            let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
            let c = |bytes: &[u8]| CString::new(bytes).map_err(io::Error::other);
            Ok(PrivateShm {
                folder: c(folder.as_os_str().as_bytes())?,
                uid_map: c(format!("{uid} {uid} 1\n").as_bytes())?,
                gid_map: c(format!("{gid} {gid} 1\n").as_bytes())?,
            })
        }
    }

    /// Writes `text` to the file at `path`, as the child does between its creation and exec.
    ///
    /// # Safety
    /// Only plain system calls on a C string; nothing allocated.
    unsafe fn write_file(path: &CStr, text: &CStr) -> io::Result<()> {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let bytes = text.to_bytes();
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = io::Error::last_os_error();
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(error);
        }
        Ok(())
    }

    /// What is read (and run) of the machine: [`SYSTEM`], each `PATH` entry with what its programs
    /// load of the prefix a `…/bin` entry is installed under (see `prefix_grants`), and the
    /// runtime's install — less any that would open the Cowork root. It follows from the
    /// daemon's own environment, the runtime and the root, none of which changes while the daemon
    /// runs, so it is worked out once for each runtime and root: canonicalizing every grant
    /// against the root cost each run a few hundred system calls. A grant that disappears later
    /// is skipped when the rules are added (`path_beneath_rules` leaves out what does not open).
    fn system_grants(program: &Path, root: &Path) -> Arc<[PathBuf]> {
        type Known = Mutex<HashMap<(PathBuf, PathBuf), Arc<[PathBuf]>>>;
        static KNOWN: OnceLock<Known> = OnceLock::new();
        let key = (program.to_path_buf(), root.to_path_buf());
        let known = KNOWN.get_or_init(Known::default);
        if let Some(grants) = known.lock().get(&key) {
            return grants.clone();
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let path_dirs = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).filter(|d| d.is_absolute()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .flat_map(|dir| {
                let prefix = super::install_prefix(&dir)
                    .map(|p| super::prefix_grants(&p, home.as_deref()))
                    .unwrap_or_default();
                std::iter::once(dir).chain(prefix)
            });
        let grants: Vec<PathBuf> = SYSTEM
            .iter()
            .map(PathBuf::from)
            .chain(path_dirs)
            .chain([super::runtime_install(program)])
            .filter(|grant| !opens(grant, root))
            .map(|grant| grant.canonicalize().unwrap_or(grant))
            .collect();
        let grants: Arc<[PathBuf]> = super::one_per_tree(grants).into();
        known.lock().insert(key, grants.clone());
        grants
    }

    /// A copy of `fd` numbered 10 or more. Between its creation and exec the child's pipes are
    /// placed on fds 0–5 before [`Prepared::enter`] runs: a ruleset on one of those numbers (a daemon with
    /// few files open has them free) was replaced by a pipe, and entering failed with EBADFD.
    fn above_child_fds(fd: OwnedFd) -> io::Result<OwnedFd> {
        use std::os::fd::FromRawFd;
        // SAFETY: fcntl(F_DUPFD_CLOEXEC) on an fd we own returns a new fd (or -1), which the
        // OwnedFd then owns alone.
        let high = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
        if high < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `high` is a fresh, valid fd nothing else owns.
        Ok(unsafe { OwnedFd::from_raw_fd(high) })
    }

    fn login_files() -> Vec<PathBuf> {
        let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else { return Vec::new() };
        LOGIN_FILES.iter().map(|name| home.join(name)).filter(|file| file.is_file()).collect()
    }

    impl Prepared {
        /// What the confined process's environment needs: `TMPDIR`, its private temp folder.
        pub fn env(&self) -> &[(String, String)] {
            &self.env
        }

        /// The `clone` flags that give the child its own `/dev/shm`: a user namespace, and in it
        /// a mount namespace. None without a `/dev/shm`, or once the system refused them.
        pub fn clone_flags(&self) -> libc::c_int {
            if self.shm.is_none() || NAMESPACES_REFUSED.load(Ordering::Acquire) {
                return 0;
            }
            libc::CLONE_NEWUSER | libc::CLONE_NEWNS
        }

        /// In a child created with [`Prepared::clone_flags`], before [`Prepared::enter`]: maps
        /// the daemon's user and group to themselves and mounts the workspace's folder on
        /// `/dev/shm`, in its mount namespace only. Between the child's creation and exec, so
        /// only system calls, nothing allocated. The routine cannot take the mount off: Landlock
        /// refuses a confined process any mount or unmount.
        pub fn enter_namespaces(&self) -> io::Result<()> {
            let Some(shm) = &self.shm else { return Ok(()) };
            // SAFETY: open, write, close and mount(2) on C strings that outlive the calls.
            unsafe {
                write_file(c"/proc/self/uid_map", &shm.uid_map)?;
                // An unprivileged gid_map needs setgroups(2) off in the namespace.
                write_file(c"/proc/self/setgroups", c"deny")?;
                write_file(c"/proc/self/gid_map", &shm.gid_map)?;
                // Mounts made here stay here (the kernel already makes the copies slaves for a
                // namespace of another user namespace; said again rather than relied on).
                let none = std::ptr::null();
                if libc::mount(
                    none,
                    c"/".as_ptr(),
                    none,
                    libc::MS_REC | libc::MS_SLAVE,
                    none.cast(),
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                if libc::mount(
                    shm.folder.as_ptr(),
                    c"/dev/shm".as_ptr(),
                    none,
                    libc::MS_BIND,
                    none.cast(),
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        }

        /// Confines the calling process: grants its own `/proc/<pid>` (only known once it exists),
        /// sets no_new_privs (Landlock requires it) and enters the domain. Runs between the child's
        /// creation and exec, so it only makes async-signal-safe system calls and allocates
        /// nothing.
        pub fn enter(&self) -> io::Result<()> {
            // SAFETY: open, landlock_add_rule, close, prctl and landlock_restrict_self are plain
            // system calls on a C string literal, on `attr` (which outlives the call) and on fds
            // this process owns; none allocates. The rule lands in this spawn's own ruleset (the
            // daemon builds one per process), so no other routine gets this pid's entry.
            unsafe {
                let own = libc::open(
                    c"/proc/self".as_ptr(),
                    libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
                );
                if own < 0 {
                    return Err(io::Error::last_os_error());
                }
                let attr = PathBeneathAttr { allowed_access: self.own_proc, parent_fd: own };
                let added = libc::syscall(
                    libc::SYS_landlock_add_rule,
                    self.ruleset.as_raw_fd(),
                    1u32, // LANDLOCK_RULE_PATH_BENEATH
                    &attr as *const PathBeneathAttr,
                    0u32,
                );
                libc::close(own);
                if added != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::syscall(libc::SYS_landlock_restrict_self, self.ruleset.as_raw_fd(), 0u32)
                    != 0
                {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Confinement, Reach};
    use std::path::Path;

    pub(super) fn detect() -> Confinement {
        Confinement::NotConfined {
            why: format!(
                "nothing confines them on {} yet (Landlock is Linux's)",
                std::env::consts::OS
            ),
        }
    }

    /// Nothing to enter where nothing is enforced.
    pub struct Prepared;

    impl Prepared {
        pub fn env(&self) -> &[(String, String)] {
            &[]
        }

        pub fn enter(&self) -> std::io::Result<()> {
            Ok(())
        }

        pub fn clone_flags(&self) -> i32 {
            0
        }

        pub fn enter_namespaces(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    pub(crate) fn namespaces_refused(_error: &std::io::Error) {}

    pub(super) fn prepare(
        _reach: &Reach<'_>,
        _program: &Path,
    ) -> std::io::Result<Option<Prepared>> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_that_would_open_the_cowork_root_is_recognised() {
        let root = Path::new("/home/ana/.cowork-studio");
        assert!(opens(Path::new("/home/ana"), root), "an ancestor opens it");
        assert!(opens(root, root));
        assert!(opens(Path::new("/"), root));
        assert!(!opens(Path::new("/home/ana/.cowork-studio/runtime"), root), "inside is not all");
        assert!(!opens(Path::new("/usr"), root));
    }

    #[test]
    fn a_workspace_holding_the_cowork_root_is_never_granted() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join(".cowork-studio");
        let runner = root.join("cache/runner/runner.mjs");
        std::fs::create_dir_all(runner.parent().unwrap()).unwrap();
        for workspace in [home.path().to_path_buf(), root.join("workspaces")] {
            std::fs::create_dir_all(&workspace).unwrap();
            let reach = Reach { workspace: &workspace, runner: &runner, cowork_root: &root };
            let error = prepare(&reach, Path::new("/bin/sh")).err().expect("refused");
            assert!(error.to_string().contains("Cowork root"), "{error}");
        }
    }

    #[test]
    fn a_grant_inside_another_is_left_out() {
        let grants = ["/usr/local/bin", "/usr", "/opt/tool", "/usr/bin", "/usr2", "/opt/tool-b"];
        assert_eq!(
            one_per_tree(grants.iter().map(PathBuf::from).collect()),
            ["/opt/tool", "/opt/tool-b", "/usr", "/usr2"].map(PathBuf::from)
        );
    }

    #[test]
    fn the_prefix_of_a_bin_folder_is_what_it_is_installed_under() {
        assert_eq!(
            install_prefix(Path::new("/home/ana/.cargo/bin")),
            Some("/home/ana/.cargo".into())
        );
        assert_eq!(install_prefix(Path::new("/usr/sbin")), Some("/usr".into()));
        assert_eq!(install_prefix(Path::new("/opt/tools")), None);
    }

    #[test]
    fn of_a_prefix_in_the_home_only_what_its_programs_load_is_granted() {
        let home = tempfile::tempdir().unwrap();
        let cargo = home.path().join(".cargo");
        for dir in ["bin", "lib", "registry"] {
            std::fs::create_dir_all(cargo.join(dir)).unwrap();
        }
        std::fs::write(cargo.join("env"), "").unwrap();
        std::fs::write(cargo.join("credentials.toml"), "").unwrap();
        assert_eq!(
            prefix_grants(&cargo, Some(home.path())),
            [cargo.join("lib"), cargo.join("env")]
        );
        assert_eq!(
            prefix_grants(Path::new("/opt/tool"), Some(home.path())),
            [PathBuf::from("/opt/tool")]
        );
        assert!(prefix_grants(home.path(), Some(home.path())).is_empty(), "never the home");
        assert!(prefix_grants(Path::new("/"), Some(home.path())).is_empty());
        assert_eq!(
            runtime_install(Path::new("/nowhere/pkg/bin/bun")),
            PathBuf::from("/nowhere/pkg")
        );
        assert_eq!(runtime_install(Path::new("/nowhere/bun")), PathBuf::from("/nowhere/bun"));
    }
}
