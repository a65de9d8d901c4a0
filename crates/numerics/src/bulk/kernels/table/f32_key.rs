//! f32 → narrow formats by a 2^17-entry table keyed on the f32's top 16 bits and a sticky bit
//! (binary floats with at most 6 mantissa bits, HiF8, and small integers under a saturating
//! policy), with the AVX-512 loops of [`KeyLoop`] where they are checked equal to it. Why the
//! key suffices is in `docs/kernels.md`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::bulk::kernels::drive::{self, F32Element};
use crate::bulk::kernels::simd::{SimdLevel, on_x86_64};
use crate::convert::convert_with_status;
use crate::format::{Format, Kind};
use crate::policy::{CastPolicy, IntOverflow};
use crate::status::StatusCounts;

/// Whether the key table gives the reference result for f32 → `dst` under `policy`.
pub(crate) fn applies(dst: Format, policy: &CastPolicy) -> bool {
    match dst.kind() {
        Kind::Binary(spec) => spec.man_bits <= 6 && dst.bits() <= 8,
        Kind::HiF8 => true,
        // Both ends of the range within ±127: beyond them every value saturates, whatever its
        // low bits (i8's -128 end is not: -128.6 overflows and -128.4 does not).
        Kind::Int { .. } => policy.int_overflow == IntOverflow::Saturate && dst.bits() <= 7,
    }
}

/// The results of every (top 16 bits, sticky) class: the code in the low 16 bits, the raw
/// status bits above (one lookup per element).
#[derive(Debug)]
pub(crate) struct KeyTable {
    entries: Box<[u32; KEYS]>,
    /// The destination.
    pub(crate) dst: Format,
    /// The policy.
    pub(crate) policy: CastPolicy,
    /// The AVX-512 loop for these results, if there is one (built on first use).
    avx512: OnceLock<Option<Box<dyn KeyLoop>>>,
    /// The AVX2 loop for these results, if there is one (built on first use).
    avx2: OnceLock<Option<Box<dyn KeyLoop>>>,
}

/// A loop that gives a [`KeyTable`]'s results faster than the lookup (the AVX-512 ones of
/// [`crate::bulk::kernels::x86_avx512::f32_key`]), checked against the table when built.
pub(crate) trait KeyLoop: std::fmt::Debug + Send + Sync {
    /// The loop's short name.
    fn name(&self) -> &'static str;

    /// Casts `n` little-endian f32 codes into one byte each; `None` where the machine lacks
    /// the loop's level.
    fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts>;
}

/// Table entries: 2^16 top-bit patterns × a sticky bit.
const KEYS: usize = 1 << 17;

type Key = (Format, CastPolicy);

