//! The chunked cast of one buffer: progress between chunks, one result as if cast whole.

use npusim_numerics::{BulkOptions, CastPolicy, Storage, cast_elements_with_status};

use super::error_stats::ErrorStats;
use super::progress::CastProgress;
use super::stats::Stats;
use crate::elements::Elements;
use crate::error::IoError;

/// Elements per bulk-cast call (a multiple of 4, so packed chunks never share a byte).
pub const CHUNK_ELEMENTS: usize = 1 << 20;

/// Casts `src` into a new buffer of `dst` storage, in chunks of [`CHUNK_ELEMENTS`] whose
/// `first_index` is the chunk start (offset by `bulk.first_index`), so that the result equals
/// one whole cast, stochastic rounding included. Reports each chunk to `progress`; returns
/// the bytes and the counts of NaN, ±Inf and saturated results.
pub fn cast_buffer(
    src: &Elements<'_>,
    dst: Storage,
    policy: &CastPolicy,
    bulk: &BulkOptions,
    progress: &mut dyn CastProgress,
) -> Result<(Vec<u8>, Stats), IoError> {
    cast_buffer_with(src, dst, policy, bulk, false, progress)
}

/// [`cast_buffer`], and with `error_stats` the [`ErrorStats`] of the cast in
/// [`Stats::error`], accumulated chunk by chunk as each chunk is cast.
pub fn cast_buffer_with(
    src: &Elements<'_>,
    dst: Storage,
    policy: &CastPolicy,
    bulk: &BulkOptions,
    error_stats: bool,
    progress: &mut dyn CastProgress,
) -> Result<(Vec<u8>, Stats), IoError> {
    let count = src.count;
    let s = src.storage;
    s.check_len(src.bytes.len(), count, "source")
        .map_err(IoError::Cast)?;
    let mut out = vec![0u8; dst.bytes_for(count)];
    let mut stats = Stats::default();
    let mut start = 0;
    while start < count {
        let n = CHUNK_ELEMENTS.min(count - start);
        let src_part = &src.bytes[s.bytes_for(start)..s.bytes_for(start + n)];
        let dst_part = &mut out[dst.bytes_for(start)..dst.bytes_for(start + n)];
        let options = BulkOptions {
            first_index: bulk.first_index + start as u64,
            ..*bulk
        };
        let counts = cast_elements_with_status(src_part, s, dst_part, dst, n, policy, &options)
            .map_err(IoError::Cast)?;
        let mut chunk = Stats::from(&counts);
        if chunk.nan + chunk.inf > 0 {
            chunk.count_nonfinite_from_finite(src_part, s, dst_part, dst, n);
        }
        if error_stats {
            let mut e = ErrorStats::default();
            e.accumulate(src_part, s, dst_part, dst, n)
                .map_err(IoError::Cast)?;
            chunk.error = Some(e);
        }
        stats.add(chunk);
        progress.advance(n);
        start += n;
    }
    Ok((out, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cast::NoProgress;
    use npusim_numerics::{Format, RoundMode, cast_elements};

    #[test]
    fn chunked_cast_equals_one_shot_cast_with_hybrid_rounding() {
        let n = 2 * CHUNK_ELEMENTS + 5;
        let src: Vec<u8> = (0..n as u32)
            .flat_map(|i| {
                f32::from_bits(0x3f80_0000 | (i.wrapping_mul(2_654_435_761) >> 9)).to_le_bytes()
            })
            .collect();
        let s = Storage::native(Format::F32);
        let d = Storage::native(Format::F4E2M1);
        let policy = CastPolicy::new(RoundMode::Hybrid);
        let bulk = BulkOptions {
            seed: 42,
            ..BulkOptions::default()
        };
        let e = Elements {
            storage: s,
            count: n,
            bytes: src[..].into(),
        };
        let (chunked, _) = cast_buffer(&e, d, &policy, &bulk, &mut NoProgress).unwrap();
        let mut whole = vec![0u8; d.bytes_for(n)];
        cast_elements(&src, s, &mut whole, d, n, &policy, &bulk).unwrap();
        assert_eq!(chunked, whole);
    }

    #[test]
    fn a_short_source_is_an_error_not_a_panic() {
        let e = Elements {
            storage: Storage::native(Format::F32),
            count: 3,
            bytes: vec![0u8; 8].into(),
        };
        let d = Storage::native(Format::F16);
        let r = cast_buffer(
            &e,
            d,
            &CastPolicy::default(),
            &BulkOptions::default(),
            &mut NoProgress,
        );
        assert!(matches!(r, Err(IoError::Cast(_))));
    }
}
