//! Printing is stable: for any tree the parser can make, print → parse → print gives the same
//! text, and printing the parse of the tutorial-style programs is stable too.

use npusim_csl::Span;
use npusim_csl::ast::{
    AssignOp, BinOp, Block, Decl, DeclKind, Else, Expr, ExprKind, FieldInit, FnDecl, Module,
    ProngBody, Stmt, StmtKind, SwitchItem, SwitchProng, TensorAccess, UnOp, VarDecl,
};
use npusim_csl::parse::parse_text;
use npusim_csl::print::print_module;
use proptest::prelude::*;

fn e(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}

fn b(x: Expr) -> Box<Expr> {
    Box::new(x)
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "x_1", "_t", "RAMP", "f32", "i16", "memcpy"])
        .prop_map(String::from)
}

const OPS: [BinOp; 19] = [
    BinOp::Or,
    BinOp::And,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::BitAnd,
    BinOp::BitXor,
    BinOp::BitOr,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::Add,
    BinOp::Sub,
    BinOp::Concat,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
];

/// The operators that have an `op=` form.
const COMPOUND: [BinOp; 10] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::BitAnd,
    BinOp::BitOr,
    BinOp::BitXor,
    BinOp::Shl,
    BinOp::Shr,
];

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        name().prop_map(|n| e(ExprKind::Ident(n))),
        any::<u128>().prop_map(|v| e(ExprKind::Int(v))),
        prop::sample::select(vec!["1.5", "2.0e-3", "1e6", "0.25E+2"])
            .prop_map(|t| e(ExprKind::Float(t.into()))),
        any::<String>().prop_map(|s| e(ExprKind::Str(s))),
        any::<char>().prop_map(|c| e(ExprKind::Char(u32::from(c)))),
        any::<bool>().prop_map(|v| e(ExprKind::Bool(v))),
        Just(e(ExprKind::Undefined)),
        Just(e(ExprKind::VoidLit)),
        name().prop_map(|n| e(ExprKind::EnumLit(n))),
    ]
}

fn type_leaf() -> impl Strategy<Value = Expr> {
    name().prop_map(|n| e(ExprKind::Ident(n)))
}

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        let list = prop::collection::vec(inner.clone(), 0..3);
        prop_oneof![
            (
                prop::sample::select(OPS.to_vec()),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, l, r)| e(ExprKind::Binary(op, b(l), b(r)))),
            (
                prop::sample::select(vec![UnOp::Neg, UnOp::Not, UnOp::BitNot, UnOp::AddrOf]),
                inner.clone()
            )
                .prop_map(|(op, x)| e(ExprKind::Unary(op, b(x)))),
            (inner.clone(), list.clone())
                .prop_map(|(c, args)| e(ExprKind::Call { callee: b(c), args })),
            (name(), list.clone()).prop_map(|(name, args)| e(ExprKind::Builtin { name, args })),
            (inner.clone(), prop::collection::vec(inner.clone(), 1..3)).prop_map(|(x, indices)| e(
                ExprKind::Index {
                    base: b(x),
                    indices
                }
            )),
            (
                inner.clone(),
                inner.clone(),
                prop::option::of(inner.clone())
            )
                .prop_map(|(x, s, end)| e(ExprKind::Slice {
                    base: b(x),
                    start: b(s),
                    end: end.map(b)
                })),
            (inner.clone(), name()).prop_map(|(x, name)| e(ExprKind::Field { base: b(x), name })),
            inner.clone().prop_map(|x| e(ExprKind::Deref(b(x)))),
            (
                inner.clone(),
                inner.clone(),
                prop::option::of(inner.clone())
            )
                .prop_map(|(c, t, o)| e(ExprKind::If {
                    cond: b(c),
                    then: b(t),
                    otherwise: o.map(b)
                })),
            prop::collection::vec((name(), inner.clone()), 0..3).prop_map(|fs| e(
                ExprKind::StructLit(
                    fs.into_iter()
                        .map(|(name, value)| FieldInit { name, value })
                        .collect()
                )
            )),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|xs| e(ExprKind::ListLit(xs))),
            (
                prop::collection::vec(inner.clone(), 1..3),
                type_leaf(),
                list.clone()
            )
                .prop_map(|(dims, elem, elems)| e(ExprKind::TypedList {
                    ty: b(e(ExprKind::ArrayType {
                        dims,
                        elem: b(elem)
                    })),
                    elems
                })),
            (prop::collection::vec(inner.clone(), 1..3), type_leaf()).prop_map(|(dims, elem)| e(
                ExprKind::ArrayType {
                    dims,
                    elem: b(elem)
                }
            )),
            (any::<bool>(), type_leaf()).prop_map(|(is_const, elem)| e(ExprKind::ManyPtrType {
                is_const,
                elem: b(elem)
            })),
            (any::<bool>(), type_leaf()).prop_map(|(is_const, elem)| e(ExprKind::PtrType {
                is_const,
                elem: b(elem)
            })),
            (
                inner.clone(),
                prop::collection::vec(
                    (
                        prop::collection::vec(
                            (inner.clone(), prop::option::of(inner.clone())),
                            0..3
                        ),
                        inner.clone()
                    ),
                    1..3
                )
            )
                .prop_map(|(subject, prongs)| e(ExprKind::Switch {
                    subject: b(subject),
                    prongs: prongs
                        .into_iter()
                        .map(|(items, body)| SwitchProng {
                            items: items
                                .into_iter()
                                .map(|(lo, hi)| match hi {
                                    Some(hi) => SwitchItem::Range(lo, hi),
                                    None => SwitchItem::Value(lo),
                                })
                                .collect(),
                            body: ProngBody::Expr(body),
                        })
                        .collect(),
                })),
            (
                name(),
                prop::collection::vec(inner.clone(), 1..3),
                inner.clone()
            )
                .prop_map(|(i, extents, idx)| e(ExprKind::TensorAccess(
                    TensorAccess {
                        indices: vec![i],
                        extents,
                        target: b(e(ExprKind::Index {
                            base: b(e(ExprKind::Ident("A".into()))),
                            indices: vec![idx]
                        })),
                    }
                ))),
        ]
    })
}

