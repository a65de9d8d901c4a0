//! The per-element engine of DSD operations and `@map`, and CSL-named wrappers
//! (`pe.fmovh(dst, src)`, `pe.fmacs(y, y, a, x)`, ...).

use std::fmt;
use std::iter::once;
use std::ops::ControlFlow;

use npusim_hw::CycleEstimate;

use super::machine::{LengthPolicy, OpConfig, Outcome, Pe};
use super::port::{Port, Wait, class_words, position};
use super::port_io::{ElementAt, PortRead, PortReady, PortWrite};
use crate::dsd::Dsd;
use crate::dsd::walk::walk_unbounded;
use crate::fabric::{Color, QueueRef};
use crate::ids::LocalTaskId;
use crate::ops::Op;
use crate::ops::OpError;
use crate::ops::Operand;

/// Name of the cycle model.
pub const CYCLE_MODEL: &str = "cerebras-simd-v1";

/// SIMD width a memory stride allows out of `full` (spec §4.7; stride mod 8 = 4, which the
/// appendix contradicts itself on, is taken as width 2).
pub fn stride_width(stride: i64, full: u64) -> u64 {
    if stride == 0 || stride == 1 {
        return full;
    }
    match stride.rem_euclid(8) {
        2 | 3 | 5 | 6 => full,
        1 | 7 | 4 => full.min(2),
        _ => 1,
    }
}

fn inner_stride(d: &Dsd) -> i64 {
    match d {
        Dsd::Mem1d(m) => i64::from(m.stride),
        Dsd::Mem4d(m) => m.stride.first().map_or(1, |&s| i64::from(s)),
        _ => 1,
    }
}

/// The source values of one element, without a heap allocation for the usual few sources.
#[derive(Default)]
struct SourceValues {
    first: [u32; 4],
    len: usize,
    more: Vec<u32>,
}

impl SourceValues {
    fn push(&mut self, v: u32) {
        if self.len < self.first.len() {
            self.first[self.len] = v;
        } else {
            if self.more.is_empty() {
                self.more.extend_from_slice(&self.first);
            }
            self.more.push(v);
        }
        self.len += 1;
    }

    fn as_slice(&self) -> &[u32] {
        if self.len <= self.first.len() {
            &self.first[..self.len]
        } else {
            &self.more
        }
    }
}

/// An operation's ports and length, found by [`Pe::start`] before it keeps the operands.
struct Opened {
    ports: Vec<Port>,
    len: u64,
    accumulate: bool,
    dest_words: u32,
}

impl Opened {
    /// The operation in progress, with its operands.
    fn into_run(self, op: Op, dest: Operand, srcs: Vec<Operand>) -> RunningOp {
        let mask = if self.dest_words == 1 {
            0xFFFF
        } else {
            u32::MAX
        };
        RunningOp {
            op,
            dest,
            srcs,
            ports: self.ports,
            len: self.len,
            n: 0,
            accumulate: self.accumulate,
            mask,
            dest_words: self.dest_words,
            reg: None,
            carry: 0,
            activated: Vec::new(),
            asynchronous: false,
            on_control: false,
            estimate: true,
        }
    }
}

/// Elements from which [`Pe::advance`] tries a line run ([`super::line_run`]) first.
const LINE_RUN_MIN: u64 = 2;

/// Operands (destination and sources) an operation's start keeps on the stack.
const OPERANDS_INLINE: usize = 8;

/// Operands a [`RunningOp::mark`] holds the places of (a destination and three sources).
pub(crate) const MARKED_PORTS: usize = 4;

/// Where a [`RunningOp`] is, to go back to.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpMark {
    n: u64,
    reg: Option<u32>,
    carry: u32,
    places: [i64; MARKED_PORTS],
}

/// An operation in progress (spec §11's per-element engine, shared by synchronous and
/// asynchronous execution): its ports, the elements done and what it gathered so far.
pub struct RunningOp {
    pub(super) op: Op,
    dest: Operand,
    srcs: Vec<Operand>,
    pub(super) ports: Vec<Port>,
    len: u64,
    pub(super) n: u64,
    pub(super) accumulate: bool,
    pub(super) mask: u32,
    dest_words: u32,
    reg: Option<u32>,
    /// The carry `@addc16` chains from element to element.
    carry: u32,
    pub(super) activated: Vec<LocalTaskId>,
    /// Asynchronous: a FIFO `test_or_suspend` event suspends the operation instead of ending it.
    pub asynchronous: bool,
    /// `on_control`: a control wavelet at the head of a fabric input ends the operation (it is
    /// consumed and is not an element).
    pub on_control: bool,
    /// Whether its outcome carries the cycle estimate (the simulator, which reads none, turns
    /// it off: the estimate's stage names are text built per operation).
    pub(crate) estimate: bool,
}

