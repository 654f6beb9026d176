//! A commit in one write: the store's connections open their files through a thin VFS over the
//! system's (SQLite's `unix`), which gathers SQLite's writes to a WAL and hands each commit's to
//! the system as one.
//!
//! Every commit appends a frame per page it changed, and SQLite writes each frame with two
//! `pwrite`s (`walWriteOneFrame`): its 24-byte header, then its page. A one-at-a-time send,
//! receive and ack write about seven frames, three commits: fourteen system calls of a task's
//! ~30 when written as SQLite asks, three when each commit is one. A commit's frames follow each
//! other in the file, and one write of them all costs about half of one write per frame (1.3–1.9
//! against 2.3–3.5 µs a task here, in a C loop writing a task's seven 1 KiB frames).
//!
//! What SQLite sees does not change. Writes are gathered while each starts where the last one
//! ended, and handed to the system as one write:
//! - within the write of a commit frame's page (a frame whose header carries the database's
//!   size, which only a commit's last frame does), so a commit is in the file when its last
//!   write returns — before SQLite publishes it in the WAL index, the only way other
//!   connections learn of frames — and a failed write fails the commit as it always did;
//! - before anything else reaches the file: a write elsewhere, a read, a sync, a truncation,
//!   the size, a file control, closing; so SQLite never reads or syncs without its writes;
//! - when 64 KiB are gathered (a big transaction's frames go in 64 KiB writes).
//!
//! The one header SQLite writes with no page after it — a checksum rewritten at commit
//! (`walRewriteChecksums`, after pages spilled mid-transaction), right after a read of its
//! frame — is written through. A process killed while writes are gathered leaves what it left
//! before: a commit cut short, which recovery discards (its last frame is missing) as it
//! discards a commit killed between SQLite's own writes.
//!
//! Only files SQLite opens as a WAL are wrapped; the database file and the others are the system
//! VFS's own, in place. Registered once per process under [`NAME`], not as the default: only the
//! task store opens with it.
#![allow(unsafe_code)] // the VFS boundary: see each block.

use rusqlite::ffi;
use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

/// The VFS's name, for [`rusqlite::Connection::open_with_flags_and_vfs`].
pub(crate) const NAME: &CStr = c"cowork-wal";

/// A WAL frame's header (`WAL_FRAME_HDRSIZE`): the page's number, then the database's size in
/// pages after the commit (in a commit's last frame; zero in the others), big-endian.
const HEADER: usize = 24;

/// The most bytes gathered before they are handed on: under the 128 KiB that the system VFS
/// writes in one call (`seekAndWriteFd` masks a length with `0x1ffff`, so a write of 256 KiB
/// would write nothing and fail as a full disk).
const GATHER: usize = 64 * 1024;

/// A WAL file as this VFS opened it: the system's file lives right after it, in the memory SQLite
/// allocated for both ([`ffi::sqlite3_vfs::szOsFile`]).
#[repr(C)]
struct WalFile {
    /// Must be first: SQLite reads the methods through it.
    base: ffi::sqlite3_file,
    system: *mut ffi::sqlite3_file,
    /// Writes SQLite made, not yet handed on: the bytes from `gathered_at`, each write starting
    /// where the last one ended (the buffer is kept to be reused).
    gathered: Vec<u8>,
    gathered_at: i64,
    /// Where the page of the last commit frame whose header was written goes: the write there
    /// ends a commit, and hands everything gathered on.
    commit_page_at: Option<i64>,
    /// The offset of the last read, until the next write (see the module's comment).
    read_at: Option<i64>,
}

/// Where the system's file starts, after a [`WalFile`] (SQLite aligns the block to 8).
const SYSTEM_AT: usize = std::mem::size_of::<WalFile>().next_multiple_of(8);

/// The VFS's name if it is registered (at the first call); `None` when SQLite has no default VFS
/// to wrap (then the store opens with SQLite's default, as it did before this one).
pub(crate) fn vfs() -> Option<&'static CStr> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let registered = *REGISTERED.get_or_init(|| {
        // SAFETY: sqlite3_vfs_find(NULL) answers the default VFS, which lives as long as the
        // process; ours copies it and is leaked (SQLite keeps a pointer to it forever).
        unsafe {
            let system = ffi::sqlite3_vfs_find(std::ptr::null());
            if system.is_null() || (*system).xOpen.is_none() {
                return false;
            }
            let mut ours = *system;
            ours.szOsFile = (*system).szOsFile + SYSTEM_AT as c_int;
            ours.pNext = std::ptr::null_mut();
            ours.zName = NAME.as_ptr();
            ours.pAppData = system.cast();
            ours.xOpen = Some(open);
            let ours = Box::into_raw(Box::new(ours));
            ffi::sqlite3_vfs_register(ours, 0) == ffi::SQLITE_OK
        }
    });
    registered.then_some(NAME)
}

