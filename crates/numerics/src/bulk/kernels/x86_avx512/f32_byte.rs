//! The step loop of the AVX-512 kernels that cast f32 to one-byte codes by a per-lane formula
//! ([`crate::bulk::kernels::x86_avx512::f32_e8m0`], [`crate::bulk::kernels::x86_avx512::f32_hif8`]),
//! and their check against the [`crate::bulk::kernels::table::f32_key`] table on every key at
//! construction. The method and the exactness argument are in `docs/kernels.md`.

use std::arch::x86_64::*;

use crate::bulk::kernels::drive::F32Element;
use crate::bulk::kernels::table::f32_key::KeyTable;
use crate::status::{Status, StatusCounts};

/// Whether the CPU has what the formula kernels need: the AVX-512 level and POPCNT.
pub(super) fn present() -> bool {
    crate::bulk::kernels::simd::avx512_present() && std::arch::is_x86_feature_detected!("popcnt")
}

/// What a formula kernel's cast of a slice is: `(kernel, table, src, dst, stream)`, run only
/// where [`present`] holds, with `src` holding 4 bytes per byte of `dst` and `dst` 64-byte
/// aligned with `stream`.
pub(super) type Dispatch<K> = unsafe fn(&K, &KeyTable, &[u8], &mut [u8], bool) -> StatusCounts;

/// The safe entry of a formula kernel `k`: casts `n` little-endian f32 codes of `src` into one
/// byte each of `dst` by `dispatch`; `None` without the AVX-512 level and POPCNT.
pub(super) fn run<K>(
    k: &K,
    dispatch: Dispatch<K>,
    table: &KeyTable,
    (src, dst): (&[u8], &mut [u8]),
    n: usize,
    stream: bool,
) -> Option<StatusCounts> {
    if !present() {
        return None;
    }
    let (s, t) = (src.get(..4 * n)?, dst.get_mut(..n)?);
    // SAFETY: the CPU has POPCNT and the AVX-512 level (checked just above); `s` holds `4 n`
    // bytes and `t` `n`, 64-byte aligned with `stream` (as `stream::split` arranges).
    Some(unsafe { dispatch(k, table, s, t, stream) })
}

/// Elements per step (four vectors of 16).
pub(crate) const STEP: usize = 64;

/// The output of a lane function on 16 f32 codes.
#[derive(Clone, Copy)]
pub(crate) struct Lanes<const C: usize> {
    /// The codes, in the low byte of each dword (the other bytes are ignored).
    pub(crate) codes: __m512i,
    /// Per status class, the lanes in it (the kernel's [`ClassStatus`] says what they mean).
    pub(crate) classes: [__mmask16; C],
}

/// One level of a kernel's formula: which lanes it does not cover, and its results on the
/// others.
pub(crate) struct Formula<R, L> {
    /// The lanes of 16 f32 codes the formula does not cover.
    pub(crate) rare: R,
    /// The codes and class masks of 16 f32 codes (meaningful where `rare` is clear).
    pub(crate) lanes: L,
    /// Whether the loop or's the sign (bit 31 of the f32, as 0x80) into every code, once per
    /// step, rather than the lane function.
    pub(crate) sign: bool,
}

/// How a kernel's class masks map to statuses: per lane, and for a whole count.
pub(crate) trait ClassStatus<const C: usize> {
    /// The raw status of a lane whose class-mask membership is `member`.
    fn lane_status(&self, member: [bool; C]) -> u16;
    /// The counts of `total` formula-cast lanes whose class masks held `popcounts` lanes.
    fn counts(&self, total: u64, popcounts: [u64; C]) -> StatusCounts;
}

/// Counts `n` results of raw status `s`.
pub(crate) fn record_n(counts: &mut StatusCounts, s: u16, n: u64) {
    counts.total += n;
    if s & (Status::INEXACT | Status::INVALID).bits() == 0 {
        counts.exact += n;
    }
    for (j, (flag, _)) in Status::NAMED.iter().enumerate() {
        if s & flag.bits() != 0 {
            counts.flags[j] += n;
        }
    }
}

