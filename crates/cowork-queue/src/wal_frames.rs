//! A WAL frame in one write: the store's connections open their files through a thin VFS over
//! the system's (SQLite's `unix`), which hands SQLite's two writes of a frame — its 24-byte header,
//! then the page right after it — to the system as one.
//!
//! Every commit appends a frame per page it changed, and SQLite writes each frame with two
//! `pwrite`s (`walWriteOneFrame`). A one-at-a-time send, receive and ack write about seven
//! frames: fourteen system calls of the ~30 a task makes. A frame's two writes as one cost about
//! half (0.35 against 0.6–0.8 µs here, in a C loop writing 1 KiB frames).
//!
//! What SQLite sees does not change. A header is held only until the next call on the same file,
//! which is the page write right after it (then written together), or anything else — another
//! write, a read, a sync, a truncation, the size, a file control, closing — before which it is
//! written first; so nothing SQLite wrote is ever missing when it reads, syncs or hands the frames
//! to other connections (it updates the WAL index only after a frame's page is written, and a
//! frame's page is the last write of a commit). A process killed between the two leaves what it
//! left before: a frame cut short, which recovery already discards (its checksum fails) as it
//! discards a frame killed between SQLite's own two writes. The one header SQLite writes alone and
//! then nothing after — a checksum rewritten at commit (`walRewriteChecksums`, after pages spilled
//! mid-transaction) — follows a read of that frame at the same offset, and is written through.
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

/// A WAL frame's header (`WAL_FRAME_HDRSIZE`).
const HEADER: usize = 24;

/// A WAL file as this VFS opened it: the system's file lives right after it, in the memory SQLite
/// allocated for both ([`ffi::sqlite3_vfs::szOsFile`]).
#[repr(C)]
struct WalFile {
    /// Must be first: SQLite reads the methods through it.
    base: ffi::sqlite3_file,
    system: *mut ffi::sqlite3_file,
    /// A frame header written, not yet handed on: its offset and bytes.
    held: Option<(i64, [u8; HEADER])>,
    /// The offset of the last read, until the next write (see the module's comment).
    read_at: Option<i64>,
    /// A header and its page, joined for one write (kept to be reused).
    joined: Vec<u8>,
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
            held: None,
            read_at: None,
            joined: Vec::new(),
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

/// Writes the header held back, if any: before anything but its page reaches the file.
///
/// # Safety
/// As [`methods`].
unsafe fn write_held(wal: &mut WalFile) -> c_int {
    let Some((at, header)) = wal.held.take() else { return ffi::SQLITE_OK };
    // SAFETY: the system file's xWrite, with a buffer of the length given.
    unsafe {
        let write = methods(wal).xWrite.expect("a file can be written");
        write(wal.system, header.as_ptr().cast(), HEADER as c_int, at)
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
        let read_at = wal.read_at.take();
        let system_write = methods(wal).xWrite.expect("a file can be written");
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), amount.max(0) as usize);
        if let Some((at, header)) = wal.held {
            if offset == at + HEADER as i64 {
                wal.held = None;
                wal.joined.clear();
                wal.joined.extend_from_slice(&header);
                wal.joined.extend_from_slice(bytes);
                let length = wal.joined.len() as c_int;
                return system_write(wal.system, wal.joined.as_ptr().cast(), length, at);
            }
            let rc = write_held(wal);
            if rc != ffi::SQLITE_OK {
                return rc;
            }
        }
        // A header rewritten after a read of its frame (a checksum, at commit) has no page after
        // it: written now.
        if bytes.len() == HEADER && read_at != Some(offset) {
            let mut header = [0u8; HEADER];
            header.copy_from_slice(bytes);
            wal.held = Some((offset, header));
            return ffi::SQLITE_OK;
        }
        system_write(wal.system, data, amount, offset)
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
        let rc = write_held(wal);
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
        let held = write_held(wal);
        let rc = (methods(wal).xClose.expect("a file can be closed"))(wal.system);
        std::ptr::drop_in_place(file.cast::<WalFile>());
        (*file).pMethods = std::ptr::null();
        if held != ffi::SQLITE_OK {
            held
        } else {
            rc
        }
    }
}

/// The methods that write the held header first, then hand the call on.
macro_rules! after_held {
    ($name:ident, $method:ident, ($($arg:ident: $type:ty),*)) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file, $($arg: $type),*) -> c_int {
            // SAFETY: SQLite's call, handed on.
            unsafe {
                let wal = wal(file);
                let rc = write_held(wal);
                if rc != ffi::SQLITE_OK {
                    return rc;
                }
                (methods(wal).$method.expect("the system VFS's method"))(wal.system, $($arg),*)
            }
        }
    };
}
after_held!(truncate, xTruncate, (size: i64));
after_held!(sync, xSync, (flags: c_int));
after_held!(file_size, xFileSize, (size: *mut i64));
after_held!(file_control, xFileControl, (op: c_int, argument: *mut c_void));

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
