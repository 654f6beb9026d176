//! Starting a routine's process with its pipes, waiting for it, and killing its whole tree.
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
//! It gets no other descriptor of the daemon's: every one above fd 5 is closed at its exec.
//!
//! On Linux the child is created the way `posix_spawn` creates one — `clone(CLONE_VM |
//! CLONE_VFORK)`: it borrows the daemon's memory until its exec instead of copying the daemon's
//! page tables, which a `fork()` did (with a TLB flush on every core the daemon runs on, and a
//! copy-on-write fault for each page the daemon wrote next): ~1 ms of every cold run.
//! `posix_spawn` itself cannot be used, as the child must set its parent-death signal, become a
//! subreaper and enter its Landlock domain before exec. Elsewhere it is a `fork()`.
#![allow(unsafe_code)] // the child up to its exec, waitid, waitpid and kill(2): see each block.

use std::collections::BTreeSet;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use tokio::net::unix::pipe;

use crate::confine::{self, Prepared, Reach};

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
    let (stdin_r, stdin_w) = io::pipe()?;
    let (stdout_r, stdout_w) = io::pipe()?;
    let (stderr_r, stderr_w) = io::pipe()?;
    let (requests_r, requests_w) = io::pipe()?;
    let (async_r, async_w) = io::pipe()?;
    let (sync_r, sync_w) = io::pipe()?;
    // The child's fds 0 to 5, in order.
    let child_ends: [OwnedFd; 6] = [
        stdin_r.into(),
        stdout_w.into(),
        stderr_w.into(),
        requests_w.into(),
        async_r.into(),
        sync_r.into(),
    ];
    let env = environment(&spec, confinement.as_ref());
    let fds = child_ends.each_ref().map(|fd| fd.as_raw_fd());
    let plan = Plan::new(&spec, &env, Fds::Routine(fds), confinement)?;
    // Owned from its start: an early return below, or this future dropped meanwhile, kills and
    // reaps it.
    let mut child = on_spawner_thread(plan).await?;
    // Our copies of the child's ends must close, or we would never see end-of-file on fd 3.
    drop(child_ends);
    child.stdin = Some(pipe::Sender::from_owned_fd(stdin_w.into())?);
    child.stdout = Some(pipe::Receiver::from_owned_fd(stdout_r.into())?);
    child.stderr = Some(pipe::Receiver::from_owned_fd(stderr_r.into())?);
    let channels = Channels {
        requests: pipe::Receiver::from_owned_fd(requests_r.into())?,
        async_answers: pipe::Sender::from_owned_fd(async_w.into())?,
        sync_answers: pipe::Sender::from_owned_fd(sync_w.into())?,
    };
    Ok((child, channels))
}

/// Starts the process on the terminal `slave` (a pseudo-terminal's child end, its stdin, stdout
/// and stderr), as the leader of a session of its own whose controlling terminal it is: a shell's
/// job control, `top` and `vim` work, and the tree kill reaches the whole session. Confined,
/// environment and tied to the daemon's life as a routine is ([`spawn`]).
pub async fn spawn_on_terminal(spec: Spawn<'_>, slave: &OwnedFd) -> io::Result<Child> {
    let confinement = confine::prepare(&spec.reach, spec.program)?;
    let env = environment(&spec, confinement.as_ref());
    let plan = Plan::new(&spec, &env, Fds::Terminal(slave.as_raw_fd()), confinement)?;
    on_spawner_thread(plan).await
}

/// The child's environment: ours minus every `COWORK_*` variable, plus `spec.env` and its
/// confinement's (`TMPDIR`).
fn environment(spec: &Spawn<'_>, confinement: Option<&Prepared>) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> =
        std::env::vars_os().filter(|(key, _)| !is_cowork_var(key)).collect();
    let extra = spec.env.iter().chain(confinement.into_iter().flat_map(|c| c.env()));
    for (key, value) in extra {
        env.retain(|(k, _)| k != key.as_str());
        env.push((key.into(), value.into()));
    }
    env
}

