//! The Ascend 950 CTRL special-purpose register bits that govern Cast saturation.
//!
//! | bit | reset | meaning |
//! |---|---|---|
//! | 60 | 1 | 1: saturation is global (bits 48/59); 0: each Cast's `SatMode` decides |
//! | 48 | 0 | global float→float: 0 saturates (Inf → ±max, NaN → 0), 1 keeps Inf/NaN |
//! | 50 | 0 | while saturating, fp8 (e4m3fn/e5m2) outputs: 0 NaN → 0, 1 NaN stays NaN |
//! | 59 | 0 | global float→int and int→int: 0 saturates, 1 keeps the low bits |
//!
//! So a kernel that never calls `SetCtrlSpr` gets saturating casts whatever its `SatMode`.

use crate::error::AscendError;

/// Bit 60: saturation chosen globally (1) or per instruction (0).
pub const CTRL_GLOBAL_SAT: u32 = 60;
/// Bit 48: global float→float mode (0 saturate, 1 keep Inf/NaN).
pub const CTRL_FLOAT_NO_SAT: u32 = 48;
/// Bit 50: fp8 NaN kept (1) or zeroed (0) while saturating.
pub const CTRL_FP8_NAN_KEEP: u32 = 50;
/// Bit 59: global integer mode (0 saturate, 1 truncate).
pub const CTRL_INT_TRUNCATE: u32 = 59;

/// The CTRL register.
///
/// ```
/// use npusim_ascend::Ctrl;
/// let mut c = Ctrl::default();
/// assert!(c.global_saturation());
/// c.set_ctrl_spr(60, 60, 0).unwrap(); // SetCtrlSpr<60, 60>(0): per-instruction SatMode
/// assert!(!c.global_saturation());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ctrl(pub u64);

impl Default for Ctrl {
    /// The reset value: only bit 60 set.
    fn default() -> Self {
        Ctrl(1 << CTRL_GLOBAL_SAT)
    }
}

impl Ctrl {
    /// `SetCtrlSpr<start, end>(value)`: writes bits `start..=end` with the low bits of `value`.
    pub fn set_ctrl_spr(&mut self, start: u32, end: u32, value: u64) -> Result<(), AscendError> {
        if start > end || end > 63 {
            return Err(AscendError::BadCtrlRange { start, end });
        }
        let width = end - start + 1;
        let mask = if width == 64 {
            u64::MAX
        } else {
            ((1u64 << width) - 1) << start
        };
        self.0 = (self.0 & !mask) | ((value << start) & mask);
        Ok(())
    }

    /// One bit.
    pub const fn bit(&self, b: u32) -> bool {
        (self.0 >> b) & 1 == 1
    }

    /// `CTRL[60]`: saturation decided by bits 48/59 rather than the Cast's `SatMode`.
    pub const fn global_saturation(&self) -> bool {
        self.bit(CTRL_GLOBAL_SAT)
    }

    /// The per-instruction-mode register: `CTRL[60]` = 0, everything else at reset.
    pub const fn per_instruction() -> Ctrl {
        Ctrl(0)
    }
}
