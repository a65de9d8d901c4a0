//! Tutorial program E2 of the Cerebras SDK (csl-examples), `gemv-05-multiple-pes`, on a 4×1 grid: the E1 program (`y = A x + b`, M = 4,
//! N = 6, `A = arange(24)` row-major, `x = 1`, `b = 2`) duplicated on every PE of the row,
//! with no communication between PEs. The host copies the same `A`, `x` and `b` to each of
//! the `width` PEs (the tutorial's tiled `memcpy_h2d`), launches `compute` on all of them and
//! reads back `M x width` values: `y = [17, 53, 89, 125]` from each PE, PE (0, 0) first.
//!
//! The CSL it models (the tutorial's compile parameters `M:4,N:6,width:4`; `layout.csl`
//! sets a `width` × 1 rectangle and the same PE program on each PE):
//!
//! ```text
//! // layout.csl
//! @set_rectangle(width, 1);
//! for (@range(i16, width)) |x| { @set_tile_code(x, 0, "pe_program.csl", .{ ... }); }
//! // pe_program.csl: E1's gemv
//! fn compute() void {
//!   var A_cur = A_dsd;
//!   for (@range(i16, N)) |i| {
//!     @fmacs(y_dsd, y_dsd, A_cur, x[i]);
//!     A_cur = @increment_dsd_offset(A_cur, 1, f32);
//!   }
//!   @fadds(y_dsd, y_dsd, b_dsd);
//! }
//! ```

use super::e1_gemv_memory_dsds::{M, N, gemv_pe};
use super::{Output, Program, ProgramError, Values, gemv_reference};

use npusim_cerebras::Arch;
use npusim_cerebras::sched::Sim;

/// PEs in the row (the tutorial's `width`).
pub const WIDTH: u32 = 4;
/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 1_000;

/// Builds the program on `arch`: every PE of the row loaded as the host copies it, its task
/// bound and activated.
pub fn build(arch: Arch) -> Result<Sim, ProgramError> {
    let mut sim = Sim::new(arch, WIDTH, 1)?;
    for px in 0..i64::from(WIDTH) {
        gemv_pe(&mut sim, px, 0)?;
    }
    Ok(sim)
}

const Y_NAME: &str = "y (PEs (0..=3, 0), as memcpy_d2h reads them)";

/// What the host reads back: each PE's `y`, PE (0, 0) first.
fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    let mut y = Vec::new();
    for px in 0..i64::from(WIDTH) {
        y.extend(sim.pe(px, 0)?.mem.read::<f32>("y")?);
    }
    Ok(vec![Output::new(Y_NAME, Values::F32(y))])
}

/// `y = A x + b` repeated for each PE (`np.tile(y_expected, width)`).
fn expected() -> Vec<Output> {
    let y = gemv_reference(M, N, |i, j| (i * N + j) as f64, |_| 1.0, |_| 2.0);
    let tiled = (0..WIDTH).flat_map(|_| y.iter().copied()).collect();
    vec![Output::new(Y_NAME, Values::F32(tiled))]
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "gemv-05-multiple-pes",
    label: "E2",
    description: "4 PEs in a row: each computes y = A x + b on its own copy of A, x, b (no communication)",
    grid: "4x1",
    build,
    read,
    expected,
    cycle_limit: CYCLE_LIMIT,
};
