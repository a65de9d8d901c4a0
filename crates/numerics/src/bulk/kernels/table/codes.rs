//! The lookup-table kernel: for a source of at most 16 bits, the reference routine's result for
//! every source code is computed once per (source, destination, policy) and cached; a bulk cast
//! is then one lookup per element. Correct by construction, as the table *is* the reference.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::bulk::Storage;
use crate::bulk::kernels::flags::{self, BLOCK};
use crate::bulk::kernels::simd::SimdLevel;
use crate::bulk::kernels::simd::on_x86_64;
use crate::bulk::kernels::table::planes::Planes;
use crate::convert::convert_with_status;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::StatusCounts;

/// Widest source the table kernel serves.
pub(crate) const MAX_SOURCE_BITS: u32 = 16;
/// Entries of every table: one per 16-bit code, so that a `u16` index needs no bounds check
/// (narrower sources fill only the first `2^bits` entries; their codes are masked).
pub(crate) const ENTRIES: usize = 1 << 16;

/// The results of every code of one source format under one policy.
#[derive(Debug)]
pub(crate) struct Table {
    /// Code and raw status bits of each source code (`2^bits` of them).
    results: Box<[(u64, u16)]>,
    /// Destination bytes per code (unpacked).
    dst_bytes: usize,
    /// The lookup arrays of the scalar and AVX2 loops, built on their first use (the AVX-512
    /// loop of a source of at most 8 bits reads only [`Table::planes`], and a table of 2^16
    /// entries per array is large).
    arrays: OnceLock<Arrays>,
    /// Whether every source code's status is OK (exact, no flag): the bulk loops then count
    /// without reading statuses.
    pub(crate) all_ok: bool,
    /// For sources of at most 8 bits with a few codes whose status is not OK (fp8 NaN and
    /// Inf codes): those codes and their raw statuses, so that the gather loop counts them by
    /// comparing source bytes instead of reading a status per element.
    pub(crate) flagged: Option<Box<[(u8, u16)]>>,
    /// For sources of at most 8 bits: the results as byte planes for the AVX-512 permute
    /// lookup ([`crate::bulk::kernels::x86_avx512::table`]).
    planes: Option<Box<Planes>>,
}

/// The lookup arrays of a [`Table`]: one entry per 16-bit code, so that a `u16` index needs
/// no bounds check (narrower sources repeat their `2^bits` results; their codes are masked).
#[derive(Debug)]
pub(crate) struct Arrays {
    /// Destination code of each source code (in the low bits).
    codes: Box<[u64; ENTRIES]>,
    /// For destinations of at most 16 bits: the code in the low 16 bits and the raw status
    /// bits above, so that one lookup gives both.
    pub(crate) narrow: Option<Box<[u32; ENTRIES]>>,
    /// For 32-bit destinations: the code.
    pub(crate) wide: Option<Box<[u32; ENTRIES]>>,
    /// Raw status bits of each source code.
    status: Box<[u16; ENTRIES]>,
    /// For 32-bit destinations whose statuses are not all OK: the raw status bits as `u32`,
    /// so that an 8-lane gather reads them.
    pub(crate) status32: Option<Box<[u32; ENTRIES]>>,
}

/// Most flagged codes [`Table::flagged`] lists (each costs one compare pass per block).
const MAX_FLAGGED: usize = 16;

/// How a lookup loop counts statuses.
mod count {
    /// Every status is OK: only the number of results.
    pub const NONE: u8 = 0;
    /// One status per element, counted per block.
    pub const EACH: u8 = 1;
}

/// A boxed array of `ENTRIES` values from a function of the index.
fn boxed<T: Copy + Default + std::fmt::Debug>(f: impl Fn(usize) -> T) -> Box<[T; ENTRIES]> {
    let values: Box<[T]> = (0..ENTRIES).map(f).collect();
    // The iterator yields exactly ENTRIES values (built on the heap, never on the stack).
    match values.try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("ENTRIES values"),
    }
}

type Key = (Format, Format, CastPolicy);

