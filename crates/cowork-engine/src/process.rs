//! Starting a routine's process with its pipes, and killing its whole tree.
//!
//! The child gets fd 0 (its run's inputs), fd 3 (its requests), fd 4 (asynchronous answers) and
//! fd 5 (synchronous answers)
//! — see `runner.mjs` — and runs in a process group of its own, so that a timeout kills whatever
//! the routine started too (a shell, a server it forgot), not just the runtime. A descendant that
//! left the group (`spawn(…, {detached: true})` calls setsid) is still found through `/proc`, and
//! so is one whose parent quit: the runtime is its descendants' subreaper (`PR_SET_CHILD_SUBREAPER`),
//! so an orphan in its tree is reparented to it rather than to init, and the runner stays alive
//! until the tree is killed (runner.mjs's `report`).
//! Where the kernel offers it, the child enters its confinement (`confine.rs`) just before exec.
#![allow(unsafe_code)] // dup2 between fork and exec, prctl, and kill(2): see each block.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{mpsc, OnceLock};
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

use crate::confine::{self, Reach};

/// The daemon's ends of a run's pipes (the run's inputs go on the child's stdin).
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
    /// What the process may reach (confine.rs).
    pub reach: Reach<'a>,
}

/// Starts the process, its stdin a pipe for the run's inputs. Its environment is ours minus every
/// `COWORK_*` variable (so no owner credential leaks into a routine) plus `spec.env` (and its
/// confinement's `TMPDIR`).
pub async fn spawn(spec: Spawn<'_>) -> io::Result<(Child, Channels)> {
    let confinement = confine::prepare(&spec.reach, spec.program)?;
    let daemon = std::process::id();
    let (requests_r, requests_w) = io::pipe()?;
    let (async_r, async_w) = io::pipe()?;
    let (sync_r, sync_w) = io::pipe()?;
    let child_ends: [OwnedFd; 3] = [requests_w.into(), async_r.into(), sync_r.into()];
    let raw: [i32; 3] =
        [child_ends[0].as_raw_fd(), child_ends[1].as_raw_fd(), child_ends[2].as_raw_fd()];

    let mut command = Command::new(spec.program);
    command
        .args(spec.args)
        .current_dir(spec.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    without_cowork_env(&mut command);
    command.envs(spec.env.iter().map(|(k, v)| (k, v)));
    if let Some(confinement) = &confinement {
        command.envs(confinement.env().iter().map(|(k, v)| (k, v)));
    }
    command.process_group(0).kill_on_drop(true);
    // SAFETY: runs in the forked child before exec and only calls async-signal-safe fcntl, dup2,
    // prctl and getppid (and `Prepared::enter`, which makes system calls only). The sources are first moved above fd 9 so that placing them on 3, 4, 5 cannot
    // overwrite a source that happens to sit on one of those numbers; dup2 clears close-on-exec on
    // the copies.
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
            // running on unsupervised, with nobody to answer its ctx or record it. Linux sends this
            // when the *thread* that forked exits, hence `on_spawner_thread` below.
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            // A daemon killed between the fork and the line above sent no signal: the child was
            // reparented already, and would live on unsupervised (spares start in the
            // background, so a kill often lands mid-spawn).
            if u32::try_from(libc::getppid()).ok() != Some(daemon) {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            // An orphan below the runtime is reparented to it (kept across exec), not to init,
            // where the tree kill would no longer find it.
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
            // Last, so that nothing above needs a right the domain lacks.
            if let Some(confinement) = &confinement {
                confinement.enter()?;
            }
            Ok(())
        });
    }
    let child = on_spawner_thread(command).await?;
    // Our copies of the child's ends must close, or we would never see end-of-file on fd 3.
    drop(child_ends);
    let channels = Channels {
        requests: pipe::Receiver::from_owned_fd(requests_r.into())?,
        async_answers: pipe::Sender::from_owned_fd(async_w.into())?,
        sync_answers: pipe::Sender::from_owned_fd(sync_w.into())?,
    };
    Ok((child, channels))
}

/// Leaves out of `command`'s environment every `COWORK_*` variable of ours, so that no owner
/// credential reaches a runtime process.
pub(crate) fn without_cowork_env(command: &mut Command) {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("COWORK_") {
            command.env_remove(&key);
        }
    }
}

type SpawnJob = Box<dyn FnOnce() + Send>;

