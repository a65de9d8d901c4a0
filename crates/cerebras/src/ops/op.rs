//! The DSD operations of spec §4.2: operand forms, element types, per-element semantics and
//! SIMD widths (§4.7), as one table.

use std::fmt;

use npusim_numerics::Format;

use super::{fixed, fp, scale};
use crate::arch::Arch;
use crate::elem::ElemTy;

/// The element types an operand of an operation may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Any 16-bit type (raw bits).
    Raw16,
    /// Any 32-bit type (raw bits).
    Raw32,
    /// `i16` or `u16`.
    Int16,
    /// The FP16 type (`f16`).
    F16,
    /// `f32`.
    F32,
}

impl Class {
    /// Whether `ty` belongs to the class.
    pub fn admits(self, ty: ElemTy) -> bool {
        match self {
            Class::Raw16 => ty.words() == 1,
            Class::Raw32 => ty.words() == 2,
            Class::Int16 => matches!(ty, ElemTy::I16 | ElemTy::U16),
            Class::F16 => ty == ElemTy::F16,
            Class::F32 => ty == ElemTy::F32,
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Raw16 => "a 16-bit type",
            Class::Raw32 => "a 32-bit type",
            Class::Int16 => "i16 or u16",
            Class::F16 => "f16",
            Class::F32 => "f32",
        })
    }
}

macro_rules! ops {
    ($($v:ident $name:literal [$($form:literal),*] $dst:ident [$($src:ident),*] ($w2:literal, $w3:literal);)*) => {
        /// A DSD operation builtin.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $(
                #[doc = concat!("`@", $name, "`.")]
                $v,
            )*
        }

        impl Op {
            /// The builtin's name without `@`.
            pub const fn name(self) -> &'static str {
                match self { $(Op::$v => $name,)* }
            }

            /// Accepted operand forms: one letter per operand, destination first: `D` a DSD,
            /// DSR or FIFO, `S` a scalar value, `P` a pointer to a scalar.
            pub const fn forms(self) -> &'static [&'static str] {
                match self { $(Op::$v => &[$($form),*],)* }
            }

            /// Element type class of the destination.
            pub const fn dest_class(self) -> Class {
                match self { $(Op::$v => Class::$dst,)* }
            }

            /// Element type classes of the sources, in order.
            pub const fn source_classes(self) -> &'static [Class] {
                match self { $(Op::$v => &[$(Class::$src),*],)* }
            }

            /// Maximum SIMD width on `arch` (spec §4.7); 1 for the operations §4.7 does not
            /// list (`clz`, `ctz`, `popcnt`, `fmuls`, `fmacs`): one element per cycle.
            pub const fn simd_width(self, arch: Arch) -> u64 {
                match (self, arch) {
                    $((Op::$v, Arch::Wse2) => $w2, (Op::$v, Arch::Wse3) => $w3,)*
                }
            }

            /// Every operation.
            pub const ALL: &'static [Op] = &[$(Op::$v),*];
        }
    };
}

