//! The Ascend 950 MicroAPI `Cast(dstReg, srcReg, mask)` with its `CastTrait`.
//!
//! Lane mapping (`RegLayout` L):
//! * same width: `dst[k] = cast(src[k])`;
//! * narrowing by r (2 or 4): `dst[r·k + L] = cast(src[k])`, all other destination lanes 0;
//!   b16 → b4 keeps pairs: `(src[2k], src[2k+1])` go to byte `4k + L` (even element low nibble);
//! * widening by r: `dst[k] = cast(src[r·k + L])`; b4 → b16: `dst[2k], dst[2k+1]` come from byte `4k + L`.
//!
//! The mask follows the wider type (the 950 `Cast` page): an element is cast when the mask bit of
//! the wider side's element is set; 4-bit pairs follow the even element's bit. Unselected lanes are
//! zero (`ZEROING`).

use crate::ctrl::Ctrl;
use crate::dtype::DType;
use crate::element::{CastOptions, ElementCast, WideningMask};
use crate::error::AscendError;
use crate::memory::{Element, read_code, write_code};
use crate::modes::{CastTrait, MaskMergeMode, RegLayout};
use crate::reg::{MaskReg, RegTensor, VL_BYTES, lane_bit, lanes};

/// Checks the trait's layout against the width ratio of `src → dst`.
pub fn check_layout(src: DType, dst: DType, layout: RegLayout) -> Result<(), AscendError> {
    let (s, d) = (src.size_bits(), dst.size_bits());
    let ratio = s.max(d) / s.min(d);
    // Seed 001 prints UNKNOWN for bf16 <-> fp4x2; the newer docs and library use ZERO..THREE.
    let fp4_pair = matches!(src, DType::Fp4E2M1 | DType::Fp4E1M2)
        || matches!(dst, DType::Fp4E2M1 | DType::Fp4E1M2);
    let legal: &[RegLayout] = match ratio {
        1 => &[RegLayout::Unknown],
        2 => &[RegLayout::Zero, RegLayout::One],
        _ if fp4_pair => &[
            RegLayout::Zero,
            RegLayout::One,
            RegLayout::Two,
            RegLayout::Three,
            RegLayout::Unknown,
        ],
        _ => &[
            RegLayout::Zero,
            RegLayout::One,
            RegLayout::Two,
            RegLayout::Three,
        ],
    };
    if legal.contains(&layout) {
        Ok(())
    } else {
        Err(AscendError::IllegalLayout {
            src,
            dst,
            layout: layout.name().to_string(),
            legal: legal
                .iter()
                .map(|l| l.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }
}

/// Which source lane feeds each destination lane a cast writes, as `(dst lane, src lane)`
/// pairs: the layout and mask rules of the module docs as data. Lanes not listed become 0.
///
/// ```
/// use npusim_ascend::{cast::reg::lane_map, DType, MaskReg, MaskPattern, RegLayout, WideningMask,
/// ty}; let m = MaskReg::create::<ty::Float>(MaskPattern::First(2)).unwrap(); let map =
/// lane_map(DType::Float, DType::Half, RegLayout::One, &m, WideningMask::WiderType);
/// assert_eq!(map, vec![(1, 0), (3, 1)]);
/// ```
pub fn lane_map(
    src: DType,
    dst: DType,
    layout: RegLayout,
    mask: &MaskReg,
    widening: WideningMask,
) -> Vec<(usize, usize)> {
    let l = layout.index();
    let (sb, db) = (src.size_bits() as usize, dst.size_bits() as usize);
    let mut map = Vec::new();
    if sb == db {
        for k in (0..lanes(src)).filter(|&k| mask.selects(src, k)) {
            map.push((k, k));
        }
    } else if sb > db && db == 4 {
        // b16 -> b4: element pairs into byte 4k + L, governed by the even element's bit.
        for k in (0..lanes(src) / 2).filter(|&k| mask.selects(src, 2 * k)) {
            map.push((8 * k + 2 * l, 2 * k));
            map.push((8 * k + 2 * l + 1, 2 * k + 1));
        }
    } else if sb > db {
        let r = sb / db;
        for k in (0..lanes(src)).filter(|&k| mask.selects(src, k)) {
            map.push((r * k + l, k));
        }
    } else if sb == 4 {
        // b4 -> b16: dst[2k], dst[2k+1] from byte 4k + L.
        for k in 0..lanes(dst) / 2 {
            let on = match widening {
                WideningMask::WiderType => mask.selects(dst, 2 * k),
                WideningMask::SourceElement => mask.bit(4 * k + l),
            };
            if on {
                map.push((2 * k, 8 * k + 2 * l));
                map.push((2 * k + 1, 8 * k + 2 * l + 1));
            }
        }
    } else {
        let r = db / sb;
        for k in 0..lanes(dst) {
            let on = match widening {
                WideningMask::WiderType => mask.selects(dst, k),
                WideningMask::SourceElement => mask.bit(lane_bit(src, r * k + l)),
            };
            if on {
                map.push((k, r * k + l));
            }
        }
    }
    map
}

/// `Cast<T, U, trait>(dstReg, srcReg, mask)` on the Ascend 950.
///
/// ```
/// use npusim_ascend::{cast_reg, CastOptions, CastTrait, Ctrl, MaskReg, MaskPattern, RegLayout,
///                     RegTensor, SatMode, ty};
/// use npusim_numerics::RoundMode;
/// let src = RegTensor::<ty::Float>::from_codes(&[0x4000_0000; 64]).unwrap(); // 2.0
/// let mut dst = RegTensor::<ty::Half>::zeroed();
/// let mask = MaskReg::create::<ty::Float>(MaskPattern::All).unwrap();
/// let t = CastTrait::new(RegLayout::One, SatMode::Sat, RoundMode::Rint);
/// cast_reg(&mut dst, &src, &mask, &t, &Ctrl::default(), &CastOptions::default()).unwrap();
/// assert_eq!((dst.get(0), dst.get(1)), (0, 0x4000)); // layout ONE: odd half lanes
/// ```
pub fn cast_reg<D: Element, S: Element>(
    dst: &mut RegTensor<D>,
    src: &RegTensor<S>,
    mask: &MaskReg,
    cast_trait: &CastTrait,
    ctrl: &Ctrl,
    options: &CastOptions,
) -> Result<(), AscendError> {
    let out = cast_reg_bytes(
        D::DTYPE,
        S::DTYPE,
        src.bytes(),
        mask,
        cast_trait,
        ctrl,
        options,
    )?;
    *dst = RegTensor::from_bytes(out);
    Ok(())
}

/// The untyped form of [`cast_reg`]: `src_bytes` holds one register of `src` elements; returns
/// the destination register's bytes.
pub fn cast_reg_bytes(
    dst: DType,
    src: DType,
    src_bytes: &[u8; VL_BYTES],
    mask: &MaskReg,
    cast_trait: &CastTrait,
    ctrl: &Ctrl,
    options: &CastOptions,
) -> Result<[u8; VL_BYTES], AscendError> {
    if cast_trait.merge != MaskMergeMode::Zeroing {
        return Err(AscendError::IllegalMergeMode {
            mode: cast_trait.merge.name().to_string(),
        });
    }
    let elem = ElementCast::reg(src, dst, cast_trait.round, cast_trait.sat, ctrl, options)?;
    check_layout(src, dst, cast_trait.layout)?;
    let mut out = [0u8; VL_BYTES];
    for (d, s) in lane_map(src, dst, cast_trait.layout, mask, options.widening_mask) {
        let code = read_code(src_bytes, 0, src, s);
        write_code(&mut out, 0, dst, d, elem.apply(code, s as u64));
    }
    Ok(out)
}
