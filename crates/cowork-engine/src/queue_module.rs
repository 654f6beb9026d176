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
use std::sync::OnceLock;
use std::time::UNIX_EPOCH;

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
    // Beside, then renamed over: two engines staging at once each rename a whole copy.
    let partial = dir.join(format!(".queue-{}.partial", std::process::id()));
    std::fs::copy(source, &partial)?;
    std::fs::rename(&partial, &target)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_copy_is_named_by_the_module_it_copies_and_made_once() {
        let (home, built) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let root = cowork_core::paths::Root::new(home.path());
        let source = built.path().join(super::file_name());
        std::fs::write(&source, b"first build").unwrap();
        let first = super::stage(&root, &source).unwrap();
        assert_eq!(std::fs::read(&first).unwrap(), b"first build");
        assert_eq!(first.parent(), Some(root.cache_dir().join("runner").as_path()));
        assert_eq!(super::stage(&root, &source).unwrap(), first, "the same module: the same copy");
        std::fs::write(&source, b"a rebuilt module").unwrap();
        let second = super::stage(&root, &source).unwrap();
        assert_ne!(second, first, "a rebuilt module gets a copy of its own");
        assert_eq!(std::fs::read(&second).unwrap(), b"a rebuilt module");
    }
}
