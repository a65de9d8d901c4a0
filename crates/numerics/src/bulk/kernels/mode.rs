//! The one numbering of the deterministic rounding modes, as the const-generic parameter of
//! every kernel loop compiled once per mode.

use crate::round::RoundMode;

/// To nearest, ties to even (`rint`, `none`).
pub(crate) const NEAREST_EVEN: u8 = 0;
/// To nearest, ties away from zero (`round`).
pub(crate) const NEAREST_AWAY: u8 = 1;
/// Toward −∞.
pub(crate) const FLOOR: u8 = 2;
/// Toward +∞.
pub(crate) const CEIL: u8 = 3;
/// Toward zero.
pub(crate) const TRUNC: u8 = 4;
/// To odd: truncate, then set the last bit when inexact.
pub(crate) const ODD: u8 = 5;

/// The number of `mode`; `None` for stochastic rounding, which no fast kernel serves.
pub(crate) const fn of(mode: RoundMode) -> Option<u8> {
    match mode {
        RoundMode::Rint | RoundMode::None => Some(NEAREST_EVEN),
        RoundMode::Round => Some(NEAREST_AWAY),
        RoundMode::Floor => Some(FLOOR),
        RoundMode::Ceil => Some(CEIL),
        RoundMode::Trunc => Some(TRUNC),
        RoundMode::Odd => Some(ODD),
        RoundMode::Hybrid => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every deterministic mode has its own number, and stochastic rounding none.
    #[test]
    fn deterministic_modes_have_distinct_numbers_and_hybrid_none() {
        let numbers: Vec<u8> = RoundMode::DETERMINISTIC
            .into_iter()
            .map(|m| of(m).unwrap_or(u8::MAX))
            .collect();
        assert_eq!(
            numbers,
            [NEAREST_EVEN, NEAREST_AWAY, FLOOR, CEIL, TRUNC, ODD]
        );
        assert_eq!(of(RoundMode::None), of(RoundMode::Rint));
        assert_eq!(of(RoundMode::Hybrid), None);
    }
}
