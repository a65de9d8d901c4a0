//! `npusim tour`: cast the worked examples of the vendor documentation and check every bit.
//!
//! The cases are a table: one [`Case`] per row, built with [`c`] on one line each, so adding a
//! case is adding a row. [`check`] casts one case and [`run_cases`] prints a table of outcomes;
//! both take any slice of cases, so a vendor crate's cases (e.g. an Ascend profile's) can reuse
//! them, with [`Rule::Custom`] for casts that a plain [`CastPolicy`] cannot express.
//!
//! The rows come from `shared/spec/goldens/ascend_goldens.json` (ids `Gnnn`): here every purely
//! numeric case that the library's plain policies express; the ones that need an Ascend rule
//! run through npusim-ascend in `tour_ascend`. [`PENDING`] lists any golden left out (none).
//!
//! Saturation column mapping: `default(SAT)` and `SAT` are [`CastPolicy::saturating`];
//! `NO_SAT` is [`CastPolicy::non_saturating`], which for float destinations is exactly
//! [`CastPolicy::new`] (IEEE overflow) and for integer destinations wraps, as the seeds' NO_SAT
//! integer cases (G146, G150) require; `n/a` (fp4 destinations, which have neither Inf nor NaN)
//! is [`CastPolicy::new`] (the library's IEEE default, which gives ±max and 0 there); `SAT/NO_SAT` (G149) is one row per policy.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_numerics::Format::{self, *};
use npusim_numerics::{CastPolicy, RoundMode, convert};

/// Options of `npusim tour`.
#[derive(Debug, Args)]
pub struct TourArgs {
    /// Print only the failing cases (and the summary).
    #[arg(long)]
    pub failures_only: bool,
}

/// How a case's cast is done.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// [`CastPolicy::saturating`]: the seeds' `SAT` / `default(SAT)`.
    Sat,
    /// [`CastPolicy::non_saturating`]: the seeds' `NO_SAT` (IEEE overflow, integers wrap).
    NoSat,
    /// [`CastPolicy::new`]: IEEE floats, saturating integers.
    Ieee,
    /// Any other cast, e.g. a vendor profile's: `cast` returns the destination code.
    Custom {
        /// Short name shown in the policy column.
        name: &'static str,
        /// The cast.
        cast: fn(&Case) -> u64,
    },
}

impl Rule {
    /// Name shown in the policy column.
    pub const fn name(&self) -> &'static str {
        match self {
            Rule::Sat => "sat",
            Rule::NoSat => "no_sat",
            Rule::Ieee => "ieee",
            Rule::Custom { name, .. } => name,
        }
    }

    /// The library policy of this rule with `mode`, if it is a plain policy.
    pub fn policy(&self, mode: RoundMode) -> Option<CastPolicy> {
        match self {
            Rule::Sat => Some(CastPolicy::saturating(mode)),
            Rule::NoSat => Some(CastPolicy::non_saturating(mode)),
            Rule::Ieee => Some(CastPolicy::new(mode)),
            Rule::Custom { .. } => None,
        }
    }
}

/// One worked example: cast `src_bits` of `src` to `dst` and expect `expected`.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// Id in the seeds' golden table (`G006`).
    pub id: &'static str,
    /// Where the example comes from.
    pub what: &'static str,
    /// Source format.
    pub src: Format,
    /// Source code.
    pub src_bits: u64,
    /// Destination format.
    pub dst: Format,
    /// Rounding mode.
    pub mode: RoundMode,
    /// Policy (saturation) of the cast.
    pub rule: Rule,
    /// Expected destination code.
    pub expected: u64,
    /// Remark shown under the case (empty for none).
    pub note: &'static str,
}

/// Builds a [`Case`]: one table row.
#[allow(clippy::too_many_arguments)]
pub const fn c(
    id: &'static str,
    what: &'static str,
    src: Format,
    src_bits: u64,
    dst: Format,
    mode: RoundMode,
    rule: Rule,
    expected: u64,
    note: &'static str,
) -> Case {
    Case {
        id,
        what,
        src,
        src_bits,
        dst,
        mode,
        rule,
        expected,
        note,
    }
}

/// Cases that need a rule the library's plain policies do not express.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    /// The golden ids.
    pub ids: &'static str,
    /// What they need.
    pub why: &'static str,
}

