//! The data movement of a cast without its arithmetic: every source byte read (prefetched
//! [`PREFETCH_AHEAD`](crate::bulk::kernels::stream::PREFETCH_AHEAD) bytes ahead, as the kernels do) and
//! every destination byte written (zeros; streamed past the cache when asked, as the kernels
//! do above the stream threshold), the two interleaved line by line in the proportion of the
//! buffers, as a kernel's loop interleaves its loads and stores. `npusim bench` times it as
//! each cast's floor: what moving the bytes alone costs on the machine. It is a reference, not
//! a proof: a kernel that orders its loads and stores better can beat it by a little.

use crate::bulk::kernels::simd::on_x86_64;

/// Reads all of `src` and writes zeros over all of `dst`, one 64-byte line of the destination
/// after each share of source lines that keeps the two in proportion; with `stream` the
/// destination's 64-byte aligned lines are written with non-temporal stores. Lines are moved
/// by 64-byte AVX-512 loads and stores where the machine has them, else by 8-byte loads and
/// 16-byte stores. Returns the XOR of the source's 8-byte little-endian words (its last bytes
/// zero-extended), so that the reads are not optimised away.
pub(crate) fn touch(src: &[u8], dst: &mut [u8], stream: bool) -> u64 {
    touch_at(
        src,
        dst,
        stream,
        crate::bulk::kernels::simd::avx512_present(),
    )
}

/// [`touch`], by AVX-512 lines when `wide` (which only a machine with AVX-512 F may ask for).
fn touch_at(src: &[u8], dst: &mut [u8], stream: bool, wide: bool) -> u64 {
    // The bytes before the destination's first 64-byte boundary and after its last are
    // written plainly; a line written partly plainly and partly non-temporally would be read
    // for ownership and flushed twice.
    let head = dst.as_ptr().align_offset(64).min(dst.len());
    let (head, dst) = dst.split_at_mut(head);
    head.fill(0);
    let mut out = dst.chunks_exact_mut(64);
    let mut inp = src.chunks_exact(64);
    let sum = if wide {
        on_x86_64!(
            // SAFETY: `wide` is only set where the machine has AVX-512 F.
            unsafe { crate::bulk::kernels::x86_avx512::touch::lines(&mut inp, &mut out, stream) },
            lines(&mut inp, &mut out, stream)
        )
    } else {
        lines(&mut inp, &mut out, stream)
    };
    out.into_remainder().fill(0);
    if stream {
        crate::bulk::kernels::stream::fence();
    }
    sum ^ xor_words(inp.remainder())
}

/// The XOR of `src`'s 8-byte little-endian words, its last bytes zero-extended.
fn xor_words(src: &[u8]) -> u64 {
    src.chunks(8).fold(0, |s, w| {
        let mut word = [0u8; 8];
        word[..w.len()].copy_from_slice(w);
        s ^ u64::from_le_bytes(word)
    })
}

/// Calls `read` on every line of `inp` and `write` on every line of `out`, each destination
/// line after the source lines that keep the reads at or ahead of the writes' proportion, the
/// source lines left over at the end.
#[inline(always)]
pub(crate) fn interleave(
    inp: &mut std::slice::ChunksExact<'_, u8>,
    out: &mut std::slice::ChunksExactMut<'_, u8>,
    mut read: impl FnMut(&[u8]),
    mut write: impl FnMut(&mut [u8]),
) {
    let (reads, writes) = (inp.len(), out.len());
    // `owed` counts source lines due, in units of 1 / `writes` lines
    let mut owed = 0usize;
    for line in out {
        owed += reads;
        while owed >= writes {
            if let Some(src) = inp.next() {
                read(src);
            }
            owed -= writes;
        }
        write(line);
    }
    for src in inp {
        read(src);
    }
}

/// The portable lines: 8-byte loads folded by XOR, zeros stored by 16-byte non-temporal
/// stores (SSE2, x86_64) or plain ones.
fn lines(
    inp: &mut std::slice::ChunksExact<'_, u8>,
    out: &mut std::slice::ChunksExactMut<'_, u8>,
    stream: bool,
) -> u64 {
    let mut acc = [0u64; 8];
    let load = |line: &[u8]| {
        crate::bulk::kernels::stream::prefetch(line.as_ptr());
        for (a, w) in acc.iter_mut().zip(line.chunks_exact(8)) {
            *a ^= u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        }
    };
    interleave(inp, out, load, |line| zero_line(line, stream));
    acc.iter().fold(0, |s, a| s ^ a)
}

/// Zeros over one 64-byte aligned line: by non-temporal 16-byte stores with `stream` on
/// x86_64, else plainly.
fn zero_line(line: &mut [u8], stream: bool) {
    let streamed = stream
        && on_x86_64!(
            {
                use std::arch::x86_64::{__m128i, _mm_setzero_si128, _mm_stream_si128};
                for part in line.chunks_exact_mut(16) {
                    // SAFETY: `part` is 16 writable bytes on a 16-byte boundary (the line is
                    // 64-byte aligned); SSE2 is part of the x86_64 baseline.
                    unsafe {
                        _mm_stream_si128(part.as_mut_ptr().cast::<__m128i>(), _mm_setzero_si128())
                    };
                }
                true
            },
            false
        );
    if !streamed {
        line.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The XOR of the little-endian 8-byte words, byte by byte: byte `i` lands at bit
    /// `8 (i mod 8)`.
    fn words_by_bytes(src: &[u8]) -> u64 {
        src.iter()
            .enumerate()
            .fold(0, |x, (i, &b)| x ^ (u64::from(b) << (8 * (i % 8))))
    }

    /// Both line loops (the portable one, and AVX-512's where the machine has it), streamed
    /// or not, read every source word once and zero exactly the destination.
    #[test]
    fn every_source_byte_is_read_and_every_destination_byte_zeroed() {
        let data: Vec<u8> = (0..40_016u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let widths = if crate::bulk::kernels::simd::level_here(
            crate::bulk::kernels::simd::SimdLevel::Avx512,
        ) {
            vec![false, true]
        } else {
            vec![false]
        };
        for (s_len, d_len) in [
            (0, 0),
            (0, 17),
            (13, 0),
            (1, 1),
            (40_000, 5_000),
            (3_001, 24_011),
            (130, 9_000),
            (40_000, 17),
            (130, 0),
        ] {
            for off in [0, 1, 7, 15] {
                for (stream, &wide) in [false, true]
                    .into_iter()
                    .flat_map(|s| widths.iter().map(move |w| (s, w)))
                {
                    let src = &data[off..off + s_len];
                    let mut buf = vec![0xA5u8; d_len + 16 + 1];
                    let (dst, past) = buf[off..].split_at_mut(d_len);
                    let sum = touch_at(src, dst, stream, wide);
                    let case = format!("{s_len} {d_len} {off} stream {stream} wide {wide}");
                    assert_eq!(sum, words_by_bytes(src), "{case}");
                    assert!(dst.iter().all(|&b| b == 0), "{case}");
                    assert_eq!(past[0], 0xA5, "{case}");
                }
            }
        }
    }
}
