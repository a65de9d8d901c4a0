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

impl TraceHash {
    /// Mixes in the bytes of `v`.
    pub fn add(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Mixes in a string: its bytes, then its length.
    pub fn add_str(&mut self, s: &str) {
        self.add_bytes(s.as_bytes());
        self.add(s.len() as u64);
    }

    /// Mixes in bytes (no length: [`TraceHash::add_str`] adds it).
    pub(crate) fn add_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The hash so far.
    pub fn value(self) -> u64 {
        self.0
    }
}
