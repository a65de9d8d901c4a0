//! Seed 000, "Single-flit packet", written like the seed:
//!
//! ```text
//! axes![B = 4, A = 8];
//! fn cast_i32_to_i8(input: CollectTensor<i32, m![1], m![1], m![1], m![B], m![A]>)
//!     -> CastTensor<i8, m![1], m![1], m![1], m![B], m![A # 32]> { input.cast() }
//! ```
//!
//! Run: `cargo run -p npusim-furiosa --example cast_i32_to_i8`.

use std::error::Error;

use npusim_furiosa::{Axes, StreamTensor, axes, m};

fn cast_i32_to_i8(ax: &Axes, input: &StreamTensor) -> Result<StreamTensor, Box<dyn Error>> {
    Ok(input.cast::<i8>(&m!(ax; A # 32)?)?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let ax = axes![B = 4, A = 8]?;
    let dims = [m!(ax; 1)?, m!(ax; 1)?, m!(ax; 1)?, m!(ax; B)?, m!(ax; A)?];
    // 4 time steps x 8 lanes of i32; some values do not fit i8 and wrap.
    let values: Vec<i32> = (0..32).map(|i| i * 97 - 1500).collect();
    let input = StreamTensor::collect_i32(dims, &values)?;
    let output = cast_i32_to_i8(&ax, &input)?;
    println!("input:  {input}");
    println!("output: {output}");
    let got = output.ints();
    for b in 0..4 {
        let row: Vec<i64> = got[b * 32..b * 32 + 8].to_vec();
        println!(
            "B = {b}: {:?} -> {row:?} (+ 24 padding bytes)",
            &values[b * 8..b * 8 + 8]
        );
        for a in 0..8 {
            let want = i64::from(values[b * 8 + a] as i8);
            if row[a] != want {
                return Err(format!("B = {b}, A = {a}: got {}, want {want}", row[a]).into());
            }
        }
    }
    println!("ok: every element is the two's-complement wrap of its i32 value");
    Ok(())
}
