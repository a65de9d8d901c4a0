//! The DSD builtins as methods of [`Pe`] (`pe.fmovh(dest, src)`, ...), each a synchronous
//! run of its operation with the default configuration.

use super::machine::{OpConfig, Outcome, Pe};
use crate::ops::{Op, OpError, Operand};

macro_rules! wrappers {
    ($($(#[$doc:meta])* $name:ident $op:ident ($($arg:ident),*);)*) => {
        impl Pe {
            $(
                $(#[$doc])*
                pub fn $name(
                    &mut self,
                    dest: impl Into<Operand>,
                    $($arg: impl Into<Operand>,)*
                ) -> Result<Outcome, OpError> {
                    self.exec(Op::$op, &dest.into(), &[$($arg.into()),*], &OpConfig::default())
                }
            )*
        }
    };
}

wrappers! {
    /// `@mov16(dest, src)`.
    mov16 Mov16 (a);
    /// `@mov32(dest, src)`.
    mov32 Mov32 (a);
    /// `@add16(dest, a, b)`.
    add16 Add16 (a, b);
    /// `@sub16(dest, a, b)`.
    sub16 Sub16 (a, b);
    /// `@fmovh(dest, src)`.
    fmovh Fmovh (a);
    /// `@fmovs(dest, src)`.
    fmovs Fmovs (a);
    /// `@faddh(dest, a, b)`.
    faddh Faddh (a, b);
    /// `@fadds(dest, a, b)`.
    fadds Fadds (a, b);
    /// `@fsubs(dest, a, b)`.
    fsubs Fsubs (a, b);
    /// `@fmulh(dest, a, b)`.
    fmulh Fmulh (a, b);
    /// `@fmuls(dest, a, b)`.
    fmuls Fmuls (a, b);
    /// `@fmaxs(dest, a, b)`.
    fmaxs Fmaxs (a, b);
    /// `@fnegs(dest, a)`.
    fnegs Fnegs (a);
    /// `@fmach(dest, a, b, x)`: `dest = a + b * x`, fused.
    fmach Fmach (a, b, x);
    /// `@fmacs(dest, a, b, x)`: `dest = a + b * x`, fused.
    fmacs Fmacs (a, b, x);
    /// `@addc16(dest, a, b)`: 16-bit add, the carry chaining from element to element.
    addc16 Addc16 (a, b);
    /// `@and16(dest, a, b)`.
    and16 And16 (a, b);
    /// `@or16(dest, a, b)`.
    or16 Or16 (a, b);
    /// `@xor16(dest, a, b)`.
    xor16 Xor16 (a, b);
    /// `@sll16(dest, value, count)`.
    sll16 Sll16 (a, b);
    /// `@slr16(dest, value, count)`.
    slr16 Slr16 (a, b);
    /// `@sar16(dest, value, count)`.
    sar16 Sar16 (a, b);
    /// `@clz(dest, src)`.
    clz Clz (a);
    /// `@ctz(dest, src)`.
    ctz Ctz (a);
    /// `@popcnt(dest, src)`.
    popcnt Popcnt (a);
    /// `@fsubh(dest, a, b)`.
    fsubh Fsubh (a, b);
    /// `@fmaxh(dest, a, b)`.
    fmaxh Fmaxh (a, b);
    /// `@fnegh(dest, a)`.
    fnegh Fnegh (a);
    /// `@fabsh(dest, a)`.
    fabsh Fabsh (a);
    /// `@fabss(dest, a)`.
    fabss Fabss (a);
    /// `@faddhs(dest, a, b)`: f32 `a` plus FP16 `b`, one rounding to f32.
    faddhs Faddhs (a, b);
    /// `@fmachs(dest, a, b, x)`: f32 `a` plus the exact FP16 product `b * x`, one rounding.
    fmachs Fmachs (a, b, x);
    /// `@fh2s(dest, src)`: FP16 to f32, exact.
    fh2s Fh2s (a);
    /// `@fs2h(dest, src)`: f32 to FP16, round to nearest even.
    fs2h Fs2h (a);
    /// `@xp162fh(dest, src)`: i16 to FP16.
    xp162fh Xp162fh (a);
    /// `@xp162fs(dest, src)`: i16 to f32.
    xp162fs Xp162fs (a);
    /// `@fh2xp16(dest, src)`: FP16 to i16, round to nearest even, saturating.
    fh2xp16 Fh2xp16 (a);
    /// `@fs2xp16(dest, src)`: f32 to i16, round to nearest even, saturating.
    fs2xp16 Fs2xp16 (a);
    /// `@fscaleh(&dest, x, k)`: `x * 2^k` in FP16.
    fscaleh Fscaleh (x, k);
    /// `@fscales(&dest, x, k)`: `x * 2^k` in f32.
    fscales Fscales (x, k);
    /// `@fnormh(&dest, x)`: refused, its semantics are undocumented.
    fnormh Fnormh (x);
    /// `@fnorms(&dest, x)`: refused, its semantics are undocumented.
    fnorms Fnorms (x);
}
