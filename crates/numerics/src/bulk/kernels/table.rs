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

/// Destination codes of every source code, stored at the destination's width.
#[derive(Debug)]
enum Codes {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

/// The results of every code of one source format under one policy.
#[derive(Debug)]
pub(crate) struct Table {
    codes: Codes,
    /// Index into `statuses` of each source code's status.
    status_id: Vec<u8>,
    /// The distinct statuses.
    statuses: Vec<Status>,
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
            let id = match statuses.iter().position(|s| *s == r.status) {
                Some(i) => i,
                None => {
                    statuses.push(r.status);
                    statuses.len() - 1
                }
            };
            status_id.push(u8::try_from(id).ok()?);
            raw.push(r.code);
        }
        // Codes are masked to the destination width, so the narrowing casts below are exact.
        let codes = match dst.unpacked_bytes() {
            1 => Codes::U8(raw.iter().map(|&c| c as u8).collect()),
            2 => Codes::U16(raw.iter().map(|&c| c as u16).collect()),
            4 => Codes::U32(raw.iter().map(|&c| c as u32).collect()),
            _ => Codes::U64(raw),
        };
        Some(Table {
            codes,
            status_id,
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
        // Four interleaved histograms (`id * LANES + lane`), so that runs of one status do not
        // chain every increment on the previous one.
        let mut hist = vec![0u64; self.statuses.len() * LANES];
        let ids = &self.status_id;
        // One-per-byte sub-byte sources may carry stray high bits: only the code bits count.
        let m = s.format().code_mask() as usize;
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
                    let c = s.read(src, i) as usize;
                    hist[usize::from(ids[c]) * LANES] += 1;
                    d.write(dst, i, self.code(c));
                }
            }
        }
        let mut counts = StatusCounts::default();
        for (status, k) in self.statuses.iter().zip(hist.chunks_exact(LANES)) {
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
    mask: usize,
    ids: &[u8],
    hist: &mut [u64],
    code_bytes: F,
) {
    for (i, (s, d)) in src[..n * S]
        .chunks_exact(S)
        .zip(dst[..n * D].chunks_exact_mut(D))
        .enumerate()
    {
        let c = if S == 1 {
            usize::from(s[0])
        } else {
            usize::from(u16::from_le_bytes([s[0], s[1]]))
        } & mask;
        hist[usize::from(ids[c]) * LANES + (i % LANES)] += 1;
        d.copy_from_slice(&code_bytes(c));
    }
}
