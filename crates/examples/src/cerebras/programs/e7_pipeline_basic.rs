//! Tutorial program E7 of the Cerebras SDK (csl-examples), `pipeline-01-basic` on one PE: the host streams `size` i16 values in on one
//! color; one asynchronous `@add16` adds 1 from a stride-0 memory DSD and sends the sums out
//! on another color: `out = in + 1`.
//!
//! The CSL it models:
//!
//! ```text
//! const one = [1]i16{ 1 };
//! const in_dsd  = @get_dsd(fabin_dsd,  .{ .extent = size, .fabric_color = h2d,
//!                                         .input_queue = @get_input_queue(1) });
//! const out_dsd = @get_dsd(fabout_dsd, .{ .extent = size, .fabric_color = d2h,
//!                                         .output_queue = @get_output_queue(1) });
//! const one_dsd = @get_dsd(mem1d_dsd,  .{ .tensor_access = |i|{size} -> one[0] });
//! task main() void { @add16(out_dsd, in_dsd, one_dsd, .{ .async = true }); }
//! ```
//!
//! The memcpy PEs are not simulated: the host stream enters through the PE's west edge and
//! the results leave through its east edge (the porting recipe of this module).

use super::{Output, Program, ProgramError, Values, one_pe_host_pipe};

use npusim_cerebras::dsd::{FabIn, FabOut};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::ids::{InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, RunReport, Sim};
use npusim_cerebras::{Arch, ElemTy, Op};

/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 10_000;

/// Builds the program on `arch` with `input` streamed in by the host.
pub fn build(arch: Arch, input: &[i16]) -> Result<Sim, ProgramError> {
    let (h2d, d2h) = (Color::new(1)?, Color::new(2)?);
    let size = input.len() as i64;
    let wavelets = input.iter().map(|&v| Wavelet::data16(h2d, 0, v as u16));
    let mut sim = one_pe_host_pipe(arch, h2d, d2h, &[], wavelets)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("one", &[1], &[1i16])?;
    pe.mem.declare("unused", ElemTy::I16, &[1])?;
    pe.queues.bind_input(InputQueue::new(1)?, h2d)?;
    pe.queues.bind_output(OutputQueue::new(1)?, d2h)?;
    let one = pe.mem.mem1d(&format!("|i|{{{size}}} -> one[0]"))?;
    let fin = FabIn::new(arch, size, Some(InputQueue::new(1)?), None)?;
    let fout = FabOut::new(arch, size, Some(OutputQueue::new(1)?), None)?;
    let main_id = LocalTaskId::new(10)?;
    sim.bind_task(
        0,
        0,
        main_id,
        "main",
        vec![Action::spawn(
            Op::Add16,
            fout,
            vec![fin.into(), one.into()],
            AsyncConfig::default(),
        )],
    )?;
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
    (0..12).collect()
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
    name: "pipeline-01-basic",
    label: "E7",
    description: "one PE: the host streams i16 values in, one async @add16 adds 1 and streams them out",
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
