//! Standard output for every command, and the one rule for output paths.
//!
//! A reader that closes the pipe early (`npusim ... | head`) ends the command quietly, as Unix
//! tools do: the write fails with [`ClosedPipe`], the command stops, and `main` exits with
//! status 141 (128 + SIGPIPE) without a message. Any other write error (a full disk,
//! `> /dev/full`) is an error that names standard output. Nothing here panics.

use std::io::{self, Write};

/// Standard output's reader has gone: the command stops and `main` exits quietly.
#[derive(Debug, thiserror::Error)]
#[error("standard output was closed by its reader")]
pub(crate) struct ClosedPipe;

/// The exit status of a command whose reader closed the pipe (128 + SIGPIPE).
pub(crate) const CLOSED_PIPE_STATUS: u8 = 141;

/// Writes `text` to standard output and flushes it.
pub(crate) fn emit(text: &str) -> anyhow::Result<()> {
    with_stdout(|out| out.write_all(text.as_bytes()))
}

/// Runs `write` on a buffered, locked standard output, then flushes it. Use this for long
/// outputs that are produced piece by piece (no whole-output `String`).
pub(crate) fn with_stdout<F>(write: F) -> anyhow::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let mut out = io::BufWriter::new(io::stdout().lock());
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// Turns a failed write to standard output into the command's error: [`ClosedPipe`] for a
/// closed pipe, otherwise an error naming standard output.
pub(crate) fn stdout_error(e: io::Error) -> anyhow::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        ClosedPipe.into()
    } else {
        anyhow::Error::new(e).context("cannot write to standard output")
    }
}

/// Whether `path` is `-` (standard input or output).
pub(crate) fn is_stdio(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// Prints a command's report: on standard output, or on standard error when standard output
/// carries the command's data (`-o -`). If standard error itself fails there is no one left
/// to tell, so that failure is ignored (never a panic).
pub(crate) fn report(text: &str, data_on_stdout: bool) -> anyhow::Result<()> {
    report_with(data_on_stdout, |w| w.write_all(text.as_bytes()))
}

/// [`report`] written piece by piece by `write` (no whole-report `String`).
pub(crate) fn report_with<F>(data_on_stdout: bool, write: F) -> anyhow::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    if data_on_stdout {
        let mut err = io::BufWriter::new(io::stderr().lock());
        let _ = write(&mut err).and_then(|()| err.flush());
        Ok(())
    } else {
        with_stdout(write)
    }
}

/// Writes a command's output file: `-` means standard output, any other path goes through
/// the atomic writer of `npusim-io` (complete or not at all, never a partial file).
pub(crate) fn write_output<F>(path: &std::path::Path, write: F) -> anyhow::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    if is_stdio(path) {
        return with_stdout(write);
    }
    npusim_io::write_atomic(path, |out| write(out).map_err(npusim_io::IoError::Os))
        .map_err(anyhow::Error::new)
}
