//! Tutorial program E10 of the Cerebras SDK (csl-examples), `topic-10-map-builtin` on one PE (size 5): `@map` takes the square root of
//! the diagonal of `A = 42` in place, then a pointer-input reduction sums `B = [10..50]` into
//! `sum = 150`.
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

use std::error::Error;

use npusim_cerebras::ops::Operand;
use npusim_cerebras::{Arch, ElemTy, Pe, Scalar};

/// Runs the program and returns `(A, sum)`.
pub fn run() -> Result<(Vec<f32>, i32), Box<dyn Error>> {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare_with("A", &[5, 5], &[42.0f32; 25])?;
    pe.mem.declare_with("B", &[5], &[10i32, 20, 30, 40, 50])?;
    pe.mem.declare("sum", ElemTy::I32, &[1])?;

    let diag: Operand = pe.mem.mem1d("|i|{5} -> A[i, i]")?.into();
    pe.map(std::slice::from_ref(&diag), Some(&diag), |v| {
        Scalar::f32(v[0].as_f32().sqrt())
    })?;

    let b: Operand = pe.mem.mem1d("|i|{5} -> B[i]")?.into();
    let sum = Operand::Ptr(pe.mem.element("sum", 0)?);
    pe.map(&[b, sum.clone()], Some(&sum), |v| {
        Scalar::i32(v[1].as_i64().wrapping_add(v[0].as_i64()) as i32)
    })?;
    Ok((pe.mem.read::<f32>("A")?, pe.mem.read::<i32>("sum")?[0]))
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn Error>> {
    let (a, sum) = run()?;
    for row in a.chunks(5) {
        println!("{row:?}");
    }
    println!("sum = {sum}");
    Ok(())
}