impl fmt::Debug for RunningOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{} element {} of {}", self.op.name(), self.n, self.len)
    }
}

impl RunningOp {
    /// The builtin.
    pub fn op(&self) -> Op {
        self.op
    }

    /// Elements done.
    pub fn elements(&self) -> u64 {
        self.n
    }

    /// The operation's length (`u64::MAX`: an infinite fabric extent).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the operation has no element at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The destination operand.
    pub fn dest(&self) -> &Operand {
        &self.dest
    }

    /// The source operands.
    pub fn srcs(&self) -> &[Operand] {
        &self.srcs
    }

    /// The fabric queues its operands use, with the operand position (0 = destination).
    pub fn fabric_queues(&self) -> Vec<(usize, QueueRef)> {
        let queues = self.ports.iter().map(Port::queue);
        queues
            .enumerate()
            .filter_map(|(k, q)| Some((k, q?)))
            .collect()
    }

    /// The color a fabout destination sends on.
    pub fn fabout_color(&self) -> Option<Color> {
        self.ports.first().and_then(Port::fabout_color)
    }

    /// The FIFOs its operands use, with the operand position (0 = destination).
    pub fn fifos(&self) -> Vec<(usize, usize)> {
        let fifos = self.ports.iter().map(Port::fifo);
        fifos
            .enumerate()
            .filter_map(|(k, f)| Some((k, f?)))
            .collect()
    }

    /// Whether every element of the operation touches only its PE's memory (every operand a
    /// memory walk, a scalar or a pointer) and it is synchronous: nothing outside the PE can
    /// change what its remaining elements do, and they neither wait nor activate tasks.
    pub fn is_pe_local(&self) -> bool {
        !self.asynchronous && !self.on_control && self.ports.iter().all(Port::is_pe_local)
    }

    /// Where the operation is (its element, running register, carry and its memory ports'
    /// places), to go back to with [`RunningOp::reset`]; `None` when it has more than
    /// [`MARKED_PORTS`] operands or walks a `mem4d` (its odometer is not marked).
    pub(crate) fn mark(&self) -> Option<OpMark> {
        if self.ports.len() > MARKED_PORTS || !self.activated.is_empty() {
            return None;
        }
        let mut places = [0; MARKED_PORTS];
        for (place, port) in places.iter_mut().zip(&self.ports) {
            *place = port.place()?;
        }
        Some(OpMark {
            n: self.n,
            reg: self.reg,
            carry: self.carry,
            places,
        })
    }

    /// Goes back to `mark`, taken of this operation.
    pub(crate) fn reset(&mut self, mark: &OpMark) {
        self.n = mark.n;
        self.reg = mark.reg;
        self.carry = mark.carry;
        for (port, &place) in self.ports.iter_mut().zip(&mark.places) {
            port.set_place(place);
        }
    }

    /// Tasks activated by FIFO push/pop events since the last call.
    pub fn take_activated(&mut self) -> Vec<LocalTaskId> {
        std::mem::take(&mut self.activated)
    }
}

/// What one element of [`Pe::advance`] did.
enum Step {
    /// It went.
    Went,
    /// It waits.
    Wait(Wait),
    /// The operation ends before its length.
    Cut(Cut),
}

/// Why an operation ended before its length.
enum Cut {
    /// A control wavelet headed a fabric input (`on_control`).
    Control,
    /// An event on FIFO `fifo`: a full destination, or (`empty`) an empty source; `completed`
    /// is the builtin's result.
    Fifo {
        fifo: usize,
        empty: bool,
        completed: bool,
    },
}

/// How far [`Pe::advance`] got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The operation ended.
    Done(Outcome),
    /// It waits before its next element.
    Stalled(Wait),
    /// It used its element budget and can go on.
    Paused,
}

