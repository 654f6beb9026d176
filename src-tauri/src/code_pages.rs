//! The start's code, given back once the app has started (Linux).
//!
//! The app's binary holds about 28 MB of code, and a start leaves most of it mapped in this
//! process (about 22 MB: the kernel maps the 64 KB around every page a start runs, and a start runs
//! code all over the binary), counted in its memory though no other process shares it. Once the
//! window has started, that code is unmapped (`MADV_DONTNEED` on the binary's executable
//! mappings): the pages stay in the file cache, and what runs after maps its own back (a minor
//! fault each 64 KB, no disk read while the file cache holds them). Android compacts its apps'
//! code the same way. `COWORK_KEEP_CODE=1` keeps it mapped.
#![allow(unsafe_code)] // madvise on this process's own executable mappings: see `unmap`.

use std::time::Duration;

/// How long after the window's build the code goes: the page's first frames, the workbench's first
/// requests and the site apps a start reopens run in that time.
const AFTER: Duration = Duration::from_secs(3);

/// Unmaps the binary's code [`AFTER`] from now, on a thread of its own.
pub fn release_after_start() {
    if std::env::var_os("COWORK_KEEP_CODE").is_some_and(|value| value != "0") {
        return;
    }
    let spawned = std::thread::Builder::new().name("code-pages".into()).spawn(|| {
        std::thread::sleep(AFTER);
        match release() {
            Ok(bytes) => tracing::debug!("unmapped {} kB of the start's code", bytes / 1024),
            Err(error) => tracing::debug!("failed to unmap the start's code: {error}"),
        }
    });
    if let Err(error) = spawned {
        tracing::debug!("failed to start the thread that unmaps the start's code: {error}");
    }
}

/// Unmaps this process's mappings of its own executable that hold code; the bytes unmapped.
fn release() -> std::io::Result<usize> {
    let exe = std::fs::read_link("/proc/self/exe")?;
    let maps = std::fs::read_to_string("/proc/self/maps")?;
    let mut total = 0;
    for (start, end) in code_of(&maps, &exe.to_string_lossy()) {
        unmap(start, end - start)?;
        total += end - start;
    }
    Ok(total)
}

/// The `start..end` ranges of `maps` (`/proc/<pid>/maps`) that map `path` executable and not
/// writable.
fn code_of<'a>(maps: &'a str, path: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
    maps.lines().filter_map(move |line| {
        let mut fields = line.split_whitespace();
        let (range, perms) = (fields.next()?, fields.next()?);
        // offset, device, inode, then the path (which may hold spaces).
        let mapped = fields.nth(3)?;
        let rest = line[line.find(mapped)?..].trim_end();
        if rest != path || !perms.contains('x') || perms.contains('w') {
            return None;
        }
        let (start, end) = range.split_once('-')?;
        Some((usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?))
    })
}

/// `madvise(MADV_DONTNEED)` on `len` bytes at `start`.
fn unmap(start: usize, len: usize) -> std::io::Result<()> {
    // SAFETY: the range is one of this process's read-only, private file mappings of its own
    // executable (`code_of`), page aligned as the kernel listed it. Dropping such pages only
    // unmaps them: their contents are the file's, and the next access maps them back from it.
    let done = unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_binarys_executable_read_only_mappings_are_code() {
        let maps = "\
5581a0000000-5581a1000000 r--p 00000000 08:01 42 /opt/cowork studio/cowork-desktop
5581a1000000-5581a2c00000 r-xp 01000000 08:01 42 /opt/cowork studio/cowork-desktop
5581a2c00000-5581a2d00000 rw-p 02c00000 08:01 42 /opt/cowork studio/cowork-desktop
7f0000000000-7f0000100000 r-xp 00000000 08:01 77 /usr/lib/libwebkit2gtk-4.1.so.0
7f0000200000-7f0000300000 rw-p 00000000 00:00 0 
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]
";
        let code: Vec<_> = code_of(maps, "/opt/cowork studio/cowork-desktop").collect();
        assert_eq!(code, [(0x5581a1000000, 0x5581a2c00000)]);
        // A deleted binary (an update replaced it) is still ours, under the name the kernel gives.
        let deleted = "1000-2000 r-xp 00000000 08:01 42 /usr/bin/cowork-desktop (deleted)\n";
        assert_eq!(code_of(deleted, "/usr/bin/cowork-desktop (deleted)").count(), 1);
        assert_eq!(code_of(deleted, "/usr/bin/cowork-desktop").count(), 0);
    }
}
