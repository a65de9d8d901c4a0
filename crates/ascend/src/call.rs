//! A Cast call as plain data: what `npusim ascend cast` reads from its command line or a small
//! TOML file, validated and run over input bytes.
//!
//! Every field is typed; in TOML each is written with its AscendC spelling (`round = "CAST_CEIL"`,
//! `sat = "NO_SAT"`, `layout = "ZERO"`, `src = "half"`), and an unknown value is an error
//! listing the legal ones.
//!
//! ```
//! use npusim_ascend::call::{CastCall, run_call};
//! use npusim_ascend::{DType, Product};
//! use npusim_numerics::RoundMode;
//! let call = CastCall {
//!     product: Product::AtlasTraining, src: Some(DType::Half), dst: Some(DType::Int32),
//!     round: RoundMode::Ceil.into(), mask: Some(32), repeat: Some(1),
//!     params: Some([1, 1, 8, 4]), ..CastCall::default()
//! };
//! let input: Vec<u8> = (0..64u16).flat_map(|_| 0x3E00u16.to_le_bytes()).collect(); // 64 × 1.5
//! let out = run_call(&call, &input, None).unwrap();
//! assert_eq!(out.written, (0..32).collect::<Vec<_>>());
//! assert_eq!(&out.dst[..4], &2i32.to_le_bytes());
//! // the same call as TOML
//! let text = "product = \"training\"\nsrc = \"half\"\ndst = \"int32_t\"\nround = \"CAST_CEIL\"\n\
//!             mask = 32\nrepeat = 1\nparams = [1, 1, 8, 4]\n";
//! assert_eq!(toml::from_str::<CastCall>(text).unwrap(), call);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use npusim_numerics::RoundMode;

use crate::cast::local_tensor::AiCore;
use crate::cast::reg::{cast_reg_bytes, lane_map};
use crate::ctrl::Ctrl;
use crate::dtype::DType;
use crate::element::{CastOptions, HybridKind, WideningMask};
use crate::error::AscendError;
use crate::limits::{BLOCK_BYTES, UB_BYTES};
use crate::memory::{TensorView, UB_BYTES_DEFAULT, UnifiedBuffer};
use crate::modes::{CastRoundMode, CastTrait, MaskMergeMode, RegLayout, SatMode};
use crate::profile::Product;
use crate::reg::{MaskReg, VL_BYTES, lanes};
use crate::repeat::{Mask, RepeatPlan, UnaryRepeatParams};

/// Which of AscendC's two `Cast` APIs a call uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Api {
    /// The LocalTensor API (`Cast(dstLocal, srcLocal, round_mode, ...)`), both products; the default.
    #[default]
    LocalTensor,
    /// The Ascend 950 MicroAPI (`Reg`) `Cast(dstReg, srcReg, mask)` with a `CastTrait`.
    Reg,
}

impl Api {
    /// Every API.
    pub const ALL: [Api; 2] = [Api::LocalTensor, Api::Reg];

    /// The name in reports: `LocalTensor` or `Reg API`.
    pub const fn title(self) -> &'static str {
        match self {
            Api::LocalTensor => "LocalTensor",
            Api::Reg => "Reg API",
        }
    }

    /// The spelling in call descriptions: `local` or `reg`.
    pub const fn short(self) -> &'static str {
        match self {
            Api::LocalTensor => "local",
            Api::Reg => "reg",
        }
    }

    /// What one step of a call is: `repeat(s)` or `register(s)`.
    pub const fn step_unit(self) -> &'static str {
        match self {
            Api::LocalTensor => "repeat(s)",
            Api::Reg => "register(s)",
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

impl FromStr for Api {
    type Err = AscendError;
    /// `local` (aliases `localtensor`, nothing) or `reg` (alias `microapi`), any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "local" | "localtensor" => Ok(Api::LocalTensor),
            "reg" | "microapi" => Ok(Api::Reg),
            _ => Err(AscendError::UnknownValue {
                what: "API",
                name: s.trim().to_string(),
                valid: "local (LocalTensor) reg (microapi)",
            }),
        }
    }
}

