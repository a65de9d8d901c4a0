//! Clean interruption: on SIGINT, SIGTERM or SIGHUP the unfinished output's temporary file is
//! removed before the process exits with 128 + the signal number (130 for Ctrl-C, 143 for
//! SIGTERM), so an interrupted cast leaves nothing behind.

/// Installs the handler (a thread that waits for the signals). Does nothing where the
/// platform has no POSIX signals.
#[cfg(unix)]
pub fn remove_output_on_signal() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("npusim-signals".to_string())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let removed = npusim_io::remove_temp_files();
                if removed > 0 {
                    eprintln!("\ninterrupted: removed the unfinished output");
                }
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

/// Installs the handler (a thread that waits for the signals). Does nothing where the
/// platform has no POSIX signals.
#[cfg(not(unix))]
pub fn remove_output_on_signal() -> anyhow::Result<()> {
    Ok(())
}
