//! Wavelets, colors, routes and the grid's cycle-by-cycle movement (spec §1.2, §8).

use crate::common::{in_queue, out_queue};
use npusim_cerebras::Arch;
use npusim_cerebras::fabric::{
    Color, ColorConfig, Dir, DirSet, Fabric, FabricError, PeQueues, Route, SwitchPos, Wavelet,
    WaveletKind,
};

fn color(c: i64) -> Color {
    Color::new(c).expect("routable color")
}

/// Queues of every PE of `fabric`, `queue` bound to `c` on each.
fn queues(fabric: &Fabric, queue: u8, c: Color) -> Vec<PeQueues> {
    (0..fabric.len())
        .map(|_| {
            let mut q = PeQueues::new(fabric.arch());
            q.bind_input(in_queue(queue), c).expect("queue exists");
            q
        })
        .collect()
}

fn step(fabric: &mut Fabric, cycle: u64, qs: &mut [PeQueues]) -> Result<usize, FabricError> {
    let mut refs: Vec<&mut PeQueues> = qs.iter_mut().collect();
    Ok(fabric.step(cycle, &mut refs)?.len())
}

/// Runs until PE `k`'s input queue `q` holds `n` wavelets; returns the cycle each arrived.
fn arrivals(fabric: &mut Fabric, qs: &mut [PeQueues], k: usize, q: u8, n: u32) -> Vec<u64> {
    let mut seen = Vec::new();
    for cycle in 0..200 {
        step(fabric, cycle, qs).expect("routable");
        let len = qs[k].input(in_queue(q)).expect("queue").len();
        while (seen.len() as u32) < len {
            seen.push(cycle);
        }
        if len >= n {
            break;
        }
    }
    seen
}

#[test]
fn colors_and_payloads_are_validated() {
    assert!(Color::new(23).is_ok());
    for bad in [-1, 24, 31] {
        let e = Color::new(bad).expect_err("not routable");
        assert!(e.to_string().contains(&bad.to_string()), "{e}");
    }
    let e = Wavelet::from_raw(3, 1 << 32, WaveletKind::Data).expect_err("33 bits");
    assert!(e.to_string().contains("4294967296"), "{e}");
    let w = Wavelet::data16(color(3), 0x0005, 0x002F);
    assert_eq!((w.payload, w.index(), w.low16()), (0x0005_002F, 5, 0x2F));
    assert!(Wavelet::control(color(3), 0).is_control() && !w.is_control());
}

/// A chain of `width` PEs on one row: PE 0 sends east on color 0, the last one receives.
fn chain(width: u32) -> (Fabric, Vec<PeQueues>) {
    let c = color(0);
    let mut f = Fabric::new(Arch::Wse2, width, 1).expect("grid");
    let last = i64::from(width) - 1;
    for x in 0..=last {
        let route = match x {
            0 => Route::new(&[Dir::Ramp], &[Dir::East]),
            _ if x == last => Route::new(&[Dir::West], &[Dir::Ramp]),
            _ => Route::new(&[Dir::West], &[Dir::East]),
        };
        f.set_color_config(x, 0, c, ColorConfig::fixed(route))
            .expect("on grid");
    }
    let qs = queues(&f, 0, c);
    (f, qs)
}

#[test]
fn one_hop_per_cycle_and_in_order_delivery() {
    for width in [2u32, 3, 5] {
        let (mut f, mut qs) = chain(width);
        let n = 2u32; // WSE-2 output queue 0 holds 2
        for k in 0..n {
            qs[0]
                .output_mut(out_queue(0))
                .expect("oq 0")
                .push(Wavelet::data32(color(0), 100 + k))
                .expect("room");
        }
        let last = width as usize - 1;
        let t = arrivals(&mut f, &mut qs, last, 0, n);
        // one cycle from the output queue to the RAMP slot, one per hop, one into the queue
        let expected: Vec<u64> = (0..u64::from(n)).map(|k| k + u64::from(width)).collect();
        assert_eq!(t, expected, "width {width}");
        let got: Vec<u32> = qs[last]
            .input(in_queue(0))
            .expect("iq 0")
            .iter()
            .map(|w| w.payload)
            .collect();
        assert_eq!(got, (0..n).map(|k| 100 + k).collect::<Vec<_>>());
    }
}

