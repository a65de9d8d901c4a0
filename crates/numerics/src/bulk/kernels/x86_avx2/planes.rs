//! The table lookup at the AVX2 level for sources of at most 8 bits: the results held as
//! byte planes ([`Planes`]) and looked up 32 codes at a time by 16-byte byte shuffles
//! (`vpshufb`), the statuses counted by compares; 4-byte codes that follow an arithmetic
//! [`Rule`](crate::bulk::kernels::table::rule::Rule) are computed instead ([`rule`]). The
//! method is in `docs/kernels.md`.

mod rule;

use crate::bulk::Storage;
use crate::bulk::kernels::stream;
use crate::bulk::kernels::table::planes::{CODES, Cube, MAX_MARKS, Planes};
use crate::status::StatusCounts;
use std::arch::x86_64::{
    __m128i, __m256i, _mm_and_si128, _mm_loadu_si128, _mm_set1_epi8, _mm_srli_epi16,
    _mm_unpackhi_epi8, _mm_unpacklo_epi8, _mm256_and_si256, _mm256_blendv_epi8,
    _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32,
    _mm256_sad_epu8, _mm256_set_m128i, _mm256_set1_epi8, _mm256_setr_epi32, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_storeu_si256, _mm256_stream_si256,
    _mm256_sub_epi8, _mm256_unpackhi_epi8, _mm256_unpackhi_epi16, _mm256_unpacklo_epi8,
    _mm256_unpacklo_epi16, _mm256_xor_si256,
};

/// Steps of 32 codes whose classes one byte counter holds: at most one per step.
const COUNTED_STEPS: usize = 255;

/// Elements per step.
const STEP: usize = 32;

/// Source codes that [`Planes::run_avx2`] counts by comparing source bytes: each code (as
/// masked to the source's bits) and its raw status bits.
pub(crate) type Flagged<'a> = Option<&'a [(u8, u16)]>;

impl Planes {
    /// Whether the AVX2 shuffle lookup casts source storage `s` into `d`: one code per byte or
    /// packed two per byte, into codes of 1, 2 or 4 bytes one per element.
    pub(crate) fn serves_avx2(&self, s: Storage, d: Storage) -> bool {
        let source = if s.is_packed() {
            s.per_byte() == 2
        } else {
            s.format().unpacked_bytes() == 1
        };
        source
            && !d.is_packed()
            && matches!(self.code.len(), 1 | 2 | 4)
            && d.format().unpacked_bytes() == self.code.len()
    }

    /// Casts `n` elements of `src` (storage `s`) into `dst` (storage `d`) by byte shuffles;
    /// `None` when the machine lacks AVX2 (or POPCNT), a buffer is short, or
    /// [`Planes::serves_avx2`] does not hold. Statuses of one code per byte whose classes
    /// form few cubes ([`Planes::cubes`]) are counted by byte compares in a pass per block;
    /// otherwise by comparing each source code with the `flagged` ones where given (every
    /// other code is OK), else by the mark planes. With `stream`, `dst` starts on a 64-byte
    /// boundary and full steps are stored non-temporally.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_avx2(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
        flagged: Flagged<'_>,
        stream: bool,
    ) -> Option<StatusCounts> {
        if !self.serves_avx2(s, d) || src.len() < s.bytes_for(n) || dst.len() < d.bytes_for(n) {
            return None;
        }
        if !crate::bulk::kernels::simd::avx2_present()
            || !std::arch::is_x86_feature_detected!("popcnt")
        {
            return None;
        }
        let packed = s.is_packed();
        if !packed && let Some(counts) = self.run_rule(src, dst, n, stream) {
            return Some(counts);
        }
        let mask = s.format().code_mask() as u8;
        // How a plane is looked up: 16 entries, 128 and a sign flip, or 256. (With cubes, one
        // code per byte, the mark planes are not looked up.)
        let by_cubes = !packed && self.cubes.is_some();
        let by_marks = flagged.is_none() && !self.classes.is_empty() && !by_cubes;
        let look = if s.format().bits() <= 4 {
            NARROW
        } else if self.sign_flip.is_some() && (!by_marks || self.marks_even) {
            SIGNED
        } else if self.sign_flip_but.is_some() && !by_marks {
            SIGNED_BUT
        } else {
            FULL
        };
        macro_rules! go {
            ($p:literal, $nw:expr) => {
                // SAFETY: the CPU has AVX2 and POPCNT (checked above); `src` holds the bytes of
                // `n` source elements and `dst` those of `n` destination elements (checked
                // above); a streamed destination is 64-byte aligned (`stream::split`).
                unsafe {
                    match self.code.len() {
                        1 => cast::<$p, $nw, 1>(self, src, dst, n, mask, flagged, stream),
                        2 => cast::<$p, $nw, 2>(self, src, dst, n, mask, flagged, stream),
                        _ => cast::<$p, $nw, 4>(self, src, dst, n, mask, flagged, stream),
                    }
                }
            };
        }
        Some(match (packed, look) {
            (true, _) => go!(true, NARROW),
            (false, NARROW) => go!(false, NARROW),
            (false, SIGNED) => go!(false, SIGNED),
            (false, SIGNED_BUT) => go!(false, SIGNED_BUT),
            (false, _) => go!(false, FULL),
        })
    }
}

