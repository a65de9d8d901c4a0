//! Elements of an operation whose every operand is a memory line (`mem1d`) or a scalar, done
//! in a loop of their own: loads, the operation, a store, the lines moved on. It is what
//! [`Pe::advance`] does for such elements, without asking each port whether it is ready (a
//! memory line always is) or matching its kind; the run-ahead of PE-local operations
//! (`@fmacs` over a block column) spends its elements here.
//!
//! An element whose address is outside the memory or misaligned is left to the general
//! element, untouched (nothing is consumed or stored before every access is known good), so
//! errors are those of the general path.

use super::Pe;
use super::engine::RunningOp;
use super::offsets::Offsets;
use super::port::Port;
use crate::elem::ElemTy;
use crate::ops::Op;

/// Sources a line run takes (`@fmacs` has three).
const LINE_SOURCES: usize = 3;

/// Where a memory line's next element is, or a scalar source's bits.
#[derive(Clone, Copy)]
enum Lane {
    /// A memory line: word address of its next element and words per element step.
    Line { word: i64, step: i64, ty: ElemTy },
    /// A scalar's bits.
    Scalar(u32),
}

impl Lane {
    /// The lane of `port`, if it is a memory line or a scalar.
    fn of(port: &Port) -> Option<Lane> {
        match port {
            Port::Mem {
                base,
                offsets: Offsets::Line { next, stride },
                index,
            } => {
                let words = i64::from(base.elem.words());
                // the general path's saturating address arithmetic is exact in this range
                let bound = 1i64 << 40;
                if next.abs() > bound || stride.abs() > bound {
                    return None;
                }
                Some(Lane::Line {
                    word: base.element_word(*next, *index),
                    step: stride * words,
                    ty: base.elem,
                })
            }
            Port::Scalar(b) => Some(Lane::Scalar(*b)),
            _ => None,
        }
    }
}