pub(crate) const RINT: RoundMode = RoundMode::Rint;
pub(crate) const ROUND: RoundMode = RoundMode::Round;
pub(crate) const FLOOR: RoundMode = RoundMode::Floor;
pub(crate) const CEIL: RoundMode = RoundMode::Ceil;
pub(crate) const TRUNC: RoundMode = RoundMode::Trunc;
pub(crate) const ODD: RoundMode = RoundMode::Odd;
pub(crate) const NONE: RoundMode = RoundMode::None;
use Rule::{Ieee, NoSat, Sat};

/// The built-in cases (from `ascend_goldens.json`).
#[rustfmt::skip]
pub static CASES: &[Case] = &[
    c("G006", "S2 float->half", F32, 0x3f001000, F16, RINT, Sat, 0x3800, ""),
    c("G007", "S2 float->half", F32, 0x3f001000, F16, FLOOR, Sat, 0x3800, ""),
    c("G008", "S2 float->half", F32, 0x3f001000, F16, CEIL, Sat, 0x3801, ""),
    c("G009", "S2 float->half", F32, 0x3f001000, F16, ROUND, Sat, 0x3801, ""),
    c("G010", "S2 float->half", F32, 0x3f001000, F16, TRUNC, Sat, 0x3800, ""),
    c("G011", "S2 float->half", F32, 0x3f001000, F16, ODD, Sat, 0x3801, ""),
    c("G012", "S2 float->int64_t", F32, 0x4a800001, I64, RINT, Sat, 0x400000, ""),
    c("G013", "S2 float->int64_t", F32, 0x4a800001, I64, FLOOR, Sat, 0x400000, ""),
    c("G014", "S2 float->int64_t", F32, 0x4a800001, I64, CEIL, Sat, 0x400001, ""),
    c("G015", "S2 float->int64_t", F32, 0x4a800001, I64, ROUND, Sat, 0x400001, ""),
    c("G016", "S2 float->int64_t", F32, 0x4a800001, I64, TRUNC, Sat, 0x400000, ""),
    c("G017", "S2 float->int32_t", F32, 0x4a800001, I32, RINT, Sat, 0x400000, ""),
    c("G018", "S2 float->int32_t", F32, 0x4a800001, I32, FLOOR, Sat, 0x400000, ""),
    c("G019", "S2 float->int32_t", F32, 0x4a800001, I32, CEIL, Sat, 0x400001, ""),
    c("G020", "S2 float->int32_t", F32, 0x4a800001, I32, ROUND, Sat, 0x400001, ""),
    c("G021", "S2 float->int32_t", F32, 0x4a800001, I32, TRUNC, Sat, 0x400000, ""),
    c("G022", "S2 float->int16 (sat)", F32, 0x4a800001, I16, RINT, Sat, 0x7fff, ""),
    c("G023", "S2 float->int16 (sat)", F32, 0x4a800001, I16, FLOOR, Sat, 0x7fff, ""),
    c("G024", "S2 float->int16 (sat)", F32, 0x4a800001, I16, CEIL, Sat, 0x7fff, ""),
    c("G025", "S2 float->int16 (sat)", F32, 0x4a800001, I16, ROUND, Sat, 0x7fff, ""),
    c("G026", "S2 float->int16 (sat)", F32, 0x4a800001, I16, TRUNC, Sat, 0x7fff, ""),
    c("G027", "S2 float->bf16", F32, 0x3f00a000, BF16, RINT, Sat, 0x3f01, ""),
    c("G028", "S2 float->bf16", F32, 0x3f00a000, BF16, FLOOR, Sat, 0x3f00, ""),
    c("G029", "S2 float->bf16", F32, 0x3f00a000, BF16, CEIL, Sat, 0x3f01, ""),
    c("G030", "S2 float->bf16", F32, 0x3f00a000, BF16, ROUND, Sat, 0x3f01, ""),
    c("G031", "S2 float->bf16", F32, 0x3f00a000, BF16, TRUNC, Sat, 0x3f00, ""),
    c("G032", "S2 half->float", F16, 0x3dff, F32, NONE, Sat, 0x3fbfe000, ""),
    c("G033", "S2 half->int32", F16, 0xbe00, I32, RINT, Sat, 0xfffffffe, ""),
    c("G034", "S2 half->int32", F16, 0xbe00, I32, FLOOR, Sat, 0xfffffffe, ""),
    c("G035", "S2 half->int32", F16, 0xbe00, I32, CEIL, Sat, 0xffffffff, ""),
    c("G036", "S2 half->int32", F16, 0xbe00, I32, ROUND, Sat, 0xfffffffe, ""),
    c("G037", "S2 half->int32", F16, 0xbe00, I32, TRUNC, Sat, 0xffffffff, ""),
    c("G038", "S2 half->int16", F16, 0x57f8, I16, RINT, Sat, 0x80, ""),
    c("G039", "S2 half->int16", F16, 0x57f8, I16, FLOOR, Sat, 0x7f, ""),
    c("G040", "S2 half->int16", F16, 0x57f8, I16, CEIL, Sat, 0x80, ""),
    c("G041", "S2 half->int16", F16, 0x57f8, I16, ROUND, Sat, 0x80, ""),
    c("G042", "S2 half->int16", F16, 0x57f8, I16, TRUNC, Sat, 0x7f, ""),
    c("G043", "S2 half->int8 (sat)", F16, 0x57f8, I8, RINT, Sat, 0x7f, "RINT listed in seed text but training-series table has no RINT for this pair"),
    c("G044", "S2 half->int8 (sat)", F16, 0x57f8, I8, FLOOR, Sat, 0x7f, ""),
    c("G045", "S2 half->int8 (sat)", F16, 0x57f8, I8, CEIL, Sat, 0x7f, ""),
    c("G046", "S2 half->int8 (sat)", F16, 0x57f8, I8, ROUND, Sat, 0x7f, ""),
    c("G047", "S2 half->int8 (sat)", F16, 0x57f8, I8, TRUNC, Sat, 0x7f, ""),
    c("G048", "S2 half->uint8", F16, 0x3f00, U8, RINT, Sat, 0x2, ""),
    c("G049", "S2 half->uint8", F16, 0x3f00, U8, FLOOR, Sat, 0x1, ""),
    c("G050", "S2 half->uint8", F16, 0x3f00, U8, CEIL, Sat, 0x2, ""),
    c("G051", "S2 half->uint8", F16, 0x3f00, U8, ROUND, Sat, 0x2, ""),
    c("G052", "S2 half->uint8", F16, 0x3f00, U8, TRUNC, Sat, 0x1, ""),
    c("G053", "S2 half->int4 (nibble)", F16, 0x3e00, I4, RINT, Sat, 0x2, ""),
    c("G054", "S2 half->int4 (nibble)", F16, 0x3e00, I4, FLOOR, Sat, 0x1, ""),
    c("G055", "S2 half->int4 (nibble)", F16, 0x3e00, I4, CEIL, Sat, 0x2, ""),
    c("G056", "S2 half->int4 (nibble)", F16, 0x3e00, I4, ROUND, Sat, 0x2, ""),
    c("G057", "S2 half->int4 (nibble)", F16, 0x3e00, I4, TRUNC, Sat, 0x1, ""),
    c("G058", "S2 bf16->float", BF16, 0x3fbe, F32, NONE, Sat, 0x3fbe0000, ""),
    c("G059", "S2 bf16->int32", BF16, 0x4281, I32, RINT, Sat, 0x40, ""),
    c("G060", "S2 bf16->int32", BF16, 0x4281, I32, FLOOR, Sat, 0x40, ""),
    c("G061", "S2 bf16->int32", BF16, 0x4281, I32, CEIL, Sat, 0x41, ""),
    c("G062", "S2 bf16->int32", BF16, 0x4281, I32, ROUND, Sat, 0x41, ""),
    c("G063", "S2 bf16->int32", BF16, 0x4281, I32, TRUNC, Sat, 0x40, ""),
    c("G064", "S2 int4->half", I4, 0x1, F16, NONE, Sat, 0x3c00, ""),
    c("G065", "S2 uint8->half", U8, 0x1, F16, NONE, Sat, 0x3c00, ""),
    c("G066", "S2 int8->half", I8, 0xff, F16, NONE, Sat, 0xbc00, ""),
    c("G067", "S2 int16->half", I16, 0x1002, F16, RINT, Sat, 0x6c00, ""),
    c("G068", "S2 int16->half", I16, 0x1002, F16, FLOOR, Sat, 0x6c00, ""),
    c("G069", "S2 int16->half", I16, 0x1002, F16, CEIL, Sat, 0x6c01, ""),
    c("G070", "S2 int16->half", I16, 0x1002, F16, ROUND, Sat, 0x6c01, ""),
    c("G071", "S2 int16->half", I16, 0x1002, F16, TRUNC, Sat, 0x6c00, ""),
    c("G072", "S2 int16->float", I16, 0x7fff, F32, NONE, Sat, 0x46fffe00, ""),
    c("G073", "S2 int32->float (training series: only CAST_NONE=RINT exists)", I32, 0x2000003, F32, RINT, Sat, 0x4c000001, ""),
    c("G074", "S2 int32->float (training series: only CAST_NONE=RINT exists)", I32, 0x2000003, F32, FLOOR, Sat, 0x4c000000, ""),
    c("G075", "S2 int32->float (training series: only CAST_NONE=RINT exists)", I32, 0x2000003, F32, CEIL, Sat, 0x4c000001, ""),
    c("G076", "S2 int32->float (training series: only CAST_NONE=RINT exists)", I32, 0x2000003, F32, ROUND, Sat, 0x4c000001, ""),
    c("G077", "S2 int32->float (training series: only CAST_NONE=RINT exists)", I32, 0x2000003, F32, TRUNC, Sat, 0x4c000000, ""),
    c("G078", "S2 int32->int64", I32, 0x7fffffff, I64, NONE, Sat, 0x7fffffff, ""),
    c("G079", "S2 int32->int16 (sat)", I32, 0x7fffffff, I16, NONE, Sat, 0x7fff, ""),
    c("G080", "S2 int64->int32 (sat)", I64, 0x80000000, I32, NONE, Sat, 0x7fffffff, ""),
    c("G081", "S2 int64->float", I64, 0x800001800, F32, RINT, Sat, 0x51000002, ""),
    c("G082", "S2 int64->float", I64, 0x800001800, F32, FLOOR, Sat, 0x51000001, ""),
    c("G083", "S2 int64->float", I64, 0x800001800, F32, CEIL, Sat, 0x51000002, ""),
    c("G084", "S2 int64->float", I64, 0x800001800, F32, ROUND, Sat, 0x51000002, ""),
    c("G085", "S2 int64->float", I64, 0x800001800, F32, TRUNC, Sat, 0x51000001, ""),
    c("G086", "S1 Table7 float->int", F32, 0x40533333, I32, RINT, Sat, 0x3, ""),
    c("G087", "S1 Table7 float->int", F32, 0x40bccccd, I32, RINT, Sat, 0x6, ""),
    c("G088", "S1 Table7 float->int", F32, 0x40b00000, I32, RINT, Sat, 0x6, ""),
    c("G089", "S1 Table7 float->int", F32, 0x40900000, I32, RINT, Sat, 0x4, ""),
    c("G090", "S1 Table7 float->int", F32, 0xc019999a, I32, RINT, Sat, 0xfffffffe, ""),
    c("G091", "S1 Table7 float->int", F32, 0xc0666666, I32, RINT, Sat, 0xfffffffc, ""),
    c("G092", "S1 Table7 float->int", F32, 0x40533333, I32, ROUND, Sat, 0x3, ""),
    c("G093", "S1 Table7 float->int", F32, 0x40bccccd, I32, ROUND, Sat, 0x6, ""),
    c("G094", "S1 Table7 float->int", F32, 0x40b00000, I32, ROUND, Sat, 0x6, ""),
    c("G095", "S1 Table7 float->int", F32, 0xc019999a, I32, ROUND, Sat, 0xfffffffe, ""),
    c("G096", "S1 Table7 float->int", F32, 0xc0666666, I32, ROUND, Sat, 0xfffffffc, ""),
    c("G097", "S1 Table7 float->int", F32, 0xc0d00000, I32, ROUND, Sat, 0xfffffff9, ""),
    c("G098", "S1 Table7 float->int", F32, 0x404ccccd, I32, FLOOR, Sat, 0x3, ""),
    c("G099", "S1 Table7 float->int", F32, 0x40fccccd, I32, FLOOR, Sat, 0x7, ""),
    c("G100", "S1 Table7 float->int", F32, 0xc0933333, I32, FLOOR, Sat, 0xfffffffb, ""),
    c("G101", "S1 Table7 float->int", F32, 0xc0466666, I32, FLOOR, Sat, 0xfffffffc, ""),
    c("G102", "S1 Table7 float->int", F32, 0x404ccccd, I32, CEIL, Sat, 0x4, ""),
    c("G103", "S1 Table7 float->int", F32, 0x40fccccd, I32, CEIL, Sat, 0x8, ""),
    c("G104", "S1 Table7 float->int", F32, 0xc0933333, I32, CEIL, Sat, 0xfffffffc, ""),
    c("G105", "S1 Table7 float->int", F32, 0xc0466666, I32, CEIL, Sat, 0xfffffffd, ""),
    c("G106", "S1 Table7 float->int", F32, 0x404ccccd, I32, TRUNC, Sat, 0x3, ""),
    c("G107", "S1 Table7 float->int", F32, 0x40fccccd, I32, TRUNC, Sat, 0x7, ""),
    c("G108", "S1 Table7 float->int", F32, 0xc0933333, I32, TRUNC, Sat, 0xfffffffc, ""),
    c("G109", "S1 Table7 float->int", F32, 0xc0466666, I32, TRUNC, Sat, 0xfffffffd, ""),
    c("G110", "S1 Table8 float->half ODD", F32, 0x42f67777, F16, ODD, Sat, 0x57b3, ""),
    c("G111", "S1 Table8 float->bf16", F32, 0x434dc000, BF16, RINT, Sat, 0x434e, ""),
    c("G112", "S1 Table8 bf16->half (subnormal out)", BF16, 0x3643, F16, RINT, Sat, 0x31, ""),
    c("G113", "S1 Table8 bf16->half (subnormal out)", BF16, 0x3643, F16, FLOOR, Sat, 0x30, ""),
    c("G114", "S1 Table8 bf16->half (subnormal out)", BF16, 0x3643, F16, CEIL, Sat, 0x31, ""),
    c("G115", "S1 Table8 bf16->half (subnormal out)", BF16, 0x3643, F16, ROUND, Sat, 0x31, ""),
    c("G116", "S1 Table8 bf16->half (subnormal out)", BF16, 0x3643, F16, TRUNC, Sat, 0x30, ""),
    c("G117", "S1 Table8 half->bf16", F16, 0x3031, BF16, ROUND, Sat, 0x3e06, ""),
    c("G118", "S1 Table8 float->e4m3", F32, 0x3f9dd2f2, F8E4M3FN, RINT, Sat, 0x3a, ""),
    c("G119", "S1 Table8 float->e5m2", F32, 0x3f9dd2f2, F8E5M2, RINT, Sat, 0x3d, ""),
    c("G120", "S1 Table8 bf16->e2m1", BF16, 0x3f43, F4E2M1, RINT, Sat, 0x2, "seed text says 0.5 (carry not applied); the exact RINT result is 1.0 (0x2)"),
    c("G121", "S1 Table8 bf16->e1m2", BF16, 0x3f43, F4E1M2, RINT, Sat, 0x3, ""),
    c("G122", "S1 e4m3 mantissa snippet", F32, 0x3fb26000, F8E4M3FN, RINT, Sat, 0x3b, ""),
    c("G123", "S1 e4m3 mantissa snippet", F32, 0x3fba6000, F8E4M3FN, RINT, Sat, 0x3c, ""),
    c("G124", "S1 e4m3 mantissa snippet", F32, 0x3fa80000, F8E4M3FN, RINT, Sat, 0x3a, ""),
    c("G125", "S1 e4m3 mantissa snippet", F32, 0x3fb80000, F8E4M3FN, RINT, Sat, 0x3c, ""),
    c("G126", "S1 e5m2 mantissa snippet", F32, 0x3fa26000, F8E5M2, RINT, Sat, 0x3d, "4th snippet in seed has a 22-digit mantissa typo; 23-digit form used"),
    c("G127", "S1 e5m2 mantissa snippet", F32, 0x3fb4c000, F8E5M2, RINT, Sat, 0x3e, "4th snippet in seed has a 22-digit mantissa typo; 23-digit form used"),
    c("G128", "S1 e5m2 mantissa snippet", F32, 0x3f900000, F8E5M2, RINT, Sat, 0x3c, "4th snippet in seed has a 22-digit mantissa typo; 23-digit form used"),
    c("G129", "S1 e5m2 mantissa snippet", F32, 0x3fb00000, F8E5M2, RINT, Sat, 0x3e, "4th snippet in seed has a 22-digit mantissa typo; 23-digit form used"),
    c("G130", "S1 float->bf16 mantissa snippet", F32, 0x3f902080, BF16, RINT, Sat, 0x3f90, ""),
    c("G131", "S1 float->bf16 mantissa snippet", F32, 0x3f988000, BF16, RINT, Sat, 0x3f98, ""),
    c("G132", "S1 float->bf16 mantissa snippet", F32, 0x3f998000, BF16, RINT, Sat, 0x3f9a, ""),
    c("G133", "S1 float->bf16 mantissa snippet", F32, 0x3f90a080, BF16, RINT, Sat, 0x3f91, ""),
    c("G134", "S1 float->bf16 mantissa snippet", F32, 0x3f988000, BF16, ROUND, Sat, 0x3f99, ""),
    c("G135", "S1 float->bf16 mantissa snippet", F32, 0x3f902080, BF16, CEIL, Sat, 0x3f91, ""),
    c("G136", "S1 float->bf16 mantissa snippet", F32, 0x3f902080, BF16, TRUNC, Sat, 0x3f90, ""),
    c("G137", "S1 float->bf16 mantissa snippet", F32, 0x3f902080, BF16, FLOOR, Sat, 0x3f90, ""),
    c("G138", "S1 float->bf16 negative snippet", F32, 0xbf988000, BF16, FLOOR, Sat, 0xbf99, ""),
    c("G139", "S1 float->bf16 negative snippet", F32, 0xbf988000, BF16, CEIL, Sat, 0xbf98, ""),
    c("G140", "S1 half->bf16 mantissa snippet", F16, 0x3dd3, BF16, RINT, Sat, 0x3fba, ""),
    c("G141", "S1 half->bf16 mantissa snippet", F16, 0x3dd7, BF16, RINT, Sat, 0x3fbb, ""),
    c("G142", "S1 half->bf16 mantissa snippet", F16, 0x3dd4, BF16, RINT, Sat, 0x3fba, ""),
    c("G143", "S1 half->bf16 mantissa snippet", F16, 0x3dd4, BF16, ROUND, Sat, 0x3fbb, ""),
    c("G144", "S1 half->bf16 mantissa snippet", F16, 0x3dd3, BF16, CEIL, Sat, 0x3fbb, ""),
    c("G145", "S1 half->bf16 mantissa snippet", F16, 0x3dd3, BF16, TRUNC, Sat, 0x3fba, ""),
    c("G146", "S1 constraints float->int NO_SAT wrap", F16, 0x5c04, U8, RINT, NoSat, 0x1, ""),
    c("G147", "S1 constraints float->int SAT", F16, 0x5c04, U8, RINT, Sat, 0xff, ""),
    c("G148", "S1 constraints -inf SAT", F16, 0xfc00, U8, RINT, Sat, 0x0, ""),
    c("G149", "S1 constraints NaN->0 (both modes)", F16, 0x7e00, U8, RINT, Sat, 0x0, ""),
    c("G149", "S1 constraints NaN->0 (both modes)", F16, 0x7e00, U8, RINT, NoSat, 0x0, ""),
    c("G150", "S1 constraints int->int NO_SAT wrap", I32, 0x100, U8, NONE, NoSat, 0x0, ""),
    c("G153", "S1 constraints fp4 inf->max", BF16, 0x7f80, F4E2M1, RINT, Ieee, 0x7, ""),
    c("G154", "S1 constraints fp4 -inf->-max", BF16, 0xff80, F4E1M2, RINT, Ieee, 0xf, ""),
    c("G155", "S1 constraints fp4 NaN->0", BF16, 0x7fc0, F4E2M1, RINT, Ieee, 0x0, ""),
    c("G156", "S1 constraints e4m3 NO_SAT inf->NaN (NaN sign bit unspecified)", F32, 0x7f800000, F8E4M3FN, RINT, NoSat, 0x7f, ""),
    c("G158", "derived: HiF8 TA", F32, 0x3fe00000, HiF8, ROUND, NoSat, 0xe, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G159", "derived: HiF8 TA", F32, 0x41600000, HiF8, ROUND, NoSat, 0x2e, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G160", "derived: HiF8 TA", F32, 0x3f000000, HiF8, ROUND, NoSat, 0x18, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G161", "derived: HiF8 TA", F32, 0xbf800000, HiF8, ROUND, NoSat, 0x88, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G162", "derived: HiF8 TA", F32, 0x41880000, HiF8, ROUND, NoSat, 0x40, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G163", "derived: HiF8 TA", F32, 0x41900000, HiF8, ROUND, NoSat, 0x41, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G164", "derived: HiF8 TA", F32, 0x47000000, HiF8, ROUND, NoSat, 0x6e, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G165", "derived: HiF8 TA", F32, 0x471fff00, HiF8, ROUND, NoSat, 0x6e, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G166", "derived: HiF8 TA", F32, 0x34800000, HiF8, ROUND, NoSat, 0x1, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G167", "derived: HiF8 TA", F32, 0x34000000, HiF8, ROUND, NoSat, 0x1, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G168", "derived: HiF8 TA", F32, 0x33800000, HiF8, ROUND, NoSat, 0x0, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G169", "derived: HiF8 TA", F32, 0x37400000, HiF8, ROUND, NoSat, 0x7, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G170", "derived: HiF8 TA", F32, 0x37c00000, HiF8, ROUND, NoSat, 0x7e, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G171", "derived: HiF8 TA", F32, 0x3f880000, HiF8, ROUND, NoSat, 0x9, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G172", "derived: HiF8 TA", F32, 0x41780000, HiF8, ROUND, NoSat, 0x40, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G173", "derived: HiF8 TA", F32, 0x80000000, HiF8, ROUND, NoSat, 0x0, "cross-checked en_dtypes 0.0.4 + cann/ge"),
    c("G174", "derived: HiF8 overflow NO_SAT", F32, 0x47200000, HiF8, ROUND, NoSat, 0x6f, ""),
    c("G175", "derived: HiF8 overflow SAT (inferred)", F32, 0x47200000, HiF8, ROUND, Sat, 0x6e, ""),
    c("G176", "derived: HiF8 overflow NO_SAT", F32, 0x49742400, HiF8, ROUND, NoSat, 0x6f, ""),
    c("G177", "derived: HiF8 overflow SAT (inferred)", F32, 0x49742400, HiF8, ROUND, Sat, 0x6e, ""),
    c("G178", "derived: HiF8 NaN NO_SAT", F32, 0x7fc00000, HiF8, ROUND, NoSat, 0x80, ""),
    c("G185", "repo precision_conversion.md bf16->e2m1", BF16, 0x4020, F4E2M1, RINT, Sat, 0x4, ""),
    c("G186", "repo precision_conversion.md bf16->e2m1", BF16, 0x4020, F4E2M1, FLOOR, Sat, 0x4, ""),
    c("G187", "repo precision_conversion.md bf16->e2m1", BF16, 0x4020, F4E2M1, CEIL, Sat, 0x5, ""),
    c("G188", "repo precision_conversion.md bf16->e2m1", BF16, 0x4020, F4E2M1, ROUND, Sat, 0x5, ""),
    c("G189", "repo precision_conversion.md bf16->e2m1", BF16, 0x4020, F4E2M1, TRUNC, Sat, 0x4, ""),
    c("G190", "derived (doc example wrong): 2.5 > max 1.75 saturates", BF16, 0x4020, F4E1M2, RINT, Sat, 0x7, "repo doc lists 2/3 (copied from e2m1)"),
    c("G191", "derived (doc example wrong): 2.5 > max 1.75 saturates", BF16, 0x4020, F4E1M2, FLOOR, Sat, 0x7, "repo doc lists 2/3 (copied from e2m1)"),
    c("G192", "derived (doc example wrong): 2.5 > max 1.75 saturates", BF16, 0x4020, F4E1M2, CEIL, Sat, 0x7, "repo doc lists 2/3 (copied from e2m1)"),
    c("G193", "derived (doc example wrong): 2.5 > max 1.75 saturates", BF16, 0x4020, F4E1M2, ROUND, Sat, 0x7, "repo doc lists 2/3 (copied from e2m1)"),
    c("G194", "derived (doc example wrong): 2.5 > max 1.75 saturates", BF16, 0x4020, F4E1M2, TRUNC, Sat, 0x7, "repo doc lists 2/3 (copied from e2m1)"),
    c("G209", "derived: jamming (ODD) vs RINT tie", F32, 0x3f003000, F16, RINT, Sat, 0x3802, ""),
    c("G210", "derived: jamming (ODD) vs RINT tie", F32, 0x3f003000, F16, ODD, Sat, 0x3801, ""),
    c("G211", "derived: jamming (ODD) vs RINT tie", F32, 0x3f003000, F16, ROUND, Sat, 0x3802, ""),
    c("G212", "derived: jamming (ODD) vs RINT tie", F32, 0x3f003000, F16, TRUNC, Sat, 0x3801, ""),
    c("G213", "derived: ODD keeps odd LSB even when discarded part > half", F32, 0x3f003010, F16, ODD, Sat, 0x3801, ""),
];

/// Golden cases not run by the tour (none left: the Ascend ones are in `tour_ascend`).
pub static PENDING: &[Pending] = &[];

/// The result of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The destination code the cast produced.
    pub got: u64,
    /// Whether it is the expected one.
    pub pass: bool,
}