impl Pe {
    /// Runs `op(dest, srcs...; cfg)` synchronously. A fabric operand that would wait (an
    /// empty input queue, a full output queue) is an error here, since nothing else runs.
    pub fn exec(
        &mut self,
        op: Op,
        dest: &Operand,
        srcs: &[Operand],
        cfg: &OpConfig,
    ) -> Result<Outcome, OpError> {
        let mut run = self.start(op, dest, srcs, cfg)?;
        match self.advance(&mut run, u64::MAX)? {
            Progress::Done(outcome) => Ok(outcome),
            Progress::Stalled(wait) => Err(OpError::Stalled {
                op: op.name(),
                element: run.n,
                wait: wait.to_string(),
            }),
            Progress::Paused => Err(OpError::Stalled {
                op: op.name(),
                element: run.n,
                wait: "more elements than a run can count".into(),
            }),
        }
    }

    /// Starts `op(dest, srcs...; cfg)`: validates the operands, resolves the length (spec
    /// §4.1) and opens the ports. Nothing is read or written yet.
    pub fn start(
        &mut self,
        op: Op,
        dest: &Operand,
        srcs: &[Operand],
        cfg: &OpConfig,
    ) -> Result<RunningOp, OpError> {
        let opened = self.open(op, dest, srcs, cfg)?;
        Ok(opened.into_run(op, dest.clone(), srcs.to_vec()))
    }

    /// [`Pe::start`] with operands the caller gives away (an action run once): they are moved
    /// into the operation instead of copied.
    pub(crate) fn start_owned(
        &mut self,
        op: Op,
        dest: Operand,
        srcs: Vec<Operand>,
        cfg: &OpConfig,
    ) -> Result<RunningOp, OpError> {
        let opened = self.open(op, &dest, &srcs, cfg)?;
        Ok(opened.into_run(op, dest, srcs))
    }

    /// What [`Pe::start`] finds before it keeps the operands: the ports and the length.
    fn open(
        &mut self,
        op: Op,
        dest: &Operand,
        srcs: &[Operand],
        cfg: &OpConfig,
    ) -> Result<Opened, OpError> {
        let mut buf = [dest; OPERANDS_INLINE];
        let heap: Vec<&Operand>;
        let all: &[&Operand] = if srcs.len() < OPERANDS_INLINE {
            for (b, s) in buf[1..].iter_mut().zip(srcs) {
                *b = s;
            }
            &buf[..=srcs.len()]
        } else {
            heap = once(dest).chain(srcs).collect();
            &heap
        };
        self.validate(op, all)?;
        if let Some(why) = op.undocumented() {
            return Err(OpError::Undocumented { op: op.name(), why });
        }
        self.bind_fabric_defaults(all)?;
        // length rule (spec §4.1): sources in order, then the destination
        let mut lengths = Vec::new();
        let mut lengths_buf = [(0, 0); OPERANDS_INLINE];
        for (k, o) in all.iter().enumerate() {
            let l = (k, self.length_of(o, k == 0)?);
            match lengths_buf.get_mut(k) {
                Some(slot) if all.len() <= OPERANDS_INLINE => *slot = l,
                _ => lengths.push(l),
            }
        }
        let lengths: &[(usize, u64)] = if all.len() <= OPERANDS_INLINE {
            &lengths_buf[..all.len()]
        } else {
            &lengths
        };
        let order = lengths[1..].iter().chain(&lengths[..1]);
        let len = order
            .clone()
            .map(|&(_, l)| l)
            .find(|&l| l != 0)
            .unwrap_or(1);
        if self.length_policy == LengthPolicy::Strict
            && let Some(&(k, l)) = order.clone().find(|&&(_, l)| l != 0 && l != len)
        {
            return Err(OpError::LengthMismatch {
                op: op.name(),
                position: position(k),
                length: l,
                governing: len,
            });
        }
        let mut ports = Vec::with_capacity(all.len());
        for (k, o) in all.iter().enumerate() {
            ports.push(self.port(op, k, o, cfg)?);
        }
        let accumulate = matches!(dest, Operand::Ptr(_)) && op.accumulates();
        let dest_words = match self.elem_of(dest)? {
            Some(t) => t.words(),
            None => class_words(op.dest_class()),
        };
        Ok(Opened {
            ports,
            len,
            accumulate,
            dest_words,
        })
    }