fn cache() -> &'static Mutex<HashMap<Key, Arc<KeyTable>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<KeyTable>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl KeyTable {
    /// The cached table for f32 → `dst` (an 8-bit-or-narrower destination where
    /// [`applies`] holds), built on first use.
    pub(crate) fn cached(dst: Format, policy: &CastPolicy) -> Option<Arc<KeyTable>> {
        if dst.bits() > 8 || !applies(dst, policy) {
            return None;
        }
        let key = (dst, *policy);
        if let Ok(map) = cache().lock()
            && let Some(t) = map.get(&key)
        {
            return Some(Arc::clone(t));
        }
        let table = Arc::new(KeyTable::build(dst, policy)?);
        if let Ok(mut map) = cache().lock() {
            map.insert(key, Arc::clone(&table));
        }
        Some(table)
    }

    fn build(dst: Format, policy: &CastPolicy) -> Option<KeyTable> {
        let entries: Box<[u32]> = (0..KEYS as u32)
            .map(|key| {
                let representative = ((key >> 1) << 16) | (key & 1);
                let r = convert_with_status(u64::from(representative), Format::F32, dst, policy, 0);
                (r.code as u32 & 0xFFFF) | (u32::from(r.status.bits()) << 16)
            })
            .collect();
        Some(KeyTable {
            entries: entries.try_into().ok()?,
            dst,
            policy: *policy,
            avx512: OnceLock::new(),
            avx2: OnceLock::new(),
        })
    }

    /// The AVX-512 kernel for this table (e8m0, HiF8 and the fnuz fp8 formats on a machine
    /// with the level), built and checked on first use.
    fn avx512(&self) -> Option<&dyn KeyLoop> {
        self.avx512
            .get_or_init(|| {
                on_x86_64!(
                    crate::bulk::kernels::x86_avx512::f32_key::loop_for(self),
                    None
                )
            })
            .as_deref()
    }

    /// The short name of the AVX-512 kernel for this table (`f32-key` where there is none).
    pub(crate) fn avx512_name(&self) -> &'static str {
        self.avx512().map_or("f32-key", |k| k.name())
    }

    /// Whether [`crate::bulk::kernels::x86_avx512::f32_key`] casts (the bulk of) a slice into storage `d` at
    /// `level` on this machine.
    pub(crate) fn avx512_at(&self, level: SimdLevel, d: crate::bulk::Storage) -> bool {
        level.runs_avx512() && !d.is_packed() && self.avx512().is_some()
    }

    /// The AVX2 kernel for this table on a machine with the level, built (and checked) on
    /// first use: e8m0's formula ([`crate::bulk::kernels::x86_avx2::f32_e8m0`]) and HiF8's
    /// to nearest even ([`crate::bulk::kernels::x86_avx2::f32_hif8`]) where they agree with
    /// the table, else the gathered lookup
    /// ([`crate::bulk::kernels::x86_avx2::f32_key`]).
    fn avx2(&self) -> Option<&dyn KeyLoop> {
        self.avx2
            .get_or_init(|| {
                on_x86_64!(
                    crate::bulk::kernels::x86_avx2::f32_e8m0::E8m0Avx2::new(self)
                        .map(|k| Box::new(k) as Box<dyn KeyLoop>)
                        .or_else(|| {
                            crate::bulk::kernels::x86_avx2::f32_hif8::HiF8Avx2::new(self)
                                .map(|k| Box::new(k) as Box<dyn KeyLoop>)
                        })
                        .or_else(|| {
                            crate::bulk::kernels::simd::avx2_present().then(|| {
                                Box::new(crate::bulk::kernels::x86_avx2::f32_key::KeyGather)
                                    as Box<dyn KeyLoop>
                            })
                        }),
                    None
                )
            })
            .as_deref()
    }

    /// The short name of the AVX2 kernel for this table (`f32-key` where there is none).
    pub(crate) fn avx2_name(&self) -> &'static str {
        self.avx2().map_or("f32-key", |k| k.name())
    }

    /// Whether the AVX2 kernel casts (the bulk of) a slice into storage `d` at `level` on
    /// this machine (and the AVX-512 one does not).
    pub(crate) fn avx2_at(&self, level: SimdLevel, d: crate::bulk::Storage) -> bool {
        level >= SimdLevel::Avx2
            && level.is_available()
            && !self.avx512_at(level, d)
            && !d.is_packed()
            && self.avx2().is_some()
    }

    /// The entries: the code in the low 16 bits, the raw status bits above, of key
    /// `(top 16 bits) << 1 | sticky`.
    pub(crate) fn entries(&self) -> &[u32] {
        &self.entries[..]
    }

    /// Casts `n` little-endian f32 codes; `packed` stores 4-bit codes two per byte.
    #[inline(always)]
    pub(crate) fn run(&self, src: &[u8], dst: &mut [u8], n: usize, packed: bool) -> StatusCounts {
        let f = self;
        if packed {
            drive::f32_to_nibbles(src, dst, n, f)
        } else {
            drive::f32_to_codes::<u8>(src, dst, n, f)
        }
    }
}

impl KeyTable {
    /// The code and raw status bits of table entry `key` (top 16 bits << 1 | sticky).
    #[inline(always)]
    pub(crate) fn entry(&self, key: usize) -> (u32, u16) {
        let e = self.entries[key & (KEYS - 1)];
        (e & 0xFFFF, (e >> 16) as u16)
    }

    /// Whether `cast(src, dst)` of one whole step of `step` copies of every key (top 16 bits,
    /// low 16 bits 0, 1, 0x8000 or 0xFFFF) gives this table's code `step` times and its status
    /// counted `step` times: the check a formula kernel passes before it is used for the table.
    pub(crate) fn agrees_on_every_key(
        &self,
        step: usize,
        mut cast: impl FnMut(&[u8], &mut [u8]) -> Option<StatusCounts>,
    ) -> bool {
        let mut out = vec![0u8; step];
        let mut src = vec![0u8; 4 * step];
        (0..=u16::MAX).all(|top| {
            [0u32, 1, 0x8000, 0xFFFF].iter().all(|&low| {
                let x = (u32::from(top) << 16) | low;
                let (code, status) = self.apply(x);
                for c in src.chunks_exact_mut(4) {
                    c.copy_from_slice(&x.to_le_bytes());
                }
                let Some(got) = cast(&src, &mut out) else {
                    return false;
                };
                let mut want = StatusCounts::default();
                crate::bulk::kernels::flags::record_n(status, step as u64, &mut want);
                got == want && out.iter().all(|&c| u32::from(c) == code)
            })
        })
    }
}

impl F32Element for KeyTable {
    #[inline(always)]
    fn apply(&self, x: u32) -> (u32, u16) {
        self.entry((((x >> 16) << 1) | u32::from(x & 0xFFFF != 0)) as usize)
    }
}

impl crate::bulk::kernels::SliceKernel for KeyTable {
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
    ) -> crate::status::StatusCounts {
        let _ = s;
        if self.avx512_at(level, d)
            && let Some(k) = self.avx512()
            && let Some(counts) = k.run(self, src, dst, n, stream)
        {
            crate::bulk::kernels::plan::ran(k.name());
            return counts;
        }
        if self.avx2_at(level, d)
            && let Some(k) = self.avx2()
            && let Some(counts) = k.run(self, src, dst, n, stream)
        {
            crate::bulk::kernels::plan::ran(k.name());
            return counts;
        }
        crate::bulk::kernels::plan::ran("f32-key");
        self.run(src, dst, n, d.is_packed())
    }
}
