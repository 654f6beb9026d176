//! A widget's long-lived process on a pseudo-terminal (`cowork.stream.open`): started in the
//! workspace folder, confined and with the environment of a routine (`process::spawn_on_terminal`),
//! the leader of a session of its own on the terminal's child end, so a shell, `top` or `vim`
//! behave, and killed with its whole tree ([`Terminal::end`], or dropped).
//!
//! The pseudo-terminal is opened with `openpty(3)` rather than a PTY crate: the crates spawn the
//! child themselves, and this one must be created by the engine's spawner (its parent-death
//! signal, its Landlock domain, no daemon descriptor inherited), which only needs the child end.
#![allow(unsafe_code)] // openpty, read, write and ioctl on descriptors we own: see each block.

use crate::process::{self, Child, Tree};
use crate::Workspace;
use cowork_core::audit::{Outcome, Record, RecordedError, Status};
use cowork_core::error_name::{CtxError, ErrorName};
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use tokio::io::unix::AsyncFd;

/// The audit line's capability for an opened stream.
pub const STREAM_CAPABILITY: &str = "cowork.stream.open";

/// A terminal's size in character cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

impl Default for Size {
    fn default() -> Self {
        Size { cols: 80, rows: 24 }
    }
}

/// The daemon's end of a pseudo-terminal: what the process writes is read here, and what is
/// written here is its input.
pub struct Master {
    fd: AsyncFd<OwnedFd>,
}

/// A started process on its pseudo-terminal.
pub struct Terminal {
    /// The daemon's end, shared by the reader, the writer and resizes.
    pub master: std::sync::Arc<Master>,
    // Before `child`, so dropped first: the tree is killed before the child is reaped.
    tree: Tree,
    child: Child,
}

