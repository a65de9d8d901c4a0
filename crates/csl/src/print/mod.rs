//! The printer: a syntax tree back to canonical CSL text (two-space indents, one statement
//! a line, parentheses exactly where precedence needs them, integers in decimal, comments
//! dropped). Printing what the parser made and parsing it again gives a tree that prints
//! the same text.

mod expr;
mod literal;
mod stmt;

use crate::ast::{Expr, Module};

/// Builds the text.
pub(crate) struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn new() -> Printer {
        Printer {
            out: String::new(),
            indent: 0,
        }
    }

    fn push(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }
}

/// The canonical text of a module.
///
/// ```
/// use npusim_csl::parse::parse_text;
/// use npusim_csl::print::print_module;
/// let m = parse_text("const  x:i16=(1+2)*3 ; // three\nfn f()void{return;}").unwrap();
/// assert_eq!(print_module(&m), "const x: i16 = (1 + 2) * 3;\n\nfn f() void {\n  return;\n}\n");
/// ```
pub fn print_module(module: &Module) -> String {
    let mut p = Printer::new();
    let mut previous_was_block = false;
    for (i, decl) in module.decls.iter().enumerate() {
        let is_block = p.is_block_decl(decl);
        if i > 0 && (is_block || previous_was_block) {
            p.push("\n");
        }
        p.decl(decl);
        p.push("\n");
        previous_was_block = is_block;
    }
    p.out
}

/// The canonical text of an expression.
///
/// ```
/// use npusim_csl::parse::parse_text;
/// use npusim_csl::print::print_expr;
/// use npusim_csl::ast::{DeclKind};
/// let m = parse_text("const y = a + b * c == d or !e and f;").unwrap();
/// let DeclKind::Var(v) = &m.decls[0].kind else { panic!() };
/// assert_eq!(print_expr(v.init.as_ref().unwrap()), "a + b * c == d or !e and f");
/// ```
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer::new();
    p.expr(e, 0);
    p.out
}
