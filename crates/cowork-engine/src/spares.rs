//! Runtime processes on `runner.mjs`, started cold for a run or ahead of demand as warm spares.
//!
//! Starting Bun on any file costs it ~25 ms before the first line of the runner runs; a spare has
//! paid that before its run is asked for. A spare still serves exactly ONE run and then exits like
//! any run's process, so "a fresh process per run" holds: it is started with nothing of a run — no
//! run id, no arguments, no routine loaded — and reads the run's inputs on its stdin once it is
//! claimed (then end-of-file: nobody else can write there); an edited routine is staged and
//! imported by the run that claims it. What a process cannot change after it starts — the runtime, the
//! workspace (its working folder and its confinement, `confine.rs`) and the environment — is its
//! [`Key`], and a spare serves only runs of its key. Cold starts and spares go through the same
//! [`start`], so a spare is confined exactly as a cold start for that workspace is.
//!
//! Sizing: a key keeps as many spares as it started runs in the last second (at least one while
//! it ran anything in the last [`IDLE`]), within [`PER_KEY`], [`MAX_SPARES`] in all and
//! [`MEMORY_BUDGET`] of resident memory; a key idle for [`IDLE`] keeps none. No spare is started
//! while a cold start of its key is under way: runs outnumber spares then (a burst), and a spare
//! started beside them would only compete with the starts those runs wait for, and be claimed by
//! none of them. A key is topped up when one of its runs ends, not when the run is given its
//! process: a spare starting beside a run slowed that run (two cores), and in a burst the spares
//! started as its first requests claimed the waiting ones served none of the rest. Spares start
//! on idle cores only: runs in flight and spares being started together stay below the number of
//! cores, and a spare that is up tops its key up again. So the last runs of a burst do not share
//! their cores with the spares started after it. Spares are off unless the engine's config turns
//! them on (the daemon does, unless `config.json` says `"spares": false`).

use crate::confine::Reach;
use crate::process::{self, Channels, Child, Spawn, Tree};
use crate::runtime::{Runtime, RuntimeKind};
use cowork_core::paths::Root;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once, Weak};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::unix::pipe;

/// The routine side of every run, written next to the cache on first use.
const RUNNER: &str = include_str!("runner.mjs");
/// An empty module beside the runner, which the runner imports before it reads its run: Bun's
/// first import of a file module sets up its module loader, ~0.3 ms that a spare so pays before
/// its run instead of in the run's own import (a cold start pays it either way).
const WARM_MODULE: &str = "warm.mjs";
/// Where Bun looks for what it transpiled of a file at an earlier start (keyed by content). Its
/// default, under the person's home, is out of a confined routine's reach, so every start
/// transpiled the whole runner again: ~2 ms of CPU and ~4 ms to the result here.
const BUN_CACHE_ENV: &str = "BUN_RUNTIME_TRANSPILER_CACHE_PATH";
/// A key that ran nothing for this long keeps no spare.
pub const IDLE: Duration = Duration::from_secs(60);
/// The most spares one key keeps.
pub const PER_KEY: usize = 4;
/// The most spares kept in all.
pub const MAX_SPARES: usize = 8;
/// The resident memory all waiting spares may hold together; no spare is added past it.
pub const MEMORY_BUDGET: u64 = 384 << 20;
/// How often idle keys and dead spares are swept.
const SWEEP: Duration = Duration::from_secs(5);

/// Why a runtime process could not be started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    /// `runner.mjs` could not be written into the cache.
    #[error("failed to write the routine runner: {0}")]
    Runner(std::io::Error),
    /// The runtime did not start.
    #[error("failed to start {program}: {source}")]
    Spawn { program: PathBuf, source: std::io::Error },
}

/// What a runtime process is specific to once started.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    runtime: PathBuf,
    workspace: PathBuf,
    env: Vec<(String, String)>,
}

