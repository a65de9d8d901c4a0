//! numpy `.npy` files, including the ones ml_dtypes writes.
//!
//! Standard little-endian dtypes map to formats directly (`<f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2
//! <u4`). ml_dtypes 0.6.0 (with numpy 2.x) saves its narrow types under dtypes that do not say
//! which format they hold: `bfloat16` as `<V2`; `float8_e4m3fn`, `float8_e8m0fnu`,
//! `float4_e2m1fn`, `int4` (and the other 8/4-bit types) as `<V1`; and `float8_e5m2` as `<f1`,
//! a descr numpy itself refuses to load. Such files need `--from`.
//!
//! npusim writes narrow formats the way ml_dtypes does, so that
//! `np.load(path).view(ml_dtypes.X)` gives the values: `bf16` as `<V2`, every 8-bit narrow
//! float and every 4-bit format (one element per byte, low nibble) as `<V1`, except that
//! `f8e5m2` is written as `<V1` too (not `<f1`) so that numpy can load it. With `--packed`, a
//! 4-bit array is written as a `|u1` array whose last dimension is `ceil(d / 2)`: each row of
//! `d` elements packed two per byte, element 0 in the low nibble.

use std::io::Write;

use anyhow::{Context, Result, anyhow, bail};
use npusim_numerics::Format;
use npyz::{DType, Endianness, FixedSizeBytes, NpyHeader, Order, TypeChar, TypeStr, WriterBuilder};

use super::{Elements, SubByte, element_count, shape_str};

/// What an `.npy` dtype says about its elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NpyDtype {
    /// A standard numpy dtype with an npusim format.
    Standard(Format),
    /// Elements of this many bytes whose format the file does not say (`<V2`, `<V1`, and
    /// ml_dtypes' `<f1`).
    Opaque {
        /// Bytes per element.
        bytes: usize,
        /// What usually writes this dtype, for the error message.
        hint: &'static str,
    },
}

/// A parsed `.npy` file: header facts plus the data bytes.
#[derive(Debug)]
pub struct NpyArray<'a> {
    /// The dtype string as written in the file (e.g. `<V2`).
    pub descr: String,
    /// What the dtype means.
    pub dtype: NpyDtype,
    /// Bytes per element.
    pub item_bytes: usize,
    /// Shape as written in the file.
    pub shape: Vec<usize>,
    /// Whether the data is in Fortran order (a cast is element-wise, so the order is kept).
    pub fortran: bool,
    /// The data bytes (exactly shape × item size).
    pub data: &'a [u8],
}

const MAGIC: &[u8] = b"\x93NUMPY";

