//! The whole-pipeline schedule (`docs/furiosa-engines.md` §10), model `furiosa-rngd-v2`.
//!
//! Per slice (every slice runs the same loops). Each engine of an invocation is an
//! [`EngineRecord`]: `units × cycles_per_unit` busy cycles, a fill latency `L` and a blocking
//! count `n` (input units it needs before its first output). The engines stream concurrently,
//! in pipeline order, with `start_1 = 0`, `finish_0 = 0`:
//!
//! ```text
//! first_e   = L_e + (n_e − 1) × cycles_per_unit_e
//! start_e+1 = start_e + first_e
//! finish_e  = max(start_e + B_e, finish_e−1) + L_e
//! stall_e   = finish_e − start_e − B_e − L_e
//! total     = finish_last
//! ```
//!
//! FIFOs between engines are taken as deep enough that an upstream engine is never held back.
//! Across invocations ([`Schedule::push`]): a context runs its invocations in order; an
//! invocation of the other context starts when its own context is free unless it shares the
//! Vector Engine with, or touches DM bytes written by, an invocation of the other context, which
//! it then waits for. DMA, DMN sharing, bank stalls and dual channel mode are not timed.

mod record;
mod report;
mod trace;

use std::ops::Range;

use serde::Serialize;

/// Name of the model in every schedule.
pub const MODEL: &str = "furiosa-rngd-v2";

/// An engine of the Tensor Unit as the schedule sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// The producer of a stream given as input (a pipeline file without DM tensors): one flit
    /// per `upstream_cycles_per_flit` cycles.
    Upstream,
    /// The Fetch Engine with its adapter (mask, table lookup, cast).
    Fetch,
    /// The Switch Engine.
    Switch,
    /// The Collect Engine.
    Collect,
    /// The Vector Engine (intra- and inter-slice reducers included).
    Vector,
    /// The Cast Engine.
    Cast,
    /// The Commit Engine with its adapter (trim, cast).
    Commit,
}

impl Engine {
    /// Every engine, in pipeline order (the order of the trace's tracks).
    pub const ALL: [Engine; 7] = [
        Engine::Upstream,
        Engine::Fetch,
        Engine::Switch,
        Engine::Collect,
        Engine::Vector,
        Engine::Cast,
        Engine::Commit,
    ];

    /// The engine's name in reports and traces.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Upstream => "upstream",
            Engine::Fetch => "fetch",
            Engine::Switch => "switch",
            Engine::Collect => "collect",
            Engine::Vector => "vector",
            Engine::Cast => "cast",
            Engine::Commit => "commit",
        }
    }

    /// Whether the engine sits on the Vector Engine (which the two contexts share).
    pub fn uses_vector_engine(self) -> bool {
        matches!(self, Engine::Vector | Engine::Cast)
    }
}

/// What one engine does in one invocation, per slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EngineRecord {
    /// The engine.
    pub engine: Engine,
    /// Units streamed (packets, flits, time steps).
    pub units: u64,
    /// Cycles per unit.
    pub cycles_per_unit: u64,
    /// Fill latency: cycles added after its last unit (and before its first output).
    pub fill: u64,
    /// Input units needed before the first output (1 for a streaming engine).
    pub blocking: u64,
    /// Accesses (reads or writes) per packet, for fetch and commit (0 otherwise).
    pub accesses_per_packet: u64,
    /// The longest run of consecutive accesses to one DM bank, for fetch and commit (0
    /// otherwise; reported against [`crate::sequencer::BANK_RUN_LIMIT`], not timed).
    pub bank_run: u64,
}

impl EngineRecord {
    /// A streaming engine: `units × cycles_per_unit` busy cycles, no fill, blocking count 1.
    pub fn new(engine: Engine, units: u64, cycles_per_unit: u64) -> EngineRecord {
        EngineRecord {
            engine,
            units,
            cycles_per_unit,
            fill: 0,
            blocking: 1,
            accesses_per_packet: 0,
            bank_run: 0,
        }
    }

    /// The same record with the same-bank run `bank_run`.
    pub fn with_bank_run(self, bank_run: u64) -> EngineRecord {
        EngineRecord { bank_run, ..self }
    }

    /// The same record with fill latency `fill`.
    pub fn with_fill(self, fill: u64) -> EngineRecord {
        EngineRecord { fill, ..self }
    }

    /// The same record with blocking count `blocking` (at least 1).
    pub fn with_blocking(self, blocking: u64) -> EngineRecord {
        EngineRecord {
            blocking: blocking.max(1),
            ..self
        }
    }

    /// Busy cycles: `units × cycles_per_unit`.
    pub fn busy(&self) -> u64 {
        self.units.saturating_mul(self.cycles_per_unit)
    }
}

/// One engine's place in an invocation's schedule, in cycles from the invocation's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EngineTiming {
    /// The record it was scheduled from.
    #[serde(flatten)]
    pub record: EngineRecord,
    /// Busy cycles.
    pub busy: u64,
    /// First cycle.
    pub start: u64,
    /// Cycle after the last.
    pub finish: u64,
    /// Cycles spent waiting for input.
    pub stall: u64,
}

