//! `.on_control` (the seed's "Dynamic Completion Based on Control Wavelets"): an asynchronous
//! receive longer than what is sent ends when a control wavelet arrives, and runs its
//! `.activate` task; without `.on_control` it keeps waiting. PE 0 sends `M` values, then one
//! control wavelet; PE 1 receives into `dst` of `2 M` elements.

use npusim_csl::comptime::Arch;
use npusim_csl::pe::{LoadedPe, run};

use super::pe_fabric::{ARCHS, LIMIT, load_at, row};

const PROGRAM: &str = "\
param pe_id: i16;
param M: i16;
const c: color = @get_color(6);
const oq = @get_output_queue(2);
const iq = @get_input_queue(3);
var src: [M]f32;
var stop = [1]f32 { 0.0 };
var dst = @zeros([2 * M]f32);
var done_count: i16 = 0;
const src_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> src[i] });
const stop_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{1} -> stop[i] });
const dst_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{2 * M} -> dst[i] });
const out_dsd = @get_dsd(fabout_dsd, .{ .extent = M, .fabric_color = c, .output_queue = oq });
const ctl_dsd = @get_dsd(fabout_dsd, .{ .extent = 1, .fabric_color = c, .output_queue = oq, .control = true });
const in_dsd = @get_dsd(fabin_dsd, .{ .extent = 2 * M, .fabric_color = c, .input_queue = iq });
const main_id: local_task_id = @get_local_task_id(9);
const done_id: local_task_id = @get_local_task_id(10);
task main() void {
  if (pe_id == 0) {
    @fmovs(out_dsd, src_dsd);
    @fmovs(ctl_dsd, stop_dsd);
  } else {
    @fmovs(dst_dsd, in_dsd, .{ .async = true, OPTION });
  }
}
task done() void {
  done_count += 1;
}
comptime {
  @bind_local_task(main, main_id);
  @bind_local_task(done, done_id);
  if (@is_arch(\"wse3\")) {
    @initialize_queue(oq, .{ .color = c });
    @initialize_queue(iq, .{ .color = c });
  }
  @activate(main_id);
}
";

fn run_pair(
    option: &str,
    arch: Arch,
    sim_arch: npusim_cerebras::Arch,
) -> (Vec<f32>, i16, Result<(), String>) {
    let m = 4usize;
    let text = PROGRAM.replace("OPTION", option);
    let mut sim = row(sim_arch, 2, 6);
    let pes: Vec<LoadedPe> = (0..2)
        .map(|x| load_at(&mut sim, "ctl.csl", &text, arch, x, &[("M", m as i128)]))
        .collect();
    let src: Vec<f32> = (0..m).map(|i| i as f32 + 0.5).collect();
    sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
    let r = run(&mut sim, LIMIT, &pes)
        .map(|_| ())
        .map_err(|e| e.to_string());
    let mem = &sim.pe(1, 0).unwrap().mem;
    (
        mem.read::<f32>("dst").unwrap(),
        mem.read::<i16>("done_count").unwrap()[0],
        r,
    )
}

#[test]
fn a_control_wavelet_ends_the_receive_and_activates_its_task() {
    for (arch, sim_arch) in ARCHS {
        let (dst, done, r) = run_pair(".on_control = .{ .activate = done_id }", arch, sim_arch);
        r.unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mut want: Vec<f32> = (0..4).map(|i| i as f32 + 0.5).collect();
        want.extend([0.0; 4]);
        assert_eq!(dst, want, "{arch:?}");
        assert_eq!(done, 1, "{arch:?}");
    }
}

#[test]
fn without_on_control_the_receive_does_not_end_at_the_control_wavelet() {
    for (arch, sim_arch) in ARCHS {
        let (_, done, _) = run_pair(".activate = done_id", arch, sim_arch);
        assert_eq!(done, 0, "{arch:?}");
    }
}

#[test]
fn an_on_control_of_another_shape_is_refused() {
    let (_, _, r) = run_pair(
        ".on_control = .{ .explode = true }",
        Arch::Wse3,
        npusim_cerebras::Arch::Wse3,
    );
    let err = r.unwrap_err();
    assert!(
        err.contains("`.on_control` takes `.{ .terminate = true }`"),
        "{err}"
    );
}
