//! The lookup-table kernel: for a source of at most 16 bits, the reference routine's result for
//! every source code is computed once per (source, destination, policy) and cached; a bulk cast
//! is then one lookup per element. Correct by construction, as the table *is* the reference.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::super::Storage;
use super::flags::{self, BLOCK};
use super::simd::SimdLevel;
use super::table_avx512;
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
    all_ok: bool,
    /// For sources of at most 8 bits with a few codes whose status is not OK (fp8 NaN and
    /// Inf codes): those codes and their raw statuses, so that the gather loop counts them by
    /// comparing source bytes instead of reading a status per element.
    flagged: Option<Box<[(u8, u16)]>>,
    /// For sources of at most 8 bits: the results as byte planes for the AVX-512 permute
    /// lookup ([`table_avx512`]).
    planes: Option<Box<table_avx512::Planes>>,
}

/// The lookup arrays of a [`Table`]: one entry per 16-bit code, so that a `u16` index needs
/// no bounds check (narrower sources repeat their `2^bits` results; their codes are masked).
#[derive(Debug)]
struct Arrays {
    /// Destination code of each source code (in the low bits).
    codes: Box<[u64; ENTRIES]>,
    /// For destinations of at most 16 bits: the code in the low 16 bits and the raw status
    /// bits above, so that one lookup gives both.
    narrow: Option<Box<[u32; ENTRIES]>>,
    /// For 32-bit destinations: the code.
    wide: Option<Box<[u32; ENTRIES]>>,
    /// Raw status bits of each source code.
    status: Box<[u16; ENTRIES]>,
    /// For 32-bit destinations whose statuses are not all OK: the raw status bits as `u32`,
    /// so that an 8-lane gather reads them.
    status32: Option<Box<[u32; ENTRIES]>>,
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
        let planes = table_avx512::Planes::new(src.bits(), bytes, |c| results[c & (n - 1)]);
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
    fn arrays(&self) -> &Arrays {
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

    /// Whether the AVX-512 permute lookup ([`table_avx512`]) casts slices into storage `d` at
    /// `level` on this machine (every source storage of at most 8 bits).
    pub(crate) fn avx512_at(&self, level: SimdLevel, d: Storage) -> bool {
        level.runs_avx512() && self.planes.as_ref().is_some_and(|p| p.serves(d))
    }

    /// Casts elements `0..n` of the sub-buffers by lookup (byte permutes at the AVX-512 level
    /// for sources of at most 8 bits; 8-lane gathers at the AVX2 level for unpacked sources
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
            && let Some(counts) = p.run(src, s, dst, d, n, stream)
        {
            super::plan::ran("table-avx512");
            return counts;
        }
        super::plan::ran("table");
        if level >= SimdLevel::Avx2
            && let Some(counts) = self.gathered(src, s, dst, d, n)
        {
            return counts;
        }
        if self.all_ok {
            self.run_counting::<{ count::NONE }>(src, s, dst, d, n)
        } else {
            self.run_counting::<{ count::EACH }>(src, s, dst, d, n)
        }
    }