ops! {
    Mov16 "mov16" ["DD", "PD", "DS"] Raw16 [Raw16] (4, 8);
    Mov32 "mov32" ["DD", "PD", "DS"] Raw32 [Raw32] (2, 4);
    Add16 "add16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (4, 8);
    Addc16 "addc16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (1, 8);
    Sub16 "sub16" ["DDD", "DDS"] Int16 [Int16, Int16] (4, 8);
    And16 "and16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (4, 8);
    Or16 "or16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (4, 8);
    Xor16 "xor16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (4, 8);
    Sll16 "sll16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (1, 4);
    Slr16 "slr16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (1, 4);
    Sar16 "sar16" ["DDD", "DSD", "DDS"] Int16 [Int16, Int16] (1, 4);
    Clz "clz" ["DD", "DS"] Int16 [Int16] (1, 1);
    Ctz "ctz" ["DD", "DS"] Int16 [Int16] (1, 1);
    Popcnt "popcnt" ["DD", "DS"] Int16 [Int16] (1, 1);
    Fmovh "fmovh" ["DD", "PD", "DS"] F16 [F16] (4, 8);
    Fmovs "fmovs" ["DD", "PD", "DS"] F32 [F32] (2, 4);
    Faddh "faddh" ["DDD", "DSD", "DDS", "PSD"] F16 [F16, F16] (4, 8);
    Fadds "fadds" ["DDD", "DSD", "DDS", "PSD"] F32 [F32, F32] (2, 4);
    Faddhs "faddhs" ["DDD", "DSD", "DDS", "PSD"] F32 [F32, F16] (2, 4);
    Fsubh "fsubh" ["DDD", "DSD", "DDS", "PSD"] F16 [F16, F16] (4, 8);
    Fsubs "fsubs" ["DDD", "DSD", "DDS", "PSD"] F32 [F32, F32] (2, 4);
    Fmulh "fmulh" ["DDD", "DSD", "DDS", "PSD"] F16 [F16, F16] (4, 8);
    Fmuls "fmuls" ["DDD", "DSD", "DDS", "PSD"] F32 [F32, F32] (1, 1);
    Fmaxh "fmaxh" ["DDD", "DSD", "DDS", "PSD"] F16 [F16, F16] (1, 8);
    Fmaxs "fmaxs" ["DDD", "DSD", "DDS", "PSD"] F32 [F32, F32] (1, 4);
    Fnegh "fnegh" ["DD", "DS"] F16 [F16] (4, 8);
    Fnegs "fnegs" ["DD", "DS"] F32 [F32] (2, 4);
    Fabsh "fabsh" ["DD", "DS"] F16 [F16] (4, 8);
    Fabss "fabss" ["DD", "DS"] F32 [F32] (2, 4);
    Fmach "fmach" ["DDDS"] F16 [F16, F16, F16] (4, 8);
    Fmacs "fmacs" ["DDDS"] F32 [F32, F32, F32] (1, 1);
    Fmachs "fmachs" ["DDDS"] F32 [F32, F16, F16] (2, 4);
    Fh2s "fh2s" ["DD", "DS"] F32 [F16] (1, 4);
    Fs2h "fs2h" ["DD", "DS"] F16 [F32] (1, 4);
    Xp162fh "xp162fh" ["DD", "DS"] F16 [Int16] (1, 8);
    Xp162fs "xp162fs" ["DD", "DS"] F32 [Int16] (1, 4);
    Fh2xp16 "fh2xp16" ["DD", "DS", "PS"] Int16 [F16] (1, 8);
    Fs2xp16 "fs2xp16" ["DD", "DS", "PS"] Int16 [F32] (1, 4);
    Fnormh "fnormh" ["PS"] F16 [F16] (4, 8);
    Fnorms "fnorms" ["PS"] F32 [F32] (2, 4);
    Fscaleh "fscaleh" ["PSS"] F16 [F16, Int16] (4, 8);
    Fscales "fscales" ["PSS"] F32 [F32, Int16] (2, 4);
}

impl Op {
    /// Whether a pointer destination accumulates (`op(&acc, acc, dsd)`, spec §2.10) rather
    /// than keeping the last element.
    pub fn accumulates(self) -> bool {
        self.forms().contains(&"PSD")
    }

