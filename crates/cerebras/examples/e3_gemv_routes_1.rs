//! Spec §13 E3, `gemv-06-routes-1` on a 2×1 grid: `y = A x + b` with M = 4, N = 6,
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

use std::error::Error;

use npusim_cerebras::dsd::{Dsd, FabIn, FabOut, increment_dsd_offset};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route};
use npusim_cerebras::sim::{Action, AsyncConfig, RunReport, Sim, TaskKind};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

const M: u64 = 4;
const N: u64 = 6;
const WIDTH: u64 = 2;
const QUEUE: u8 = 2;
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
pub fn build(arch: Arch) -> Result<Sim, Box<dyn Error>> {
    let color = Color::new(0)?;
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
        pe.queues.bind_output(QUEUE, color)?;
        pe.queues.bind_input(QUEUE, color)?;
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
            let out = FabOut::new(arch, M as i64, Some(i64::from(QUEUE)), None)?;
            body.push(Action::sync(Op::Fadds, &y, vec![(&y).into(), b.into()]));
            body.push(Action::spawn(
                Op::Fmovs,
                out,
                vec![(&y).into()],
                AsyncConfig::activate("exit"),
            ));
        } else {
            let fin = FabIn::new(arch, M as i64, Some(i64::from(QUEUE)), None)?;
            body.push(Action::spawn(
                Op::Fadds,
                &y,
                vec![(&y).into(), fin.into()],
                AsyncConfig::activate("exit"),
            ));
        }
        let exit = vec![Action::call(|ctx| {
            let n = ctx.pe.mem.read::<u32>("exits")?[0];
            ctx.pe.mem.write("exits", &[n + 1])?;
            Ok(Vec::new())
        })];
        sim.bind_task(x, 0, TaskKind::Local, 8, "compute", body)?;
        sim.bind_task(x, 0, TaskKind::Local, 9, "exit", exit)?;
        sim.activate(x, 0, "compute")?;
    }
    Ok(sim)
}

/// Runs the program on `arch`.
pub fn run(arch: Arch) -> Result<E3, Box<dyn Error>> {
    let mut sim = build(arch)?;
    let report = sim.run(CYCLE_LIMIT)?;
    let y = sim.pe(1, 0)?.mem.read::<f32>("y")?;
    let exits = (0..WIDTH as i64)
        .map(|x| Ok(sim.pe(x, 0)?.mem.read::<u32>("exits")?[0]))
        .collect::<Result<Vec<u32>, Box<dyn Error>>>()?;
    Ok(E3 { y, exits, report })
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn Error>> {
    let e3 = run(Arch::Wse2)?;
    println!("y = {:?}", e3.y);
    println!("cycles = {}", e3.report.cycles);
    for s in &e3.report.pes {
        println!(
            "PE ({}, {}): busy {} stalls {} elements {} tasks {} iq high water {:?} oq high water {:?}",
            s.x,
            s.y,
            s.busy_cycles,
            s.stalls,
            s.elements,
            s.tasks_started,
            s.input_high_water,
            s.output_high_water
        );
    }
    println!("trace hash = {:016x}", e3.report.trace_hash);
    Ok(())
}
