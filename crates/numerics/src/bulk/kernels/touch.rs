//! The data movement of a cast without its arithmetic: every source byte read (prefetched
//! [`PREFETCH_AHEAD`](super::stream::PREFETCH_AHEAD) bytes ahead, as the kernels do) and
//! every destination byte written (zeros; streamed past the cache when asked, as the kernels
//! do above the stream threshold), block by block in the proportion of the two buffers. No
//! cast of the same buffers can finish sooner, so `npusim bench` times it as the floor that
//! a kernel is measured against.

/// Destination bytes written per block before the source's share of the block is read.
const BLOCK: usize = 4096;

/// Reads all of `src` and writes zeros over all of `dst`, interleaved in blocks of about
/// [`BLOCK`] bytes of the larger buffer; with `stream` the destination's aligned part is
/// written with non-temporal stores. Lines are moved by 64-byte AVX-512 loads and stores where
/// the machine has them, else by 8-byte loads and 16-byte stores. Returns the XOR of the
/// source's 8-byte little-endian words (its last bytes zero-extended), so that the reads are
/// not optimised away.
pub(crate) fn touch(src: &[u8], dst: &mut [u8], stream: bool) -> u64 {
    touch_at(src, dst, stream, super::simd::avx512_present())
}

/// [`touch`], by AVX-512 lines when `wide` (which only a machine with AVX-512 F may ask for).
fn touch_at(src: &[u8], dst: &mut [u8], stream: bool, wide: bool) -> u64 {
    // Streamed, the bytes before the first 64-byte boundary are written plainly once, and the
    // blocks after it are whole lines: a line written partly plainly and partly
    // non-temporally would be read for ownership and flushed twice.
    let head = if stream {
        dst.as_ptr().align_offset(64).min(dst.len())
    } else {
        0
    };
    let (head, dst) = dst.split_at_mut(head);
    head.fill(0);
    let blocks = src.len().max(dst.len()).div_ceil(BLOCK).max(1);
    // whole lines of source per block too, so the words are those of the whole buffer
    let lines_per = |len: usize| len.div_ceil(blocks).next_multiple_of(64).max(64);
    let mut reads = src.chunks(lines_per(src.len()));
    let mut writes = dst.chunks_mut(lines_per(dst.len()));
    let mut sum = 0;
    loop {
        let (r, w) = (reads.next(), writes.next());
        if r.is_none() && w.is_none() {
            break;
        }
        if let Some(r) = r {
            let mut lines = r.chunks_exact(64);
            sum ^= read_lines(&mut lines, wide);
            sum ^= xor_words(lines.remainder());
        }
        if let Some(w) = w {
            write(w, stream, wide);
        }
    }
    if stream {
        super::stream::fence();
    }
    sum
}

/// The XOR of `src`'s 8-byte little-endian words, its last bytes zero-extended.
fn xor_words(src: &[u8]) -> u64 {
    src.chunks(8).fold(0, |s, w| {
        let mut word = [0u8; 8];
        word[..w.len()].copy_from_slice(w);
        s ^ u64::from_le_bytes(word)
    })
}

/// [`xor_words`] of whole 64-byte lines, each line's prefetch issued as the kernels issue
/// theirs; by AVX-512 loads when `wide` (which the caller has checked the machine has).
fn read_lines(lines: &mut std::slice::ChunksExact<'_, u8>, wide: bool) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` is only set where the machine has AVX-512 F.
        return unsafe { read_lines_avx512(lines) };
    }
    let _ = wide;
    let mut acc = [0u64; 8];
    for line in lines {
        #[cfg(target_arch = "x86_64")]
        super::stream::prefetch(line.as_ptr());
        for (a, w) in acc.iter_mut().zip(line.chunks_exact(8)) {
            *a ^= u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        }
    }
    acc.iter().fold(0, |s, a| s ^ a)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn read_lines_avx512(lines: &mut std::slice::ChunksExact<'_, u8>) -> u64 {
    use std::arch::x86_64::{_mm512_loadu_si512, _mm512_setzero_si512};
    use std::arch::x86_64::{_mm512_storeu_si512, _mm512_xor_si512};
    let mut acc = _mm512_setzero_si512();
    for line in lines {
        super::stream::prefetch(line.as_ptr());
        // SAFETY: `line` is 64 readable bytes (an unaligned load).
        acc = _mm512_xor_si512(acc, unsafe { _mm512_loadu_si512(line.as_ptr().cast()) });
    }
    let mut words = [0u64; 8];
    // SAFETY: `words` is 64 writable bytes (an unaligned store).
    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), acc) };
    words.iter().fold(0, |s, w| s ^ w)
}

/// Zeros over `dst`; with `stream`, its aligned part by non-temporal stores (64-byte ones
/// when `wide`, which the caller has checked the machine has; else 16-byte ones).
fn write(dst: &mut [u8], stream: bool, wide: bool) {
    #[cfg(target_arch = "x86_64")]
    if stream {
        let width = if wide { 64 } else { 16 };
        let head = dst.as_ptr().align_offset(width).min(dst.len());
        let (head, rest) = dst.split_at_mut(head);
        head.fill(0);
        let mut lines = rest.chunks_exact_mut(width);
        if wide {
            // SAFETY: `wide` is only set where the machine has AVX-512 F.
            unsafe { stream_zeros_avx512(&mut lines) };
        } else {
            use std::arch::x86_64::{__m128i, _mm_setzero_si128, _mm_stream_si128};
            for line in &mut lines {
                // SAFETY: `line` is 16 writable bytes on a 16-byte boundary (`rest` starts on
                // one, every chunk is 16 bytes); SSE2 is part of the x86_64 baseline.
                unsafe {
                    _mm_stream_si128(line.as_mut_ptr().cast::<__m128i>(), _mm_setzero_si128())
                };
            }
        }
        lines.into_remainder().fill(0);
        return;
    }
    let _ = (stream, wide);
    dst.fill(0);
}

/// Non-temporal 64-byte stores of zeros over every line (each 64 bytes, 64-byte aligned).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn stream_zeros_avx512(lines: &mut std::slice::ChunksExactMut<'_, u8>) {
    use std::arch::x86_64::{__m512i, _mm512_setzero_si512, _mm512_stream_si512};
    for line in lines {
        // SAFETY: the caller's lines are 64 writable bytes on a 64-byte boundary.
        unsafe { _mm512_stream_si512(line.as_mut_ptr().cast::<__m512i>(), _mm512_setzero_si512()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_byte_is_read_and_every_destination_byte_zeroed() {
        let data: Vec<u8> = (0..40_016u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for (s_len, d_len) in [
            (0, 0),
            (0, 17),
            (13, 0),
            (1, 1),
            (40_000, 5_000),
            (3_001, 24_011),
        ] {
            for off in [0, 1, 7, 15] {
                for stream in [false, true] {
                    let src = &data[off..off + s_len];
                    let mut buf = vec![0xA5u8; d_len + 16];
                    let dst = &mut buf[off..off + d_len];
                    let sum = touch(src, dst, stream);
                    assert_eq!(sum, xor_words(src), "{s_len} {d_len} {off} {stream}");
                    assert!(
                        dst.iter().all(|&b| b == 0),
                        "{s_len} {d_len} {off} {stream}"
                    );
                }
            }
        }
    }
}
