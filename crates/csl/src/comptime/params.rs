//! Param values given to the compiler as `name:value,name:value` (what `cslc --params`
//! takes): integers in any base with `_`, optionally negative, or floats.

use thiserror::Error;

use super::value::Value;
use crate::lex::{Tok, lex};

/// Why a params list does not read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParamsError {
    /// An entry without `:`.
    #[error("param entry `{entry}` is not `name:value`")]
    NotNameValue {
        /// The entry as written.
        entry: String,
    },
    /// A name that is not an identifier.
    #[error("param name `{name}` is not an identifier")]
    BadName {
        /// The name as written.
        name: String,
    },
    /// A value that is not a number.
    #[error("value `{value}` of param `{name}` is not an integer or float")]
    BadValue {
        /// The param.
        name: String,
        /// The value as written.
        value: String,
    },
    /// The same name twice.
    #[error("param `{name}` is given twice")]
    Duplicate {
        /// The param.
        name: String,
    },
}

/// Reads `M:4,N:6` into `[("M", 4), ("N", 6)]` (`comptime_int` and `comptime_float`
/// values); an empty text gives no params.
///
/// ```
/// use npusim_csl::comptime::{Value, parse_params};
/// let p = parse_params("M:4,N:-0x10,eps:0.5").unwrap();
/// assert_eq!(p[1], ("N".to_string(), Value::comptime_int(-16)));
/// assert!(parse_params("M=4").is_err());
/// ```
pub fn parse_params(text: &str) -> Result<Vec<(String, Value)>, ParamsError> {
    let mut out: Vec<(String, Value)> = Vec::new();
    for entry in text.split(',').filter(|e| !e.trim().is_empty()) {
        let Some((name, value)) = entry.split_once(':') else {
            return Err(ParamsError::NotNameValue {
                entry: entry.to_string(),
            });
        };
        let name = name.trim();
        let is_ident = lex(name).is_ok_and(|t| t.len() == 1 && t[0].tok == Tok::Ident);
        if !is_ident {
            return Err(ParamsError::BadName {
                name: name.to_string(),
            });
        }
        let parsed = parse_number(value.trim()).ok_or_else(|| ParamsError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
        })?;
        if out.iter().any(|(n, _)| n == name) {
            return Err(ParamsError::Duplicate {
                name: name.to_string(),
            });
        }
        out.push((name.to_string(), parsed));
    }
    Ok(out)
}

fn parse_number(text: &str) -> Option<Value> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let expr = crate::parse::parse_text(&format!("const v = {body};")).ok()?;
    let init = match &expr.decls.first()?.kind {
        crate::ast::DeclKind::Var(v) => v.init.clone()?,
        _ => return None,
    };
    match init.kind {
        crate::ast::ExprKind::Int(v) => {
            let v = i128::try_from(v).ok()?;
            Some(Value::comptime_int(if negative { -v } else { v }))
        }
        crate::ast::ExprKind::Float(t) => {
            let v: f64 = t.parse().ok()?;
            Some(Value::Float {
                value: if negative { -v } else { v },
                ty: super::value::Type::ComptimeFloat,
            })
        }
        _ => None,
    }
}
