//! Putting a finished temporary file in the destination's place.
//!
//! Where the destination already exists, Linux swaps the two names in one step
//! (`renameat2(RENAME_EXCHANGE)`) and the old output, now under the temporary name, is then
//! deleted; elsewhere, or where the file system cannot swap, a plain `rename` replaces it.
//! Either way the destination names the old file or the complete new one at every instant.
//!
//! Why not always `rename`: ext4 flushes a new file's data to the disk inside a `rename` that
//! replaces an existing file (its guard against empty files after a crash), which can take
//! longer than the cast that wrote the file (a measurement: `docs/cast-io.md`); an exchange
//! is not a replacement, so the data is written back later by the kernel as for any new file
//! (as with [`Durability::Lazy`](crate::Durability) it is on the disk only after that, or at
//! once with [`Durability::Synced`](crate::Durability)).

use std::path::Path;

/// Puts the finished file named `tmp` at `path`, replacing what is there. On success `tmp`
/// names nothing; on failure it still names the finished file (the caller removes it).
pub(crate) fn replace(tmp: &Path, path: &Path) -> std::io::Result<()> {
    if exchange(tmp, path) {
        // The temporary name now holds the replaced output.
        let _ = std::fs::remove_file(tmp);
        return Ok(());
    }
    std::fs::rename(tmp, path)
}

/// Swaps the names `a` and `b` (both must exist, in one file system); whether it did.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> bool {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok()
}

/// Swapping names is not offered on this platform: the caller renames.
#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("listed")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn an_existing_output_is_replaced_and_no_temporary_name_is_left() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("out.bin");
        let tmp = dir.path().join(".tmp");
        for content in [&b"first output, the longer one"[..], b"second"] {
            std::fs::write(&tmp, content).expect("written");
            replace(&tmp, &path).expect("replaced");
            assert_eq!(std::fs::read(&path).expect("read back"), content);
            assert_eq!(names(dir.path()), ["out.bin"]);
        }
    }

    #[test]
    fn a_failed_replacement_leaves_the_temporary_file() {
        let dir = tempfile::tempdir().expect("a directory");
        let tmp = dir.path().join(".tmp");
        std::fs::write(&tmp, b"x").expect("written");
        let missing = dir.path().join("no such dir").join("out.bin");
        assert!(replace(&tmp, &missing).is_err());
        assert!(tmp.exists());
    }
}