/// A plane looked up by one shuffle: sources of at most 4 bits.
const NARROW: u8 = 0;
/// A plane looked up by sixteen shuffles (256 entries).
const FULL: u8 = 1;
/// A sign-symmetric plane ([`Planes::sign_flip`]) looked up by eight shuffles (128 entries),
/// its bytes flipped for codes from 128.
const SIGNED: u8 = 2;

/// One plane as 16 tables of 16 entries, each in both 128-bit lanes: table `h` holds the
/// entries of the codes whose high nibble is `h`.
type Split = [__m256i; 16];

/// A [`SIGNED`] lookup of planes that are sign-symmetric but for one code from 128
/// ([`Planes::sign_flip_but`]), whose bytes are blended in.
const SIGNED_BUT: u8 = 3;

/// The 16-entry tables of `plane` that a `LOOK` lookup reads (1, 8 or 16; the rest zero).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn split<const LOOK: u8>(plane: &[u8; CODES]) -> Split {
    let tables = match LOOK {
        NARROW => 1,
        SIGNED | SIGNED_BUT => 8,
        _ => 16,
    };
    std::array::from_fn(|h| {
        if h < tables {
            // SAFETY: bytes 16h..16h+16 of the 256-byte plane, h < 16.
            _mm256_broadcastsi128_si256(unsafe {
                _mm_loadu_si128(plane.as_ptr().add(16 * h).cast::<__m128i>())
            })
        } else {
            _mm256_setzero_si256()
        }
    })
}

/// What a step's 32 byte indices become before each plane is looked up (see [`look`]).
#[derive(Clone, Copy)]
struct Index {
    /// The shuffle indices of the tables selected where their top bit is clear.
    i0: __m256i,
    /// `i0` with its top bit flipped: the other tables.
    i1: __m256i,
    /// The indices shifted so that bit 4 (`sel[0]`), 5 or 6 is each byte's top bit.
    sel: [__m256i; 3],
    /// All ones in the bytes of codes from 128.
    neg: __m256i,
    /// For [`SIGNED_BUT`]: all ones in the bytes of the one code that is not sign-symmetric.
    odd: __m256i,
}

impl Index {
    /// The indices of the `LOOK` lookup of the byte codes `x`.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn new<const LOOK: u8>(x: __m256i, odd: __m256i) -> Index {
        let zero = _mm256_setzero_si256();
        let low = _mm256_and_si256(x, _mm256_set1_epi8(0x0F));
        let top = _mm256_set1_epi8(0x80u8 as i8);
        // Which bit a shuffle's zeroing selects on: 7 (256 entries), or 6 (128 entries).
        let i0 = match LOOK {
            NARROW => low,
            SIGNED | SIGNED_BUT => {
                _mm256_or_si256(low, _mm256_and_si256(_mm256_slli_epi16::<1>(x), top))
            }
            _ => _mm256_and_si256(x, _mm256_set1_epi8(0x8Fu8 as i8)),
        };
        Index {
            i0,
            i1: _mm256_xor_si256(i0, top),
            sel: [
                _mm256_slli_epi16::<3>(x),
                _mm256_slli_epi16::<2>(x),
                _mm256_slli_epi16::<1>(x),
            ],
            neg: _mm256_cmpgt_epi8(zero, x),
            odd: if LOOK == SIGNED_BUT {
                _mm256_cmpeq_epi8(x, odd)
            } else {
                zero
            },
        }
    }
}

