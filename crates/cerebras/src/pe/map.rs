//! `@map(f, inputs..., output)` (spec §4.6): a Rust function applied element by element to
//! memory DSD, DSR, scalar and pointer arguments.

use npusim_hw::CycleEstimate;

use super::engine::CYCLE_MODEL;
use super::machine::{OpConfig, Outcome, Pe};
use super::port::{Port, dsd_base};
use super::port_io::{ElementAt, PortRead};
use crate::dsd::Dsd;
use crate::elem::ElemTy;
use crate::ops::{Class, Op, OpError, Operand, Scalar};

/// The arguments of a `@map` ready to walk: one port per argument (inputs, then the output),
/// the elements each DSD or DSR argument has left, and each argument's element type.
struct MapArgs {
    ports: Vec<Port>,
    left: Vec<Option<u64>>,
    types: Vec<Option<ElemTy>>,
}

impl MapArgs {
    /// Takes one element of argument `k`'s DSD or DSR; false when it has none left.
    fn take(&mut self, k: usize) -> bool {
        match &mut self.left[k] {
            Some(0) => false,
            Some(l) => {
                *l -= 1;
                true
            }
            None => true,
        }
    }
}

impl Pe {
    /// `@map(f, inputs..., output)`: reads one element of every DSD input (scalars are passed
    /// unchanged, pointers read at each iteration), calls `f`, writes the result to `output`;
    /// stops as soon as a DSD input or the output has no element left (spec §4.6).
    pub fn map(
        &mut self,
        inputs: &[Operand],
        output: Option<&Operand>,
        mut f: impl FnMut(&[Scalar]) -> Scalar,
    ) -> Result<Outcome, OpError> {
        let all: Vec<&Operand> = inputs.iter().chain(output).collect();
        let mut args = self.map_args(&all)?;
        let n_in = inputs.len();
        let mut n = 0u64;
        loop {
            let mut values = Vec::with_capacity(n_in);
            for k in 0..n_in {
                if !args.take(k) {
                    return Ok(map_done(n));
                }
                values.push(self.map_input(&mut args, k, n)?);
            }
            let r = f(&values);
            if output.is_some() {
                if !args.take(n_in) {
                    return Ok(map_done(n));
                }
                self.map_output(&mut args, n_in, n, r)?;
            }
            n += 1;
            if args.left.iter().all(Option::is_none) {
                return Ok(map_done(n));
            }
        }
    }

    /// Checks the arguments of a `@map` (no FIFO, at least one DSD or DSR, memory DSDs only)
    /// and opens their ports.
    fn map_args(&mut self, all: &[&Operand]) -> Result<MapArgs, OpError> {
        if all.iter().any(|o| matches!(o, Operand::Fifo(_))) {
            return Err(OpError::FifoRule {
                op: "map",
                rule: "a FIFO cannot be an operand of @map",
            });
        }
        if !all
            .iter()
            .any(|o| matches!(o, Operand::Dsd(_) | Operand::Dsr(_)))
        {
            return Err(OpError::Form {
                op: "map",
                form: all.iter().map(|o| o.letter()).collect(),
                accepted: "at least one DSD or DSR argument".into(),
            });
        }
        let cfg = OpConfig::default();
        let mut args = MapArgs {
            ports: Vec::with_capacity(all.len()),
            left: Vec::with_capacity(all.len()),
            types: Vec::with_capacity(all.len()),
        };
        for (k, o) in all.iter().enumerate() {
            // a DSR may hold a circular buffer (walked from its head), never a fabric DSD
            let refused = match o {
                Operand::Dsd(d @ (Dsd::CircBuf(_) | Dsd::FabIn(_) | Dsd::FabOut(_))) => Some(d),
                Operand::Dsr(id) => Some(&self.dsr(*id)?.dsd)
                    .filter(|d| matches!(d, Dsd::FabIn(_) | Dsd::FabOut(_))),
                _ => None,
            };
            if let Some(d) = refused {
                return Err(OpError::Kind {
                    op: "map",
                    kind: d.kind(),
                    position: format!("argument {k}"),
                    why: "only memory DSDs are modelled as @map arguments",
                });
            }
            args.ports.push(self.port(Op::Mov16, k + 1, o, &cfg)?);
            args.left.push(match o {
                Operand::Dsd(_) | Operand::Dsr(_) => Some(self.length_of(o, false)?),
                _ => None,
            });
            args.types.push(match o {
                Operand::Dsd(d) => dsd_base(d).map(|b| b.elem),
                Operand::Dsr(id) => dsd_base(&self.dsr(*id)?.dsd).map(|b| b.elem),
                _ => self.elem_of(o)?,
            });
        }
        Ok(args)
    }

    /// The next value of input `k` (element `n`).
    fn map_input(&mut self, args: &mut MapArgs, k: usize, n: u64) -> Result<Scalar, OpError> {
        let ty = args.types[k].unwrap_or(ElemTy::U16);
        let mut activated = Vec::new();
        let mut at = map_element(n, &mut activated);
        // memory, pointer and scalar ports only (map_args refuses the others)
        let bits = match self.port_read(&mut args.ports[k], &mut at, ty.words(), None)? {
            PortRead::Value(v) => v,
            PortRead::FifoEmpty { .. } => 0,
        };
        Ok(Scalar::from_bits(ty, bits))
    }

    /// Writes result `r` of element `n` to the output (argument `k`), which must be of `r`'s
    /// type; a pointer output is written at every element.
    fn map_output(
        &mut self,
        args: &mut MapArgs,
        k: usize,
        n: u64,
        r: Scalar,
    ) -> Result<(), OpError> {
        if let Some(ty) = args.types[k]
            && ty != r.ty
        {
            return Err(OpError::Type {
                op: "map",
                position: "output".into(),
                found: r.ty,
                expected: if ty.words() == 1 {
                    Class::Raw16
                } else {
                    Class::Raw32
                },
            });
        }
        let mut activated = Vec::new();
        let mut at = map_element(n, &mut activated);
        let words = r.ty.words();
        self.port_write(&mut args.ports[k], &mut at, r.bits, words, true)?;
        Ok(())
    }
}

/// Element `n` of a `@map` as its ports see it (its arguments hold no FIFO, so nothing is
/// activated into `activated`).
fn map_element(n: u64, activated: &mut Vec<crate::ids::LocalTaskId>) -> ElementAt<'_> {
    ElementAt {
        op: Op::Mov16,
        n,
        len: u64::MAX,
        activated,
    }
}

/// The outcome of a `@map` that did `n` elements.
fn map_done(n: u64) -> Outcome {
    Outcome {
        completed: true,
        elements: n,
        activated: Vec::new(),
        cycles: CycleEstimate::new(CYCLE_MODEL).stage("map", n),
        advance_switch: Vec::new(),
        control_ended: false,
    }
}
