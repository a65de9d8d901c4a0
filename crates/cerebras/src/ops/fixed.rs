//! The 16-bit fixed-point operations: `@addc16` (add with carry) and the float → `i16`
//! conversions `@fh2xp16` / `@fs2xp16` (spec §4.2). The documentation leaves their details
//! open (spec §14.3 item 2); the choices here are named policies, tested.

use npusim_numerics::{CastPolicy, Format, RoundMode, convert};

/// `@addc16` on one element: `a + b + carry_in` modulo 2^16, returning `(sum, carry_out)`.
///
/// Policy (an inference; the carry's source and sink are undocumented): the carry chains
/// from element to element inside one operation and starts at 0, so one `@addc16` over the
/// little-endian 16-bit words of two wider integers adds them exactly.
pub fn add_with_carry(a: u16, b: u16, carry_in: u32) -> (u16, u32) {
    let wide = u32::from(a) + u32::from(b) + (carry_in & 1);
    (wide as u16, wide >> 16)
}

/// The policy of `@fh2xp16` / `@fs2xp16`: round to nearest, ties to even; values beyond the
/// `i16` range saturate to -32768 / 32767 (±Inf too); NaN gives 0. An inference: the
/// documentation says nothing, and CSL's `@as` (which truncates) is a different operation.
pub fn to_xp16_policy() -> CastPolicy {
    CastPolicy::new(RoundMode::Rint)
}

/// Converts a float code of `from` (f16 or f32) to `i16` bits under [`to_xp16_policy`].
pub fn float_to_xp16(code: u32, from: Format) -> u32 {
    convert(u64::from(code), from, Format::I16, &to_xp16_policy()) as u32 & 0xFFFF
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carry_chains_add_wide_integers() {
        // 0x0001_FFFF + 0x0000_0001 as little-endian words
        let (lo, c) = add_with_carry(0xFFFF, 0x0001, 0);
        let (hi, c2) = add_with_carry(0x0001, 0x0000, c);
        assert_eq!((lo, hi, c2), (0x0000, 0x0002, 0));
        assert_eq!(add_with_carry(0xFFFF, 0xFFFF, 1), (0xFFFF, 1));
    }

    #[test]
    fn conversions_round_to_nearest_even_and_saturate() {
        let f = |x: f32| float_to_xp16(x.to_bits(), Format::F32) as u16 as i16;
        assert_eq!(
            [f(2.5), f(3.5), f(-2.5), f(1.49), f(-0.5)],
            [2, 4, -2, 1, 0]
        );
        assert_eq!(
            [f(40000.0), f(-40000.0), f(f32::INFINITY), f(f32::NAN)],
            [32767, -32768, 32767, 0]
        );
        let h = |x: f32| {
            let code = u32::from(half::f16::from_f32(x).to_bits());
            float_to_xp16(code, Format::F16) as u16 as i16
        };
        assert_eq!([h(6.5), h(-7.5), h(65504.0)], [6, -8, 32767]);
    }
}
