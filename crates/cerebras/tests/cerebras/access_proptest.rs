//! Random valid tensor access expressions: the stride walk of the lowered DSD visits exactly the
//! elements a direct evaluation of the expression text visits, in the same order.

#![allow(clippy::unwrap_used)]

use npusim_cerebras::access::{BoundsPolicy, lower, parse};
use proptest::prelude::*;

/// An index expression tree, rendered to CSL text and evaluated here independently.
#[derive(Clone, Debug)]
enum E {
    Int(i64),
    Var(usize),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    MulK(i64, Box<E>),
    MulKRight(Box<E>, i64),
    Neg(Box<E>),
}

impl E {
    fn text(&self, names: &[&str]) -> String {
        match self {
            E::Int(v) => v.to_string(),
            E::Var(k) => names[*k].to_string(),
            E::Add(a, b) => format!("({} + {})", a.text(names), b.text(names)),
            E::Sub(a, b) => format!("{} - ({})", a.text(names), b.text(names)),
            E::MulK(k, a) => format!("{k} * ({})", a.text(names)),
            E::MulKRight(a, k) => format!("({})*{k}", a.text(names)),
            E::Neg(a) => format!("-({})", a.text(names)),
        }
    }

    fn eval(&self, at: &[i64]) -> i64 {
        match self {
            E::Int(v) => *v,
            E::Var(k) => at[*k],
            E::Add(a, b) => a.eval(at) + b.eval(at),
            E::Sub(a, b) => a.eval(at) - b.eval(at),
            E::MulK(k, a) => k * a.eval(at),
            E::MulKRight(a, k) => a.eval(at) * k,
            E::Neg(a) => -a.eval(at),
        }
    }
}

fn expr(vars: usize) -> impl Strategy<Value = E> {
    let leaf = prop_oneof![(0i64..6).prop_map(E::Int), (0..vars).prop_map(E::Var)];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Sub(Box::new(a), Box::new(b))),
            (-3i64..4, inner.clone()).prop_map(|(k, a)| E::MulK(k, Box::new(a))),
            (inner.clone(), -3i64..4).prop_map(|(a, k)| E::MulKRight(Box::new(a), k)),
            inner.prop_map(|a| E::Neg(Box::new(a))),
        ]
    })
}

fn case() -> impl Strategy<Value = (Vec<i64>, Vec<u64>, Vec<E>)> {
    (1usize..=4, 1usize..=3).prop_flat_map(|(vars, rank)| {
        (
            proptest::collection::vec(0i64..5, vars),
            proptest::collection::vec(1u64..7, rank),
            proptest::collection::vec(expr(vars), rank),
        )
    })
}

proptest! {
    #[test]
    fn stride_walk_equals_direct_enumeration((lengths, shape, indices) in case()) {
        let names = ["i", "jj", "k_1", "L"];
        let vars = lengths.len();
        let idx: Vec<String> = indices.iter().map(|e| e.text(&names)).collect();
        let lens: Vec<String> = lengths.iter().map(|l| l.to_string()).collect();
        let text = format!(
            "|{}|{{{}}} -> T[{}]",
            names[..vars].join(","),
            lens.join(", "),
            idx.join(" , ")
        );
        let l = lower(&parse(&text).unwrap(), &shape, BoundsPolicy::Unchecked).unwrap();
        // direct enumeration: nested loops, last variable fastest, row-major flattening
        let mut want = Vec::new();
        let total: i64 = lengths.iter().product();
        for mut n in 0..total {
            let mut at = vec![0i64; vars];
            for v in (0..vars).rev() {
                at[v] = n % lengths[v];
                n /= lengths[v];
            }
            let mut flat = 0i64;
            for (e, &dim) in indices.iter().zip(&shape) {
                flat = flat * dim as i64 + e.eval(&at);
            }
            want.push(flat);
        }
        let got: Vec<i64> = l.addresses().collect();
        prop_assert_eq!(got, want, "{}", text);
    }
}