impl Pe {
    /// Does elements of `run` up to (not including) element `stop` in a line run, when every
    /// operand allows it; stops early at an element with a bad address. Returns the number
    /// done.
    pub(super) fn line_run(&mut self, run: &mut RunningOp, stop: u64) -> u64 {
        if run.op == Op::Addc16
            || run.accumulate
            || !run.activated.is_empty()
            || run.ports.len() < 2
            || run.ports.len() > LINE_SOURCES + 1
            || run.n >= stop
        {
            return 0;
        }
        let mut lanes = [Lane::Scalar(0); LINE_SOURCES + 1];
        for (lane, port) in lanes.iter_mut().zip(&run.ports) {
            match Lane::of(port) {
                Some(l) => *lane = l,
                None => return 0,
            }
        }
        let lanes = &mut lanes[..run.ports.len()];
        let Lane::Line { .. } = lanes[0] else {
            return 0;
        };
        let half = self.fp16.format();
        let start = run.n;
        let mut vals = [0u32; LINE_SOURCES];
        'elements: while run.n < stop {
            let sources = &lanes[1..];
            for (v, lane) in vals.iter_mut().zip(sources) {
                *v = match *lane {
                    Lane::Line { word, ty, .. } => match self.mem.load(word, ty) {
                        Ok(v) => v,
                        Err(_) => break 'elements,
                    },
                    Lane::Scalar(b) => b,
                };
            }
            let r = run.op.apply_in(&vals[..sources.len()], half) & run.mask;
            if let Lane::Line { word, ty, .. } = lanes[0]
                && self.mem.store(word, ty, r).is_err()
            {
                break;
            }
            for lane in lanes.iter_mut() {
                if let Lane::Line { word, step, .. } = lane {
                    *word += *step;
                }
            }
            run.n += 1;
        }
        let done = run.n - start;
        // the lines' places move on by the elements done
        for port in &mut run.ports {
            if let Port::Mem {
                offsets: Offsets::Line { next, stride },
                ..
            } = port
            {
                *next = next.wrapping_add(stride.wrapping_mul(done as i64));
            }
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use crate::arch::Arch;
    use crate::dsd::Mem1d;
    use crate::elem::ElemTy;
    use crate::ops::{Op, Operand, Scalar};
    use crate::pe::{OpConfig, Pe, Progress};

    /// A generator of test numbers (xorshift64*), deterministic.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: u64) -> i64 {
            (self.next() % n) as i64
        }
    }

    /// What a run did: its end (outcome or error text) and the memory.
    type Ran = (Result<Progress, String>, u64, Vec<u8>, Vec<u8>);

    /// Runs `op` on a copy of `pe`: all at once (a line run where it can) or one element per
    /// call (the general element, as a cycle does).
    fn run(pe: &Pe, op: Op, dest: &Operand, srcs: &[Operand], at_once: bool) -> Ran {
        let mut pe = pe.clone();
        let (end, n) = match pe.start(op, dest, srcs, &OpConfig::default()) {
            Err(e) => (Err(e.to_string()), 0),
            Ok(mut r) => loop {
                let budget = if at_once { u64::MAX } else { 1 };
                match pe.advance(&mut r, budget) {
                    Ok(Progress::Paused) if !at_once => continue,
                    other => break (other.map_err(|e| e.to_string()), r.elements()),
                }
            },
        };
        let a = pe.mem.array_bytes("a").unwrap_or_default();
        let b = pe.mem.array_bytes("b").unwrap_or_default();
        (end, n, a, b)
    }

    #[test]
    fn a_line_run_does_what_the_general_element_does() {
        let ops = [
            (Op::Fmacs, ElemTy::F32, 3),
            (Op::Fadds, ElemTy::F32, 2),
            (Op::Fsubs, ElemTy::F32, 2),
            (Op::Fmuls, ElemTy::F32, 2),
            (Op::Fmovs, ElemTy::F32, 1),
            (Op::Faddh, ElemTy::F16, 2),
            (Op::Fmach, ElemTy::F16, 3),
            (Op::Add16, ElemTy::U16, 2),
            (Op::Mov16, ElemTy::U16, 1),
        ];
        let mut g = Gen(0x5DEE_CE66_D1CE_4E5D);
        let mut runs = 0;
        for _ in 0..3000 {
            let (op, ty, sources) = ops[g.below(ops.len() as u64) as usize];
            let mut pe = Pe::new(Arch::Wse2);
            let (na, nb) = (g.below(40) as u64 + 1, g.below(40) as u64 + 1);
            if pe.mem.declare("a", ty, &[na]).is_err() || pe.mem.declare("b", ty, &[nb]).is_err() {
                continue;
            }
            for (name, n) in [("a", na), ("b", nb)] {
                let Ok(at) = pe.mem.base(name) else { continue };
                for i in 0..n * u64::from(ty.words()) {
                    let bits = g.next() as u32 & 0xFFFF;
                    let _ = pe.mem.store(at.word_addr + i as i64, ElemTy::U16, bits);
                }
            }
            let extent = g.below(24) + 1;
            let line = |g: &mut Gen| -> Option<Operand> {
                let name = if g.below(2) == 0 { "a" } else { "b" };
                let base = pe.mem.base(name).ok()?;
                // offsets and strides that may leave the arrays, and the memory
                let offset = g.below(60) - 10;
                let stride = g.below(9) - 3;
                let far = g.below(50) == 0;
                let offset = if far { offset + 30_000 } else { offset };
                Mem1d::new(base, offset, stride, extent)
                    .ok()
                    .map(Operand::from)
            };
            let Some(dest) = line(&mut g) else { continue };
            let mut srcs = Vec::new();
            for _ in 0..sources {
                let src = if g.below(4) == 0 {
                    Some(Operand::Scalar(Scalar::from_bits(ty, g.next() as u32)))
                } else {
                    line(&mut g)
                };
                match src {
                    Some(s) => srcs.push(s),
                    None => break,
                }
            }
            if srcs.len() != sources {
                continue;
            }
            let at_once = run(&pe, op, &dest, &srcs, true);
            let stepped = run(&pe, op, &dest, &srcs, false);
            assert_eq!(at_once, stepped, "{op:?} {dest:?} {srcs:?}");
            runs += 1;
        }
        assert!(runs > 2000, "{runs}");
    }
}
