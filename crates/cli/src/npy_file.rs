//! Element buffers of the architecture commands as `.npy` files: 4-bit types one element per
//! byte, as ml_dtypes stores them.

use anyhow::Result;
use npusim_io::{Elements, npy};
use npusim_numerics::{BulkOptions, CastPolicy, Layout, Storage, cast_elements};

/// Re-lays elements out in `storage` (packs or unpacks 4-bit elements).
pub(crate) fn relaid(e: &Elements<'_>, storage: Storage) -> Result<Vec<u8>> {
    if e.storage == storage {
        return Ok(e.bytes.to_vec());
    }
    let mut out = vec![0u8; storage.bytes_for(e.count)];
    cast_elements(
        &e.bytes,
        e.storage,
        &mut out,
        storage,
        e.count,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )?;
    Ok(out)
}

/// The elements as files store them: sub-byte types one element per byte.
pub(crate) fn unpacked(e: &Elements<'_>) -> Result<Elements<'static>> {
    let format = e.storage.format();
    let storage = Storage::new(format, Layout::Unpacked).unwrap_or(Storage::native(format));
    Ok(Elements {
        storage,
        count: e.count,
        bytes: relaid(e, storage)?.into(),
    })
}

/// The bytes of a `.npy` file of shape `shape` holding the elements (unpacked).
pub(crate) fn npy_bytes(e: &Elements<'_>, shape: &[usize]) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    npy::write(&mut bytes, &unpacked(e)?, shape, false, false)?;
    Ok(bytes)
}
