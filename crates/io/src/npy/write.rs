//! Writing elements as a little-endian `.npy` file, narrow formats as ml_dtypes writes them.

use crate::packing::is_nibble;
use std::io::Write;

use npyz::{DType, FixedSizeBytes, Order, TypeStr, WriterBuilder};

use super::dtype::descr_for;
use super::read::file_sub_byte;
use crate::elements::Elements;
use crate::error::IoError;

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
    let mut file_shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    if packed {
        match file_shape.last_mut() {
            Some(last) => *last = last.div_ceil(2),
            None => return Err(IoError::PackedScalar),
        }
    }
    let descr = descr_for(format, packed);
    let ts: TypeStr = descr.parse().map_err(|e| IoError::NpyHeader {
        reason: format!("internal: bad dtype {descr}: {e}"),
        text: descr.to_string(),
    })?;
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
) -> Result<(), IoError> {
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