/// What the child's first descriptors are.
#[derive(Clone, Copy)]
enum Fds {
    /// A routine's fds 0 to 5 (stdin, stdout, stderr and its three channels).
    Routine([RawFd; 6]),
    /// A terminal's child end on 0, 1 and 2; the child leads a new session on it.
    Terminal(RawFd),
}

impl Fds {
    fn list(self) -> ([RawFd; 6], usize) {
        match self {
            Fds::Routine(fds) => (fds, 6),
            Fds::Terminal(fd) => ([fd, fd, fd, -1, -1, -1], 3),
        }
    }
}

fn is_cowork_var(key: &OsStr) -> bool {
    key.as_bytes().starts_with(b"COWORK_")
}

/// Leaves out of `command`'s environment every `COWORK_*` variable of ours, so that no owner
/// credential reaches a runtime process.
pub(crate) fn without_cowork_env(command: &mut tokio::process::Command) {
    for (key, _) in std::env::vars_os() {
        if is_cowork_var(&key) {
            command.env_remove(&key);
        }
    }
}

/// Everything the child does between its creation and exec, made beforehand: the child shares
/// (Linux) or has just copied (elsewhere) a multi-threaded daemon's memory, where another
/// thread may hold the allocator's lock, so it allocates nothing and only makes system calls.
struct Plan {
    program: CString,
    cwd: CString,
    /// Pointers into `_strings`, null-terminated, as execve takes them.
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    _strings: Vec<CString>,
    /// The fds to place on the child's first descriptors.
    fds: Fds,
    daemon: libc::pid_t,
    confinement: Option<Prepared>,
    /// The namespaces this attempt creates the child in (`clone` flags; 0: none).
    namespaces: AtomicI32,
    /// Set when the child could not be created in, or enter, its namespaces.
    namespaces_failed: AtomicBool,
    /// The errno of the step that failed in the child; 0 while none has.
    failed: AtomicI32,
}

// SAFETY: the raw pointers point into `_strings`, which the plan owns and which move with it.
unsafe impl Send for Plan {}

impl Plan {
    fn new(
        spec: &Spawn<'_>,
        env: &[(OsString, OsString)],
        fds: Fds,
        confinement: Option<Prepared>,
    ) -> io::Result<Plan> {
        let c = |bytes: &[u8]| CString::new(bytes).map_err(io::Error::other);
        let program = c(spec.program.as_os_str().as_bytes())?;
        let args = std::iter::once(Ok(program.clone()))
            .chain(spec.args.iter().map(|a| c(a.as_bytes())))
            .collect::<io::Result<Vec<_>>>()?;
        let vars = env
            .iter()
            .map(|(k, v)| c(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect::<io::Result<Vec<_>>>()?;
        let pointers = |strings: &[CString]| {
            strings.iter().map(|s| s.as_ptr()).chain([std::ptr::null()]).collect::<Vec<_>>()
        };
        let (argv, envp) = (pointers(&args), pointers(&vars));
        Ok(Plan {
            program,
            cwd: c(spec.cwd.as_os_str().as_bytes())?,
            argv,
            envp,
            _strings: args.into_iter().chain(vars).collect(),
            fds,
            daemon: std::process::id() as libc::pid_t,
            confinement,
            namespaces: AtomicI32::new(0),
            namespaces_failed: AtomicBool::new(false),
            failed: AtomicI32::new(0),
        })
    }

    /// Creates the child and returns once it has exec'd (or failed, then reaped): in the
    /// namespaces its confinement asks for, or — when the system refuses them — once more
    /// without, as every later child will be.
    fn start(&self) -> io::Result<u32> {
        let namespaces = self.confinement.as_ref().map_or(0, Prepared::clone_flags);
        match self.attempt(namespaces) {
            Err(error) if self.namespaces_failed.load(Ordering::Acquire) => {
                confine::namespaces_refused(&error);
                self.namespaces_failed.store(false, Ordering::Release);
                self.failed.store(0, Ordering::Release);
                self.attempt(0)
            }
            started => started,
        }
    }

    /// One creation of the child, in the `namespaces` given (`clone` flags).
    fn attempt(&self, namespaces: libc::c_int) -> io::Result<u32> {
        self.namespaces.store(namespaces, Ordering::Release);
        // No signal handler of the daemon's may run in the child, which shares its memory: all
        // are blocked across the creation; the child resets them before it unblocks.
        // SAFETY: sigfillset and pthread_sigmask on sets on this stack.
        let saved = unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut saved: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut saved);
            saved
        };
        let created = self.create(namespaces);
        // SAFETY: restores this thread's own mask, saved above.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &saved, std::ptr::null_mut()) };
        let pid = created.inspect_err(|error| {
            // What clone answers when the system does not let this user have namespaces.
            let refused = [libc::EPERM, libc::EINVAL, libc::ENOSPC, libc::EUSERS];
            if namespaces != 0 && error.raw_os_error().is_some_and(|e| refused.contains(&e)) {
                self.namespaces_failed.store(true, Ordering::Release);
            }
        })?;
        match self.failed.load(Ordering::Acquire) {
            0 => Ok(pid as u32),
            errno => {
                // SAFETY: reaps the child that just failed (it has exited, or is about to).
                unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
                Err(io::Error::from_raw_os_error(errno))
            }
        }
    }

