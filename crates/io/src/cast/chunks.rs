//! A tensor cut into chunks: where each chunk's bytes lie on both sides, and the cast of one
//! chunk (swapped, cast, re-packed, its counts and error statistics taken while it is in
//! memory). The driver ([`super::driver`]) and the workers ([`super::workers`]) both cast
//! chunk by chunk through [`Chunks`].

use std::borrow::Cow;

use npusim_numerics::{BulkOptions, CastPolicy, Format, Storage, cast_elements_with_status};

use super::error_stats::ErrorStats;
use super::stats::Stats;
use crate::elements::{Elements, SubByte};
use crate::error::IoError;
use crate::npy::swap_in_place;

/// Elements per group of the error statistics: each group's sums are accumulated element by
/// element and then added to the tensor's, so the `f64` figures (RMSE, SQNR) do not depend on
/// [`CHUNK_ELEMENTS`](super::CHUNK_ELEMENTS).
pub const STATS_GROUP_ELEMENTS: usize = 1 << 22;

/// One tensor to cast: where its elements are and how each side lays them out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TensorStream {
    /// Offset of the tensor's bytes in the input.
    pub offset: u64,
    /// Elements.
    pub count: usize,
    /// Source format.
    pub from: Format,
    /// How the input lays out 4-bit source elements.
    pub src_sub: SubByte,
    /// Width of big-endian source elements to swap (1: none).
    pub swap: usize,
    /// Destination format.
    pub to: Format,
    /// How the output lays out 4-bit destination elements.
    pub dst_sub: SubByte,
}

impl TensorStream {
    /// Bytes of the tensor in the input.
    pub(crate) fn input_bytes(&self) -> Result<u64, IoError> {
        chunk_bytes(self.src_sub, self.from, self.count).map(|b| b as u64)
    }

    /// Bytes of the tensor in the output.
    pub(crate) fn output_bytes(&self) -> Result<u64, IoError> {
        chunk_bytes(self.dst_sub, self.to, self.count).map(|b| b as u64)
    }
}

#[cfg(test)]
impl TensorStream {
    /// `count` little-endian f32 elements from byte 0 on, cast to `to` laid out as `dst_sub`
    /// (tests).
    pub(crate) fn f32_to(to: Format, dst_sub: SubByte, count: usize) -> TensorStream {
        TensorStream {
            offset: 0,
            count,
            from: Format::F32,
            src_sub: SubByte::OnePerByte,
            swap: 1,
            to,
            dst_sub,
        }
    }
}

/// How every chunk is cast: the policy, the bulk options of the whole tensor (its first
/// index 0) and whether to gather [`ErrorStats`].
pub(crate) struct ChunkCast<'a> {
    /// Rounding, saturation, NaN rules.
    pub policy: &'a CastPolicy,
    /// Seed and threads; `first_index` is advanced chunk by chunk.
    pub bulk: BulkOptions,
    /// Gather [`ErrorStats`] into [`Stats::error`].
    pub error_stats: bool,
}

/// Buffers reused from chunk to chunk and tensor to tensor (output buffers come back from
/// the [`Sink`](super::sink::Sink) once written).
#[derive(Default)]
pub(crate) struct Buffers {
    /// The input bytes of a chunk.
    pub(super) input: Vec<u8>,
    /// The cast's output when the file layout needs a re-packed copy of it.
    pub(super) unpacked: Vec<u8>,
}

/// A layout whose chunks can be cut anywhere on an even element: per-row packing of even rows
/// is flat packing.
fn chunkable(sub: SubByte) -> SubByte {
    match sub {
        SubByte::PackedRows { row } if row % 2 == 0 => SubByte::PackedFlat,
        other => other,
    }
}

/// Elements per chunk for `t` (about `target`): even, and whole pairs of rows when a side
/// packs odd rows.
fn chunk_elements(t: &TensorStream, target: usize) -> usize {
    let odd_row = [t.src_sub, t.dst_sub].into_iter().find_map(|s| match s {
        SubByte::PackedRows { row } if row % 2 == 1 => Some(row),
        _ => None,
    });
    let unit = odd_row.map_or(2, |row| row.saturating_mul(2));
    (target / unit).max(1).saturating_mul(unit)
}

/// Bytes `sub` takes for `count` elements of `format` starting at a chunk boundary.
fn chunk_bytes(sub: SubByte, format: Format, count: usize) -> Result<usize, IoError> {
    sub.file_bytes(format, count)
        .ok_or(IoError::NpyLogicalShapeTooLarge)
}

/// Error statistics gathered in groups of [`STATS_GROUP_ELEMENTS`] whatever the chunks.
#[derive(Default)]
pub(crate) struct GroupedErrors {
    /// The finished groups, merged (`None` before the first).
    done: Option<ErrorStats>,
    /// The group being filled.
    group: ErrorStats,
    /// Elements in `group`.
    filled: usize,
}

