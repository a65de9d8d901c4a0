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

use super::e11_gemv_scaled::{Inputs, Size, build_with};
use super::{Output, Program, ProgramError, Values, gemv_reference};

use npusim_cerebras::Arch;
use npusim_cerebras::sched::{RunReport, Sim};

const M: u64 = 6;
const N: u64 = 8;
/// The grid and each PE's block: 4 x 3 PEs of 2 x 2 elements.
const SIZE: Size = Size {
    width: 4,
    height: 3,
    m_per_pe: 2,
    n_per_pe: 2,
};
/// `A = arange(M * N)` row-major, `x = 1`, `b = 2`.
const INPUTS: Inputs = Inputs {
    a: |i, j| (i * N + j) as f32,
    x: |_| 1.0,
    b: |_| 2.0,
};
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

/// Builds the program on `arch`: E11's builder at E4's size with E4's values.
pub fn build(arch: Arch) -> Result<Sim, ProgramError> {
    build_with(arch, SIZE, INPUTS)
}

/// `y` of the right column (top to bottom) and each PE's `exit` count (row-major).
fn results(sim: &Sim) -> Result<(Vec<f32>, Vec<u32>), ProgramError> {
    super::e11_gemv_scaled::results(sim, SIZE)
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
        Output::new(EXITS_NAME, Values::U32(vec![1; SIZE.pes() as usize])),
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
