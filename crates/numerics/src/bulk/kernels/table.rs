//! The lookup-table kernel: for a source of at most 16 bits, the reference routine's result for
//! every source code is computed once per (source, destination, policy) and cached; a bulk cast
//! is then one lookup per element. Correct by construction, as the table *is* the reference.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::super::Storage;
use super::flags::{self, BLOCK};
use crate::convert::convert_with_status;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::StatusCounts;

/// Widest source the table kernel serves.
pub(crate) const MAX_SOURCE_BITS: u32 = 16;
/// Entries of every table: one per 16-bit code, so that a `u16` index needs no bounds check
/// (narrower sources fill only the first `2^bits` entries; their codes are masked).
const ENTRIES: usize = 1 << 16;

/// The results of every code of one source format under one policy.
#[derive(Debug)]
pub(crate) struct Table {
    /// Destination code of each source code (in the low bits).
    codes: Box<[u64; ENTRIES]>,
    /// For destinations of at most 16 bits: the code in the low 16 bits and the raw status
    /// bits above, so that one lookup gives both.
    narrow: Option<Box<[u32; ENTRIES]>>,
    /// For 32-bit destinations: the code.
    wide: Option<Box<[u32; ENTRIES]>>,
    /// Raw status bits of each source code.
    status: Box<[u16; ENTRIES]>,
    /// Whether every source code's status is OK (exact, no flag): the bulk loops then count
    /// without reading statuses.
    all_ok: bool,
}

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
        let results: Vec<_> = (0..n as u64)
            .map(|code| convert_with_status(code, src, dst, policy, 0))
            .collect();
        // Entry i holds the result of code i & mask.
        let at = |i: usize| results[i & (n - 1)];
        let codes = boxed(|i| at(i).code);
        let status = boxed(|i| at(i).status.bits());
        let bytes = dst.unpacked_bytes();
        let narrow = (bytes <= 2).then(|| {
            boxed(|i| (at(i).code as u32 & 0xFFFF) | (u32::from(at(i).status.bits()) << 16))
        });
        let wide = (bytes == 4).then(|| boxed(|i| at(i).code as u32));
        let all_ok = results.iter().all(|r| r.status.bits() == 0);
        Table {
            codes,
            narrow,
            wide,
            status,
            all_ok,
        }
    }

    /// Code and raw status bits of source code `c`.
    pub(crate) fn entry(&self, c: u16) -> (u64, u16) {
        let c = usize::from(c);
        (self.codes[c], self.status[c])
    }

    /// Casts elements `0..n` of the sub-buffers by lookup.
    #[inline(always)]
    pub(crate) fn run(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
    ) -> StatusCounts {
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
        let status = &*self.status;
        match (plain, sw, d.format().unpacked_bytes()) {
            (true, 1, 1) => self.narrow_lookup::<1, 1, COUNT>(src, s, dst, d, n),
            (true, 1, 2) => self.narrow_lookup::<1, 2, COUNT>(src, s, dst, d, n),
            (true, 2, 1) => self.narrow_lookup::<2, 1, COUNT>(src, s, dst, d, n),
            (true, 2, 2) => self.narrow_lookup::<2, 2, COUNT>(src, s, dst, d, n),
            (true, 1, 4) => self.wide_lookup::<1, COUNT>(src, s, dst, d, n),
            (true, 2, 4) => self.wide_lookup::<2, COUNT>(src, s, dst, d, n),
            (true, 1, _) => lookup::<1, 8, COUNT>(src, dst, n, m, &Wide64(&self.codes, status)),
            (true, 2, _) => lookup::<2, 8, COUNT>(src, dst, n, m, &Wide64(&self.codes, status)),
            (false, _, db) if s.is_packed() && s.per_byte() == 2 && !d.is_packed() => {
                match (db, &self.narrow, &self.wide) {
                    (1, Some(t), _) => nibble_lookup::<1, COUNT>(src, dst, n, &Narrow(t)),
                    (2, Some(t), _) => nibble_lookup::<2, COUNT>(src, dst, n, &Narrow(t)),
                    (4, _, Some(t)) => nibble_lookup::<4, COUNT>(src, dst, n, &Wide32(t, status)),
                    _ => nibble_lookup::<8, COUNT>(src, dst, n, &Wide64(&self.codes, status)),
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
        match &self.narrow {
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
        let status = &*self.status;
        match &self.wide {
            Some(t) => lookup::<S, 4, COUNT>(src, dst, n, m, &Wide32(t, status)),
            None => self.packed(src, s, dst, d, n),
        }
    }

    /// Packed 2/4-bit layouts (and any other): element by element through the storage codec.
    fn packed(&self, src: &[u8], s: Storage, dst: &mut [u8], d: Storage, n: usize) -> StatusCounts {
        let mut counts = StatusCounts::default();
        let mut st = [0u16; BLOCK];
        let mut i = 0;
        while i < n {
            let m = BLOCK.min(n - i);
            for (k, t) in st[..m].iter_mut().enumerate() {
                let c = usize::from(s.read(src, i + k) as u16);
                *t = self.status[c];
                d.write(dst, i + k, self.codes[c]);
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

impl super::SliceKernel for Table {
    #[inline(always)]
    fn cast(
        &self,
        level: super::simd::SimdLevel,
        src: &[u8],
        s: super::super::Storage,
        dst: &mut [u8],
        d: super::super::Storage,
        n: usize,
    ) -> crate::status::StatusCounts {
        let _ = (s, level);
        self.run(src, s, dst, d, n)
    }
}
