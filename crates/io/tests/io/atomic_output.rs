//! The atomic writer never turns a special file into a regular one, replaces the file a link
//! points to (not the link), keeps an existing output's permission bits, refuses a read-only
//! output unless allowed, accepts the longest legal file name, and (on Linux) gives the
//! output no name until it is complete. No test touches `/dev`: FIFOs, pipes and links live
//! in temporary directories.

// Test code: an unwrap that fails is a failed test.
#![allow(clippy::unwrap_used)]
#![cfg(unix)]

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::path::Path;

use npusim_io::{IoError, WriteOptions, check_destination, write_atomic, write_atomic_opts};

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_fifo_output_is_written_into_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.npy");
    mkfifo(&fifo);
    let reader_path = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        std::fs::File::open(&reader_path)
            .unwrap()
            .read_to_end(&mut got)
            .unwrap();
        got
    });
    write_atomic(&fifo, |w| {
        w.write_all(b"through the pipe")?;
        Ok(())
    })
    .unwrap();
    // Checked first: a reader of a replaced FIFO would wait for ever.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    assert_eq!(names(dir.path()), ["out.npy"]);
}

#[test]
fn a_fifo_whose_reader_left_is_a_write_error_not_a_replacement() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.npy");
    mkfifo(&fifo);
    let reader_path = fifo.clone();
    // The reader opens the pipe and closes it at once.
    let reader = std::thread::spawn(move || drop(std::fs::File::open(&reader_path).unwrap()));
    let err = write_atomic(&fifo, |w| {
        let chunk = vec![0u8; 1 << 16];
        for _ in 0..1024 {
            w.write_all(&chunk)?;
        }
        Ok(())
    })
    .unwrap_err();
    // Checked first: a reader of a replaced FIFO would wait for ever.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    reader.join().unwrap();
    assert!(matches!(err, IoError::WriteFailed { .. }), "{err}");
}

#[test]
fn a_proc_fd_link_to_a_pipe_is_written_into() {
    let (mut rx, tx) = std::io::pipe().unwrap();
    use std::os::fd::AsRawFd;
    let path = format!("/proc/self/fd/{}", tx.as_raw_fd());
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        rx.read_to_end(&mut got).unwrap();
        got
    });
    write_atomic(Path::new(&path), |w| {
        w.write_all(b"to fd")?;
        Ok(())
    })
    .unwrap();
    drop(tx);
    assert_eq!(reader.join().unwrap(), b"to fd");
}

#[test]
fn a_link_chain_replaces_the_file_it_points_to_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let real = data.join("w.npy");
    std::fs::write(&real, b"old").unwrap();
    // link2 -> link1 -> data/w.npy (one relative, one absolute).
    symlink("data/w.npy", dir.path().join("link1")).unwrap();
    symlink(dir.path().join("link1"), dir.path().join("link2")).unwrap();
    write_atomic(&dir.path().join("link2"), |w| {
        w.write_all(b"new")?;
        Ok(())
    })
    .unwrap();
    assert_eq!(std::fs::read(&real).unwrap(), b"new");
    for link in ["link1", "link2"] {
        let meta = std::fs::symlink_metadata(dir.path().join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} is no longer a link");
    }
    assert_eq!(names(dir.path()), ["data", "link1", "link2"]);
    assert_eq!(names(&data), ["w.npy"]);
}

#[test]
fn a_dangling_link_creates_the_file_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    symlink("target.npy", dir.path().join("link")).unwrap();
    write_atomic(&dir.path().join("link"), |w| {
        w.write_all(b"x")?;
        Ok(())
    })
    .unwrap();
    assert_eq!(std::fs::read(dir.path().join("target.npy")).unwrap(), b"x");
    let meta = std::fs::symlink_metadata(dir.path().join("link")).unwrap();
    assert!(meta.file_type().is_symlink());
}

#[test]
fn an_existing_outputs_permission_bits_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&out, |w| {
        w.write_all(b"new")?;
        Ok(())
    })
    .unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
    assert_eq!(mode(&out), 0o640);
}

#[test]
fn an_existing_outputs_owner_is_kept_where_the_process_may_set_it() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    std::fs::write(&out, b"old").unwrap();
    // Only a superuser may give a file away: elsewhere there is nothing to test.
    if std::os::unix::fs::chown(&out, Some(1234), Some(1234)).is_err() {
        return;
    }
    write_atomic(&out, |w| {
        w.write_all(b"new")?;
        Ok(())
    })
    .unwrap();
    let meta = std::fs::metadata(&out).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (1234, 1234));
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
}

#[test]
fn a_read_only_output_is_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    let err = write_atomic(&out, |w| {
        w.write_all(b"new")?;
        Ok(())
    })
    .unwrap_err();
    assert!(
        matches!(err, IoError::ReadOnlyOutput { mode: 0o444, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("read-only (mode 0444)"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert!(check_destination(&out, &WriteOptions::default()).is_err());
    let force = WriteOptions {
        replace_read_only: true,
        ..WriteOptions::default()
    };
    assert!(check_destination(&out, &force).is_ok());
    write_atomic_opts(&out, &force, |w| {
        w.write_all(b"new")?;
        Ok(())
    })
    .unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
    assert_eq!(mode(&out), 0o444);
    assert_eq!(names(dir.path()), ["o.npy"]);
}

#[test]
fn a_255_byte_output_name_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.npy", "n".repeat(251));
    assert_eq!(name.len(), 255);
    let out = dir.path().join(&name);
    for content in [&b"first"[..], b"second, replacing it"] {
        write_atomic(&out, |w| {
            w.write_all(content)?;
            Ok(())
        })
        .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), content);
        assert_eq!(names(dir.path()), std::slice::from_ref(&name));
    }
}

#[test]
fn a_missing_directory_and_a_directory_are_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let opts = WriteOptions::default();
    let e = check_destination(&dir.path().join("nope/o.npy"), &opts).unwrap_err();
    assert!(matches!(e, IoError::NoDirectory { .. }), "{e}");
    let e = check_destination(dir.path(), &opts).unwrap_err();
    assert!(matches!(e, IoError::IsDirectory { .. }), "{e}");
}

/// On Linux the output has no name while it is written (`O_TMPFILE`), neither a new one nor
/// one that replaces an existing file.
#[cfg(target_os = "linux")]
#[test]
fn no_name_appears_while_the_output_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    for existing in [false, true] {
        write_atomic(&out, |w| {
            let seen = names(dir.path());
            let expected: Vec<String> = if existing {
                vec!["o.npy".into()]
            } else {
                vec![]
            };
            assert_eq!(seen, expected, "names while writing");
            w.write_all(b"data")?;
            Ok(())
        })
        .unwrap();
        assert_eq!(names(dir.path()), ["o.npy"]);
    }
}