/// Opens a file through the system VFS; a WAL is wrapped in a [`WalFile`].
unsafe extern "C" fn open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: pAppData is the system VFS (vfs()), whose xOpen was checked; `file` is a block of
    // szOsFile bytes, so the system's file fits at its start or after a WalFile.
    unsafe {
        let system_vfs: *mut ffi::sqlite3_vfs = (*vfs).pAppData.cast();
        let system_open = (*system_vfs).xOpen.expect("checked in vfs()");
        if flags & ffi::SQLITE_OPEN_WAL == 0 {
            return system_open(system_vfs, name, file, flags, out_flags);
        }
        let system: *mut ffi::sqlite3_file = file.cast::<u8>().add(SYSTEM_AT).cast();
        (*system).pMethods = std::ptr::null();
        let rc = system_open(system_vfs, name, system, flags, out_flags);
        if (*system).pMethods.is_null() {
            // Nothing to close: SQLite calls no method of a file whose pMethods is null.
            (*file).pMethods = std::ptr::null();
            return rc;
        }
        let wal = WalFile {
            base: ffi::sqlite3_file { pMethods: &METHODS },
            system,
            gathered: Vec::new(),
            gathered_at: 0,
            commit_page_at: None,
            read_at: None,
        };
        file.cast::<WalFile>().write(wal);
        rc
    }
}

/// The system file's methods.
///
/// # Safety
/// `wal` must be a [`WalFile`] [`open`] made, not yet closed.
unsafe fn methods(wal: &WalFile) -> &ffi::sqlite3_io_methods {
    // SAFETY: the system VFS set pMethods when it opened the file (checked in open()).
    unsafe { &*(*wal.system).pMethods }
}

/// Hands what is gathered to the system, as one write.
///
/// # Safety
/// As [`methods`].
unsafe fn hand_on(wal: &mut WalFile) -> c_int {
    if wal.gathered.is_empty() {
        return ffi::SQLITE_OK;
    }
    // SAFETY: the system file's xWrite, with a buffer of the length given. A failed write is not
    // tried again: SQLite has the error (from the call that handed it on) and abandons what it
    // was writing.
    unsafe {
        let write = methods(wal).xWrite.expect("a file can be written");
        let rc = write(
            wal.system,
            wal.gathered.as_ptr().cast(),
            wal.gathered.len() as c_int,
            wal.gathered_at,
        );
        wal.gathered.clear();
        rc
    }
}

/// # Safety
/// SQLite's call on a file [`open`] wrapped.
unsafe fn wal<'a>(file: *mut ffi::sqlite3_file) -> &'a mut WalFile {
    // SAFETY: METHODS are set only on WalFiles; SQLite uses a file from one thread at a time.
    unsafe { &mut *file.cast::<WalFile>() }
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    data: *const c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    // SAFETY: SQLite's call: `data` holds `amount` bytes.
    unsafe {
        let wal = wal(file);
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), amount.max(0) as usize);
        // A header rewritten after a read of its frame (a checksum, at commit) may be a commit's
        // last write, with no page after it; a write too big to gather gains nothing from it.
        if wal.read_at.take() == Some(offset) || bytes.len() > GATHER {
            let rc = hand_on(wal);
            if rc != ffi::SQLITE_OK {
                return rc;
            }
            return (methods(wal).xWrite.expect("a file can be written"))(
                wal.system, data, amount, offset,
            );
        }
        let follows = offset == wal.gathered_at + wal.gathered.len() as i64;
        if !wal.gathered.is_empty() && (!follows || wal.gathered.len() + bytes.len() > GATHER) {
            let rc = hand_on(wal);
            if rc != ffi::SQLITE_OK {
                return rc;
            }
        }
        if wal.gathered.is_empty() {
            wal.gathered_at = offset;
        }
        wal.gathered.extend_from_slice(bytes);
        if bytes.len() == HEADER && bytes[4..8] != [0; 4] {
            wal.commit_page_at = Some(offset + HEADER as i64);
        } else if wal.commit_page_at == Some(offset) {
            wal.commit_page_at = None;
            return hand_on(wal);
        }
        ffi::SQLITE_OK
    }
}