    /// The child's side: places its fds, leads a group of its own, moves to its folder, ties its
    /// life to the daemon's, confines itself and execs. Returns only on failure.
    ///
    /// # Safety
    /// Only in a child just created from this plan, before exec.
    unsafe fn in_child(&self) -> io::Error {
        let last = io::Error::last_os_error;
        // The sources first go above fd 9, so that placing them on 0 to 5 cannot overwrite one
        // that happens to sit on one of those numbers; dup2 clears close-on-exec on the copies.
        let (fds, used) = self.fds.list();
        let mut high = [0i32; 6];
        for (high, fd) in high.iter_mut().zip(fds).take(used) {
            *high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
            if *high < 0 {
                return last();
            }
        }
        for (target, fd) in (0..).zip(high).take(used) {
            if libc::dup2(fd, target) < 0 {
                return last();
            }
        }
        // Nothing else the daemon holds may reach the routine: a descriptor it inherited without
        // close-on-exec (from the shell or service manager that started it) or that a library
        // beside it opened so (the desktop app's GTK and WebKit) would hand the routine a file
        // or socket Landlock never sees, as it checks opening, not reading what is open.
        close_on_exec_from(used as RawFd);
        let grouped = match self.fds {
            Fds::Routine(_) => libc::setpgid(0, 0) == 0,
            // A new session (and group) whose controlling terminal is the one on fd 0.
            Fds::Terminal(_) => libc::setsid() >= 0 && libc::ioctl(0, libc::TIOCSCTTY as _, 0) == 0,
        };
        if !grouped || libc::chdir(self.cwd.as_ptr()) != 0 {
            return last();
        }
        // If the daemon dies (even by kill -9), the routine's runtime dies with it instead of
        // running on unsupervised, with nobody to answer its ctx or record it. Linux sends this
        // when the *thread* that created the child exits, hence `on_spawner_thread`.
        #[cfg(target_os = "linux")]
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // A daemon killed before the line above sent no signal: the child was reparented
        // already, and would live on unsupervised (spares start in the background, so a kill
        // often lands mid-spawn).
        if libc::getppid() != self.daemon {
            return io::Error::from_raw_os_error(libc::ESRCH);
        }
        // An orphan below the runtime is reparented to it (kept across exec), not to init,
        // where the tree kill would no longer find it.
        #[cfg(target_os = "linux")]
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        // Handlers are the daemon's code: back to the default before signals are let in (exec
        // would reset them, but only at exec). SIGPIPE too, which Rust programs ignore.
        for signal in 1..32 {
            let mut action: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut action) == 0
                && (action.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
                && action.sa_sigaction != libc::SIG_DFL
            {
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        // Last, so that nothing above needs a right the domain lacks (Landlock also forbids
        // mounting, so the namespaces come first).
        if let Some(confinement) = &self.confinement {
            if self.namespaces.load(Ordering::Acquire) != 0 {
                if let Err(error) = confinement.enter_namespaces() {
                    self.namespaces_failed.store(true, Ordering::Release);
                    return error;
                }
            }
            if let Err(error) = confinement.enter() {
                return error;
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::execve(self.program.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr());
        last()
    }

    /// The child's side in full: the errno it failed with (a child that exec'd never returns).
    fn child_failure(&self) -> i32 {
        // SAFETY: called only in the new child, before exec.
        unsafe { self.in_child() }.raw_os_error().unwrap_or(libc::EINVAL)
    }

    #[cfg(target_os = "linux")]
    fn create(&self, namespaces: libc::c_int) -> io::Result<libc::pid_t> {
        extern "C" fn entry(plan: *mut libc::c_void) -> libc::c_int {
            // SAFETY: `plan` is the `&Plan` passed to clone below, alive until it returns (the
            // parent is suspended until the child execs or exits).
            let plan = unsafe { &*(plan as *const Plan) };
            plan.failed.store(plan.child_failure(), Ordering::Release);
            // SAFETY: _exit ends the child at once, running nothing of the daemon's (no atexit).
            unsafe { libc::_exit(127) }
        }
        // The child's stack. One serves every child: they are created on the spawner thread
        // alone, which CLONE_VFORK suspends until the child has exec'd or exited.
        thread_local! {
            static STACK: std::cell::RefCell<Vec<u128>> =
                std::cell::RefCell::new(vec![0; 64 * 1024 / 16]);
        }
        STACK.with_borrow_mut(|stack| {
            // SAFETY: the stack is ours and 16-byte aligned (u128); it grows down from its end.
            // CLONE_VM | CLONE_VFORK: the child runs in our memory, this thread waits until it
            // has exec'd or exited; SIGCHLD makes it an ordinary child to wait for.
            let pid = unsafe {
                let top = stack.as_mut_ptr().add(stack.len()) as *mut libc::c_void;
                libc::clone(
                    entry,
                    top,
                    libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | namespaces,
                    self as *const Plan as *mut libc::c_void,
                )
            };
            if pid < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(pid)
            }
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn create(&self, _namespaces: libc::c_int) -> io::Result<libc::pid_t> {
        use std::io::Read;
        // A fork copies `failed`: the child reports on a pipe instead, which its exec closes.
        let (mut report_r, report_w) = io::pipe()?;
        // SAFETY: the child only runs `child_failure`, which makes system calls, then writes its
        // errno and exits without running anything of the daemon's.
        match unsafe { libc::fork() } {
            -1 => Err(io::Error::last_os_error()),
            0 => unsafe {
                let errno = self.child_failure();
                libc::write(report_w.as_raw_fd(), (&errno as *const i32).cast(), 4);
                libc::_exit(127)
            },
            pid => {
                drop(report_w);
                let mut errno = [0u8; 4];
                if report_r.read_exact(&mut errno).is_ok() {
                    self.failed.store(i32::from_ne_bytes(errno), Ordering::Release);
                }
                Ok(pid)
            }
        }
    }
}

/// Marks every descriptor from `first` up close-on-exec, in the child before exec: marked rather
/// than closed, as the Landlock ruleset (and, without `clone`, the report pipe) is still used
/// until exec, and exec closes them. Only system calls, nothing allocated.
///
/// # Safety
/// Only in a child just created from a plan, before exec.
unsafe fn close_on_exec_from(first: RawFd) {
    #[cfg(target_os = "linux")]
    {
        // One call since Linux 5.11 (Landlock needs 5.13).
        let all = libc::syscall(
            libc::SYS_close_range,
            first as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
        if all == 0 {
            return;
        }
    }
    // Elsewhere, or an older kernel: each possible descriptor, up to the file limit.
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    let last = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
        RawFd::try_from(limit.rlim_cur).unwrap_or(RawFd::MAX).min(1 << 20)
    } else {
        1 << 16
    };
    for fd in first..last {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
            libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
        }
    }
}

type SpawnJob = Box<dyn FnOnce() + Send>;

/// Creates children on one thread that lives as long as the process. PR_SET_PDEATHSIG fires when
/// the creating thread ends, and tokio's blocking-pool threads end after 10 s idle: a routine
/// started from one of them was killed 10 s into its run.
async fn on_spawner_thread(plan: Plan) -> io::Result<Child> {
    static SPAWNER: OnceLock<mpsc::Sender<SpawnJob>> = OnceLock::new();
    let jobs = SPAWNER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<SpawnJob>();
        std::thread::Builder::new()
            .name("cowork-spawner".into())
            .spawn(move || queue.into_iter().for_each(|job| job()))
            .expect("the OS starts one more thread at start-up");
        jobs
    });
    // The child is owned (and its exit watched) on the caller's runtime.
    let runtime = tokio::runtime::Handle::current();
    let (answer, done) = tokio::sync::oneshot::channel();
    let job: SpawnJob = Box::new(move || {
        let _entered = runtime.enter();
        let _ = answer.send(plan.start().map(Child::started));
    });
    jobs.send(job).map_err(|_| io::Error::other("the process spawner thread is gone"))?;
    done.await.map_err(|_| io::Error::other("the process spawner thread is gone"))?
}

/// A started routine process. It is reaped only by [`Child::wait`] or [`Child::try_wait`], so
/// that until then its pid (and group id) stays its own for [`Tree::kill`]; dropped unreaped, it
/// is killed and reaped in the background.
pub struct Child {
    pub stdin: Option<pipe::Sender>,
    pub stdout: Option<pipe::Receiver>,
    pub stderr: Option<pipe::Receiver>,
    pid: u32,
    exit: Arc<Exit>,
    reaped: Option<ExitStatus>,
}

impl Child {
    /// The child `pid`, just started, its pipes not yet attached.
    fn started(pid: u32) -> Child {
        Child { stdin: None, stdout: None, stderr: None, pid, exit: Exit::watch(pid), reaped: None }
    }

    /// Its pid, until it is reaped.
    pub fn id(&self) -> Option<u32> {
        self.reaped.is_none().then_some(self.pid)
    }

    /// Waits for it to exit, and reaps it.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.reaped {
            return Ok(status);
        }
        self.exit.exited().await;
        self.reap()
    }

    /// Waits for it to exit, without reaping it: its tree can still be killed by its pid.
    pub async fn exited(&self) {
        self.exit.exited().await;
    }

    /// Reaps it if it has exited.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if self.reaped.is_none() && !self.exit.has_exited() {
            return Ok(None);
        }
        self.reap().map(Some)
    }

    fn reap(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.reaped {
            return Ok(status);
        }
        let status = reap(self.pid)?;
        self.reaped = Some(status);
        Ok(status)
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if self.reaped.is_none() {
            // Not reaped, so the pid is still this process's.
            signal(self.pid as libc::pid_t, libc::SIGKILL);
            self.exit.abandon(self.pid);
        }
    }
}