fn cache() -> &'static Mutex<HashMap<Key, Arc<Table>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Table>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Table {
    /// The cached table for this combination, built on first use; `None` when the source is
    /// wider than [`MAX_SOURCE_BITS`].
    pub(crate) fn cached(src: Format, dst: Format, policy: &CastPolicy) -> Option<Arc<Table>> {
        if src.bits() > MAX_SOURCE_BITS {
            return None;
        }
        let key = (src, dst, *policy);
        if let Ok(map) = cache().lock()
            && let Some(t) = map.get(&key)
        {
            return Some(Arc::clone(t));
        }
        let table = Arc::new(Table::build(src, dst, policy));
        if let Ok(mut map) = cache().lock() {
            map.insert(key, Arc::clone(&table));
        }
        Some(table)
    }

    fn build(src: Format, dst: Format, policy: &CastPolicy) -> Table {
        let n = 1usize << src.bits();
        let results: Box<[(u64, u16)]> = (0..n as u64)
            .map(|code| {
                let r = convert_with_status(code, src, dst, policy, 0);
                (r.code, r.status.bits())
            })
            .collect();
        let all_ok = results.iter().all(|r| r.1 == 0);
        let flagged: Vec<(u8, u16)> = results
            .iter()
            .enumerate()
            .filter(|(_, r)| r.1 != 0)
            .filter_map(|(c, r)| Some((u8::try_from(c).ok()?, r.1)))
            .collect();
        let few = src.bits() <= 8 && !all_ok && flagged.len() <= MAX_FLAGGED;
        let bytes = dst.unpacked_bytes();
        // Entry c holds the result of code c & mask.
        let planes = Planes::new(src.bits(), bytes, |c| results[c & (n - 1)]);
        let table = Table {
            results,
            dst_bytes: bytes,
            arrays: OnceLock::new(),
            all_ok,
            flagged: few.then(|| flagged.into_boxed_slice()),
            planes: planes.map(Box::new),
        };
        if table.planes.is_none() {
            // Wider sources always need the arrays: build them with the table.
            table.arrays();
        }
        table
    }

    /// The lookup arrays, built on first use.
    pub(crate) fn arrays(&self) -> &Arrays {
        self.arrays.get_or_init(|| {
            let n = self.results.len();
            let at = |i: usize| self.results[i & (n - 1)];
            let codes = boxed(|i| at(i).0);
            let status = boxed(|i| at(i).1);
            let bytes = self.dst_bytes;
            let narrow = (bytes <= 2)
                .then(|| boxed(|i| (at(i).0 as u32 & 0xFFFF) | (u32::from(at(i).1) << 16)));
            let wide = (bytes == 4).then(|| boxed(|i| at(i).0 as u32));
            let status32 = (bytes == 4 && !self.all_ok).then(|| boxed(|i| u32::from(status[i])));
            Arrays {
                codes,
                narrow,
                wide,
                status,
                status32,
            }
        })
    }

    /// Code and raw status bits of source code `c`.
    pub(crate) fn entry(&self, c: u16) -> (u64, u16) {
        self.results[usize::from(c) & (self.results.len() - 1)]
    }

    /// Whether the AVX-512 permute lookup ([`crate::bulk::kernels::x86_avx512::table`]) casts slices into storage `d` at
    /// `level` on this machine (every source storage of at most 8 bits).
    pub(crate) fn avx512_at(&self, level: SimdLevel, d: Storage) -> bool {
        level.runs_avx512() && self.planes.as_ref().is_some_and(|p| p.serves(d))
    }

    /// Whether the AVX2 shuffle lookup ([`crate::bulk::kernels::x86_avx2::planes`]) casts
    /// slices of storage `s` into storage `d` at `level` on this machine (and the AVX-512
    /// permute lookup does not).
    pub(crate) fn avx2_at(&self, level: SimdLevel, s: Storage, d: Storage) -> bool {
        level >= SimdLevel::Avx2
            && level.is_available()
            && !self.avx512_at(level, d)
            && self.planes.as_ref().is_some_and(|p| {
                on_x86_64!(
                    p.serves_avx2(s, d) && std::arch::is_x86_feature_detected!("popcnt"),
                    {
                        let _ = (p, s);
                        false
                    }
                )
            })
    }

    /// Casts elements `0..n` of the sub-buffers by lookup (byte permutes at the AVX-512 level
    /// for sources of at most 8 bits; byte shuffles at the AVX2 level for sources of one
    /// code per byte or packed two per byte into codes of 1, 2 or 4 bytes; 8-lane gathers at the AVX2 level for unpacked sources
    /// of 1 or 2 bytes into destinations of 1, 2 or 4 bytes); `stream` as in
    /// [`SliceKernel::cast`](super::SliceKernel::cast).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        if level == SimdLevel::Avx512
            && let Some(p) = &self.planes
            && let Some(counts) = on_x86_64!(p.run(src, s, dst, d, n, stream), {
                let _ = (p, stream);
                None
            })
        {
            crate::bulk::kernels::plan::ran("table-avx512");
            return counts;
        }
        if level >= SimdLevel::Avx2
            && let Some(p) = &self.planes
            && let Some(counts) = on_x86_64!(
                p.run_avx2(src, s, dst, d, n, self.flagged.as_deref(), stream),
                {
                    let _ = p;
                    None
                }
            )
        {
            crate::bulk::kernels::plan::ran("table-avx2");
            return counts;
        }
        crate::bulk::kernels::plan::ran("table");
        if level >= SimdLevel::Avx2
            && let Some(counts) = on_x86_64!(self.gathered(src, s, dst, d, n), None)
        {
            return counts;
        }
        if self.all_ok {
            self.run_counting::<{ count::NONE }>(src, s, dst, d, n)
        } else {
            self.run_counting::<{ count::EACH }>(src, s, dst, d, n)
        }
    }

    /// [`Table::run`], counting statuses as `COUNT` says (see [`count`]).
    #[inline(always)]
    fn run_counting<const COUNT: u8>(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
    ) -> StatusCounts {
        // One-per-byte sub-byte sources may carry stray high bits: only the code bits count.
        let m = s.format().code_mask() as u16;
        let plain = !s.is_packed() && !d.is_packed();
        let sw = s.format().unpacked_bytes();
        let a = self.arrays();
        let status = &*a.status;
        match (plain, sw, d.format().unpacked_bytes()) {
            (true, 1, 1) => self.narrow_lookup::<1, 1, COUNT>(src, s, dst, d, n),
            (true, 1, 2) => self.narrow_lookup::<1, 2, COUNT>(src, s, dst, d, n),
            (true, 2, 1) => self.narrow_lookup::<2, 1, COUNT>(src, s, dst, d, n),
            (true, 2, 2) => self.narrow_lookup::<2, 2, COUNT>(src, s, dst, d, n),
            (true, 1, 4) => self.wide_lookup::<1, COUNT>(src, s, dst, d, n),
            (true, 2, 4) => self.wide_lookup::<2, COUNT>(src, s, dst, d, n),
            (true, 1, _) => lookup::<1, 8, COUNT>(src, dst, n, m, &Wide64(&a.codes, status)),
            (true, 2, _) => lookup::<2, 8, COUNT>(src, dst, n, m, &Wide64(&a.codes, status)),
            (false, _, db) if s.is_packed() && s.per_byte() == 2 && !d.is_packed() => {
                match (db, &a.narrow, &a.wide) {
                    (1, Some(t), _) => nibble_lookup::<1, COUNT>(src, dst, n, &Narrow(t)),
                    (2, Some(t), _) => nibble_lookup::<2, COUNT>(src, dst, n, &Narrow(t)),
                    (4, _, Some(t)) => nibble_lookup::<4, COUNT>(src, dst, n, &Wide32(t, status)),
                    _ => nibble_lookup::<8, COUNT>(src, dst, n, &Wide64(&a.codes, status)),
                }
            }
            _ => self.packed(src, s, dst, d, n),
        }
    }

    #[inline(always)]
    fn narrow_lookup<const S: usize, const D: usize, const COUNT: u8>(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
    ) -> StatusCounts {
        let m = s.format().code_mask() as u16;
        match &self.arrays().narrow {
            Some(t) => lookup::<S, D, COUNT>(src, dst, n, m, &Narrow(t)),
            None => self.packed(src, s, dst, d, n),
        }
    }

    #[inline(always)]
    fn wide_lookup<const S: usize, const COUNT: u8>(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
    ) -> StatusCounts {
        let m = s.format().code_mask() as u16;
        let a = self.arrays();
        let status = &*a.status;
        match &a.wide {
            Some(t) => lookup::<S, 4, COUNT>(src, dst, n, m, &Wide32(t, status)),
            None => self.packed(src, s, dst, d, n),
        }
    }

    /// Packed 2/4-bit layouts (and any other): element by element through the storage codec.
    fn packed(&self, src: &[u8], s: Storage, dst: &mut [u8], d: Storage, n: usize) -> StatusCounts {
        let a = self.arrays();
        let mut counts = StatusCounts::default();
        let mut st = [0u16; BLOCK];
        let mut i = 0;
        while i < n {
            let m = BLOCK.min(n - i);
            for (k, t) in st[..m].iter_mut().enumerate() {
                let c = usize::from(s.read(src, i + k) as u16);
                *t = a.status[c];
                d.write(dst, i + k, a.codes[c]);
            }
            flags::count(&st[..m], &mut counts);
            i += m;
        }
        counts
    }
}

