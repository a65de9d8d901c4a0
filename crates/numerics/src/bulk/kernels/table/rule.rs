//! A rule that computes the 4-byte codes of a table of one-byte sources instead of looking
//! them up: the source byte sign- or zero-extended to 32 bits, shifted, masked and, for
//! small floats into f32, multiplied by a power of two as an f32; at most
//! [`MAX_EXCEPTIONS`] byte codes whose results differ from the rule (fp8 NaN codes, say) are
//! replaced. The AVX2 lookup of such a table takes a few instructions per eight elements and
//! no table (see `docs/kernels.md`).

/// Most source codes whose results a [`Rule`] replaces.
pub(crate) const MAX_EXCEPTIONS: usize = 2;

/// A rule for the 4-byte results of the 256 source bytes: `apply(c)` for every byte `c`, except
/// where an exception names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rule {
    /// Whether the byte is sign-extended (else zero-extended) to 32 bits.
    pub(crate) signed: bool,
    /// Left shift of the extended byte.
    pub(crate) shift: u32,
    /// Bits kept after the shift.
    pub(crate) keep: u32,
    /// The power of two `2^k` (`k` in 23..=127) the kept bits are multiplied by as an f32, if
    /// any: computed without a subnormal operand (see [`Rule::apply`]).
    pub(crate) scale: Option<i32>,
    /// Source bytes and their results where the rule does not hold; unused slots repeat a
    /// byte whose result they give, so that replacing by every slot is always right.
    pub(crate) exceptions: [(u8, u32); MAX_EXCEPTIONS],
}

impl Rule {
    /// The rule's result for source byte `c`, before exceptions, computed as the AVX2 loop
    /// computes it (see [`scaled`]) under the default floating-point control (no
    /// flush-to-zero, no denormals-are-zero), which that loop checks before it uses a scaled
    /// rule.
    pub(crate) fn apply(&self, c: u8) -> u32 {
        let x = if self.signed {
            c as i8 as i32 as u32
        } else {
            u32::from(c)
        };
        let y = x.wrapping_shl(self.shift) & self.keep;
        match self.scale {
            Some(k) => scaled(y, k),
            None => y,
        }
    }

    /// The result for source byte `c`, exceptions included.
    #[cfg(test)]
    pub(crate) fn result(&self, c: u8) -> u32 {
        self.exceptions
            .iter()
            .find(|e| e.0 == c)
            .map_or_else(|| self.apply(c), |e| e.1)
    }

    /// The rule with the fewest exceptions (at most [`MAX_EXCEPTIONS`]) that gives `values[c]`
    /// for every source byte `c`: bytes sign-extended with the sign kept in bit 31 and seven
    /// bits shifted (the magnitude of a sign-magnitude float, for a power-of-two scale), or
    /// zero-extended with eight bits shifted, unscaled or scaled by any normal power of two.
    /// `None` when no such rule has few enough exceptions.
    pub(crate) fn find(values: &[u32; 256]) -> Option<Rule> {
        let mut best: Option<(usize, Rule)> = None;
        for signed in [true, false] {
            for shift in 0..32u32 {
                let keep = if signed {
                    0x8000_0000 | ((0x7Fu64 << shift) as u32)
                } else {
                    (0xFFu64 << shift) as u32
                };
                let scales = std::iter::once(None).chain((23..=127).map(Some));
                for scale in scales {
                    let rule = Rule {
                        signed,
                        shift,
                        keep,
                        scale,
                        exceptions: [(0, 0); MAX_EXCEPTIONS],
                    };
                    let limit = best.map_or(MAX_EXCEPTIONS, |b| b.0.saturating_sub(1));
                    if let Some(found) = rule.with_exceptions(values, limit)
                        && best.is_none_or(|b| found.0 < b.0)
                    {
                        best = Some(found);
                    }
                }
            }
        }
        best.map(|b| b.1)
    }

