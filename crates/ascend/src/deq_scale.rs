//! `SetDeqScale`: the dequantising int32 → half cast.

use npusim_numerics::{CastPolicy, Format, RoundMode, convert, mul_round};

/// int32 → half with SetDeqScale: `RINT_f16(RINT_f32(RINT_f32(src) × scale))` — the 950
/// emulation's sequence, with the half result saturated or not by `policy` (the training series'
/// own sequence is not published).
///
/// The emulation's `× 2^-17` and `× 2^17` around the product are exact for every int32 and
/// half scale (the product stays within 2^-41..2^64), so they drop out; the product itself is
/// numerics' exact multiply rounded once to f32, not the host FPU's.
pub fn deq_int32_to_half(src: u32, scale_bits: u16, policy: &CastPolicy) -> u64 {
    let rint = CastPolicy::new(RoundMode::Rint);
    let t = convert(u64::from(src), Format::I32, Format::F32, &rint);
    let product = mul_round(
        &Format::F32.decode(t),
        &Format::F16.decode(u64::from(scale_bits)),
        Format::F32,
        &rint,
        0,
    );
    convert(
        product.code,
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

    /// Against the emulation's sequence on the host FPU (f32 multiplies, an independent
    /// oracle), over every half scale and a spread of int32 values.
    #[test]
    fn equals_the_host_sequence_for_every_scale() {
        let sat = CastPolicy::saturating(RoundMode::Rint);
        let host = |src: u32, scale: u16| {
            let t = src as i32 as f32;
            let s =
                f32::from_bits(convert(u64::from(scale), Format::F16, Format::F32, &sat) as u32);
            let t = t * 2f32.powi(-17) * s * 2f32.powi(17);
            convert(u64::from(t.to_bits()), Format::F32, Format::F16, &sat)
        };
        let srcs = [
            0u32,
            1,
            3,
            7,
            1000,
            65_519,
            100_000,
            16_777_217,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
        ];
        for scale in 0..=u16::MAX {
            if (scale & 0x7C00) == 0x7C00 {
                continue; // Inf/NaN scales: the host's NaN payloads are its own
            }
            for &src in &srcs {
                assert_eq!(
                    deq_int32_to_half(src, scale, &sat),
                    host(src, scale),
                    "{src} × {scale:#06x}"
                );
            }
        }
    }
}
