//! The LocalTensor `Cast` API (Memory vector compute): three prototypes over the unified buffer.
//!
//! * first n elements: `Cast(dst, src, round_mode, calCount)`;
//! * high-dimensional with a bitwise mask: `Cast(dst, src, round_mode, mask[2], repeatTimes, params)`;
//! * high-dimensional with a contiguous mask: `Cast(dst, src, round_mode, mask, repeatTimes, params)`.
//!
//! Lanes the mask does not select are not written: the destination keeps its prior contents.

use std::collections::HashMap;

use npusim_numerics::RoundMode;

use crate::ctrl::Ctrl;
use crate::dtype::DType;
use crate::element::{CastOptions, ElementCast};
use crate::error::AscendError;
use crate::limits::REPEAT_TIMES;
use crate::memory::{Element, LocalTensor, TensorView, UnifiedBuffer, read_code_at, write_code_at};
use crate::profile::Product;
use crate::repeat::{Loc, Mask, Operand, RepeatPlan, UnaryRepeatParams};

/// One AI Core's vector-side state: the unified buffer, the DEQSCALE and CTRL registers,
/// the product whose rules apply, and the options for the documentation's open points.
#[derive(Clone, Debug)]
pub struct AiCore {
    /// The unified buffer.
    pub ub: UnifiedBuffer,
    /// The product.
    pub product: Product,
    /// Open-point choices.
    pub options: CastOptions,
    /// The CTRL register. It governs the Ascend 950's LocalTensor casts' saturation (see
    /// [`AiCore::set_ctrl_spr`]); the Atlas training series' Cast does not read it.
    pub ctrl: Ctrl,
    deq_scale: Option<u16>,
}

/// What a Cast call did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CastReport {
    /// Destination element indices written, ascending (relative to the destination tensor).
    pub written: Vec<usize>,
    /// Repeats (iterations) issued.
    pub repeats: usize,
}

impl AiCore {
    /// A core of `product` with the default 256 KiB unified buffer.
    pub fn new(product: Product) -> AiCore {
        AiCore::with_ub(product, UnifiedBuffer::default())
    }

    /// A core with the given unified buffer.
    pub fn with_ub(product: Product, ub: UnifiedBuffer) -> AiCore {
        AiCore {
            ub,
            product,
            options: CastOptions::default(),
            ctrl: Ctrl::default(),
            deq_scale: None,
        }
    }

    /// `SetDeqScale(half scale)`: the scale of int32 → half casts (its fp16 bits).
    pub fn set_deq_scale(&mut self, scale_bits: u16) {
        self.deq_scale = Some(scale_bits);
    }

    /// `SetCtrlSpr<start, end>(value)`: writes bits `start..=end` of CTRL.
    ///
    /// On the Ascend 950 this changes how later casts saturate (the 950 `Cast` page's constraints;
    /// the bits are listed in [`crate::ctrl`]). For example float → half overflow gives half's
    /// largest finite value by default and +Inf after `SetCtrlSpr<48, 48>(1)`:
    ///
    /// ```
    /// use npusim_ascend::{AiCore, Product, ty};
    /// use npusim_numerics::RoundMode;
    /// let mut core = AiCore::new(Product::Ascend950);
    /// let src = core.ub.tensor::<ty::Float>(0, 8).unwrap();
    /// let dst = core.ub.tensor::<ty::Half>(64, 8).unwrap();
    /// core.ub.load_bytes(&src.view(), &1e6f32.to_le_bytes().repeat(8)).unwrap();
    /// core.cast_count(&dst, &src, RoundMode::Rint, 8).unwrap();
    /// assert_eq!(core.ub.read(&dst.view(), 0), 0x7BFF); // reset CTRL: saturates to 65504
    /// core.set_ctrl_spr(48, 48, 1).unwrap();            // CTRL[48] = 1: keep Inf/NaN
    /// core.cast_count(&dst, &src, RoundMode::Rint, 8).unwrap();
    /// assert_eq!(core.ub.read(&dst.view(), 0), 0x7C00); // +Inf
    /// ```
    pub fn set_ctrl_spr(&mut self, start: u32, end: u32, value: u64) -> Result<(), AscendError> {
        self.ctrl.set_ctrl_spr(start, end, value)
    }

    /// The DEQSCALE register, if set.
    pub const fn deq_scale(&self) -> Option<u16> {
        self.deq_scale
    }

