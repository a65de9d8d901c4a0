//! Bit-exact number formats, rounding and cast policies: the numeric heart of npusim.
//!
//! Every conversion decodes its source to an exact value ([`Exact`]) and rounds it once to the
//! destination ([`convert`]), under a [`CastPolicy`] that says how to round
//! ([`RoundMode`]) and what overflow, ±Inf and NaN become. The crate knows no vendor:
//! vendor crates express their hardware's rules as policies.
//!
//! ```
//! use npusim_numerics::{convert, cast_slice, CastPolicy, Format, RoundMode};
//! // f32 123.23333 to f16 under round-to-odd (AscendC CAST_ODD): 123.1875 (0x57B3)
//! let x = u64::from(123.23333f32.to_bits());
//! let h = convert(x, Format::F32, Format::F16, &CastPolicy::new(RoundMode::Odd));
//! assert_eq!(h, 0x57B3);
//! ```

pub mod bulk;
pub mod convert;
pub mod encoding;
pub mod error;
pub mod exact;
pub mod format;
pub mod policy;
pub mod round;

pub use bulk::{
    BulkOptions, Layout, Storage, cast_elements, cast_from_f32, cast_slice, cast_to_f32, entropy,
};
pub use convert::{convert, convert_exact, convert_with_entropy};
pub use error::NumericsError;
pub use exact::Exact;
pub use format::{BinarySpec, FORMATS, Format, FormatInfo, Kind, Specials};
pub use policy::{CastPolicy, InfRule, IntOverflow, NanRule, Overflow, UnsignedNegative};
pub use round::{RoundMode, Stochastic, StochasticCompare};