/// Counts a block's statuses `st`, or (`COUNT` is [`count::NONE`]: every status is OK) only
/// its length.
#[inline(always)]
fn count_block<const COUNT: u8>(st: &[u16], counts: &mut StatusCounts) {
    if COUNT != count::NONE {
        flags::count(st, counts);
    } else {
        counts.total += st.len() as u64;
        counts.exact += st.len() as u64;
    }
}

/// The lookup loop for unpacked little-endian elements of `S` source and `D` destination
/// bytes; `entry` gives a source code's destination bytes and raw status bits.
#[inline(always)]
fn lookup<const S: usize, const D: usize, const COUNT: u8>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    mask: u16,
    entry: &impl Entry<D>,
) -> StatusCounts {
    let mut counts = StatusCounts::default();
    let mut st = [0u16; BLOCK];
    for (s, d) in src[..n * S]
        .chunks(S * BLOCK)
        .zip(dst[..n * D].chunks_mut(D * BLOCK))
    {
        let m = s.len() / S;
        for ((x, y), t) in s
            .chunks_exact(S)
            .zip(d.chunks_exact_mut(D))
            .zip(st.iter_mut())
        {
            let c = if S == 1 {
                u16::from(x[0])
            } else {
                u16::from_le_bytes([x[0], x[1]])
            } & mask;
            let (bytes, status) = entry.get(usize::from(c));
            y.copy_from_slice(&bytes);
            if COUNT != count::NONE {
                *t = status;
            }
        }
        count_block::<COUNT>(&st[..m], &mut counts);
    }
    counts
}

