//! Tutorial program E1 of the Cerebras SDK (csl-examples), `gemv-02-memory-dsds`, on a 1×1 grid of the simulator: `y = A x + b` with
//! M = 4, N = 6, `A = arange(24)` (row-major 4×6), `x = 1`, `b = 2`, so `y = [17, 53, 89,
//! 125]`. A one-PE program of part 1 (`examples/e1_gemv_memory_dsds.rs` runs the same
//! operations on a bare `Pe`); here its `gemv` function is the body of a local task, so the
//! run has a cycle count and statistics like the fabric programs.
//!
//! The CSL it models:
//!
//! ```text
//! const A_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> A[i*N] });
//! const y_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> y[i] });
//! const b_dsd = @get_dsd(mem1d_dsd, .{ .base_address = &b, .extent = M });
//! fn gemv() void {
//!   var A_cur = A_dsd;
//!   for (@range(i16, N)) |i| {
//!     @fmacs(y_dsd, y_dsd, A_cur, x[i]);
//!     A_cur = @increment_dsd_offset(A_cur, 1, f32);
//!   }
//!   @fadds(y_dsd, y_dsd, b_dsd);
//! }
//! ```

use super::{Output, Program, ProgramError, Values, gemv_reference};

use npusim_cerebras::dsd::{Dsd, MemProps, get_mem1d, increment_dsd_offset};
use npusim_cerebras::ids::LocalTaskId;
use npusim_cerebras::sched::{Action, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

/// Rows of `A`.
pub const M: u64 = 4;
/// Columns of `A`.
pub const N: u64 = 6;
/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 1_000;

/// Builds the program on `arch`: memory initialised as the host would copy it, task `gemv`
/// bound and activated.
pub fn build(arch: Arch) -> Result<Sim, ProgramError> {
    let mut sim = Sim::new(arch, 1, 1)?;
    gemv_pe(&mut sim, 0, 0)?;
    Ok(sim)
}

/// Loads `A`, `x`, `b` and `y` into PE `(px, py)` as the host copies them, binds its `gemv`
/// task and activates it (the `launch`): the whole of E1 on one PE, also each PE of E2.
pub(crate) fn gemv_pe(sim: &mut Sim, px: i64, py: i64) -> Result<(), ProgramError> {
    let pe = sim.pe_mut(px, py)?;
    let a: Vec<f32> = (0..M * N).map(|k| k as f32).collect();
    pe.mem.declare_with("A", &[M * N], &a)?;
    pe.mem.declare_with("x", &[N], &vec![1.0f32; N as usize])?;
    pe.mem.declare_with("b", &[M], &vec![2.0f32; M as usize])?;
    pe.mem.declare("y", ElemTy::F32, &[M])?;
    // the loop reads x[i] when the task runs, so the body is built then
    let gemv = Action::call(|ctx| {
        let mem = &ctx.pe.mem;
        let a_dsd: Dsd = mem.mem1d(&format!("|i|{{{M}}} -> A[i*{N}]"))?.into();
        let y_dsd = mem.mem1d(&format!("|i|{{{M}}} -> y[i]"))?;
        let b_dsd = get_mem1d(MemProps {
            base_address: Some(mem.base("b")?),
            extent: Some(vec![M as i64]),
            ..MemProps::default()
        })?;
        let mut body = Vec::new();
        let mut a_cur = a_dsd;
        for xi in mem.read::<f32>("x")? {
            body.push(Action::sync(
                Op::Fmacs,
                y_dsd.clone(),
                vec![
                    y_dsd.clone().into(),
                    a_cur.clone().into(),
                    Scalar::f32(xi).into(),
                ],
            ));
            a_cur = increment_dsd_offset(&a_cur, 1, ElemTy::F32)?;
        }
        body.push(Action::sync(
            Op::Fadds,
            y_dsd.clone(),
            vec![y_dsd.into(), b_dsd.into()],
        ));
        Ok(body)
    });
    let gemv_id = LocalTaskId::new(10)?;
    sim.bind_task(px, py, gemv_id, "gemv", vec![gemv])?;
    sim.activate(px, py, gemv_id)?;
    Ok(())
}

/// What the program computes: `y = A x + b`.
pub fn reference() -> Vec<f32> {
    gemv_reference(M, N, |i, j| (i * N + j) as f64, |_| 1.0, |_| 2.0)
}

const Y_NAME: &str = "y (PE (0, 0))";

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    let y = sim.pe(0, 0)?.mem.read::<f32>("y")?;
    Ok(vec![Output::new(Y_NAME, Values::F32(y))])
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "gemv-02-memory-dsds",
    label: "E1",
    description: "one PE: y = A x + b with memory DSDs, @fmacs over the columns of A (no fabric)",
    grid: "1x1",
    build,
    read,
    expected: || vec![Output::new(Y_NAME, Values::F32(reference()))],
    cycle_limit: CYCLE_LIMIT,
};
