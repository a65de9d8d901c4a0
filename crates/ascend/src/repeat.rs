//! Masks, `repeatTimes` and `UnaryRepeatParams`, turned into element addresses.
//!
//! One repeat (iteration) processes 256 bytes of the *wider* operand as 8 data blocks of
//! 32 bytes; the narrower operand uses the first 8·narrow/wide blocks. Lane `j` of repeat `r`
//! of an operand lives at `base + (r·repStride + (j / perBlock)·blkStride)·32 + (j %
//! perBlock)·size`. The mask selects lanes by the wider type's element count.

use crate::dtype::DType;
use crate::error::AscendError;
use crate::limits::{
    BLOCK_BYTES, DST_BLK_STRIDE, DST_REP_STRIDE, REPEAT_TIMES, SRC_BLK_STRIDE, SRC_REP_STRIDE,
    contiguous_mask,
};

pub use crate::limits::REPEAT_BYTES;

/// Data blocks of the wider operand per repeat.
pub const BLOCKS_PER_REPEAT: usize = 8;

/// The mask of a high-dimensional (repeat) Cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mask {
    /// `uint64_t mask`: the first `mask` lanes of every repeat.
    Contiguous(u64),
    /// `uint64_t mask[2]`: `mask[0]` bit j selects lane j (0..63), `mask[1]` bit j lane 64+j.
    ///
    /// Seed 002 is inconsistent here: its range rule ("32-bit: `mask[1]` is 0") and the AscendC
    /// library put lanes 0..63 in `mask[0]`, while two of its examples read `mask[1]` as the low
    /// word. npusim follows the range rule and the library.
    Bitwise([u64; 2]),
}

/// `UnaryRepeatParams { dstBlkStride, srcBlkStride, dstRepStride, srcRepStride }`, in blocks.
///
/// ```
/// use npusim_ascend::UnaryRepeatParams;
/// let p = UnaryRepeatParams::new(1, 1, 8, 4); // { 1, 1, 8, 4 } as in AscendC
/// assert_eq!(p.dst_rep_stride, 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnaryRepeatParams {
    /// Block stride of the destination within a repeat.
    pub dst_blk_stride: u32,
    /// Block stride of the source within a repeat.
    pub src_blk_stride: u32,
    /// Repeat stride of the destination.
    pub dst_rep_stride: u32,
    /// Repeat stride of the source.
    pub src_rep_stride: u32,
}

impl UnaryRepeatParams {
    /// In AscendC's constructor order.
    pub const fn new(
        dst_blk_stride: u32,
        src_blk_stride: u32,
        dst_rep_stride: u32,
        src_rep_stride: u32,
    ) -> UnaryRepeatParams {
        UnaryRepeatParams {
            dst_blk_stride,
            src_blk_stride,
            dst_rep_stride,
            src_rep_stride,
        }
    }

    /// Contiguous data for a cast between `src` and `dst`: block stride 1, repeat stride 8 on
    /// the wider side and 8·narrow/wide on the narrower.
    pub fn contiguous(src: DType, dst: DType) -> UnaryRepeatParams {
        let wide = src.size_bits().max(dst.size_bits());
        let rep = |t: DType| BLOCKS_PER_REPEAT as u32 * t.size_bits() / wide;
        UnaryRepeatParams::new(1, 1, rep(dst), rep(src))
    }
}

/// Which operand of a cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The source.
    Src,
    /// The destination.
    Dst,
}

/// A validated repeat geometry: which lanes are active and where each lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepeatPlan {
    /// Lanes per repeat (256 bytes of the wider type).
    pub per_repeat: usize,
    /// Width of the wider operand type.
    pub wide_bits: u32,
    /// `repeatTimes`.
    pub repeat_times: usize,
    /// The active lanes of every repeat, ascending.
    pub lanes: Vec<usize>,
    /// Strides.
    pub params: UnaryRepeatParams,
    src: DType,
    dst: DType,
}

