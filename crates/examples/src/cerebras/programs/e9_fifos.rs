//! Tutorial program E9 of the Cerebras SDK (csl-examples), `topic-09-fifos` on one PE: the host streams f32 values in; an asynchronous
//! `@fadds` adds 10 into an unconfigured FIFO; a second asynchronous `@fnegs` pops the FIFO,
//! negates and sends on a loopback color; each wavelet coming back starts a data task that
//! cubes it and sends the cube to the host with an asynchronous `@fmovs` that unblocks the
//! task when done: `out = (-(x + 10))^3`.
//!
//! The CSL it models:
//!
//! ```text
//! var fifo_buffer = @zeros([capacity]f32);
//! const fifo = @allocate_fifo(fifo_buffer);
//! const ten = [1]f32{ 10.0 };
//! const ten_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{N} -> ten[0] });
//! task main() void {
//!   @fadds(fifo, in_dsd, ten_dsd, .{ .async = true });
//!   @fnegs(loop_out, fifo, .{ .async = true });
//! }
//! task process(element: f32) void {           // data task on the loopback color
//!   elem[0] = element;
//!   @fmuls(buf_dsd, elem_dsd, elem_dsd);
//!   @fmuls(buf_dsd, buf_dsd, elem_dsd);
//!   @block(process);
//!   @fmovs(out_dsd, buf_dsd, .{ .async = true, .unblock = process });
//! }
//! ```

use super::{Output, Program, ProgramError, Values, one_pe_host_pipe};

use npusim_cerebras::dsd::{FabIn, FabOut, FifoConfig};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::ids::{DataTaskId, InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, RunReport, Sim};
use npusim_cerebras::{Arch, ElemTy, Op};

/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 100_000;

/// Builds the program on `arch` with `input` streamed in by the host.
pub fn build(arch: Arch, input: &[f32]) -> Result<Sim, ProgramError> {
    let (h2d, lb, d2h) = (Color::new(1)?, Color::new(4)?, Color::new(2)?);
    let n = input.len() as i64;
    let wavelets = input.iter().map(|v| Wavelet::data32(h2d, v.to_bits()));
    let mut sim = one_pe_host_pipe(arch, h2d, d2h, &[lb], wavelets)?;
    // the data task's queue: its color on WSE-2, queue 4 bound to the color on WSE-3
    let process_queue = InputQueue::new(4)?;
    let process_id = DataTaskId::on(arch, lb, process_queue);
    let main_id = LocalTaskId::new(10)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("fifo_buffer", ElemTy::F32, &[16])?;
    pe.mem.declare_with("ten", &[1], &[10.0f32])?;
    pe.mem.declare("elem", ElemTy::F32, &[1])?;
    pe.mem.declare("buf", ElemTy::F32, &[1])?;
    let fifo = pe.allocate_fifo("fifo_buffer", FifoConfig::default())?;
    pe.queues.bind_input(InputQueue::new(0)?, h2d)?;
    pe.queues.bind_output(OutputQueue::new(1)?, lb)?;
    pe.queues.bind_output(OutputQueue::new(2)?, d2h)?;
    if arch == Arch::Wse3 {
        pe.queues.bind_input(process_queue, lb)?;
    }
    let ten = pe.mem.mem1d(&format!("|i|{{{n}}} -> ten[0]"))?;
    let in_dsd = FabIn::new(arch, n, Some(InputQueue::new(0)?), None)?;
    let loop_out = FabOut::new(arch, n, Some(OutputQueue::new(1)?), None)?;
    let out_dsd = FabOut::new(arch, 1, Some(OutputQueue::new(2)?), None)?;
    let main = vec![
        Action::spawn(
            Op::Fadds,
            fifo,
            vec![in_dsd.into(), ten.into()],
            AsyncConfig::default(),
        ),
        Action::spawn(
            Op::Fnegs,
            loop_out,
            vec![fifo.into()],
            AsyncConfig::default(),
        ),
    ];
    let process = vec![Action::call(move |ctx| {
        let element = f32::from_bits(ctx.wavelet.map_or(0, |w| w.payload));
        ctx.pe.mem.write("elem", &[element])?;
        let elem = ctx.pe.mem.mem1d("|i|{1} -> elem[i]")?;
        let buf = ctx.pe.mem.mem1d("|i|{1} -> buf[i]")?;
        Ok(vec![
            Action::sync(Op::Fmuls, &buf, vec![(&elem).into(), (&elem).into()]),
            Action::sync(Op::Fmuls, &buf, vec![(&buf).into(), (&elem).into()]),
            Action::Block(process_id.into()),
            Action::spawn(
                Op::Fmovs,
                out_dsd.clone(),
                vec![buf.into()],
                AsyncConfig::unblock(process_id),
            ),
        ])
    })];
    sim.bind_task(0, 0, main_id, "main", main)?;
    sim.bind_task(0, 0, process_id, "process", process)?;
    sim.activate(0, 0, main_id)?;
    Ok(sim)
}

/// The values the host received, in order.
fn results(sim: &Sim) -> Vec<f32> {
    sim.collected()
        .iter()
        .map(|c| f32::from_bits(c.wavelet.payload))
        .collect()
}

/// Runs the program on `arch` with `input`; returns the values received and the report.
pub fn run(arch: Arch, input: &[f32]) -> Result<(Vec<f32>, RunReport), ProgramError> {
    let mut sim = build(arch, input)?;
    let report = sim.run(CYCLE_LIMIT)?;
    Ok((results(&sim), report))
}

/// The input the registry entry streams in.
pub fn default_input() -> Vec<f32> {
    vec![0.5, 1.0, -2.0, 0.25]
}

/// What the program computes: `out = (-(in + 10))^3`, each step rounded to f32.
pub fn reference(input: &[f32]) -> Vec<f32> {
    input
        .iter()
        .map(|&x| {
            let t = -(x + 10.0);
            t * t * t
        })
        .collect()
}

const OUT_NAME: &str = "out (streamed out of the east edge)";

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    Ok(vec![Output::new(OUT_NAME, Values::F32(results(sim)))])
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "topic-09-fifos",
    label: "E9",
    description: "one PE: a FIFO between an async receive and a data task computing (-(x + 10))^3",
    grid: "1x1",
    build: |arch| build(arch, &default_input()),
    read,
    expected: || {
        vec![Output::new(
            OUT_NAME,
            Values::F32(reference(&default_input())),
        )]
    },
    cycle_limit: CYCLE_LIMIT,
};
