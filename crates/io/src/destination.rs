//! What an output path names, decided before a byte is written.
//!
//! * A device, FIFO, socket or any other file that is not a regular file (`/dev/null`, a
//!   named pipe, `/proc/self/fd/1` on a pipe or terminal) is written into directly, streamed:
//!   it is never replaced by a regular file.
//! * A symbolic link is followed to the end of its chain: the file it points to is replaced
//!   in that file's directory, and the link stays a link. A dangling link creates the file it
//!   points to (as the shell's `>` does).
//! * A directory is refused; so is a path whose directory does not exist.
//! * An existing regular file is replaced; its permission bits and owner are carried over to
//!   the new file. One that is read-only (no write bit set at all, as 0444, or not writable
//!   by this user) is refused unless the caller allows it, as `cp` refuses without `-f`; the
//!   permission bits are checked explicitly, since the superuser may write any file.

use std::ffi::OsString;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use crate::error::IoError;

/// Symbolic links followed at most before the path is refused (Linux's own limit).
pub(crate) const MAX_SYMLINKS: usize = 40;

/// Where an output goes.
#[derive(Debug)]
pub(crate) enum Destination {
    /// A file that is not a regular file: opened and written in place.
    Stream {
        /// The path as given (links followed when it is opened).
        path: PathBuf,
    },
    /// A regular file, existing or not: written to a temporary file in `dir`, then put at
    /// `dir/name`.
    File {
        /// The file's directory (the end of the link chain's).
        dir: PathBuf,
        /// The file's name in `dir`.
        name: OsString,
        /// The file as it is now, if it exists.
        existing: Option<Metadata>,
    },
}

/// Decides where `path`'s output goes. `replace_read_only` allows replacing an existing
/// read-only file.
pub(crate) fn destination(path: &Path, replace_read_only: bool) -> Result<Destination, IoError> {
    if path.file_name().is_none() {
        return Err(IoError::NoFileName {
            path: path.to_path_buf(),
        });
    }
    // What the whole chain of links ends in (magic links of /proc included).
    let existing = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(IoError::IsDirectory {
                path: path.to_path_buf(),
            });
        }
        Ok(meta) if !meta.is_file() => {
            return Ok(Destination::Stream {
                path: path.to_path_buf(),
            });
        }
        Ok(meta) => Some(meta),
        Err(_) => None,
    };
    let target = follow_links(path)?;
    let name = target
        .file_name()
        .ok_or_else(|| IoError::NoFileName {
            path: path.to_path_buf(),
        })?
        .to_os_string();
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(IoError::NoDirectory {
            path: path.to_path_buf(),
            dir,
        });
    }
    if let Some(meta) = &existing
        && !replace_read_only
        && is_read_only(&target, meta)
    {
        return Err(IoError::ReadOnlyOutput {
            path: path.to_path_buf(),
            mode: permission_bits(meta),
        });
    }
    Ok(Destination::File {
        dir,
        name,
        existing,
    })
}

/// The path at the end of `path`'s chain of symbolic links (which may not exist); `path`
/// itself if it is not a link.
fn follow_links(path: &Path) -> Result<PathBuf, IoError> {
    let mut at = path.to_path_buf();
    for _ in 0..=MAX_SYMLINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {}
            _ => return Ok(at),
        }
        let Ok(next) = std::fs::read_link(&at) else {
            return Ok(at);
        };
        at = if next.is_absolute() {
            next
        } else {
            at.parent().unwrap_or(Path::new("")).join(next)
        };
    }
    Err(IoError::SymlinkLoop {
        path: path.to_path_buf(),
        limit: MAX_SYMLINKS,
    })
}

/// The permission bits of a file (with set-id and sticky bits), 0 where there are none.
pub(crate) fn permission_bits(meta: &Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

/// Whether the existing file at `path` is read-only: no write permission bit set at all, or
/// not writable by this user.
fn is_read_only(path: &Path, meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        if permission_bits(meta) & 0o222 == 0 {
            return true;
        }
    }
    #[cfg(not(unix))]
    {
        if meta.permissions().readonly() {
            return true;
        }
    }
    not_writable_by_us(path)
}

/// Whether the system says this user may not write `path`.
#[cfg(target_os = "linux")]
fn not_writable_by_us(path: &Path) -> bool {
    matches!(
        rustix::fs::access(path, rustix::fs::Access::WRITE_OK),
        Err(e) if e == rustix::io::Errno::ACCESS
    )
}

/// Elsewhere only the permission bits decide.
#[cfg(not(target_os = "linux"))]
fn not_writable_by_us(_path: &Path) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    #[test]
    fn a_link_chain_ends_at_the_file_it_names() {
        let dir = tempfile::tempdir().expect("a directory");
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).expect("made");
        std::fs::write(sub.join("real.npy"), b"x").expect("written");
        symlink("sub/real.npy", dir.path().join("l1")).expect("linked");
        symlink(dir.path().join("l1"), dir.path().join("l2")).expect("linked");
        let Destination::File { dir: d, name, .. } =
            destination(&dir.path().join("l2"), false).expect("a file")
        else {
            panic!("not a file destination");
        };
        assert_eq!(d, sub);
        assert_eq!(name, "real.npy");
    }

    #[test]
    fn a_link_loop_is_refused() {
        let dir = tempfile::tempdir().expect("a directory");
        symlink("b", dir.path().join("a")).expect("linked");
        symlink("a", dir.path().join("b")).expect("linked");
        let e = destination(&dir.path().join("a"), false).expect_err("a loop");
        assert!(matches!(e, IoError::SymlinkLoop { .. }), "{e}");
    }

    #[test]
    fn a_read_only_file_is_refused_unless_allowed() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("ro.npy");
        std::fs::write(&path, b"x").expect("written");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        let e = destination(&path, false).expect_err("read-only");
        assert_eq!(
            e.to_string(),
            format!(
                "`{}` is read-only (mode 0444): not replaced",
                path.display()
            )
        );
        assert!(destination(&path, true).is_ok());
    }

    #[test]
    fn a_fifo_is_streamed() {
        let dir = tempfile::tempdir().expect("a directory");
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        assert!(matches!(
            destination(&fifo, false).expect("a destination"),
            Destination::Stream { .. }
        ));
    }
}
