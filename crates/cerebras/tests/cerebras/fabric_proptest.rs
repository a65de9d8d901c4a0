//! Random grids and routes: the routers never panic, and without multicast they never lose
//! or duplicate a wavelet until they report an error.

use crate::common::{in_queue, out_queue};
use npusim_cerebras::Arch;
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Fabric, PeQueues, Route, Wavelet};
use proptest::prelude::*;

fn dir(k: usize) -> Dir {
    Dir::ALL[k % 5]
}

fn total(f: &Fabric, qs: &[PeQueues]) -> usize {
    let queued: usize = qs
        .iter()
        .map(|q| {
            (0..8u8)
                .map(|id| {
                    q.input(in_queue(id)).map_or(0, |x| x.len() as usize)
                        + q.output(out_queue(id)).map_or(0, |x| x.len() as usize)
                })
                .sum::<usize>()
        })
        .sum();
    queued + f.waiting().len()
}

proptest! {
    #[test]
    fn routers_conserve_wavelets_or_report(
        w in 1u32..4,
        h in 1u32..4,
        routes in proptest::collection::vec((0usize..5, 0usize..5), 9),
        loads in proptest::collection::vec(0u32..3, 9),
    ) {
        let c = Color::new(0).expect("color");
        let mut f = Fabric::new(Arch::Wse2, w, h).expect("grid");
        let n = (w * h) as usize;
        let mut qs: Vec<PeQueues> = (0..n).map(|_| PeQueues::new(Arch::Wse2)).collect();
        for k in 0..n {
            let (x, y) = f.coords(k);
            let (rx, tx) = routes[k];
            f.set_color_config(
                i64::from(x),
                i64::from(y),
                c,
                ColorConfig::fixed(Route::new(&[dir(rx)], &[dir(tx)])),
            )
            .expect("on grid");
            qs[k].bind_input(in_queue(0), c).expect("queue 0");
            for v in 0..loads[k] {
                qs[k].output_mut(out_queue(0)).expect("oq 0").push(Wavelet::data32(c, v)).expect("room");
            }
        }
        let start = total(&f, &qs);
        for cycle in 0..40 {
            let mut refs: Vec<&mut PeQueues> = qs.iter_mut().collect();
            if let Err(e) = f.step(cycle, &mut refs) {
                // every error names a PE on the grid
                prop_assert!(e.to_string().contains("PE ("), "{}", e);
                break;
            }
            prop_assert_eq!(total(&f, &qs), start);
        }
    }
}
