//! Starting a routine's process with its three pipes, and killing its whole tree.
//!
//! The child gets fd 3 (its requests), fd 4 (asynchronous answers) and fd 5 (synchronous answers)
//! — see `runner.mjs` — and runs in a process group of its own, so that a timeout kills whatever
//! the routine started too (a shell, a server it forgot), not just the runtime.
#![allow(unsafe_code)] // dup2 between fork and exec, and kill(2) on a process group: see each block.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::Stdio;
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

/// The daemon's ends of a run's pipes.
pub struct Channels {
    pub requests: pipe::Receiver,
    pub async_answers: pipe::Sender,
    pub sync_answers: pipe::Sender,
}

/// What to start.
pub struct Spawn<'a> {
    pub program: &'a Path,
    pub args: &'a [OsString],
    pub cwd: &'a Path,
    pub env: &'a [(String, String)],
}

/// Starts the process. Its environment is ours minus every `COWORK_*` variable (so no owner
/// credential leaks into a routine) plus `spec.env`.
pub fn spawn(spec: Spawn<'_>) -> io::Result<(Child, Channels)> {
    let (requests_r, requests_w) = io::pipe()?;
    let (async_r, async_w) = io::pipe()?;
    let (sync_r, sync_w) = io::pipe()?;
    let child_ends: [OwnedFd; 3] = [requests_w.into(), async_r.into(), sync_r.into()];
    let raw: [i32; 3] = [child_ends[0].as_raw_fd(), child_ends[1].as_raw_fd(), child_ends[2].as_raw_fd()];

    let mut command = Command::new(spec.program);
    command.args(spec.args).current_dir(spec.cwd).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("COWORK_") {
            command.env_remove(&key);
        }
    }
    command.envs(spec.env.iter().map(|(k, v)| (k, v)));
    command.process_group(0).kill_on_drop(true);
    // SAFETY: runs in the forked child before exec and only calls async-signal-safe dup/dup2.
    // The sources are first moved above fd 9 so that placing them on 3, 4, 5 cannot overwrite a
    // source that happens to sit on one of those numbers; dup2 clears close-on-exec on the copies.
    unsafe {
        command.pre_exec(move || {
            let mut high = [0i32; 3];
            for (i, fd) in raw.iter().enumerate() {
                high[i] = libc::fcntl(*fd, libc::F_DUPFD_CLOEXEC, 10);
                if high[i] < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            for (i, fd) in high.iter().enumerate() {
                if libc::dup2(*fd, 3 + i as i32) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            // If the daemon dies (even by kill -9), the routine's runtime dies with it instead of
            // running on unsupervised, with nobody to answer its ctx or record it.
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = command.spawn()?;
    // Our copies of the child's ends must close, or we would never see end-of-file on fd 3.
    drop(child_ends);
    let channels = Channels {
        requests: pipe::Receiver::from_owned_fd(requests_r.into())?,
        async_answers: pipe::Sender::from_owned_fd(async_w.into())?,
        sync_answers: pipe::Sender::from_owned_fd(sync_w.into())?,
    };
    Ok((child, channels))
}

/// Kills the process group `pid` leads (the routine and everything it started).
pub fn kill_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return };
    // SAFETY: kill(2) has no memory effects; a negative pid addresses the group the child leads
    // (it was started with process_group(0)), and an already-gone group just returns ESRCH.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}
