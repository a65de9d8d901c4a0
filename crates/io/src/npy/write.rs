//! Writing elements as a little-endian `.npy` file, narrow formats as ml_dtypes writes them:
//! the header is formatted here and the data goes out in one write.

use crate::packing::is_nibble;
use std::io::Write;

use super::dtype::descr_for;
use super::read::file_sub_byte;
use crate::elements::Elements;
use crate::error::IoError;

/// numpy aligns the data section to this many bytes.
const ALIGN: usize = 64;

/// The header of a `.npy` file (magic, version, dictionary padded so that the data starts on
/// a 64-byte boundary) for dtype `descr`, `fortran` order and the file's `shape`.
pub fn header_bytes(descr: &str, fortran: bool, shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(ToString::to_string).collect();
            format!("({})", parts.join(", "))
        }
    };
    let order = if fortran { "True" } else { "False" };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {dims}, }}");
    // Version 1.0 has a 2-byte header length; longer headers need version 2.0's 4 bytes.
    let v1_total = (10 + dict.len() + 1).div_ceil(ALIGN) * ALIGN;
    let (version, len_bytes, total) = if v1_total - 10 <= usize::from(u16::MAX) {
        (1u8, 2, v1_total)
    } else {
        (2u8, 4, (12 + dict.len() + 1).div_ceil(ALIGN) * ALIGN)
    };
    let header_len = total - 8 - len_bytes;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"\x93NUMPY");
    out.extend_from_slice(&[version, 0]);
    if len_bytes == 2 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

/// The shape a `.npy` file records for logical `shape` (`packed`: the last dimension in bytes).
pub(crate) fn file_shape(shape: &[usize], packed: bool) -> Result<Vec<usize>, IoError> {
    let mut file_shape = shape.to_vec();
    if packed {
        match file_shape.last_mut() {
            Some(last) => *last = last.div_ceil(2),
            None => return Err(IoError::PackedScalar),
        }
    }
    Ok(file_shape)
}

/// Writes `elements` (of logical `shape`) as an `.npy` file; `fortran` keeps Fortran order,
/// `packed` stores 4-bit rows two per byte as a `|u1` array.
pub fn write(
    w: &mut dyn Write,
    elements: &Elements<'_>,
    shape: &[usize],
    fortran: bool,
    packed: bool,
) -> Result<(), IoError> {
    let format = elements.storage.format();
    let packed = packed && is_nibble(format);
    let sub = file_sub_byte(format, shape, packed);
    let header = header_bytes(
        descr_for(format, packed),
        fortran,
        &file_shape(shape, packed)?,
    );
    w.write_all(&header)?;
    w.write_all(&elements.to_file(sub))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_aligned_and_parse_back() {
        for shape in [vec![], vec![7], vec![2, 3], vec![1 << 40, 0]] {
            let h = header_bytes("<f4", false, &shape);
            assert_eq!(h.len() % ALIGN, 0);
            assert_eq!(h.last(), Some(&b'\n'));
            let head = super::super::parse_head(&h, 0);
            if shape.contains(&0) {
                assert_eq!(head.unwrap().shape, shape);
            } else {
                // No data follows this header, and the shape needs some.
                assert!(head.is_err());
            }
        }
        let h = header_bytes("<V2", true, &[3]);
        let text = String::from_utf8_lossy(&h[10..]);
        assert!(
            text.starts_with("{'descr': '<V2', 'fortran_order': True, 'shape': (3,), }"),
            "{text}"
        );
        let long: Vec<usize> = vec![1; 30_000];
        let h = header_bytes("<f4", false, &long);
        assert_eq!(h[6], 2);
        assert_eq!(h.len() % ALIGN, 0);
        // A header this long (numpy arrays have at most 64 dimensions) is past the reader's
        // limit: refused by its length, not parsed.
        assert!(matches!(
            super::super::parse_head(&h, 4),
            Err(IoError::NpyHeaderTooLarge { .. })
        ));
    }
}
