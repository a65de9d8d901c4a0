//! Casts with `-` on either side: standard input is read whole (a cast seeks in its input),
//! standard output is written chunk by chunk.

use std::path::{Path, PathBuf};

use anyhow::Result;
use npusim_io::{
    CastJob, CastProgress, IoError, TensorReport, WriteOptions, cast_reader, is_streamed,
    write_atomic_opts,
};

use super::errors::explain;
use crate::output::{is_stdio, stdout_error};

/// A cast's input other than a file given by path: its name in messages, a reader and its
/// length.
pub struct Source<R> {
    /// The name of the input in messages.
    pub name: PathBuf,
    /// The input.
    pub reader: R,
    /// Its length in bytes.
    pub len: u64,
}

/// Reads standard input whole (a cast seeks in its input).
pub fn read_stdin() -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
    Ok(bytes)
}

/// Opens the input file `path` for a cast to standard output; returns it and its length.
pub fn open_input(path: &Path) -> Result<(std::fs::File, u64), IoError> {
    let cannot_read = |source| IoError::CannotRead {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(cannot_read)?;
    let meta = file.metadata().map_err(cannot_read)?;
    if meta.is_dir() {
        return Err(IoError::InputIsDirectory {
            path: path.to_path_buf(),
        });
    }
    Ok((file, meta.len()))
}

/// A cast with `-` on either side: streams `source` into standard output (chunk by chunk; with
/// `--fail-on-nan` held in memory until the cast has passed, so a refused cast writes
/// nothing) or into the output file (atomically). Returns the reports.
pub fn cast_source<R: std::io::Read + std::io::Seek>(
    job: &CastJob,
    source: Source<R>,
    output: &Path,
    opts: &WriteOptions,
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>> {
    use std::io::Write;
    let Source { name, reader, len } = source;
    let to_stdout = is_stdio(output);
    if job.fail_on_nan && (to_stdout || is_streamed(output, opts).map_err(explain)?) {
        // Standard output, a device or a FIFO is written as the cast goes: hold the output
        // back until the cast has passed.
        let mut held = Vec::new();
        let reports = cast_reader(job, &name, reader, len, &mut held, progress).map_err(explain)?;
        if to_stdout {
            let mut stdout = std::io::stdout();
            stdout.write_all(&held).map_err(stdout_error)?;
            stdout.flush().map_err(stdout_error)?;
        } else {
            write_atomic_opts(output, opts, |w| Ok(w.write_all(&held)?)).map_err(explain)?;
        }
        return Ok(reports);
    }
    if !to_stdout {
        let mut reports = Vec::new();
        write_atomic_opts(output, opts, |w| {
            reports = cast_reader(job, &name, reader, len, w, progress)?;
            Ok(())
        })
        .map_err(explain)?;
        return Ok(reports);
    }
    let mut stdout = std::io::stdout();
    let reports =
        cast_reader(job, &name, reader, len, &mut stdout, progress).map_err(|e| match e {
            // The only operating-system errors of a cast are its writer's.
            IoError::Os(e) => stdout_error(e),
            e => explain(e),
        })?;
    stdout.flush().map_err(stdout_error)?;
    Ok(reports)
}