    /// The AVX2 gather path of [`Table::run`]: `None` when the layouts or the machine do not
    /// allow it.
    #[inline(always)]
    fn gathered(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
    ) -> Option<StatusCounts> {
        if s.is_packed() || d.is_packed() {
            return None;
        }
        let mask = s.format().code_mask() as u16;
        let (table, status) = match d.format().unpacked_bytes() {
            1 | 2 => (self.arrays().narrow.as_deref()?, None),
            4 => (
                self.arrays().wide.as_deref()?,
                self.arrays().status32.as_deref(),
            ),
            _ => return None,
        };
        let g = gather::Gather {
            table,
            status,
            mask,
            count: !self.all_ok,
            flagged: self.flagged.as_deref(),
        };
        let counts = match (s.format().unpacked_bytes(), d.format().unpacked_bytes()) {
            (1, 1) => g.run::<1, 1>(src, dst, n),
            (1, 2) => g.run::<1, 2>(src, dst, n),
            (1, 4) => g.run::<1, 4>(src, dst, n),
            (2, 1) => g.run::<2, 1>(src, dst, n),
            (2, 2) => g.run::<2, 2>(src, dst, n),
            (2, 4) => g.run::<2, 4>(src, dst, n),
            _ => None,
        }?;
        Some(counts)
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

/// The table lookup with AVX2 8-lane gathers, for unpacked little-endian sources of 1 or 2
/// bytes and destinations of 1, 2 or 4 bytes.
mod gather {
    use super::super::flags::{self, BLOCK};
    use super::ENTRIES;
    use crate::status::StatusCounts;

    /// One gathered lookup: the table of `u32` entries (for destinations of at most 2 bytes the
    /// code in the low 16 bits and the raw status above; for 4-byte destinations the code, the
    /// status then in `status`), the source code mask, and whether statuses are counted.
    pub(super) struct Gather<'a> {
        pub table: &'a [u32; ENTRIES],
        pub status: Option<&'a [u32; ENTRIES]>,
        pub mask: u16,
        pub count: bool,
        /// For 1-byte sources: the only codes whose status is not OK, counted by comparing
        /// the block's source bytes with each (the statuses are then not read per element).
        pub flagged: Option<&'a [(u8, u16)]>,
    }

    impl Gather<'_> {
        /// Raw status of entry `e` of source code `c`.
        #[inline(always)]
        fn status_of<const D: usize>(&self, e: u32, c: usize) -> u16 {
            if D == 4 {
                self.status.map_or(0, |t| t[c & (ENTRIES - 1)] as u16)
            } else {
                (e >> 16) as u16
            }
        }

        /// Casts `n` elements of `S` source bytes into `D` destination bytes; `None` when the
        /// machine lacks AVX2, a buffer is short, or a 4-byte destination's statuses are
        /// missing.
        pub(super) fn run<const S: usize, const D: usize>(
            &self,
            src: &[u8],
            dst: &mut [u8],
            n: usize,
        ) -> Option<StatusCounts> {
            let sized = src.len() >= n.checked_mul(S)? && dst.len() >= n.checked_mul(D)?;
            if !sized || !matches!(S, 1 | 2) || !matches!(D, 1 | 2 | 4) {
                return None;
            }
            if D == 4 && self.count && self.status.is_none() {
                return None;
            }
            #[cfg(target_arch = "x86_64")]
            if crate::bulk::kernels::simd::avx2_present() {
                // SAFETY: the CPU has AVX2 (checked just above).
                return Some(unsafe { self.run_avx2::<S, D>(src, dst, n) });
            }
            None
        }

        /// [`Gather::run`] on a CPU with AVX2: per group of 8, the source codes are widened to
        /// 32-bit lanes and masked, the entries gathered, and the codes (and statuses) packed
        /// and stored; the statuses of a block are counted as the scalar lookup counts them.
        ///
        /// # Safety
        /// The CPU must support AVX2; `src` must hold `n * S` bytes and `dst` `n * D`.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn run_avx2<const S: usize, const D: usize>(
            &self,
            src: &[u8],
            dst: &mut [u8],
            n: usize,
        ) -> StatusCounts {
            use std::arch::x86_64::{
                __m128i, __m256i, _mm_loadl_epi64, _mm_loadu_si128, _mm_storel_epi64,
                _mm_storeu_si128, _mm256_and_si256, _mm256_castsi256_si128, _mm256_cvtepu8_epi32,
                _mm256_cvtepu16_epi32, _mm256_i32gather_epi32, _mm256_permute4x64_epi64,
                _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_setr_epi8,
                _mm256_setr_epi32, _mm256_shuffle_epi8, _mm256_storeu_si256,
            };
            // Per 128-bit lane: byte 0 of each 32-bit entry; bytes 0-1; bytes 2-3.
            let low8 = _mm256_setr_epi8(
                0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1,
                -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
            );
            let low16 = _mm256_setr_epi8(
                0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13,
                -1, -1, -1, -1, -1, -1, -1, -1,
            );
            let high16 = _mm256_setr_epi8(
                2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, 2, 3, 6, 7, 10, 11, 14,
                15, -1, -1, -1, -1, -1, -1, -1, -1,
            );
            let first_dwords = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
            // The 8 bytes (2 per lane) or 8 u16 (4 per lane) gathered into the low half.
            let low_half8 = |v: __m256i| {
                _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                    _mm256_shuffle_epi8(v, low8),
                    first_dwords,
                ))
            };
            let low_half16 = |v: __m256i, pick: __m256i| {
                _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b00_00_10_00>(
                    _mm256_shuffle_epi8(v, pick),
                ))
            };
            let flagged = if S == 1 && self.count {
                self.flagged
            } else {
                None
            };
            // Statuses read per element only when they are counted and not by flagged codes.
            let per_element = self.count && flagged.is_none();
            let mask = _mm256_set1_epi32(i32::from(self.mask));
            let table = self.table.as_ptr().cast::<i32>();
            let status_table = self.status.map(|t| t.as_ptr().cast::<i32>());
            let mut counts = StatusCounts::default();
            let mut st = [0u16; BLOCK];
            for (sb, db) in src[..n * S]
                .chunks(S * BLOCK)
                .zip(dst[..n * D].chunks_mut(D * BLOCK))
            {
                let m = sb.len() / S;
                let groups = m / 8;
                for ((x, y), t) in sb
                    .chunks_exact(8 * S)
                    .zip(db.chunks_exact_mut(8 * D))
                    .zip(st.chunks_exact_mut(8))
                {
                    if S == 1 && D == 4 && !per_element {
                        // 256 entries in L1: eight scalar loads beat one gather here.
                        for (&b, out) in x.iter().zip(y.chunks_exact_mut(4)) {
                            let e = self.table[usize::from(u16::from(b) & self.mask)];
                            out.copy_from_slice(&e.to_le_bytes());
                        }
                        continue;
                    }
                    // SAFETY: `x` holds 8 * S bytes, the size of the load; every index is
                    // masked to at most 0xFFFF < ENTRIES, inside both tables; `y` holds 8 * D
                    // bytes and `t` 8 u16, the sizes of the stores; AVX2 is enabled here.
                    unsafe {
                        let idx = if S == 1 {
                            _mm256_cvtepu8_epi32(_mm_loadl_epi64(x.as_ptr().cast::<__m128i>()))
                        } else {
                            _mm256_cvtepu16_epi32(_mm_loadu_si128(x.as_ptr().cast::<__m128i>()))
                        };
                        let idx = _mm256_and_si256(idx, mask);
                        let v = _mm256_i32gather_epi32::<4>(table, idx);
                        let out = y.as_mut_ptr();
                        match D {
                            1 => _mm_storel_epi64(out.cast::<__m128i>(), low_half8(v)),
                            2 => _mm_storeu_si128(out.cast::<__m128i>(), low_half16(v, low16)),
                            _ => _mm256_storeu_si256(out.cast::<__m256i>(), v),
                        }
                        if per_element {
                            let stv = match (D, status_table) {
                                (4, Some(s)) => {
                                    low_half16(_mm256_i32gather_epi32::<4>(s, idx), low16)
                                }
                                _ => low_half16(v, high16),
                            };
                            _mm_storeu_si128(t.as_mut_ptr().cast::<__m128i>(), stv);
                        }
                    }
                }
                // The last block's tail of fewer than 8, one by one.
                for k in 8 * groups..m {
                    let c = if S == 1 {
                        usize::from(sb[k])
                    } else {
                        usize::from(u16::from_le_bytes([sb[2 * k], sb[2 * k + 1]]))
                    } & usize::from(self.mask);
                    let e = self.table[c];
                    db[D * k..D * (k + 1)].copy_from_slice(&e.to_le_bytes()[..D]);
                    st[k] = self.status_of::<D>(e, c);
                }
                if let Some(codes) = flagged {
                    let mut seen = 0usize;
                    for &(code, status) in codes {
                        let k = sb
                            .iter()
                            .filter(|&&b| u16::from(b) & self.mask == u16::from(code))
                            .count();
                        flags::record_n(status, k as u64, &mut counts);
                        seen += k;
                    }
                    flags::record_n(0, (m - seen) as u64, &mut counts);
                } else if self.count {
                    flags::count(&st[..m], &mut counts);
                } else {
                    counts.total += m as u64;
                    counts.exact += m as u64;
                }
            }
            counts
        }
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
                        assert!(t.gathered(x, s, &mut got, d, n).is_some());
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
