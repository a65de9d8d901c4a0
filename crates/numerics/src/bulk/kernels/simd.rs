//! Instruction-set levels of the bulk kernels. Each kernel's loop is written once, in plain
//! branchless Rust; [`run_at`] runs it either as compiled for the baseline target (`Portable`)
//! or inside a function compiled with AVX2, FMA and F16C enabled (or those and AVX-512), where
//! the compiler vectorises it. Kernels with explicit SIMD code check the level themselves
//! (`level >= SimdLevel::Avx2` for the AVX2 kernels, which also serve at `Avx512`). The level is
//! detected at run time, never assumed, and capped by the one switch of
//! [`KernelSwitch`](crate::bulk::KernelSwitch) (`NPUSIM_KERNEL`): [`avx2_present`] and [`avx512_present`],
//! which every level check calls, are false above the cap.

use std::fmt;

/// An instruction-set level a kernel can run at.
///
/// Levels are ordered: each one has every feature of the levels before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// The baseline target only (SSE2 on x86_64): runs everywhere.
    Portable,
    /// x86_64 with AVX2, FMA and F16C.
    Avx2,
    /// [`SimdLevel::Avx2`] plus AVX-512 F, BW, VL, DQ and VBMI (Ice Lake, Sapphire Rapids,
    /// Zen 4 and later).
    Avx512,
}

impl SimdLevel {
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            SimdLevel::Portable => "portable",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// Whether the kernels may run at this level here: the CPU has it and the switch
    /// (`NPUSIM_KERNEL`) does not cap it away.
    pub fn is_available(self) -> bool {
        match self {
            SimdLevel::Portable => true,
            SimdLevel::Avx2 => avx2_present(),
            SimdLevel::Avx512 => avx512_present(),
        }
    }

    /// Whether the CPU has every feature of this level, whatever the switch says.
    pub fn on_cpu(self) -> bool {
        cpu_has(self)
    }

    /// The CPU features of this level that this CPU lacks (empty when it has the level).
    pub fn missing_features(self) -> Vec<&'static str> {
        self.features()
            .iter()
            .copied()
            .filter(|f| !feature_detected(f))
            .collect()
    }

    /// The CPU features this level needs.
    pub fn features(self) -> &'static [&'static str] {
        match self {
            SimdLevel::Portable => &[],
            SimdLevel::Avx2 => &AVX512_FEATURES[..3],
            SimdLevel::Avx512 => &AVX512_FEATURES,
        }
    }

    /// Why the kernels may not run at this level here (`None` when they may).
    pub fn absence(self) -> Option<LevelAbsence> {
        let missing = self.missing_features();
        if !missing.is_empty() {
            Some(LevelAbsence::NotOnCpu { missing })
        } else if self > super::super::switch::cap() {
            Some(LevelAbsence::Capped {
                cap: super::super::switch::cap(),
            })
        } else {
            None
        }
    }

    /// The level named `name` (`portable`, `avx2` or `avx512`, any case).
    pub fn from_name(name: &str) -> Option<SimdLevel> {
        [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The best level the kernels may run at here (the CPU's best, capped by the switch).
    pub fn best() -> SimdLevel {
        if avx512_present() {
            SimdLevel::Avx512
        } else if avx2_present() {
            SimdLevel::Avx2
        } else {
            SimdLevel::Portable
        }
    }

    /// Whether this is the AVX-512 level and this machine has it (where the AVX-512 kernels
    /// take over).
    pub(crate) fn runs_avx512(self) -> bool {
        self == SimdLevel::Avx512 && avx512_present()
    }

    /// Every level the kernels may run at here (the CPU has it, the switch allows it), the
    /// portable one first.
    pub fn available() -> Vec<SimdLevel> {
        [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
            .into_iter()
            .filter(|l| l.is_available())
            .collect()
    }
}

/// Why the kernels may not run at a level here ([`SimdLevel::absence`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelAbsence {
    /// The CPU lacks these features of the level.
    NotOnCpu {
        /// The missing features, by their `is_x86_feature_detected!` names.
        missing: Vec<&'static str>,
    },
    /// The CPU has the level, but the switch (`NPUSIM_KERNEL`) caps the kernels below it.
    Capped {
        /// The highest level the switch allows.
        cap: SimdLevel,
    },
}

impl fmt::Display for LevelAbsence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LevelAbsence::NotOnCpu { missing } => {
                write!(f, "this CPU lacks {}", missing.join(", "))
            }
            LevelAbsence::Capped { cap } => write!(
                f,
                "{} caps the kernels at {}",
                super::super::switch::KERNEL_SWITCH_VAR,
                cap.name()
            ),
        }
    }
}

/// The features of the AVX-512 level, those of the AVX2 level first.
const AVX512_FEATURES: [&str; 8] = [
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "avx512vbmi",
];

