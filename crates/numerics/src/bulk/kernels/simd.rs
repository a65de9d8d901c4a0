//! Instruction-set levels of the bulk kernels. Each kernel's loop is written once, in plain
//! branchless Rust; [`run_at`] runs it either as compiled for the baseline target (`Portable`)
//! or inside a function compiled with AVX2, FMA and F16C enabled (or those and AVX-512), where
//! the compiler vectorises it. Kernels with explicit SIMD code check the level themselves
//! (`level >= SimdLevel::Avx2` for the AVX2 kernels, which also serve at `Avx512`). The level is
//! detected at run time, never assumed.

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

    /// Whether this machine can run the level.
    pub fn is_available(self) -> bool {
        match self {
            SimdLevel::Portable => true,
            SimdLevel::Avx2 => avx2_present(),
            SimdLevel::Avx512 => avx512_present(),
        }
    }

    /// The level named `name` (`portable`, `avx2` or `avx512`, any case).
    pub fn from_name(name: &str) -> Option<SimdLevel> {
        [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The best level this machine has.
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

    /// Every level this machine can run, the portable one first.
    pub fn available() -> Vec<SimdLevel> {
        [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
            .into_iter()
            .filter(|l| l.is_available())
            .collect()
    }
}

/// Whether the CPU has AVX2, FMA and F16C (the [`SimdLevel::Avx2`] level).
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2_present() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("f16c")
}

/// Whether the CPU has AVX2, FMA and F16C (never, off x86_64).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn avx2_present() -> bool {
    false
}

/// Whether the CPU has the [`SimdLevel::Avx512`] level: AVX2, FMA, F16C and AVX-512 F, BW, VL,
/// DQ and VBMI.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512_present() -> bool {
    avx2_present()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
}

/// Whether the CPU has the [`SimdLevel::Avx512`] level (never, off x86_64).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn avx512_present() -> bool {
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
    #[cfg(target_arch = "x86_64")]
    if level == SimdLevel::Avx512 && avx512_present() {
        // SAFETY: `with_avx512` only requires the CPU features checked just above.
        return unsafe { with_avx512(job) };
    }
    #[cfg(target_arch = "x86_64")]
    if level >= SimdLevel::Avx2 && avx2_present() {
        // SAFETY: `with_avx2` only requires the CPU features checked just above.
        return unsafe { with_avx2(job) };
    }
    let _ = level;
    portable(job)
}

/// `job.run()` as compiled for the baseline target.
#[inline(never)]
fn portable<J: Job>(job: J) -> J::Output {
    job.run()
}

/// `job.run()`, compiled with AVX2, FMA and F16C enabled.
///
/// # Safety
/// The CPU must support AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
#[inline(never)]
unsafe fn with_avx2<J: Job>(job: J) -> J::Output {
    job.run()
}

/// `job.run()`, compiled with AVX2, FMA, F16C and AVX-512 F, BW, VL, DQ and VBMI enabled.
///
/// # Safety
/// The CPU must support every feature [`avx512_present`] checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline(never)]
unsafe fn with_avx512<J: Job>(job: J) -> J::Output {
    job.run()
}
