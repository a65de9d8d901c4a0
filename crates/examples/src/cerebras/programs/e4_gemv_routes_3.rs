//! Tutorial program E4 of the Cerebras SDK (csl-examples), `gemv-08-routes-3` on a 4×3 grid: `y = A x + b` with M = 6, N = 8,
//! `A = arange(48)` (row-major 6×8), `x = 1`, `b = 2`. PE `(px, py)` holds rows
//! `2py..2py+2` and columns `2px..2px+2` of `A` (column-major). The top row sends its part
//! of `x` on color 2, broadcast down each column (RAMP → SOUTH + RAMP); every `x` wavelet
//! starts the data task `recv_x`, which does one `@fmacs` on the next column. When all its
//! `x` arrived, a PE reduces west to east on a checkerboard of colors 0/1 with the three
//! operation shapes `@fmovs(out, y)`, `@fadds(out, y, in)`, `@fadds(y, y, in)`, all
//! asynchronous with `.activate = exit`. The right column holds `A x + b` =
//! `[30, 94, 158, 222, 286, 350]`, two rows per PE.
//!
//! The CSL it models (per PE):
//!
//! ```text
//! task recv_x(data: f32) void {           // data task on color x_color
//!   @fmacs(y_dsd, y_dsd, A_dsd, data);
//!   A_dsd = @increment_dsd_offset(A_dsd, M_per_PE, f32);
//!   count += 1;
//!   if (count == N_per_PE) @activate(reduce_id);
//! }
//! task reduce() void {
//!   if (px == 0)              @fmovs(out_dsd, y_dsd, .{ .async = true, .activate = exit });
//!   else if (px == width - 1) @fadds(y_dsd, y_dsd, in_dsd, .{ .async = true, .activate = exit });
//!   else                      @fadds(out_dsd, y_dsd, in_dsd, .{ .async = true, .activate = exit });
//! }
//! task send_x() void {                    // top row, launched by the host
//!   @fmovs(x_out_dsd, x_dsd, .{ .async = true });
//! }
//! ```

use super::{Output, Program, ProgramError, Values, gemv_reference};