/// Parses an `.npy` file held in memory.
pub fn parse(bytes: &[u8]) -> Result<NpyArray<'_>> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        bail!("not a .npy file: it does not start with the \\x93NUMPY magic");
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (len_bytes, header_len) = match major {
        1 => (2, usize::from(u16::from_le_bytes([bytes[8], bytes[9]]))),
        2 | 3 => {
            if bytes.len() < 12 {
                bail!("truncated .npy header");
            }
            let n = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            (
                4,
                usize::try_from(n).context("the .npy header length does not fit in memory")?,
            )
        }
        _ => bail!("unsupported .npy format version {major}.{minor}"),
    };
    let data_start = 8 + len_bytes + header_len;
    if bytes.len() < data_start {
        bail!(
            "truncated .npy header: it claims {header_len} bytes but the file has only {} after the preamble",
            bytes.len() - 8 - len_bytes
        );
    }
    let text = &bytes[8 + len_bytes..data_start];
    let text_str = String::from_utf8_lossy(text);
    // Refuse shapes whose products overflow before npyz multiplies them.
    if let Some(dims) = scan_shape(&text_str) {
        let fits = dims
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d.max(1)))
            .is_some_and(|n| n <= (usize::MAX / 16) as u64);
        if !fits {
            bail!("the .npy header's shape {dims:?} has more elements than fit in memory");
        }
    }
    // ml_dtypes 0.6 writes float8_e5m2 as '<f1', which is no numpy dtype (npyz refuses it
    // too): read it as the 1-byte blob it is. The replacement keeps the header length.
    let mut prefix = bytes[..data_start].to_vec();
    let mut ml_e5m2 = false;
    for pat in [&b"'<f1'"[..], &b"'|f1'"[..]] {
        if let Some(pos) = find(&prefix[8 + len_bytes..], pat) {
            let at = 8 + len_bytes + pos + 2;
            prefix[at] = b'V';
            ml_e5m2 = true;
        }
    }
    let header = NpyHeader::from_reader(&prefix[..])
        .map_err(|e| anyhow!("invalid .npy header ({e}): {}", text_str.trim_end()))?;
    let DType::Plain(ts) = header.dtype() else {
        bail!(
            "structured .npy dtype {} is not supported; save a plain numeric array",
            header.dtype().descr()
        );
    };
    let descr = if ml_e5m2 {
        ts.to_string().replace('V', "f")
    } else {
        ts.to_string()
    };
    let item_bytes = ts
        .num_bytes()
        .ok_or_else(|| anyhow!("dtype '{descr}' is too large"))?;
    let dtype = classify(&ts, &descr, ml_e5m2)?;
    let shape: Vec<usize> = header
        .shape()
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<_, _>>()
        .context("the .npy shape does not fit in memory")?;
    let count = element_count(&shape)?;
    let need = count
        .checked_mul(item_bytes)
        .ok_or_else(|| anyhow!("the .npy shape {shape:?} is too large"))?;
    let have = bytes.len() - data_start;
    if have < need {
        bail!(
            "truncated .npy data: the header says shape {} of '{descr}' ({count} elements × {item_bytes} bytes = {need} bytes) but the file has only {have} bytes of data",
            shape_str(&shape)
        );
    }
    if have > need {
        bail!(
            "the .npy file has {have} bytes of data but its header says shape {} of '{descr}' = {need} bytes; {} bytes are left over",
            shape_str(&shape),
            have - need
        );
    }
    Ok(NpyArray {
        descr,
        dtype,
        item_bytes,
        shape,
        fortran: header.order() == Order::Fortran,
        data: &bytes[data_start..],
    })
}

/// Maps a numpy type string to what npusim can do with it.
fn classify(ts: &TypeStr, descr: &str, ml_e5m2: bool) -> Result<NpyDtype> {
    let size = ts.num_bytes().unwrap_or(0);
    if ts.endianness() == Endianness::Big && size > 1 {
        bail!(
            "big-endian dtype '{descr}' is not supported; save the array little-endian (arr.astype(arr.dtype.newbyteorder('<')))"
        );
    }
    let std = match (ts.type_char(), size) {
        (TypeChar::Float, 8) => Some(Format::F64),
        (TypeChar::Float, 4) => Some(Format::F32),
        (TypeChar::Float, 2) => Some(Format::F16),
        (TypeChar::Int, 1) => Some(Format::I8),
        (TypeChar::Int, 2) => Some(Format::I16),
        (TypeChar::Int, 4) => Some(Format::I32),
        (TypeChar::Int, 8) => Some(Format::I64),
        (TypeChar::Uint, 1) => Some(Format::U8),
        (TypeChar::Uint, 2) => Some(Format::U16),
        (TypeChar::Uint, 4) => Some(Format::U32),
        _ => None,
    };
    if let Some(f) = std {
        return Ok(NpyDtype::Standard(f));
    }
    match (ts.type_char(), size) {
        (TypeChar::RawData, 1) if ml_e5m2 => Ok(NpyDtype::Opaque {
            bytes: 1,
            hint: "ml_dtypes 0.6 saves float8_e5m2 this way: use --from f8e5m2",
        }),
        (TypeChar::RawData, 1) => Ok(NpyDtype::Opaque {
            bytes: 1,
            hint: "ml_dtypes saves float8_*, float4_e2m1fn and int4 this way: use e.g. --from f8e4m3fn, f8e5m2, f8e8m0, hif8, f4e2m1, f4e1m2 or i4",
        }),
        (TypeChar::RawData, 2) => Ok(NpyDtype::Opaque {
            bytes: 2,
            hint: "ml_dtypes saves bfloat16 this way: use --from bf16",
        }),
        _ => bail!(
            "dtype '{descr}' is not supported: npusim reads <f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4, and 1- or 2-byte raw (void) elements with --from"
        ),
    }
}

