//! Seed 000, "Padded input packet", written like the seed:
//!
//! ```text
//! axes![A = 4];
//! fn cast_padded(input: CollectTensor<i32, m![1], m![1], m![1], m![1], m![A # 8]>)
//!     -> CastTensor<i8, m![1], m![1], m![1], m![1], m![A # 32]> { input.cast() }
//! ```
//!
//! Run: `cargo run -p npusim-furiosa --example cast_padded`.

use std::error::Error;

use npusim_furiosa::{Axes, StreamTensor, axes, m};

fn cast_padded(ax: &Axes, input: &StreamTensor) -> Result<StreamTensor, Box<dyn Error>> {
    Ok(input.cast::<i8>(&m!(ax; A # 32)?)?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let ax = axes![A = 4]?;
    let dims = [
        m!(ax; 1)?,
        m!(ax; 1)?,
        m!(ax; 1)?,
        m!(ax; 1)?,
        m!(ax; A # 8)?,
    ];
    // 4 data elements padded to 8 i32 = one flit; the padding lanes' contents do not matter.
    let values = [300, -300, 127, -128, 0, 0, 0, 0];
    let input = StreamTensor::collect_i32(dims, &values)?;
    let output = cast_padded(&ax, &input)?;
    println!("input:  {input}");
    println!("output: {output}");
    let got = output.ints();
    let mut want = vec![44i64, -44, 127, -128];
    want.resize(32, 0);
    println!("i8 flit: {got:?}");
    if got != want {
        return Err(format!("got {got:?}, want {want:?}").into());
    }
    println!("ok: 4 data bytes, padded to a 32-byte flit");
    Ok(())
}
