//! Atomic output: the output appears complete or not at all, and only a regular file is ever
//! replaced.
//!
//! What an output path names is decided first ([`crate::destination`]): a device, FIFO or
//! other non-regular file is written into directly (streamed; what was written before a
//! failure stays written, as with any pipe); a symbolic link is followed and the file at the
//! end of the chain is replaced, in its own directory; an existing file's permission bits and
//! owner are kept, and a read-only one is refused unless [`WriteOptions::replace_read_only`].
//!
//! A regular output is written to a file that has no name until it is complete: on Linux an
//! `O_TMPFILE` file in the destination's directory, linked into place at the end (through
//! `/proc/self/fd`, or `AT_EMPTY_PATH`), so that even SIGKILL leaves nothing behind. A new
//! output is linked straight under its name; an existing one is replaced by linking the
//! finished file under a short temporary name and renaming (swapping) that over the output,
//! all while holding the list of temporary names, so the signal handler either waits for the
//! replacement to end or sees nothing to remove. Only a SIGKILL in that instant can leave the
//! temporary name. Where `O_TMPFILE` is not available (other systems, file systems without
//! it, no `/proc`), the output is written under a temporary name from the start; while it
//! exists its path is listed, so that a signal handler can remove it before the process
//! exits ([`remove_temp_files`]), and a failed write (or an unwinding panic) deletes it.
//!
//! Temporary names are `.` + at most 32 bytes of the output's name + `.` + 8 random
//! characters + `.tmp` (at most 46 bytes), hidden and recognisable, and short enough for any
//! output name the file system accepts.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::destination::{Destination, destination};
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

/// Whether a finished temporary file is synced to the disk before the rename.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// `fsync` before the rename: the output survives a power loss once it appears.
    Synced,
    /// Rename without `fsync` (as `np.save` does): the output still appears only when
    /// complete, and the kernel writes it back later; a power loss soon after may lose it.
    Lazy,
}

/// How an atomic write treats its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Whether the finished file is synced before it is put in place.
    pub durability: Durability,
    /// Replace an existing output that is read-only (as `cp -f`); otherwise such an output
    /// is refused with [`IoError::ReadOnlyOutput`].
    pub replace_read_only: bool,
}

impl Default for WriteOptions {
    /// Synced, and read-only outputs are refused.
    fn default() -> WriteOptions {
        WriteOptions {
            durability: Durability::Synced,
            replace_read_only: false,
        }
    }
}

/// Bytes of the buffer in front of the output file: small writes (headers, element-wise
/// writers) are gathered, and writes at least this long (the chunks of a streamed cast) go to
/// the file without a copy.
const WRITE_BUFFER_BYTES: usize = 64 << 10;

/// Bytes of the output's name kept in a temporary name.
const TEMP_STEM_BYTES: usize = 32;

/// Random characters in a temporary name.
const TEMP_RANDOM_CHARS: usize = 8;

/// Writes `path` atomically: `write` fills a buffered file that is flushed, synced and put at
/// `path` once complete (a device or FIFO is written directly). Operating-system errors of
/// `write` are reported as [`IoError::WriteFailed`]; its other errors (a broken input found
/// while streaming) pass through as they are.
pub fn write_atomic<F>(path: &Path, write: F) -> Result<(), IoError>
where
    F: FnOnce(&mut (dyn Write + Send)) -> Result<(), IoError>,
{
    write_atomic_opts(path, &WriteOptions::default(), write)
}

/// [`write_atomic`] with the choice of syncing before the rename.
pub fn write_atomic_with<F>(path: &Path, sync: Durability, write: F) -> Result<(), IoError>
where
    F: FnOnce(&mut (dyn Write + Send)) -> Result<(), IoError>,
{
    let opts = WriteOptions {
        durability: sync,
        ..WriteOptions::default()
    };
    write_atomic_opts(path, &opts, write)
}

/// [`write_atomic`] with every option.
pub fn write_atomic_opts<F>(path: &Path, opts: &WriteOptions, write: F) -> Result<(), IoError>
where
    F: FnOnce(&mut (dyn Write + Send)) -> Result<(), IoError>,
{
    let (dir, name, existing) = match destination(path, opts.replace_read_only)? {
        Destination::Stream { path: device } => return stream(&device, path, write),
        Destination::File {
            dir,
            name,
            existing,
        } => (dir, name, existing),
    };
    let staged = Staged::create(&dir, &name, existing.as_ref())?;
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER_BYTES, &staged.file);
    write(&mut writer).map_err(|e| failed(path, e))?;
    writer.flush().map_err(|e| failed(path, IoError::Os(e)))?;
    drop(writer);
    if opts.durability == Durability::Synced {
        staged.file.sync_all().map_err(|e| failed(path, e.into()))?;
    }
    staged
        .persist(&dir, &name, existing.is_some())
        .map_err(|source| IoError::CannotRename {
            path: path.to_path_buf(),
            source,
        })
}

