//! Instruction-set levels of the bulk kernels. Each kernel's loop is written once, in plain
//! branchless Rust; [`run_at`] runs it either as compiled for the baseline target (`Portable`)
//! or inside a function compiled with AVX2, FMA and F16C enabled, where the compiler
//! vectorises it 8 lanes wide. The level is detected at run time, never assumed.

/// An instruction-set level a kernel can run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdLevel {
    /// The baseline target only (SSE2 on x86_64): runs everywhere.
    Portable,
    /// x86_64 with AVX2, FMA and F16C.
    Avx2,
}

impl SimdLevel {
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            SimdLevel::Portable => "portable",
            SimdLevel::Avx2 => "avx2",
        }
    }

    /// Whether this machine can run the level.
    pub fn is_available(self) -> bool {
        match self {
            SimdLevel::Portable => true,
            SimdLevel::Avx2 => avx2_present(),
        }
    }

    /// The best level this machine has.
    pub fn best() -> SimdLevel {
        if avx2_present() {
            SimdLevel::Avx2
        } else {
            SimdLevel::Portable
        }
    }

    /// Every level this machine can run, the portable one first.
    pub fn available() -> Vec<SimdLevel> {
        [SimdLevel::Portable, SimdLevel::Avx2]
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
    if level == SimdLevel::Avx2 && avx2_present() {
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
