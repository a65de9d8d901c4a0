//! The streamed cast of one tensor: read a chunk, cast it into a reused buffer, write it.
//!
//! A tensor is cast in chunks ([`Chunks`]), each read from the input, cast and written out,
//! so memory stays bounded whatever the tensor's size. A file of several chunks is cast by
//! one worker per thread, chunks of about [`WORKER_CHUNK_ELEMENTS`] each
//! ([`super::workers`]); other inputs chunk after chunk on this thread, chunks of about
//! [`CHUNK_ELEMENTS`] (the bulk cast spreads each over the threads). A chunk's `first_index` is its start, so
//! the result equals one whole cast, stochastic rounding included; the NaN / Inf / saturation
//! counts come with each chunk's cast, and the NaN / Inf made from finite inputs and the
//! optional [`super::error_stats::ErrorStats`] are taken from the chunk while it is in memory (no second pass).

use std::io::{Read, Seek};

use super::chunks::{Buffers, ChunkCast, Chunks, GroupedErrors, TensorStream};
use super::input::Input;
use super::progress::CastProgress;
use super::sink::Sink;
use super::stats::Stats;
use crate::error::IoError;

/// Elements per chunk (a multiple of 2, so packed chunks never share a byte): 1 Mi keeps a
/// chunk's input and output (6 MiB for f32 -> bf16) in cache between the read, the cast and
/// the write (how it was chosen: `docs/cast-io.md`).
pub const CHUNK_ELEMENTS: usize = 1 << 20;

/// Elements per chunk when several workers each read, cast and hand over whole chunks of a
/// file: a chunk's input and output stay in a core's L2 cache (1.5 MiB for f32 -> bf16).
pub const WORKER_CHUNK_ELEMENTS: usize = 1 << 18;

/// Bytes per piece when a tensor is copied unchanged.
const COPY_BYTES: usize = 1 << 24;

/// Casts tensor `t` from `input` to `sink`, chunk by chunk; returns its counts. A file input
/// of several chunks is cast by several workers at once ([`super::workers`]) unless error
/// statistics are asked for (their sums follow the element order).
pub(crate) fn cast_stream<R: Read + Seek>(
    input: &mut Input<R>,
    t: &TensorStream,
    sink: &mut Sink,
    how: &ChunkCast<'_>,
    progress: &mut dyn CastProgress,
    bufs: &mut Buffers,
) -> Result<Stats, IoError> {
    let workers = if how.bulk.parallel {
        rayon::current_num_threads()
    } else {
        1
    };
    if workers > 1 && !how.error_stats {
        let chunks = Chunks::new(t, how, WORKER_CHUNK_ELEMENTS);
        if chunks.len() > 1
            && let Some(file) = input.file()
        {
            return super::workers::cast_by_workers(
                file,
                input.path(),
                &chunks,
                sink,
                progress,
                workers,
            );
        }
    }
    cast_stream_in_chunks(input, t, sink, how, progress, bufs, CHUNK_ELEMENTS)
}

/// [`cast_stream`] on this thread (the bulk cast spreads each chunk over the threads), with
/// chunks of about `target` elements.
fn cast_stream_in_chunks<R: Read + Seek>(
    input: &mut Input<R>,
    t: &TensorStream,
    sink: &mut Sink,
    how: &ChunkCast<'_>,
    progress: &mut dyn CastProgress,
    bufs: &mut Buffers,
    target: usize,
) -> Result<Stats, IoError> {
    let chunks = Chunks::new(t, how, target);
    let mut stats = Stats::default();
    let mut errors = how.error_stats.then(GroupedErrors::default);
    for i in 0..chunks.len() {
        let (offset, in_len) = chunks.input_range(i)?;
        bufs.input.resize(in_len, 0);
        input.read_at(offset, &mut bufs.input)?;
        let span = chunks.span(i);
        let (chunk, out) = chunks.cast(
            &mut bufs.input,
            span,
            sink.buffer(),
            &mut bufs.unpacked,
            errors.as_mut(),
            true,
        )?;
        stats.add(chunk);
        sink.send(out)?;
        progress.advance(span.1);
    }
    stats.error = errors.and_then(GroupedErrors::finish).map(Box::new);
    Ok(stats)
}

