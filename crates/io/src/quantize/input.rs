//! A `.safetensors` input read piece by piece: its header first, then one tensor's bytes at a
//! time at their offsets (a file, or bytes in memory), never the whole data section.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

use memmap2::{Mmap, MmapOptions};
use safetensors::Dtype;

use super::error::QuantizeError;
use super::values::Values;
use crate::error::IoError;
use crate::safetensors::{SafetensorsFile, TensorEntry, header_len, parse_header_from};

/// Bytes copied at a time for a tensor kept as it is.
const COPY_CHUNK: usize = 1 << 20;

/// An open input: its parsed header (the file's `data` left empty) and where its data starts.
pub(crate) struct Input<R> {
    reader: R,
    /// The file again, when the input is a file: each tensor is then mapped into memory on
    /// its own where the system allows and read in place (floating values borrowed where
    /// aligned, kept tensors written from the map) instead of copied into a fresh buffer;
    /// the map goes with the tensor, so memory stays near the largest tensor.
    mappable: Option<std::fs::File>,
    /// The file's path, named by read errors (`None` for bytes in memory).
    path: Option<std::path::PathBuf>,
    /// The header: metadata, names and entries.
    pub file: SafetensorsFile<'static>,
    data_start: u64,
    /// Bytes of the data section.
    pub data_len: u64,
}

/// Opens `path` for reading, refusing a directory, with errors that name it.
pub(crate) fn open_file(path: &Path) -> Result<Input<std::fs::File>, QuantizeError> {
    if path.is_dir() {
        return Err(IoError::InputIsDirectory {
            path: path.to_path_buf(),
        }
        .into());
    }
    let cannot = |source| {
        QuantizeError::Io(IoError::CannotRead {
            path: path.to_path_buf(),
            source,
        })
    };
    let f = std::fs::File::open(path).map_err(cannot)?;
    let mut input = Input::new(f).map_err(|e| match e {
        QuantizeError::Io(source) => QuantizeError::Io(IoError::Reading {
            path: path.to_path_buf(),
            source: Box::new(source),
        }),
        other => other,
    })?;
    input.path = Some(path.to_path_buf());
    input.mappable = input.reader.try_clone().ok();
    Ok(input)
}

/// Bytes `offset..offset + len` of `file` mapped read-only with their pages populated up
/// front, or `None` when the system refuses (a pipe, a special file: the input is then
/// read).
fn map_range(file: &std::fs::File, offset: u64, len: usize) -> Option<Arc<Mmap>> {
    if len == 0 {
        return None;
    }
    // SAFETY: the map is only read, as bytes. Like every program that maps its input, this
    // one trusts that the file is not changed while it runs (a concurrent writer would
    // change the values read; a truncation would end the process with SIGBUS where a read
    // would have failed with an error).
    let map = unsafe {
        MmapOptions::new()
            .offset(offset)
            .len(len)
            .populate()
            .map(file)
    };
    map.ok().map(Arc::new)
}

impl<R: Read + Seek> Input<R> {
    /// Reads and checks the header of the `.safetensors` data `reader` holds.
    pub(crate) fn new(mut reader: R) -> Result<Input<R>, QuantizeError> {
        let file_len = reader.seek(SeekFrom::End(0)).map_err(IoError::Os)?;
        reader.seek(SeekFrom::Start(0)).map_err(IoError::Os)?;
        let mut first = Vec::with_capacity(8);
        (&mut reader)
            .take(8)
            .read_to_end(&mut first)
            .map_err(IoError::Os)?;
        let len = header_len(&first, file_len)?;
        let data_len = file_len - 8 - len;
        let header = parse_header_from((&mut reader).take(len), data_len)?;
        Ok(Input {
            reader,
            path: None,
            file: SafetensorsFile {
                metadata: header.metadata,
                names: header.tensors.iter().map(|t| t.name.clone()).collect(),
                entries: header.tensors,
                data: &[],
            },
            data_start: 8 + len,
            data_len,
            mappable: None,
        })
    }

    /// A read error, naming the file when there is one.
    fn read_error(&self, source: std::io::Error) -> QuantizeError {
        QuantizeError::Io(match &self.path {
            Some(path) => IoError::CannotRead {
                path: path.clone(),
                source,
            },
            None => IoError::Os(source),
        })
    }

