//! Tutorial program E3 of the Cerebras SDK (csl-examples), `gemv-06-routes-1` on a 2×1 grid: `y = A x + b` with M = 4, N = 6,
//! `A = arange(24)` (row-major 4×6), `x = 1`, `b = 2`. The left PE holds columns 0–2, the
//! right PE columns 3–5 (each column-major); each computes its partial `y` with `@fmacs`,
//! the left one adds `b` and sends its `y` east on color 0; the right one adds what it
//! receives: `y = [17, 53, 89, 125]` on the right PE, and each PE's `exit` task runs once.
//!
//! The CSL it models (per PE; `pe_id` 0 is the left PE):
//!
//! ```text
//! const out_dsd = @get_dsd(fabout_dsd, .{ .extent = M, .fabric_color = send_color,
//!                                         .output_queue = @get_output_queue(2) });
//! const in_dsd  = @get_dsd(fabin_dsd,  .{ .extent = M, .fabric_color = recv_color,
//!                                         .input_queue = @get_input_queue(2) });
//! fn gemv() void {
//!   var A_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> A[i] });
//!   for (@range(i16, N_per_PE)) |i| {
//!     @fmacs(y_dsd, y_dsd, A_dsd, x[i]);
//!     A_dsd = @increment_dsd_offset(A_dsd, M, f32);
//!   }
//! }
//! task compute() void {
//!   gemv();
//!   if (pe_id == 0) { @fadds(y_dsd, y_dsd, b_dsd);
//!                     @fmovs(out_dsd, y_dsd, .{ .async = true, .activate = exit }); }
//!   else            { @fadds(y_dsd, y_dsd, in_dsd, .{ .async = true, .activate = exit }); }
//! }
//! // layout: PE 0 color 0 { rx RAMP, tx EAST }; PE 1 color 0 { rx WEST, tx RAMP }
//! ```

use super::{Output, Program, ProgramError, Values, gemv_reference};

