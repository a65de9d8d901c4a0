//! f32 → narrow formats by a 2^17-entry table keyed on the f32's top 16 bits and a sticky bit.
//!
//! When every rounding point of the destination lies within the f32's top 16 bits (sign,
//! exponent, 7 mantissa bits), the result and its status depend only on those bits and on
//! whether any of the low 16 bits is set. That holds for binary floats with at most 6 mantissa
//! bits (fp8, fp6, fp4, e8m0), HiF8 (at most 3), and integers whose range lies within ±127
//! under a saturating policy (i2, i4, u2, u4: beyond the range every value is clamped with the
//! same status, whatever its low bits). Each
//! table entry is the reference routine's result for a representative f32 of its class.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::convert::convert_with_status;
use crate::format::{Format, Kind};
use crate::policy::{CastPolicy, IntOverflow};
use crate::status::{Status, StatusTally};

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

/// The results of every (top 16 bits, sticky) class.
#[derive(Debug)]
pub(crate) struct KeyTable {
    codes: Vec<u8>,
    status_id: Vec<u8>,
    statuses: Vec<Status>,
}

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
        let n = 1usize << 17;
        let mut codes = Vec::with_capacity(n);
        let mut status_id = Vec::with_capacity(n);
        let mut statuses: Vec<Status> = Vec::new();
        for key in 0..n as u32 {
            let representative = ((key >> 1) << 16) | (key & 1);
            let r = convert_with_status(u64::from(representative), Format::F32, dst, policy, 0);
            status_id.push(super::intern_status(&mut statuses, r.status)?);
            codes.push(r.code as u8);
        }
        Some(KeyTable {
            codes,
            status_id,
            statuses,
        })
    }

    /// Casts `n` little-endian f32 codes; `write` stores code `c` as element `i`.
    pub(crate) fn run(
        &self,
        src: &[u8],
        n: usize,
        mut write: impl FnMut(usize, u8),
    ) -> StatusTally {
        let mut tally = StatusTally::new();
        let mut hist = [[0u64; 4]; 256];
        for (i, s) in src[..4 * n].chunks_exact(4).enumerate() {
            let x = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            let key = (((x >> 16) << 1) | u32::from(x & 0xFFFF != 0)) as usize;
            write(i, self.codes[key]);
            hist[usize::from(self.status_id[key])][i & 3] += 1;
        }
        for (status, lanes) in self.statuses.iter().zip(hist) {
            tally.add_n(*status, lanes.iter().sum());
        }
        tally
    }
}
