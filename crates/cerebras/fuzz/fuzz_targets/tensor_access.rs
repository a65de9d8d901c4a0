//! Fuzz target: the tensor access parser and lowering never panic.
//!
//! Input: byte 0 picks the rank (1..=4), the next `rank` bytes the dimensions (0 stays 0, so
//! the shape check is exercised), the rest is the expression text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npusim_cerebras::ElemTy;
use npusim_cerebras::access::{BoundsPolicy, lower, parse};
use npusim_cerebras::dsd::{Base, Mem1d, Mem4d};

fuzz_target!(|data: &[u8]| {
    let Some((&r, rest)) = data.split_first() else {
        return;
    };
    let rank = usize::from(r % 4) + 1;
    if rest.len() < rank {
        return;
    }
    let (dims, text) = rest.split_at(rank);
    let shape: Vec<u64> = dims.iter().map(|&d| u64::from(d)).collect();
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(access) = parse(text) else {
        return;
    };
    let _ = access.to_string();
    for policy in [BoundsPolicy::Unchecked, BoundsPolicy::Strict] {
        if let Ok(l) = lower(&access, &shape, policy) {
            let base = Base::tensor("A", ElemTy::F32, 0, 1);
            if let Ok(d) = Mem1d::from_lowered(base.clone(), &l) {
                let _ = d.to_string();
                let _ = d.element_offsets().take(256).count();
            }
            if let Ok(d) = Mem4d::from_lowered(base, &l) {
                let _ = d.to_string();
                let _ = d.element_offsets().take(256).count();
            }
            let _ = l.addresses().take(256).count();
        }
    }
});