/// A Cast call description. Field names match the TOML keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CastCall {
    /// `training` (Atlas training series, default) or `950`.
    pub product: Product,
    /// `local` (LocalTensor API, default) or `reg` (Ascend 950 MicroAPI).
    pub api: Api,
    /// Source type (`half`, `float`, `int4b_t`, ... or a numerics name).
    pub src: Option<DType>,
    /// Destination type.
    pub dst: Option<DType>,
    /// Round mode (`CAST_RINT`, `rint`, ...); `UNKNOWN` (default) for Reg API exact pairs.
    pub round: CastRoundMode,
    /// LocalTensor first-n API: `calCount`.
    pub count: Option<u64>,
    /// LocalTensor contiguous mask.
    pub mask: Option<u64>,
    /// LocalTensor bitwise mask `[mask[0], mask[1]]`.
    pub mask_bits: Option<[u64; 2]>,
    /// `repeatTimes`.
    pub repeat: Option<u32>,
    /// `UnaryRepeatParams { dstBlkStride, srcBlkStride, dstRepStride, srcRepStride }`.
    pub params: Option<[u32; 4]>,
    /// `SetDeqScale` value (int32 → half).
    pub deq_scale: Option<f32>,
    /// Reg API `SatMode` (`SAT`, `NO_SAT`, `UNKNOWN`).
    pub sat: SatMode,
    /// Reg API `RegLayout` (`ZERO`..`THREE`, `UNKNOWN`).
    pub layout: RegLayout,
    /// Reg API merge mode (only `ZEROING` is legal).
    pub merge: MaskMergeMode,
    /// Ascend 950: the CTRL register value (default: the reset value, bit 60 set). It governs
    /// both APIs' saturation; the Atlas training series has no CTRL-governed Cast.
    pub ctrl: Option<u64>,
    /// Source tensor byte address in the UB (default 0).
    pub src_addr: Option<usize>,
    /// Destination tensor byte address (default: the first 32-byte boundary after the source).
    pub dst_addr: Option<usize>,
    /// Destination length in elements (default: the prior contents' length if given, else as
    /// many elements as the source has, or more if the access pattern reaches further).
    pub dst_len: Option<usize>,
    /// Unified buffer size in bytes (default 256 KiB; see [`UB_BYTES`]).
    pub ub_bytes: Option<usize>,
    /// CAST_HYBRID threshold: `random` (default), `input-low-bits` (the literal pseudocode).
    pub hybrid: HybridKind,
    /// Seed of the random hybrid threshold.
    pub seed: Option<u64>,
    /// Widening-mask reading for the Reg API: `wider` (default) or `source`.
    pub widening_mask: WideningMask,
    /// Training series: run in Inf/NaN overflow mode instead of saturation.
    pub training_inf_nan: bool,
    /// 950 bf16 ±Inf → e8m0 gives 0xFF (library) instead of 0xFE (documentation).
    pub e8m0_inf_to_nan: bool,
}

/// What a call did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallOutcome {
    /// The product whose rules applied.
    pub product: Product,
    /// The API that ran.
    pub api: Api,
    /// Destination element type.
    pub dst_dtype: DType,
    /// Destination elements' bytes (4-bit types packed, element 0 in the low nibble).
    pub dst: Vec<u8>,
    /// Number of destination elements.
    pub dst_len: usize,
    /// Destination element indices written.
    pub written: Vec<usize>,
    /// Repeats (LocalTensor) or registers (Reg) processed.
    pub steps: usize,
}

fn bad(msg: impl Into<String>) -> AscendError {
    AscendError::BadDescription(msg.into())
}