use npusim_cerebras::dsd::{FabIn, FabOut};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route};
use npusim_cerebras::ids::{DataTaskId, InputQueue, LocalTaskId, OutputQueue};
use npusim_cerebras::sched::{Action, AsyncConfig, RunReport, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

const M: u64 = 6;
const N: u64 = 8;
const WIDTH: u64 = 4;
const HEIGHT: u64 = 3;
const MP: u64 = M / HEIGHT;
const NP: u64 = N / WIDTH;
/// Color (and, on both architectures, data task id and input queue) of `x`.
const X: u8 = 2;
/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 100_000;

/// What the program produced.
pub struct E4 {
    /// `y` read from the right column, top to bottom.
    pub y: Vec<f32>,
    /// How many times each PE's `exit` task ran, row-major.
    pub exits: Vec<u32>,
    /// Cycles, statistics and trace hash.
    pub report: RunReport,
}

fn route(rx: Dir, tx: &[Dir]) -> ColorConfig {
    ColorConfig::fixed(Route::new(&[rx], tx))
}

/// Builds the program on `arch`.
pub fn build(arch: Arch) -> Result<Sim, ProgramError> {
    let mut sim = Sim::new(arch, WIDTH as u32, HEIGHT as u32)?;
    let x_color = Color::new(i64::from(X))?;
    let x_queue = InputQueue::new(i64::from(X))?;
    let recv_x_id = DataTaskId::on(arch, x_color, x_queue);
    let reduce_id = LocalTaskId::new(10)?;
    let exit_id = LocalTaskId::new(11)?;
    let send_x_id = LocalTaskId::new(12)?;
    for py in 0..HEIGHT {
        for px in 0..WIDTH {
            let (x, y) = (px as i64, py as i64);
            let f = sim.fabric_mut();
            // x: down each column, every PE keeps a copy
            let x_route = match py {
                0 => route(Dir::Ramp, &[Dir::South, Dir::Ramp]),
                _ if py == HEIGHT - 1 => route(Dir::North, &[Dir::Ramp]),
                _ => route(Dir::North, &[Dir::South, Dir::Ramp]),
            };
            f.set_color_config(x, y, x_color, x_route)?;
            // y: west to east, column px sends on color px % 2
            let send = Color::new((px % 2) as i64)?;
            let recv = Color::new(((px + 1) % 2) as i64)?;
            if px + 1 < WIDTH {
                f.set_color_config(x, y, send, route(Dir::Ramp, &[Dir::East]))?;
            }
            if px > 0 {
                f.set_color_config(x, y, recv, route(Dir::West, &[Dir::Ramp]))?;
            }
            let pe = sim.pe_mut(x, y)?;
            let a: Vec<f32> = (0..NP)
                .flat_map(|j| (0..MP).map(move |i| ((py * MP + i) * N + px * NP + j) as f32))
                .collect();
            pe.mem.declare_with("A", &[MP * NP], &a)?;
            pe.mem
                .declare_with("x", &[NP], &vec![1.0f32; NP as usize])?;
            let y0 = if px == 0 { 2.0f32 } else { 0.0 };
            pe.mem.declare_with("y", &[MP], &vec![y0; MP as usize])?;
            pe.mem.declare("count", ElemTy::U32, &[1])?;
            pe.mem.declare("exits", ElemTy::U32, &[1])?;
            pe.queues.bind_input(x_queue, x_color)?;
            pe.queues.bind_output(OutputQueue::new(1)?, x_color)?;
            pe.queues.bind_input(InputQueue::new(3)?, recv)?;
            pe.queues.bind_output(OutputQueue::new(2)?, send)?;
            let y_dsd = pe.mem.mem1d(&format!("|i|{{{MP}}} -> y[i]"))?;
            let x_dsd = pe.mem.mem1d(&format!("|i|{{{NP}}} -> x[i]"))?;
            let out = FabOut::new(arch, MP as i64, Some(OutputQueue::new(2)?), None)?;
            let fin = FabIn::new(arch, MP as i64, Some(InputQueue::new(3)?), None)?;
            let exit = AsyncConfig::activate(exit_id);
            let reduce = if px == 0 {
                Action::spawn(Op::Fmovs, out, vec![(&y_dsd).into()], exit)
            } else if px == WIDTH - 1 {
                Action::spawn(Op::Fadds, &y_dsd, vec![(&y_dsd).into(), fin.into()], exit)
            } else {
                Action::spawn(Op::Fadds, out, vec![(&y_dsd).into(), fin.into()], exit)
            };
            let recv_x = Action::call(move |ctx| {
                let data = f32::from_bits(ctx.wavelet.map_or(0, |w| w.payload));
                let count = u64::from(ctx.pe.mem.read::<u32>("count")?[0]);
                ctx.pe.mem.write("count", &[count as u32 + 1])?;
                let y = ctx.pe.mem.mem1d(&format!("|i|{{{MP}}} -> y[i]"))?;
                let a = ctx
                    .pe
                    .mem
                    .mem1d(&format!("|i|{{{MP}}} -> A[i + {}]", count * MP))?;
                let mut next = vec![Action::sync(
                    Op::Fmacs,
                    &y,
                    vec![(&y).into(), a.into(), Scalar::f32(data).into()],
                )];
                if count + 1 == NP {
                    next.push(Action::Activate(reduce_id));
                }
                Ok(next)
            });
            let exit_body = Action::call(|ctx| {
                let n = ctx.pe.mem.read::<u32>("exits")?[0];
                ctx.pe.mem.write("exits", &[n + 1])?;
                Ok(Vec::new())
            });
            sim.bind_task(x, y, recv_x_id, "recv_x", vec![recv_x])?;
            sim.bind_task(x, y, reduce_id, "reduce", vec![reduce])?;
            sim.bind_task(x, y, exit_id, "exit", vec![exit_body])?;
            if py == 0 {
                let x_out = FabOut::new(arch, NP as i64, Some(OutputQueue::new(1)?), None)?;
                let send_x =
                    Action::spawn(Op::Fmovs, x_out, vec![x_dsd.into()], AsyncConfig::default());
                sim.bind_task(x, y, send_x_id, "send_x", vec![send_x])?;
                sim.activate(x, y, send_x_id)?;
            }
        }
    }
    Ok(sim)
}

/// `y` of the right column (top to bottom) and each PE's `exit` count (row-major).
fn results(sim: &Sim) -> Result<(Vec<f32>, Vec<u32>), ProgramError> {
    let mut y = Vec::new();
    for py in 0..HEIGHT as i64 {
        y.extend(sim.pe(WIDTH as i64 - 1, py)?.mem.read::<f32>("y")?);
    }
    let mut exits = Vec::new();
    for py in 0..HEIGHT as i64 {
        for px in 0..WIDTH as i64 {
            exits.push(sim.pe(px, py)?.mem.read::<u32>("exits")?[0]);
        }
    }
    Ok((y, exits))
}

/// Runs the program on `arch`.
pub fn run(arch: Arch) -> Result<E4, ProgramError> {
    let mut sim = build(arch)?;
    let report = sim.run(CYCLE_LIMIT)?;
    let (y, exits) = results(&sim)?;
    Ok(E4 { y, exits, report })
}

const Y_NAME: &str = "y (right column, top to bottom)";
const EXITS_NAME: &str = "exit task runs (row-major)";

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    let (y, exits) = results(sim)?;
    Ok(vec![
        Output::new(Y_NAME, Values::F32(y)),
        Output::new(EXITS_NAME, Values::U32(exits)),
    ])
}

/// `y = A x + b` with `A = arange(M*N)` row-major, `x = 1`, `b = 2`; every `exit` runs once.
fn expected() -> Vec<Output> {
    let y = gemv_reference(M, N, |i, j| (i * N + j) as f64, |_| 1.0, |_| 2.0);
    vec![
        Output::new(Y_NAME, Values::F32(y)),
        Output::new(EXITS_NAME, Values::U32(vec![1; (WIDTH * HEIGHT) as usize])),
    ]
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "gemv-08-routes-3",
    label: "E4",
    description: "y = A x + b on a 4x3 grid: x multicast down columns, partial sums reduced west to east",
    grid: "4x3",
    build,
    read,
    expected,
    cycle_limit: CYCLE_LIMIT,
};