    /// Whether the next element of `run` can go: the first port that does not let it go
    /// decides (an `on_control` control wavelet heading a fabric input is consumed there).
    fn ready(&mut self, run: &RunningOp) -> Result<PortReady, OpError> {
        for (k, port) in run.ports.iter().enumerate() {
            let at = (run.n, run.len);
            match self.port_ready(port, k, at, run.asynchronous, run.on_control)? {
                PortReady::Go => {}
                other => return Ok(other),
            }
        }
        Ok(PortReady::Go)
    }

    /// Runs at most `budget` further elements of `run`, stopping early when an element would
    /// wait; when the operation ends, completes it (pointer destination, FIFO lengths,
    /// `save_address`, `zero`) and returns its outcome.
    pub fn advance(&mut self, run: &mut RunningOp, budget: u64) -> Result<Progress, OpError> {
        let stop = run.n.saturating_add(budget).min(run.len);
        if stop - run.n >= LINE_RUN_MIN {
            self.line_run(run, stop);
        }
        let mut cut = None;
        while run.n < run.len {
            if run.n >= stop {
                return Ok(Progress::Paused);
            }
            match self.element(run)? {
                Step::Went => run.n += 1,
                Step::Wait(wait) => return Ok(Progress::Stalled(wait)),
                Step::Cut(c) => {
                    cut = Some(c);
                    break;
                }
            }
        }
        self.finish(run, cut).map(Progress::Done)
    }

    /// Element `run.n` of `run`: waits, is cut short by a control wavelet or a FIFO event, or
    /// reads its sources, applies the operation and writes its destination.
    fn element(&mut self, run: &mut RunningOp) -> Result<Step, OpError> {
        match self.ready(run)? {
            PortReady::Go => {}
            PortReady::Wait(wait) => return Ok(Step::Wait(wait)),
            PortReady::ControlEnd => return Ok(Step::Cut(Cut::Control)),
        }
        let RunningOp {
            op,
            len,
            n,
            ports,
            activated,
            ..
        } = run;
        let at = ElementAt {
            op: *op,
            n: *n,
            len: *len,
            activated,
        };
        if let Some((fifo, completed)) = self.port_full(&ports[0], &at)? {
            return Ok(Step::Cut(Cut::Fifo {
                fifo,
                empty: false,
                completed,
            }));
        }
        let vals = match self.read_sources(run)? {
            ControlFlow::Continue(vals) => vals,
            ControlFlow::Break(cut) => return Ok(Step::Cut(cut)),
        };
        let r = run
            .op
            .apply_carrying(vals.as_slice(), self.fp16.format(), &mut run.carry)
            & run.mask;
        self.write_dest(run, r)?;
        Ok(Step::Went)
    }

    /// The source values of element `run.n`, or the event of a FIFO source found empty.
    fn read_sources(
        &mut self,
        run: &mut RunningOp,
    ) -> Result<ControlFlow<Cut, SourceValues>, OpError> {
        let RunningOp {
            op,
            len,
            n,
            ports,
            reg,
            accumulate,
            activated,
            ..
        } = run;
        let src_classes = op.source_classes();
        let mut at = ElementAt {
            op: *op,
            n: *n,
            len: *len,
            activated,
        };
        let mut vals = SourceValues::default();
        for (k, port) in ports.iter_mut().enumerate().skip(1) {
            let words = src_classes.get(k - 1).map_or(2, |&c| class_words(c));
            // an accumulating operation reads its running value in place of source 0's scalar
            let register = reg.filter(|_| *accumulate && k == 1);
            match self.port_read(port, &mut at, words, register)? {
                PortRead::Value(v) => vals.push(v),
                PortRead::FifoEmpty { fifo, completed } => {
                    return Ok(ControlFlow::Break(Cut::Fifo {
                        fifo,
                        empty: true,
                        completed,
                    }));
                }
            }
        }
        Ok(ControlFlow::Continue(vals))
    }

    /// Writes result `r` of element `run.n` to the destination (a pointer, scalar or fabric
    /// input destination keeps it in the running register).
    fn write_dest(&mut self, run: &mut RunningOp, r: u32) -> Result<(), OpError> {
        let mut at = ElementAt {
            op: run.op,
            n: run.n,
            len: run.len,
            activated: &mut run.activated,
        };
        match self.port_write(&mut run.ports[0], &mut at, r, run.dest_words, false)? {
            PortWrite::Stored => {}
            PortWrite::Kept => run.reg = Some(r),
        }
        Ok(())
    }