impl CastCall {
    fn options(&self) -> CastOptions {
        CastOptions {
            training_inf_nan: self.training_inf_nan,
            e8m0_inf_to_nan: self.e8m0_inf_to_nan,
            hybrid: self
                .hybrid
                .threshold(self.seed.unwrap_or(npusim_numerics::bulk::DEFAULT_SEED)),
            widening_mask: self.widening_mask,
        }
    }

    /// The CTRL register the call runs with, or an error if it names one on a product whose
    /// Cast does not read CTRL.
    fn ctrl(&self) -> Result<Ctrl, AscendError> {
        match (self.product, self.ctrl) {
            (_, None) => Ok(Ctrl::default()),
            (Product::Ascend950, Some(c)) => Ok(Ctrl(c)),
            (Product::AtlasTraining, Some(c)) => Err(bad(format!(
                "ctrl = {c:#x}: the Atlas training series' Cast does not read CTRL; use product = \"950\" (or training_inf_nan for the training overflow mode)"
            ))),
        }
    }
}

/// Runs a call over `input` (the source elements' bytes, 4-bit types packed). `prior` gives the
/// destination's contents before the call (zeros if `None`); lanes the call does not write keep it.
pub fn run_call(
    call: &CastCall,
    input: &[u8],
    prior: Option<&[u8]>,
) -> Result<CallOutcome, AscendError> {
    let product = call.product;
    let src = call
        .src
        .ok_or_else(|| bad("no source type: give src (e.g. src = \"half\")"))?;
    let dst = call
        .dst
        .ok_or_else(|| bad("no destination type: give dst (e.g. dst = \"int32_t\")"))?;
    let src_len = input.len() * 8 / src.size_bits() as usize;
    match call.api {
        Api::LocalTensor => run_local(call, product, src, dst, input, src_len, prior),
        Api::Reg => {
            if product != Product::Ascend950 {
                return Err(bad(
                    "the Reg (MicroAPI) Cast exists only on product = \"950\"",
                ));
            }
            run_reg(call, src, dst, input)
        }
    }
}

fn run_local(
    call: &CastCall,
    product: Product,
    src: DType,
    dst: DType,
    input: &[u8],
    src_len: usize,
    prior: Option<&[u8]>,
) -> Result<CallOutcome, AscendError> {
    let round = call.round.mode().ok_or_else(|| {
        bad("the LocalTensor Cast needs a round mode (e.g. round = \"CAST_NONE\")")
    })?;
    let params = match call.params {
        Some([a, b, c, d]) => UnaryRepeatParams::new(a, b, c, d),
        None => UnaryRepeatParams::contiguous(src, dst),
    };
    let mask = match (call.count, call.mask, call.mask_bits) {
        (Some(_), None, None) => None,
        (None, Some(m), None) => Some(Mask::Contiguous(m)),
        (None, None, Some(b)) => Some(Mask::Bitwise(b)),
        (None, None, None) => {
            return Err(bad("give one of count (first-n API), mask or mask_bits"));
        }
        _ => return Err(bad("count, mask and mask_bits are mutually exclusive")),
    };
    let repeat = call.repeat.unwrap_or(1);
    // How many destination elements the call can reach.
    let reach = match mask {
        None => call.count.unwrap_or(0) as usize,
        Some(m) => {
            let plan = RepeatPlan::new(src, dst, m, repeat, params)?;
            let last_lane = plan.lanes.last().copied().unwrap_or(0);
            let bytes = plan.repeat_times.checked_sub(1).map_or(0, |r| {
                plan.loc(crate::repeat::Operand::Dst, 0, r, last_lane).byte + 1
            });
            (bytes * 8).div_ceil(dst.size_bits() as usize)
        }
    };
    let prior_len = prior.map(|p| p.len() * 8 / dst.size_bits() as usize);
    let dst_len = call.dst_len.or(prior_len).unwrap_or(reach.max(src_len));
    let ub_bytes = call.ub_bytes.unwrap_or(UB_BYTES_DEFAULT);
    UB_BYTES.check(ub_bytes as i128)?;
    let src_addr = call.src_addr.unwrap_or(0);
    let src_view = TensorView {
        addr: src_addr,
        len: src_len,
        dtype: src,
    };
    let dst_addr = match call.dst_addr {
        Some(a) => a,
        None => src_view
            .byte_range()?
            .end()
            .checked_next_multiple_of(BLOCK_BYTES)
            .ok_or_else(|| bad(format!("src_addr {src_addr:#x} leaves no room for dst")))?,
    };
    let mut core = AiCore::with_ub(product, UnifiedBuffer::new(ub_bytes));
    core.options = call.options();
    core.ctrl = call.ctrl()?;
    if let Some(s) = call.deq_scale {
        let bits = npusim_numerics::convert(
            u64::from(s.to_bits()),
            npusim_numerics::Format::F32,
            npusim_numerics::Format::F16,
            &npusim_numerics::CastPolicy::new(RoundMode::Rint),
        );
        core.set_deq_scale(bits as u16);
    }
    let src_view = core.ub.view(src_addr, src_len, src)?;
    let dst_view = core.ub.view(dst_addr, dst_len, dst)?;
    core.ub.load_bytes(&src_view, input)?;
    if let Some(p) = prior {
        core.ub.load_bytes(&dst_view, p)?;
    }
    let report = match mask {
        None => {
            core.cast_count_views(dst_view, src_view, round, call.count.unwrap_or(0) as usize)?
        }
        Some(m) => core.cast_views(dst_view, src_view, round, m, repeat, params)?,
    };
    Ok(CallOutcome {
        product,
        api: Api::LocalTensor,
        dst_dtype: dst,
        dst: core.ub.view_bytes(&dst_view).to_vec(),
        dst_len,
        written: report.written,
        steps: report.repeats,
    })
}

