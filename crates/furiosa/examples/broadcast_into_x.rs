//! Seed 003, "Broadcast Into a New Slice Axis" (f32 interface): `m![W, R] -> m![W, X]`.
//!
//! Run: `cargo run -p npusim-furiosa --example broadcast_into_x`.

use std::error::Error;

use npusim_furiosa::{Axes, InterSliceReduceOpF32, StreamTensor, axes, m};

fn broadcast_into_x(ax: &Axes, input: StreamTensor) -> Result<StreamTensor, Box<dyn Error>> {
    Ok(input
        .vector_init()?
        .vector_inter_slice_reduce(&m!(ax; W, X)?, &m!(ax; 1)?, InterSliceReduceOpF32::Add)?
        .vector_final()?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let ax = axes![W = 64, R = 4, X = 4, P = 8]?;
    let dims = [
        m!(ax; 1)?,
        m!(ax; 1 # 2)?,
        m!(ax; W, R)?,
        m!(ax; 1)?,
        m!(ax; P)?,
    ];
    let data: Vec<f32> = (0..2 * 256 * 8)
        .map(|i| (i % 37) as f32 * 0.25 - 3.0)
        .collect();
    let output = broadcast_into_x(&ax, StreamTensor::collect_f32(dims, &data)?)?;
    println!("output: {output}");
    for w in 0..64 {
        for p in 0..8 {
            let want = (0..4).fold(0.0f32, |acc, r| acc + data[(w * 4 + r) * 8 + p]);
            for x in 0..4 {
                let got = f32::from_bits(output.codes().words()[(w * 4 + x) * 8 + p]);
                if got.to_bits() != want.to_bits() {
                    return Err(format!("W {w} X {x} P {p}: got {got}, want {want}").into());
                }
            }
        }
    }
    println!("ok: each (W, P) sum over R is broadcast to all 4 positions of X");
    Ok(())
}
