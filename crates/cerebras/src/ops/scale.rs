//! The scalar-only float operations `@fscaleh` / `@fscales` (`x × 2^k`) and
//! `@fnormh` / `@fnorms` (spec §4.2).

use npusim_numerics::{Exact, Format};

use super::fp::{decode, round};

/// `x × 2^k` with one rounding (only subnormal results and overflow round): the reading of
/// "multiply by a constant" spec §4.2 marks as presumed (an inference, unverified).
pub fn scale(code: u32, k: i16, fmt: Format) -> u32 {
    let x = match decode(code, fmt) {
        Exact::Finite { negative, sig, exp } => Exact::finite(negative, sig, exp + i32::from(k)),
        special => special,
    };
    round(&x, fmt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_is_exact_until_the_range_ends() {
        let s = |x: f32, k: i16| f32::from_bits(scale(x.to_bits(), k, Format::F32));
        assert_eq!([s(3.0, 4), s(3.0, -1), s(-1.5, 0)], [48.0, 1.5, -1.5]);
        assert_eq!(s(1.0, 128), f32::INFINITY);
        assert_eq!(s(1.0, -149), f32::from_bits(1), "the smallest subnormal");
        assert_eq!(s(1.5, -149), f32::from_bits(2), "1.5 ulp rounds to even");
        assert!(s(f32::NAN, 3).is_nan());
        let h = |x: f32, k: i16| {
            let c = u32::from(half::f16::from_f32(x).to_bits());
            half::f16::from_bits(scale(c, k, Format::F16) as u16).to_f32()
        };
        assert_eq!([h(0.75, 3), h(1.0, 16)], [6.0, f32::INFINITY]);
    }
}
