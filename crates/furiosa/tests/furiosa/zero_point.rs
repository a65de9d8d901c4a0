//! The Fetch Adapter's zero-point subtraction (`docs/furiosa-engines.md` §4.2, §14), from the
//! page's text: the residual `x − zero_point` widens i4 to i5 (−16..=15) and i8 to i9
//! (−256..=255); the extremes of two same-width values, −15..=15 and −255..=255, fit; a
//! residual outside the range is refused, not wrapped.

use npusim_furiosa::DType;
use npusim_furiosa::engine::fetch_zero_point_sub::{ZeroPointError, zero_point_sub};

/// The page's extremes: i8 −128 − 127 = −255 and 127 − (−128) = 255 fit i9; i4 −8 − 7 = −15
/// and 7 − (−8) = 15 fit i5; an ordinary value, 100 − 3 = 97.
#[test]
fn residuals_of_same_width_values_fit_one_more_bit() {
    assert_eq!(zero_point_sub(DType::I8, &[0x80], 127).unwrap(), vec![-255]);
    assert_eq!(zero_point_sub(DType::I8, &[0x7f], -128).unwrap(), vec![255]);
    assert_eq!(zero_point_sub(DType::I8, &[100], 3).unwrap(), vec![97]);
    assert_eq!(zero_point_sub(DType::I4, &[0x8], 7).unwrap(), vec![-15]);
    assert_eq!(
        zero_point_sub(DType::I4, &[0x7, 0xf], -8).unwrap(),
        vec![15, 7]
    );
}

/// An out-of-range zero point: i8 −128 − 129 = −257 < −256 and i4 7 − (−9) = 16 > 15 are
/// refused with the numbers; an f32 input has no zero-point stage.
#[test]
fn out_of_range_residuals_are_refused_not_wrapped() {
    let e = zero_point_sub(DType::I8, &[0, 0x80], 129).unwrap_err();
    assert_eq!(
        e.to_string(),
        "-128 - zero point 129 = -257 does not fit i9 (-256..=255) (rule: an out-of-range residual is refused, not wrapped)"
    );
    let e = zero_point_sub(DType::I4, &[0x7], -9).unwrap_err();
    assert!(
        matches!(
            e,
            ZeroPointError::Range {
                residual: 16,
                out: "i5",
                ..
            }
        ),
        "{e}"
    );
    let e = zero_point_sub(DType::F32, &[0], 0).unwrap_err();
    assert_eq!(e, ZeroPointError::InputType { dtype: DType::F32 });
}