/// The plane `t` looked up at a step's indices `ix` (`flip`: the byte flip of codes from 128
/// for a [`SIGNED`] lookup; `odd`: for [`SIGNED_BUT`], the byte of the code that is not
/// sign-symmetric). A shuffle gives zero where its index's top bit is set, so each pair of
/// tables that differ in the selecting bit (7, or 6 for [`SIGNED`]) is looked up by `i0` and
/// `i1` and or'ed; the remaining high bits choose by a tree of blends.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn look<const LOOK: u8>(t: &Split, ix: &Index, flip: __m256i, odd: __m256i) -> __m256i {
    match LOOK {
        NARROW => _mm256_shuffle_epi8(t[0], ix.i0),
        SIGNED_BUT => {
            let v = look::<SIGNED>(t, ix, flip, odd);
            _mm256_blendv_epi8(v, odd, ix.odd)
        }
        SIGNED => {
            let c: [__m256i; 4] = std::array::from_fn(|k| {
                _mm256_or_si256(
                    _mm256_shuffle_epi8(t[k], ix.i0),
                    _mm256_shuffle_epi8(t[k + 4], ix.i1),
                )
            });
            let a0 = _mm256_blendv_epi8(c[0], c[1], ix.sel[0]);
            let a1 = _mm256_blendv_epi8(c[2], c[3], ix.sel[0]);
            let v = _mm256_blendv_epi8(a0, a1, ix.sel[1]);
            _mm256_xor_si256(v, _mm256_and_si256(ix.neg, flip))
        }
        _ => {
            let c: [__m256i; 8] = std::array::from_fn(|k| {
                _mm256_or_si256(
                    _mm256_shuffle_epi8(t[k], ix.i0),
                    _mm256_shuffle_epi8(t[k + 8], ix.i1),
                )
            });
            let a: [__m256i; 4] =
                std::array::from_fn(|k| _mm256_blendv_epi8(c[2 * k], c[2 * k + 1], ix.sel[0]));
            let b0 = _mm256_blendv_epi8(a[0], a[1], ix.sel[1]);
            let b1 = _mm256_blendv_epi8(a[2], a[3], ix.sel[1]);
            _mm256_blendv_epi8(b0, b1, ix.sel[2])
        }
    }
}

/// Adds to `seen` the classes of the one-per-byte source codes `src` (a multiple of 32 bytes,
/// at most [`COUNTED_STEPS`] times 32), cube by cube: a byte compare of the masked codes per
/// 32, subtracted from byte counters (one per step at most, so none wraps) and summed at the
/// end.
#[target_feature(enable = "avx2,popcnt")]
fn count_cubes(src: &[u8], cubes: &[Cube], seen: &mut [u64; MAX_MARKS]) {
    let zero = _mm256_setzero_si256();
    for cube in cubes {
        let (mask, value) = (
            _mm256_set1_epi8(cube.mask as i8),
            _mm256_set1_epi8(cube.value as i8),
        );
        let mut acc = zero;
        for x in src.chunks_exact(32) {
            // SAFETY: `x` is 32 readable bytes (an unaligned load).
            let b = unsafe { _mm256_loadu_si256(x.as_ptr().cast::<__m256i>()) };
            acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_and_si256(b, mask), value));
        }
        let mut sums = [0u64; 4];
        // SAFETY: `sums` is 32 writable bytes (an unaligned store).
        unsafe {
            _mm256_storeu_si256(
                sums.as_mut_ptr().cast::<__m256i>(),
                _mm256_sad_epu8(acc, zero),
            )
        };
        seen[cube.class] += sums.iter().sum::<u64>();
    }
}

/// The 32 source codes of elements `i..i + 32`, one per byte in element order (`PACKED`: two
/// 4-bit codes per source byte, the first in the low bits).
///
/// # Safety
/// The CPU must support AVX2; `src` must hold the bytes of elements `i..i + 32`.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn codes<const PACKED: bool>(src: &[u8], i: usize) -> __m256i {
    if PACKED {
        // SAFETY: the 16 bytes of packed elements i..i + 32 (i even).
        let b = unsafe { _mm_loadu_si128(src.as_ptr().add(i / 2).cast::<__m128i>()) };
        let nib = _mm_set1_epi8(0x0F);
        let lo = _mm_and_si128(b, nib);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(b), nib);
        _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi))
    } else {
        // SAFETY: the 32 bytes of elements i..i + 32.
        unsafe { _mm256_loadu_si256(src.as_ptr().add(i).cast::<__m256i>()) }
    }
}

