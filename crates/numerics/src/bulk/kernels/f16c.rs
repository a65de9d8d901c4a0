//! f32 → f16, round to nearest even, IEEE overflow: the codes from the F16C instruction
//! `vcvtps2ph` (8 per instruction) and their exact round trip `vcvtph2ps`; the statuses from
//! the f32 code, the f16 code and the round trip, in a branchless loop the compiler vectorises.
//! Used at the AVX2 level only, for the policies whose Inf, NaN and overflow results are the
//! instruction's own (checked when the [`F16c`] parameters are made), and tested bit for bit
//! against the reference like every kernel.

use super::flags::{self, BLOCK};
use crate::status::{Status, StatusCounts};

const INEXACT: u16 = Status::INEXACT.bits();
const UNDERFLOW: u16 = Status::UNDERFLOW.bits();
const FLUSHED: u16 = Status::FLUSHED_TO_ZERO.bits();
const SATURATED: u16 = Status::SATURATED.bits();

/// The statuses the policy gives the special inputs, by sign (the codes are F16C's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct F16c {
    /// ±Inf inputs.
    pub inf: [u16; 2],
    /// Finite inputs that round beyond 65504.
    pub overflow: [u16; 2],
    /// NaN inputs.
    pub nan: [u16; 2],
}

impl F16c {
    /// Raw status bits of f32 code `x` cast to f16 code `c`, whose value as f32 is `back`.
    #[inline(always)]
    fn status(&self, x: u32, c: u16, back: u32) -> u16 {
        let a = x & 0x7FFF_FFFF;
        let m = u32::from(c & 0x7FFF);
        let side = |r: [u16; 2]| if x >> 31 == 1 { r[1] } else { r[0] };
        let inexact = back != x;
        let flag = |b: bool, f: u16| if b { f } else { 0 };
        let finite = flag(inexact, INEXACT)
            | flag(inexact & (m < 0x400), UNDERFLOW)
            | flag(inexact & (m == 0), FLUSHED)
            | flag((m == 0x7BFF) & (a > 0x477F_E000), SATURATED);
        if a > 0x7F80_0000 {
            side(self.nan)
        } else if a == 0x7F80_0000 {
            side(self.inf)
        } else if m == 0x7C00 {
            side(self.overflow)
        } else {
            finite
        }
    }

    /// Casts `n` little-endian f32 codes into f16 codes; `None` when the machine lacks F16C.
    pub(crate) fn run(&self, src: &[u8], dst: &mut [u8], n: usize) -> Option<StatusCounts> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            // SAFETY: the CPU has AVX2 and F16C (checked just above).
            return Some(unsafe { self.run_f16c(src, dst, n) });
        }
        let _ = (src, dst, n);
        None
    }

    /// [`F16c::run`] on a CPU with AVX2 and F16C.
    ///
    /// # Safety
    /// The CPU must support AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn run_f16c(&self, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
        use std::arch::x86_64::{
            __m128i, __m256, _MM_FROUND_TO_NEAREST_INT, _mm_loadu_si128, _mm_storeu_si128,
            _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cvtph_ps, _mm256_cvtps_ph,
            _mm256_loadu_si256, _mm256_storeu_si256,
        };
        const ROUND: i32 = _MM_FROUND_TO_NEAREST_INT;
        let mut counts = StatusCounts::default();
        let mut inp = [0u32; BLOCK];
        let mut codes = [0u16; BLOCK];
        let mut back = [0u32; BLOCK];
        let mut st = [0u16; BLOCK];
        for (s, d) in src[..4 * n]
            .chunks(4 * BLOCK)
            .zip(dst[..2 * n].chunks_mut(2 * BLOCK))
        {
            let m = s.len() / 4;
            bytemuck::cast_slice_mut::<u32, u8>(&mut inp[..m]).copy_from_slice(s);
            // Whole groups of 8 (the tail of the last block: stale lanes are converted and
            // never read).
            for ((x, c), b) in inp
                .chunks_exact(8)
                .zip(codes.chunks_exact_mut(8))
                .zip(back.chunks_exact_mut(8))
                .take(m.div_ceil(8))
            {
                // SAFETY: each chunk holds exactly 8 u32 (32 bytes) or 8 u16 (16 bytes), the
                // sizes of the unaligned loads and stores; AVX2 and F16C are enabled here.
                unsafe {
                    let v: __m256 = _mm256_castsi256_ps(_mm256_loadu_si256(x.as_ptr().cast()));
                    let h: __m128i = _mm256_cvtps_ph::<ROUND>(v);
                    _mm_storeu_si128(c.as_mut_ptr().cast(), h);
                    let r = _mm256_cvtph_ps(_mm_loadu_si128(c.as_ptr().cast()));
                    _mm256_storeu_si256(b.as_mut_ptr().cast(), _mm256_castps_si256(r));
                }
            }
            for (((x, c), b), t) in inp[..m]
                .iter()
                .zip(&codes[..m])
                .zip(&back[..m])
                .zip(&mut st[..m])
            {
                *t = self.status(u32::from_le(*x), *c, *b);
            }
            for c in &mut codes[..m] {
                *c = c.to_le();
            }
            d.copy_from_slice(bytemuck::cast_slice(&codes[..m]));
            flags::count(&st[..m], &mut counts);
        }
        counts
    }
}