#[test]
fn multicast_copies_to_every_tx_port() {
    let c = color(5);
    let mut f = Fabric::new(Arch::Wse3, 2, 2).expect("grid");
    let cfg = |rx, tx: &[Dir]| ColorConfig::fixed(Route::new(&[rx], tx));
    f.set_color_config(0, 0, c, cfg(Dir::Ramp, &[Dir::East, Dir::South, Dir::Ramp]))
        .expect("grid");
    f.set_color_config(1, 0, c, cfg(Dir::West, &[Dir::Ramp]))
        .expect("grid");
    f.set_color_config(0, 1, c, cfg(Dir::North, &[Dir::Ramp]))
        .expect("grid");
    let mut qs = queues(&f, 1, c);
    qs[0]
        .output_mut(out_queue(3))
        .expect("oq")
        .push(Wavelet::data32(c, 7))
        .expect("room");
    for cycle in 0..5 {
        step(&mut f, cycle, &mut qs).expect("routable");
    }
    for k in [0usize, 1, 2] {
        let got: Vec<u32> = qs[k]
            .input(in_queue(1))
            .expect("iq")
            .iter()
            .map(|w| w.payload)
            .collect();
        assert_eq!(got, vec![7], "PE {k}");
    }
    assert!(qs[3].input(in_queue(1)).expect("iq").is_empty());
}

#[test]
fn unroutable_color_names_the_pe_and_the_color() {
    let (mut f, mut qs) = chain(3);
    // PE (1, 0) has no route for color 4
    let c4 = color(4);
    f.set_color_config(
        0,
        0,
        c4,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )
    .expect("grid");
    qs[0]
        .output_mut(out_queue(0))
        .expect("oq")
        .push(Wavelet::data32(c4, 1))
        .expect("room");
    let err = (0..5)
        .find_map(|cy| step(&mut f, cy, &mut qs).err())
        .expect("an error");
    assert!(
        matches!(err, FabricError::Unroutable { x: 1, y: 0, color, from: Dir::West, .. } if color == c4),
        "{err:?}"
    );
    assert!(err.to_string().contains("PE (1, 0)") && err.to_string().contains("color 4"));
}

#[test]
fn a_wavelet_leaving_the_grid_is_an_error_unless_the_edge_is_open() {
    let c = color(2);
    for open in [false, true] {
        let mut f = Fabric::new(Arch::Wse2, 2, 1).expect("grid");
        f.set_color_config(
            0,
            0,
            c,
            ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
        )
        .expect("grid");
        f.set_color_config(
            1,
            0,
            c,
            ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::East])),
        )
        .expect("grid");
        if open {
            f.open_edge(1, 0, Dir::East).expect("an edge");
        }
        let mut qs = queues(&f, 0, c);
        for k in 0..2 {
            qs[0]
                .output_mut(out_queue(0))
                .expect("oq")
                .push(Wavelet::data32(c, k))
                .expect("room");
        }
        let result: Result<Vec<usize>, _> = (0..6).map(|cy| step(&mut f, cy, &mut qs)).collect();
        if open {
            result.expect("collected at the open edge");
            let got: Vec<(u32, Dir, u32)> = f
                .collected()
                .iter()
                .map(|c| (c.x, c.dir, c.wavelet.payload))
                .collect();
            assert_eq!(got, vec![(1, Dir::East, 0), (1, Dir::East, 1)]);
        } else {
            let err = result.expect_err("leaves the grid");
            assert!(
                matches!(
                    err,
                    FabricError::LeavesGrid {
                        x: 1,
                        y: 0,
                        dir: Dir::East,
                        ..
                    }
                ),
                "{err:?}"
            );
            assert!(err.to_string().contains("PE (1, 0)") && err.to_string().contains("color 2"));
        }
    }
    let mut f = Fabric::new(Arch::Wse2, 2, 1).expect("grid");
    assert!(matches!(
        f.open_edge(0, 0, Dir::East),
        Err(FabricError::NotAnEdge { .. })
    ));
}

