//! The table lookup at the AVX2 level: 8-lane gathers of the table's entries for unpacked
//! sources of 1 or 2 bytes and destinations of 1, 2 or 4 bytes.

use crate::bulk::Storage;
use crate::bulk::kernels::flags::{self, BLOCK};
use crate::bulk::kernels::table::codes::{ENTRIES, Table};
use crate::status::StatusCounts;
use std::arch::x86_64::{
    __m128i, __m256i, _mm_loadl_epi64, _mm_loadu_si128, _mm_storel_epi64, _mm_storeu_si128,
    _mm256_and_si256, _mm256_castsi256_si128, _mm256_cvtepu8_epi32, _mm256_cvtepu16_epi32,
    _mm256_i32gather_epi32, _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32,
    _mm256_set1_epi32, _mm256_setr_epi8, _mm256_setr_epi32, _mm256_shuffle_epi8,
    _mm256_storeu_si256,
};

impl Table {
    /// The AVX2 gather path of [`Table::run`]: `None` when the layouts or the machine do not
    /// allow it.
    #[inline(always)]
    pub(crate) fn gathered(
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
        let g = Gather {
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
}

/// One gathered lookup: the table of `u32` entries (for destinations of at most 2 bytes the
/// code in the low 16 bits and the raw status above; for 4-byte destinations the code, the
/// status then in `status`), the source code mask, and whether statuses are counted.
struct Gather<'a> {
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
    fn run<const S: usize, const D: usize>(
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
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2<const S: usize, const D: usize>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
    ) -> StatusCounts {
        let flagged = if S == 1 && self.count {
            self.flagged
        } else {
            None
        };
        // Statuses read per element only when they are counted and not by flagged codes.
        let per_element = self.count && flagged.is_none();
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
                // SAFETY: `x` holds 8 * S bytes, `y` 8 * D and `t` 8 u16 (exact chunks);
                // AVX2 is enabled here.
                unsafe { self.group::<S, D>(x, y, t, per_element) };
            }
            self.tail::<S, D>(sb, db, &mut st, 8 * groups, m);
            self.count_block(sb, &st[..m], flagged, &mut counts);
        }
        counts
    }

    /// Looks up one group of 8 source codes `x` by a gather: their codes into `y` and, when
    /// `per_element`, their raw statuses into `t`.
    ///
    /// # Safety
    /// The CPU must support AVX2; `x` must hold 8 * S bytes, `y` 8 * D and `t` 8 u16.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn group<const S: usize, const D: usize>(
        &self,
        x: &[u8],
        y: &mut [u8],
        t: &mut [u16],
        per_element: bool,
    ) {
        let mask = _mm256_set1_epi32(i32::from(self.mask));
        let table = self.table.as_ptr().cast::<i32>();
        // SAFETY: `x` holds 8 * S bytes, the size of the load; every index is masked to at
        // most 0xFFFF < ENTRIES, inside both tables; `y` holds 8 * D bytes and `t` 8 u16, the
        // sizes of the stores (the caller's guarantees); AVX2 is enabled here.
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
                2 => _mm_storeu_si128(out.cast::<__m128i>(), low_half16::<false>(v)),
                _ => _mm256_storeu_si256(out.cast::<__m256i>(), v),
            }
            if per_element {
                let stv = match (D, self.status) {
                    (4, Some(s)) => low_half16::<false>(_mm256_i32gather_epi32::<4>(
                        s.as_ptr().cast::<i32>(),
                        idx,
                    )),
                    _ => low_half16::<true>(v),
                };
                _mm_storeu_si128(t.as_mut_ptr().cast::<__m128i>(), stv);
            }
        }
    }

    /// Looks up elements `from..m` of a block (source bytes `sb`, destination bytes `db`) one
    /// by one, their raw statuses into `st`: the block's last elements, fewer than 8.
    #[inline(always)]
    fn tail<const S: usize, const D: usize>(
        &self,
        sb: &[u8],
        db: &mut [u8],
        st: &mut [u16; BLOCK],
        from: usize,
        m: usize,
    ) {
        for k in from..m {
            let c = if S == 1 {
                usize::from(sb[k])
            } else {
                usize::from(u16::from_le_bytes([sb[2 * k], sb[2 * k + 1]]))
            } & usize::from(self.mask);
            let e = self.table[c];
            db[D * k..D * (k + 1)].copy_from_slice(&e.to_le_bytes()[..D]);
            st[k] = self.status_of::<D>(e, c);
        }
    }

    /// Counts the statuses of a block of `st.len()` elements (source bytes `sb`) into
    /// `counts`: by comparing source bytes with the `flagged` codes, from the raw statuses
    /// `st` when statuses are counted, else all exact.
    #[inline(always)]
    fn count_block(
        &self,
        sb: &[u8],
        st: &[u16],
        flagged: Option<&[(u8, u16)]>,
        counts: &mut StatusCounts,
    ) {
        let m = st.len();
        if let Some(codes) = flagged {
            let mut seen = 0usize;
            for &(code, status) in codes {
                let k = sb
                    .iter()
                    .filter(|&&b| u16::from(b) & self.mask == u16::from(code))
                    .count();
                flags::record_n(status, k as u64, counts);
                seen += k;
            }
            flags::record_n(0, (m - seen) as u64, counts);
        } else if self.count {
            flags::count(st, counts);
        } else {
            counts.total += m as u64;
            counts.exact += m as u64;
        }
    }
}

/// Byte 0 of each of the 8 32-bit lanes of `v`, in the low 8 bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn low_half8(v: __m256i) -> __m128i {
    // Per 128-bit lane: byte 0 of each 32-bit entry.
    let low8 = _mm256_setr_epi8(
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let first_dwords = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
        _mm256_shuffle_epi8(v, low8),
        first_dwords,
    ))
}

/// Bytes 0-1 (`HIGH`: bytes 2-3) of each of the 8 32-bit lanes of `v`, as 8 u16.
#[target_feature(enable = "avx2")]
#[inline]
fn low_half16<const HIGH: bool>(v: __m256i) -> __m128i {
    let pick = if HIGH {
        _mm256_setr_epi8(
            2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, 2, 3, 6, 7, 10, 11, 14, 15,
            -1, -1, -1, -1, -1, -1, -1, -1,
        )
    } else {
        _mm256_setr_epi8(
            0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13, -1,
            -1, -1, -1, -1, -1, -1, -1,
        )
    };
    _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b00_00_10_00>(
        _mm256_shuffle_epi8(v, pick),
    ))
}