/// Casts one case and compares with its expected code.
pub fn check(case: &Case) -> Outcome {
    let got = match case.rule.policy(case.mode) {
        Some(policy) => convert(case.src_bits, case.src, case.dst, &policy),
        None => match case.rule {
            Rule::Custom { cast, .. } => cast(case),
            _ => 0,
        },
    } & case.dst.code_mask();
    Outcome {
        got,
        pass: got == case.expected & case.dst.code_mask(),
    }
}

/// A code with its value: `0x3800 (0.5)`.
pub fn show(format: Format, code: u64) -> String {
    let digits = format.bits().div_ceil(4) as usize;
    let v = format.decode(code).to_f64();
    let value = if v.is_nan() {
        "NaN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else if v == 0.0 || (1e-4..1e16).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    };
    format!("{code:#0w$x} ({value})", w = digits + 2)
}

/// One case as a line of the tour's table (plus a note line when it has one).
pub fn render(case: &Case, outcome: &Outcome) -> String {
    let mut s = format!(
        "{} {:<5} {:<8} {:<26} -> {:<8} {:<6} {:<6} expected {:<26} got {}",
        if outcome.pass { "PASS" } else { "FAIL" },
        case.id,
        case.src.name(),
        show(case.src, case.src_bits),
        case.dst.name(),
        case.mode.name(),
        case.rule.name(),
        show(case.dst, case.expected),
        show(case.dst, outcome.got),
    );
    if !case.note.is_empty() {
        let _ = write!(s, "\n           note: {}", case.note);
    }
    s
}

/// Checks every case, prints the table, the pending list and the PASS/FAIL count; returns the
/// number of failures.
pub fn run_cases(cases: &[Case], pending: &[Pending], failures_only: bool) -> usize {
    let mut failed = 0;
    let mut group = "";
    for case in cases {
        let outcome = check(case);
        if !outcome.pass {
            failed += 1;
        }
        if !outcome.pass || !failures_only {
            if case.what != group {
                println!("-- {}", case.what);
                group = case.what;
            }
            println!("{}", render(case, &outcome));
        }
    }
    if !pending.is_empty() {
        println!();
        println!("pending:");
        for p in pending {
            println!("  {:<22} {}", p.ids, p.why);
        }
    }
    println!();
    println!(
        "{} cases: {} PASS, {failed} FAIL",
        cases.len(),
        cases.len() - failed
    );
    failed
}

/// Runs `npusim tour`.
pub fn run(args: TourArgs) -> Result<ExitCode> {
    println!(
        "npusim tour: worked examples of the vendor documentation (ids of shared/spec/goldens)"
    );
    println!();
    println!("== numerics: plain cast policies");
    let mut failed = run_cases(CASES, PENDING, args.failures_only);
    println!();
    println!("== Ascend: product profiles (npusim-ascend)");
    failed += run_cases(crate::tour_ascend::ASCEND_CASES, &[], args.failures_only);
    println!();
    failed += crate::tour_ascend::run_lane_examples();
    println!();
    println!(
        "tour: {}",
        if failed == 0 {
            "all cases PASS".to_string()
        } else {
            format!("{failed} FAIL")
        }
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The rendered lines of the cases that fail (for tests).
#[cfg(test)]
pub fn failing_lines(cases: &[Case]) -> Vec<String> {
    cases
        .iter()
        .filter_map(|case| {
            let o = check(case);
            (!o.pass).then(|| render(case, &o))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_case_passes() {
        let failing = failing_lines(CASES);
        assert!(failing.is_empty(), "{}", failing.join("\n"));
    }

    #[test]
    fn custom_rules_are_called() {
        let case = c(
            "X1",
            "test",
            F32,
            0,
            F16,
            RINT,
            Rule::Custom {
                name: "zero",
                cast: |_| 7,
            },
            7,
            "",
        );
        assert!(check(&case).pass);
        assert_eq!(show(F16, 0x3800), "0x3800 (0.5)");
        assert_eq!(show(F4E2M1, 0x2), "0x2 (1)");
    }
}
