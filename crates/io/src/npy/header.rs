//! Parsing a `.npy` file held in memory: preamble, header dictionary, data section.

use npyz::{DType, Endianness, NpyHeader, Order};

use super::bounds::{check_header_len, check_header_text};
use super::dtype::{NpyDtype, classify};
use crate::elements::element_count;
use crate::error::IoError;

/// The facts of a `.npy` header, checked against the size of the data that follows it.
#[derive(Clone, Debug)]
pub struct NpyHead {
    /// The dtype string as written in the file (e.g. `<V2`, `>f4`).
    pub descr: String,
    /// What the dtype means.
    pub dtype: NpyDtype,
    /// Bytes per element.
    pub item_bytes: usize,
    /// Shape as written in the file.
    pub shape: Vec<usize>,
    /// Whether the data is in Fortran order (a cast is element-wise, so the order is kept).
    pub fortran: bool,
    /// Whether multi-byte elements are stored big-endian.
    pub big_endian: bool,
    /// Offset of the data section in the file.
    pub data_start: usize,
}

/// A parsed `.npy` file: header facts plus the data bytes.
#[derive(Debug)]
pub struct NpyArray<'a> {
    /// The dtype string as written in the file (e.g. `<V2`, `>f4`).
    pub descr: String,
    /// What the dtype means.
    pub dtype: NpyDtype,
    /// Bytes per element.
    pub item_bytes: usize,
    /// Shape as written in the file.
    pub shape: Vec<usize>,
    /// Whether the data is in Fortran order (a cast is element-wise, so the order is kept).
    pub fortran: bool,
    /// Whether multi-byte elements are stored big-endian (`data` is as in the file;
    /// [`super::elements`] swaps them).
    pub big_endian: bool,
    /// The data bytes as in the file (exactly shape × item size).
    pub data: &'a [u8],
}

const MAGIC: &[u8] = b"\x93NUMPY";

/// Bytes of the preamble (magic, version, header length) a reader needs to find the header's
/// end ([`header_end`]).
pub const PREAMBLE_BYTES: usize = 12;

/// Largest element count a header may declare (leaves room for 16-byte elements).
const MAX_ELEMENTS: u64 = (usize::MAX / 16) as u64;

/// Parses an `.npy` file held in memory.
pub fn parse(bytes: &[u8]) -> Result<NpyArray<'_>, IoError> {
    let data_start = header_end(bytes, bytes.len() as u64)?;
    let head = parse_head(&bytes[..data_start], (bytes.len() - data_start) as u64)?;
    Ok(NpyArray {
        descr: head.descr,
        dtype: head.dtype,
        item_bytes: head.item_bytes,
        shape: head.shape,
        fortran: head.fortran,
        big_endian: head.big_endian,
        data: &bytes[data_start..],
    })
}

/// Where the header of a `.npy` file of `file_len` bytes ends (and its data starts), read from
/// the file's first bytes (at least [`PREAMBLE_BYTES`] of them if the file has that many).
pub fn header_end(preamble: &[u8], file_len: u64) -> Result<usize, IoError> {
    if preamble.len() < 10 || &preamble[..6] != MAGIC {
        return Err(IoError::NpyMagic);
    }
    let (major, minor) = (preamble[6], preamble[7]);
    let (len_bytes, header_len) = match major {
        1 => (
            2,
            usize::from(u16::from_le_bytes([preamble[8], preamble[9]])),
        ),
        2 | 3 => {
            let Some(n) = preamble.get(8..12) else {
                return Err(IoError::NpyHeaderLengthCut);
            };
            let n = u32::from_le_bytes([n[0], n[1], n[2], n[3]]);
            // A u32 always fits a usize on the 32- and 64-bit targets npusim builds for.
            (4, usize::try_from(n).unwrap_or(usize::MAX))
        }
        _ => return Err(IoError::NpyVersion { major, minor }),
    };
    check_header_len(header_len as u64)?;
    let text_start: usize = 8 + len_bytes;
    let data_start = text_start.saturating_add(header_len);
    if file_len < data_start as u64 {
        return Err(IoError::NpyHeaderCut {
            header_len,
            available: usize::try_from(file_len).unwrap_or(usize::MAX) - text_start,
        });
    }
    Ok(data_start)
}

