//! What a tensor file holds, read from its header alone: each tensor's name, dtype, npusim
//! format, shape, element count and data bytes (`npusim info`).
//!
//! Only the header is read (a `.npy` preamble and dictionary, a `.safetensors` JSON header),
//! so inspecting a many-gigabyte checkpoint is instant; the data section is checked against
//! the file's length, not read.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::container::Container;
use crate::elements::element_count;
use crate::error::IoError;
use crate::npy::{check_header_len, check_header_text, descr_for};
use crate::safetensors::{header_len, interpret, parse_header_from};
use npusim_numerics::Format;
use npyz::{DType, NpyHeader, Order};

/// Why a file's header could not be inspected.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The file could not be opened or read.
    #[error("cannot read `{path}`: {source}")]
    CannotRead {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The path is a directory.
    #[error("`{path}` is a directory, not a tensor file")]
    Directory {
        /// The path.
        path: PathBuf,
    },
    /// The file ends inside its header.
    #[error("`{path}` ends inside its header: {what} needs {need} bytes, the file has {have}")]
    HeaderCut {
        /// The file.
        path: PathBuf,
        /// Which part of the header.
        what: &'static str,
        /// Bytes needed to the end of that part.
        need: u64,
        /// Bytes in the file.
        have: u64,
    },
    /// The header is not what the container says.
    #[error("`{path}`: {problem}")]
    BadHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the field and the numbers.
        problem: String,
    },
    /// A library error (unknown extension, metadata entry that names no format, ...).
    #[error(transparent)]
    Io(#[from] IoError),
}

/// One tensor as its file's header describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// Its name (a `.npy` file's file name).
    pub name: String,
    /// Its dtype as the file writes it (`<f4`, `<V2`, `F32`, `U8`, ...).
    pub dtype: Cow<'static, str>,
    /// The npusim format it holds (`None`: the file does not say, as `<V2`, or npusim has none).
    pub format: Option<Format>,
    /// Shape as stored in the file.
    pub shape: Vec<u64>,
    /// Number of elements (the product of the shape; a zero dimension makes it 0).
    pub elements: u64,
    /// Bytes of data in the file.
    pub bytes: u64,
}

/// What a file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileInfo {
    /// Its container.
    pub container: Container,
    /// Its tensors, in the order of their data in the file.
    pub tensors: Vec<TensorInfo>,
    /// A `.safetensors` file's `__metadata__` entries, sorted by key.
    pub metadata: Vec<(String, String)>,
}

/// Reads the header of the `.npy` or `.safetensors` file at `path`.
pub fn inspect_file(path: &Path) -> Result<FileInfo, InspectError> {
    let cannot = |source| InspectError::CannotRead {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        return Err(InspectError::Directory {
            path: path.to_path_buf(),
        });
    }
    let container = Container::of(path)?;
    let file = std::fs::File::open(path).map_err(cannot)?;
    let len = file.metadata().map_err(cannot)?.len();
    let mut reader = std::io::BufReader::new(file);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match container {
        Container::Npy => inspect_npy(&mut reader, len, path, &name),
        Container::Safetensors => inspect_safetensors(&mut reader, len, path),
        Container::Raw => Err(InspectError::BadHeader {
            path: path.to_path_buf(),
            problem: "a raw file has no header: its source format and shape are not in the file"
                .into(),
        }),
    }
}