impl Key {
    fn new(root: &Root, runtime: &Runtime, workspace: &Path) -> Key {
        let mut env = vec![("COWORK_WORKSPACE".into(), workspace.display().to_string())];
        if runtime.kind == RuntimeKind::Bun {
            env.push((BUN_CACHE_ENV.into(), bun_cache(root, runtime).display().to_string()));
        }
        Key { runtime: runtime.path.clone(), workspace: workspace.to_path_buf(), env }
    }
}

/// A runtime process on `runner.mjs`, started and waiting for its run's inputs on stdin.
pub(crate) struct Waiting {
    // Before `child`, so dropped first: an unclaimed spare's tree is killed before it is reaped.
    tree: Tree,
    child: Child,
    stdin: pipe::Sender,
    channels: Channels,
}

/// A process given its run: the child, its pipes and its tree (killed when dropped), and the run
/// counted in flight until its [`Flight`] is handed to [`Spares::ended`] or dropped.
pub(crate) struct Claimed {
    pub tree: Tree,
    pub child: Child,
    pub channels: Channels,
    pub flight: Flight,
}

/// One run counted in flight, from its claim until it ends or is dropped (a run given up halfway
/// must not keep the count, or spares would wait for a core that is idle).
pub(crate) struct Flight(Arc<Pool>);

impl Flight {
    fn new(pool: &Arc<Pool>) -> Flight {
        pool.in_flight.fetch_add(1, Ordering::Relaxed);
        Flight(pool.clone())
    }
}

impl Drop for Flight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Waiting {
    /// Gives this process its run: the run's inputs, then end-of-file on its stdin. Fails when
    /// the process is gone (a spare that died while it waited).
    async fn claim(mut self, inputs: &[u8], flight: Flight) -> std::io::Result<Claimed> {
        self.stdin.write_all(inputs).await?;
        drop(self.stdin);
        Ok(Claimed { tree: self.tree, child: self.child, channels: self.channels, flight })
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Resident memory in bytes, from `/proc/<pid>/statm` (0 where there is none).
    fn resident(&self) -> u64 {
        let Some(pid) = self.child.id() else { return 0 };
        let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
        let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
        pages * 4096
    }
}

/// Starts a runtime on `runner.mjs` in `workspace`, with the environment and confinement of that
/// workspace's runs and nothing of any run.
async fn start(root: &Root, runtime: &Runtime, workspace: &Path) -> Result<Waiting, StartError> {
    let runner = runner_script(root).map_err(StartError::Runner)?;
    if runtime.kind == RuntimeKind::Bun {
        fill_bun_cache(root, runtime, &runner).await;
    }
    let (program, args) = crate::runtime::command(runtime, &runner);
    let key = Key::new(root, runtime, workspace);
    let reach = Reach { workspace, runner: &runner, cowork_root: root.dir() };
    let spec = Spawn { program: &program, args: &args, cwd: workspace, env: &key.env, reach };
    let (mut child, channels) =
        process::spawn(spec).await.map_err(|source| StartError::Spawn { program, source })?;
    let stdin = child.stdin.take().expect("process::spawn pipes stdin");
    Ok(Waiting { tree: Tree::new(child.id()), child, stdin, channels })
}

/// What names this build's `runner.mjs` among the ones earlier builds left in the cache.
fn runner_hash() -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(RUNNER.as_bytes())[..6])
}

/// Writes `runner.mjs` into the cache once per content and returns its path. It has a folder of
/// its own: a confined routine is granted that folder (its runtime reads it), nothing else of the
/// root.
pub(crate) fn runner_script(root: &Root) -> std::io::Result<PathBuf> {
    let path = root.cache_dir().join("runner").join(format!("runner-{}.mjs", runner_hash()));
    if !path.is_file() {
        cowork_core::fs_atomic::write(&path, RUNNER.as_bytes(), false)?;
    }
    let warm = path.with_file_name(WARM_MODULE);
    if !warm.is_file() {
        cowork_core::fs_atomic::write(&warm, b"export {};\n", false)?;
    }
    Ok(path)
}