impl GroupedErrors {
    /// Accumulates the `n` elements of one chunk, closing groups at their boundaries (which
    /// fall on even elements, so packed chunks split on whole bytes).
    fn accumulate(
        &mut self,
        src: &[u8],
        s: Storage,
        dst: &[u8],
        d: Storage,
        n: usize,
    ) -> Result<(), IoError> {
        let mut i = 0;
        while i < n {
            let take = (n - i).min(STATS_GROUP_ELEMENTS - self.filled);
            let (s0, s1) = (s.bytes_for(i), s.bytes_for(i + take));
            let (d0, d1) = (d.bytes_for(i), d.bytes_for(i + take));
            // A short buffer gives an empty slice, which `accumulate` reports with its sizes.
            let x = src.get(s0..s1).unwrap_or_default();
            let y = dst.get(d0..d1).unwrap_or_default();
            self.group
                .accumulate(x, s, y, d, take)
                .map_err(IoError::Cast)?;
            self.filled += take;
            if self.filled == STATS_GROUP_ELEMENTS {
                self.close();
            }
            i += take;
        }
        Ok(())
    }

    /// Adds the group being filled to the finished ones.
    fn close(&mut self) {
        let group = std::mem::take(&mut self.group);
        match self.done.as_mut() {
            Some(done) => done.merge(&group),
            None => self.done = Some(group),
        }
        self.filled = 0;
    }

    /// The figures of every element seen (`None` when there were none, as for an empty
    /// tensor).
    pub(super) fn finish(mut self) -> Option<ErrorStats> {
        if self.filled > 0 {
            self.close();
        }
        self.done
    }
}

/// How to cut tensor `t` into chunks and cast one of them.
pub(crate) struct Chunks<'a> {
    /// The tensor.
    pub t: &'a TensorStream,
    /// How the input lays out source elements, cut anywhere on a chunk boundary.
    src_sub: SubByte,
    /// How the output lays out destination elements, cut anywhere on a chunk boundary.
    dst_sub: SubByte,
    /// Elements per chunk (the last may be shorter).
    pub chunk: usize,
    /// The policy and options.
    how: &'a ChunkCast<'a>,
}

impl<'a> Chunks<'a> {
    /// The chunks of `t`, of about `target` elements each, cast as `how` says.
    pub(crate) fn new(t: &'a TensorStream, how: &'a ChunkCast<'a>, target: usize) -> Chunks<'a> {
        Chunks {
            t,
            src_sub: chunkable(t.src_sub),
            dst_sub: chunkable(t.dst_sub),
            chunk: chunk_elements(t, target),
            how,
        }
    }

    /// How many chunks there are.
    pub(crate) fn len(&self) -> usize {
        self.t.count.div_ceil(self.chunk)
    }

    /// Chunk `i`: its first element and its element count.
    pub(crate) fn span(&self, i: usize) -> (usize, usize) {
        let start = i.saturating_mul(self.chunk);
        (start, self.chunk.min(self.t.count.saturating_sub(start)))
    }

    /// Where chunk `i`'s bytes lie in the input: their offset and length.
    pub(crate) fn input_range(&self, i: usize) -> Result<(u64, usize), IoError> {
        let (start, n) = self.span(i);
        let before = chunk_bytes(self.src_sub, self.t.from, start)?;
        Ok((
            self.t.offset + before as u64,
            chunk_bytes(self.src_sub, self.t.from, n)?,
        ))
    }

    /// Casts the `n` elements from element `start` on whose file bytes are `input` (swapped
    /// to little-endian here), into `spare` (a reused buffer) or, when the file packs what
    /// the cast lays out one per byte, into `unpacked` and then a packed copy; gathers the
    /// error statistics into `errors`. `parallel` lets the bulk cast spread the chunk over
    /// the threads. Returns the chunk's counts and its output file bytes. The cast's output
    /// is written through the cache, since it is written out right after.
    pub(crate) fn cast(
        &self,
        input: &mut [u8],
        (start, n): (usize, usize),
        spare: Vec<u8>,
        unpacked: &mut Vec<u8>,
        errors: Option<&mut GroupedErrors>,
        parallel: bool,
    ) -> Result<(Stats, Vec<u8>), IoError> {
        let t = self.t;
        swap_in_place(input, t.swap);
        let src = Elements::from_file(&input[..], t.from, self.src_sub, n);
        let dst = self.dst_sub.storage(t.to, n);
        let relaid = self.dst_sub.is_packed() && !dst.is_packed();
        let mut buf = if relaid {
            std::mem::take(unpacked)
        } else {
            spare
        };
        buf.resize(dst.bytes_for(n), 0);
        if let Some(last) = buf.last_mut() {
            // A reused buffer: the padding nibble of an odd packed count must be zero.
            *last = 0;
        }
        let options = BulkOptions {
            first_index: self.how.bulk.first_index + start as u64,
            parallel: self.how.bulk.parallel && parallel,
            stream_threshold: usize::MAX,
            ..self.how.bulk
        };
        let counts = cast_elements_with_status(
            &src.bytes,
            src.storage,
            &mut buf,
            dst,
            n,
            self.how.policy,
            &options,
        )
        .map_err(IoError::Cast)?;
        let mut stats = Stats::from(&counts);
        if stats.nan + stats.inf > 0 {
            stats.count_nonfinite_from_finite(&src.bytes, src.storage, &buf, dst, n);
        }
        if let Some(e) = errors {
            e.accumulate(&src.bytes, src.storage, &buf, dst, n)?;
        }
        if !relaid {
            return Ok((stats, buf));
        }
        let cast = Elements {
            storage: dst,
            count: n,
            bytes: Cow::Borrowed(&buf),
        };
        let file = cast.to_file(self.dst_sub).into_owned();
        *unpacked = buf;
        Ok((stats, file))
    }
}
