//! i8 / u8 / i16 / u16 → f32: every such integer is an f32 exactly, so the cast is the
//! integer's value converted, with one status for all elements. The kernel is built from the
//! lookup table of the same cast and used only if it agrees with it on every source code (so a
//! policy that did anything else to these values would keep the table). The portable loop is
//! plain Rust that the compiler vectorises; at the AVX2 level 8 lanes and at the AVX-512 level
//! 16 lanes are widened (`vpmovsx`/`vpmovzx`) and converted (`vcvtdq2ps`) at a time, stored
//! non-temporally when the slice is streamed ([`stream`](crate::bulk::kernels::stream)).

use crate::bulk::kernels::simd::SimdLevel;
use crate::bulk::kernels::table::codes::Table;
use crate::format::Format;
use crate::status::StatusCounts;

/// An exact integer → f32 cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntToF32 {
    /// Bytes per source integer (1 or 2).
    bytes: usize,
    /// Whether the source is signed.
    signed: bool,
    /// The status every element gets (raw bits; none for an exact cast).
    status: u16,
}

impl IntToF32 {
    /// The kernel for `src` → `dst` whose results are `table`'s, if `src` is an 8- or 16-bit
    /// integer, `dst` is f32 and the table gives every code its value with one status.
    pub(crate) fn new(src: Format, dst: Format, table: &Table) -> Option<IntToF32> {
        if dst != Format::F32 || !matches!(src, Format::I8 | Format::U8 | Format::I16 | Format::U16)
        {
            return None;
        }
        let k = IntToF32 {
            bytes: src.unpacked_bytes(),
            signed: src.is_signed(),
            status: table.entry(0).1,
        };
        let codes = 1u32 << (8 * k.bytes);
        let agrees = (0..codes).all(|c| {
            let c = c as u16;
            table.entry(c) == (u64::from(k.value(c).to_bits()), k.status)
        });
        agrees.then_some(k)
    }

    /// The f32 value of the source code `c`.
    #[inline(always)]
    fn value(&self, c: u16) -> f32 {
        match (self.bytes, self.signed) {
            (1, true) => f32::from(c as u8 as i8),
            (1, false) => f32::from(c as u8),
            (_, true) => f32::from(c as i16),
            _ => f32::from(c),
        }
    }

    /// Short name of the code that casts the bulk of a slice at `level`.
    pub(crate) fn name_at(&self, level: SimdLevel) -> &'static str {
        if level.runs_avx512() {
            "int-f32-avx512"
        } else if Self::avx2_at(level) {
            "int-f32-avx2"
        } else {
            "int-f32"
        }
    }

    /// Whether the AVX2 kernel ([`crate::bulk::kernels::x86_avx2::int_to_f32`]) casts the bulk
    /// of a slice at `level` (the AVX2 level, or AVX-512 on a machine capped below it).
    fn avx2_at(level: SimdLevel) -> bool {
        level >= SimdLevel::Avx2 && crate::bulk::kernels::simd::avx2_present()
    }

    /// The counts of `n` elements.
    fn counts(&self, n: usize) -> StatusCounts {
        let mut counts = StatusCounts::default();
        crate::bulk::kernels::flags::record_n(self.status, n as u64, &mut counts);
        counts
    }

    /// The portable loop over `n` elements.
    #[inline(always)]
    fn run_portable(&self, src: &[u8], dst: &mut [u8], n: usize) {
        let out = dst[..4 * n].chunks_exact_mut(4);
        match (self.bytes, self.signed) {
            (1, true) => {
                for (&b, y) in src[..n].iter().zip(out) {
                    y.copy_from_slice(&f32::from(b as i8).to_le_bytes());
                }
            }
            (1, false) => {
                for (&b, y) in src[..n].iter().zip(out) {
                    y.copy_from_slice(&f32::from(b).to_le_bytes());
                }
            }
            (_, true) => {
                for (x, y) in src[..2 * n].chunks_exact(2).zip(out) {
                    let v = i16::from_le_bytes([x[0], x[1]]);
                    y.copy_from_slice(&f32::from(v).to_le_bytes());
                }
            }
            _ => {
                for (x, y) in src[..2 * n].chunks_exact(2).zip(out) {
                    let v = u16::from_le_bytes([x[0], x[1]]);
                    y.copy_from_slice(&f32::from(v).to_le_bytes());
                }
            }
        }
    }
}

impl crate::bulk::kernels::SliceKernel for IntToF32 {
    #[inline(always)]
    fn cast(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: crate::bulk::Storage,
        dst: &mut [u8],
        d: crate::bulk::Storage,
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        let _ = (s, d);
        // The fast kernels, best level first: whether this level runs it, its name, the
        // multiple of elements it casts, and the kernel.
        #[cfg(target_arch = "x86_64")]
        {
            use crate::bulk::kernels::{x86_avx2, x86_avx512};
            type Fast = fn(usize, bool, &[u8], &mut [u8], usize, bool) -> bool;
            let fast: [(bool, &str, usize, Fast); 2] = [
                (
                    level.runs_avx512(),
                    "int-f32-avx512",
                    16,
                    x86_avx512::int_to_f32::cast,
                ),
                (
                    Self::avx2_at(level),
                    "int-f32-avx2",
                    x86_avx2::int_to_f32::STEP,
                    x86_avx2::int_to_f32::cast,
                ),
            ];
            for (runs, name, step, cast) in fast {
                let done = n - n % step;
                if runs && cast(self.bytes, self.signed, src, dst, done, stream) {
                    crate::bulk::kernels::plan::ran(name);
                    self.run_portable(&src[self.bytes * done..], &mut dst[4 * done..], n - done);
                    return self.counts(n);
                }
            }
        }
        let _ = (level, stream);
        crate::bulk::kernels::plan::ran("int-f32");
        self.run_portable(src, dst, n);
        self.counts(n)
    }
}
