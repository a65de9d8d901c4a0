//! A program's own modules: `const m = @import_module("file.csl", .{ .p = v, ... });` in a
//! PE program (or in a module it imports) brings in the declarations of `file.csl` as an
//! instance of their own: its params take the values the import gives (or their defaults),
//! its top-level names become `m__name` in the program's one namespace (`m.name` in the
//! importer names them), its variables are the program's memory, its functions and tasks
//! the program's, and its `comptime` blocks run where the import stands. Importing a file
//! twice gives two instances.
//!
//! Decided, as the SDK's documentation does not say more:
//! * a module file is looked up by its plain name among the program's sources (the
//!   layout's directory); a path with a directory is refused;
//! * the params struct may be a literal (each field a param of the module, an unknown one an
//!   error) or another comptime struct, whose field of each param's name is the param's
//!   value;
//! * a module that imports itself, directly or through others, is an error naming the
//!   chain; at most [`MAX_MODULES`] imports are expanded per program.
//!
//! Diagnostics in a module's code name the module file and its own lines: the module's
//! text is appended to the program's [`SourceFile`], which maps the spans back.

mod rename;

use std::collections::HashMap;

use crate::ast::{Decl, DeclKind, Expr, ExprKind, Module, VarDecl};
use crate::diagnostic::Diagnostic;
use crate::parse::parse;
use crate::source::SourceFile;
use crate::span::Span;

use rename::Renamer;

/// The most own-module imports one program expands.
pub const MAX_MODULES: usize = 64;

/// A program with its own modules brought in.
#[derive(Clone, Debug)]
pub struct Linked {
    /// The program's source with each module's text appended (for diagnostics).
    pub source: SourceFile,
    /// The declarations of the program and of every module instance, in import order.
    pub module: Module,
}

/// An import of an own module: `const alias = @import_module("path", params);`.
struct OwnImport<'a> {
    alias: &'a str,
    path: &'a str,
    path_span: Span,
    params: Option<&'a Expr>,
}

/// The own-module import `d` is, if it is one.
fn own_import(d: &Decl) -> Option<OwnImport<'_>> {
    let DeclKind::Var(v) = &d.kind else {
        return None;
    };
    let ExprKind::Builtin { name, args } = &v.init.as_ref()?.kind else {
        return None;
    };
    let first = args.first()?;
    match (&first.kind, name.as_str()) {
        (ExprKind::Str(path), "import_module") if !path.starts_with('<') => Some(OwnImport {
            alias: &v.name,
            path,
            path_span: first.span,
            params: args.get(1),
        }),
        _ => None,
    }
}