/// Reads exactly `n` bytes (ending at byte `end` of the file) or says where the header is cut.
fn read_part(
    r: &mut dyn Read,
    n: u64,
    end: u64,
    len: u64,
    path: &Path,
    what: &'static str,
) -> Result<Vec<u8>, InspectError> {
    if end > len {
        return Err(InspectError::HeaderCut {
            path: path.to_path_buf(),
            what,
            need: end,
            have: len,
        });
    }
    let mut buf = vec![0u8; usize::try_from(n).unwrap_or(usize::MAX)];
    r.read_exact(&mut buf)
        .map_err(|source| InspectError::CannotRead {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(buf)
}

/// The product of `shape`, or `None` if it overflows (a zero dimension makes it 0).
fn product(shape: &[u64]) -> Option<u64> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
}

/// The header of a `.npy` file of `len` bytes.
fn inspect_npy(
    r: &mut dyn Read,
    len: u64,
    path: &Path,
    name: &str,
) -> Result<FileInfo, InspectError> {
    let bad = |problem: String| InspectError::BadHeader {
        path: path.to_path_buf(),
        problem,
    };
    let mut prefix = read_part(r, 8, 8, len, path, "the .npy preamble")?;
    if &prefix[..6] != b"\x93NUMPY" {
        return Err(bad(
            "not a .npy file: it does not start with \\x93NUMPY".into()
        ));
    }
    let len_bytes: u64 = match prefix[6] {
        1 => 2,
        2 | 3 => 4,
        major => {
            return Err(bad(format!(
                ".npy format version {major}.{} is not one of 1.0, 2.0, 3.0",
                prefix[7]
            )));
        }
    };
    let len_field = read_part(r, len_bytes, 8 + len_bytes, len, path, "the header length")?;
    let header_len = len_field
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    // The limits `cast` applies too, before anything parses the header.
    check_header_len(header_len).map_err(|e| bad(e.to_string()))?;
    let data_start = 8 + len_bytes + header_len;
    let text = read_part(r, header_len, data_start, len, path, "the header")?;
    check_header_text(&text).map_err(|e| bad(e.to_string()))?;
    prefix.extend_from_slice(&len_field);
    let text_at = prefix.len();
    prefix.extend_from_slice(&text);
    // ml_dtypes 0.6 writes float8_e5m2 as '<f1', which npyz refuses: read it as '<V1'.
    let mut e5m2 = false;
    for pat in [&b"'<f1'"[..], &b"'|f1'"[..]] {
        if let Some(pos) = prefix[text_at..].windows(pat.len()).position(|w| w == pat) {
            prefix[text_at + pos + 2] = b'V';
            e5m2 = true;
        }
    }
    let header = NpyHeader::from_reader(&prefix[..]).map_err(|e| {
        bad(format!(
            "invalid .npy header ({e}): {}",
            String::from_utf8_lossy(&text).trim_end()
        ))
    })?;
    let DType::Plain(ts) = header.dtype() else {
        return Err(bad(format!(
            "structured dtype {} has no npusim format",
            header.dtype().descr()
        )));
    };
    let descr = if e5m2 {
        ts.to_string().replace('V', "f")
    } else {
        ts.to_string()
    };
    let item = ts.num_bytes().unwrap_or(0) as u64;
    let shape = header.shape().to_vec();
    let elements = product(&shape).ok_or_else(|| {
        bad(format!(
            "shape {shape:?} has more elements than a u64 holds"
        ))
    })?;
    let bytes = elements.checked_mul(item).ok_or_else(|| {
        bad(format!(
            "shape {shape:?} of {descr} holds more bytes than a u64"
        ))
    })?;
    let held = len - data_start;
    if held != bytes {
        return Err(bad(format!(
            "the header says {elements} elements of {item} bytes ({bytes} bytes, shape {shape:?}, dtype {descr}) but the data section holds {held} bytes"
        )));
    }
    let fortran = if header.order() == Order::Fortran {
        " (Fortran order)"
    } else {
        ""
    };
    Ok(FileInfo {
        container: Container::Npy,
        tensors: vec![TensorInfo {
            name: name.to_string(),
            dtype: Cow::Owned(format!("{descr}{fortran}")),
            format: npy_format(&descr),
            shape,
            elements,
            bytes,
        }],
        metadata: Vec::new(),
    })
}

/// The format of a standard `.npy` dtype in either byte order (`None` for the opaque `<V2`,
/// `<V1`, `<f1` that need a source format): the format npusim itself writes under that dtype.
fn npy_format(descr: &str) -> Option<Format> {
    let little = descr.replacen('>', "<", 1);
    Format::ALL.into_iter().find(|&f| {
        let written = descr_for(f, false);
        !written.contains('V') && (written == little || written == descr)
    })
}

/// How many tensors [`inspect_safetensors`] converts between two shrinks of the entry list.
const SHRINK_EVERY: usize = 1 << 16;

/// A safetensors dtype's name, without an allocation for the dtypes the format lists.
fn dtype_name(dtype: crate::safetensors::Dtype) -> Cow<'static, str> {
    use crate::safetensors::Dtype as D;
    let name = match dtype {
        D::F64 => "F64",
        D::F32 => "F32",
        D::F16 => "F16",
        D::BF16 => "BF16",
        D::F8_E4M3 => "F8_E4M3",
        D::F8_E5M2 => "F8_E5M2",
        D::F8_E8M0 => "F8_E8M0",
        D::F4 => "F4",
        D::I64 => "I64",
        D::I32 => "I32",
        D::I16 => "I16",
        D::I8 => "I8",
        D::U64 => "U64",
        D::U32 => "U32",
        D::U16 => "U16",
        D::U8 => "U8",
        D::BOOL => "BOOL",
        other => return Cow::Owned(other.to_string()),
    };
    Cow::Borrowed(name)
}

