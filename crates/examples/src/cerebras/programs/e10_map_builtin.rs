//! Tutorial program E10 of the Cerebras SDK (csl-examples), `topic-10-map-builtin` (size 5), on a 1×1 grid of the simulator: `@map`
//! takes the square root of the diagonal of `A = 42` in place, then a pointer-input
//! reduction sums `B = [10..50]` into `sum = 150`. A one-PE program of part 1
//! (`examples/e10_map_builtin.rs` runs it on a bare `Pe`). Each `@map` is an
//! [`Action::Map`]: a synchronous operation of one element per cycle (5 + 5 elements).
//!
//! The CSL it models:
//!
//! ```text
//! var A = @constants([5, 5]f32, 42.0);
//! const diag = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{5} -> A[i, i] });
//! fn reduction(v: i32, acc: *i32) i32 { return acc.* + v; }
//! @map(math.sqrt_f32, diag, diag);
//! @map(reduction, B_dsd, &sum, &sum);
//! ```

use super::{Output, Program, ProgramError, Values};

use npusim_cerebras::ids::LocalTaskId;
use npusim_cerebras::ops::Operand;
use npusim_cerebras::sched::{Action, Sim};
use npusim_cerebras::{Arch, ElemTy, Scalar};

/// The size of `A` (SIZE × SIZE) and `B`.
pub const SIZE: u64 = 5;
/// Cycle limit of the run.
pub const CYCLE_LIMIT: u64 = 100;

fn b_values() -> Vec<i32> {
    (1..=SIZE as i32).map(|k| 10 * k).collect()
}

/// Builds the program on `arch`: `A`, `B` and `sum` in memory, task `main` bound and
/// activated.
pub fn build(arch: Arch) -> Result<Sim, ProgramError> {
    let mut sim = Sim::new(arch, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem
        .declare_with("A", &[SIZE, SIZE], &vec![42.0f32; (SIZE * SIZE) as usize])?;
    pe.mem.declare_with("B", &[SIZE], &b_values())?;
    pe.mem.declare("sum", ElemTy::I32, &[1])?;
    let diag: Operand = pe.mem.mem1d(&format!("|i|{{{SIZE}}} -> A[i, i]"))?.into();
    let sqrt_diag = Action::map(vec![diag.clone()], Some(diag), |v| {
        Scalar::f32(v[0].as_f32().sqrt())
    });
    let b: Operand = pe.mem.mem1d(&format!("|i|{{{SIZE}}} -> B[i]"))?.into();
    let sum = Operand::Ptr(pe.mem.element("sum", 0)?);
    let reduce = Action::map(vec![b, sum.clone()], Some(sum), |v| {
        Scalar::i32(v[1].as_i64().wrapping_add(v[0].as_i64()) as i32)
    });
    let main_id = LocalTaskId::new(10)?;
    sim.bind_task(0, 0, main_id, "main", vec![sqrt_diag, reduce])?;
    sim.activate(0, 0, main_id)?;
    Ok(sim)
}

/// What the program computes: `A` with its diagonal replaced by `sqrt(42)` (IEEE f32
/// square root, correctly rounded), and the sum of `B`.
pub fn reference() -> (Vec<f32>, i32) {
    let n = SIZE as usize;
    let a = (0..n * n)
        .map(|k| {
            if k % (n + 1) == 0 {
                42.0f32.sqrt()
            } else {
                42.0
            }
        })
        .collect();
    (a, b_values().iter().sum())
}

const A_NAME: &str = "A (PE (0, 0))";
const SUM_NAME: &str = "sum (PE (0, 0))";

fn read(sim: &Sim) -> Result<Vec<Output>, ProgramError> {
    let mem = &sim.pe(0, 0)?.mem;
    Ok(vec![
        Output::new(A_NAME, Values::F32(mem.read::<f32>("A")?)),
        Output::new(SUM_NAME, Values::I32(mem.read::<i32>("sum")?)),
    ])
}

/// The registry entry.
pub const PROGRAM: Program = Program {
    name: "topic-10-map-builtin",
    label: "E10",
    description: "one PE: @map sqrt over the diagonal of A = 42, then a pointer reduction sum(B) = 150 (no fabric)",
    grid: "1x1",
    build,
    read,
    expected: || {
        let (a, sum) = reference();
        vec![
            Output::new(A_NAME, Values::F32(a)),
            Output::new(SUM_NAME, Values::I32(vec![sum])),
        ]
    },
    cycle_limit: CYCLE_LIMIT,
};
