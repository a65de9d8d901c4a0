//! The lookup kernels: results computed once by the reference routine and cached, then
//! looked up per element ([`codes`]: by the whole source code; [`f32_key`]: by an f32's top
//! 16 bits and a sticky bit; [`planes`]: byte planes of sources of at most 8 bits, and
//! [`rule`]: the arithmetic rule some of them follow).

pub(crate) mod codes;
pub(crate) mod f32_key;
pub(crate) mod planes;
pub(crate) mod rule;
