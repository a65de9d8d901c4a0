//! Atomic output: write to a temporary file beside the destination, rename on success.
//!
//! A failed run leaves no output behind and never clobbers an existing file: the temporary
//! file is deleted when the writer fails (or the process unwinds), and the rename that
//! replaces the destination only happens after everything was written and flushed.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

/// Writes `path` atomically: `write` fills a buffered temporary file in the same directory,
/// which is then flushed, synced and renamed over `path`.
pub fn write_atomic<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&mut dyn Write) -> Result<()>,
{
    let tmp = temp_beside(path)?;
    let mut writer = BufWriter::with_capacity(1 << 20, tmp);
    write(&mut writer).with_context(|| format!("writing `{}` failed", path.display()))?;
    let tmp = writer
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("writing `{}` failed", path.display()))?;
    finish(tmp, path)
}

/// Like [`write_atomic`] for writers that want a path: `write` is handed the path of the
/// temporary file (which already exists) and must leave the finished content there.
pub fn write_atomic_via_path<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&Path) -> Result<()>,
{
    let tmp = temp_beside(path)?;
    write(tmp.path()).with_context(|| format!("writing `{}` failed", path.display()))?;
    finish(tmp, path)
}

/// Creates the temporary file in the destination's directory.
fn temp_beside(path: &Path) -> Result<NamedTempFile> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file_name = path
        .file_name()
        .with_context(|| format!("output path `{}` names no file", path.display()))?;
    if !dir.is_dir() {
        anyhow::bail!(
            "cannot write `{}`: directory `{}` does not exist",
            path.display(),
            dir.display()
        );
    }
    if path.is_dir() {
        anyhow::bail!("cannot write `{}`: it is a directory", path.display());
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
        .with_context(|| format!("cannot create a temporary file in `{}`", dir.display()))
}

/// Syncs the finished temporary file and renames it over `path`.
fn finish(tmp: NamedTempFile, path: &Path) -> Result<()> {
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("writing `{}` failed", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot move the finished output to `{}`", path.display()))?;
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
            anyhow::bail!("boom")
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("boom"));
        // The old file is intact and no temporary file is left.
        assert_eq!(std::fs::read(&out).unwrap(), b"hello");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
