//! Seed 004's queue-length table and bounded queues.

use crate::common::{in_queue, out_queue};
use npusim_cerebras::Arch;
use npusim_cerebras::dsd::FabIn;
use npusim_cerebras::fabric::{
    Color, FabricError, PeQueues, QueueRef, QueueSide, Wavelet, WaveletQueue, queue_length,
};
use npusim_cerebras::pe::Wait;

#[test]
fn queue_lengths_are_the_seed_table() {
    // (ids, WSE-2 in, WSE-2 out, WSE-3 in, WSE-3 out); 0 = N/A
    let table = [
        ([0u8, 1], 6, 2, 8, 8),
        ([2, 3], 4, 6, 4, 8),
        ([4, 5], 2, 2, 4, 8),
        ([6, 7], 2, 0, 4, 8),
    ];
    let na = |n: u32| if n == 0 { None } else { Some(n) };
    for (ids, w2i, w2o, w3i, w3o) in table {
        for id in ids {
            assert_eq!(queue_length(Arch::Wse2, QueueSide::Input, id), na(w2i));
            assert_eq!(queue_length(Arch::Wse2, QueueSide::Output, id), na(w2o));
            assert_eq!(queue_length(Arch::Wse3, QueueSide::Input, id), na(w3i));
            assert_eq!(queue_length(Arch::Wse3, QueueSide::Output, id), na(w3o));
        }
    }
    assert_eq!(queue_length(Arch::Wse3, QueueSide::Input, 8), None);
    // a PE's queues follow the table
    for arch in [Arch::Wse2, Arch::Wse3] {
        let q = PeQueues::new(arch);
        for id in 0..8u8 {
            assert_eq!(
                q.input(in_queue(id)).map(WaveletQueue::capacity),
                queue_length(arch, QueueSide::Input, id)
            );
            assert_eq!(
                q.output(out_queue(id)).map(WaveletQueue::capacity),
                queue_length(arch, QueueSide::Output, id)
            );
        }
    }
}

#[test]
fn a_queue_is_bounded_and_first_in_first_out() {
    let c = Color::new(1).expect("color");
    for cap in [1u32, 2, 6] {
        let mut q = WaveletQueue::new(cap);
        for k in 0..cap {
            q.push(Wavelet::data32(c, k)).expect("room");
        }
        let back = q.push(Wavelet::data32(c, 99)).expect_err("full");
        assert_eq!(back.payload, 99);
        assert_eq!((q.len(), q.room(), q.high_water()), (cap, 0, cap));
        let got: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|w| w.payload).collect();
        assert_eq!(got, (0..cap).collect::<Vec<_>>());
        assert_eq!(q.high_water(), cap, "high water survives draining");
    }
}

#[test]
fn binding_a_missing_queue_is_an_error() {
    let c = Color::new(0).expect("color");
    let mut q = PeQueues::new(Arch::Wse2);
    // input queue 8 cannot be named at all: the id is refused where it is made
    let e = npusim_cerebras::fabric::InputQueue::new(8).expect_err("no queue 8");
    assert!(e.to_string().contains("input queue 8"), "{e}");
    // an id that exists on WSE-3 but not on WSE-2 is refused where it is bound
    let e = q
        .bind_output(out_queue(6), c)
        .expect_err("WSE-2 has no output queue 6");
    assert!(matches!(e, FabricError::NoSuchQueue { .. }));
    assert!(e.to_string().contains("output queue 6"), "{e}");
}

#[test]
fn typed_queue_ids_read_as_csl_numbers_them() {
    // `@get_input_queue(3)` / `@get_output_queue(5)`: messages keep "input queue N" wording
    let (i3, o5) = (QueueRef::from(in_queue(3)), QueueRef::from(out_queue(5)));
    assert_eq!(i3.to_string(), "input queue 3");
    assert_eq!(o5.to_string(), "output queue 5");
    assert_eq!((i3.side(), i3.id()), (QueueSide::Input, 3));
    assert_eq!((o5.side(), o5.id()), (QueueSide::Output, 5));
    assert_eq!(
        Wait::InputEmpty(in_queue(1)).to_string(),
        "a wavelet in input queue 1"
    );
    assert_eq!(
        Wait::OutputFull(out_queue(0)).to_string(),
        "room in output queue 0"
    );
    let d = FabIn::new(Arch::Wse3, 4, Some(in_queue(3)), None).expect("fabin");
    assert!(
        d.to_string().contains(".input_queue = @get_input_queue(3)"),
        "{d}"
    );
    // the router's round robin names the output queue it serves
    let mut q = PeQueues::new(Arch::Wse3);
    let w = Wavelet::data32(Color::new(4).expect("color"), 9);
    q.output_mut(out_queue(2))
        .expect("queue 2")
        .push(w)
        .expect("room");
    assert_eq!(q.peek_send(), Some((out_queue(2), w)));
    assert_eq!(q.take_sent(out_queue(2)), Some(w));
    assert_eq!(q.peek_send(), None);
}

/// Handing out an output queue for writing is noted for the scheduler (which then knows the
/// PE may have something to send) and cleared by reading it; the note is not part of what the
/// queues hold, so it does not make them unequal.
#[test]
fn writing_to_an_output_queue_is_noted_apart_from_the_contents() {
    let mut written = PeQueues::new(Arch::Wse2);
    let fresh = PeQueues::new(Arch::Wse2);
    assert!(!written.take_written());
    let q = out_queue(1);
    assert!(written.output_mut(q).is_some());
    assert_eq!(written, fresh);
    assert!(written.take_written());
    assert!(!written.take_written());
}