/// Copies `len` bytes at `offset` of `input` to `sink` unchanged, piece by piece.
pub(crate) fn copy_stream<R: Read + Seek>(
    input: &mut Input<R>,
    offset: u64,
    len: u64,
    sink: &mut Sink,
) -> Result<(), IoError> {
    let mut done = 0u64;
    while done < len {
        let n = usize::try_from(len - done).map_or(COPY_BYTES, |left| left.min(COPY_BYTES));
        let mut buf = sink.buffer();
        buf.resize(n, 0);
        input.read_at(offset + done, &mut buf)?;
        sink.send(buf)?;
        done += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cast::NoProgress;
    use crate::cast::chunks::STATS_GROUP_ELEMENTS;
    use crate::cast::error_stats::ErrorStats;
    use crate::cast::sink::write_behind;
    use crate::elements::{Elements, SubByte};
    use npusim_numerics::{BulkOptions, CastPolicy, Format};
    use npusim_numerics::{RoundMode, Storage, cast_elements};
    use std::io::Cursor;
    use std::path::Path;

    /// Casts `src` (laid out as `src_sub`) in chunks through [`cast_stream`].
    fn streamed(src: &[u8], t: &TensorStream, policy: &CastPolicy, bulk: &BulkOptions) -> Vec<u8> {
        streamed_with_stats(src, t, policy, bulk, false).0
    }

    /// [`streamed`], also returning the stats (with error statistics if `error_stats`).
    fn streamed_with_stats(
        src: &[u8],
        t: &TensorStream,
        policy: &CastPolicy,
        bulk: &BulkOptions,
        error_stats: bool,
    ) -> (Vec<u8>, Stats) {
        let mut input = Input::new(Cursor::new(src), Path::new("x"), src.len() as u64);
        let mut out = Vec::new();
        let how = ChunkCast {
            policy,
            bulk: *bulk,
            error_stats,
        };
        let stats = write_behind(&mut out, |sink| {
            cast_stream(
                &mut input,
                t,
                sink,
                &how,
                &mut NoProgress,
                &mut Buffers::default(),
            )
        })
        .unwrap();
        (out, stats)
    }

    fn f32_pattern(n: usize) -> Vec<u8> {
        (0..n as u32)
            .flat_map(|i| {
                f32::from_bits(0x3f80_0000 | (i.wrapping_mul(2_654_435_761) >> 9)).to_le_bytes()
            })
            .collect()
    }

    #[test]
    fn chunked_cast_equals_one_shot_cast_with_hybrid_rounding_and_odd_packed_counts() {
        // An odd count across several chunks, packed two per byte on the way out.
        let n = 2 * CHUNK_ELEMENTS + 5;
        let src = f32_pattern(n);
        let s = Storage::native(Format::F32);
        let d = Storage::native(Format::F4E2M1);
        let policy = CastPolicy::new(RoundMode::Hybrid);
        let bulk = BulkOptions {
            seed: 42,
            ..BulkOptions::default()
        };
        let t = TensorStream::f32_to(Format::F4E2M1, SubByte::PackedFlat, n);
        let mut whole = vec![0u8; d.bytes_for(n)];
        cast_elements(&src, s, &mut whole, d, n, &policy, &bulk).unwrap();
        assert_eq!(streamed(&src, &t, &policy, &bulk), whole);
    }

    #[test]
    fn odd_packed_rows_are_cut_on_row_pairs() {
        // 3 rows of an odd length longer than a chunk would hold if cut on elements alone.
        let row = CHUNK_ELEMENTS / 2 + 1;
        let n = 3 * row;
        let src = f32_pattern(n);
        let policy = CastPolicy::new(RoundMode::Rint);
        let bulk = BulkOptions::default();
        let t = TensorStream::f32_to(Format::I4, SubByte::PackedRows { row }, n);
        let got = streamed(&src, &t, &policy, &bulk);
        // The reference: one-per-byte cast, then each row packed on its own.
        let u = SubByte::OnePerByte.storage(Format::I4, n);
        let mut unpacked = vec![0u8; n];
        cast_elements(
            &src,
            Storage::native(Format::F32),
            &mut unpacked,
            u,
            n,
            &policy,
            &bulk,
        )
        .unwrap();
        let e = Elements {
            storage: u,
            count: n,
            bytes: unpacked.into(),
        };
        assert_eq!(got, e.to_file(SubByte::PackedRows { row }).into_owned());
        assert_eq!(got.len(), 3 * row.div_ceil(2));
    }

    #[test]
    fn error_figures_do_not_depend_on_the_chunk_size() {
        // Two groups and a bit; chunks that divide a group, that do not, and one group each.
        let n = 2 * STATS_GROUP_ELEMENTS + 7;
        let src = f32_pattern(n);
        let (s, d) = (Storage::native(Format::F32), Storage::native(Format::BF16));
        let policy = CastPolicy::new(RoundMode::Rint);
        let bulk = BulkOptions::default();
        let mut whole = vec![0u8; d.bytes_for(n)];
        cast_elements(&src, s, &mut whole, d, n, &policy, &bulk).unwrap();
        // The definition: each group summed element by element, the groups then added in order.
        let mut want: Option<ErrorStats> = None;
        for g in (0..n).step_by(STATS_GROUP_ELEMENTS) {
            let m = STATS_GROUP_ELEMENTS.min(n - g);
            let mut e = ErrorStats::default();
            e.accumulate(
                &src[4 * g..4 * (g + m)],
                s,
                &whole[2 * g..2 * (g + m)],
                d,
                m,
            )
            .unwrap();
            match want.as_mut() {
                Some(w) => w.merge(&e),
                None => want = Some(e),
            }
        }
        let t = TensorStream::f32_to(Format::BF16, SubByte::OnePerByte, n);
        let how = ChunkCast {
            policy: &policy,
            bulk,
            error_stats: true,
        };
        for target in [CHUNK_ELEMENTS, 3 << 19, STATS_GROUP_ELEMENTS, 5_000_000] {
            let mut input = Input::new(Cursor::new(&src[..]), Path::new("x"), src.len() as u64);
            let mut out = Vec::new();
            let stats = write_behind(&mut out, |sink| {
                cast_stream_in_chunks(
                    &mut input,
                    &t,
                    sink,
                    &how,
                    &mut NoProgress,
                    &mut Buffers::default(),
                    target,
                )
            })
            .unwrap();
            assert_eq!(out, whole, "chunks of {target}");
            assert_eq!(stats.error.as_deref(), want.as_ref(), "chunks of {target}");
        }
    }

    #[test]
    fn a_short_input_is_an_error_not_a_panic() {
        let t = TensorStream::f32_to(Format::F16, SubByte::OnePerByte, 3);
        let src = [0u8; 8];
        let mut input = Input::new(Cursor::new(&src[..]), Path::new("x.npy"), 8);
        let how = ChunkCast {
            policy: &CastPolicy::default(),
            bulk: BulkOptions::default(),
            error_stats: true,
        };
        let r = write_behind(&mut Vec::new(), |sink| {
            cast_stream(
                &mut input,
                &t,
                sink,
                &how,
                &mut NoProgress,
                &mut Buffers::default(),
            )
        });
        assert!(matches!(r, Err(IoError::CannotRead { .. })), "{r:?}");
    }

    #[test]
    fn chunked_error_stats_and_nonfinite_counts_equal_one_shot_figures() {
        // Values up to ~2^20 in f32 into e5m2 (IEEE policy: overflow beyond 57344 is Inf) over
        // more than two chunks, with a NaN and an Inf input in the last chunk.
        let n = 2 * CHUNK_ELEMENTS + 3;
        let mut src: Vec<u8> = (0..n as u32)
            .flat_map(|i| {
                let x = (i.wrapping_mul(2_654_435_761) >> 12) as f32 - 524_288.0;
                x.to_le_bytes()
            })
            .collect();
        src[4 * (n - 1)..].copy_from_slice(&f32::NAN.to_le_bytes());
        src[4 * (n - 2)..4 * (n - 1)].copy_from_slice(&f32::INFINITY.to_le_bytes());
        let (s, d) = (
            Storage::native(Format::F32),
            Storage::native(Format::F8E5M2),
        );
        let policy = CastPolicy::new(RoundMode::Rint);
        let bulk = BulkOptions::default();
        let t = TensorStream::f32_to(Format::F8E5M2, SubByte::OnePerByte, n);
        let mut whole = vec![0u8; n];
        cast_elements(&src, s, &mut whole, d, n, &policy, &bulk).unwrap();
        let mut want = ErrorStats::default();
        want.accumulate(&src, s, &whole, d, n).unwrap();
        let (got, stats) = streamed_with_stats(&src, &t, &policy, &bulk, true);
        assert_eq!(got, whole);
        let e = stats.error.unwrap();
        assert_eq!(
            (e.total, e.exact, e.nan, e.inf),
            (want.total, want.exact, want.nan, want.inf)
        );
        assert_eq!(
            (e.measured, e.max_abs_error),
            (want.measured, want.max_abs_error)
        );
        // Every Inf or NaN result of a finite input, decoded one by one.
        let finite =
            |f: Format, code| matches!(f.decode(code), npusim_numerics::Exact::Finite { .. });
        let from_finite = (0..n)
            .filter(|&i| {
                finite(Format::F32, s.read(&src, i)) && !finite(Format::F8E5M2, d.read(&whole, i))
            })
            .count() as u64;
        assert!(from_finite > 0);
        assert_eq!(stats.nonfinite_from_finite, from_finite);
        assert_eq!(stats.nan + stats.inf, from_finite + 2);
        // Without the flag, no error statistics (and no cost).
        assert_eq!(
            streamed_with_stats(&src, &t, &policy, &bulk, false).1.error,
            None
        );
    }
}