fn stmt_of(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}

fn block_of(stmts: Vec<Stmt>) -> Block {
    Block {
        stmts,
        span: Span::default(),
    }
}

fn var(is_const: bool, name: String, ty: Option<Expr>, init: Option<Expr>) -> VarDecl {
    VarDecl {
        is_export: false,
        is_extern: false,
        is_const,
        name,
        ty,
        align: None,
        init,
        name_span: Span::default(),
    }
}

fn stmt() -> impl Strategy<Value = Stmt> {
    let simple = prop_oneof![
        expr().prop_map(|x| stmt_of(StmtKind::Expr(x))),
        (
            expr(),
            prop::option::of(prop::sample::select(COMPOUND.to_vec())),
            expr()
        )
            .prop_map(|(target, op, value)| stmt_of(StmtKind::Assign {
                target,
                op: op.map_or(AssignOp::Set, AssignOp::Compound),
                value
            })),
        (
            any::<bool>(),
            name(),
            prop::option::of(type_leaf()),
            prop::option::of(expr())
        )
            .prop_map(|(c, n, t, i)| stmt_of(StmtKind::Var(var(c, n, t, i)))),
        prop::option::of(expr()).prop_map(|v| stmt_of(StmtKind::Return(v))),
        Just(stmt_of(StmtKind::Break)),
        Just(stmt_of(StmtKind::Continue)),
    ];
    simple.prop_recursive(3, 24, 3, |inner| {
        let body = prop::collection::vec(inner.clone(), 0..3).prop_map(block_of);
        prop_oneof![
            (expr(), body.clone(), prop::option::of(body.clone())).prop_map(|(cond, then, o)| {
                stmt_of(StmtKind::If {
                    cond,
                    then,
                    otherwise: o.map(Else::Block),
                })
            }),
            (expr(), body.clone(), inner.clone()).prop_map(|(cond, then, s)| {
                let nested = stmt_of(StmtKind::If {
                    cond: cond.clone(),
                    then: then.clone(),
                    otherwise: None,
                });
                let _ = s;
                stmt_of(StmtKind::If {
                    cond,
                    then,
                    otherwise: Some(Else::If(Box::new(nested))),
                })
            }),
            (expr(), prop::option::of(expr()), body.clone()).prop_map(|(cond, step, body)| {
                let step = step.map(|x| Box::new(stmt_of(StmtKind::Expr(x))));
                stmt_of(StmtKind::While { cond, step, body })
            }),
            (expr(), prop::collection::vec(name(), 1..3), body.clone()).prop_map(
                |(iter, captures, body)| stmt_of(StmtKind::For {
                    iter,
                    captures,
                    body
                })
            ),
            body.clone().prop_map(|b| stmt_of(StmtKind::Block(b))),
            (expr(), expr(), body.clone()).prop_map(|(subject, v, blk)| stmt_of(StmtKind::Expr(
                e(ExprKind::Switch {
                    subject: b(subject),
                    prongs: vec![
                        SwitchProng {
                            items: vec![SwitchItem::Value(v)],
                            body: ProngBody::Block(blk)
                        },
                        SwitchProng {
                            items: Vec::new(),
                            body: ProngBody::Expr(e(ExprKind::VoidLit))
                        },
                    ],
                })
            ))),
            body.prop_map(|b| stmt_of(StmtKind::Comptime(b))),
        ]
    })
}

fn module() -> impl Strategy<Value = Module> {
    let decl = prop_oneof![
        (
            any::<bool>(),
            name(),
            prop::option::of(type_leaf()),
            prop::option::of(expr())
        )
            .prop_map(|(c, n, t, i)| DeclKind::Var(var(c, n, t, i))),
        (name(), type_leaf(), prop::collection::vec(stmt(), 0..4)).prop_map(|(name, ret, body)| {
            DeclKind::Fn(FnDecl {
                is_export: false,
                is_extern: false,
                is_inline: false,
                name,
                params: Vec::new(),
                ret,
                body: Some(block_of(body)),
                name_span: Span::default(),
            })
        }),
        prop::collection::vec(stmt(), 0..4).prop_map(|s| DeclKind::Layout(block_of(s))),
    ];
    prop::collection::vec(decl, 0..4).prop_map(|kinds| Module {
        decls: kinds
            .into_iter()
            .map(|kind| Decl {
                kind,
                span: Span::default(),
            })
            .collect(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]
    #[test]
    fn print_parse_print_is_stable(m in module()) {
        let first = print_module(&m);
        let reparsed = parse_text(&first).map_err(|err| {
            TestCaseError::fail(format!("{err} at {:?} in\n{first}", err.span))
        })?;
        prop_assert_eq!(print_module(&reparsed), first);
    }
}

#[test]
fn the_programs_print_stably() {
    for text in [
        include_str!("programs/row_layout.csl"),
        include_str!("programs/row_pe.csl"),
    ] {
        let first = print_module(&parse_text(text).unwrap());
        assert_eq!(print_module(&parse_text(&first).unwrap()), first);
    }
}