/// The element format of an array: its dtype's, or `from` (which must agree in element size;
/// a 4-bit `from` counts as one byte, as ml_dtypes and packed files store it).
pub fn element_format(array: &NpyArray<'_>, from: Option<Format>) -> Result<Format> {
    match (from, &array.dtype) {
        (None, NpyDtype::Standard(f)) => Ok(*f),
        (None, NpyDtype::Opaque { bytes, hint }) => bail!(
            "the file's dtype '{}' holds raw {bytes}-byte elements and does not say their format; {hint}",
            array.descr
        ),
        (Some(f), _) => {
            if f.unpacked_bytes() != array.item_bytes {
                bail!(
                    "--from {f} has {}-byte elements but the file's dtype '{}' has {}-byte elements",
                    f.unpacked_bytes(),
                    array.descr,
                    array.item_bytes
                );
            }
            Ok(f)
        }
    }
}

/// The logical shape of an array of `format` elements stored in layout `sub` of a file whose
/// shape is `file_shape`: a packed last dimension of `k` bytes holds `2k` elements, or the
/// odd count given by `logical` (`--shape`).
pub fn logical_shape(
    file_shape: &[usize],
    packed: bool,
    logical: Option<&[usize]>,
) -> Result<Vec<usize>> {
    if !packed {
        if let Some(s) = logical {
            if s != file_shape {
                bail!(
                    "--shape {} does not match the .npy file's shape {}",
                    shape_str(s),
                    shape_str(file_shape)
                );
            }
        }
        return Ok(file_shape.to_vec());
    }
    let Some((&k, lead)) = file_shape.split_last() else {
        bail!("a packed 4-bit .npy array needs at least one dimension");
    };
    match logical {
        None => {
            let mut s = lead.to_vec();
            s.push(k.checked_mul(2).ok_or_else(|| anyhow!("shape too large"))?);
            Ok(s)
        }
        Some(s) => {
            let ok = s.len() == file_shape.len()
                && s[..s.len() - 1] == *lead
                && s.last().is_some_and(|d| d.div_ceil(2) == k);
            if !ok {
                bail!(
                    "--shape {} does not fit the packed .npy shape {} (the last dimension must be {} or {})",
                    shape_str(s),
                    shape_str(file_shape),
                    2 * k - 1,
                    2 * k
                );
            }
            Ok(s.to_vec())
        }
    }
}

/// Reads the elements of `array` as `format` elements of logical `shape`.
pub fn elements<'a>(
    array: &NpyArray<'a>,
    format: Format,
    shape: &[usize],
    packed: bool,
) -> Result<Elements<'a>> {
    let count = element_count(shape)?;
    let sub = file_sub_byte(format, shape, packed);
    let need = sub
        .file_bytes(format, count)
        .ok_or_else(|| anyhow!("shape too large"))?;
    if need != array.data.len() {
        bail!(
            "the .npy data holds {} bytes but {count} {format} elements of shape {} need {need}",
            array.data.len(),
            shape_str(shape)
        );
    }
    Ok(Elements::from_file(array.data, format, sub, count))
}

/// How a `.npy` file stores 4-bit elements of logical `shape`.
pub fn file_sub_byte(format: Format, shape: &[usize], packed: bool) -> SubByte {
    if format.is_sub_byte() && packed {
        SubByte::PackedRows {
            row: shape.last().copied().unwrap_or(1),
        }
    } else {
        SubByte::OnePerByte
    }
}

/// The dtype string npusim writes for `format` (`packed`: 4-bit, two per byte).
pub fn descr_for(format: Format, packed: bool) -> &'static str {
    if format.is_sub_byte() && packed {
        return "|u1";
    }
    match format {
        Format::F64 => "<f8",
        Format::F32 => "<f4",
        Format::F16 => "<f2",
        Format::BF16 => "<V2",
        Format::I8 => "|i1",
        Format::I16 => "<i2",
        Format::I32 => "<i4",
        Format::I64 => "<i8",
        Format::U8 => "|u1",
        Format::U16 => "<u2",
        Format::U32 => "<u4",
        // fp8 / hif8 / 4-bit one per byte: what ml_dtypes writes ('<f1' for e5m2 excepted).
        _ => "<V1",
    }
}