unsafe extern "C" fn read(
    file: *mut ffi::sqlite3_file,
    data: *mut c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    // SAFETY: SQLite's call, handed on.
    unsafe {
        let wal = wal(file);
        let rc = hand_on(wal);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        wal.read_at = Some(offset);
        (methods(wal).xRead.expect("a file can be read"))(wal.system, data, amount, offset)
    }
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: SQLite's last call on the file: the WalFile is dropped here, after the system's
    // file is closed.
    unsafe {
        let wal = wal(file);
        let handed = hand_on(wal);
        let rc = (methods(wal).xClose.expect("a file can be closed"))(wal.system);
        std::ptr::drop_in_place(file.cast::<WalFile>());
        (*file).pMethods = std::ptr::null();
        if handed != ffi::SQLITE_OK {
            handed
        } else {
            rc
        }
    }
}

/// The methods that hand what is gathered on first, then the call.
macro_rules! after_gathered {
    ($name:ident, $method:ident, ($($arg:ident: $type:ty),*)) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file, $($arg: $type),*) -> c_int {
            // SAFETY: SQLite's call, handed on.
            unsafe {
                let wal = wal(file);
                let rc = hand_on(wal);
                if rc != ffi::SQLITE_OK {
                    return rc;
                }
                (methods(wal).$method.expect("the system VFS's method"))(wal.system, $($arg),*)
            }
        }
    };
}
after_gathered!(truncate, xTruncate, (size: i64));
after_gathered!(sync, xSync, (flags: c_int));
after_gathered!(file_size, xFileSize, (size: *mut i64));
after_gathered!(file_control, xFileControl, (op: c_int, argument: *mut c_void));

/// The methods a WAL is not written through: handed on as they are.
macro_rules! handed_on {
    ($name:ident, $method:ident, ($($arg:ident: $type:ty),*) -> $out:ty, $absent:expr) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file, $($arg: $type),*) -> $out {
            // SAFETY: SQLite's call, handed on.
            unsafe {
                let wal = wal(file);
                match methods(wal).$method {
                    Some(method) => method(wal.system, $($arg),*),
                    None => $absent,
                }
            }
        }
    };
}
handed_on!(lock, xLock, (level: c_int) -> c_int, ffi::SQLITE_OK);
handed_on!(unlock, xUnlock, (level: c_int) -> c_int, ffi::SQLITE_OK);
handed_on!(reserved, xCheckReservedLock, (out: *mut c_int) -> c_int, ffi::SQLITE_OK);
handed_on!(sector_size, xSectorSize, () -> c_int, 4096);
handed_on!(device, xDeviceCharacteristics, () -> c_int, 0);
handed_on!(shm_map, xShmMap, (page: c_int, size: c_int, extend: c_int, out: *mut *mut c_void) -> c_int, ffi::SQLITE_IOERR);
handed_on!(shm_lock, xShmLock, (offset: c_int, n: c_int, flags: c_int) -> c_int, ffi::SQLITE_IOERR);
handed_on!(shm_unmap, xShmUnmap, (delete: c_int) -> c_int, ffi::SQLITE_OK);
// Without the system's xFetch: no mapping (SQLite's out-pointer set to null), SQLite reads instead.
handed_on!(fetch, xFetch, (offset: i64, amount: c_int, out: *mut *mut c_void) -> c_int, {
    *out = std::ptr::null_mut();
    ffi::SQLITE_OK
});
handed_on!(unfetch, xUnfetch, (offset: i64, page: *mut c_void) -> c_int, ffi::SQLITE_OK);

unsafe extern "C" fn shm_barrier(file: *mut ffi::sqlite3_file) {
    // SAFETY: SQLite's call, handed on.
    unsafe {
        let wal = wal(file);
        if let Some(barrier) = methods(wal).xShmBarrier {
            barrier(wal.system);
        }
    }
}

static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(reserved),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: Some(fetch),
    xUnfetch: Some(unfetch),
};