    /// `self` with the bytes where it misses `values` as exceptions and their count, when
    /// that count is at most `limit`.
    fn with_exceptions(mut self, values: &[u32; 256], limit: usize) -> Option<(usize, Rule)> {
        let mut missed = 0;
        for c in 0..=255u8 {
            if self.apply(c) != values[usize::from(c)] {
                if missed == limit {
                    return None;
                }
                self.exceptions[missed] = (c, values[usize::from(c)]);
                missed += 1;
            }
        }
        let filler = if missed > 0 {
            self.exceptions[0]
        } else {
            (0, values[0])
        };
        for slot in self.exceptions.iter_mut().skip(missed) {
            *slot = filler;
        }
        Some((missed, self))
    }
}

/// `y` (sign in bit 31) times `2^k` as an f32, for `k` in 23..=127, without a subnormal
/// operand (a multiply with one is many times slower on some x86 cores): a normal magnitude
/// gets `k` added to its exponent field; a subnormal one (or zero), an integer below 2^23, is
/// converted to f32 and multiplied by `2^(k - 149)`, a normal power of two. The sign is put
/// back last. Both are the exact product where it is a normal f32; [`Rule::find`] checks
/// every code's result anyway.
pub(crate) fn scaled(y: u32, k: i32) -> u32 {
    let (sign, m) = (y & 0x8000_0000, y & 0x7FFF_FFFF);
    let r = if m < 0x0080_0000 {
        (m as i32 as f32 * f32::from_bits(((k - 149 + 127) as u32) << 23)).to_bits()
    } else {
        m.wrapping_add((k as u32) << 23)
    };
    r | sign
}

#[cfg(test)]
mod tests {
    use super::*;

    /// e4m3fn's f32 codes: sign, 4 exponent bits (bias 7), 3 mantissa bits; 0x7F / 0xFF NaN.
    fn e4m3fn(c: u8) -> u32 {
        let sign = u32::from(c >> 7) << 31;
        let (e, m) = (i32::from((c >> 3) & 0xF), f32::from(c & 7));
        if c & 0x7F == 0x7F {
            return sign | 0x7FC0_0000;
        }
        let v = if e == 0 {
            m / 8.0 * 2f32.powi(-6)
        } else {
            (1.0 + m / 8.0) * 2f32.powi(e - 7)
        };
        sign | v.to_bits()
    }

    #[test]
    fn e4m3fn_is_a_scaled_magnitude_with_its_two_nan_codes_replaced() {
        let values: [u32; 256] = std::array::from_fn(|c| e4m3fn(c as u8));
        let Some(rule) = Rule::find(&values) else {
            panic!("no rule")
        };
        assert!(rule.signed && rule.shift == 20 && rule.scale == Some(120));
        let mut codes: Vec<u8> = rule.exceptions.iter().map(|e| e.0).collect();
        codes.sort_unstable();
        assert_eq!(codes, [0x7F, 0xFF]);
        assert!((0..=255u8).all(|c| rule.result(c) == values[usize::from(c)]));
    }

    #[test]
    fn e8m0_is_a_shifted_byte_with_zero_and_nan_replaced() {
        // 2^(c - 127): code 0 is the subnormal 2^-127, 0xFF NaN
        let values: [u32; 256] = std::array::from_fn(|c| match c {
            0 => 0x0040_0000,
            255 => 0x7FC0_0000,
            _ => (c as u32) << 23,
        });
        let Some(rule) = Rule::find(&values) else {
            panic!("no rule")
        };
        assert!(!rule.signed && rule.shift == 23 && rule.scale.is_none());
        assert!((0..=255u8).all(|c| rule.result(c) == values[usize::from(c)]));
    }

    #[test]
    fn results_without_a_rule_are_refused() {
        // a scrambled table: no shift of the byte gives it
        let values: [u32; 256] =
            std::array::from_fn(|c| (c as u32).wrapping_mul(0x9E37_79B9).rotate_left(7));
        assert_eq!(Rule::find(&values), None);
        // three codes off an exact rule: one too many
        let values: [u32; 256] = std::array::from_fn(|c| match c {
            1..=3 => 0x7FC0_0000,
            _ => (c as u32) << 23,
        });
        assert_eq!(Rule::find(&values), None);
    }
}
