//! Which tensors of a file `quantize` quantises.
//!
//! Without a selection every floating tensor (F32, F64, F16, BF16) of two or more dimensions
//! is quantised; one-dimensional tensors (norms, biases) and scalars are kept, as published
//! quantised checkpoints keep them. A selection (exact names or globs, `*` matching dots too)
//! quantises the floating tensors it matches, one-dimensional ones included. The exclusion
//! wins over the selection. Every pattern must match a tensor; a tensor named exactly whose
//! dtype is not such a float is an error, one only matched by a glob is kept.

use glob::Pattern;
use safetensors::Dtype;

use super::error::QuantizeError;

/// How many names an error message lists.
const NAMES_SHOWN: usize = 12;

/// One pattern: its text and, if it has glob characters, the compiled glob.
#[derive(Clone, Debug)]
struct Entry {
    text: String,
    pattern: Option<Pattern>,
}

impl Entry {
    fn new(text: &str) -> Result<Entry, QuantizeError> {
        let pattern = if text.contains(['*', '?', '[']) {
            Some(Pattern::new(text).map_err(|e| QuantizeError::BadPattern {
                pattern: text.to_string(),
                reason: e.msg.to_string(),
                pos: e.pos,
            })?)
        } else {
            None
        };
        Ok(Entry {
            text: text.to_string(),
            pattern,
        })
    }

    fn matches(&self, name: &str) -> bool {
        self.text == name || self.pattern.as_ref().is_some_and(|p| p.matches(name))
    }
}

/// Why a tensor is copied unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptBecause {
    /// Matched by the exclusion.
    Excluded,
    /// Not matched by the selection.
    NotSelected,
    /// Fewer than two dimensions, and no selection names it.
    OneDimensional,
    /// Not a F32, F64, F16 or BF16 tensor.
    NotFloat,
}

impl std::fmt::Display for KeptBecause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KeptBecause::Excluded => "excluded",
            KeptBecause::NotSelected => "not selected",
            KeptBecause::OneDimensional => "fewer than 2 dimensions",
            KeptBecause::NotFloat => "not a floating tensor",
        })
    }
}

/// The compiled selection and exclusion.
#[derive(Clone, Debug, Default)]
pub(crate) struct Filter {
    include: Vec<Entry>,
    exclude: Vec<Entry>,
}

/// Whether `dtype` is one `quantize` reads.
pub(crate) fn is_float(dtype: Dtype) -> bool {
    matches!(dtype, Dtype::F32 | Dtype::F64 | Dtype::F16 | Dtype::BF16)
}

impl Filter {
    /// Compiles the patterns.
    pub(crate) fn new(include: &[String], exclude: &[String]) -> Result<Filter, QuantizeError> {
        let compile = |l: &[String]| {
            l.iter()
                .map(|t| Entry::new(t))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Filter {
            include: compile(include)?,
            exclude: compile(exclude)?,
        })
    }

    /// Every pattern must match one of `names`.
    pub(crate) fn check_matches(&self, names: &[String]) -> Result<(), QuantizeError> {
        for entry in self.include.iter().chain(&self.exclude) {
            if !names.iter().any(|n| entry.matches(n)) {
                let mut shown: Vec<&str> =
                    names.iter().take(NAMES_SHOWN).map(String::as_str).collect();
                if names.len() > NAMES_SHOWN {
                    shown.push("...");
                }
                return Err(QuantizeError::NoMatch {
                    pattern: entry.text.clone(),
                    count: names.len(),
                    names: shown.join(", "),
                });
            }
        }
        Ok(())
    }

    /// `Ok(None)`: quantise the tensor; `Ok(Some(reason))`: keep it.
    pub(crate) fn decide(
        &self,
        name: &str,
        dtype: Dtype,
        shape: &[usize],
    ) -> Result<Option<KeptBecause>, QuantizeError> {
        if self.exclude.iter().any(|e| e.matches(name)) {
            return Ok(Some(KeptBecause::Excluded));
        }
        let included = self.include.iter().any(|e| e.matches(name));
        if !is_float(dtype) {
            if self.include.iter().any(|e| e.text == name) {
                return Err(QuantizeError::NotQuantizable {
                    name: name.to_string(),
                    dtype,
                    shape: shape.to_vec(),
                });
            }
            return Ok(Some(KeptBecause::NotFloat));
        }
        Ok(match (self.include.is_empty(), included) {
            (false, true) => None,
            (false, false) => Some(KeptBecause::NotSelected),
            (true, _) if shape.len() >= 2 => None,
            (true, _) => Some(KeptBecause::OneDimensional),
        })
    }
}
