//! Named hardware limits: a register field's or a buffer's legal range, checked with an error
//! that says which limit, what range and which number broke it.

use std::fmt;

use thiserror::Error;

/// A hardware limit: the inclusive range `[min, max]` a named quantity may take.
///
/// Architecture crates declare each limit once, as a constant whose doc comment cites its source:
///
/// ```
/// use npusim_hw::Limit;
/// /// `repeatTimes` is a `uint8_t`.
/// pub const REPEAT_TIMES: Limit = Limit::new("repeatTimes", 0, u8::MAX as i64);
/// assert!(REPEAT_TIMES.check(255).is_ok());
/// let e = REPEAT_TIMES.check(256).unwrap_err();
/// assert_eq!((e.limit, e.value), (REPEAT_TIMES, 256));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limit {
    /// The quantity's name as the vendor spells it (`dstBlkStride`, `repeatTimes`, ...).
    pub name: &'static str,
    /// Smallest legal value.
    pub min: i64,
    /// Largest legal value.
    pub max: i64,
}

impl Limit {
    /// A limit named `name` allowing `min..=max`.
    pub const fn new(name: &'static str, min: i64, max: i64) -> Limit {
        Limit { name, min, max }
    }

    /// The same range under another name (e.g. `srcBlkStride` next to `dstBlkStride`).
    pub const fn named(self, name: &'static str) -> Limit {
        Limit { name, ..self }
    }

    /// Whether `value` lies in the range.
    pub const fn contains(&self, value: i128) -> bool {
        self.min as i128 <= value && value <= self.max as i128
    }

    /// `Ok(())` if `value` lies in the range, else a [`LimitError`] with the number.
    ///
    /// `value` is an `i128` so that any unsigned or signed 64-bit quantity can be checked
    /// without first being cut to fit.
    pub fn check(&self, value: i128) -> Result<(), LimitError> {
        if self.contains(value) {
            Ok(())
        } else {
            Err(LimitError {
                limit: *self,
                value,
            })
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in [{}, {}]", self.name, self.min, self.max)
    }
}

/// A value outside a [`Limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
#[error("{} {value} is out of range [{}, {}]", limit.name, limit.min, limit.max)]
pub struct LimitError {
    /// The limit broken.
    pub limit: Limit,
    /// The offending value.
    pub value: i128,
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRIDE: Limit = Limit::new("dstBlkStride", 0, u16::MAX as i64);

    #[test]
    fn bounds_are_inclusive() {
        assert!(STRIDE.check(0).is_ok());
        assert!(STRIDE.check(65535).is_ok());
        assert!(STRIDE.check(-1).is_err());
        assert!(STRIDE.check(65536).is_err());
    }

    #[test]
    fn the_error_names_the_limit_the_range_and_the_number() {
        let e = STRIDE.check(70000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "dstBlkStride 70000 is out of range [0, 65535]"
        );
        let e = STRIDE.named("srcBlkStride").check(-3).unwrap_err();
        assert_eq!(e.to_string(), "srcBlkStride -3 is out of range [0, 65535]");
        assert_eq!(STRIDE.to_string(), "dstBlkStride in [0, 65535]");
    }

    #[test]
    fn wide_values_are_not_cut() {
        let e = STRIDE.check(i128::from(u64::MAX)).unwrap_err();
        assert_eq!(e.value, i128::from(u64::MAX));
    }
}