use npusim_cerebras::dsd::{Dsd, FabIn, FabOut, increment_dsd_offset};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route};
use npusim_cerebras::ids::{InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, RunReport, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

const M: u64 = 4;
const N: u64 = 6;
const WIDTH: u64 = 2;
const QUEUE: i64 = 2;
/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 10_000;

/// What the program produced.
pub struct E3 {
    /// The right PE's `y`.
    pub y: Vec<f32>,
    /// How many times each PE's `exit` task ran.
    pub exits: Vec<u32>,
    /// Cycles, statistics and trace hash.
    pub report: RunReport,
}

/// Builds the program on `arch`.
pub fn build(arch: Arch) -> Result<Sim, ProgramError> {
    let color = Color::new(0)?;
    let compute_id = LocalTaskId::new(8)?;
    let exit_id = LocalTaskId::new(9)?;
    let mut sim = Sim::new(arch, WIDTH as u32, 1)?;
    let per_pe = N / WIDTH;
    for px in 0..WIDTH {
        let x = px as i64;
        let route = if px == 0 {
            Route::new(&[Dir::Ramp], &[Dir::East])
        } else {
            Route::new(&[Dir::West], &[Dir::Ramp])
        };
        sim.fabric_mut()
            .set_color_config(x, 0, color, ColorConfig::fixed(route))?;
        let pe = sim.pe_mut(x, 0)?;
        // A's columns px*per_pe .. (px+1)*per_pe, column-major
        let a: Vec<f32> = (0..per_pe)
            .flat_map(|j| (0..M).map(move |i| (i * N + px * per_pe + j) as f32))
            .collect();
        pe.mem.declare_with("A", &[M * per_pe], &a)?;
        pe.mem
            .declare_with("x", &[per_pe], &vec![1.0f32; per_pe as usize])?;
        pe.mem.declare_with("b", &[M], &vec![2.0f32; M as usize])?;
        pe.mem.declare("y", ElemTy::F32, &[M])?;
        pe.mem.declare("exits", ElemTy::U32, &[1])?;
        pe.queues.bind_output(OutputQueue::new(QUEUE)?, color)?;
        pe.queues.bind_input(InputQueue::new(QUEUE)?, color)?;
        let y = pe.mem.mem1d(&format!("|i|{{{M}}} -> y[i]"))?;
        let b = pe.mem.mem1d(&format!("|i|{{{M}}} -> b[i]"))?;
        let mut a_dsd: Dsd = pe.mem.mem1d(&format!("|i|{{{M}}} -> A[i]"))?.into();
        let mut body = Vec::new();
        for xi in pe.mem.read::<f32>("x")? {
            body.push(Action::sync(
                Op::Fmacs,
                &y,
                vec![(&y).into(), a_dsd.clone().into(), Scalar::f32(xi).into()],
            ));
            a_dsd = increment_dsd_offset(&a_dsd, M as i64, ElemTy::F32)?;
        }
        if px == 0 {
            let out = FabOut::new(arch, M as i64, Some(OutputQueue::new(QUEUE)?), None)?;
            body.push(Action::sync(Op::Fadds, &y, vec![(&y).into(), b.into()]));
            body.push(Action::spawn(
                Op::Fmovs,
                out,
                vec![(&y).into()],
                AsyncConfig::activate(exit_id),
            ));
        } else {
            let fin = FabIn::new(arch, M as i64, Some(InputQueue::new(QUEUE)?), None)?;
            body.push(Action::spawn(
                Op::Fadds,
                &y,
                vec![(&y).into(), fin.into()],
                AsyncConfig::activate(exit_id),
            ));
        }
        let exit = vec![Action::call(|ctx| {
            let n = ctx.pe.mem.read::<u32>("exits")?[0];
            ctx.pe.mem.write("exits", &[n + 1])?;
            Ok(Vec::new())
        })];
        sim.bind_task(x, 0, compute_id, "compute", body)?;
        sim.bind_task(x, 0, exit_id, "exit", exit)?;
        sim.activate(x, 0, compute_id)?;
    }
    Ok(sim)
}

/// The right PE's `y` and each PE's `exit` count after a run.
fn results(sim: &Sim) -> Result<(Vec<f32>, Vec<u32>), ProgramError> {
    let y = sim.pe(1, 0)?.mem.read::<f32>("y")?;
    let exits = (0..WIDTH as i64)
        .map(|x| Ok(sim.pe(x, 0)?.mem.read::<u32>("exits")?[0]))
        .collect::<Result<Vec<u32>, ProgramError>>()?;
    Ok((y, exits))
}

/// Runs the program on `arch`.
pub fn run(arch: Arch) -> Result<E3, ProgramError> {
    let mut sim = build(arch)?;
    let report = sim.run(CYCLE_LIMIT)?;
    let (y, exits) = results(&sim)?;
    Ok(E3 { y, exits, report })
}

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    let (y, exits) = results(sim)?;
    Ok(vec![
        Output::new("y (PE (1, 0))", Values::F32(y)),
        Output::new("exit task runs (PE (0, 0), (1, 0))", Values::U32(exits)),
    ])
}

/// `y = A x + b` with `A = arange(M*N)` row-major, `x = 1`, `b = 2`; every `exit` runs once.
fn expected() -> Vec<Output> {
    let y = gemv_reference(M, N, |i, j| (i * N + j) as f64, |_| 1.0, |_| 2.0);
    vec![
        Output::new("y (PE (1, 0))", Values::F32(y)),
        Output::new(
            "exit task runs (PE (0, 0), (1, 0))",
            Values::U32(vec![1; WIDTH as usize]),
        ),
    ]
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "gemv-06-routes-1",
    label: "E3",
    description: "y = A x + b split by columns over 2 PEs; the left PE sends its partial y east",
    grid: "2x1",
    build,
    read,
    expected,
    cycle_limit: CYCLE_LIMIT,
};
