//! What a run reports beside its functional result: cycles, per-PE statistics and a trace
//! hash that two runs of one program must share.

/// Per-PE statistics of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PeStats {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Cycles in which some thread of the PE did something (an element, an action, a task start).
    pub busy_cycles: u64,
    /// Thread-cycles spent waiting (a stalled thread counts once per cycle).
    pub stalls: u64,
    /// Elements processed by all operations.
    pub elements: u64,
    /// Tasks started.
    pub tasks_started: u64,
    /// Highest fill of each input queue (0..=7).
    pub input_high_water: Vec<u32>,
    /// Highest fill of each output queue (0..=7; absent queues 0).
    pub output_high_water: Vec<u32>,
}

/// The result of a run that ended normally.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RunReport {
    /// Cycles simulated until nothing could change any more.
    pub cycles: u64,
    /// Statistics per PE, row-major.
    pub pes: Vec<PeStats>,
    /// FNV-1a hash of every event (hops, elements, task starts, completions) in order.
    pub trace_hash: u64,
    /// Asynchronous operations with an unbounded extent (`0x7fff`) still waiting at the end,
    /// which is how such programs end (not a deadlock).
    pub idle: Vec<String>,
}

/// 64-bit FNV-1a over a stream of numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TraceHash(u64);

impl Default for TraceHash {
    fn default() -> TraceHash {
        TraceHash(0xcbf2_9ce4_8422_2325)
    }
}

/// The 64-bit FNV prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// `FNV_PRIME` to the powers 0..=8: what a run of that many zero bytes multiplies the hash by.
const FNV_PRIME_POW: [u64; 9] = {
    let mut p = [1u64; 9];
    let mut i = 1;
    while i < p.len() {
        p[i] = p[i - 1].wrapping_mul(FNV_PRIME);
        i += 1;
    }
    p
};

impl TraceHash {
    /// Mixes in the bytes of `v` (little-endian).
    ///
    /// A zero byte leaves the XOR step unchanged, so the high zero bytes of `v` are one
    /// multiplication by a power of the prime: the same hash as byte by byte, with fewer
    /// dependent multiplications for the small numbers a trace is made of.
    pub fn add(&mut self, v: u64) {
        let bytes = 8 - (v.leading_zeros() / 8) as usize;
        let mut h = self.0;
        let mut rest = v;
        for _ in 0..bytes {
            h ^= rest & 0xff;
            h = h.wrapping_mul(FNV_PRIME);
            rest >>= 8;
        }
        self.0 = h.wrapping_mul(FNV_PRIME_POW[8 - bytes]);
    }

    /// Mixes in a string: its bytes, then its length.
    pub fn add_str(&mut self, s: &str) {
        self.add_bytes(s.as_bytes());
        self.add(s.len() as u64);
    }

    /// Mixes in bytes (no length: [`TraceHash::add_str`] adds it). Runs of zero bytes are
    /// multiplied in at once, as in [`TraceHash::add`].
    pub(crate) fn add_bytes(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut zeros = 0;
        for &b in bytes {
            if b == 0 {
                zeros += 1;
                if zeros == 8 {
                    h = h.wrapping_mul(FNV_PRIME_POW[8]);
                    zeros = 0;
                }
                continue;
            }
            h = h.wrapping_mul(FNV_PRIME_POW[zeros]);
            zeros = 0;
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        self.0 = h.wrapping_mul(FNV_PRIME_POW[zeros]);
    }

    /// The hash so far.
    pub fn value(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::TraceHash;

    /// FNV-1a as its definition states it: XOR a byte, multiply by the prime, byte by byte.
    fn fnv1a(bytes: &[u8]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }

    #[test]
    fn numbers_and_bytes_hash_as_fnv1a_byte_by_byte() {
        let mut values = vec![
            0u64,
            1,
            0xff,
            0x100,
            0xff00,
            u64::MAX,
            1 << 63,
            0x0100_0000_0000_0001,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for shift in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> shift);
            values.push((x >> shift) & 0xff00_ff00_0000_ff00);
        }
        let mut bytes = Vec::new();
        let mut by_value = TraceHash::default();
        for &v in &values {
            bytes.extend_from_slice(&v.to_le_bytes());
            by_value.add(v);
            assert_eq!(by_value.value(), fnv1a(&bytes), "after {v:#x}");
        }
        // byte strings with zero runs of every length, split at every point
        bytes.extend_from_slice(&[0; 20]);
        bytes.extend_from_slice(&[7, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0]);
        for cut in 0..bytes.len() {
            let mut h = TraceHash::default();
            h.add_bytes(&bytes[..cut]);
            h.add_bytes(&bytes[cut..]);
            assert_eq!(h.value(), fnv1a(&bytes), "split at {cut}");
        }
    }
}