/// `popcnt` in assembly: the compiler would turn several `count_ones` into a far slower
/// vector nibble-table count.
#[inline(always)]
fn popcount(m: u64) -> u64 {
    let r: u64;
    // SAFETY: `popcnt` reads and writes only the two registers named; every caller checked
    // that the CPU has POPCNT before entering its AVX-512 code.
    unsafe {
        std::arch::asm!("popcnt {r}, {m}", m = in(reg) m, r = lateout(reg) r,
            options(pure, nomem, nostack))
    };
    r
}

/// Casts `n` little-endian f32 codes of `src` into one byte each in `dst` by the formula
/// `fast`, or, for a step where it has a rare lane, `full`, or, where that has one too, by
/// `table` (which also casts the last `n % 64`); with `stream` the 64-byte blocks are stored
/// non-temporally. Returns the counts of the table-cast elements, the number of
/// formula-cast ones, and their per-class mask popcounts.
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI; `src` must hold `4 n`
/// bytes, `dst` `n`, and `dst` must start on a 64-byte boundary with `stream`.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
pub(crate) unsafe fn drive<const C: usize>(
    table: &KeyTable,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
    fast: Formula<impl Fn(__m512i) -> __mmask16, impl Fn(__m512i) -> Lanes<C>>,
    full: Formula<impl Fn(__m512i) -> __mmask16, impl Fn(__m512i) -> Lanes<C>>,
) -> (StatusCounts, u64, [u64; C]) {
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx512::store::store64;
    let body = n / STEP * STEP;
    let mut counts = StatusCounts::default();
    let mut formula = 0u64;
    let mut classes = [0u64; C];
    // Byte j of `vpermt2b(a, idx, b)`: the low byte of dword j of a:b (j < 32; above, the
    // same bytes again, which the blend with the second pair replaces).
    let low_bytes: [u8; 64] = std::array::from_fn(|j| ((4 * j) & 127) as u8);
    // The same for the top byte of each dword.
    let top_bytes: [u8; 64] = std::array::from_fn(|j| ((4 * j + 3) & 127) as u8);
    // SAFETY: 64 bytes each, the size of the unaligned loads.
    let (low_bytes, top_bytes) = unsafe {
        (
            _mm512_loadu_si512(low_bytes.as_ptr().cast()),
            _mm512_loadu_si512(top_bytes.as_ptr().cast()),
        )
    };
    for (x, y) in src[..4 * body]
        .chunks_exact(4 * STEP)
        .zip(dst[..body].chunks_exact_mut(STEP))
    {
        let xs: [__m512i; 4] = std::array::from_fn(|i| {
            let p = x.as_ptr().wrapping_add(64 * i);
            prefetch(p);
            // SAFETY: `x` holds 256 bytes, so 64 from `64 i`.
            unsafe { _mm512_loadu_si512(p.cast()) }
        });
        let rare = |f: &dyn Fn(__m512i) -> __mmask16| xs.iter().fold(0, |m, &v| m | f(v));
        let (v, sign) = if rare(&fast.rare) == 0 {
            (xs.map(&fast.lanes), fast.sign)
        } else if rare(&full.rare) == 0 {
            (xs.map(&full.lanes), full.sign)
        } else {
            counts.add(&table.run(x, y, STEP, false));
            continue;
        };
        formula += STEP as u64;
        for (c, t) in classes.iter_mut().enumerate() {
            // the class's masks of the four vectors as one 64-bit mask, in mask registers
            let ab = _mm512_kunpackw(v[1].classes[c].into(), v[0].classes[c].into());
            let cd = _mm512_kunpackw(v[3].classes[c].into(), v[2].classes[c].into());
            *t += popcount(_mm512_kunpackd(cd.into(), ab.into()));
        }
        let ab = _mm512_permutex2var_epi8(v[0].codes, low_bytes, v[1].codes);
        let cd = _mm512_permutex2var_epi8(v[2].codes, low_bytes, v[3].codes);
        let mut z = _mm512_mask_blend_epi8(0xFFFF_FFFF_0000_0000, ab, cd);
        if sign {
            // the top bytes of the f32 codes, in order: z | (top & 0x80)
            let ab = _mm512_permutex2var_epi8(xs[0], top_bytes, xs[1]);
            let cd = _mm512_permutex2var_epi8(xs[2], top_bytes, xs[3]);
            let top = _mm512_mask_blend_epi8(0xFFFF_FFFF_0000_0000, ab, cd);
            z = _mm512_ternarylogic_epi32::<0xF8>(z, top, _mm512_set1_epi8(0x80u8 as i8));
        }
        // SAFETY: `y` holds 64 bytes; with `stream` it starts on a 64-byte boundary (`dst`
        // does and every step is 64 bytes).
        unsafe { store64(y.as_mut_ptr(), z, stream) };
    }
    counts.add(&table.run(&src[4 * body..4 * n], &mut dst[body..n], n - body, false));
    (counts, formula, classes)
}