/// Bun's transpiler cache for the runner: inside the runner's folder, which a confined routine may
/// read (so it finds the runner there) but not write (so no routine can plant code in another's
/// runner); one per Bun version and runner, since a cache is filled once: keyed by the version
/// alone, a Cowork update's new runner found its folder made and was transpiled at every start.
fn bun_cache(root: &Root, runtime: &Runtime) -> PathBuf {
    let name = format!("transpiled-{}-{}", runtime.version, runner_hash());
    root.cache_dir().join("runner").join(name)
}

/// Fills [`bun_cache`] once (its folder is made first, so a start never tries twice): an
/// unconfined Bun on the runner with no run to serve (end-of-file at once, so it exits)
/// transpiles it and writes the cache that confined starts then read. Without it runs still
/// work, only slower: a failure is logged, never raised.
async fn fill_bun_cache(root: &Root, runtime: &Runtime, runner: &Path) {
    let cache = bun_cache(root, runtime);
    if cache.is_dir() {
        return;
    }
    if let Err(error) = std::fs::create_dir_all(&cache) {
        tracing::warn!(%error, cache = %cache.display(), "Bun's cache of the runner was not made");
        return;
    }
    let (program, args) = crate::runtime::command(runtime, runner);
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(runner.parent().unwrap_or(runner))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    process::without_cowork_env(&mut command);
    let filled = command.env(BUN_CACHE_ENV, &cache).status().await;
    if !matches!(filled, Ok(status) if status.success()) {
        tracing::warn!(?filled, cache = %cache.display(), "Bun's cache of the runner was not filled");
    }
}

/// The spares one key keeps, and its recent runs.
#[derive(Default)]
struct Kept {
    /// Oldest first: a run takes the spare that has waited longest, the one most surely done
    /// starting. The newest is most often the one topped up as the last run ended, which on a
    /// busy machine may still be starting its runtime (and the run would wait for it).
    waiting: VecDeque<Waiting>,
    /// Spares being started for this key.
    starting: usize,
    /// Cold starts of this key under way (see the module's doc).
    cold: usize,
    /// When this key's runs started, the last second of them.
    runs: VecDeque<Instant>,
    last_run: Option<Instant>,
}

impl Kept {
    /// How many spares this key should keep now.
    fn wanted(&self, now: Instant) -> usize {
        match self.last_run {
            Some(last) if now.duration_since(last) < IDLE => self.runs.len().clamp(1, PER_KEY),
            _ => 0,
        }
    }
}

/// Every key's spares: one per engine.
pub(crate) struct Spares {
    inner: Arc<Pool>,
}

struct Pool {
    enabled: bool,
    root: Root,
    keys: Mutex<HashMap<Key, Kept>>,
    sweeper: Once,
    /// Runs claimed and not ended, of every key: they share the cores spares would start on.
    in_flight: AtomicUsize,
    cores: usize,
}

pub use cowork_wire::daemon::status::{SpareGroup, SparesView};

impl Spares {
    pub fn new(root: Root, enabled: bool) -> Spares {
        let keys = Mutex::new(HashMap::new());
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let pool = Pool {
            enabled,
            root,
            keys,
            sweeper: Once::new(),
            in_flight: AtomicUsize::new(0),
            cores,
        };
        Spares { inner: Arc::new(pool) }
    }

