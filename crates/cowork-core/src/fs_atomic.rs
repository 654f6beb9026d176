//! Writes that never leave a half-written file behind.
//!
//! A crash or `kill -9` in the middle of a write must leave either the old file or the new one:
//! the bytes go to a temporary file in the same folder, are flushed to disk, and only then renamed
//! over the target (a rename within one file system is atomic).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` with `bytes` atomically, creating parent folders. `private` makes the file
/// readable by its owner only (0600), as tokens, audit files and secrets must be.
pub fn write(path: &Path, bytes: &[u8], private: bool) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
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

/// Takes an exclusive lock on the lock file `path` (created, with its folder, when missing),
/// waiting for another process that holds it; the lock ends when the returned file is dropped,
/// or when the process dies. A file of its own, never the data it guards: an atomic replace
/// swaps the data file's inode, and a lock on the old one would guard nothing.
pub fn lock(path: &Path) -> io::Result<File> {
    let file = open_lock(path)?;
    file.lock()?;
    Ok(file)
}

/// [`lock`] without waiting: `None` when another process holds it.
pub fn try_lock(path: &Path) -> io::Result<Option<File>> {
    let file = open_lock(path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(error)) => Err(error),
    }
}

fn open_lock(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    OpenOptions::new().create(true).truncate(false).write(true).open(path)
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