/// Blocking wait for `pid`'s end: its status, and no more zombie.
fn reap(pid: u32) -> io::Result<ExitStatus> {
    let mut status = 0;
    // SAFETY: waits on our own child, writing its status into a local.
    match unsafe { libc::waitpid(pid as libc::pid_t, &mut status, 0) } {
        -1 => Err(io::Error::last_os_error()),
        _ => Ok(ExitStatus::from_raw(status)),
    }
}

/// Whether a child has exited, learnt without reaping it (`waitid` with `WNOWAIT`, on a thread
/// of tokio's blocking pool): reaping is left to its owner, who must first kill its tree.
struct Exit {
    state: parking_lot::Mutex<ExitState>,
    notify: tokio::sync::Notify,
}

#[derive(PartialEq)]
enum ExitState {
    Running,
    Exited,
    /// Its owner is gone: whoever sees the exit reaps it.
    Abandoned,
}

impl Exit {
    fn watch(pid: u32) -> Arc<Exit> {
        let exit = Arc::new(Exit {
            state: parking_lot::Mutex::new(ExitState::Running),
            notify: tokio::sync::Notify::new(),
        });
        let watched = exit.clone();
        tokio::task::spawn_blocking(move || {
            // SAFETY: waits on our own child without reaping it (WNOWAIT), into a local.
            unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                while libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) != 0
                    && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
                {
                }
            }
            let mut state = watched.state.lock();
            if *state == ExitState::Abandoned {
                let _ = reap(pid);
            } else {
                *state = ExitState::Exited;
                watched.notify.notify_one();
            }
        });
        exit
    }

    fn has_exited(&self) -> bool {
        *self.state.lock() == ExitState::Exited
    }

    async fn exited(&self) {
        // notify_one keeps a permit for a waiter that comes later.
        if !self.has_exited() {
            self.notify.notified().await;
        }
    }

    /// Hands the reap of `pid` to whoever sees its exit.
    fn abandon(&self, pid: u32) {
        let mut state = self.state.lock();
        match *state {
            ExitState::Exited => {
                let _ = reap(pid);
            }
            _ => *state = ExitState::Abandoned,
        }
    }
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
    let stat = read_proc(stat);
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
        .map(|task| read_proc(&task.join("children")))
        .flat_map(|text| {
            text.split_whitespace().filter_map(|p| p.parse().ok()).collect::<Vec<u32>>()
        })
        .collect()
}

