//! Seed 003, "Dummy Replacement" (i32 interface), written like the seed:
//!
//! ```text
//! axes![R = 4, A = 512];
//! fn inter_slice_add(input: CollectTensor<i32, m![1], m![1 # 2], m![A / 8, R], m![1], m![A % 8]>)
//!     -> VectorFinalTensor<i32, m![1], m![1 # 2], m![A / 8, 1 # 4], m![1], m![A % 8]> {
//!     input.vector_init()
//!          .vector_inter_slice_reduce::<m![A / 8, 1 # 4], m![1]>(InterSliceReduceOpI32::AddSat)
//!          .vector_final()
//! }
//! ```
//!
//! Run: `cargo run -p npusim-furiosa --example inter_slice_add`.

use std::error::Error;

use npusim_furiosa::{Axes, InterSliceReduceOpI32, StreamTensor, axes, m};

fn inter_slice_add(ax: &Axes, input: StreamTensor) -> Result<StreamTensor, Box<dyn Error>> {
    Ok(input
        .vector_init()?
        .vector_inter_slice_reduce(
            &m!(ax; A / 8, 1 # 4)?,
            &m!(ax; 1)?,
            InterSliceReduceOpI32::AddSat,
        )?
        .vector_final()?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let ax = axes![R = 4, A = 512]?;
    let dims = [
        m!(ax; 1)?,
        m!(ax; 1 # 2)?,
        m!(ax; A / 8, R)?,
        m!(ax; 1)?,
        m!(ax; A % 8)?,
    ];
    // x[r, a] = a · 10^6 · (r + 1): the sums for large a saturate at i32::MAX.
    let x =
        |r: i64, a: i64| (a * 1_000_000 * (r + 1)).clamp(i32::MIN.into(), i32::MAX.into()) as i32;
    let mut data = vec![0i32; 2 * 256 * 8];
    for a in 0..512 {
        for r in 0..4 {
            data[((a / 8) * 4 + r) * 8 + a % 8] = x(r as i64, a as i64);
        }
    }
    let output = inter_slice_add(&ax, StreamTensor::collect_i32(dims, &data)?)?;
    println!("output: {output}");
    let got = output.ints();
    for a in 0..512usize {
        let want = (0..4).fold(0i32, |acc, r| acc.saturating_add(x(r, a as i64)));
        let pos = (a / 8) * 4 * 8 + a % 8;
        if got[pos] != i64::from(want) || got[pos + 8] != 0 {
            return Err(format!("A = {a}: got {}, want {want}", got[pos]).into());
        }
        if a % 128 == 1 {
            println!("A = {a}: AddSat over R = {want}");
        }
    }
    println!("ok: 512 saturating sums; the 3 dummy slots per group hold the identity 0");
    Ok(())
}
