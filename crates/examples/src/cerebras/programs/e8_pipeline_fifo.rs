//! Tutorial program E8 of the Cerebras SDK (csl-examples), `pipeline-02-fifo` on one PE: three asynchronous operations on three
//! microthreads. The host stream goes into a FIFO, a second operation moves the FIFO out on
//! a loopback color (RAMP to RAMP), a third adds 1 and sends the sums to the host:
//! `out = in + 1`. All three have the unbounded extent `0x7fff`, so the run ends with them
//! idle, waiting for more input.
//!
//! The CSL it models:
//!
//! ```text
//! var fifo_buffer = @zeros([1024]i16);
//! const fifo = @allocate_fifo(fifo_buffer);
//! const in_dsd   = @get_dsd(fabin_dsd,  .{ .extent = 0x7fff, .fabric_color = h2d,
//!                                          .input_queue = @get_input_queue(0) });
//! const loop_out = @get_dsd(fabout_dsd, .{ .extent = 0x7fff, .fabric_color = c1,
//!                                          .output_queue = @get_output_queue(1) });
//! const loop_in  = @get_dsd(fabin_dsd,  .{ .extent = 0x7fff, .fabric_color = c1,
//!                                          .input_queue = @get_input_queue(1) });
//! const out_dsd  = @get_dsd(fabout_dsd, .{ .extent = 0x7fff, .fabric_color = d2h,
//!                                          .output_queue = @get_output_queue(2) });
//! task main() void {
//!   @mov16(fifo, in_dsd, .{ .async = true });
//!   @mov16(loop_out, fifo, .{ .async = true });
//!   @add16(out_dsd, loop_in, one_dsd, .{ .async = true });
//! }
//! // layout: c1 { rx RAMP, tx RAMP }
//! ```

use super::{Output, Program, ProgramError, Values, one_pe_host_pipe};

use npusim_cerebras::dsd::{FabIn, FabOut, FifoConfig};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::ids::{InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, RunReport, Sim};
use npusim_cerebras::{Arch, ElemTy, Op};

/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 10_000;

/// Builds the program on `arch` with `input` streamed in by the host.
pub fn build(arch: Arch, input: &[i16]) -> Result<Sim, ProgramError> {
    let (h2d, c1, d2h) = (Color::new(1)?, Color::new(3)?, Color::new(2)?);
    let wavelets = input.iter().map(|&v| Wavelet::data16(h2d, 0, v as u16));
    let mut sim = one_pe_host_pipe(arch, h2d, d2h, &[c1], wavelets)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("fifo_buffer", ElemTy::I16, &[1024])?;
    pe.mem.declare_with("one", &[1], &[1i16])?;
    let fifo = pe.allocate_fifo("fifo_buffer", FifoConfig::default())?;
    pe.queues.bind_input(InputQueue::new(0)?, h2d)?;
    pe.queues.bind_input(InputQueue::new(1)?, c1)?;
    pe.queues.bind_output(OutputQueue::new(1)?, c1)?;
    pe.queues.bind_output(OutputQueue::new(2)?, d2h)?;
    let one = pe.mem.mem1d("|i|{0x7fff} -> one[0]")?;
    let inf = 0x7fff;
    let in_dsd = FabIn::new(arch, inf, Some(InputQueue::new(0)?), None)?;
    let loop_out = FabOut::new(arch, inf, Some(OutputQueue::new(1)?), None)?;
    let loop_in = FabIn::new(arch, inf, Some(InputQueue::new(1)?), None)?;
    let out_dsd = FabOut::new(arch, inf, Some(OutputQueue::new(2)?), None)?;
    let spawn =
        |op, d: npusim_cerebras::Operand, s| Action::spawn(op, d, s, AsyncConfig::default());
    let body = vec![
        spawn(Op::Mov16, fifo.into(), vec![in_dsd.into()]),
        spawn(Op::Mov16, loop_out.into(), vec![fifo.into()]),
        spawn(Op::Add16, out_dsd.into(), vec![loop_in.into(), one.into()]),
    ];
    let main_id = LocalTaskId::new(10)?;
    sim.bind_task(0, 0, main_id, "main", body)?;
    sim.activate(0, 0, main_id)?;
    Ok(sim)
}

/// The values the host received, in order.
fn results(sim: &Sim) -> Vec<i16> {
    sim.collected()
        .iter()
        .map(|c| c.wavelet.payload as u16 as i16)
        .collect()
}

/// Runs the program on `arch` with `input`; returns the values received and the report.
pub fn run(arch: Arch, input: &[i16]) -> Result<(Vec<i16>, RunReport), ProgramError> {
    let mut sim = build(arch, input)?;
    let report = sim.run(CYCLE_LIMIT)?;
    Ok((results(&sim), report))
}

/// The input the registry entry streams in.
pub fn default_input() -> Vec<i16> {
    (0..32).map(|k| k * 3 - 40).collect()
}

/// What the program computes: `out = in + 1` (wrapping).
pub fn reference(input: &[i16]) -> Vec<i16> {
    input.iter().map(|v| v.wrapping_add(1)).collect()
}

const OUT_NAME: &str = "out (streamed out of the east edge)";

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    Ok(vec![Output::new(OUT_NAME, Values::I16(results(sim)))])
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "pipeline-02-fifo",
    label: "E8",
    description: "one PE: in -> FIFO -> loopback color -> @add16 +1 -> out, three async microthreads",
    grid: "1x1",
    build: |arch| build(arch, &default_input()),
    read,
    expected: || {
        vec![Output::new(
            OUT_NAME,
            Values::I16(reference(&default_input())),
        )]
    },
    cycle_limit: CYCLE_LIMIT,
};
