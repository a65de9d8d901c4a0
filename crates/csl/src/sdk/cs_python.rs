//! `cs-python script.py args...`: runs a host script with `python3`, the
//! shim ([`super::shim`]) first on `PYTHONPATH` and the environment variable
//! `NPUSIM_SDK_SOCKET` naming a Unix socket on which this process serves the script's
//! runtime calls ([`super::bridge`]) until the script ends.
//!
//! Why a shim and a socket rather than the Python extension: the script needs only
//! `python3` and numpy, the simulator runs in this process (so `--trace` and the run's
//! statistics come back here without crossing into Python), and the shim is built into the
//! binary, so it always matches the runtime that serves it.

use std::ffi::OsString;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use thiserror::Error;

use super::bridge::{Bridge, RunSummary};
use super::shim;

/// The environment variable naming the socket.
pub const SOCKET_ENV: &str = "NPUSIM_SDK_SOCKET";

/// What to run.
#[derive(Clone, Debug)]
pub struct CsPython {
    /// The interpreter (`python3` unless given).
    pub python: OsString,
    /// The script.
    pub script: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Record each runtime's trace.
    pub trace: bool,
}

/// How the script ended and what its runtimes did.
#[derive(Debug)]
pub struct CsPythonOutcome {
    /// The interpreter's exit status.
    pub status: ExitStatus,
    /// Each runtime the script opened, in order.
    pub runs: Vec<RunSummary>,
}

impl CsPythonOutcome {
    /// The exit status to give back: the script's, or 128 + the signal that ended it.
    pub fn exit_code(&self) -> u8 {
        use std::os::unix::process::ExitStatusExt;
        match (self.status.code(), self.status.signal()) {
            (Some(c), _) => c.clamp(0, 255) as u8,
            (None, Some(sig)) => (128 + sig).clamp(0, 255) as u8,
            (None, None) => 1,
        }
    }
}

/// Why the script could not be run.
#[derive(Debug, Error)]
pub enum CsPythonError {
    /// Setting up the shim or the socket failed.
    #[error("cannot prepare {}: {source}", path.display())]
    Setup {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The interpreter did not start.
    #[error("cannot start {}: {source}", python.to_string_lossy())]
    Spawn {
        /// The interpreter.
        python: OsString,
        /// Why.
        source: std::io::Error,
    },
    /// Waiting for the interpreter failed.
    #[error("waiting for the script failed: {0}")]
    Wait(std::io::Error),
}

static RUNS: AtomicU64 = AtomicU64::new(0);

/// A temporary directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn setup(path: &Path) -> impl FnOnce(std::io::Error) -> CsPythonError + '_ {
    move |source| CsPythonError::Setup {
        path: path.to_path_buf(),
        source,
    }
}

impl CsPython {
    /// Runs the script to its end, serving its runtime calls.
    pub fn run(&self) -> Result<CsPythonOutcome, CsPythonError> {
        let dir = TempDir(std::env::temp_dir().join(format!(
            "npusim-cs-python-{}-{}",
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        )));
        std::fs::create_dir_all(&dir.0).map_err(setup(&dir.0))?;
        let package = dir.0.join("python");
        shim::write(&package).map_err(setup(&package))?;
        let socket = dir.0.join("sdk.sock");
        let listener = UnixListener::bind(&socket).map_err(setup(&socket))?;
        let mut pythonpath = OsString::from(package.as_os_str());
        if let Some(old) = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty()) {
            pythonpath.push(":");
            pythonpath.push(old);
        }
        let trace = self.trace;
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        let server = std::thread::spawn(move || {
            let mut bridge = Bridge::new(trace);
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                if finished.load(Ordering::SeqCst) {
                    break;
                }
                // a connection that breaks ends with it; the script sees its own error
                let _ = bridge.serve(stream);
            }
            bridge.summaries()
        });
        let child = Command::new(&self.python)
            .arg(&self.script)
            .args(&self.args)
            .env("PYTHONPATH", &pythonpath)
            .env(SOCKET_ENV, &socket)
            .spawn();
        let status = match child {
            Ok(mut c) => c.wait().map_err(CsPythonError::Wait),
            Err(source) => Err(CsPythonError::Spawn {
                python: self.python.clone(),
                source,
            }),
        };
        // the script has ended: wake the server with a connection of this process
        done.store(true, Ordering::SeqCst);
        let _ = UnixStream::connect(&socket);
        let runs = server.join().unwrap_or_default();
        Ok(CsPythonOutcome {
            status: status?,
            runs,
        })
    }
}

/// npusim's own options among a script's arguments, and the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostOptions {
    /// `--trace FILE` / `--trace=FILE`: write the Chrome trace of the last runtime there.
    pub trace: Option<PathBuf>,
    /// `--stats`: print each PE's statistics after the script.
    pub stats: bool,
    /// The script's own arguments, in order.
    pub rest: Vec<OsString>,
}

/// Takes `--trace FILE` (or `--trace=FILE`) and `--stats` out of a script's arguments: the
/// options are npusim's wherever they stand, the rest go to the script. A `--trace` without
/// a file is an error.
pub fn split_options(args: &[OsString]) -> Result<HostOptions, String> {
    let mut o = HostOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--trace" {
            let f = it.next().ok_or("--trace needs a file name")?;
            o.trace = Some(PathBuf::from(f));
        } else if let Some(f) = a.to_str().and_then(|s| s.strip_prefix("--trace=")) {
            o.trace = Some(PathBuf::from(f));
        } else if a == "--stats" {
            o.stats = true;
        } else {
            o.rest.push(a.clone());
        }
    }
    Ok(o)
}

/// The lines npusim prints (on standard error) after the script: each runtime's `<simprint>`
/// lines (the simulator's log), its cycles and
/// trace hash and, with `stats`, each PE's busy cycles, stalls, elements, tasks started and
/// queue high-water marks (as `npusim cerebras run` prints them).
pub fn summary(runs: &[RunSummary], stats: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for r in runs {
        for line in &r.simprint {
            let _ = writeln!(s, "npusim: {}: simprint: {line}", r.out_dir.display());
        }
        let Some(rep) = &r.report else {
            let _ = writeln!(s, "npusim: {}: not run", r.out_dir.display());
            continue;
        };
        let _ = writeln!(
            s,
            "npusim: {}: {} cycles, trace hash {:016x}",
            r.out_dir.display(),
            rep.cycles,
            rep.trace_hash
        );
        if !stats {
            continue;
        }
        let _ = writeln!(
            s,
            "{:<10} {:>6} {:>6} {:>8} {:>5}  queue high water (input | output)",
            "PE", "busy", "stalls", "elements", "tasks"
        );
        for p in &rep.pes {
            let q = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
            let _ = writeln!(
                s,
                "{:<10} {:>6} {:>6} {:>8} {:>5}  {} | {}",
                format!("({}, {})", p.x, p.y),
                p.busy_cycles,
                p.stalls,
                p.elements,
                p.tasks_started,
                q(&p.input_high_water),
                q(&p.output_high_water)
            );
        }
    }
    s
}
