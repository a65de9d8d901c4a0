//! Atomic output: write to a temporary file beside the destination, rename on success.
//!
//! A failed write leaves no output behind and never clobbers an existing file: the temporary
//! file is deleted when the writer fails (or the process unwinds), and the rename that
//! replaces the destination only happens after everything was written and synced. While a
//! temporary file exists its path is listed, so that a signal handler can remove it before
//! the process exits ([`remove_temp_files`]).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use tempfile::NamedTempFile;

use crate::error::IoError;

/// Temporary files being written now.
static ACTIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The list of temporary files, even if a thread panicked while holding it.
fn active() -> MutexGuard<'static, Vec<PathBuf>> {
    ACTIVE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes every temporary file an unfinished atomic write has created, and returns how many
/// it removed. Meant for a signal handler that then exits: a rename in progress completes
/// first, so the destination is either the finished file or untouched.
pub fn remove_temp_files() -> usize {
    let mut list = active();
    let removed = list
        .drain(..)
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count();
    // Keep the list locked until the process exits, so no rename starts afterwards.
    std::mem::forget(list);
    removed
}

/// A temporary file listed in [`ACTIVE`] for as long as it lives.
struct Listed {
    /// The file (`None` once persisted).
    tmp: Option<NamedTempFile>,
    /// Its path.
    path: PathBuf,
}

impl Listed {
    fn new(tmp: NamedTempFile) -> Listed {
        let path = tmp.path().to_path_buf();
        active().push(path.clone());
        Listed {
            tmp: Some(tmp),
            path,
        }
    }

    /// The open file.
    fn file(&self) -> Result<&std::fs::File, IoError> {
        self.tmp
            .as_ref()
            .map(NamedTempFile::as_file)
            .ok_or_else(|| IoError::Os(std::io::Error::other("temporary file already renamed")))
    }

    /// Renames the file over `path` and unlists it, both under the list's lock (so a signal
    /// handler sees either the temporary file or the finished output).
    fn persist(mut self, path: &Path) -> Result<(), IoError> {
        let mut list = active();
        list.retain(|p| *p != self.path);
        if let Some(tmp) = self.tmp.take() {
            crate::replace::replace(tmp, path).map_err(|e| IoError::CannotRename {
                path: path.to_path_buf(),
                source: e.error,
            })?;
        }
        Ok(())
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        if self.tmp.is_some() {
            active().retain(|p| *p != self.path);
        }
    }
}

/// Whether a finished temporary file is synced to the disk before the rename.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// `fsync` before the rename: the output survives a power loss once it appears.
    Synced,
    /// Rename without `fsync` (as `np.save` does): the output still appears only when
    /// complete, and the kernel writes it back later; a power loss soon after may lose it.
    Lazy,
}

/// Bytes of the buffer in front of the temporary file: small writes (headers, element-wise
/// writers) are gathered, and writes at least this long (the chunks of a streamed cast) go to
/// the file without a copy.
const WRITE_BUFFER_BYTES: usize = 64 << 10;

/// Writes `path` atomically: `write` fills a buffered temporary file in the same directory,
/// which is then flushed, synced and renamed over `path`. Operating-system errors of `write`
/// are reported as [`IoError::WriteFailed`]; its other errors (a broken input found while
/// streaming) pass through as they are.
pub fn write_atomic<F>(path: &Path, write: F) -> Result<(), IoError>
where
    F: FnOnce(&mut (dyn Write + Send)) -> Result<(), IoError>,
{
    write_atomic_with(path, Durability::Synced, write)
}

/// [`write_atomic`] with the choice of syncing before the rename.
pub fn write_atomic_with<F>(path: &Path, sync: Durability, write: F) -> Result<(), IoError>
where
    F: FnOnce(&mut (dyn Write + Send)) -> Result<(), IoError>,
{
    let listed = Listed::new(temp_beside(path)?);
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER_BYTES, listed.file()?);
    write(&mut writer).map_err(|e| failed(path, e))?;
    writer.flush().map_err(|e| failed(path, IoError::Os(e)))?;
    drop(writer);
    finish(listed, path, sync)
}

/// Like [`write_atomic`] for writers that want a path: `write` is handed the path of the
/// temporary file (which already exists) and must leave the finished content there.
pub fn write_atomic_via_path<F>(path: &Path, write: F) -> Result<(), IoError>
where
    F: FnOnce(&Path) -> Result<(), IoError>,
{
    let listed = Listed::new(temp_beside(path)?);
    write(&listed.path).map_err(|e| failed(path, e))?;
    finish(listed, path, Durability::Synced)
}

/// An operating-system error while writing becomes [`IoError::WriteFailed`].
fn failed(path: &Path, e: IoError) -> IoError {
    match e {
        IoError::Os(_) => IoError::WriteFailed {
            path: path.to_path_buf(),
            source: Box::new(e),
        },
        other => other,
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

/// Syncs the finished temporary file (if asked to) and renames it over `path`.
fn finish(listed: Listed, path: &Path, sync: Durability) -> Result<(), IoError> {
    if sync == Durability::Synced {
        listed
            .file()?
            .sync_all()
            .map_err(|e| failed(path, e.into()))?;
    }
    listed.persist(path)
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
            Err(std::io::Error::other("disk full").into())
        })
        .unwrap_err();
        assert!(matches!(err, IoError::WriteFailed { .. }));
        let err = write_atomic(&out, |w| {
            w.write_all(b"partial")?;
            Err(IoError::NpyMagic)
        })
        .unwrap_err();
        assert!(matches!(err, IoError::NpyMagic));
        // The old file is intact and no temporary file is left.
        assert_eq!(std::fs::read(&out).unwrap(), b"hello");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn temporary_files_are_listed_while_they_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("b.bin");
        write_atomic(&out, |w| {
            let listed = active().iter().any(|p| p.parent() == Some(dir.path()));
            assert!(listed);
            w.write_all(b"x")?;
            Ok(())
        })
        .unwrap();
        assert!(!active().iter().any(|p| p.parent() == Some(dir.path())));
    }

    #[test]
    fn a_missing_directory_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nope/a.bin");
        let err = write_atomic(&out, |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
    }
}