/// The header of a `.safetensors` file of `len` bytes, parsed and checked as a cast parses it
/// ([`crate::safetensors::parse_header`]).
fn inspect_safetensors(r: &mut dyn Read, len: u64, path: &Path) -> Result<FileInfo, InspectError> {
    let first = read_part(r, 8, 8, len, path, "the 8-byte header length")?;
    let header_len = header_len(&first, len).map_err(|e| e.reading(path))?;
    if 8 + header_len > len {
        return Err(InspectError::HeaderCut {
            path: path.to_path_buf(),
            what: "the JSON header",
            need: 8 + header_len,
            have: len,
        });
    }
    // Parsed as it is read: the header text is never held whole.
    let header =
        parse_header_from(r.take(header_len), len - 8 - header_len).map_err(|e| e.reading(path))?;
    // First every check, in data order (the first faulty tensor is the one named), keeping
    // only each tensor's format and element count.
    let mut facts = Vec::with_capacity(header.tensors.len());
    for t in &header.tensors {
        let format =
            interpret(&t.name, t.dtype, &t.shape, header.metadata.as_ref())?.map(|i| i.format);
        let elements = element_count(&t.shape).map_err(|e| e.reading(path))? as u64;
        facts.push((format, elements));
    }
    // Then the entries become infos from the last one back, their names and shapes moved, the
    // entries' own list shrinking as it empties: the two lists are never both whole.
    let mut entries = header.tensors;
    let mut tensors = Vec::with_capacity(entries.len());
    while let (Some(t), Some((format, elements))) = (entries.pop(), facts.pop()) {
        tensors.push(TensorInfo {
            dtype: dtype_name(t.dtype),
            format,
            bytes: t.len(),
            shape: t.shape.into_iter().map(|d| d as u64).collect(),
            elements,
            name: t.name,
        });
        if entries.len() % SHRINK_EVERY == 0 {
            entries.shrink_to_fit();
            facts.shrink_to_fit();
        }
    }
    tensors.reverse();
    let mut metadata: Vec<(String, String)> =
        header.metadata.unwrap_or_default().into_iter().collect();
    metadata.sort();
    Ok(FileInfo {
        container: Container::Safetensors,
        tensors,
        metadata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        let mut f = std::fs::File::create(&p).unwrap();
        f.write_all(bytes).unwrap();
        p
    }

    fn st_file(header: &str, data: usize) -> Vec<u8> {
        let mut b = (header.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(header.as_bytes());
        b.resize(b.len() + data, 0);
        b
    }

    fn npy_file(descr: &str, shape: &str, data: usize) -> Vec<u8> {
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        let mut text = dict.into_bytes();
        while (10 + text.len() + 1) % 64 != 0 {
            text.push(b' ');
        }
        text.push(b'\n');
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(text.len() as u16).to_le_bytes());
        b.extend_from_slice(&text);
        b.resize(b.len() + data, 0);
        b
    }

    #[test]
    fn safetensors_headers_give_every_tensor_in_data_order() {
        let dir = tempfile::tempdir().unwrap();
        let h = r#"{"b":{"dtype":"BF16","shape":[2,3],"data_offsets":[16,28]},"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"q":{"dtype":"U8","shape":[5],"data_offsets":[28,33]},"z":{"dtype":"F32","shape":[4611686018427387904,0],"data_offsets":[33,33]},"__metadata__":{"npusim.dtype.q":"hif8"}}"#;
        let p = write_file(dir.path(), "m.safetensors", &st_file(h, 33));
        let info = inspect_file(&p).unwrap();
        let names: Vec<_> = info.tensors.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "q", "z"]);
        let b = &info.tensors[1];
        assert_eq!((&*b.dtype, b.format), ("BF16", Some(Format::BF16)));
        assert_eq!((b.elements, b.bytes), (6, 12));
        assert_eq!(info.tensors[2].format, Some(Format::HiF8));
        assert_eq!(info.tensors[3].elements, 0);
        assert_eq!(info.metadata, [("npusim.dtype.q".into(), "hif8".into())]);
        // The message with its causes, as the CLI prints it.
        let chain = |e: InspectError| {
            let mut out = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                out = format!("{out}: {c}");
                cause = c.source();
            }
            out
        };
        // A tensor that runs past the data.
        let p = write_file(dir.path(), "cut.safetensors", &st_file(h, 30));
        let e = chain(inspect_file(&p).unwrap_err());
        assert!(
            e.ends_with("cut.safetensors`: truncated .safetensors file: the header describes 33 bytes of tensor data but the file holds only 30"),
            "{e}"
        );
        // Offsets that do not match the shape.
        let h2 = r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,12]}}"#;
        let p = write_file(dir.path(), "bad.safetensors", &st_file(h2, 12));
        let e = chain(inspect_file(&p).unwrap_err());
        assert!(
            e.contains("tensor `a`: dtype F32 and shape [4] need 4 elements")
                && e.ends_with("but data_offsets [0, 12] hold 12 bytes"),
            "{e}"
        );
        let h3 = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
        let p = write_file(dir.path(), "twice.safetensors", &st_file(h3, 4));
        let e = chain(inspect_file(&p).unwrap_err());
        assert!(
            e.ends_with("the .safetensors header names tensor `a` twice"),
            "{e}"
        );
        let p = write_file(dir.path(), "short.safetensors", &[1, 2, 3]);
        let e = inspect_file(&p).unwrap_err().to_string();
        assert!(e.contains("needs 8 bytes, the file has 3"), "{e}");
    }

    #[test]
    fn npy_headers_give_dtype_format_and_size() {
        let dir = tempfile::tempdir().unwrap();
        for (descr, item, format) in [
            ("<f4", 4, Some(Format::F32)),
            (">f4", 4, Some(Format::F32)),
            ("<i2", 2, Some(Format::I16)),
            ("|u1", 1, Some(Format::U8)),
            ("<V2", 2, None),
            ("<f1", 1, None),
        ] {
            let p = write_file(dir.path(), "a.npy", &npy_file(descr, "(2, 3)", 6 * item));
            let info = inspect_file(&p).unwrap();
            let t = &info.tensors[0];
            assert_eq!(t.dtype, descr);
            assert_eq!(t.format, format, "{descr}");
            assert_eq!(
                (t.shape.clone(), t.elements, t.bytes),
                (vec![2, 3], 6, 6 * item as u64)
            );
            let p = write_file(
                dir.path(),
                "b.npy",
                &npy_file(descr, "(2, 3)", 6 * item - 1),
            );
            let e = inspect_file(&p).unwrap_err().to_string();
            assert!(
                e.contains(&format!("the data section holds {} bytes", 6 * item - 1)),
                "{e}"
            );
        }
        let e = inspect_file(dir.path()).unwrap_err().to_string();
        assert!(e.ends_with("is a directory, not a tensor file"), "{e}");
    }
}