    /// A process for one run in `workspace`, given the run's `inputs`: a waiting spare of its key
    /// when there is one, else a cold start. The key is topped up when the run ends ([`Spares::ended`]).
    pub async fn claim(
        &self,
        runtime: &Runtime,
        workspace: &Path,
        inputs: &[u8],
    ) -> Result<Claimed, StartError> {
        let pool = &self.inner;
        let flight = Flight::new(pool);
        if pool.enabled {
            let key = Key::new(&pool.root, runtime, workspace);
            let flight = match pool.take(&key) {
                Some(spare) => match spare.claim(inputs, flight).await {
                    Ok(claimed) => return Ok(claimed),
                    // A spare that died while it waited is passed over for a cold start (the
                    // failed claim let go of the run's count: it is counted anew).
                    Err(_) => {
                        pool.cold(&key, 1);
                        Flight::new(pool)
                    }
                },
                None => flight,
            };
            let cold = self.cold_start(runtime, workspace, inputs, flight).await;
            pool.cold(&key, -1);
            return cold;
        }
        self.cold_start(runtime, workspace, inputs, flight).await
    }

    /// A run in `workspace` ended and its process is gone: it no longer counts in flight, and the
    /// key's spares are topped up now, not when the run was given its process, so that a spare's
    /// start never shares the CPU with the run it would replace.
    pub fn ended(&self, runtime: &Runtime, workspace: &Path, flight: Flight) {
        drop(flight);
        if self.inner.enabled {
            top_up(&self.inner, runtime, Key::new(&self.inner.root, runtime, workspace));
        }
    }

    async fn cold_start(
        &self,
        runtime: &Runtime,
        workspace: &Path,
        inputs: &[u8],
        flight: Flight,
    ) -> Result<Claimed, StartError> {
        let cold = start(&self.inner.root, runtime, workspace).await?;
        cold.claim(inputs, flight)
            .await
            .map_err(|source| StartError::Spawn { program: runtime.path.clone(), source })
    }

    /// What is kept now.
    pub fn view(&self) -> SparesView {
        let keys = self.inner.keys.lock();
        let groups = keys
            .iter()
            .filter(|(_, kept)| !kept.waiting.is_empty() || kept.starting > 0)
            .map(|(key, kept)| SpareGroup {
                runtime: key.runtime.clone(),
                workspace: key.workspace.clone(),
                waiting: kept.waiting.len(),
                starting: kept.starting,
                resident_bytes: kept.waiting.iter().map(Waiting::resident).sum(),
                pids: kept.waiting.iter().filter_map(|w| w.child.id()).collect(),
            })
            .collect();
        SparesView {
            enabled: self.inner.enabled,
            max: MAX_SPARES,
            memory_budget_bytes: MEMORY_BUDGET,
            groups,
        }
    }
}

/// Starts the spares `key` is short of, in the background, as many as idle cores allow; each one
/// up tops the key up again.
fn top_up(pool: &Arc<Pool>, runtime: &Runtime, key: Key) {
    let weak = Arc::downgrade(pool);
    pool.sweeper.call_once(|| {
        tokio::spawn(sweep(weak));
    });
    for _ in 0..pool.reserve(&key) {
        let (pool, runtime, key) = (pool.clone(), runtime.clone(), key.clone());
        tokio::spawn(async move {
            let started = start(&pool.root, &runtime, &key.workspace).await;
            {
                let mut keys = pool.keys.lock();
                let kept = keys.entry(key.clone()).or_default();
                kept.starting -= 1;
                match started {
                    Ok(spare) => kept.waiting.push_back(spare),
                    Err(error) => {
                        // Not tried again until a run of the key ends: a runtime that cannot
                        // start must not be started in a loop.
                        tracing::warn!(%error, "a warm spare did not start");
                        return;
                    }
                }
            }
            top_up(&pool, &runtime, key);
        });
    }
}

impl Pool {
    /// Takes a live spare of `key` (if any) and counts the run; without one, counts the cold start
    /// the run makes instead.
    fn take(&self, key: &Key) -> Option<Waiting> {
        let now = Instant::now();
        let mut keys = self.keys.lock();
        let kept = keys.entry(key.clone()).or_default();
        kept.last_run = Some(now);
        kept.runs.push_back(now);
        while kept.runs.front().is_some_and(|t| now.duration_since(*t) > Duration::from_secs(1)) {
            kept.runs.pop_front();
        }
        while let Some(mut spare) = kept.waiting.pop_front() {
            if spare.alive() {
                return Some(spare);
            }
        }
        kept.cold += 1;
        None
    }

