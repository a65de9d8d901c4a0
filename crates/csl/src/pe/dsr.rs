//! Data Structure Registers: `const d = @get_dsr(dsr_dest | dsr_src0 | dsr_src1, n);` names
//! a DSR, `@load_to_dsr(d, dsd)` loads a DSD into it (`.save_address = true` keeps the
//! address where an operation stopped), and operations take the DSR as an operand.
//!
//! A `@load_to_dsr` in a `comptime` block loads when the program is loaded, and may be
//! asynchronous (`.async = true` with `.activate`, `.unblock`, `.ut_id`: operations on the DSR
//! then run asynchronously with those settings, as the simulator models it); one in a body
//! loads when it runs and is synchronous (an asynchronous one there is refused: the
//! simulator takes asynchronous DSR settings only before the run).

use npusim_cerebras::pe::DsrFile;

use crate::ast::Expr;
use crate::comptime::{EvalError, Value};
use crate::span::Span;

/// One `@load_to_dsr(dsr, dsd, .{ ... })` of a `comptime` block.
#[derive(Clone, Debug, PartialEq)]
pub struct DsrLoad {
    /// The DSR's name.
    pub dsr: String,
    /// The module DSD's name.
    pub dsd: String,
    /// `.save_address`.
    pub save_address: bool,
    /// `.async = true`.
    pub is_async: bool,
    /// `.activate`: a local task id.
    pub activate: Option<Value>,
    /// `.unblock`: a task id or a channel.
    pub unblock: Option<Value>,
    /// `.ut_id`: a microthread id.
    pub ut_id: Option<u8>,
    /// Where the call is.
    pub span: Span,
}

/// The DSR file a name denotes.
pub(crate) fn dsr_file(e: &Expr, name: &str) -> Result<DsrFile, EvalError> {
    Ok(match name {
        "dsr_dest" => DsrFile::Dest,
        "dsr_src0" => DsrFile::Src0,
        "dsr_src1" => DsrFile::Src1,
        _ => {
            return Err(EvalError::new(
                e.span,
                "@get_dsr takes a DSR file first (dsr_dest, dsr_src0, dsr_src1)",
            ));
        }
    })
}

/// The options of a comptime `@load_to_dsr` into `load`.
pub(crate) fn load_options(
    load: &mut DsrLoad,
    fields: Vec<(String, Value)>,
    span: Span,
) -> Result<(), EvalError> {
    for (name, v) in fields {
        match (name.as_str(), v) {
            ("save_address", Value::Bool(b)) => load.save_address = b,
            ("async", Value::Bool(b)) => load.is_async = b,
            ("activate", v) => load.activate = Some(v),
            ("unblock", v) => load.unblock = Some(v),
            ("ut_id", Value::MicrothreadId(u)) => load.ut_id = Some(u),
            (n, v) => {
                return Err(EvalError::new(
                    span,
                    format!(
                        "@load_to_dsr option `.{n}` = {} `{v}` is not supported (it takes .save_address, .async, .activate, .unblock, .ut_id)",
                        v.type_name()
                    ),
                ));
            }
        }
    }
    if !load.is_async && (load.activate.is_some() || load.unblock.is_some() || load.ut_id.is_some())
    {
        return Err(EvalError::new(
            span,
            "`.activate` / `.unblock` / `.ut_id` of @load_to_dsr need `.async = true`",
        ));
    }
    Ok(())
}
