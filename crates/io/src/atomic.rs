//! Atomic output: write to a temporary file beside the destination, rename on success.
//!
//! A failed write leaves no output behind and never clobbers an existing file: the temporary
//! file is deleted when the writer fails (or the process unwinds), and the rename that
//! replaces the destination only happens after everything was written and synced.

use std::io::{BufWriter, Write};
use std::path::Path;

use tempfile::NamedTempFile;

use crate::error::IoError;

/// Writes `path` atomically: `write` fills a buffered temporary file in the same directory,
/// which is then flushed, synced and renamed over `path`.
pub fn write_atomic<F>(path: &Path, write: F) -> Result<(), IoError>
where
    F: FnOnce(&mut dyn Write) -> Result<(), IoError>,
{
    let tmp = temp_beside(path)?;
    let mut writer = BufWriter::with_capacity(1 << 20, tmp);
    write(&mut writer).map_err(|e| failed(path, e))?;
    let tmp = writer
        .into_inner()
        .map_err(|e| failed(path, e.into_error().into()))?;
    finish(tmp, path)
}

/// Like [`write_atomic`] for writers that want a path: `write` is handed the path of the
/// temporary file (which already exists) and must leave the finished content there.
pub fn write_atomic_via_path<F>(path: &Path, write: F) -> Result<(), IoError>
where
    F: FnOnce(&Path) -> Result<(), IoError>,
{
    let tmp = temp_beside(path)?;
    write(tmp.path()).map_err(|e| failed(path, e))?;
    finish(tmp, path)
}

fn failed(path: &Path, e: IoError) -> IoError {
    IoError::WriteFailed {
        path: path.to_path_buf(),
        source: Box::new(e),
    }
}

/// Creates the temporary file in the destination's directory.
fn temp_beside(path: &Path) -> Result<NamedTempFile, IoError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file_name = path.file_name().ok_or_else(|| IoError::NoFileName {
        path: path.to_path_buf(),
    })?;
    if !dir.is_dir() {
        return Err(IoError::NoDirectory {
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    if path.is_dir() {
        return Err(IoError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let mut builder = tempfile::Builder::new();
    let prefix = format!(".{}.", file_name.to_string_lossy());
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Ordinary file permissions (the process umask still applies), not tempfile's 0600.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
        .tempfile_in(dir)
        .map_err(|source| IoError::CannotCreateTemp {
            dir: dir.to_path_buf(),
            source,
        })
}

/// Syncs the finished temporary file and renames it over `path`.
fn finish(tmp: NamedTempFile, path: &Path) -> Result<(), IoError> {
    tmp.as_file()
        .sync_all()
        .map_err(|e| failed(path, e.into()))?;
    tmp.persist(path).map_err(|e| IoError::CannotRename {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_writes_and_failure_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a.bin");
        write_atomic(&out, |w| {
            w.write_all(b"hello")?;
            Ok(())
        })
        .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"hello");
        let err = write_atomic(&out, |w| {
            w.write_all(b"partial")?;
            Err(IoError::NpyMagic)
        })
        .unwrap_err();
        assert!(matches!(err, IoError::WriteFailed { .. }));
        // The old file is intact and no temporary file is left.
        assert_eq!(std::fs::read(&out).unwrap(), b"hello");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nope/a.bin");
        let err = write_atomic(&out, |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
    }
}