/// The own modules `text` imports (their file names as written), or none if it does not
/// parse.
pub fn own_imports(text: &str) -> Vec<String> {
    parse(&SourceFile::new("", text))
        .map(|m| {
            m.decls
                .iter()
                .filter_map(own_import)
                .map(|i| i.path.to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The top-level name a declaration declares.
fn decl_name(d: &Decl) -> Option<&str> {
    match &d.kind {
        DeclKind::Var(v) => Some(&v.name),
        DeclKind::Param(p) => Some(&p.name),
        DeclKind::Fn(f) | DeclKind::Task(f) => Some(&f.name),
        DeclKind::Comptime(_) | DeclKind::Layout(_) => None,
    }
}

/// What an import gives a module's params.
enum Given {
    /// Nothing (the program itself, or an import without a params struct).
    None,
    /// A struct literal's fields.
    Fields(HashMap<String, Expr>),
    /// Another comptime struct: each param is its field of the same name.
    Struct(Expr),
}

struct Linker<'a> {
    source: SourceFile,
    lookup: &'a dyn Fn(&str) -> Option<String>,
    expanded: usize,
}

/// Brings the own modules `module` (parsed from `source`) imports into it, looking their
/// files up with `lookup`.
pub fn link(
    source: &SourceFile,
    module: Module,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Linked, Diagnostic> {
    if !module.decls.iter().any(|d| own_import(d).is_some()) {
        return Ok(Linked {
            source: source.clone(),
            module,
        });
    }
    let mut l = Linker {
        source: source.clone(),
        lookup,
        expanded: 0,
    };
    let decls = l.expand(module, "", Given::None, &[source.name().to_string()])?;
    Ok(Linked {
        source: l.source,
        module: Module { decls },
    })
}

impl Linker<'_> {
    /// The declarations of `module` instantiated with names under `prefix`.
    fn expand(
        &mut self,
        module: Module,
        prefix: &str,
        given: Given,
        chain: &[String],
    ) -> Result<Vec<Decl>, Diagnostic> {
        let mut names = HashMap::new();
        let mut aliases = HashMap::new();
        for d in &module.decls {
            if let Some(i) = own_import(d) {
                aliases.insert(i.alias.to_string(), format!("{prefix}{}__", i.alias));
            } else if let Some(n) = decl_name(d)
                && !prefix.is_empty()
            {
                names.insert(n.to_string(), format!("{prefix}{n}"));
            }
        }
        let mut r = Renamer::new(names, aliases);
        let mut out = Vec::new();
        for mut d in module.decls {
            if let Some(i) = own_import(&d) {
                let sub_prefix = format!("{prefix}{}__", i.alias);
                let (path, path_span) = (i.path.to_string(), i.path_span);
                let mut params = i.params.cloned();
                if let Some(p) = &mut params {
                    r.expr(p);
                }
                out.extend(self.import(&path, path_span, params, &sub_prefix, chain)?);
                continue;
            }
            r.decl(&mut d);
            match &mut d.kind {
                DeclKind::Param(p) if !prefix.is_empty() => {
                    let value = match &given {
                        Given::Fields(f) => f.get(&p.name).cloned(),
                        Given::Struct(s) => Some(Expr::new(
                            ExprKind::Field {
                                base: Box::new(s.clone()),
                                name: p.name.clone(),
                            },
                            s.span,
                        )),
                        Given::None => None,
                    }
                    .or_else(|| p.default.clone());
                    let name = format!("{prefix}{}", p.name);
                    match value {
                        Some(init) => {
                            d.kind = DeclKind::Var(VarDecl {
                                is_export: false,
                                is_extern: false,
                                is_const: true,
                                name,
                                ty: p.ty.clone(),
                                align: None,
                                init: Some(init),
                                name_span: p.name_span,
                            });
                        }
                        None => p.name = name,
                    }
                }
                DeclKind::Var(v) if !prefix.is_empty() => v.name = format!("{prefix}{}", v.name),
                DeclKind::Fn(f) | DeclKind::Task(f) if !prefix.is_empty() => {
                    f.name = format!("{prefix}{}", f.name);
                }
                _ => {}
            }
            out.push(d);
        }
        Ok(out)
    }

    /// The declarations of module file `path` imported with `params` under `prefix`.
    fn import(
        &mut self,
        path: &str,
        span: Span,
        params: Option<Expr>,
        prefix: &str,
        chain: &[String],
    ) -> Result<Vec<Decl>, Diagnostic> {
        let err = |s: &SourceFile, span: Span, m: String| s.diagnostic(span, m);
        if path.contains(['/', '\\']) || path.is_empty() {
            return Err(err(
                &self.source,
                span,
                format!(
                    "module `{path}` is not a plain file name: own modules are looked up beside the layout"
                ),
            ));
        }
        if chain.iter().any(|f| f == path) {
            let mut names: Vec<&str> = chain.iter().map(String::as_str).collect();
            names.push(path);
            return Err(err(
                &self.source,
                span,
                format!("module `{path}` imports itself: {}", names.join(" -> ")),
            ));
        }
        self.expanded += 1;
        if self.expanded > MAX_MODULES {
            return Err(err(
                &self.source,
                span,
                format!("more than {MAX_MODULES} module imports in one program"),
            ));
        }
        let Some(text) = (self.lookup)(path) else {
            return Err(err(
                &self.source,
                span,
                format!("module file `{path}` is not among the program's sources"),
            ));
        };
        // parsed alone first, so a syntax error names the module's own lines
        parse(&SourceFile::new(path, text.as_str()))?;
        let start = self.source.append(path, &text);
        let padded = format!("{}{text}", " ".repeat(start));
        let module = parse(&SourceFile::new(path, padded))?;
        let given = match params {
            None => Given::None,
            Some(Expr {
                kind: ExprKind::StructLit(fields),
                ..
            }) => {
                let declared: Vec<&str> = module
                    .decls
                    .iter()
                    .filter_map(|d| match &d.kind {
                        DeclKind::Param(p) => Some(p.name.as_str()),
                        _ => None,
                    })
                    .collect();
                if let Some(f) = fields.iter().find(|f| !declared.contains(&f.name.as_str())) {
                    return Err(err(
                        &self.source,
                        f.value.span,
                        format!("module `{path}` has no param `{}`", f.name),
                    ));
                }
                Given::Fields(fields.into_iter().map(|f| (f.name, f.value)).collect())
            }
            Some(other) => Given::Struct(other),
        };
        let mut chain = chain.to_vec();
        chain.push(path.to_string());
        self.expand(module, prefix, given, &chain)
    }
}
