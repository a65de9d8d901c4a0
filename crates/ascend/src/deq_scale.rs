//! `SetDeqScale`: the dequantising int32 → half cast.

use npusim_numerics::{CastPolicy, Format, RoundMode, convert};

/// int32 → half with SetDeqScale: `RINT_f16(RINT_f32(RINT_f32(src) × scale))` — the 950
/// emulation's sequence (×2^-17 and ×2^17 are exact), with the half result saturated or not by
/// `policy` (spec §4.5, A-D1).
pub fn deq_int32_to_half(src: u32, scale_bits: u16, policy: &CastPolicy) -> u64 {
    let rint = CastPolicy::new(RoundMode::Rint);
    let t = f32::from_bits(convert(u64::from(src), Format::I32, Format::F32, &rint) as u32);
    let scale =
        f32::from_bits(convert(u64::from(scale_bits), Format::F16, Format::F32, &rint) as u32);
    let t = t * 2f32.powi(-17);
    let t = t * scale;
    let t = t * 2f32.powi(17);
    convert(
        u64::from(t.to_bits()),
        Format::F32,
        Format::F16,
        &policy.with_round(RoundMode::Rint),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deq_scale_examples() {
        let sat = CastPolicy::saturating(RoundMode::Rint);
        let two = 0x4000; // half 2.0
        assert_eq!(deq_int32_to_half(3, two, &sat), 0x4600); // 6.0
        let half = 0x3800; // half 0.5
        assert_eq!(deq_int32_to_half(100_000, half, &sat), 0x7A1A); // 49984
        assert_eq!(deq_int32_to_half(1_000_000, 0x3C00, &sat), 0x7BFF); // saturates
    }
}