/// Whether the CPU has the feature named `name` (one of [`AVX512_FEATURES`]; false for any
/// other name, and off x86_64).
fn feature_detected(name: &str) -> bool {
    on_x86_64!(
        match name {
            "avx2" => std::arch::is_x86_feature_detected!("avx2"),
            "fma" => std::arch::is_x86_feature_detected!("fma"),
            "f16c" => std::arch::is_x86_feature_detected!("f16c"),
            "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
            "avx512bw" => std::arch::is_x86_feature_detected!("avx512bw"),
            "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
            "avx512dq" => std::arch::is_x86_feature_detected!("avx512dq"),
            "avx512vbmi" => std::arch::is_x86_feature_detected!("avx512vbmi"),
            _ => false,
        },
        {
            let _ = name;
            false
        }
    )
}

/// Whether the CPU has every feature of `level`, whatever the switch says (detected once: the
/// level checks run several times per cast, and a 16-element cast is mostly call overhead).
fn cpu_has(level: SimdLevel) -> bool {
    static HAS: std::sync::OnceLock<[bool; 3]> = std::sync::OnceLock::new();
    let has = HAS.get_or_init(|| {
        [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
            .map(|l| l.features().iter().all(|f| feature_detected(f)))
    });
    has[level as usize]
}

/// Whether the kernels may use the [`SimdLevel::Avx2`] level: the CPU has AVX2, FMA and F16C
/// and the switch allows the level. Every AVX2 code path checks this (or
/// [`avx512_present`], which implies it) before it runs.
pub(crate) fn avx2_present() -> bool {
    super::super::switch::cap() >= SimdLevel::Avx2 && cpu_has(SimdLevel::Avx2)
}

/// Whether the kernels may use the [`SimdLevel::Avx512`] level: the CPU has AVX2, FMA, F16C
/// and AVX-512 F, BW, VL, DQ and VBMI, and the switch allows the level. Every AVX-512 code
/// path checks this before it runs.
pub(crate) fn avx512_present() -> bool {
    super::super::switch::cap() >= SimdLevel::Avx512 && cpu_has(SimdLevel::Avx512)
}

/// Whether the kernels may use AVX-512 BF16 (`vcvtne2ps2bf16`) within the
/// [`SimdLevel::Avx512`] level: the level is usable ([`avx512_present`]) and the CPU has the
/// extension (detected once). Not part of the level: the kernels that use it have a path
/// without it.
pub(crate) fn avx512bf16_present() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    avx512_present()
        && *HAS.get_or_init(|| on_x86_64!(std::arch::is_x86_feature_detected!("avx512bf16"), false))
}

/// Whether the kernels may run at `level` here; when not, the calling unit test cannot test
/// that level and says so where it shows: `SKIPPED: <test> needs <level>: <why>` on standard
/// output, and appended to the file named by `NPUSIM_SKIP_LOG` when that is set (as the
/// integration tests' `kernel_support::level_here` does).
#[cfg(test)]
pub(crate) fn level_here(level: SimdLevel) -> bool {
    let Some(why) = level.absence() else {
        return true;
    };
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a unit test");
    super::skip_log::report_skip(test, level.name(), &why.to_string());
    false
}

/// One slice cast, ready to run: what [`run_at`] compiles per level. `run` must be
/// `#[inline(always)]`, and so must everything it calls in its loop, so that all of it is
/// compiled inside the level's function (a closure would not be inlined there).
pub(crate) trait Job {
    /// What the job returns.
    type Output;
    /// Does the work.
    fn run(self) -> Self::Output;
}

/// Runs `job` at `level`: for [`SimdLevel::Avx2`] (when the machine has it) inside a function
/// compiled for AVX2/FMA/F16C, into which the job's loop is inlined; otherwise as compiled for
/// the baseline target.
#[inline(always)]
pub(crate) fn run_at<J: Job>(level: SimdLevel, job: J) -> J::Output {
    if level == SimdLevel::Avx512 && avx512_present() {
        // SAFETY: `x86_avx512::run` only requires the CPU features checked just above.
        return on_x86_64!(unsafe { super::x86_avx512::run(job) }, portable(job));
    }
    if level >= SimdLevel::Avx2 && avx2_present() {
        // SAFETY: `x86_avx2::run` only requires the CPU features checked just above.
        return on_x86_64!(unsafe { super::x86_avx2::run(job) }, portable(job));
    }
    portable(job)
}

/// `job.run()` as compiled for the baseline target.
#[inline(never)]
fn portable<J: Job>(job: J) -> J::Output {
    job.run()
}

/// `$x86` on x86_64 and `$other` elsewhere: how portable code hands work to the loops of the
/// `x86_avx2` and `x86_avx512` folders, which exist on x86_64 only. Besides the `mod` lines
/// of those folders, this is the one place that tests the target.
macro_rules! on_x86_64 {
    ($x86:expr, $other:expr $(,)?) => {{
        #[cfg(target_arch = "x86_64")]
        let value = $x86;
        #[cfg(not(target_arch = "x86_64"))]
        let value = $other;
        value
    }};
}
pub(crate) use on_x86_64;