fn run_reg(
    call: &CastCall,
    src: DType,
    dst: DType,
    input: &[u8],
) -> Result<CallOutcome, AscendError> {
    if !input.len().is_multiple_of(VL_BYTES) {
        return Err(AscendError::BufferSize {
            what: "Reg API input (whole 256-byte registers)",
            expected: input.len().next_multiple_of(VL_BYTES),
            got: input.len(),
        });
    }
    let cast_trait = CastTrait {
        layout: call.layout,
        sat: call.sat,
        merge: call.merge,
        round: call.round.mode(),
    };
    let layout = call.layout;
    let ctrl = call.ctrl()?;
    let options = call.options();
    // The mask counts elements of the wider type, like UpdateMask<wider>(count).
    let wide = if src.size_bits() >= dst.size_bits() {
        src
    } else {
        dst
    };
    let registers = input.len() / VL_BYTES;
    let mut remaining = call.count.map_or(u64::MAX, |c| c) as usize;
    let mut out = Vec::with_capacity(registers * VL_BYTES);
    let mut written = Vec::new();
    for r in 0..registers {
        let mut mask = MaskReg::none();
        let n = remaining.min(lanes(wide));
        for i in 0..n {
            mask.select(wide, i);
        }
        remaining -= n;
        let mut chunk = [0u8; VL_BYTES];
        chunk.copy_from_slice(&input[r * VL_BYTES..(r + 1) * VL_BYTES]);
        let bytes = cast_reg_bytes(dst, src, &chunk, &mask, &cast_trait, &ctrl, &options)?;
        let per = lanes(dst);
        let mut lanes_written: Vec<usize> =
            lane_map(src, dst, layout, &mask, options.widening_mask)
                .into_iter()
                .map(|(d, _)| r * per + d)
                .collect();
        lanes_written.sort_unstable();
        written.extend(lanes_written);
        out.extend_from_slice(&bytes);
    }
    Ok(CallOutcome {
        product: Product::Ascend950,
        api: Api::Reg,
        dst_dtype: dst,
        dst_len: registers * lanes(dst),
        dst: out,
        written,
        steps: registers,
    })
}