    /// `Cast(dst, src, round_mode, mask, repeatTimes, repeatParams)` on typed tensors.
    ///
    /// ```
    /// use npusim_ascend::{AiCore, Mask, Product, UnaryRepeatParams, ty};
    /// use npusim_numerics::RoundMode;
    /// let mut core = AiCore::new(Product::AtlasTraining);
    /// let src = core.ub.tensor::<ty::Half>(0, 64).unwrap();
    /// let dst = core.ub.tensor::<ty::Int32>(1024, 64).unwrap();
    /// for i in 0..64 { core.ub.write(&src.view(), i, 0x3E00); } // 1.5
    /// let r = core.cast(&dst, &src, RoundMode::Ceil, Mask::Contiguous(32), 1,
    ///                   UnaryRepeatParams::new(1, 1, 8, 4)).unwrap();
    /// assert_eq!(r.written, (0..32).collect::<Vec<_>>());
    /// assert_eq!(core.ub.read(&dst.view(), 0), 2);
    /// assert_eq!(core.ub.read(&dst.view(), 40), 0); // masked off: untouched
    /// ```
    pub fn cast<D: Element, S: Element>(
        &mut self,
        dst: &LocalTensor<D>,
        src: &LocalTensor<S>,
        round: RoundMode,
        mask: Mask,
        repeat_times: u32,
        params: UnaryRepeatParams,
    ) -> Result<CastReport, AscendError> {
        self.cast_views(dst.view(), src.view(), round, mask, repeat_times, params)
    }

    /// `Cast(dst, src, round_mode, calCount)`: the first `count` elements.
    pub fn cast_count<D: Element, S: Element>(
        &mut self,
        dst: &LocalTensor<D>,
        src: &LocalTensor<S>,
        round: RoundMode,
        count: usize,
    ) -> Result<CastReport, AscendError> {
        self.cast_count_views(dst.view(), src.view(), round, count)
    }

    /// The untyped form of [`AiCore::cast`].
    pub fn cast_views(
        &mut self,
        dst: TensorView,
        src: TensorView,
        round: RoundMode,
        mask: Mask,
        repeat_times: u32,
        params: UnaryRepeatParams,
    ) -> Result<CastReport, AscendError> {
        let elem = self.resolve(src.dtype, dst.dtype, round)?;
        src.check_aligned()?;
        dst.check_aligned()?;
        let plan = RepeatPlan::new(src.dtype, dst.dtype, mask, repeat_times, params)?;
        check_extent(&plan, Operand::Src, &src)?;
        check_extent(&plan, Operand::Dst, &dst)?;
        check_overlap(&plan, &src, &dst)?;
        let mut report = CastReport {
            written: Vec::new(),
            repeats: plan.repeat_times,
        };
        let mut written = vec![false; dst.len];
        for r in 0..plan.repeat_times {
            // A repeat reads all its source lanes before writing (one vector instruction).
            let codes: Vec<(usize, u64)> = plan
                .lanes
                .iter()
                .map(|&j| {
                    let code = read_code_at(
                        self.ub.bytes(),
                        plan.loc(Operand::Src, src.addr, r, j),
                        src.dtype,
                    );
                    (j, elem.apply(code, (r * plan.per_repeat + j) as u64))
                })
                .collect();
            for (j, out) in codes {
                let loc = plan.loc(Operand::Dst, dst.addr, r, j);
                write_code_at(self.ub.bytes_mut(), loc, dst.dtype, out);
                written[element_index(&dst, loc)] = true;
            }
        }
        report.written = (0..dst.len).filter(|&i| written[i]).collect();
        Ok(report)
    }

    /// The untyped form of [`AiCore::cast_count`]: full repeats of contiguous data (at most 255
    /// per issue), then one tail repeat with a contiguous mask; elements ≥ `count` are not written.
    pub fn cast_count_views(
        &mut self,
        dst: TensorView,
        src: TensorView,
        round: RoundMode,
        count: usize,
    ) -> Result<CastReport, AscendError> {
        self.resolve(src.dtype, dst.dtype, round)?;
        for (role, t) in [("src", &src), ("dst", &dst)] {
            if count > t.len {
                return Err(AscendError::CountTooLarge {
                    count,
                    role,
                    len: t.len,
                });
            }
        }
        if let Some(t) = [src.dtype, dst.dtype].into_iter().find(|t| t.is_4bit())
            && count % 2 == 1
        {
            return Err(AscendError::OddInt4Count {
                dtype: t,
                what: "calCount",
                value: count as u64,
            });
        }
        let params = UnaryRepeatParams::contiguous(src.dtype, dst.dtype);
        let per_repeat = RepeatPlan::lanes_per_repeat(src.dtype, dst.dtype);
        let mut report = CastReport::default();
        let mut done = 0;
        while done < count {
            let left = count - done;
            let (mask, repeats) = if left >= per_repeat {
                (
                    per_repeat,
                    (left / per_repeat).min(REPEAT_TIMES.max as usize),
                )
            } else {
                (left, 1)
            };
            let sub = |t: &TensorView| TensorView {
                addr: t.addr + TensorView { len: done, ..*t }.bytes(),
                len: t.len - done,
                ..*t
            };
            let r = self.cast_views(
                sub(&dst),
                sub(&src),
                round,
                Mask::Contiguous(mask as u64),
                repeats as u32,
                params,
            )?;
            report.written.extend(r.written.iter().map(|i| i + done));
            report.repeats += r.repeats;
            done += mask * repeats;
        }
        Ok(report)
    }