    /// Why the operation cannot run, if its semantics are undocumented (npusim does not
    /// guess them): `@fnormh` / `@fnorms` ("normalize", spec §4.2 and §14.3).
    pub fn undocumented(self) -> Option<&'static str> {
        match self {
            Op::Fnormh | Op::Fnorms => {
                Some("its semantics (\"normalize\") are undocumented, so npusim does not model it")
            }
            _ => None,
        }
    }

    /// The element result from source bits `s` (one per source, in order), FP16 = IEEE
    /// binary16.
    pub fn apply(self, s: &[u32]) -> u32 {
        self.apply_in(s, Format::F16)
    }

    /// One element of an operation that carries state from element to element: `@addc16`
    /// reads and updates `carry` ([`fixed::add_with_carry`]); every other operation is
    /// [`Op::apply_in`] and leaves `carry` alone.
    pub fn apply_carrying(self, s: &[u32], half: Format, carry: &mut u32) -> u32 {
        if self == Op::Addc16 {
            let a = s.first().copied().unwrap_or(0) as u16;
            let b = s.get(1).copied().unwrap_or(0) as u16;
            let (sum, out) = fixed::add_with_carry(a, b, *carry);
            *carry = out;
            return u32::from(sum);
        }
        self.apply_in(s, half)
    }

    /// The element result from source bits `s`, the FP16 (`h`) operations computing in
    /// `half` (binary16 or bfloat16, the `--fp16-format` of spec §1.1).
    pub fn apply_in(self, s: &[u32], half: Format) -> u32 {
        let a = s.first().copied().unwrap_or(0);
        let b = s.get(1).copied().unwrap_or(0);
        let (a16, b16) = (a as u16, b as u16);
        let (h, f) = (half, Format::F32);
        match self {
            Op::Mov16 | Op::Mov32 | Op::Fmovh | Op::Fmovs => a,
            Op::Add16 => u32::from(a16.wrapping_add(b16)),
            // a lone element (no chain): carry in 0
            Op::Addc16 => u32::from(fixed::add_with_carry(a16, b16, 0).0),
            Op::Sub16 => u32::from(a16.wrapping_sub(b16)),
            Op::And16 => u32::from(a16 & b16),
            Op::Or16 => u32::from(a16 | b16),
            Op::Xor16 => u32::from(a16 ^ b16),
            // shift counts of 16 or more are undocumented (spec §4.4): they give 0 / the sign
            Op::Sll16 => u32::from(a16.checked_shl(u32::from(b16)).unwrap_or(0)),
            Op::Slr16 => u32::from(a16.checked_shr(u32::from(b16)).unwrap_or(0)),
            Op::Sar16 => u32::from((a16 as i16 >> u32::from(b16).min(15)) as u16),
            Op::Clz => a16.leading_zeros(),
            Op::Ctz => a16.trailing_zeros(),
            Op::Popcnt => a16.count_ones(),
            Op::Faddh => fp::add(a, b, h),
            Op::Fadds => fp::add(a, b, f),
            Op::Fsubh => fp::sub(a, b, h),
            Op::Fsubs => fp::sub(a, b, f),
            Op::Fmulh => fp::mul(a, b, h),
            Op::Fmuls => fp::mul(a, b, f),
            Op::Fmaxh => fp::max(a, b, h),
            Op::Fmaxs => fp::max(a, b, f),
            Op::Fnegh => (a ^ 0x8000) & 0xFFFF,
            Op::Fnegs => a ^ 0x8000_0000,
            Op::Fabsh => a & 0x7FFF,
            Op::Fabss => a & 0x7FFF_FFFF,
            Op::Fmach => fp::mac(a, b, s.get(2).copied().unwrap_or(0), h),
            Op::Fmacs => fp::mac(a, b, s.get(2).copied().unwrap_or(0), f),
            Op::Fmachs => fp::mac_mixed(a, b, s.get(2).copied().unwrap_or(0), h),
            Op::Faddhs => fp::add_mixed(a, b, h),
            Op::Fh2s => fp::convert(a, h, f),
            Op::Fs2h => fp::convert(a, f, h),
            Op::Xp162fh => fp::convert(u32::from(a16), Format::I16, h),
            Op::Xp162fs => fp::convert(u32::from(a16), Format::I16, f),
            Op::Fh2xp16 => fixed::float_to_xp16(a, h),
            Op::Fs2xp16 => fixed::float_to_xp16(a, f),
            // refused before any element runs (Op::undocumented); the value passes through
            Op::Fnormh | Op::Fnorms => a,
            Op::Fscaleh => scale::scale(a, b16 as i16, h),
            Op::Fscales => scale::scale(a, b16 as i16, f),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.name())
    }
}