#[test]
fn a_full_input_queue_holds_wavelets_back_without_loss() {
    let (mut f, mut qs) = chain(3);
    let cap = qs[2].input(in_queue(0)).expect("iq").capacity();
    let n = cap + 3;
    let mut sent = 0u32;
    for cycle in 0..40 {
        if let Some(q) = qs[0].output_mut(out_queue(0))
            && sent < n
            && q.push(Wavelet::data32(color(0), sent)).is_ok()
        {
            sent += 1;
        }
        step(&mut f, cycle, &mut qs).expect("routable");
    }
    assert_eq!(sent, n);
    let iq = qs[2].input(in_queue(0)).expect("iq");
    assert_eq!(iq.len(), cap);
    assert_eq!(iq.high_water(), cap);
    assert!(f.in_flight(), "the rest waits in the routers");
    // drain: every wavelet arrives, in order
    let mut got = Vec::new();
    for cycle in 40..80 {
        while let Some(w) = qs[2].input_mut(in_queue(0)).expect("iq").pop() {
            got.push(w.payload);
        }
        step(&mut f, cycle, &mut qs).expect("routable");
    }
    while let Some(w) = qs[2].input_mut(in_queue(0)).expect("iq").pop() {
        got.push(w.payload);
    }
    assert_eq!(got, (0..n).collect::<Vec<_>>());
}

#[test]
fn two_colors_share_a_link_one_wavelet_per_cycle() {
    let (a, b) = (color(0), color(1));
    let mut f = Fabric::new(Arch::Wse2, 2, 1).expect("grid");
    for c in [a, b] {
        f.set_color_config(
            0,
            0,
            c,
            ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
        )
        .expect("grid");
        f.set_color_config(
            1,
            0,
            c,
            ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
        )
        .expect("grid");
    }
    let mut qs: Vec<PeQueues> = (0..2).map(|_| PeQueues::new(Arch::Wse2)).collect();
    qs[1].bind_input(in_queue(0), a).expect("iq");
    qs[1].bind_input(in_queue(1), b).expect("iq");
    qs[0]
        .output_mut(out_queue(0))
        .expect("oq")
        .push(Wavelet::data32(a, 1))
        .expect("room");
    qs[0]
        .output_mut(out_queue(1))
        .expect("oq")
        .push(Wavelet::data32(b, 2))
        .expect("room");
    let mut per_cycle = Vec::new();
    for cycle in 0..6 {
        let mut refs: Vec<&mut PeQueues> = qs.iter_mut().collect();
        let hops = f.step(cycle, &mut refs).expect("routable");
        per_cycle.push(hops.iter().filter(|h| h.x == 0).count());
    }
    assert!(per_cycle.iter().all(|&n| n <= 1), "{per_cycle:?}");
    assert_eq!(
        qs[1].input(in_queue(0)).expect("iq").len() + qs[1].input(in_queue(1)).expect("iq").len(),
        2
    );
}

#[test]
fn switch_positions_advance_stay_or_wrap() {
    let c = color(3);
    let base = ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East]));
    let pos = [
        SwitchPos {
            rx: None,
            tx: Some(DirSet::of(&[Dir::South])),
        },
        SwitchPos {
            rx: Some(Dir::West),
            tx: None,
        },
    ];
    for ring in [false, true] {
        let mut cfg = base
            .with_switches(Arch::Wse2, c, &pos, ring)
            .expect("valid");
        assert_eq!(cfg.route().tx, DirSet::of(&[Dir::East]));
        assert_eq!(cfg.advance_switch(), 1);
        assert_eq!(cfg.route().tx, DirSet::of(&[Dir::South]));
        assert_eq!(cfg.advance_switch(), 2);
        assert_eq!(cfg.route().rx, DirSet::of(&[Dir::West]));
        assert_eq!(cfg.route().tx, DirSet::of(&[Dir::East]), "pos2 keeps tx");
        assert_eq!(cfg.advance_switch(), if ring { 0 } else { 2 });
    }
    // WSE-2 rejects a position changing both; WSE-3 accepts it but not on color 10
    let both = [SwitchPos {
        rx: Some(Dir::West),
        tx: Some(DirSet::of(&[Dir::Ramp])),
    }];
    assert!(base.with_switches(Arch::Wse2, c, &both, false).is_err());
    assert!(base.with_switches(Arch::Wse3, c, &both, false).is_ok());
    let e = base
        .with_switches(Arch::Wse3, color(10), &both, false)
        .expect_err("no switch on color 10");
    assert!(e.to_string().contains("color 10"), "{e}");
}