/// Parses the header `prefix` (the file up to [`header_end`]) of a file whose data section has
/// `data_len` bytes.
pub fn parse_head(prefix: &[u8], data_len: u64) -> Result<NpyHead, IoError> {
    let data_start = prefix.len();
    let text_start = if prefix.get(6) == Some(&1) { 10 } else { 12 };
    if !prefix.starts_with(MAGIC) || prefix.len() < text_start {
        return Err(IoError::NpyMagic);
    }
    let text = &prefix[text_start..];
    check_header_text(text)?;
    let text_str = String::from_utf8_lossy(text);
    // Refuse shapes whose products overflow before npyz multiplies them (a zero dimension
    // means no elements at all).
    if let Some(dims) = scan_shape(&text_str) {
        let fits = dims.contains(&0)
            || dims
                .iter()
                .try_fold(1u64, |acc, &d| acc.checked_mul(d))
                .is_some_and(|n| n <= MAX_ELEMENTS);
        if !fits {
            return Err(IoError::NpyShapeTooLarge { dims });
        }
    }
    // A dtype string numpy would not know: npusim's own message, naming the field.
    if let Some(descr) = scan_descr(&text_str) {
        let ml_e5m2 = matches!(descr.as_str(), "<f1" | "|f1");
        if !ml_e5m2 && descr.parse::<npyz::TypeStr>().is_err() {
            return Err(IoError::NpyDescr { descr });
        }
    }
    // ml_dtypes 0.6 writes float8_e5m2 as '<f1', which is no numpy dtype (npyz refuses it
    // too): read it as the 1-byte blob it is. The replacement keeps the header length.
    let mut prefix = prefix.to_vec();
    let mut ml_e5m2 = false;
    for pat in [&b"'<f1'"[..], &b"'|f1'"[..]] {
        if let Some(pos) = find(&prefix[text_start..], pat) {
            prefix[text_start + pos + 2] = b'V';
            ml_e5m2 = true;
        }
    }
    let header = NpyHeader::from_reader(&prefix[..]).map_err(|e| IoError::NpyHeader {
        reason: e.to_string(),
        text: text_str.trim_end().to_string(),
    })?;
    let DType::Plain(ts) = header.dtype() else {
        return Err(IoError::NpyStructured {
            descr: header.dtype().descr(),
        });
    };
    let descr = if ml_e5m2 {
        ts.to_string().replace('V', "f")
    } else {
        ts.to_string()
    };
    let item_bytes = ts.num_bytes().ok_or_else(|| IoError::NpyDtypeTooLarge {
        descr: descr.clone(),
    })?;
    let dtype = classify(&ts, &descr, ml_e5m2)?;
    let shape: Vec<usize> = header
        .shape()
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| IoError::NpyShapeTooLarge {
                dims: header.shape().to_vec(),
            })
        })
        .collect::<Result<_, _>>()?;
    let count = element_count(&shape)?;
    let need = count
        .checked_mul(item_bytes)
        .ok_or_else(|| IoError::NpyTooLarge {
            shape: shape.clone(),
        })?;
    let have = usize::try_from(data_len).unwrap_or(usize::MAX);
    if have < need {
        return Err(IoError::NpyDataCut {
            shape,
            descr,
            count,
            item_bytes,
            need,
            have,
        });
    }
    if have > need {
        return Err(IoError::NpyDataLeftOver {
            shape,
            descr,
            need,
            have,
        });
    }
    Ok(NpyHead {
        descr,
        dtype,
        item_bytes,
        shape,
        fortran: header.order() == Order::Fortran,
        big_endian: ts.endianness() == Endianness::Big && item_bytes > 1,
        data_start,
    })
}

/// Finds `pat` in `hay`.
fn find(hay: &[u8], pat: &[u8]) -> Option<usize> {
    hay.windows(pat.len()).position(|w| w == pat)
}

/// The string of the header's `'descr': '...'` field, if it is a plain string.
fn scan_descr(text: &str) -> Option<String> {
    let at = text.find("'descr'").or_else(|| text.find("\"descr\""))?;
    let rest = text[at + 7..].trim_start().strip_prefix(':')?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = &rest[1..];
    Some(inner[..inner.find(quote)?].to_string())
}

/// The integers of the header's `'shape': (...)` tuple, if it is written plainly.
fn scan_shape(text: &str) -> Option<Vec<u64>> {
    let at = text.find("'shape'").or_else(|| text.find("\"shape\""))?;
    let rest = &text[at + 7..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let inner = rest.strip_prefix('(')?;
    let inner = &inner[..inner.find(')')?];
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse::<u64>().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_scanned_from_plain_headers() {
        assert_eq!(
            scan_shape("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
            Some(vec![2, 3])
        );
        assert_eq!(scan_shape("{'shape': (), 'descr': '<f4'}"), Some(vec![]));
        assert_eq!(scan_shape("{'shape': (7,), }"), Some(vec![7]));
    }

    #[test]
    fn a_zero_dimension_beside_a_huge_one_has_no_elements() {
        let text = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 0), }";
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        file.extend_from_slice(&(text.len() as u16).to_le_bytes());
        file.extend_from_slice(text.as_bytes());
        let a = parse(&file).unwrap();
        assert_eq!(a.shape, [1usize << 62, 0]);
        assert!(a.data.is_empty());
    }

    #[test]
    fn an_unknown_dtype_string_is_named() {
        assert_eq!(
            scan_descr("{'descr': '<x4', 'shape': (4,), }"),
            Some("<x4".to_string())
        );
        assert_eq!(scan_descr("{'descr': [('a', '<f4')], }"), None);
        let text = "{'descr': 'zzz', 'fortran_order': False, 'shape': (1,), }";
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        file.extend_from_slice(&(text.len() as u16).to_le_bytes());
        file.extend_from_slice(text.as_bytes());
        file.extend_from_slice(&[0; 4]);
        assert_eq!(
            parse(&file).unwrap_err().to_string(),
            "the .npy header's 'descr' field 'zzz' is not a numpy dtype string (such as '<f4', '|i1', '<V2')"
        );
    }

    #[test]
    fn broken_preambles_are_named() {
        assert!(matches!(parse(b"hello world"), Err(IoError::NpyMagic)));
        assert!(matches!(
            parse(b"\x93NUMPY\x09\x00\x00\x00"),
            Err(IoError::NpyVersion { major: 9, minor: 0 })
        ));
        let e = parse(b"\x93NUMPY\x01\x00\xff\x00{'descr'")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "truncated .npy header: it claims 255 bytes but the file has only 8 after the preamble"
        );
    }
}