/// The AVX2 loop of [`Planes::run_avx2`] for sources of one code per byte (`PACKED`: two per
/// byte), each plane looked up as `LOOK` says, into codes of `DB` bytes: 32 elements per step,
/// the last `n % 32` one by one from the planes.
///
/// The source codes are reordered before the lookup so that the unpacks that interleave the
/// planes into codes leave them in element order: for 4-byte codes by dwords (lane 0 takes
/// dwords 0, 2, 4, 6), for 2-byte codes by qwords (0, 2 | 1, 3).
///
/// # Safety
/// The CPU must support AVX2 and POPCNT; `src` must hold the bytes of `n` source elements
/// and `dst` those of `n` destination elements; with `stream`, `dst` must be 64-byte aligned.
#[target_feature(enable = "avx2,popcnt")]
#[allow(clippy::too_many_arguments)]
unsafe fn cast<const PACKED: bool, const LOOK: u8, const DB: usize>(
    p: &Planes,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    mask: u8,
    flagged: Flagged<'_>,
    stream: bool,
) -> StatusCounts {
    let zero = _mm256_setzero_si256();
    // Planes that are zero for every source code (the low half of fp8 → f32 codes, say) are
    // not looked up.
    let mut code = [[zero; 16]; 4];
    let mut live = [false; 4];
    for (k, plane) in p.code.iter().enumerate().take(DB) {
        // SAFETY: AVX2 is enabled here.
        code[k] = unsafe { split::<LOOK>(plane) };
        live[k] = p.live[k];
    }
    let classes = p.classes.len();
    // One code per byte: classes counted by byte compares of the source codes, a block of
    // steps at a time (`count_cubes`), instead of the flagged codes or the mark planes.
    let cubes = p.cubes.as_deref().filter(|_| !PACKED && classes > 0);
    let flagged = if cubes.is_some() { None } else { flagged };
    let by_marks = flagged.is_none() && classes > 0 && cubes.is_none();
    let mut marks = [[zero; 16]; 2];
    if by_marks {
        for (t, plane) in marks.iter_mut().zip(p.marks.iter()) {
            // SAFETY: AVX2 is enabled here.
            *t = unsafe { split::<LOOK>(plane) };
        }
    }
    let mark_planes = p.marks.len();
    let flagged = flagged.unwrap_or(&[]);
    let flag_codes: [__m256i; MAX_MARKS] =
        std::array::from_fn(|j| _mm256_set1_epi8(flagged.get(j).map_or(0, |f| f.0 & mask) as i8));
    let bits: [__m256i; 8] = std::array::from_fn(|b| _mm256_set1_epi8((1u8 << b) as i8));
    let code_mask = _mm256_set1_epi8(mask as i8);
    let (flips, odd_code) = match (LOOK, p.sign_flip_but) {
        (SIGNED_BUT, Some((f, c))) => (f, c),
        _ => (p.sign_flip.unwrap_or_default(), 0),
    };
    let flip: [__m256i; 4] = std::array::from_fn(|k| _mm256_set1_epi8(flips[k] as i8));
    // The bytes of the code that is not sign-symmetric, per plane ([`SIGNED_BUT`]).
    let odd: [__m256i; 4] = std::array::from_fn(|k| {
        _mm256_set1_epi8(p.code.get(k).map_or(0, |pl| pl[usize::from(odd_code)]) as i8)
    });
    let odd_codes = _mm256_set1_epi8(odd_code as i8);
    let order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    let mut seen = [0u64; MAX_MARKS];
    let mut hits = [0u64; MAX_MARKS];

    let dp = dst.as_mut_ptr();
    let full = n - n % STEP;
    let mut i = 0;
    while i < full {
        let start = i;
        let end = if cubes.is_some() {
            full.min(i + STEP * COUNTED_STEPS)
        } else {
            full
        };
        while i < end {
            stream::prefetch(src.as_ptr().wrapping_add(if PACKED { i / 2 } else { i }));
            // SAFETY: elements i..i + 32 lie within the n of `src` (i + 32 <= full <= n).
            let raw = unsafe { codes::<PACKED>(src, i) };
            if !flagged.is_empty() {
                let m = _mm256_and_si256(raw, code_mask);
                for (h, c) in hits.iter_mut().zip(&flag_codes).take(flagged.len()) {
                    let eq = _mm256_movemask_epi8(_mm256_cmpeq_epi8(m, *c)) as u32;
                    *h += u64::from(eq.count_ones());
                }
            }
            let idx = match DB {
                4 => _mm256_permutevar8x32_epi32(raw, order),
                2 => _mm256_permute4x64_epi64::<0b11_01_10_00>(raw),
                _ => raw,
            };
            let ix = Index::new::<LOOK>(idx, odd_codes);
            let mut v = [zero; 4];
            for (k, x) in v.iter_mut().enumerate().take(DB) {
                if live[k] {
                    *x = look::<LOOK>(&code[k], &ix, flip[k], odd[k]);
                }
            }
            let out: [__m256i; 4] = match DB {
                4 => {
                    let a = _mm256_unpacklo_epi8(v[0], v[1]);
                    let b = _mm256_unpackhi_epi8(v[0], v[1]);
                    let c = _mm256_unpacklo_epi8(v[2], v[3]);
                    let d = _mm256_unpackhi_epi8(v[2], v[3]);
                    [
                        _mm256_unpacklo_epi16(a, c),
                        _mm256_unpackhi_epi16(a, c),
                        _mm256_unpacklo_epi16(b, d),
                        _mm256_unpackhi_epi16(b, d),
                    ]
                }
                2 => [
                    _mm256_unpacklo_epi8(v[0], v[1]),
                    _mm256_unpackhi_epi8(v[0], v[1]),
                    zero,
                    zero,
                ],
                _ => [v[0], zero, zero, zero],
            };
            for (q, o) in out.iter().enumerate().take(DB) {
                // SAFETY: bytes DB * i + 32q..+32 of the destination, within its n * DB bytes
                // (i + 32 <= n, q < DB); with `stream` the destination is 64-byte aligned and
                // DB * i + 32q a multiple of 32.
                unsafe {
                    let at = dp.add(DB * i + 32 * q).cast::<__m256i>();
                    if stream {
                        _mm256_stream_si256(at, *o);
                    } else {
                        _mm256_storeu_si256(at, *o);
                    }
                }
            }
            if by_marks {
                let mut mv = [zero; 2];
                for (x, t) in mv.iter_mut().zip(&marks).take(mark_planes) {
                    *x = look::<LOOK>(t, &ix, zero, zero);
                }
                for (j, s) in seen.iter_mut().enumerate().take(classes) {
                    let b = bits[j % 8];
                    let hit = _mm256_cmpeq_epi8(_mm256_and_si256(mv[j / 8], b), b);
                    *s += u64::from((_mm256_movemask_epi8(hit) as u32).count_ones());
                }
            }
            i += STEP;
        }
        if let Some(cubes) = cubes {
            count_cubes(&src[start..end], cubes, &mut seen);
        }
    }
    // The last n % 32 elements, one by one.
    for k in full..n {
        let c = if PACKED {
            (src[k / 2] >> (4 * (k % 2))) & 0x0F
        } else {
            src[k]
        };
        let c = usize::from(c);
        for (b, plane) in p.code.iter().enumerate().take(DB) {
            dst[DB * k + b] = plane[c];
        }
        if !flagged.is_empty() {
            for (h, f) in hits.iter_mut().zip(flagged) {
                *h += u64::from(c as u8 & mask == f.0 & mask);
            }
        } else if let Some(cubes) = cubes {
            p.count_by_cubes(cubes, &[c as u8], &mut seen);
        } else if by_marks {
            for (j, s) in seen.iter_mut().enumerate().take(classes) {
                *s += u64::from((p.marks[j / 8][c] >> (j % 8)) & 1);
            }
        }
    }
    if flagged.is_empty() {
        p.counts(&seen, n)
    } else {
        let mut counts = StatusCounts::default();
        let mut flagged_n = 0;
        for (&h, f) in hits.iter().zip(flagged) {
            crate::bulk::kernels::flags::record_n(f.1, h, &mut counts);
            flagged_n += h;
        }
        crate::bulk::kernels::flags::record_n(0, n as u64 - flagged_n, &mut counts);
        counts
    }
}
