//! One-byte element codes (the 8-bit and 6-bit floats of MX) decoded to f32 by arithmetic
//! instead of a table lookup, for the vector dequantisation kernels: the magnitude's bits
//! shifted into an f32's exponent and mantissa fields (subnormal codes land on f32
//! subnormals) and multiplied by the exact power of two 2^(127 - bias), the sign bit moved to
//! f32's; codes whose value is not finite (e4m3fn's NaN, e5m2's Inf and NaNs) give a NaN,
//! which the dequantiser's non-finite check sends to the reference routine.
//!
//! A decode is made only when it gives the bits of the element table for every code (checked
//! when it is made), so the kernels that use it need no other argument.

use crate::format::Format;

/// The arithmetic decode of a sign-magnitude small float's one-byte codes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ByteDecode {
    /// The sign bit's position (7 for 8-bit, 5 for 6-bit elements).
    pub(crate) sign_bit: u32,
    /// `23 - man`: the shift of a magnitude into f32's fields.
    pub(crate) to_f32: u32,
    /// 2^(127 - bias), exact: the scaling of the shifted magnitude to its value.
    pub(crate) pow: f32,
    /// The smallest magnitude code whose value is not finite (beyond the codes: none).
    pub(crate) special_from: u32,
}

impl ByteDecode {
    /// The decode of `element`'s codes when it gives `table`'s bits (the f32 value of each
    /// code, NaN or ±Inf for the codes that are not finite) for every code; `None` otherwise
    /// (MXINT8, e2m1's packed codes, an integer or a format of another layout).
    pub(crate) fn new(element: Format, table: &[f32; 256]) -> Option<ByteDecode> {
        let bits = element.bits();
        if !(bits == 6 || bits == 8) {
            return None;
        }
        let (man, bias) = (element.man_bits()?, element.bias()?);
        if man > 23 || !(1..=126).contains(&bias) {
            return None;
        }
        let sign_bit = bits - 1;
        let mags = 1u32 << sign_bit;
        let special_from = (0..mags)
            .find(|&m| !table[m as usize].is_finite())
            .unwrap_or(mags);
        let d = ByteDecode {
            sign_bit,
            to_f32: 23 - man,
            // 2^(127 - bias): the exponent field 127 + (127 - bias)
            pow: f32::from_bits(((254 - bias) as u32) << 23),
            special_from,
        };
        let same = (0..2 * mags).all(|c| {
            let (want, got) = (table[c as usize], d.value(c));
            if want.is_finite() {
                want.to_bits() == got.to_bits()
            } else {
                got.is_nan()
            }
        });
        same.then_some(d)
    }

    /// The f32 value of code `c` (a NaN for the codes that are not finite), as the vector
    /// kernels compute it.
    pub(crate) fn value(&self, c: u32) -> f32 {
        let mag = c & ((1 << self.sign_bit) - 1);
        if mag >= self.special_from {
            return f32::NAN;
        }
        let v = f32::from_bits(mag << self.to_f32) * self.pow;
        let sign = ((c >> self.sign_bit) & 1) << 31;
        f32::from_bits(v.to_bits() | sign)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::convert;
    use crate::policy::CastPolicy;

    fn table(f: Format) -> [f32; 256] {
        let mut t = [0f32; 256];
        for (c, v) in t.iter_mut().enumerate().take(1 << f.bits()) {
            *v = f32::from_bits(convert(c as u64, f, Format::F32, &CastPolicy::default()) as u32);
        }
        t
    }

    #[test]
    fn every_mx_one_byte_element_decodes_by_arithmetic() {
        for f in [
            Format::F8E4M3FN,
            Format::F8E5M2,
            Format::F6E3M2FN,
            Format::F6E2M3FN,
        ] {
            let t = table(f);
            let Some(d) = ByteDecode::new(f, &t) else {
                panic!("{f:?} has no arithmetic decode");
            };
            for c in 0..1u32 << f.bits() {
                let (want, got) = (t[c as usize], d.value(c));
                assert!(
                    want.to_bits() == got.to_bits() || (!want.is_finite() && got.is_nan()),
                    "{f:?} code {c:#x}: {want} against {got}"
                );
            }
        }
    }

    #[test]
    fn a_table_the_arithmetic_does_not_give_is_refused() {
        let mut t = table(Format::F8E4M3FN);
        t[0x13] = 1.0;
        assert!(ByteDecode::new(Format::F8E4M3FN, &t).is_none());
        assert!(ByteDecode::new(Format::I8, &table(Format::I8)).is_none());
    }
}
