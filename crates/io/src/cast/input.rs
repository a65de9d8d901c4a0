//! The input of a streamed cast: a file or a buffer, read piece by piece at given offsets.
//! A file's large reads are split into pieces read by the thread pool at once (positional
//! reads), so that copying the bytes out of the page cache, which costs about as much as the
//! cast itself, is shared by every core instead of running on one thread before each chunk is
//! cast.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

#[cfg(unix)]
use rayon::prelude::*;

use crate::error::IoError;

/// Bytes per piece of a split read.
#[cfg(unix)]
const PIECE_BYTES: usize = 1 << 20;

/// A seekable input of known length; read errors name its path.
pub(crate) struct Input<R> {
    reader: R,
    path: PathBuf,
    len: u64,
    /// The same file again, for positional reads from several threads (files only).
    positional: Option<File>,
}

impl<R: Read + Seek> Input<R> {
    /// Wraps `reader` (`len` bytes long) read from `path`.
    pub(crate) fn new(reader: R, path: &Path, len: u64) -> Input<R> {
        Input {
            reader,
            path: path.to_path_buf(),
            len,
            positional: None,
        }
    }

    /// `self`, whose large reads go through `file` (the same file as the reader) in pieces
    /// read in parallel; `None` keeps every read on the reader.
    pub(crate) fn with_positional(mut self, file: Option<File>) -> Input<R> {
        self.positional = file;
        self
    }

    /// The file for positional reads from several threads at once, if the input is one.
    pub(crate) fn file(&self) -> Option<&File> {
        self.positional.as_ref()
    }

    /// The input's length in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The input's path (for messages).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Fills `buf` from `offset` on.
    pub(crate) fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), IoError> {
        #[cfg(unix)]
        if let Some(file) = &self.positional
            && buf.len() > PIECE_BYTES
        {
            use std::os::unix::fs::FileExt;
            return buf
                .par_chunks_mut(PIECE_BYTES)
                .enumerate()
                .try_for_each(|(i, piece)| {
                    file.read_exact_at(piece, offset + (i * PIECE_BYTES) as u64)
                })
                .map_err(|source| IoError::CannotRead {
                    path: self.path.clone(),
                    source,
                });
        }
        self.reader
            .seek(SeekFrom::Start(offset))
            .and_then(|_| self.reader.read_exact(buf))
            .map_err(|source| IoError::CannotRead {
                path: self.path.clone(),
                source,
            })
    }

    /// Runs `parse` on a buffered stream of the `len` bytes from `offset` on (for a header
    /// parsed as it is read, never whole in memory).
    pub(crate) fn stream_at<T>(
        &mut self,
        offset: u64,
        len: u64,
        parse: impl FnOnce(&mut dyn Read) -> T,
    ) -> Result<T, IoError> {
        self.reader
            .seek(SeekFrom::Start(offset))
            .map_err(|source| IoError::CannotRead {
                path: self.path.clone(),
                source,
            })?;
        let mut stream = std::io::BufReader::new((&mut self.reader).take(len));
        Ok(parse(&mut stream))
    }

    /// The first `n` bytes (fewer if the input is shorter).
    pub(crate) fn head(&mut self, n: u64) -> Result<Vec<u8>, IoError> {
        let n = usize::try_from(n.min(self.len)).unwrap_or(usize::MAX);
        let mut buf = vec![0u8; n];
        self.read_at(0, &mut buf)?;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn split_reads_equal_one_read_and_a_read_past_the_end_names_the_file() {
        let bytes: Vec<u8> = (0..(3 * PIECE_BYTES + 5))
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut tmp = tempfile::NamedTempFile::new().expect("a temporary file");
        tmp.write_all(&bytes).expect("written");
        let path = tmp.path().to_path_buf();
        let open = || File::open(&path).expect("opened");
        let mut input = Input::new(open(), &path, bytes.len() as u64).with_positional(Some(open()));
        let mut buf = vec![0u8; 2 * PIECE_BYTES + 3];
        input
            .read_at(PIECE_BYTES as u64 - 1, &mut buf)
            .expect("in range");
        assert!(buf[..] == bytes[PIECE_BYTES - 1..3 * PIECE_BYTES + 2]);
        let e = input
            .read_at(PIECE_BYTES as u64 + 9, &mut buf)
            .expect_err("past the end");
        assert!(
            matches!(&e, IoError::CannotRead { path: p, .. } if p == &path),
            "{e:?}"
        );
    }
}
