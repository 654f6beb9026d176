//! Writes that never leave a half-written file behind.
//!
//! A crash or `kill -9` in the middle of a write must leave either the old file or the new one:
//! the bytes go to a temporary file in the same folder, are flushed to disk, and only then renamed
//! over the target (a rename within one file system is atomic).
//!
//! Inside a workspace, a folder someone else made, a write must also stay inside it:
//! [`write_inside`] refuses a symlink on the way down from the workspace, and [`no_follow`] opens
//! a file without following a link in its place.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` with `bytes` atomically, creating parent folders. `private` makes the file
/// readable by its owner only (0600), as tokens, audit files and secrets must be, and the folders
/// it creates for it too (0700): the first private file written under a new Cowork root (its
/// `device-id`) made the root itself, and other users could list it.
pub fn write(path: &Path, bytes: &[u8], private: bool) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_dir(dir, private)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(
        ".{name}.{}.tmp",
        std::process::id() as u64 * 1_000_003 + rand::random::<u32>() as u64
    ));
    let result = (|| {
        let mut file = open_new(&tmp, private)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        // The rename itself lives in the folder: flush it too, so a power cut keeps the new file.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Creates `dir` and its missing parents; `private` makes each folder it creates 0700 (one that is
/// there already is left as it is).
pub fn create_dir(dir: &Path, private: bool) -> io::Result<()> {
    let mut folders = fs::DirBuilder::new();
    folders.recursive(true);
    #[cfg(unix)]
    if private {
        std::os::unix::fs::DirBuilderExt::mode(&mut folders, 0o700);
    }
    folders.create(dir)
}

/// [`write`] for a file below `root` (a workspace): refused when a folder between `root` and the
/// file is a symlink, so a link planted in the workspace (`.cowork/local` → `~/.ssh`) cannot carry
/// the write outside it. The file itself is replaced by rename, which never follows a link.
pub fn write_inside(root: &Path, path: &Path, bytes: &[u8], private: bool) -> io::Result<()> {
    no_link_below(root, path)?;
    write(path, bytes, private)
}

/// Fails, naming it, when a folder on the way from `root` down to `path` (`root` itself not
/// included, and not `path`) is a symlink. Folders that do not exist yet are fine: they will be
/// made as real folders.
pub fn no_link_below(root: &Path, path: &Path) -> io::Result<()> {
    let Ok(below) = path.strip_prefix(root) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not inside {}", path.display(), root.display()),
        ));
    };
    let mut at = root.to_path_buf();
    let folders = below.parent().map(Path::components).into_iter().flatten();
    for part in folders {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "{} is a symlink: Cowork does not write through a link inside {}",
                        at.display(),
                        root.display()
                    ),
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Makes `options` refuse to open a symlink in the file's place (`O_NOFOLLOW`): the open fails
/// rather than reach the file the link leads to.
pub fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options
}

/// Takes the exclusive lock that serializes read-modify-writes of `path`: an advisory lock on
/// `<path>.lock` beside it (created 0600 with its folder when missing), held until the returned
/// file is dropped or the process ends. Every writer of a file that two processes change (the CLI
/// and the daemon) reads, edits and [`write`]s it under this lock; without it one writer's edit is
/// lost when another read the file before it and writes after.
pub fn lock(path: &Path) -> io::Result<File> {
    let file = open_lock(path)?;
    file.lock()?;
    Ok(file)
}

/// [`lock`] without waiting: `None` while another process holds it (a second sender of the same
/// queue leaves the work to the first).
pub fn try_lock(path: &Path) -> io::Result<Option<File>> {
    let file = open_lock(path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(error)) => Err(error),
    }
}

/// `<path>.lock`, opened (created 0600 with its folder when missing, never through a link).
fn open_lock(path: &Path) -> io::Result<File> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let lock_path = path.with_file_name(format!("{name}.lock"));
    if let Some(dir) = lock_path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    set_mode(&mut options, true);
    no_follow(&mut options);
    options.open(&lock_path)
}

/// Opens `path` for appending (and reading), creating it and its folder when missing. A `private`
/// file is made 0600 even when it existed already: the mode given at creation never applies to a
/// file someone else (an older version, a copy, `touch`) created with the default 0644.
pub fn open_append(path: &Path, private: bool) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut options = OpenOptions::new();
    options.create(true).read(true).append(true);
    set_mode(&mut options, private);
    no_follow(&mut options);
    let file = options.open(path)?;
    if private {
        make_private(&file)?;
    }
    Ok(file)
}

#[cfg(unix)]
fn make_private(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if file.metadata()?.permissions().mode() & 0o777 != 0o600 {
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_private(_file: &File) -> io::Result<()> {
    Ok(())
}

fn open_new(path: &Path, private: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    set_mode(&mut options, private);
    options.open(path)
}

#[cfg(unix)]
fn set_mode(options: &mut OpenOptions, private: bool) {
    use std::os::unix::fs::OpenOptionsExt;
    options.mode(if private { 0o600 } else { 0o644 });
}

#[cfg(not(unix))]
fn set_mode(_options: &mut OpenOptions, _private: bool) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b.json");
        write(&path, b"one", false).unwrap();
        write(&path, b"two", true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> =
            fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("b.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_private_file_s_new_folders_are_private_and_existing_ones_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        write(&dir.path().join("root/deep/device-id"), b"id", true).unwrap();
        assert_eq!(mode(&dir.path().join("root")), 0o700);
        assert_eq!(mode(&dir.path().join("root/deep")), 0o700);
        assert_eq!(mode(&dir.path().join("root/deep/device-id")), 0o600);
        assert_eq!(mode(dir.path()), 0o755);
    }

    #[test]
    fn a_lock_is_held_until_dropped_and_lives_beside_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/agents.json");
        let held = lock(&path).unwrap();
        assert!(dir.path().join("a/agents.json.lock").is_file());
        let other = OpenOptions::new().write(true).open(dir.path().join("a/agents.json.lock"));
        let other = other.unwrap();
        assert!(other.try_lock().is_err(), "another open of the lock waits while it is held");
        drop(held);
        assert!(other.try_lock().is_ok(), "dropped, it is free");
    }

    #[cfg(unix)]
    #[test]
    fn a_write_inside_a_workspace_never_goes_through_a_link() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(ws.path().join(".cowork")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join(".cowork/local")).unwrap();
        let target = ws.path().join(".cowork/local/.gitignore");
        let error = write_inside(ws.path(), &target, b"*\n", false).unwrap_err();
        let inside = ws.path().display();
        let expected = format!(
            ".cowork/local is a symlink: Cowork does not write through a link inside {inside}"
        );
        assert!(error.to_string().ends_with(&expected), "{error}");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
        write_inside(ws.path(), &ws.path().join(".cowork/data/x/.gitignore"), b"*", false).unwrap();
        // A link in the file's own place is not opened through either.
        let planted = outside.path().join("bashrc");
        fs::write(&planted, "mine").unwrap();
        std::os::unix::fs::symlink(&planted, ws.path().join("lock")).unwrap();
        let opened =
            no_follow(OpenOptions::new().write(true).create(true)).open(ws.path().join("lock"));
        assert!(opened.is_err());
        assert_eq!(fs::read_to_string(&planted).unwrap(), "mine");
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        write(&path, b"x", true).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_file_opened_private_for_appending_becomes_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("day.jsonl");
        fs::write(&path, "old\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        open_append(&path, true).unwrap().write_all(b"new\n").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\nnew\n");
    }
}