/// A lane's place in memory: a byte address, and for 4-bit types which nibble.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    /// Byte address.
    pub byte: usize,
    /// For 4-bit types: the high nibble (odd element).
    pub high_nibble: bool,
}

impl RepeatPlan {
    /// Lanes of one repeat: 256 bytes of the wider of the two types.
    pub const fn lanes_per_repeat(src: DType, dst: DType) -> usize {
        let (s, d) = (src.size_bits(), dst.size_bits());
        REPEAT_BYTES * 8 / if s > d { s } else { d } as usize
    }

    /// Validates a mask, repeat count and strides for a `src → dst` cast.
    pub fn new(
        src: DType,
        dst: DType,
        mask: Mask,
        repeat_times: u32,
        params: UnaryRepeatParams,
    ) -> Result<RepeatPlan, AscendError> {
        REPEAT_TIMES.check(repeat_times.into())?;
        for (limit, v) in [
            (DST_REP_STRIDE, params.dst_rep_stride),
            (SRC_REP_STRIDE, params.src_rep_stride),
            (DST_BLK_STRIDE, params.dst_blk_stride),
            (SRC_BLK_STRIDE, params.src_blk_stride),
        ] {
            limit.check(v.into())?;
        }
        let wide_bits = src.size_bits().max(dst.size_bits());
        let per_repeat = Self::lanes_per_repeat(src, dst);
        let four_bit = [src, dst].into_iter().find(|t| t.is_4bit());
        let lanes: Vec<usize> = match mask {
            Mask::Contiguous(m) => {
                contiguous_mask(wide_bits)
                    .check(m.into())
                    .map_err(|limit| AscendError::MaskOutOfRange { limit, wide_bits })?;
                if let Some(t) = four_bit
                    && m % 2 == 1
                {
                    return Err(AscendError::OddInt4Count {
                        dtype: t,
                        what: "contiguous mask",
                        value: m,
                    });
                }
                (0..m as usize).collect()
            }
            Mask::Bitwise([lo, hi]) => {
                let bad = |why| AscendError::BitMaskOutOfRange {
                    lo,
                    hi,
                    wide_bits,
                    why,
                };
                match wide_bits {
                    64 if hi != 0 || lo >> 32 != 0 => {
                        return Err(bad(
                            "a 64-bit cast has 32 lanes: mask[1] must be 0 and mask[0] < 2^32",
                        ));
                    }
                    32 if hi != 0 => {
                        return Err(bad(
                            "a 32-bit cast has 64 lanes: mask[1] must be 0 (mask[0] holds lanes 0..63)",
                        ));
                    }
                    _ => {}
                }
                if lo == 0 && hi == 0 {
                    return Err(bad("mask[0] and mask[1] cannot both be 0"));
                }
                if let Some(t) = four_bit {
                    for (w, word) in [lo, hi].into_iter().enumerate() {
                        let even = word & 0x5555_5555_5555_5555;
                        let odd = (word >> 1) & 0x5555_5555_5555_5555;
                        if even != odd {
                            let pair = (even ^ odd).trailing_zeros() as u64 / 2 + 32 * w as u64;
                            return Err(AscendError::OddInt4Count {
                                dtype: t,
                                what: "bitwise mask: the two bits of a byte (lanes 2k, 2k+1) must be equal; first unequal pair k",
                                value: pair,
                            });
                        }
                    }
                }
                (0..per_repeat)
                    .filter(|&j| {
                        let word = if j < 64 { lo } else { hi };
                        (word >> (j % 64)) & 1 == 1
                    })
                    .collect()
            }
        };
        // The destination's 8 (or fewer) blocks must not all land on one block.
        let dst_blocks = lanes
            .last()
            .map_or(0, |&j| j * dst.size_bits() as usize / (BLOCK_BYTES * 8) + 1);
        if params.dst_blk_stride == 0 && dst_blocks > 1 {
            return Err(AscendError::ZeroDstBlockStride);
        }
        Ok(RepeatPlan {
            per_repeat,
            wide_bits,
            repeat_times: repeat_times as usize,
            lanes,
            params,
            src,
            dst,
        })
    }

