//! The lookup-table kernel: for a source of at most 16 bits, the reference routine's result for
//! every source code is computed once per (source, destination, policy) and cached; a bulk cast
//! is then one lookup per element. Correct by construction, as the table *is* the reference.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::super::Storage;
use crate::convert::convert_with_status;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::{Status, StatusCounts};

/// Interleaved status histograms per lookup loop.
const LANES: usize = 4;

/// Widest source the table kernel serves.
pub(crate) const MAX_SOURCE_BITS: u32 = 16;

/// Entries of every table: one per 16-bit code, so that a `u16` index needs no bounds check
/// (narrower sources fill only the first `2^bits` entries; their codes are masked).
const ENTRIES: usize = 1 << 16;

/// Destination codes of every source code, stored at the destination's width.
#[derive(Debug)]
enum Codes {
    U8(Box<[u8; ENTRIES]>),
    U16(Box<[u16; ENTRIES]>),
    U32(Box<[u32; ENTRIES]>),
    U64(Box<[u64; ENTRIES]>),
}

/// The results of every code of one source format under one policy.
#[derive(Debug)]
pub(crate) struct Table {
    codes: Codes,
    /// Index into `statuses` of each source code's status.
    status_id: Box<[u8; ENTRIES]>,
    /// The distinct statuses.
    statuses: Vec<Status>,
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
    /// wider than [`MAX_SOURCE_BITS`] or has more distinct statuses than a byte indexes.
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
        let table = Arc::new(Table::build(src, dst, policy)?);
        if let Ok(mut map) = cache().lock() {
            map.insert(key, Arc::clone(&table));
        }
        Some(table)
    }

    fn build(src: Format, dst: Format, policy: &CastPolicy) -> Option<Table> {
        let n = 1usize << src.bits();
        let mut raw = Vec::with_capacity(n);
        let mut status_id = Vec::with_capacity(n);
        let mut statuses: Vec<Status> = Vec::new();
        for code in 0..n as u64 {
            let r = convert_with_status(code, src, dst, policy, 0);
            status_id.push(super::intern_status(&mut statuses, r.status)?);
            raw.push(r.code);
        }
        // Entry i holds the result of code i & mask; codes are masked to the destination
        // width, so the narrowing casts below are exact.
        let at = |i: usize| raw[i & (n - 1)];
        let codes = match dst.unpacked_bytes() {
            1 => Codes::U8(boxed(|i| at(i) as u8)),
            2 => Codes::U16(boxed(|i| at(i) as u16)),
            4 => Codes::U32(boxed(|i| at(i) as u32)),
            _ => Codes::U64(boxed(at)),
        };
        Some(Table {
            codes,
            status_id: boxed(|i| status_id[i & (n - 1)]),
            statuses,
        })
    }

    /// Casts elements `0..n` of the sub-buffers by lookup.
    pub(crate) fn run(
        &self,
        src: &[u8],
        s: Storage,
        dst: &mut [u8],
        d: Storage,
        n: usize,
    ) -> StatusCounts {
        // Four interleaved histograms per status id, so that runs of one status do not chain
        // every increment on the previous one.
        let mut hist = [[0u64; LANES]; 256];
        let ids = &*self.status_id;
        // One-per-byte sub-byte sources may carry stray high bits: only the code bits count.
        let m = s.format().code_mask() as u16;
        let plain = !s.is_packed() && !d.is_packed();
        match (&self.codes, plain, s.format().unpacked_bytes()) {
            (Codes::U8(t), true, 1) => {
                lookup::<1, 1, _>(src, dst, n, m, ids, &mut hist, |c| [t[c]])
            }
            (Codes::U16(t), true, 1) => {
                lookup::<1, 2, _>(src, dst, n, m, ids, &mut hist, |c| t[c].to_le_bytes())
            }
            (Codes::U32(t), true, 1) => {
                lookup::<1, 4, _>(src, dst, n, m, ids, &mut hist, |c| t[c].to_le_bytes())
            }
            (Codes::U64(t), true, 1) => {
                lookup::<1, 8, _>(src, dst, n, m, ids, &mut hist, |c| t[c].to_le_bytes())
            }
            (Codes::U8(t), true, 2) => {
                lookup::<2, 1, _>(src, dst, n, m, ids, &mut hist, |c| [t[c]])
            }
            (Codes::U16(t), true, 2) => {
                lookup::<2, 2, _>(src, dst, n, m, ids, &mut hist, |c| t[c].to_le_bytes())
            }
            (Codes::U32(t), true, 2) => {
                lookup::<2, 4, _>(src, dst, n, m, ids, &mut hist, |c| t[c].to_le_bytes())
            }
            (Codes::U64(t), true, 2) => {
                lookup::<2, 8, _>(src, dst, n, m, ids, &mut hist, |c| t[c].to_le_bytes())
            }
            _ => {
                // Packed 2/4-bit layouts: element by element through the storage codec.
                for i in 0..n {
                    let c = s.read(src, i) as u16;
                    hist[usize::from(ids[usize::from(c)])][0] += 1;
                    d.write(dst, i, self.code(usize::from(c)));
                }
            }
        }
        let mut counts = StatusCounts::default();
        for (status, k) in self.statuses.iter().zip(hist) {
            counts.record_n(*status, k.iter().sum());
        }
        counts
    }

    fn code(&self, c: usize) -> u64 {
        match &self.codes {
            Codes::U8(t) => u64::from(t[c]),
            Codes::U16(t) => u64::from(t[c]),
            Codes::U32(t) => u64::from(t[c]),
            Codes::U64(t) => t[c],
        }
    }
}

/// The lookup loop for unpacked little-endian elements of `S` source and `D` destination bytes.
#[inline(always)]
fn lookup<const S: usize, const D: usize, F: Fn(usize) -> [u8; D]>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    mask: u16,
    ids: &[u8; ENTRIES],
    hist: &mut [[u64; LANES]; 256],
    code_bytes: F,
) {
    for (i, (s, d)) in src[..n * S]
        .chunks_exact(S)
        .zip(dst[..n * D].chunks_exact_mut(D))
        .enumerate()
    {
        let c = usize::from(
            if S == 1 {
                u16::from(s[0])
            } else {
                u16::from_le_bytes([s[0], s[1]])
            } & mask,
        );
        hist[usize::from(ids[c])][i % LANES] += 1;
        d.copy_from_slice(&code_bytes(c));
    }
}