/// Schedules the engines of one invocation (in pipeline order) by the recurrence of §10.2.
pub fn schedule_invocation(records: &[EngineRecord]) -> Vec<EngineTiming> {
    let mut out = Vec::with_capacity(records.len());
    let (mut start, mut previous_finish) = (0u64, 0u64);
    for r in records {
        let busy = r.busy();
        let finish = start
            .saturating_add(busy)
            .max(previous_finish)
            .saturating_add(r.fill);
        let stall = finish
            .saturating_sub(start)
            .saturating_sub(busy)
            .saturating_sub(r.fill);
        out.push(EngineTiming {
            record: *r,
            busy,
            start,
            finish,
            stall,
        });
        let first = r
            .fill
            .saturating_add((r.blocking.max(1) - 1).saturating_mul(r.cycles_per_unit));
        start = start.saturating_add(first);
        previous_finish = finish;
    }
    out
}

/// Which Tensor Unit context runs an invocation.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Context {
    /// `dev.main`.
    Main,
    /// `dev.sub`.
    Sub,
}

impl Context {
    /// The context's name.
    pub fn name(self) -> &'static str {
        match self {
            Context::Main => "main",
            Context::Sub => "sub",
        }
    }
}

/// One invocation (`begin … commit`, or a stream pipeline) scheduled on its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvocationSchedule {
    /// The context that runs it.
    pub context: Context,
    /// Its engines, in pipeline order.
    pub engines: Vec<EngineTiming>,
    /// Cycles from its start to its last engine's finish.
    pub total: u64,
    /// DM byte ranges it reads (per slice).
    pub reads: Vec<Range<usize>>,
    /// DM byte ranges it writes (per slice).
    pub writes: Vec<Range<usize>>,
}

impl InvocationSchedule {
    /// Schedules `records` on `context` (no DM ranges).
    pub fn new(context: Context, records: &[EngineRecord]) -> InvocationSchedule {
        let engines = schedule_invocation(records);
        let total = engines.last().map_or(0, |e| e.finish);
        InvocationSchedule {
            context,
            engines,
            total,
            reads: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// The same invocation reading `reads` and writing `writes` (DM byte ranges).
    pub fn with_ranges(self, reads: Vec<Range<usize>>, writes: Vec<Range<usize>>) -> Self {
        InvocationSchedule {
            reads,
            writes,
            ..self
        }
    }

    /// Whether it uses the Vector Engine (a Vector or Cast stage).
    pub fn uses_vector_engine(&self) -> bool {
        self.engines
            .iter()
            .any(|e| e.record.engine.uses_vector_engine())
    }

    /// The engine that streams longest (the bottleneck), when one engine's busy time is larger
    /// than every other's (`None` on a tie: no single engine holds the others back).
    pub fn bottleneck(&self) -> Option<Engine> {
        let most = self.engines.iter().map(|e| e.busy).max()?;
        let mut at_most = self.engines.iter().filter(|e| e.busy == most);
        match (at_most.next(), at_most.next()) {
            (Some(e), None) => Some(e.record.engine),
            _ => None,
        }
    }

    /// Whether it must wait for `other` (of the other context): they share the Vector Engine,
    /// or one writes DM bytes the other reads or writes.
    fn conflicts_with(&self, other: &InvocationSchedule) -> bool {
        let overlap = |a: &[Range<usize>], b: &[Range<usize>]| {
            a.iter()
                .any(|x| b.iter().any(|y| x.start < y.end && y.start < x.end))
        };
        (self.uses_vector_engine() && other.uses_vector_engine())
            || overlap(&self.writes, &other.reads)
            || overlap(&self.writes, &other.writes)
            || overlap(&other.writes, &self.reads)
    }
}

/// An invocation placed on the device's timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScheduledInvocation {
    /// Its first cycle on the device.
    pub start: u64,
    /// The invocation.
    #[serde(flatten)]
    pub invocation: InvocationSchedule,
}

impl ScheduledInvocation {
    /// Its last cycle + 1 on the device.
    pub fn end(&self) -> u64 {
        self.start.saturating_add(self.invocation.total)
    }
}

/// The schedule of a device: its invocations in the order they were issued.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Schedule {
    /// The model that produced it.
    pub model: &'static str,
    /// The invocations with their start cycles.
    pub invocations: Vec<ScheduledInvocation>,
    /// The last cycle + 1 of any invocation.
    pub makespan: u64,
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule::new()
    }
}

impl Schedule {
    /// An empty schedule.
    pub fn new() -> Schedule {
        Schedule {
            model: MODEL,
            invocations: Vec::new(),
            makespan: 0,
        }
    }

    /// Places `invocation` after the previous one of its context and after every earlier
    /// invocation of the other context it conflicts with; returns its start cycle.
    pub fn push(&mut self, invocation: InvocationSchedule) -> u64 {
        let start = self
            .invocations
            .iter()
            .filter(|s| {
                s.invocation.context == invocation.context
                    || invocation.conflicts_with(&s.invocation)
            })
            .map(ScheduledInvocation::end)
            .max()
            .unwrap_or(0);
        let placed = ScheduledInvocation { start, invocation };
        self.makespan = self.makespan.max(placed.end());
        self.invocations.push(placed);
        start
    }
}