/// The lookup loop for packed 4-bit sources (two per byte, element 0 in the low nibble) into
/// unpacked little-endian elements of `D` bytes: both nibbles of a byte in one pass.
#[inline(always)]
fn nibble_lookup<const D: usize, const COUNT: u8>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    entry: &impl Entry<D>,
) -> StatusCounts {
    let mut counts = StatusCounts::default();
    let mut st = [0u16; BLOCK];
    let pairs = n / 2;
    for (s, d) in src[..pairs]
        .chunks(BLOCK / 2)
        .zip(dst[..2 * pairs * D].chunks_mut(BLOCK * D))
    {
        for ((x, y), t) in s
            .iter()
            .zip(d.chunks_exact_mut(2 * D))
            .zip(st.chunks_exact_mut(2))
        {
            let (lo, lo_status) = entry.get(usize::from(x & 0xF));
            let (hi, hi_status) = entry.get(usize::from(x >> 4));
            y[..D].copy_from_slice(&lo);
            y[D..].copy_from_slice(&hi);
            if COUNT != count::NONE {
                t[0] = lo_status;
                t[1] = hi_status;
            }
        }
        count_block::<COUNT>(&st[..2 * s.len()], &mut counts);
    }
    // An odd count: the last element is the low nibble of the last byte.
    if n % 2 == 1
        && let (Some(x), Some(y)) = (
            src.get(pairs),
            dst.get_mut(2 * pairs * D..(2 * pairs + 1) * D),
        )
    {
        let (lo, lo_status) = entry.get(usize::from(x & 0xF));
        y.copy_from_slice(&lo);
        count_block::<COUNT>(&[lo_status], &mut counts);
    }
    counts
}

/// One table entry as destination bytes and raw status bits (`get` is `#[inline(always)]`, so
/// that the lookup loop inlines it at every instruction-set level).
trait Entry<const D: usize> {
    fn get(&self, c: usize) -> ([u8; D], u16);
}

