//! Which tensors of a `.safetensors` file a cast converts, and why the others are kept. The
//! streamed cast and its dry run ([`super::preview()`]) both decide here.
//!
//! The selection ([`CastJob::tensors`], `npusim cast --tensor`) takes exact names or glob
//! patterns (`*`, `?`, `[...]`, matched by the `glob` crate; `*` also matches dots, so
//! `model.layers.*.mlp.*` picks every MLP tensor of every layer), and the exclusion
//! ([`CastJob::exclude`], `--exclude`) takes the same and wins over the selection. Every
//! pattern must match at least one tensor. An exact name of a tensor npusim has no format for
//! is an error; a glob that also matches such tensors keeps them.

use std::path::Path;

use glob::Pattern;
use npusim_numerics::Format;
use safetensors::Dtype;

use super::job::CastJob;
use super::keep_reason::KeepReason;
use super::select_error::{PatternList, SelectError};
use crate::error::IoError;
use crate::safetensors::Interp;

/// One entry of the selection or exclusion: the text and, if it has glob characters, its pattern.
#[derive(Clone, Debug)]
struct Entry {
    text: String,
    pattern: Option<Pattern>,
}

impl Entry {
    fn new(option: PatternList, text: &str) -> Result<Entry, SelectError> {
        let is_glob = text.contains(['*', '?', '[']);
        let pattern = if is_glob {
            Some(Pattern::new(text).map_err(|e| SelectError::BadPattern {
                option,
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

/// The selection and exclusion patterns of a cast.
#[derive(Clone, Debug, Default)]
pub(crate) struct TensorFilter {
    include: Vec<Entry>,
    exclude: Vec<Entry>,
}

/// How many names an error message lists.
const NAMES_SHOWN: usize = 12;

impl TensorFilter {
    /// Compiles the patterns; an invalid glob is an error naming it.
    pub(crate) fn new(include: &[String], exclude: &[String]) -> Result<TensorFilter, SelectError> {
        let compile = |option, list: &[String]| {
            list.iter()
                .map(|t| Entry::new(option, t))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(TensorFilter {
            include: compile(PatternList::Selection, include)?,
            exclude: compile(PatternList::Exclusion, exclude)?,
        })
    }

    /// The filter of `job`.
    pub(crate) fn of(job: &CastJob) -> Result<TensorFilter, SelectError> {
        TensorFilter::new(&job.tensors, &job.exclude)
    }

    /// Every pattern must match a tensor of those `names` gives (the tensors of `path`, as
    /// often as asked); an exact name of the selection that is missing is
    /// [`IoError::NoSuchTensor`].
    pub(crate) fn check_matches<'n, I: Iterator<Item = &'n str>>(
        &self,
        names: impl Fn() -> I,
        path: &Path,
    ) -> Result<(), IoError> {
        let lists = [
            (PatternList::Selection, &self.include),
            (PatternList::Exclusion, &self.exclude),
        ];
        for (option, list) in lists {
            for entry in list.iter() {
                if !names().any(|n| entry.matches(n)) {
                    if option == PatternList::Selection && entry.pattern.is_none() {
                        return Err(IoError::NoSuchTensor {
                            wanted: entry.text.clone(),
                            path: path.to_path_buf(),
                            names: names().map(str::to_string).collect(),
                        });
                    }
                    let count = names().count();
                    let mut shown: Vec<&str> = names().take(NAMES_SHOWN).collect();
                    if count > NAMES_SHOWN {
                        shown.push("...");
                    }
                    return Err(SelectError::NoMatch {
                        option,
                        pattern: entry.text.clone(),
                        path: path.to_path_buf(),
                        count,
                        names: shown.join(", "),
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    /// Whether `name` is named exactly (not only by a glob) by the selection.
    fn named_exactly(&self, name: &str) -> bool {
        self.include.iter().any(|e| e.text == name)
    }

    /// Whether an entry of the selection matches `name`.
    fn included(&self, name: &str) -> bool {
        self.include.iter().any(|e| e.matches(name))
    }

    /// Whether an entry of the exclusion matches `name`.
    fn excluded(&self, name: &str) -> bool {
        self.exclude.iter().any(|e| e.matches(name))
    }
}

/// What happens to one tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    /// Cast from this interpretation.
    Cast(Interp),
    /// Copied unchanged.
    Keep(KeepReason),
}

/// Decides for tensor `name` of `dtype`, read as `interp` (`None`: no npusim format), given
/// the `filter` (no selection: every floating-point tensor but f8e8m0 scales).
pub(crate) fn select(
    name: &str,
    dtype: Dtype,
    interp: Option<Interp>,
    filter: &TensorFilter,
) -> Result<Selection, IoError> {
    if filter.excluded(name) {
        return Ok(Selection::Keep(KeepReason::Excluded));
    }
    let named = filter.included(name);
    Ok(match interp {
        Some(i) if named => Selection::Cast(i),
        None if filter.named_exactly(name) => {
            return Err(IoError::NoFormatForTensor {
                name: name.to_string(),
                dtype,
            });
        }
        None if named => Selection::Keep(KeepReason::NoFormat),
        _ if !filter.include.is_empty() => Selection::Keep(KeepReason::NotSelected),
        None => Selection::Keep(KeepReason::NoFormat),
        Some(i) if i.format == Format::F8E8M0 => Selection::Keep(KeepReason::ScaleTensor),
        Some(i) if i.format.is_int() => Selection::Keep(KeepReason::Integer),
        Some(i) => Selection::Cast(i),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::SubByte;

    fn interp(format: Format) -> Option<Interp> {
        Some(Interp {
            format,
            shape: vec![2],
            sub: SubByte::OnePerByte,
        })
    }

    fn filter(include: &[&str], exclude: &[&str]) -> TensorFilter {
        let s = |l: &[&str]| l.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        TensorFilter::new(&s(include), &s(exclude)).unwrap()
    }

    #[test]
    fn floats_are_cast_and_the_rest_kept_unless_named() {
        let none = filter(&[], &[]);
        let sel = |f, filter: &TensorFilter| select("t", Dtype::F32, interp(f), filter).unwrap();
        assert_eq!(
            sel(Format::F32, &none),
            Selection::Cast(interp(Format::F32).unwrap())
        );
        assert_eq!(
            sel(Format::I64, &none),
            Selection::Keep(KeepReason::Integer)
        );
        assert_eq!(
            sel(Format::F8E8M0, &none),
            Selection::Keep(KeepReason::ScaleTensor)
        );
        let named = filter(&["t"], &[]);
        assert!(matches!(sel(Format::F8E8M0, &named), Selection::Cast(_)));
        let other = filter(&["u"], &[]);
        assert_eq!(
            sel(Format::F32, &other),
            Selection::Keep(KeepReason::NotSelected)
        );
        assert_eq!(
            select("t", Dtype::BOOL, None, &none).unwrap(),
            Selection::Keep(KeepReason::NoFormat)
        );
        let e = select("t", Dtype::BOOL, None, &named)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "tensor `t` has dtype BOOL, which npusim has no format for"
        );
        // A glob that matches a tensor without a format keeps it.
        assert_eq!(
            select("t", Dtype::BOOL, None, &filter(&["*"], &[])).unwrap(),
            Selection::Keep(KeepReason::NoFormat)
        );
    }

    #[test]
    fn globs_pick_and_exclude_wins() {
        let names = [
            "model.layers.0.mlp.up_proj.weight",
            "model.layers.0.self_attn.q_proj.weight",
            "model.layers.11.mlp.down_proj.weight",
            "lm_head.weight",
        ];
        let f = filter(
            &["model.layers.*.mlp.*", "lm_head.weight"],
            &["*.down_proj.*"],
        );
        let picked: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| {
                matches!(
                    select(n, Dtype::F32, interp(Format::F32), &f).unwrap(),
                    Selection::Cast(_)
                )
            })
            .collect();
        assert_eq!(
            picked,
            ["model.layers.0.mlp.up_proj.weight", "lm_head.weight"]
        );
        assert_eq!(
            select(names[2], Dtype::F32, interp(Format::F32), &f).unwrap(),
            Selection::Keep(KeepReason::Excluded)
        );
        let owned = || names.iter().copied();
        f.check_matches(owned, Path::new("m.safetensors")).unwrap();
        let e = filter(&["*.mlp.gate_proj.*"], &[])
            .check_matches(owned, Path::new("m.safetensors"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "tensor selection `*.mlp.gate_proj.*` matches no tensor of `m.safetensors` (4 tensors: model.layers.0.mlp.up_proj.weight, model.layers.0.self_attn.q_proj.weight, model.layers.11.mlp.down_proj.weight, lm_head.weight)"
        );
        let e = filter(&["lm_head"], &[])
            .check_matches(owned, Path::new("m.safetensors"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("no tensor named `lm_head` in `m.safetensors`"),
            "{e}"
        );
        let e = TensorFilter::new(&[], &["a[".to_string()])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("tensor exclusion `a[` is not a valid glob pattern"),
            "{e}"
        );
    }
}