/// Checks what [`write_atomic_opts`] checks before it writes (the directory exists, the path
/// is not a directory, a read-only output is allowed), writing nothing.
pub fn check_destination(path: &Path, opts: &WriteOptions) -> Result<(), IoError> {
    destination(path, opts.replace_read_only).map(drop)
}

/// Whether [`write_atomic_opts`] would write `path` as it goes (a device, FIFO or other
/// non-regular file) rather than put a complete file in place; errors as it would refuse.
pub fn is_streamed(path: &Path, opts: &WriteOptions) -> Result<bool, IoError> {
    Ok(matches!(
        destination(path, opts.replace_read_only)?,
        Destination::Stream { .. }
    ))
}

/// Like [`write_atomic`] for writers that want a path: `write` is handed the path of a
/// temporary file (which already exists) and must leave the finished content there.
pub fn write_atomic_via_path<F>(path: &Path, write: F) -> Result<(), IoError>
where
    F: FnOnce(&Path) -> Result<(), IoError>,
{
    match destination(path, false)? {
        Destination::Stream { path: device } => {
            let dir = std::env::temp_dir();
            let tmp = tempfile::NamedTempFile::new_in(&dir)
                .map_err(|source| IoError::CannotCreateTemp { dir, source })?;
            write(tmp.path()).map_err(|e| failed(path, e))?;
            let mut finished = File::open(tmp.path()).map_err(|e| failed(path, e.into()))?;
            stream(&device, path, |w| {
                std::io::copy(&mut finished, w)?;
                Ok(())
            })
        }
        Destination::File {
            dir,
            name,
            existing,
        } => {
            let staged = Staged::named(&dir, &name)?;
            if let Some(meta) = &existing {
                carry_over(&staged.file, meta, &dir)?;
            }
            let tmp = staged.name.clone().unwrap_or_default();
            write(&tmp).map_err(|e| failed(path, e))?;
            File::open(&tmp)
                .and_then(|f| f.sync_all())
                .map_err(|e| failed(path, e.into()))?;
            staged
                .persist(&dir, &name, existing.is_some())
                .map_err(|source| IoError::CannotRename {
                    path: path.to_path_buf(),
                    source,
                })
        }
    }
}

/// Writes into the non-regular file `device` directly; `path` (as given) names it in errors.
fn stream<F>(device: &Path, path: &Path, write: F) -> Result<(), IoError>
where
    F: FnOnce(&mut (dyn Write + Send)) -> Result<(), IoError>,
{
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(device)
        .map_err(|source| IoError::CannotOpenOutput {
            path: path.to_path_buf(),
            source,
        })?;
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER_BYTES, &file);
    write(&mut writer).map_err(|e| failed(path, e))?;
    writer.flush().map_err(|e| failed(path, IoError::Os(e)))
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

/// The start of the output `name`'s temporary names: `.` + at most 32 bytes of it + `.`.
fn temp_prefix(name: &OsStr) -> String {
    let full = name.to_string_lossy();
    let mut end = full.len().min(TEMP_STEM_BYTES);
    while !full.is_char_boundary(end) {
        end -= 1;
    }
    format!(".{}.", &full[..end])
}

/// A builder of temporary names `<prefix><random>.tmp`.
fn temp_names(prefix: &str) -> tempfile::Builder<'_, 'static> {
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(prefix)
        .suffix(".tmp")
        .rand_bytes(TEMP_RANDOM_CHARS);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Ordinary file permissions (the process umask still applies), not tempfile's 0600.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder
}

/// The file an output is written to before it is put in place.
struct Staged {
    /// The open file.
    file: File,
    /// Its temporary name, listed in [`ACTIVE`] (`None`: it has no name yet).
    name: Option<PathBuf>,
}

impl Staged {
    /// A file in `dir` for the output `name`, unnamed where the system allows it, with the
    /// permission bits and owner of the `existing` output.
    fn create(dir: &Path, name: &OsStr, existing: Option<&Metadata>) -> Result<Staged, IoError> {
        let staged = match unnamed_file(dir) {
            Some(file) => Staged { file, name: None },
            None => Staged::named(dir, name)?,
        };
        if let Some(meta) = existing {
            carry_over(&staged.file, meta, dir)?;
        }
        Ok(staged)
    }

    /// A file in `dir` under a listed temporary name.
    fn named(dir: &Path, name: &OsStr) -> Result<Staged, IoError> {
        let cannot = |source| IoError::CannotCreateTemp {
            dir: dir.to_path_buf(),
            source,
        };
        // Listed under the lock, so no signal can come between its creation and its listing.
        let mut list = active();
        let (file, path) = temp_names(&temp_prefix(name))
            .tempfile_in(dir)
            .map_err(cannot)?
            .keep()
            .map_err(|e| cannot(e.error))?;
        list.push(path.clone());
        Ok(Staged {
            file,
            name: Some(path),
        })
    }

