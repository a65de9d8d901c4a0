//! Fuzz the m-notation parser: any text parses or is refused with a column inside it; a
//! parsed mapping prints back to itself, and its normal form has the same cells.

#![no_main]

use libfuzzer_sys::fuzz_target;
use npusim_furiosa::mapping::{Axes, Mapping};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(axes) = Axes::parse("A=8,B=512,C=3,D=56,R=13") else {
        return;
    };
    match Mapping::parse(text, &axes) {
        Ok(m) => {
            let printed = m.to_string();
            let back = Mapping::parse(&printed, &axes).expect("printed mapping parses");
            assert_eq!(back, m, "{text} printed as {printed}");
            if m.size() <= 4096 {
                let n = m.normalize();
                assert!(n.equivalent(&m), "{m} normalised to {n}");
                let reparsed = Mapping::parse(&n.to_string(), &axes).expect("normal form parses");
                assert!(reparsed.equivalent(&m), "{n} does not re-parse");
            }
        }
        Err(e) => assert!(e.column >= 1 && e.column <= text.chars().count() + 1, "{e}"),
    }
});
