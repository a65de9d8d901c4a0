//! The numeric hardware limits of the Ascend model, each a named [`Limit`] with its source.
//!
//! Breaking one is [`AscendError::Limit`](crate::AscendError::Limit) (or, for the contiguous
//! mask, [`AscendError::MaskOutOfRange`](crate::AscendError::MaskOutOfRange)), whose message
//! names the limit, its range and the offending number.

pub use npusim_hw::{Limit, LimitError};

/// A data block: the unit of block strides and of tensor-start alignment.
pub const BLOCK_BYTES: usize = 32;

/// Bytes of the wider operand one repeat (iteration) processes: "The Vector Unit reads 256 bytes
/// of contiguous data for computation each time" (the training `Cast` page, `repeatTimes`).
pub const REPEAT_BYTES: usize = 256;

/// `repeatTimes ∈ [0, 255]`, a `uint8_t` (the training `Cast` page: the prototypes and the
/// `repeatTimes` row).
pub const REPEAT_TIMES: Limit = Limit::new("repeatTimes", 0, u8::MAX as i64);

/// `dstRepStride ∈ [0, 255]`, a `uint8_t` in blocks (the training `Cast` page:
/// "dstRepStride/srcRepStride ∈ [0, 255]").
pub const DST_REP_STRIDE: Limit = Limit::new("dstRepStride", 0, u8::MAX as i64);

/// `srcRepStride ∈ [0, 255]` (the training `Cast` page, as [`DST_REP_STRIDE`]).
pub const SRC_REP_STRIDE: Limit = DST_REP_STRIDE.named("srcRepStride");

/// `dstBlkStride ∈ [0, 65535]`, a `uint16_t` in blocks. Seed 002 gives no range for block
/// strides; the width is that of `UnaryRepeatParams::dstBlkStride` in the AscendC headers
/// ("repStride is uint8, blkStride uint16").
pub const DST_BLK_STRIDE: Limit = Limit::new("dstBlkStride", 0, u16::MAX as i64);

/// `srcBlkStride ∈ [0, 65535]` (as [`DST_BLK_STRIDE`]).
pub const SRC_BLK_STRIDE: Limit = DST_BLK_STRIDE.named("srcBlkStride");

/// Contiguous `mask` with 16-bit operands: `[1, 128]` (the training `Cast` page, `mask`, contiguous
/// mode).
pub const MASK_B16: Limit = Limit::new("contiguous mask", 1, 128);
/// Contiguous `mask` with 32-bit operands: `[1, 64]` (the training `Cast` page).
pub const MASK_B32: Limit = Limit::new("contiguous mask", 1, 64);
/// Contiguous `mask` with 64-bit operands: `[1, 32]` (the training `Cast` page).
pub const MASK_B64: Limit = Limit::new("contiguous mask", 1, 32);

/// The contiguous-mask limit of a cast whose wider operand is `wide_bits` wide: the elements of
/// one 256-byte repeat ([`MASK_B16`], [`MASK_B32`], [`MASK_B64`]; for an 8-bit wider type, which
/// no listed pair has, the same rule gives `[1, 256]`).
pub const fn contiguous_mask(wide_bits: u32) -> Limit {
    match wide_bits {
        16 => MASK_B16,
        32 => MASK_B32,
        64 => MASK_B64,
        _ => Limit::new(
            "contiguous mask",
            1,
            (REPEAT_BYTES * 8 / wide_bits as usize) as i64,
        ),
    }
}

/// LocalTensor start addresses are multiples of 32 bytes: "The start address of the LocalTensor
/// must be 32-byte aligned" (the training `Cast` page, `dstLocal` / `srcLocal`).
pub const TENSOR_ALIGN_BYTES: usize = BLOCK_BYTES;

/// Sizes accepted for a modelled unified buffer (`ub_bytes` of a call description): at least
/// one 32-byte block, at most 16 MiB. Not a documented hardware figure — the vendor documents give
/// no UB size; npusim's default is 256 KiB — but a bound that keeps a description from asking for
/// an absurd allocation.
pub const UB_BYTES: Limit = Limit::new("ub_bytes", BLOCK_BYTES as i64, 16 << 20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_strides_are_u16_and_repeat_strides_u8() {
        let e = DST_BLK_STRIDE.check(70000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "dstBlkStride 70000 is out of range [0, 65535]"
        );
        assert!(SRC_BLK_STRIDE.check(65535).is_ok());
        assert_eq!(
            SRC_REP_STRIDE.check(256).unwrap_err().to_string(),
            "srcRepStride 256 is out of range [0, 255]"
        );
    }

    #[test]
    fn mask_limits_follow_the_wider_type() {
        assert_eq!(contiguous_mask(16).max, 128);
        assert_eq!(contiguous_mask(32).max, 64);
        assert_eq!(contiguous_mask(64).max, 32);
        assert_eq!(contiguous_mask(8).max, 256);
    }
}