/// A small `/proc` file as text ("" when it cannot be read). Read into a buffer of a page: a
/// `/proc` file has no size, so `read_to_string` probed it in reads of 32, 32, 64, 128… bytes,
/// five or six calls where this makes two, for each thread of the tree on every run's path.
fn read_proc(path: &Path) -> String {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else { return String::new() };
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => text.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return String::new(),
        }
    }
    String::from_utf8(text).unwrap_or_default()
}

fn signal(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill(2) has no memory effects; a negative pid addresses the group the child leads
    // (it was started with process_group(0)), and a process already gone just returns ESRCH.
    unsafe {
        libc::kill(pid, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    struct Folders {
        workspace: tempfile::TempDir,
        root: tempfile::TempDir,
        runner: PathBuf,
    }

    fn folders() -> Folders {
        let root = tempfile::tempdir().unwrap();
        let runner = root.path().join("runner/runner.mjs");
        std::fs::create_dir_all(runner.parent().unwrap()).unwrap();
        std::fs::write(&runner, "").unwrap();
        Folders { workspace: tempfile::tempdir().unwrap(), root, runner }
    }

    async fn start(
        folders: &Folders,
        program: &Path,
        script: &str,
    ) -> io::Result<(Child, Channels)> {
        let args = [OsString::from("-c"), OsString::from(script)];
        let env = [("GREETING".to_string(), "hello".to_string())];
        spawn(Spawn {
            program,
            args: &args,
            cwd: folders.workspace.path(),
            env: &env,
            reach: Reach {
                workspace: folders.workspace.path(),
                runner: &folders.runner,
                cowork_root: folders.root.path(),
            },
        })
        .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_child_gets_its_pipes_its_folder_and_its_environment() {
        let folders = folders();
        let script = r#"read line; echo "$line $GREETING from $(pwd)"; echo request >&3; read answer <&5; echo "$answer" >&2; exit 7"#;
        let (mut child, mut channels) =
            start(&folders, Path::new("/bin/sh"), script).await.unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"inputs\n").await.unwrap();
        drop(stdin);
        let mut request = [0u8; 8];
        channels.requests.read_exact(&mut request).await.unwrap();
        assert_eq!(&request, b"request\n");
        channels.sync_answers.write_all(b"answered\n").await.unwrap();
        let (mut out, mut err) = (String::new(), String::new());
        child.stdout.take().unwrap().read_to_string(&mut out).await.unwrap();
        child.stderr.take().unwrap().read_to_string(&mut err).await.unwrap();
        let folder = folders.workspace.path().canonicalize().unwrap();
        assert_eq!(out, format!("inputs hello from {}\n", folder.display()));
        assert_eq!(err, "answered\n");
        assert_eq!(child.wait().await.unwrap().code(), Some(7));
        assert_eq!(child.id(), None, "a reaped child has no pid any more");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_child_gets_no_descriptor_the_daemon_holds_open_across_exec() {
        let folders = folders();
        let file = std::fs::File::open(folders.runner.as_path()).unwrap();
        // A copy without close-on-exec, as a daemon inherits one from its shell.
        // SAFETY: dup of an fd we own returns a new fd (or -1), closed below.
        let inherited = unsafe { libc::dup(file.as_raw_fd()) };
        assert!(inherited > 5, "{inherited}");
        let script = format!(
            "for fd in 3 4 5 {inherited}; do [ -e /proc/$$/fd/$fd ] && echo \"$fd open\" || echo \"$fd closed\"; done"
        );
        let (mut child, _channels) = start(&folders, Path::new("/bin/sh"), &script).await.unwrap();
        // SAFETY: closes the copy made above, which nothing else uses.
        unsafe { libc::close(inherited) };
        let mut out = String::new();
        child.stdout.take().unwrap().read_to_string(&mut out).await.unwrap();
        child.wait().await.unwrap();
        assert_eq!(out, format!("3 open\n4 open\n5 open\n{inherited} closed\n"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_program_that_cannot_start_is_an_error_with_its_cause() {
        let folders = folders();
        let missing = start(&folders, Path::new("/nowhere/bun"), "").await.err().unwrap();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let not_a_program = start(&folders, folders.workspace.path(), "").await.err().unwrap();
        assert_eq!(not_a_program.raw_os_error(), Some(libc::EACCES));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_start_whose_run_went_away_meanwhile_leaves_no_process() {
        let folders = folders();
        // A duration no other process has in its command line.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
        let duration = format!("30.{}", nanos.subsec_nanos());
        // Polled once, then dropped: the spawner thread creates the child after, or just before,
        // nobody waits any more.
        let script = format!("exec sleep {duration}");
        let dropped = tokio::time::timeout(
            std::time::Duration::ZERO,
            start(&folders, Path::new("/bin/sh"), &script),
        );
        let _ = dropped.await;
        let ours = || {
            std::fs::read_dir("/proc").unwrap().filter_map(Result::ok).any(|entry| {
                std::fs::read(entry.path().join("cmdline"))
                    .is_ok_and(|line| String::from_utf8_lossy(&line).contains(&duration))
            })
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        // Give the spawner thread its turn, then the process must be gone (killed and reaped).
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        while ours() {
            assert!(std::time::Instant::now() < deadline, "the child was left behind");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_child_dropped_unreaped_is_killed_and_reaped() {
        let folders = folders();
        let (child, _channels) =
            start(&folders, Path::new("/bin/sh"), "exec sleep 30").await.unwrap();
        let pid = child.id().unwrap();
        drop(child);
        // Gone from /proc only once reaped: a zombie keeps its entry.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while Path::new(&format!("/proc/{pid}")).exists() {
            assert!(std::time::Instant::now() < deadline, "{pid} was left running or a zombie");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}