/// Writes `elements` (of logical `shape`) as an `.npy` file.
pub fn write(
    w: &mut dyn Write,
    elements: &Elements<'_>,
    shape: &[usize],
    fortran: bool,
    packed: bool,
) -> Result<()> {
    let format = elements.storage.format();
    let packed = packed && format.is_sub_byte();
    let sub = file_sub_byte(format, shape, packed);
    let mut file_shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    if packed {
        match file_shape.last_mut() {
            Some(last) => *last = last.div_ceil(2),
            None => bail!("--packed needs an array with at least one dimension"),
        }
    }
    let descr = descr_for(format, packed);
    let ts: TypeStr = descr
        .parse()
        .map_err(|e| anyhow!("internal: bad dtype {descr}: {e}"))?;
    let dtype = DType::Plain(ts);
    let order = if fortran { Order::Fortran } else { Order::C };
    let data = elements.to_file(sub);
    let opts = (dtype, file_shape.as_slice(), order);
    match descr {
        "<f8" => rows::<f64, 8>(w, opts, &data, f64::from_le_bytes),
        "<f4" => rows::<f32, 4>(w, opts, &data, f32::from_le_bytes),
        "<f2" => rows::<half::f16, 2>(w, opts, &data, half::f16::from_le_bytes),
        "<i8" => rows::<i64, 8>(w, opts, &data, i64::from_le_bytes),
        "<i4" => rows::<i32, 4>(w, opts, &data, i32::from_le_bytes),
        "<i2" => rows::<i16, 2>(w, opts, &data, i16::from_le_bytes),
        "|i1" => rows::<i8, 1>(w, opts, &data, i8::from_le_bytes),
        "<u4" => rows::<u32, 4>(w, opts, &data, u32::from_le_bytes),
        "<u2" => rows::<u16, 2>(w, opts, &data, u16::from_le_bytes),
        "|u1" => rows::<u8, 1>(w, opts, &data, u8::from_le_bytes),
        "<V2" => rows::<FixedSizeBytes<2>, 2>(w, opts, &data, FixedSizeBytes),
        _ => rows::<FixedSizeBytes<1>, 1>(w, opts, &data, FixedSizeBytes),
    }
}

/// Writes the header and every element through npyz's typed writer.
fn rows<T: npyz::Serialize, const N: usize>(
    w: &mut dyn Write,
    (dtype, shape, order): (DType, &[u64], Order),
    data: &[u8],
    make: fn([u8; N]) -> T,
) -> Result<()> {
    let mut writer = npyz::WriteOptions::<T>::new()
        .dtype(dtype)
        .shape(shape)
        .order(order)
        .writer(w)
        .begin_nd()?;
    for chunk in data.chunks_exact(N) {
        let mut a = [0u8; N];
        a.copy_from_slice(chunk);
        writer.push(&make(a))?;
    }
    writer.finish()?;
    Ok(())
}

/// Finds `pat` in `hay`.
fn find(hay: &[u8], pat: &[u8]) -> Option<usize> {
    hay.windows(pat.len()).position(|w| w == pat)
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
    fn written_files_parse_back() {
        let data = [0x80u8, 0x3f, 0x00, 0x40];
        let e = Elements {
            storage: npusim_numerics::Storage::native(Format::BF16),
            count: 2,
            bytes: data[..].into(),
        };
        let mut out = Vec::new();
        write(&mut out, &e, &[2], false, false).unwrap();
        let a = parse(&out).unwrap();
        assert_eq!(a.descr, "<V2");
        assert_eq!(a.shape, [2]);
        assert_eq!(a.data, data);
        assert!(element_format(&a, None).is_err());
        assert_eq!(
            element_format(&a, Some(Format::BF16)).unwrap(),
            Format::BF16
        );
        assert!(element_format(&a, Some(Format::F32)).is_err());
    }
}
