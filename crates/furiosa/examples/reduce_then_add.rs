//! Seed 003, "Inter-Slice Reduce with AddSat, Then Intra-Slice" (InterFirst) and
//! "Intra-Slice Then Inter-Slice Reduce with AddSat" (IntraFirst), side by side.
//!
//! Run: `cargo run -p npusim-furiosa --example reduce_then_add`.

use std::error::Error;

use npusim_furiosa::{Axes, BranchMode, FxpBinaryOp, InterSliceReduceOpI32, StreamTensor, axes, m};

fn reduce_then_add(ax: &Axes, input: StreamTensor) -> Result<StreamTensor, Box<dyn Error>> {
    Ok(input
        .vector_init()?
        .vector_inter_slice_reduce(
            &m!(ax; A / 8, 1 # 4)?,
            &m!(ax; 1)?,
            InterSliceReduceOpI32::AddSat,
        )?
        .vector_intra_slice_branch(BranchMode::Unconditional)?
        .vector_fxp(FxpBinaryOp::AddFxp, 100)?
        .vector_final()?)
}

fn add_then_reduce(ax: &Axes, input: StreamTensor) -> Result<StreamTensor, Box<dyn Error>> {
    Ok(input
        .vector_init()?
        .vector_intra_slice_branch(BranchMode::Unconditional)?
        .vector_fxp(FxpBinaryOp::AddFxp, 100)?
        .vector_inter_slice_reduce(
            &m!(ax; A / 8, 1 # 4)?,
            &m!(ax; 1)?,
            InterSliceReduceOpI32::AddSat,
        )?
        .vector_final()?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let ax = axes![R = 4, A = 512]?;
    let dims = || -> Result<_, Box<dyn Error>> {
        Ok([
            m!(ax; 1)?,
            m!(ax; 1 # 2)?,
            m!(ax; A / 8, R)?,
            m!(ax; 1)?,
            m!(ax; A % 8)?,
        ])
    };
    // Values near i32::MAX so that the order of "+100" and the saturating sum matters.
    let x = |r: usize, a: usize| i32::MAX - 60 + (r * 10 + a % 7) as i32;
    let mut data = vec![0i32; 2 * 256 * 8];
    for a in 0..512 {
        for r in 0..4 {
            data[((a / 8) * 4 + r) * 8 + a % 8] = x(r, a);
        }
    }
    let first = reduce_then_add(&ax, StreamTensor::collect_i32(dims()?, &data)?)?;
    let second = add_then_reduce(&ax, StreamTensor::collect_i32(dims()?, &data)?)?;
    for a in 0..512 {
        let pos = (a / 8) * 4 * 8 + a % 8;
        let sat = (0..4).fold(0i32, |acc, r| acc.saturating_add(x(r, a)));
        let want1 = sat.wrapping_add(100);
        let want2 = (0..4).fold(0i32, |acc, r| acc.saturating_add(x(r, a).wrapping_add(100)));
        if first.ints()[pos] != i64::from(want1) || second.ints()[pos] != i64::from(want2) {
            return Err(format!(
                "A = {a}: got {} / {}",
                first.ints()[pos],
                second.ints()[pos]
            )
            .into());
        }
        if a == 0 {
            println!("A = 0: reduce then add = {want1}; add then reduce = {want2}");
        }
    }
    println!("ok: both orders checked for all 512 values of A");
    Ok(())
}