    /// Completes an operation that ended (at its length, or `cut` short): the pointer
    /// destination, FIFO lengths, `save_address`, a half-sent SIMD wavelet, `zero`,
    /// `advance_switch`, and the outcome with its cycle estimate.
    fn finish(&mut self, run: &mut RunningOp, cut: Option<Cut>) -> Result<Outcome, OpError> {
        let (op, n, reg) = (run.op, run.n, run.reg);
        let (completed, control_ended, empty_stop, event_fifo) = match cut {
            None => (true, false, false, None),
            Some(Cut::Control) => (true, true, false, None),
            Some(Cut::Fifo {
                fifo,
                empty,
                completed,
            }) => (completed, false, empty, Some(fifo)),
        };
        let dest = &run.dest;
        let all = || once(dest).chain(&run.srcs);
        // completion: pointer destination, FIFO lengths, save_address
        if let (Operand::Ptr(b), Some(r)) = (dest, reg)
            && !empty_stop
        {
            self.mem.store(b.word_addr, b.elem, r)?;
        }
        let mut advance_switch = Vec::new();
        for (k, o) in all().enumerate() {
            match o {
                Operand::Fifo(id) if event_fifo != Some(id.0) => {
                    let f = self.fifo_mut(id.0)?;
                    let used = n.min(u64::from(u16::MAX)) as u16;
                    if k == 0 {
                        f.write_length = f.write_length.saturating_sub(used);
                    } else {
                        f.read_length = f.read_length.saturating_sub(used);
                    }
                }
                Operand::Dsr(id) => self.advance_dsr(id.0, n),
                _ => {}
            }
        }
        let fabout = match dest {
            Operand::Dsd(Dsd::FabOut(f)) => Some(f.clone()),
            Operand::Dsr(id) => match &self.dsr(*id)?.dsd {
                Dsd::FabOut(f) => Some(f.clone()),
                _ => None,
            },
            _ => None,
        };
        // an operation cut short with half a SIMD wavelet sends it
        self.port_flush(&mut run.ports[0], op)?;
        if let (Some(f), Some(color)) = (&fabout, run.ports[0].fabout_color()) {
            if let Some(which) = f.zero {
                self.zero_source(&run.srcs, which)?;
            }
            if f.advance_switch {
                advance_switch.push(color);
            }
        }
        let mut width = op.simd_width(self.arch());
        for o in all() {
            let d = match o {
                Operand::Dsd(d) => Some(d),
                Operand::Dsr(id) => Some(&self.dsr(*id)?.dsd),
                _ => None,
            };
            if let Some(d) = d {
                width = width.min(stride_width(inner_stride(d), width));
            }
        }
        Ok(Outcome {
            completed,
            elements: n,
            activated: std::mem::take(&mut run.activated),
            cycles: if run.estimate {
                CycleEstimate::new(CYCLE_MODEL).stage(op.name(), n.div_ceil(width.max(1)))
            } else {
                CycleEstimate::new(String::new())
            },
            advance_switch,
            control_ended,
        })
    }

    /// `save_address`: moves a DSR's DSD past the `n` elements an operation used.
    fn advance_dsr(&mut self, id: usize, n: u64) {
        let Some(dsr) = self.dsrs.get_mut(id) else {
            return;
        };
        if !dsr.save_address {
            return;
        }
        match &mut dsr.dsd {
            Dsd::Mem1d(m) => {
                let words = n as i64 * i64::from(m.stride) * i64::from(m.base.elem.words());
                m.base.word_addr += words;
                m.base.moved += words;
            }
            Dsd::Mem4d(m) => {
                // the next operation starts where this walk would have gone on: past the
                // last element used, the outermost dimension continuing (spec §3)
                let strides = m.stride.iter().map(|&s| i64::from(s)).collect();
                let next = walk_unbounded(i64::from(m.offset), m.extent.clone(), strides)
                    .nth(usize::try_from(n).unwrap_or(usize::MAX))
                    .unwrap_or(i64::from(m.offset));
                let words = (next - i64::from(m.offset)) * i64::from(m.base.elem.words());
                m.base.word_addr += words;
                m.base.moved += words;
            }
            Dsd::CircBuf(c) => {
                let wrap = u64::from(c.wraparound.max(1));
                dsr.head = ((u64::from(dsr.head) + n) % wrap) as u16;
            }
            _ => {}
        }
    }
}
