//! Clean interruption: on any signal that would end the process by default, an unfinished
//! output's temporary file is removed before the process exits with 128 + the signal number
//! (130 for Ctrl-C, 131 for Ctrl-\, 143 for SIGTERM, 153 for SIGXFSZ), so an interrupted
//! command leaves nothing behind.
//!
//! The signals handled are those whose default action ends the process and that come from
//! outside the program: HUP INT QUIT TERM USR1 USR2 ALRM VTALRM PROF XCPU XFSZ, and on Linux
//! also PWR, STKFLT, IO (POLL) and the real-time signals SIGRTMIN..=SIGRTMAX. Not handled:
//! SIGPIPE (Rust's runtime ignores it: a write to a closed pipe is an error the command
//! reports), the faults of the program itself (ILL FPE SEGV BUS SYS TRAP, and ABRT), and
//! KILL and STOP, which cannot be caught. On Linux an output being written has no name at all
//! (see `npusim_io::write_atomic`), so even those leave nothing; the handler covers the short
//! moment an existing output is being replaced and the systems without unnamed files.
//!
//! A signal that is ignored when the process starts (`nohup` ignores SIGHUP, a shell's
//! `trap '' XFSZ` ignores SIGXFSZ) stays ignored: the caller asked for that, so no handler
//! replaces it (read from `/proc/self/status` on Linux; elsewhere every signal is handled).
//!
//! A caught SIGXFSZ makes the write fail with "File too large" instead of ending the process
//! (the handler then ends it); either way the unfinished output is removed.

/// Installs the handler (a thread that waits for the signals). Does nothing where the
/// platform has no POSIX signals.
#[cfg(unix)]
pub fn remove_output_on_signal() -> anyhow::Result<()> {
    use signal_hook::consts::signal::{
        SIGALRM, SIGHUP, SIGINT, SIGPROF, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGXCPU,
        SIGXFSZ,
    };
    use signal_hook::iterator::Signals;

    let ignored = ignored_at_start();
    let mut signals = Signals::new(
        [
            SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
            SIGXCPU, SIGXFSZ,
        ]
        .into_iter()
        .filter(|s| !ignored(*s)),
    )?;
    for signal in linux_only_signals().into_iter().filter(|s| !ignored(*s)) {
        // A signal the C library reserves for itself cannot be registered: skip it.
        let _ = signals.add_signal(signal);
    }
    std::thread::Builder::new()
        .name("npusim-signals".to_string())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let removed = npusim_io::remove_temp_files();
                if removed > 0 {
                    // Standard error may be gone too: nothing to do about that.
                    use std::io::Write;
                    let _ = writeln!(
                        std::io::stderr(),
                        "\ninterrupted: removed the unfinished output"
                    );
                }
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

/// Which signals were ignored when the process started, from the `SigIgn` mask of
/// `/proc/self/status` (bit n - 1 for signal n). Where it cannot be read, none.
#[cfg(unix)]
fn ignored_at_start() -> impl Fn(i32) -> bool {
    let mask = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        })
        .unwrap_or(0);
    move |signal: i32| (1..=64).contains(&signal) && mask >> (signal - 1) & 1 == 1
}

/// The terminating signals only Linux has: IO, the real-time signals, and STKFLT and PWR in the
/// numbering most Linux architectures share (16 and 30; elsewhere left to their default).
#[cfg(all(unix, target_os = "linux"))]
fn linux_only_signals() -> Vec<i32> {
    use signal_hook::consts::signal::SIGIO;
    let mut v = vec![SIGIO];
    if cfg!(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64"
    )) {
        v.extend([16, 30]);
    }
    // glibc and musl keep 32..=34 for themselves at most; 35..=64 are free real-time signals.
    v.extend(35..=64);
    v
}

/// Other systems: only the POSIX signals.
#[cfg(all(unix, not(target_os = "linux")))]
fn linux_only_signals() -> Vec<i32> {
    Vec::new()
}

/// Installs the handler (a thread that waits for the signals). Does nothing where the
/// platform has no POSIX signals.
#[cfg(not(unix))]
pub fn remove_output_on_signal() -> anyhow::Result<()> {
    Ok(())
}