    /// Counts a cold start of `key` begun (1) or finished (-1); gives how many are under way.
    fn cold(&self, key: &Key, change: isize) -> usize {
        let mut keys = self.keys.lock();
        let kept = keys.entry(key.clone()).or_default();
        kept.cold = kept.cold.saturating_add_signed(change);
        kept.cold
    }

    /// How many spares to start for `key` now (counted as starting), within every cap and on
    /// idle cores only; none beside a cold start of it.
    fn reserve(&self, key: &Key) -> usize {
        let mut keys = self.keys.lock();
        let all: usize = keys.values().map(|k| k.waiting.len() + k.starting).sum();
        let starting: usize = keys.values().map(|k| k.starting).sum();
        let busy = self.in_flight.load(Ordering::Relaxed) + starting;
        let idle_cores = self.cores.saturating_sub(busy);
        let memory: u64 = keys.values().flat_map(|k| &k.waiting).map(Waiting::resident).sum();
        let Some(kept) = keys.get_mut(key) else { return 0 };
        if kept.cold > 0 {
            return 0;
        }
        let have = kept.waiting.len() + kept.starting;
        // Each spare is assumed to grow as large as the biggest one waiting.
        let each = kept.waiting.iter().map(Waiting::resident).max().unwrap_or(0);
        let by_memory = match each {
            0 => usize::MAX,
            each => usize::try_from(MEMORY_BUDGET.saturating_sub(memory) / each).unwrap_or(0),
        };
        let missing = kept
            .wanted(Instant::now())
            .saturating_sub(have)
            .min(MAX_SPARES.saturating_sub(all))
            .min(by_memory)
            .min(idle_cores);
        kept.starting += missing;
        missing
    }

    /// Ends the spares of keys idle for [`IDLE`] and forgets the dead.
    fn sweep(&self) {
        let now = Instant::now();
        let mut ended = Vec::new();
        {
            let mut keys = self.keys.lock();
            for kept in keys.values_mut() {
                if kept.wanted(now) == 0 {
                    ended.extend(kept.waiting.drain(..));
                }
                kept.waiting.retain_mut(Waiting::alive);
            }
            keys.retain(|_, kept| kept.wanted(now) > 0 || kept.starting > 0 || kept.cold > 0);
        }
        // Killed (dropped) outside the lock: a tree kill waits for its processes to stop.
        drop(ended);
    }
}

