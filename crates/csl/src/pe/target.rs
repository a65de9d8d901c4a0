//! What `@activate`, `@block`, `@unblock` and the `.activate` / `.unblock` options name: a
//! task, a channel or a microthread, each as the architecture spells it.

use npusim_cerebras::Arch as SimArch;
use npusim_cerebras::ids::{
    Channel, Color, ControlTaskId, DataTaskId, InputQueue, LocalTaskId, MicrothreadId, TaskId,
};

use super::exec::{Fault, RResult, fault};
use super::value::RtValue;
use crate::comptime::Value;
use crate::span::Span;

fn local_id(n: u8, span: Span) -> RResult<LocalTaskId> {
    LocalTaskId::new(i64::from(n)).or_else(|e| fault(span, e.to_string()))
}

/// What `@activate`, `@block`, `@unblock`, `.activate` and `.unblock` name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    /// A local, data or control task.
    Task(TaskId),
    /// A color (WSE-2) or an input queue (WSE-3).
    Channel(Channel),
    /// A WSE-3 microthread.
    Microthread(MicrothreadId),
}

/// The task, channel or microthread `v` names on `arch`: a data task id is its color on
/// WSE-2 and its input queue on WSE-3; a color is a channel on WSE-2 only, an input queue on
/// WSE-3 only.
pub(crate) fn target_of(v: &RtValue, arch: SimArch, span: Span) -> RResult<Target> {
    let err = |e: &dyn std::fmt::Display| Fault {
        span,
        message: e.to_string(),
    };
    Ok(match v {
        RtValue::Comptime(Value::LocalTaskId(n)) => Target::Task(local_id(*n, span)?.into()),
        RtValue::Comptime(Value::ControlTaskId(n)) => Target::Task(
            ControlTaskId::new(i64::from(*n))
                .map_err(|e| err(&e))?
                .into(),
        ),
        RtValue::Comptime(Value::DataTaskId(n)) => Target::Task(TaskId::Data(match arch {
            SimArch::Wse2 => DataTaskId::of_color(Color::new(i64::from(*n)).map_err(|e| err(&e))?),
            SimArch::Wse3 => {
                DataTaskId::of_queue(InputQueue::new(i64::from(*n)).map_err(|e| err(&e))?)
            }
        })),
        RtValue::Comptime(Value::Color(c)) if arch == SimArch::Wse2 => Target::Channel(
            Channel::Color(Color::new(i64::from(*c)).map_err(|e| err(&e))?),
        ),
        RtValue::Comptime(Value::InputQueue(q)) if arch == SimArch::Wse3 => Target::Channel(
            Channel::Queue(InputQueue::new(i64::from(*q)).map_err(|e| err(&e))?),
        ),
        RtValue::Comptime(Value::MicrothreadId(u)) => {
            Target::Microthread(MicrothreadId::new(i64::from(*u)).map_err(|e| err(&e))?)
        }
        RtValue::Comptime(Value::Color(c)) => {
            return fault(
                span,
                format!("color {c} names a channel on WSE-2 only; WSE-3 names its input queue"),
            );
        }
        RtValue::Comptime(Value::InputQueue(q)) => {
            return fault(
                span,
                format!("input queue {q} names a channel on WSE-3 only; WSE-2 names its color"),
            );
        }
        other => {
            return fault(
                span,
                format!(
                    "expected a task id, a channel or a microthread id, found {} `{other}`",
                    other.type_name()
                ),
            );
        }
    })
}
