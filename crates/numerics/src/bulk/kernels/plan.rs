//! The plan of one bulk cast: the kernel chosen for (source, destination, policy) and the
//! instruction-set level it runs at on this machine. A plan is made once per cast; the same
//! value runs the slices ([`Plan::run`]) and names what runs ([`Plan::name`]).

use std::cell::RefCell;

use super::{Kernel, select};
use crate::bulk::kernels::simd::SimdLevel;
use crate::bulk::{BulkOptions, KernelChoice, Storage};
use crate::policy::CastPolicy;
use crate::status::StatusCounts;

/// How many combinations [`Plan::cached`] remembers per thread.
const CACHED: usize = 16;

/// A kernel and the level it runs at, for one (source storage, destination storage, policy).
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    kernel: Kernel,
    level: SimdLevel,
    src: Storage,
    dst: Storage,
}

impl Plan {
    /// The plan of a cast from `s` to `d` under `policy` as `choice` asks: the reference
    /// routine where it resolves to none (or under the switch's `reference`), else the fastest
    /// kernel at the level it resolves to.
    pub(crate) fn new(s: Storage, d: Storage, policy: &CastPolicy, choice: KernelChoice) -> Plan {
        match choice.resolve() {
            Some(level) => Plan::at(s, d, policy, level),
            None => Plan {
                kernel: Kernel::Reference,
                level: SimdLevel::Portable,
                src: s,
                dst: d,
            },
        }
    }

    /// The plan of the fast kernels at `level`; a level the kernels may not use here (the CPU
    /// lacks it, or the switch caps it away) plans the portable code.
    pub(crate) fn at(s: Storage, d: Storage, policy: &CastPolicy, level: SimdLevel) -> Plan {
        let level = if level.is_available() {
            level
        } else {
            SimdLevel::Portable
        };
        Plan {
            kernel: select(s, d, policy),
            level,
            src: s,
            dst: d,
        }
    }

    /// [`Plan::new`] of the combination, remembered per thread: a repeat of one of the
    /// thread's last [`CACHED`] combinations compares a few keys and clones the plan (no
    /// selection, no hashing, no lock), so a caller that casts many small slices (the block
    /// casts, the CLI's chunks) pays the kernel choice once.
    pub(crate) fn cached(
        s: Storage,
        d: Storage,
        policy: &CastPolicy,
        choice: KernelChoice,
    ) -> Plan {
        type Key = (Storage, Storage, CastPolicy, KernelChoice);
        thread_local! {
            static RECENT: RefCell<Vec<(Key, Plan)>> = const { RefCell::new(Vec::new()) };
        }
        let key = (s, d, *policy, choice);
        if let Some(p) =
            RECENT.with_borrow(|r| r.iter().find(|(k, _)| *k == key).map(|(_, p)| p.clone()))
        {
            return p;
        }
        let plan = Plan::new(s, d, policy, choice);
        RECENT.with_borrow_mut(|r| {
            if r.len() >= CACHED {
                r.remove(0);
            }
            r.push((key, plan.clone()));
        });
        plan
    }

    /// Casts elements `0..n` of the sub-buffers (`start` is their global index offset).
    pub(crate) fn run(
        &self,
        src: &[u8],
        dst: &mut [u8],
        start: usize,
        n: usize,
        policy: &CastPolicy,
        options: &BulkOptions,
    ) -> StatusCounts {
        self.kernel.run(
            self.level, src, self.src, dst, self.dst, start, n, policy, options,
        )
    }

    /// Short name of the code that casts the bulk of each slice under this plan.
    pub(crate) fn name(&self) -> &'static str {
        self.kernel.name_at(self.level, self.src, self.dst)
    }
}

/// Marks that the code named `name` casts the slice now running: the first mark of a slice
/// is what ran (an outer kernel marks before the kernels it calls). Kept only in the unit
/// tests, which compare it with [`Plan::name`]; elsewhere it compiles to nothing.
#[inline(always)]
pub(crate) fn ran(name: &'static str) {
    #[cfg(test)]
    probe::RAN.with(|r| {
        if r.get().is_none() {
            r.set(Some(name));
        }
    });
    #[cfg(not(test))]
    let _ = name;
}

#[cfg(test)]
mod probe {
    use std::cell::Cell;

    thread_local! {
        /// The first code marked since the last [`take`].
        pub(super) static RAN: Cell<Option<&'static str>> = const { Cell::new(None) };
    }

    /// The code marked since the last call, and a fresh start.
    pub(super) fn take() -> Option<&'static str> {
        RAN.with(|r| r.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::Layout;
    use crate::format::Format;
    use crate::round::RoundMode;

    /// Every storage of `f`: native, and unpacked where that differs.
    fn storages(f: Format) -> Vec<Storage> {
        let mut v = vec![Storage::native(f)];
        if let Ok(u) = Storage::new(f, Layout::Unpacked)
            && u != v[0]
        {
            v.push(u);
        }
        v
    }

    /// `n` source codes of storage `s`: a spread of bit patterns (specials included).
    fn codes(s: Storage, n: usize) -> Vec<u8> {
        let mask = s.format().code_mask();
        let mut buf = vec![0u8; s.bytes_for(n)];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let code = if i % 4 == 0 { i as u64 } else { x >> 11 };
            s.write(&mut buf, i, code & mask);
        }
        buf
    }

    /// The policies a case is planned under: the default for every pair; every deterministic
    /// mode under the three standard policies for the wide sources the fast kernels serve.
    fn policies(s: Format) -> Vec<CastPolicy> {
        if matches!(s, Format::F32 | Format::F64 | Format::I32) {
            RoundMode::DETERMINISTIC
                .into_iter()
                .flat_map(|m| {
                    [
                        CastPolicy::new(m),
                        CastPolicy::saturating(m),
                        CastPolicy::non_saturating(m),
                    ]
                })
                .collect()
        } else {
            vec![CastPolicy::default()]
        }
    }

    /// Every case (source, destination, policy) at every level this machine lets the kernels
    /// use: the name the plan reports is the code that ran.
    #[test]
    fn every_plan_names_the_code_it_runs() {
        let options = BulkOptions {
            parallel: false,
            ..BulkOptions::default()
        };
        let n = 1024;
        let mut checked = 0usize;
        let mut drift = Vec::new();
        for sf in Format::ALL {
            for s in storages(sf) {
                let src = codes(s, n);
                for df in Format::ALL {
                    for d in storages(df) {
                        if s == d {
                            continue;
                        }
                        let mut dst = vec![0u8; d.bytes_for(n)];
                        for policy in policies(sf) {
                            for level in SimdLevel::available() {
                                let plan = Plan::at(s, d, &policy, level);
                                probe::take();
                                plan.run(&src, &mut dst, 0, n, &policy, &options);
                                let ran = probe::take();
                                checked += 1;
                                if ran != Some(plan.name()) {
                                    drift.push(format!(
                                        "{s:?} -> {d:?} ({policy:?}) at {}: named {}, ran {ran:?}",
                                        level.name(),
                                        plan.name()
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        println!("{checked} plans checked");
        assert!(
            drift.is_empty(),
            "{} of {checked} plans name other code than they run:\n{}",
            drift.len(),
            drift.join("\n")
        );
    }
}