/// The f32 codes whose key is `key` (top 16 bits, sticky) with low 16 bits 0 or 1, 0x8000
/// and 0xFFFF: one per key for `pattern` 0, three others for 1 to 3 (sticky keys only).
fn representative(key: u32, pattern: usize) -> u32 {
    let top = (key >> 1) << 16;
    match (key & 1, pattern) {
        (0, _) => top,
        (_, 0) => top | 1,
        (_, 1) => top | 0x8000,
        _ => top | 0xFFFF,
    }
}

/// Whether the formulas (`lanes(codes, level)`: the results of level 0, fast, or 1, full, as
/// [`lanes_of`] gives them; `None` without the CPU features) and the step loop `run` (the
/// kernel's cast of a slice, `None` without the features) give the table's results: each
/// level lane by lane on every key (code and status class, where not rare) with three
/// low-bit patterns, then the whole loop on every key in order (codes and counts).
pub(crate) fn check<const C: usize>(
    table: &KeyTable,
    classes: &impl ClassStatus<C>,
    lanes: impl Fn(&[u32; 16], usize) -> Option<([u32; 16], [u16; C], u16)>,
    run: impl Fn(&[u8], &mut [u8], usize) -> Option<StatusCounts>,
) -> bool {
    const KEYS: u32 = 1 << 17;
    for (level, pattern) in (0..2).flat_map(|l| (0..3).map(move |p| (l, p))) {
        for base in (0..KEYS).step_by(16) {
            let xs: [u32; 16] = std::array::from_fn(|i| representative(base + i as u32, pattern));
            let Some((codes, masks, rare)) = lanes(&xs, level) else {
                return false;
            };
            for (i, &x) in xs.iter().enumerate() {
                if rare >> i & 1 == 1 {
                    continue;
                }
                let (code, status) = table.apply(x);
                let member = masks.map(|m| m >> i & 1 == 1);
                if codes[i] & 0xFF != code || classes.lane_status(member) != status {
                    return false;
                }
            }
        }
    }
    let xs: Vec<u32> = (0..KEYS).map(|k| representative(k, 0)).collect();
    let src: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut dst = vec![0u8; xs.len()];
    let Some(got) = run(&src, &mut dst, xs.len()) else {
        return false;
    };
    let mut want = StatusCounts::default();
    for (&x, &c) in xs.iter().zip(&dst) {
        let (code, s) = table.apply(x);
        if code != u32::from(c) {
            return false;
        }
        record_n(&mut want, s, 1);
    }
    got == want
}

/// The results of `f` on 16 codes, as arrays: codes (with the sign or'ed in where the loop
/// does that), class masks, rare lanes.
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
pub(crate) unsafe fn lanes_of<const C: usize>(
    xs: &[u32; 16],
    f: Formula<impl Fn(__m512i) -> __mmask16, impl Fn(__m512i) -> Lanes<C>>,
) -> ([u32; 16], [u16; C], u16) {
    // SAFETY: `xs` holds 16 dwords.
    let x = unsafe { _mm512_loadu_si512(xs.as_ptr().cast()) };
    let l = (f.lanes)(x);
    let mut codes = [0u32; 16];
    // SAFETY: `codes` holds 16 dwords.
    unsafe { _mm512_storeu_si512(codes.as_mut_ptr().cast(), l.codes) };
    if f.sign {
        for (c, x) in codes.iter_mut().zip(xs) {
            *c |= (x >> 24) & 0x80;
        }
    }
    (codes, l.classes, (f.rare)(x))
}
