//! The streamed cast of one tensor by several workers at once: each worker reads whole chunks
//! of the file (positional reads), casts each on its own thread and hands it over; this thread
//! takes the chunks in order, adds up their counts and passes them to the write-behind
//! [`Sink`].
//!
//! Chunk `i` belongs to worker `i % workers`, whose hand-over channel holds one finished
//! chunk, so a worker runs at most two chunks ahead of the writer and memory stays bounded
//! (per worker an input buffer and two or three output buffers). Reading a chunk out of the
//! page cache costs about as much as casting it, and writing it out as much again; this way
//! the reads, the casts and the writes of different chunks overlap on every core, with no
//! synchronisation inside a chunk. Output buffers go back to the worker that filled them once
//! written. The result is the one of [`super::driver`]'s cast on one thread, chunk for chunk:
//! each chunk starts at the same element (stochastic rounding draws the same entropy) and the
//! counts are added in the same order.

use std::fs::File;
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

use super::chunks::Chunks;
use super::progress::CastProgress;
use super::sink::Sink;
use super::stats::Stats;
use crate::error::IoError;

/// A finished chunk: its element count, its counts and its output bytes.
type Finished = Result<(usize, Stats, Vec<u8>), IoError>;

/// Casts every chunk of `chunks` from `file` (named `path` in messages) to `sink` with
/// `workers` threads; returns the tensor's counts. The first error in chunk order is
/// returned (a read past the end, a full disk), and every worker stops.
pub(crate) fn cast_by_workers(
    file: &File,
    path: &Path,
    chunks: &Chunks<'_>,
    sink: &mut Sink,
    progress: &mut dyn CastProgress,
    workers: usize,
) -> Result<Stats, IoError> {
    let workers = workers.clamp(1, chunks.len().max(1));
    std::thread::scope(|scope| {
        let mut lanes: Vec<(Receiver<Finished>, Sender<Vec<u8>>)> = Vec::with_capacity(workers);
        for first in 0..workers {
            let (hand_over, finished) = sync_channel::<Finished>(1);
            let (give_back, spare) = channel::<Vec<u8>>();
            scope.spawn(move || work(file, path, chunks, first, workers, &hand_over, &spare));
            lanes.push((finished, give_back));
        }
        let mut stats = Stats::default();
        for i in 0..chunks.len() {
            let (finished, give_back) = &lanes[i % workers];
            let (n, chunk, out) = finished
                .recv()
                .map_err(|_| IoError::Os(std::io::Error::other("a cast worker stopped")))??;
            stats.add(chunk);
            sink.send(out)?;
            progress.advance(n);
            // A written buffer goes back to this lane's worker (one that has stopped no longer
            // needs it).
            let written = sink.buffer();
            if written.capacity() > 0 {
                let _ = give_back.send(written);
            }
        }
        // Dropping the lanes (on an error too) stops every worker at its next hand-over.
        Ok(stats)
    })
}

/// Worker `first` of `workers`: reads, casts and hands over chunks `first`,
/// `first + workers`, ... until the last one or until nobody takes them.
fn work(
    file: &File,
    path: &Path,
    chunks: &Chunks<'_>,
    first: usize,
    workers: usize,
    hand_over: &SyncSender<Finished>,
    spare: &Receiver<Vec<u8>>,
) {
    let mut input = Vec::new();
    let mut unpacked = Vec::new();
    for i in (first..chunks.len()).step_by(workers) {
        let done = chunks.input_range(i).and_then(|(offset, len)| {
            input.resize(len, 0);
            read_exact_at(file, &mut input, offset).map_err(|source| IoError::CannotRead {
                path: path.to_path_buf(),
                source,
            })?;
            let span = chunks.span(i);
            let out = spare.try_recv().unwrap_or_default();
            let (stats, out) = chunks.cast(&mut input, span, out, &mut unpacked, None, false)?;
            Ok((span.1, stats, out))
        });
        let failed = done.is_err();
        if hand_over.send(done).is_err() || failed {
            return;
        }
    }
}