#[test]
fn advance_switch_redirects_later_wavelets_g45() {
    // G45's topology: PE(0,0) sends east, then (pos1) south.
    let c = color(7);
    let mut f = Fabric::new(Arch::Wse2, 2, 2).expect("grid");
    let cfg = ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East]))
        .with_switches(
            Arch::Wse2,
            c,
            &[SwitchPos {
                rx: None,
                tx: Some(DirSet::of(&[Dir::South])),
            }],
            false,
        )
        .expect("valid");
    f.set_color_config(0, 0, c, cfg).expect("grid");
    f.set_color_config(
        1,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
    )
    .expect("grid");
    f.set_color_config(
        0,
        1,
        c,
        ColorConfig::fixed(Route::new(&[Dir::North], &[Dir::Ramp])),
    )
    .expect("grid");
    let mut qs = queues(&f, 0, c);
    for v in [10, 11] {
        qs[0]
            .output_mut(out_queue(2))
            .expect("oq")
            .push(Wavelet::data32(c, v))
            .expect("room");
    }
    for cycle in 0..6 {
        step(&mut f, cycle, &mut qs).expect("routable");
    }
    assert_eq!(f.advance_switch(0, 0, c).expect("configured"), 1);
    qs[0]
        .output_mut(out_queue(2))
        .expect("oq")
        .push(Wavelet::data32(c, 99))
        .expect("room");
    for cycle in 6..12 {
        step(&mut f, cycle, &mut qs).expect("routable");
    }
    let payloads = |k: usize| -> Vec<u32> {
        qs[k]
            .input(in_queue(0))
            .expect("iq")
            .iter()
            .map(|w| w.payload)
            .collect()
    };
    assert_eq!(payloads(1), vec![10, 11]);
    assert_eq!(payloads(2), vec![99]);
}

#[test]
fn two_inputs_of_one_color_in_one_cycle_is_a_merge_error() {
    let c = color(0);
    let mut f = Fabric::new(Arch::Wse2, 3, 1).expect("grid");
    f.set_color_config(
        0,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )
    .expect("grid");
    f.set_color_config(
        2,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::West])),
    )
    .expect("grid");
    f.set_color_config(
        1,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::East, Dir::West], &[Dir::Ramp])),
    )
    .expect("grid");
    let mut qs = queues(&f, 0, c);
    for k in [0usize, 2] {
        qs[k]
            .output_mut(out_queue(0))
            .expect("oq")
            .push(Wavelet::data32(c, 1))
            .expect("room");
    }
    let err = (0..4)
        .find_map(|cy| step(&mut f, cy, &mut qs).err())
        .expect("merge");
    assert!(
        matches!(err, FabricError::Merge { x: 1, y: 0, .. }),
        "{err:?}"
    );
}

#[test]
fn grid_sizes_are_checked() {
    for (w, h) in [(0u32, 3u32), (3, 0)] {
        assert!(matches!(
            Fabric::new(Arch::Wse2, w, h),
            Err(FabricError::EmptyGrid { .. })
        ));
    }
    let e = Fabric::new(Arch::Wse2, 758, 1).expect_err("wider than WSE-2");
    assert!(e.to_string().contains("757x996"), "{e}");
    assert!(Fabric::new(Arch::Wse3, 1, 1172).is_ok());
    let e = Fabric::new(Arch::Wse3, 1, 1173).expect_err("taller than WSE-3");
    assert!(
        matches!(
            e,
            FabricError::TooLarge {
                max_height: 1172,
                ..
            }
        ),
        "{e}"
    );
    let mut f = Fabric::new(Arch::Wse2, 2, 1).expect("grid");
    let mut q = PeQueues::new(Arch::Wse2);
    let e = f
        .step(0, &mut [&mut q])
        .expect_err("one set of queues for two PEs");
    assert!(
        matches!(e, FabricError::QueueCount { given: 1, pes: 2 }),
        "{e}"
    );
}

#[test]
fn a_route_needs_rx_and_tx() {
    let mut f = Fabric::new(Arch::Wse2, 2, 2).expect("grid");
    for route in [Route::new(&[], &[Dir::East]), Route::new(&[Dir::Ramp], &[])] {
        let e = f
            .set_color_config(1, 1, color(9), ColorConfig::fixed(route))
            .expect_err("empty route");
        assert!(
            matches!(e, FabricError::EmptyRoute { x: 1, y: 1, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("color 9"), "{e}");
    }
}