impl Master {
    /// Reads what the process wrote: `Ok(0)` once no process holds the terminal any more.
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut ready = self.fd.readable().await?;
            // SAFETY: read(2) into `buf`, which is valid for `buf.len()` bytes.
            let read = ready.try_io(|fd| {
                match unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } {
                    -1 => Err(io::Error::last_os_error()),
                    n => Ok(n as usize),
                }
            });
            match read {
                Ok(Ok(n)) => return Ok(n),
                // EIO: every descriptor of the child end is closed (the process tree is gone).
                Ok(Err(error)) if error.raw_os_error() == Some(libc::EIO) => return Ok(0),
                Ok(Err(error)) => return Err(error),
                Err(_would_block) => continue,
            }
        }
    }

    /// Reads what is there now without waiting: `None` when nothing is (or on any error, which
    /// the next [`Master::read`] reports).
    pub fn try_read(&self, buf: &mut [u8]) -> Option<usize> {
        // SAFETY: read(2) into `buf`, valid for `buf.len()` bytes, on a non-blocking descriptor.
        match unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } {
            n if n > 0 => Some(n as usize),
            _ => None,
        }
    }

    /// Writes all of `data` as the process's input (waits while the terminal's input queue is
    /// full: a process that reads nothing makes this wait; the caller bounds it).
    pub async fn write_all(&self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let mut ready = self.fd.writable().await?;
            // SAFETY: write(2) from `data`, valid for `data.len()` bytes.
            let written = ready.try_io(|fd| {
                match unsafe { libc::write(fd.as_raw_fd(), data.as_ptr().cast(), data.len()) } {
                    -1 => Err(io::Error::last_os_error()),
                    n => Ok(n as usize),
                }
            });
            match written {
                Ok(Ok(n)) => data = &data[n..],
                Ok(Err(error)) => return Err(error),
                Err(_would_block) => continue,
            }
        }
        Ok(())
    }

    /// Sets the terminal's size; the kernel tells the foreground process (`SIGWINCH`).
    pub fn resize(&self, size: Size) -> io::Result<()> {
        let winsize = winsize(size);
        // SAFETY: TIOCSWINSZ reads a `winsize` from a pointer to a local.
        match unsafe { libc::ioctl(self.fd.as_raw_fd(), libc::TIOCSWINSZ, &winsize) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

fn winsize(size: Size) -> libc::winsize {
    libc::winsize { ws_row: size.rows, ws_col: size.cols, ws_xpixel: 0, ws_ypixel: 0 }
}

impl Terminal {
    /// Waits until the process (the session leader) exits, without reaping it.
    pub async fn exited(&self) {
        self.child.exited().await;
    }

    /// Kills the whole tree (the session's group and every descendant), reaps the leader and
    /// says how it ended: its exit code, or `None` when a signal ended it.
    pub async fn end(mut self) -> Option<i32> {
        self.tree.kill();
        let status = self.child.wait().await.ok()?;
        status.code()
    }
}

/// Opens a pseudo-terminal of `size`: the daemon's end (non-blocking) and the child end.
fn open_pty(size: Size) -> io::Result<(OwnedFd, OwnedFd)> {
    let (mut master, mut slave) = (-1, -1);
    let winsize = winsize(size);
    // SAFETY: openpty writes two fds into the locals; the name and termios pointers may be null.
    let opened = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &winsize)
    };
    if opened != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh fds that nothing else owns.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    for fd in [&master, &slave] {
        // SAFETY: fcntl on fds we own; close-on-exec so no other child inherits them.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    // SAFETY: as above; the daemon's end is read and written without blocking a thread.
    unsafe {
        let flags = libc::fcntl(master.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(master.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    Ok((master, slave))
}

/// `name` found on `PATH` (a name with a `/` is taken as it is, against the workspace folder).
fn find_program(name: &str, cwd: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable =
        |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if name.contains('/') {
        let path = cwd.join(name);
        return runnable(&path).then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| runnable(p))
}

impl Workspace {
    /// Starts `argv` for `app` on a new pseudo-terminal of `size`, in this workspace's folder,
    /// confined as its routines are (`TERM=xterm-256color`). `CommandFailed` when it cannot
    /// start: no such program, or the system refused.
    pub async fn open_terminal(&self, argv: &[String], size: Size) -> Result<Terminal, CtxError> {
        let failed = |why: String| {
            CtxError::new(
                ErrorName::CommandFailed,
                format!("failed to start {}: {why}", shown(argv)),
            )
        };
        let Some((name, args)) = argv.split_first() else {
            return Err(CtxError::new(ErrorName::BadRequest, "argv names no program"));
        };
        if let Some(overlap) = self.overlap() {
            return Err(CtxError::new(ErrorName::HoldsRoot, overlap.to_string()));
        }
        let program = find_program(name, self.root())
            .ok_or_else(|| failed(format!("no program \"{name}\" on PATH (is it installed?)")))?;
        let runner = crate::spares::runner_script(self.shared.root())
            .map_err(|e| failed(format!("the runner folder could not be written: {e}")))?;
        let (master, slave) = open_pty(size).map_err(|e| failed(format!("no terminal: {e}")))?;
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let env = [
            ("TERM".to_string(), "xterm-256color".to_string()),
            ("COLORTERM".to_string(), "truecolor".to_string()),
            ("COWORK_WORKSPACE".to_string(), self.display()),
        ];
        let spec = process::Spawn {
            program: &program,
            args: &args,
            cwd: self.root(),
            env: &env,
            reach: crate::confine::Reach {
                workspace: self.root(),
                runner: &runner,
                cowork_root: self.shared.root().dir(),
            },
        };
        let child =
            process::spawn_on_terminal(spec, &slave).await.map_err(|e| failed(e.to_string()))?;
        // Ours closes now: once the process tree is gone, reads see the end (EIO).
        drop(slave);
        // SAFETY: the OwnedFd is the AsyncFd's alone and stays open, the same descriptor, for
        // its whole life.
        let master = unsafe { AsyncFd::register(master) }
            .map_err(|e| failed(e.into_parts().1.to_string()))?;
        Ok(Terminal {
            master: std::sync::Arc::new(Master { fd: master }),
            tree: Tree::new(child.id()),
            child,
        })
    }

    /// The audit line of a stream `app` opened (or was refused): the argv, never its input.
    pub fn audit_stream(&self, app: &str, argv: &[String], refused: Option<&CtxError>) {
        let args = serde_json::json!({ "argv": argv });
        let mut request = crate::RunRequest::new(STREAM_CAPABILITY, args, crate::Source::App);
        request.caller_app = Some(app.to_string());
        let run_id = crate::request::new_run_id();
        let identity = self.identity();
        let (status, error) = match refused {
            None => (Status::Ok, None),
            Some(e) => (
                Status::Denied,
                Some(RecordedError { name: e.name.clone(), message: e.message.clone() }),
            ),
        };
        let record = Record::finish(
            time::OffsetDateTime::now_utc(),
            STREAM_CAPABILITY,
            &request.args,
            0,
            self.context(None, &request, &run_id, &identity),
            Outcome { status, error, result: None, log_lines: &[], unchanged: false, mask: None },
        );
        if let Err(error) = self.audit().append(&record) {
            tracing::error!(%error, %app, "audit line of a stream lost");
        }
    }
}

/// `argv` as a person reads it, and the consent value that opens it: its words as a POSIX shell
/// reads them (a word with a space or a shell character in single quotes), so one value names
/// one argv — `sh -c 'echo a; rm b'` and `sh -c echo 'a;' rm b` are two approvals, not one.
pub fn shown(argv: &[String]) -> String {
    argv.iter().map(|word| cowork_core::shell::quote(word)).collect::<Vec<_>>().join(" ")
}