/// Fills `buf` from byte `offset` of `file`, whatever the file position.
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

/// Fills `buf` from byte `offset` of `file`, whatever the file position.
#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Fills `buf` from byte `offset` of `file`, whatever the file position.
#[cfg(not(any(unix, windows)))]
fn read_exact_at(_file: &File, _buf: &mut [u8], _offset: u64) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cast::NoProgress;
    use crate::cast::chunks::{Buffers, ChunkCast, TensorStream};
    use crate::cast::driver::cast_stream;
    use crate::cast::input::Input;
    use crate::cast::sink::write_behind;
    use crate::elements::SubByte;
    use npusim_numerics::{BulkOptions, CastPolicy, Format, RoundMode, Storage, cast_elements};
    use std::io::Cursor;
    use std::io::Write;

    /// A file holding `bytes` after `pad` bytes of header.
    fn file_with(pad: usize, bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut tmp = tempfile::NamedTempFile::new().expect("a temporary file");
        tmp.write_all(&vec![0xEE; pad]).expect("header written");
        tmp.write_all(bytes).expect("data written");
        tmp
    }

    /// `n` f32 codes over many binades, with NaN, ±Inf and values beyond the small formats.
    fn f32_codes(n: usize) -> Vec<u8> {
        (0..n as u32)
            .flat_map(|i| {
                let x = i.wrapping_mul(2_654_435_761);
                let code = match i % 97 {
                    0 => 0x7FC0_0001,
                    1 => 0xFF80_0000,
                    _ => (x & 0x8000_0000) | (0x3000_0000 + (x >> 4) % 0x1800_0000),
                };
                code.to_le_bytes()
            })
            .collect()
    }

    /// The counts of the cast of tensor `t` of `bytes` (a header of `t.offset` bytes
    /// prepended) on this thread, chunk after chunk.
    fn one_thread(bytes: &[u8], t: &TensorStream, how: &ChunkCast<'_>) -> Stats {
        let mut all = vec![0xEE; t.offset as usize];
        all.extend_from_slice(bytes);
        let mut input = Input::new(Cursor::new(&all[..]), Path::new("x"), all.len() as u64);
        let mut out = Vec::new();
        write_behind(&mut out, |sink| {
            cast_stream(
                &mut input,
                t,
                sink,
                how,
                &mut NoProgress,
                &mut Buffers::default(),
            )
        })
        .expect("a cast")
    }

    /// Casts tensor `t` of `file` by `workers` workers in chunks of about `target` elements.
    fn by_workers(
        file: &tempfile::NamedTempFile,
        t: &TensorStream,
        how: &ChunkCast<'_>,
        target: usize,
        workers: usize,
    ) -> Result<(Vec<u8>, Stats), IoError> {
        let chunks = Chunks::new(t, how, target);
        let mut out = Vec::new();
        let stats = write_behind(&mut out, |sink| {
            cast_by_workers(
                file.as_file(),
                file.path(),
                &chunks,
                sink,
                &mut NoProgress,
                workers,
            )
        })?;
        Ok((out, stats))
    }

    #[test]
    fn workers_equal_one_whole_cast_in_every_layout() {
        // (source, its layout, its byte swap, destination, its layout, elements)
        let cases = [
            (
                Format::F32,
                SubByte::OnePerByte,
                1,
                Format::BF16,
                SubByte::OnePerByte,
                10_001,
            ),
            (
                Format::F32,
                SubByte::OnePerByte,
                4,
                Format::F8E4M3FN,
                SubByte::OnePerByte,
                7_777,
            ),
            (
                Format::F32,
                SubByte::OnePerByte,
                1,
                Format::F4E2M1,
                SubByte::PackedFlat,
                9_999,
            ),
            (
                Format::F32,
                SubByte::OnePerByte,
                1,
                Format::I4,
                SubByte::PackedRows { row: 333 },
                333 * 31,
            ),
            (
                Format::F32,
                SubByte::OnePerByte,
                1,
                Format::F16,
                SubByte::OnePerByte,
                1,
            ),
        ];
        for (from, src_sub, swap, to, dst_sub, n) in cases {
            let mut src = f32_codes(n);
            let le = src.clone();
            if swap == 4 {
                src.chunks_exact_mut(4).for_each(|c| c.reverse());
            }
            let file = file_with(13, &src);
            for mode in [RoundMode::Rint, RoundMode::Hybrid] {
                let policy = CastPolicy::new(mode);
                let bulk = BulkOptions {
                    seed: 7,
                    first_index: 0,
                    ..BulkOptions::default()
                };
                // The definition: one cast of the whole tensor, laid out as the file wants.
                let d = dst_sub.storage(to, n);
                let mut whole = vec![0u8; d.bytes_for(n)];
                cast_elements(&le, Storage::native(from), &mut whole, d, n, &policy, &bulk)
                    .expect("a cast");
                let whole = crate::elements::Elements {
                    storage: d,
                    count: n,
                    bytes: whole.into(),
                }
                .to_file(dst_sub)
                .into_owned();
                let t = TensorStream {
                    offset: 13,
                    count: n,
                    from,
                    src_sub,
                    swap,
                    to,
                    dst_sub,
                };
                let how = ChunkCast {
                    policy: &policy,
                    bulk,
                    error_stats: false,
                };
                let one_thread = one_thread(&src, &t, &how);
                for (target, workers) in [(1_000, 2), (666, 3), (4_096, 2), (1 << 20, 2)] {
                    let (out, stats) = by_workers(&file, &t, &how, target, workers).expect("cast");
                    let what = format!(
                        "{from} -> {to} {mode:?}, n {n}, chunks {target}, {workers} workers"
                    );
                    assert!(out == whole, "{what}");
                    assert_eq!(stats, one_thread, "{what}");
                }
            }
        }
    }

    #[test]
    fn a_file_shorter_than_its_tensor_is_a_read_error_naming_it() {
        let n = 10_000;
        let file = file_with(0, &f32_codes(n - 300));
        let policy = CastPolicy::new(RoundMode::Rint);
        let how = ChunkCast {
            policy: &policy,
            bulk: BulkOptions::default(),
            error_stats: false,
        };
        for workers in [2, 3] {
            let e = by_workers(
                &file,
                &TensorStream::f32_to(Format::BF16, SubByte::OnePerByte, n),
                &how,
                1_000,
                workers,
            )
            .expect_err("short");
            assert!(
                matches!(&e, IoError::CannotRead { path, .. } if path == file.path()),
                "{e:?}"
            );
        }
    }

    /// A writer that fails after `ok` bytes.
    struct Full {
        ok: usize,
        got: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.got + buf.len() > self.ok {
                return Err(std::io::Error::other("disk full"));
            }
            self.got += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_writer_stops_every_worker_with_its_error() {
        // Chunks of 80 000 output bytes: each is handed to the writer on its own.
        let n = 400_000;
        let file = file_with(0, &f32_codes(n));
        let policy = CastPolicy::new(RoundMode::Rint);
        let how = ChunkCast {
            policy: &policy,
            bulk: BulkOptions::default(),
            error_stats: false,
        };
        let t = TensorStream::f32_to(Format::BF16, SubByte::OnePerByte, n);
        let chunks = Chunks::new(&t, &how, 40_000);
        let mut out = Full {
            ok: 200_000,
            got: 0,
        };
        let e = write_behind(&mut out, |sink| {
            cast_by_workers(
                file.as_file(),
                file.path(),
                &chunks,
                sink,
                &mut NoProgress,
                2,
            )
        })
        .expect_err("the disk is full");
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(out.got, 160_000, "two whole chunks of 80 000 bytes");
    }
}