/// Sweeps every [`SWEEP`] while the engine lives.
async fn sweep(pool: Weak<Pool>) {
    loop {
        tokio::time::sleep(SWEEP).await;
        let Some(pool) = pool.upgrade() else { return };
        pool.sweep();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pool on a machine of `cores` cores.
    fn pool(cores: usize) -> (Arc<Pool>, Key) {
        let key = Key { runtime: "/bun".into(), workspace: "/ws".into(), env: Vec::new() };
        let pool = Pool {
            enabled: true,
            root: Root::new("/nowhere"),
            keys: Mutex::new(HashMap::new()),
            sweeper: Once::new(),
            in_flight: AtomicUsize::new(0),
            cores,
        };
        (Arc::new(pool), key)
    }

    #[test]
    fn no_spare_is_started_beside_a_cold_start_of_its_key_and_the_last_one_tops_it_up() {
        let (pool, key) = pool(8);
        // A burst: three runs find no spare, so three cold starts are under way.
        for _ in 0..3 {
            assert!(pool.take(&key).is_none());
            assert_eq!(pool.reserve(&key), 0, "a spare beside a cold start would compete with it");
        }
        assert_eq!(pool.cold(&key, -1), 2);
        assert_eq!(pool.reserve(&key), 0);
        assert_eq!(pool.cold(&key, -1), 1);
        assert_eq!(pool.cold(&key, -1), 0);
        // The last one done: the key is topped up to its recent rate of runs (3 in the last second).
        assert_eq!(pool.reserve(&key), 3);
        assert_eq!(pool.reserve(&key), 0, "those are counted as starting");
    }

    #[test]
    fn spares_start_on_idle_cores_only() {
        let (pool, key) = pool(2);
        // Four runs in the last second: the key wants four spares.
        for _ in 0..4 {
            assert!(pool.take(&key).is_none());
            pool.cold(&key, -1);
        }
        let runs: Vec<_> = (0..2).map(|_| Flight::new(&pool)).collect();
        assert_eq!(pool.reserve(&key), 0, "both cores run routines");
        drop(runs);
        let last = Flight::new(&pool);
        assert_eq!(pool.reserve(&key), 1, "one core is idle");
        assert_eq!(pool.reserve(&key), 0, "the spare starting on it keeps it busy");
        drop(last);
        assert_eq!(pool.reserve(&key), 1);
        // Each start done frees its core for the next one (the started process itself is left
        // out here: a `Waiting` needs a real one).
        for _ in 0..2 {
            pool.keys.lock().get_mut(&key).unwrap().starting -= 1;
            assert_eq!(pool.reserve(&key), 1);
        }
        assert_eq!(pool.reserve(&key), 0, "two starting: both cores busy");
    }

    #[tokio::test]
    async fn a_run_takes_the_spare_that_has_waited_longest() {
        let Ok(runtime) = crate::runtime::find() else { return };
        let (home, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (pool, _) = pool(2);
        let pool =
            Arc::new(Pool { root: Root::new(home.path()), ..Arc::into_inner(pool).unwrap() });
        let key = Key::new(&pool.root, &runtime, workspace.path());
        let mut started = Vec::new();
        for _ in 0..3 {
            let spare =
                start(&pool.root, &runtime, workspace.path()).await.expect("a spare starts");
            started.push(spare.child.id());
            pool.keys.lock().entry(key.clone()).or_default().waiting.push_back(spare);
        }
        // The newest is the one a run's end just topped up: on a busy machine still starting.
        for pid in started {
            assert_eq!(pool.take(&key).expect("a live spare").child.id(), pid);
        }
    }

    #[tokio::test]
    async fn bun_finds_the_runner_transpiled_in_a_cache_a_confined_process_may_read() {
        let Ok(runtime) = crate::runtime::find() else { return };
        if runtime.kind != RuntimeKind::Bun {
            return;
        }
        let (home, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let root = Root::new(home.path());
        // What an earlier Cowork left: its runner's cache, under the name it used then.
        let earlier =
            root.cache_dir().join("runner").join(format!("transpiled-{}", runtime.version));
        std::fs::create_dir_all(&earlier).unwrap();
        let waiting = start(&root, &runtime, workspace.path()).await.expect("Bun starts");
        let cached: Vec<_> = std::fs::read_dir(bun_cache(&root, &runtime))
            .expect("the cache is filled before the first start")
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".pile"))
            .collect();
        assert_eq!(
            cached.len(),
            1,
            "one entry: this runner, though an earlier one's folder exists"
        );
        let runner = runner_script(&root).unwrap();
        assert!(bun_cache(&root, &runtime).starts_with(runner.parent().unwrap()));
        // The module the runner imports ahead of its run, where a confined process may read it.
        let warm = std::fs::read_to_string(runner.with_file_name(WARM_MODULE)).unwrap();
        assert_eq!(warm, "export {};\n");
        let key = Key::new(&root, &runtime, workspace.path());
        let cache = bun_cache(&root, &runtime).display().to_string();
        assert!(key.env.contains(&(BUN_CACHE_ENV.into(), cache)));
        drop(waiting);
    }
}