    /// Puts the finished file at `dir/name` (`replacing`: an output exists there).
    fn persist(mut self, dir: &Path, name: &OsStr, replacing: bool) -> std::io::Result<()> {
        let dest = dir.join(name);
        if let Some(tmp) = self.name.take() {
            let mut list = active();
            let done = crate::replace::replace(&tmp, &dest);
            if done.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            list.retain(|p| *p != tmp);
            return done;
        }
        if !replacing {
            match link_unnamed(&self.file, &dest) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                done => return done,
            }
        }
        // Under the lock, a signal handler waits until the temporary name is gone again.
        let _list = active();
        let tmp = temp_names(&temp_prefix(name))
            .make_in(dir, |p| link_unnamed(&self.file, p))?
            .into_temp_path()
            .keep()
            .map_err(|e| e.error)?;
        let done = crate::replace::replace(&tmp, &dest);
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        done
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(tmp) = self.name.take() {
            let mut list = active();
            let _ = std::fs::remove_file(&tmp);
            list.retain(|p| *p != tmp);
        }
    }
}

/// Gives the new file `file` the permission bits and owner of the replaced output (the owner
/// only where this process may: a superuser's, or a group it belongs to).
fn carry_over(file: &File, existing: &Metadata, dir: &Path) -> Result<(), IoError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // Before the mode: a change of owner clears the set-id bits.
        let _ = std::os::unix::fs::fchown(file, Some(existing.uid()), Some(existing.gid()));
        let mode = crate::destination::permission_bits(existing);
        file.set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(|source| IoError::CannotCreateTemp {
                dir: dir.to_path_buf(),
                source,
            })?;
    }
    #[cfg(not(unix))]
    {
        let _ = (file, existing, dir);
    }
    Ok(())
}

/// An `O_TMPFILE` file in `dir` (no name until it is linked), if the system and the file
/// system offer it and `/proc/self/fd` is there to link it.
#[cfg(target_os = "linux")]
fn unnamed_file(dir: &Path) -> Option<File> {
    use rustix::fs::{CWD, Mode, OFlags, openat};
    if !Path::new("/proc/self/fd").is_dir() {
        return None;
    }
    let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
    openat(CWD, dir, flags, Mode::from_raw_mode(0o666))
        .ok()
        .map(File::from)
}

/// Unnamed files are Linux's: elsewhere every output starts with a temporary name.
#[cfg(not(target_os = "linux"))]
fn unnamed_file(_dir: &Path) -> Option<File> {
    None
}

/// Gives the unnamed `file` the name `dest` (which must not exist).
#[cfg(target_os = "linux")]
fn link_unnamed(file: &File, dest: &Path) -> std::io::Result<()> {
    use rustix::fs::{AtFlags, CWD, linkat};
    use std::os::fd::AsRawFd;
    let proc = format!("/proc/self/fd/{}", file.as_raw_fd());
    match linkat(CWD, proc.as_str(), CWD, dest, AtFlags::SYMLINK_FOLLOW) {
        Err(e) if e == rustix::io::Errno::EXIST => Err(e.into()),
        Err(_) => linkat(file, "", CWD, dest, AtFlags::EMPTY_PATH).map_err(Into::into),
        Ok(()) => Ok(()),
    }
}

/// Unnamed files are Linux's: never called elsewhere.
#[cfg(not(target_os = "linux"))]
fn link_unnamed(_file: &File, _dest: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
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
    fn a_named_temporary_file_is_listed_while_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let staged = Staged::named(dir.path(), OsStr::new("b.bin")).unwrap();
        let tmp = staged.name.clone().unwrap();
        assert!(active().contains(&tmp));
        drop(staged);
        assert!(!active().contains(&tmp));
        assert!(!tmp.exists());
    }

    #[test]
    fn temporary_names_are_short_hidden_and_recognisable() {
        let long = "w".repeat(255);
        let prefix = temp_prefix(OsStr::new(&long));
        assert_eq!(prefix.len(), 1 + TEMP_STEM_BYTES + 1);
        assert!(prefix.starts_with(".www"));
        // A multi-byte character is not cut in half.
        let accented = format!("{}é.npy", "a".repeat(TEMP_STEM_BYTES - 1));
        assert_eq!(
            temp_prefix(OsStr::new(&accented)),
            format!(".{}.", "a".repeat(TEMP_STEM_BYTES - 1))
        );
    }

    #[test]
    fn a_missing_directory_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nope/a.bin");
        let err = write_atomic(&out, |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
    }
}
