//! The SDK libraries a layout calls at compile time.
//!
//! `<memcpy/get_params>`: `get_params(x)` (or `(x, y)`) gives the struct a PE program
//! imports `<memcpy/memcpy>` with: the fields the library was imported with (`width`,
//! `height`, ...) and the PE's column as `pe_x` (and row as `pe_y`). What those mean on the
//! fabric (the colors and queues memcpy reserves) is decided where the program is lowered.
//! `<memcpy_multi/get_params>`, the older SDK's name of the library, gives the same.
//!
//! `<collectives_2d/params>`: `get_params(x, y, config)` gives the fields of `config`
//! (`x_colors`, `x_entrypoints`, ...) and the PE's `pe_x` and `pe_y`, for the PE program's
//! `<collectives_2d/pe>` import.

use super::super::error::{EResult, EvalError};
use super::super::value::{ModuleRef, Value};
use super::Evaluator;
use crate::span::Span;

impl Evaluator<'_> {
    pub(super) fn library_call(
        &mut self,
        module: &ModuleRef,
        name: &str,
        args: &[Value],
        span: Span,
    ) -> EResult<Value> {
        match (module.path.as_str(), name) {
            ("<memcpy/get_params>" | "<memcpy_multi/get_params>", "get_params") => {
                self.arity("get_params", args, &[1, 2], span)?;
                let mut fields = module.params.clone();
                for (i, field) in ["pe_x", "pe_y"].iter().enumerate().take(args.len()) {
                    self.int_of(&args[i], "a PE coordinate", span)?;
                    fields.push(((*field).to_string(), args[i].clone()));
                }
                Ok(Value::Struct(fields))
            }
            ("<collectives_2d/params>", "get_params") => {
                self.arity("get_params", args, &[3], span)?;
                let Value::Struct(config) = &args[2] else {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "get_params takes a config struct third, found {}",
                            args[2].type_name()
                        ),
                    ));
                };
                let mut fields = config.clone();
                for (i, field) in ["pe_x", "pe_y"].iter().enumerate() {
                    self.int_of(&args[i], "a PE coordinate", span)?;
                    fields.push(((*field).to_string(), args[i].clone()));
                }
                Ok(Value::Struct(fields))
            }
            (path, name) => Err(EvalError::new(
                span,
                format!("`{name}` of library `{path}` is not available at compile time yet"),
            )),
        }
    }
}