    /// Seeks to the start of tensor `e`'s bytes.
    fn seek(&mut self, e: &TensorEntry) -> Result<(), QuantizeError> {
        let at = self.data_start + e.begin;
        self.reader
            .seek(SeekFrom::Start(at))
            .map_err(|err| self.read_error(err))?;
        Ok(())
    }

    /// The bytes of tensor `e`.
    pub(crate) fn bytes(&mut self, e: &TensorEntry) -> Result<Vec<u8>, QuantizeError> {
        self.seek(e)?;
        let mut out = vec![0u8; e.len() as usize];
        if let Err(err) = self.reader.read_exact(&mut out) {
            return Err(self.read_error(err));
        }
        Ok(out)
    }

    /// Tensor `e`'s bytes mapped (the whole map), when the input is a file the system maps
    /// and the tensor lies inside its data.
    fn mapped(&self, e: &TensorEntry) -> Option<(Arc<Mmap>, std::ops::Range<usize>)> {
        let file = self.mappable.as_ref()?;
        if e.begin.checked_add(e.len())? > self.data_len {
            return None;
        }
        let len = usize::try_from(e.len()).ok()?;
        let map = map_range(file, self.data_start + e.begin, len)?;
        (map.len() == len).then_some((map, 0..len))
    }

    /// Copies the bytes of tensor `e` to `out`, a chunk at a time (from the map when there
    /// is one).
    pub(crate) fn copy(
        &mut self,
        e: &TensorEntry,
        out: &mut dyn Write,
    ) -> Result<(), QuantizeError> {
        if let Some((map, range)) = self.mapped(e) {
            out.write_all(&map[range]).map_err(IoError::Os)?;
            return Ok(());
        }
        self.seek(e)?;
        let mut left = e.len();
        let mut buf = vec![0u8; COPY_CHUNK.min(left as usize)];
        while left > 0 {
            let n = buf.len().min(left as usize);
            if let Err(err) = self.reader.read_exact(&mut buf[..n]) {
                return Err(self.read_error(err));
            }
            out.write_all(&buf[..n]).map_err(IoError::Os)?;
            left -= n as u64;
        }
        Ok(())
    }

    /// The values of the floating tensor `e` (`None` for a dtype `quantize` does not read):
    /// borrowed from the map when the file is mapped and the tensor aligned for its type,
    /// otherwise read a chunk at a time into their typed buffer.
    pub(crate) fn values(&mut self, e: &TensorEntry) -> Result<Option<Values>, QuantizeError> {
        fn fill<T, const W: usize>(
            reader: &mut impl Read,
            n: usize,
            from: impl Fn([u8; W]) -> T,
        ) -> Result<Vec<T>, std::io::Error> {
            let mut out = Vec::with_capacity(n);
            let mut buf = vec![0u8; (COPY_CHUNK / W * W).min(n * W)];
            while out.len() < n {
                let k = (n - out.len()).min(buf.len() / W);
                reader.read_exact(&mut buf[..k * W])?;
                out.extend(buf[..k * W].chunks_exact(W).map(|c| {
                    let mut a = [0u8; W];
                    a.copy_from_slice(c);
                    from(a)
                }));
            }
            Ok(out)
        }
        if let Some((map, range)) = self.mapped(e)
            && let Some(values) = Values::mapped(map, range, e.dtype)
        {
            return Ok(Some(values));
        }
        self.seek(e)?;
        let r = &mut self.reader;
        let bytes = e.len() as usize;
        let values = match e.dtype {
            Dtype::F32 => fill(r, bytes / 4, f32::from_le_bytes).map(Values::F32),
            Dtype::F64 => fill(r, bytes / 8, f64::from_le_bytes).map(Values::F64),
            Dtype::F16 => fill(r, bytes / 2, u16::from_le_bytes).map(Values::F16),
            Dtype::BF16 => fill(r, bytes / 2, u16::from_le_bytes).map(Values::BF16),
            _ => return Ok(None),
        };
        values.map(Some).map_err(|err| self.read_error(err))
    }
}

/// The bytes of the small file `path` (an index, a tokenizer), with errors that name it.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, QuantizeError> {
    if path.is_dir() {
        return Err(IoError::InputIsDirectory {
            path: path.to_path_buf(),
        }
        .into());
    }
    std::fs::read(path).map_err(|source| {
        IoError::CannotRead {
            path: path.to_path_buf(),
            source,
        }
        .into()
    })
}