/// Code and status in one `u32` (destinations of at most 16 bits).
struct Narrow<'a>(&'a [u32; ENTRIES]);

impl<const D: usize> Entry<D> for Narrow<'_> {
    #[inline(always)]
    fn get(&self, c: usize) -> ([u8; D], u16) {
        let e = self.0[c & (ENTRIES - 1)];
        let b = e.to_le_bytes();
        let mut out = [0u8; D];
        out.copy_from_slice(&b[..D]);
        (out, (e >> 16) as u16)
    }
}

/// 32-bit codes and statuses in two arrays.
struct Wide32<'a>(&'a [u32; ENTRIES], &'a [u16; ENTRIES]);

impl Entry<4> for Wide32<'_> {
    #[inline(always)]
    fn get(&self, c: usize) -> ([u8; 4], u16) {
        let c = c & (ENTRIES - 1);
        (self.0[c].to_le_bytes(), self.1[c])
    }
}

/// 64-bit codes and statuses in two arrays.
struct Wide64<'a>(&'a [u64; ENTRIES], &'a [u16; ENTRIES]);

impl Entry<8> for Wide64<'_> {
    #[inline(always)]
    fn get(&self, c: usize) -> ([u8; 8], u16) {
        let c = c & (ENTRIES - 1);
        (self.0[c].to_le_bytes(), self.1[c])
    }
}

impl crate::bulk::kernels::SliceKernel for Table {
    #[inline(always)]
    fn cast(
        &self,
        level: crate::bulk::kernels::simd::SimdLevel,
        src: &[u8],
        s: crate::bulk::Storage,
        dst: &mut [u8],
        d: crate::bulk::Storage,
        n: usize,
        stream: bool,
    ) -> crate::status::StatusCounts {
        self.run(level, src, s, dst, d, n, stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::Layout;
    use crate::round::RoundMode;

    /// Every byte pattern of `bytes`-byte elements once (all 2^8 or 2^16), then a short
    /// pseudo-random run, so stray high bits of sub-byte codes occur too.
    fn every_pattern(bytes: usize) -> Vec<u8> {
        let n = 1usize << (8 * bytes);
        let mut v: Vec<u8> = (0..n)
            .flat_map(|i| (i as u16).to_le_bytes().into_iter().take(bytes))
            .collect();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..1000 * bytes {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x as u8);
        }
        v
    }

    #[test]
    fn avx2_gathers_equal_the_portable_lookup_at_every_length() {
        if !crate::bulk::kernels::simd::level_here(SimdLevel::Avx2) {
            return;
        }
        let mut checked = 0;
        for from in Format::ALL
            .into_iter()
            .filter(|f| f.bits() <= MAX_SOURCE_BITS)
        {
            let Ok(s) = Storage::new(from, Layout::Unpacked) else {
                continue;
            };
            let sw = from.unpacked_bytes();
            let src = every_pattern(sw);
            let total = src.len() / sw;
            for to in Format::ALL {
                let Ok(d) = Storage::new(to, Layout::Unpacked) else {
                    continue;
                };
                let dw = to.unpacked_bytes();
                if !matches!(dw, 1 | 2 | 4) {
                    continue;
                }
                for policy in [
                    CastPolicy::new(RoundMode::Rint),
                    CastPolicy::saturating(RoundMode::Floor),
                ] {
                    let t = Table::build(from, to, &policy);
                    // Whole buffer, then lengths around the group of 8 and the block, from
                    // an odd start.
                    for (start, n) in [(0, total), (3, 13), (5, BLOCK + 7), (1, 2 * BLOCK + 8)] {
                        let n = n.min(total - start);
                        let x = &src[start * sw..(start + n) * sw];
                        let mut want = vec![0u8; n * dw];
                        let mut got = vec![0u8; n * dw];
                        let wc = t.run(SimdLevel::Portable, x, s, &mut want, d, n, false);
                        let gc = t.run(SimdLevel::Avx2, x, s, &mut got, d, n, false);
                        assert_eq!(got, want, "{from} -> {to} {policy:?} n {n}");
                        assert_eq!(gc, wc, "{from} -> {to} {policy:?} n {n}");
                        assert!(on_x86_64!(t.gathered(x, s, &mut got, d, n).is_some(), true));
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