/// Forks on one thread that lives as long as the process. PR_SET_PDEATHSIG fires when the forking
/// thread ends, and tokio's blocking-pool threads end after 10 s idle: a routine forked from one of
/// them was killed 10 s into its run.
async fn on_spawner_thread(mut command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<mpsc::Sender<SpawnJob>> = OnceLock::new();
    let jobs = SPAWNER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<SpawnJob>();
        std::thread::Builder::new()
            .name("cowork-spawner".into())
            .spawn(move || queue.into_iter().for_each(|job| job()))
            .expect("the OS starts one more thread at start-up");
        jobs
    });
    // The child is registered with the caller's runtime (its reaper and kill_on_drop).
    let runtime = tokio::runtime::Handle::current();
    let (answer, spawned) = tokio::sync::oneshot::channel();
    let job: SpawnJob = Box::new(move || {
        let _entered = runtime.enter();
        let _ = answer.send(command.spawn());
    });
    jobs.send(job).map_err(|_| io::Error::other("the process spawner thread is gone"))?;
    spawned.await.map_err(|_| io::Error::other("the process spawner thread is gone"))?
}

/// A started routine's process tree: killed (group and every descendant) when [`Tree::kill`] is
/// called or when it is dropped first — a run whose future is dropped (its caller went away) must
/// not leave the routine's children behind.
pub struct Tree {
    pid: Option<u32>,
}

impl Tree {
    /// The tree under `pid`, which leads its own process group.
    pub fn new(pid: Option<u32>) -> Self {
        Tree { pid }
    }

    /// Kills the group `pid` leads and every process descended from it, including those that left
    /// the group. Call it before reaping `pid`: once reaped, the pid (and group id) may be reused.
    pub fn kill(&mut self) {
        if let Some(pid) = self.pid.take() {
            kill_tree(pid);
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        self.kill();
    }
}

fn kill_tree(pid: u32) {
    let Ok(leader) = libc::pid_t::try_from(pid) else { return };
    // Stop first, collect, then kill: a stopped process cannot fork a child we would miss. A
    // detached descendant stays a child of whoever spawned it while that one lives, so the whole
    // tree is collected before anything in it dies (and is reparented out of reach).
    signal(-leader, libc::SIGSTOP);
    let mut stopped = BTreeSet::from([pid]);
    let mut queue = vec![pid];
    while let Some(parent) = queue.pop() {
        // SIGSTOP takes effect when the process is next scheduled; until then it may still fork.
        wait_until_stopped(parent);
        for child in children(parent) {
            if stopped.insert(child) {
                if let Ok(child) = libc::pid_t::try_from(child) {
                    signal(child, libc::SIGSTOP);
                }
                queue.push(child);
            }
        }
    }
    signal(-leader, libc::SIGKILL);
    for p in stopped {
        if let Ok(p) = libc::pid_t::try_from(p) {
            signal(p, libc::SIGKILL);
        }
    }
}

/// Waits briefly until every thread of `pid` is stopped or gone (one in uninterruptible sleep
/// never stops: the wait is bounded). Blocking, but a stop normally lands within a scheduler tick.
fn wait_until_stopped(pid: u32) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    while std::time::Instant::now() < deadline
        && tasks(pid).iter().any(|task| still_running(&task.join("stat")))
    {
        // Short: a sleeping runner stops within microseconds of being scheduled, and this wait
        // is on every run's path.
        std::thread::sleep(std::time::Duration::from_micros(20));
    }
}

fn still_running(stat: &Path) -> bool {
    let stat = std::fs::read_to_string(stat).unwrap_or_default();
    // The state follows the command name, which is in parentheses and may hold anything.
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
    matches!(state, Some('R' | 'S' | 'D'))
}

/// `/proc/<pid>/task/<tid>` of each thread of `pid` (none once it is gone).
fn tasks(pid: u32) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    entries.filter_map(Result::ok).map(|task| task.path()).collect()
}

/// The children of every thread of `pid`, from `/proc/<pid>/task/*/children` (reliable once
/// `pid` is stopped).
fn children(pid: u32) -> Vec<u32> {
    tasks(pid)
        .iter()
        .filter_map(|task| std::fs::read_to_string(task.join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace().filter_map(|p| p.parse().ok()).collect::<Vec<u32>>()
        })
        .collect()
}

fn signal(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill(2) has no memory effects; a negative pid addresses the group the child leads
    // (it was started with process_group(0)), and a process already gone just returns ESRCH.
    unsafe {
        libc::kill(pid, signal);
    }
}
