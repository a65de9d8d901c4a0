//! Tutorial program E1 of the Cerebras SDK (csl-examples), `gemv-02-memory-dsds` on one PE: `y = A x + b` with M = 4, N = 6,
//! `A = arange(24)` (row-major 4×6), `x = 1`, `b = 2`; prints `y = [17, 53, 89, 125]`.
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

use std::error::Error;

use npusim_cerebras::dsd::{Dsd, MemProps, get_mem1d, increment_dsd_offset};
use npusim_cerebras::{Arch, ElemTy, Pe, Scalar};

const M: u64 = 4;
const N: u64 = 6;

/// Runs the program and returns `y`.
pub fn run() -> Result<Vec<f32>, Box<dyn Error>> {
    let mut pe = Pe::new(Arch::Wse2);
    let a: Vec<f32> = (0..M * N).map(|k| k as f32).collect();
    pe.mem.declare_with("A", &[M * N], &a)?;
    pe.mem.declare_with("x", &[N], &vec![1.0f32; N as usize])?;
    pe.mem.declare_with("b", &[M], &vec![2.0f32; M as usize])?;
    pe.mem.declare("y", ElemTy::F32, &[M])?;

    let a_dsd: Dsd = pe.mem.mem1d(&format!("|i|{{{M}}} -> A[i*{N}]"))?.into();
    let y_dsd = pe.mem.mem1d(&format!("|i|{{{M}}} -> y[i]"))?;
    let b_dsd = get_mem1d(MemProps {
        base_address: Some(pe.mem.base("b")?),
        extent: Some(vec![M as i64]),
        ..MemProps::default()
    })?;

    let x = pe.mem.read::<f32>("x")?;
    let mut a_cur = a_dsd;
    for xi in x {
        pe.fmacs(&y_dsd, &y_dsd, &a_cur, Scalar::f32(xi))?;
        a_cur = increment_dsd_offset(&a_cur, 1, ElemTy::F32)?;
    }
    let done = pe.fadds(&y_dsd, &y_dsd, &b_dsd)?;
    println!("last operation: {}", done.cycles);
    Ok(pe.mem.read::<f32>("y")?)
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn Error>> {
    let y = run()?;
    println!("y = {y:?}");
    Ok(())
}
