//! Seed 001's `CastVF` calling example, run on the model: float → int16 with
//! `CastTrait { RegLayout::ZERO, SatMode::NO_SAT, MaskMergeMode::ZEROING, CAST_RINT }`,
//! a LoadAlign / UpdateMask / Cast / StoreAlign loop over the unified buffer.
//!
//! ```text
//! __simd_vf__ inline void CastVF(__ubuf__ int16_t* dstAddr, __ubuf__ float* srcAddr, uint32_t count,
//!                                uint32_t srcRepeatSize, uint32_t dstRepeatSize, uint16_t repeatTimes)
//! ```
//!
//! Run with `cargo run --release -p npusim-ascend --example cast_vf`.

use npusim_ascend::{
    AscendError, CastOptions, CastTrait, Ctrl, MaskReg, RegLayout, SatMode, UnifiedBuffer,
    cast_reg, load_align, store_align, ty,
};
use npusim_numerics::RoundMode;

/// The kernel body, as in the seed: one register of floats per iteration.
#[allow(clippy::too_many_arguments)]
fn cast_vf(
    ub: &mut UnifiedBuffer,
    ctrl: &Ctrl,
    dst_addr: usize,
    src_addr: usize,
    mut count: u32,
    src_repeat_size: usize,
    dst_repeat_size: usize,
    repeat_times: u16,
) -> Result<(), AscendError> {
    let cast_trait = CastTrait::new(RegLayout::Zero, SatMode::NoSat, RoundMode::Rint);
    for i in 0..usize::from(repeat_times) {
        // element sizes: float 4 bytes, int16_t 2 bytes
        let src_reg = load_align::<ty::Float>(ub, src_addr + i * src_repeat_size * 4)?;
        let mask = MaskReg::update::<ty::Float>(&mut count);
        let mut dst_reg = npusim_ascend::RegTensor::<ty::Int16>::zeroed();
        cast_reg(
            &mut dst_reg,
            &src_reg,
            &mask,
            &cast_trait,
            ctrl,
            &CastOptions::default(),
        )?;
        store_align(ub, dst_addr + i * dst_repeat_size * 2, &dst_reg, &mask)?;
    }
    Ok(())
}

fn main() -> Result<(), AscendError> {
    let mut ub = UnifiedBuffer::new(64 * 1024);
    let count = 100u32;
    let (src_addr, dst_addr) = (0usize, 32 * 1024usize);
    // inputs: -50.5, -49.5, ... including ties and values beyond int16
    for i in 0..count as usize {
        let x = if i == 99 { 70000.0f32 } else { i as f32 - 50.5 };
        ub.bytes_mut()[src_addr + 4 * i..src_addr + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    // Without SetCtrlSpr the CTRL register is at reset: CTRL[60] = 1 makes saturation global
    // and saturating, whatever the trait says. Clear CTRL[60] so NO_SAT takes effect.
    let mut ctrl = Ctrl::default();
    ctrl.set_ctrl_spr(60, 60, 0)?;
    // one register holds 64 floats; with layout ZERO the int16 results land in the even lanes
    // of a 128-lane register, so each repeat stores 128 int16 (value, 0, value, 0, ...).
    cast_vf(&mut ub, &ctrl, dst_addr, src_addr, count, 64, 128, 2)?;
    println!("  i      src  ->  dst[2i] dst[2i+1]");
    for i in (0..count as usize).step_by(11).chain([98]) {
        let s = f32::from_le_bytes(
            ub.bytes()[src_addr + 4 * i..src_addr + 4 * i + 4]
                .try_into()
                .unwrap_or([0; 4]),
        );
        let rd = |k: usize| {
            i16::from_le_bytes([
                ub.bytes()[dst_addr + 2 * k],
                ub.bytes()[dst_addr + 2 * k + 1],
            ])
        };
        let (repeat, lane) = (i / 64, i % 64);
        let k = repeat * 128 + 2 * lane;
        println!("{i:3} {s:9.1}  -> {:7} {:8}", rd(k), rd(k + 1));
    }
    println!(
        "70000.0 -> int16 under NO_SAT keeps the low 16 bits: {}",
        70000i32 as i16
    );
    Ok(())
}
