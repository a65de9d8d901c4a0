//! The input of a streamed cast: a file or a buffer, read piece by piece at given offsets.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::IoError;

/// A seekable input of known length; read errors name its path.
pub(crate) struct Input<R> {
    reader: R,
    path: PathBuf,
    len: u64,
}

impl<R: Read + Seek> Input<R> {
    /// Wraps `reader` (`len` bytes long) read from `path`.
    pub(crate) fn new(reader: R, path: &Path, len: u64) -> Input<R> {
        Input {
            reader,
            path: path.to_path_buf(),
            len,
        }
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
        self.reader
            .seek(SeekFrom::Start(offset))
            .and_then(|_| self.reader.read_exact(buf))
            .map_err(|source| IoError::CannotRead {
                path: self.path.clone(),
                source,
            })
    }

    /// The first `n` bytes (fewer if the input is shorter).
    pub(crate) fn head(&mut self, n: u64) -> Result<Vec<u8>, IoError> {
        let n = usize::try_from(n.min(self.len)).unwrap_or(usize::MAX);
        let mut buf = vec![0u8; n];
        self.read_at(0, &mut buf)?;
        Ok(buf)
    }
}
