//! The Node-API module that runs a routine's `ctx.queue` in the routine's own process
//! (cowork-queue-napi): where the built program finds it, and its copy beside the runner.
//!
//! Cargo builds it wherever the engine is built (the engine depends on the crate for that) into
//! the profile's `deps/` folder; the Debian package installs it as
//! `/usr/lib/cowork/libcowork_queue_napi.so` (scripts/package). So it is looked for beside the
//! running program (a test binary runs from `deps/`), in the `deps/` folder beside it (`cowork`
//! in `target/debug/`), and in `../lib/cowork/` (`/usr/bin/cowork`).
//!
//! A confined routine reads only what confine.rs grants: of the Cowork root, the runner's folder.
//! The module is copied there, as the runner is written there, rather than granting the folder it
//! was built or installed in (a target folder holds every build of the workspace). The copy is
//! named by the original's size and modification time, so a rebuilt module gets a fresh copy and
//! a runtime never loads a half-written one (the copy is written beside and renamed over).
//!
//! Without the module (none found, the copy failed, or the engine was told not to use it:
//! `EngineConfig::queue_in_process`) the run's inputs name none and each call goes to the engine
//! as the `queue` op, as it did before the module existed.

use cowork_core::paths::Root;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, UNIX_EPOCH};

/// The module's file name as cargo writes it on this system.
fn file_name() -> String {
    format!("{}cowork_queue_napi{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// The built or installed module, looked for once (the program does not move while it runs).
fn built() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let program = std::env::current_exe().ok()?;
            let dir = program.parent()?;
            let name = file_name();
            [dir.join(&name), dir.join("deps").join(&name), dir.join("../lib/cowork").join(&name)]
                .into_iter()
                .find(|candidate| candidate.is_file())
        })
        .as_deref()
}

/// The module's copy in the runner's folder (made now when missing), or `None` when there is no
/// module or it could not be copied (logged: runs then go through the engine, only slower).
pub(crate) fn staged(root: &Root) -> Option<PathBuf> {
    let source = built()?;
    let copied = stage(root, source);
    if let Err(error) = &copied {
        tracing::warn!(%error, module = %source.display(), "failed to copy the task store's Node-API module beside the runner: ctx.queue goes through the engine");
    }
    copied.ok()
}

fn stage(root: &Root, source: &Path) -> std::io::Result<PathBuf> {
    let metadata = std::fs::metadata(source)?;
    let modified = metadata.modified()?.duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos();
    let target =
        root.cache_dir().join("runner").join(format!("queue-{}-{modified}.node", metadata.len()));
    if target.is_file() {
        return Ok(target);
    }
    let dir = target.parent().expect("a file in the runner's folder");
    std::fs::create_dir_all(dir)?;
    // Beside, then renamed over: two engines staging at once (in one process or two) each
    // rename a whole copy of their own.
    static PARTIALS: AtomicUsize = AtomicUsize::new(0);
    let partial = dir.join(format!(
        ".queue-{}-{}.partial",
        std::process::id(),
        PARTIALS.fetch_add(1, Ordering::Relaxed)
    ));
    let copied = std::fs::copy(source, &partial).and_then(|_| std::fs::rename(&partial, &target));
    if copied.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    copied?;
    forget_old_copies(dir, &target);
    Ok(target)
}

/// Copies of earlier builds, made more than a day ago: each rebuild of the workspace adds one
/// (15 MB in a debug build). A day, not at once: a run handed an older copy's path may still be
/// about to load it.
fn forget_old_copies(dir: &Path, kept: &Path) {
    const OLD: Duration = Duration::from_secs(24 * 60 * 60);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let copy = name.starts_with("queue-") && name.ends_with(".node");
        let old = entry.metadata().and_then(|m| m.modified()).ok().and_then(|m| m.elapsed().ok());
        if copy && path != kept && old.is_some_and(|age| age > OLD) {
            let _ = std::fs::remove_file(path);
        }
    }
}