    /// Where lane `lane` of repeat `repeat` of an operand lives, for a tensor starting at `base`.
    pub fn loc(&self, operand: Operand, base: usize, repeat: usize, lane: usize) -> Loc {
        let (dtype, blk, rep) = match operand {
            Operand::Src => (
                self.src,
                self.params.src_blk_stride,
                self.params.src_rep_stride,
            ),
            Operand::Dst => (
                self.dst,
                self.params.dst_blk_stride,
                self.params.dst_rep_stride,
            ),
        };
        let bits = dtype.size_bits() as usize;
        let per_block = BLOCK_BYTES * 8 / bits;
        let block = lane / per_block;
        let within_bits = (lane % per_block) * bits;
        let byte =
            base + (repeat * rep as usize + block * blk as usize) * BLOCK_BYTES + within_bits / 8;
        Loc {
            byte,
            high_nibble: bits == 4 && lane % 2 == 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_to_int32_geometry() {
        let p = RepeatPlan::new(
            DType::Half,
            DType::Int32,
            Mask::Contiguous(64),
            8,
            UnaryRepeatParams::new(1, 1, 8, 4),
        )
        .unwrap();
        assert_eq!(p.per_repeat, 64);
        // src lane 17 of repeat 2: block 1 of repeat 2 -> (2*4 + 1)*32 + 1*2
        assert_eq!(p.loc(Operand::Src, 0, 2, 17).byte, 9 * 32 + 2);
        // dst lane 17 of repeat 2: block 2 -> (2*8 + 2)*32 + 1*4
        assert_eq!(p.loc(Operand::Dst, 0, 2, 17).byte, 18 * 32 + 4);
    }

    #[test]
    fn mask_ranges_follow_the_wider_type() {
        let p = UnaryRepeatParams::new(1, 1, 8, 4);
        let e = RepeatPlan::new(DType::Half, DType::Int32, Mask::Contiguous(65), 1, p).unwrap_err();
        assert_eq!(
            e.to_string(),
            "contiguous mask 65 is out of range [1, 64] for a cast whose wider type is 32-bit"
        );
        assert!(RepeatPlan::new(DType::Half, DType::Int32, Mask::Contiguous(0), 1, p).is_err());
        let e = RepeatPlan::new(
            DType::Half,
            DType::Int32,
            Mask::Bitwise([0, u64::MAX]),
            8,
            p,
        );
        assert!(matches!(e, Err(AscendError::BitMaskOutOfRange { .. })));
        assert!(RepeatPlan::new(DType::Half, DType::Int8, Mask::Contiguous(128), 1, p).is_ok());
        let e = RepeatPlan::new(DType::Half, DType::Int4, Mask::Contiguous(127), 1, p).unwrap_err();
        assert!(matches!(e, AscendError::OddInt4Count { value: 127, .. }));
        let e =
            RepeatPlan::new(DType::Half, DType::Int4, Mask::Bitwise([0b01, 0]), 1, p).unwrap_err();
        assert!(
            matches!(e, AscendError::OddInt4Count { value: 0, .. }),
            "{e}"
        );
        assert!(
            RepeatPlan::new(DType::Half, DType::Int4, Mask::Bitwise([0b1100, 0]), 1, p).is_ok()
        );
        let e =
            RepeatPlan::new(DType::Half, DType::Int32, Mask::Contiguous(1), 256, p).unwrap_err();
        assert_eq!(e.to_string(), "repeatTimes 256 is out of range [0, 255]");
        let wide = UnaryRepeatParams::new(70000, 1, 8, 4);
        let e = RepeatPlan::new(DType::Half, DType::Int32, Mask::Contiguous(1), 1, wide);
        assert_eq!(
            e.unwrap_err().to_string(),
            "dstBlkStride 70000 is out of range [0, 65535]"
        );
    }
}