    /// Resolves the element conversion under this core's product, CTRL register and options.
    pub fn resolve(
        &self,
        src: DType,
        dst: DType,
        round: RoundMode,
    ) -> Result<ElementCast, AscendError> {
        ElementCast::local_tensor_with_ctrl(
            self.product,
            src,
            dst,
            round,
            self.deq_scale,
            &self.ctrl,
            &self.options,
        )
    }
}

/// The element index (from the tensor start) of a location.
fn element_index(t: &TensorView, loc: Loc) -> usize {
    let bits = t.dtype.size_bits() as usize;
    ((loc.byte - t.addr) * 8 + if loc.high_nibble { 4 } else { 0 }) / bits
}

/// Every accessed element must lie inside the tensor.
fn check_extent(plan: &RepeatPlan, op: Operand, t: &TensorView) -> Result<(), AscendError> {
    let mut first_bad = None;
    let mut needed = 0;
    for r in 0..plan.repeat_times {
        for &j in &plan.lanes {
            let loc = plan.loc(op, t.addr, r, j);
            let idx = element_index(t, loc);
            needed = needed.max(idx + 1);
            if idx >= t.len && first_bad.is_none() {
                first_bad = Some((r, j, loc.byte - t.addr));
            }
        }
    }
    match first_bad {
        None => Ok(()),
        Some((repeat, lane, byte_offset)) => Err(AscendError::TensorTooSmall {
            role: match op {
                Operand::Src => "src",
                Operand::Dst => "dst",
            },
            dtype: t.dtype,
            len: t.len,
            needed,
            byte_offset,
            repeat,
            lane,
        }),
    }
}

/// Seed 002's overlap rules: src and dst must be different memory, or every overlapping access
/// must be the same element (same repeat, same lane, same address and width) — which also rules
/// out an earlier repeat writing what a later repeat reads, and in-place width changes.
fn check_overlap(plan: &RepeatPlan, src: &TensorView, dst: &TensorView) -> Result<(), AscendError> {
    if !src.byte_range()?.overlaps(&dst.byte_range()?) {
        return Ok(());
    }
    let nibbles = |t: &TensorView| t.dtype.size_bits() as usize / 4;
    let start = |loc: Loc| loc.byte * 2 + usize::from(loc.high_nibble);
    let mut writes: HashMap<usize, (usize, usize, usize)> = HashMap::new();
    for r in 0..plan.repeat_times {
        for &j in &plan.lanes {
            let s = start(plan.loc(Operand::Dst, dst.addr, r, j));
            for n in s..s + nibbles(dst) {
                writes.entry(n).or_insert((r, j, s));
            }
        }
    }
    for r in 0..plan.repeat_times {
        for &j in &plan.lanes {
            let s = start(plan.loc(Operand::Src, src.addr, r, j));
            for n in s..s + nibbles(src) {
                let Some(&(wr, wj, ws)) = writes.get(&n) else {
                    continue;
                };
                let why = if src.dtype.size_bits() != dst.dtype.size_bits() {
                    format!(
                        "an in-place {} -> {} cast changes the element width, so lane {j} of repeat {r} reads bytes that lane {wj} of repeat {wr} writes",
                        src.dtype, dst.dtype
                    )
                } else if wr < r {
                    format!(
                        "repeat {wr} writes what repeat {r} then reads (lane {wj} -> lane {j}): a dependency between iterations"
                    )
                } else if (wr, wj, ws) != (r, j, s) {
                    format!(
                        "src and dst are different elements of the same memory (src lane {j} of repeat {r} overlaps dst lane {wj} of repeat {wr})"
                    )
                } else {
                    continue;
                };
                return Err(AscendError::ForbiddenOverlap { why });
            }
        }
    }
    Ok(())
}
