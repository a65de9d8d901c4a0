//! Seed 003, "Promotion from Time into SliceOut": `Slice m![W, R], Time m![T0, T2, T1]` ->
//! `Slice m![W, T2], Time m![T0, T1]` (T2 comes from the middle of Time).
//!
//! Run: `cargo run -p npusim-furiosa --example axis_promotion`.

use std::error::Error;

use npusim_furiosa::{Axes, InterSliceReduceOpF32, StreamTensor, axes, m};

fn axis_promotion(ax: &Axes, input: StreamTensor) -> Result<StreamTensor, Box<dyn Error>> {
    // Before: Slice = m![W, R], Time = m![T0, T2, T1], Packet = m![P]
    // After:  Slice = m![W, T2], Time = m![T0, T1], Packet = m![P]
    Ok(input
        .vector_init()?
        .vector_inter_slice_reduce(
            &m!(ax; W, T2)?,
            &m!(ax; T0, T1)?,
            InterSliceReduceOpF32::Add,
        )?
        .vector_final()?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let ax = axes![W = 32, R = 4, T0 = 2, T2 = 4, T1 = 2, P = 8]?;
    let dims = [
        m!(ax; 1)?,
        m!(ax; 1 # 2)?,
        m!(ax; W, R)?,
        m!(ax; T0, T2, T1)?,
        m!(ax; P)?,
    ];
    let data: Vec<f32> = (0..2 * 128 * 16 * 8)
        .map(|i| ((i * 7) % 101) as f32 - 50.0)
        .collect();
    let output = axis_promotion(&ax, StreamTensor::collect_f32(dims, &data)?)?;
    println!("output: {output}");
    for w in 0..32 {
        for t2 in 0..4 {
            for t in 0..4 {
                let (t0, t1) = (t / 2, t % 2);
                for p in 0..8 {
                    let want = (0..4).fold(0.0f32, |acc, r| {
                        acc + data[((w * 4 + r) * 16 + t0 * 8 + t2 * 2 + t1) * 8 + p]
                    });
                    let got = output.codes().words()[((w * 4 + t2) * 4 + t) * 8 + p];
                    if got != want.to_bits() {
                        return Err(
                            format!("W {w} T2 {t2} T0 {t0} T1 {t1} P {p}: want {want}").into()
                        );
                    }
                }
            }
        }
    }
    println!("ok: R reduced, T2 promoted into the freed slice positions");
    Ok(())
}
