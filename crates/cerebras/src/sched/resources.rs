//! Hardware resources of asynchronous operations on one PE: the microthread and priority an
//! operation takes, and the conflicts seed 004 leaves to the programmer (a queue or a
//! microthread shared with a running operation, an output queue reused while it still holds
//! another operation's wavelets), reported with both operations, the PE and the cycle.

use super::error::SimError;
use super::label::Label;
use super::microthread::{default_priority, microthread_of, microthread_rank};
use super::pe_state::Microthread;
use super::pe_step::PeStep;
use super::queue_reuse::QueueReusePolicy;
use super::sim::Sim;
use super::task::AsyncConfig;
use crate::arch::Arch;
use crate::dsd::{Dsd, Priority};
use crate::fabric::{Color, QueueRef};
use crate::ops::Operand;
use crate::pe::RunningOp;

impl Sim {
    /// Chooses when output-queue reuse is an error ([`QueueReusePolicy::OtherColor`] by
    /// default).
    pub fn set_queue_reuse_policy(&mut self, policy: QueueReusePolicy) {
        self.queue_reuse = policy;
    }
}

impl PeStep<'_> {
    /// Queue conflicts with running microthreads, and output-queue reuse: an operation
    /// sending on `color` through an output queue that still holds another operation's
    /// wavelets (of a different color, unless the policy is [`QueueReusePolicy::Seed`]).
    pub(super) fn check_queues(
        &self,
        k: usize,
        cycle: u64,
        label: &Label,
        queues: &[(usize, QueueRef)],
        ut: Option<u8>,
        color: Option<Color>,
    ) -> Result<(), SimError> {
        let (x, y) = self.fabric.coords(k);
        let st = &self.pes[k];
        for m in &st.micro {
            if let Some(&(_, q)) = queues
                .iter()
                .find(|(_, q)| m.queues.iter().any(|(_, p)| p == q))
            {
                return Err(SimError::QueueConflict {
                    x,
                    y,
                    cycle,
                    queue: q,
                    first: m.label.to_string(),
                    second: label.to_string(),
                });
            }
            if ut == Some(m.ut) {
                return Err(SimError::MicrothreadConflict {
                    x,
                    y,
                    cycle,
                    microthread: m.ut,
                    first: m.label.to_string(),
                    second: label.to_string(),
                });
            }
        }
        for &(_, q) in queues {
            let QueueRef::Output(q) = q else {
                continue;
            };
            let Some(oq) = st.pe.queues.output(q) else {
                continue;
            };
            let left = oq.len();
            let reused = match self.queue_reuse {
                QueueReusePolicy::OtherColor => oq.iter().any(|w| Some(w.color) != color),
                QueueReusePolicy::Seed => left > 0,
            };
            // labels are compared by their text (built only here, when a queue is reused)
            if let Some(first) = &st.out_owner[usize::from(q.id())]
                && reused
                && first.to_string() != label.to_string()
            {
                return Err(SimError::QueueReuse {
                    x,
                    y,
                    cycle,
                    queue: q.into(),
                    left,
                    first: first.to_string(),
                    second: label.to_string(),
                });
            }
        }
        Ok(())
    }

    pub(super) fn spawn(
        &mut self,
        k: usize,
        cycle: u64,
        run: RunningOp,
        cfg: AsyncConfig,
        label: Label,
        queues: Vec<(usize, QueueRef)>,
    ) -> Result<(), SimError> {
        let (x, y) = self.fabric.coords(k);
        let async_err = |rule: String| SimError::Async {
            x,
            y,
            cycle,
            what: label.to_string(),
            rule,
        };
        let ut = microthread_of(self.arch, &queues, cfg.ut_id).map_err(async_err)?;
        self.check_queues(k, cycle, &label, &queues, Some(ut), run.fabout_color())?;
        let priority = self.priority_of(k, &run, &cfg).map_err(async_err)?;
        let m = Microthread {
            ut,
            rank: microthread_rank(priority),
            label,
            run,
            cfg,
            queues,
            born: cycle,
            waiting: None,
        };
        let st = &mut self.pes[k];
        st.micro.push(m);
        st.micro.sort_by_key(|m| (std::cmp::Reverse(m.rank), m.ut));
        Ok(())
    }

    fn priority_of(
        &self,
        k: usize,
        run: &RunningOp,
        cfg: &AsyncConfig,
    ) -> Result<Priority, String> {
        match self.arch {
            Arch::Wse2 => Ok(cfg.priority.unwrap_or(default_priority(self.arch))),
            Arch::Wse3 => {
                if cfg.priority.is_some() {
                    return Err("on WSE-3 the priority goes on the fabric DSD or the FIFO".into());
                }
                let pe = &self.pes[k].pe;
                let from_operand = |o: &Operand| match o {
                    Operand::Dsd(Dsd::FabIn(f)) => f.priority,
                    Operand::Dsd(Dsd::FabOut(f)) => f.priority,
                    Operand::Fifo(id) => pe.fifo(*id).ok().and_then(|f| f.config.priority),
                    _ => None,
                };
                Ok(std::iter::once(run.dest())
                    .chain(run.srcs())
                    .find_map(from_operand)
                    .unwrap_or(default_priority(self.arch)))
            }
        }
    }
}
