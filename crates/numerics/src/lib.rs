//! Bit-exact number formats, rounding and cast policies: the numeric heart of npusim.
//!
//! Every conversion decodes its source to an exact value ([`Exact`]) and rounds it once to the
//! destination ([`convert()`]; the format table is [`FORMATS`], every ml_dtypes format plus
//! HiFloat8 and fp4 e1m2), under a [`CastPolicy`] that says how to round
//! ([`RoundMode`]) and what overflow, ±Inf and NaN become. The crate knows no vendor:
//! vendor crates express their hardware's rules as policies.
//!
//! # Decisions where the peers disagree
//!
//! The default policy is IEEE 754 behaviour (what `rustc_apfloat`, numpy and ml_dtypes share
//! where they support a format). Where the peers disagree or say nothing, npusim decides:
//!
//! * **Ties to even means the even code.** For e8m0 (no mantissa) and HiF8's mantissa-less
//!   band, `rint` picks the neighbour whose code ends in 0: f32 3.0 → e8m0 is 2 (0x80), 6.0 is
//!   8 (0x82). ml_dtypes and torch round e8m0 ties up (`round` here).
//! * **e8m0** has no zero and no sign: 0 and every value below 2^-127 give 0x00 (2^-127),
//!   negative values and -Inf give NaN (0xFF) unless the policy says to drop the sign;
//!   ml_dtypes maps 0 to NaN.
//! * **NaN into a format without NaN** (fp4, fp6) gives +0; ml_dtypes flips the sign bit.
//! * **fnuz formats** (e4m3fnuz, e5m2fnuz, e4m3b11fnuz): the one NaN code 0x80 decodes as an
//!   unsigned NaN (ml_dtypes reads it as a negative one); every NaN encodes as 0x80 whatever
//!   its sign; a negative value that rounds to zero gives +0 (there is no -0).
//! * **NaN payloads:** the sign is kept, the quiet bit set and the top payload bits kept.
//! * **Round-to-odd never overflows to Inf:** a finite value beyond max gives ±max, as
//!   round-toward-zero does (otherwise e4m3fn's jammed 0x7E would become the NaN code 0x7F).
//! * **Directed modes at overflow** follow IEEE: `floor` of a positive overflow is +max, of a
//!   negative one -Inf; `ceil` the mirror; `trunc` ±max.
//! * **Integer destinations** saturate by default (`IntOverflow::Wrap` keeps the low bits);
//!   NaN gives 0 and ±Inf the extremes under both.
//! * **A cast to the same format is a copy**, whatever the policy.
//! * **No double rounding:** f64, i64 and u64 sources are rounded once (ml_dtypes narrows
//!   f64 and u64 through f32 first).
//! * **Float to narrow integer** (i2, u2, u4, ...) rounds by the mode and saturates by default;
//!   ml_dtypes' casts truncate and wrap like C (npusim's `non_saturating(Trunc)`).
//!
//! # What happened: the status
//!
//! Every conversion can return a [`Status`] with its code ([`convert_with_status`],
//! [`round_exact`]); bulk casts count them ([`cast_elements_with_status`]). The routine
//! classifies what rounding cut off into a [`Loss`] class, lets the mode decide, and encodes:
//! binary floats, HiF8's tapered grid and integers are grids of one routine.
//! [`round_to_integral`] and [`mul_round`] (an exact product rounded once) are built on it.
//!
//! ```
//! use npusim_numerics::{convert, cast_slice, CastPolicy, Format, RoundMode};
//! // f32 123.23333 to f16 under round-to-odd (AscendC CAST_ODD): 123.1875 (0x57B3)
//! let x = u64::from(123.23333f32.to_bits());
//! let h = convert(x, Format::F32, Format::F16, &CastPolicy::new(RoundMode::Odd));
//! assert_eq!(h, 0x57B3);
//! ```

pub mod block;
pub mod bulk;
pub mod convert;
mod encoding;
pub mod error;
pub mod exact;
pub mod format;
mod integral;
mod multiply;
pub mod policy;
pub mod round;
pub mod status;

pub use bulk::{
    BulkOptions, CastPlan, Encoded, KernelChoice, Layout, Storage, cast_elements,
    cast_elements_with_status, cast_from_f32, cast_slice, cast_to_f32, entropy, kernel_name,
    kernel_name_at,
};
pub use convert::{convert, convert_exact, convert_with_entropy, convert_with_status, round_exact};
pub use error::NumericsError;
pub use exact::Exact;
pub use format::{BinarySpec, FORMATS, Format, FormatInfo, Kind, Specials};
pub use integral::round_to_integral;
pub use multiply::mul_round;
pub use policy::{CastPolicy, InfRule, IntOverflow, NanRule, Overflow, UnsignedNegative};
pub use round::{Loss, RoundMode, Stochastic, StochasticCompare};
pub use status::{Rounded, Status, StatusCounts};
