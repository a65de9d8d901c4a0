//! The one switch that caps the instruction sets the bulk kernels may use: the environment
//! variable `NPUSIM_KERNEL`, read once per process.
//!
//! Every level check goes through it: kernel selection ([`SimdLevel::best`],
//! [`SimdLevel::is_available`]), each kernel's own check before it runs its explicit SIMD code,
//! and the test helpers, which ask the same functions. With the cap at `avx2` a machine with
//! AVX-512 therefore behaves exactly as an AVX2-only machine. An unknown value is an error
//! ([`NumericsError::UnknownKernelSwitch`]) from every bulk cast, never ignored; until a cast
//! reports it, the queries that cannot fail treat it as the strictest cap (`portable`).

use std::sync::OnceLock;

use super::SimdLevel;
use crate::error::NumericsError;

/// The environment variable that caps the kernels' instruction sets.
pub const KERNEL_SWITCH_VAR: &str = "NPUSIM_KERNEL";

/// The values [`KERNEL_SWITCH_VAR`] accepts (any case; unset or empty is `fastest`).
pub const KERNEL_SWITCH_VALUES: &str = "fastest, avx512, avx2, portable, reference";

/// What [`KERNEL_SWITCH_VAR`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelSwitch {
    /// Unset, empty or `fastest`: every level the CPU has may run.
    Fastest,
    /// `portable`, `avx2` or `avx512`: no level above this one runs, whatever the CPU has.
    Cap(SimdLevel),
    /// `reference`: default casts run the reference routine, and fast kernels asked for by
    /// level run the portable code (the cap is `portable`).
    Reference,
}

impl KernelSwitch {
    /// The switch named by `value` (any case, surrounding blanks ignored).
    pub fn parse(value: &str) -> Result<KernelSwitch, NumericsError> {
        let v = value.trim();
        if v.is_empty() || v.eq_ignore_ascii_case("fastest") {
            return Ok(KernelSwitch::Fastest);
        }
        if v.eq_ignore_ascii_case("reference") {
            return Ok(KernelSwitch::Reference);
        }
        SimdLevel::from_name(v)
            .map(KernelSwitch::Cap)
            .ok_or_else(|| NumericsError::UnknownKernelSwitch {
                variable: KERNEL_SWITCH_VAR,
                value: value.to_string(),
                valid: KERNEL_SWITCH_VALUES,
            })
    }

    /// The switch this process runs under: [`KERNEL_SWITCH_VAR`] as it was when first read.
    pub fn current() -> Result<KernelSwitch, NumericsError> {
        read_once().clone()
    }

    /// The highest level this switch lets run.
    pub const fn cap(self) -> SimdLevel {
        match self {
            KernelSwitch::Fastest => SimdLevel::Avx512,
            KernelSwitch::Cap(l) => l,
            KernelSwitch::Reference => SimdLevel::Portable,
        }
    }
}

/// [`KERNEL_SWITCH_VAR`] parsed, the first time this is called in the process.
fn read_once() -> &'static Result<KernelSwitch, NumericsError> {
    static SWITCH: OnceLock<Result<KernelSwitch, NumericsError>> = OnceLock::new();
    SWITCH.get_or_init(|| match std::env::var(KERNEL_SWITCH_VAR) {
        Ok(v) => KernelSwitch::parse(&v),
        Err(std::env::VarError::NotPresent) => Ok(KernelSwitch::Fastest),
        Err(std::env::VarError::NotUnicode(v)) => Err(NumericsError::UnknownKernelSwitch {
            variable: KERNEL_SWITCH_VAR,
            value: v.to_string_lossy().into_owned(),
            valid: KERNEL_SWITCH_VALUES,
        }),
    })
}

/// The highest level the kernels may use in this process: [`KernelSwitch::cap`] of the
/// current switch, `portable` when its value is unknown.
pub(crate) fn cap() -> SimdLevel {
    match read_once() {
        Ok(s) => s.cap(),
        Err(_) => SimdLevel::Portable,
    }
}

/// Fails with [`NumericsError::UnknownKernelSwitch`] when the switch's value is unknown (what
/// every bulk operation checks first).
pub(crate) fn check() -> Result<(), NumericsError> {
    read_once().as_ref().map(|_| ()).map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every documented value, in any case and with blanks, names its switch; anything else
    /// is an error that names the variable, the value and the valid ones.
    #[test]
    fn known_values_parse_and_unknown_ones_are_errors() {
        let cases = [
            ("", KernelSwitch::Fastest),
            ("fastest", KernelSwitch::Fastest),
            (" AVX512 ", KernelSwitch::Cap(SimdLevel::Avx512)),
            ("avx2", KernelSwitch::Cap(SimdLevel::Avx2)),
            ("Portable", KernelSwitch::Cap(SimdLevel::Portable)),
            ("reference", KernelSwitch::Reference),
        ];
        for (v, want) in cases {
            assert_eq!(KernelSwitch::parse(v), Ok(want), "{v:?}");
        }
        for bad in ["avx-512", "avx", "sse2", "native", "avx2,avx512"] {
            let e = KernelSwitch::parse(bad).unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains("NPUSIM_KERNEL"), "{msg}");
            assert!(msg.contains(bad), "{msg}");
            assert!(msg.contains(KERNEL_SWITCH_VALUES), "{msg}");
        }
    }

    /// Each switch's cap: none for `fastest`, the level named, `portable` for `reference`.
    #[test]
    fn each_switch_caps_at_its_level() {
        assert_eq!(KernelSwitch::Fastest.cap(), SimdLevel::Avx512);
        assert_eq!(KernelSwitch::Reference.cap(), SimdLevel::Portable);
        for l in [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512] {
            assert_eq!(KernelSwitch::Cap(l).cap(), l);
        }
    }
}
