//! Graph API over the fake driver, in process (one process per test under
//! nextest). Device pointers of the fake driver are host pointers, so plain
//! Rust buffers stand in for device memory.

mod common;
use common::*;
use cudart_shim::api::device::cudaDeviceSynchronize;
use cudart_shim::api::error::cudaGetLastError;
use cudart_shim::api::graph::*;
use cudart_shim::types::*;
use std::ffi::{c_uint, c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn ok(e: cudaError_t) {
    assert_eq!(e, cudaSuccess);
}

fn graph() -> cudaGraph_t {
    let mut g = null_mut();
    unsafe { ok(cudaGraphCreate(&mut g, 0)) };
    assert!(!g.is_null());
    g
}

fn instantiate(g: cudaGraph_t) -> cudaGraphExec_t {
    let mut e = null_mut();
    unsafe { ok(cudaGraphInstantiate(&mut e, g, 0)) };
    e
}

/// Launch on the legacy stream and wait (stream work may run on a worker).
fn launch(e: cudaGraphExec_t) {
    unsafe {
        ok(cudaGraphLaunch(e, null_mut()));
        ok(cudaDeviceSynchronize());
    }
}

fn memset_params(dst: *mut c_void, value: c_uint, width: usize) -> cudaMemsetParams {
    cudaMemsetParams { dst, pitch: 0, value, elementSize: 1, width, height: 1 }
}

fn add_memset(g: cudaGraph_t, deps: &[cudaGraphNode_t], p: &cudaMemsetParams) -> cudaGraphNode_t {
    let mut n = null_mut();
    unsafe { ok(cudaGraphAddMemsetNode(&mut n, g, deps.as_ptr(), deps.len(), p)) };
    n
}

fn add_empty(g: cudaGraph_t, deps: &[cudaGraphNode_t]) -> cudaGraphNode_t {
    let mut n = null_mut();
    unsafe { ok(cudaGraphAddEmptyNode(&mut n, g, deps.as_ptr(), deps.len())) };
    n
}

/// A real kernel handle: `k` of a PTX library loaded through the runtime
/// (the runtime only accepts stubs it registered and kernels it handed out).
fn kernel() -> *mut c_void {
    static K: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *K.get_or_init(|| unsafe {
        let ptx = c".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n ret;\n}\n";
        let mut lib = null_mut();
        ok(cudart_shim::api::library::cudaLibraryLoadData(
            &mut lib, ptx.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0,
        ));
        let mut k = null_mut();
        ok(cudart_shim::api::library::cudaLibraryGetKernel(&mut k, lib, c"k".as_ptr()));
        k as usize
    }) as *mut c_void
}

fn kernel_params(grid: u32, args: *mut *mut c_void) -> cudaKernelNodeParams {
    cudaKernelNodeParams {
        func: kernel(),
        gridDim: dim3 { x: grid, y: 1, z: 1 },
        blockDim: dim3 { x: 32, y: 1, z: 1 },
        sharedMemBytes: 16,
        kernelParams: args,
        extra: null_mut(),
    }
}

fn add_kernel(g: cudaGraph_t, deps: &[cudaGraphNode_t], grid: u32) -> cudaGraphNode_t {
    let mut n = null_mut();
    unsafe { ok(cudaGraphAddKernelNode(&mut n, g, deps.as_ptr(), deps.len(), &kernel_params(grid, null_mut()))) };
    n
}

// Host-node log: which tag ran, in order.
static LOG: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "C" fn log_tag(p: *mut c_void) {
    LOG.lock().unwrap().push(p as usize);
}

fn add_host(g: cudaGraph_t, deps: &[cudaGraphNode_t], tag: usize) -> cudaGraphNode_t {
    let mut n = null_mut();
    let p = cudaHostNodeParams { r#fn: Some(log_tag), userData: tag as *mut c_void };
    unsafe { ok(cudaGraphAddHostNode(&mut n, g, deps.as_ptr(), deps.len(), &p)) };
    n
}

fn fake_fn<T>(name: &str) -> libloading::Symbol<'static, T> {
    static LIB: std::sync::OnceLock<libloading::Library> = std::sync::OnceLock::new();
    let lib = LIB.get_or_init(|| unsafe { libloading::Library::new(fake_driver()) }.unwrap());
    unsafe { lib.get(name.as_bytes()) }.unwrap()
}

/// Kernel launches the fake recorded: (count, func and grid x of `index`).
fn kernels(index: u64) -> (u64, *mut c_void, c_uint) {
    let f: libloading::Symbol<unsafe extern "C" fn(u64, *mut *mut c_void, *mut c_uint) -> u64> =
        fake_fn("fake_cuda_graph_kernels\0");
    let (mut func, mut x) = (null_mut(), 0);
    let n = unsafe { f(index, &mut func, &mut x) };
    (n, func, x)
}

#[test]
fn create_destroy_and_bad_handles() {
    use_fake_driver(&[]);
    unsafe {
        let mut g = null_mut();
        assert_eq!(cudaGraphCreate(null_mut(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaGraphCreate(&mut g, 1), cudaErrorInvalidValue);
        assert!(g.is_null());
        let g = graph();
        ok(cudaGraphDestroy(g));
        assert_eq!(cudaGraphDestroy(g), cudaErrorInvalidValue);
        assert_eq!(cudaGraphDestroy(null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaErrorInvalidValue);
        assert_eq!(cudaGetLastError(), cudaSuccess);
        let mut n = null_mut();
        assert_eq!(cudaGraphAddEmptyNode(&mut n, g, null(), 0), cudaErrorInvalidValue);
        assert_eq!(cudaGraphExecDestroy(null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaGraphLaunch(null_mut(), null_mut()), cudaErrorInvalidValue);
    }
    assert_eq!(fake::calls("cuGraphCreate"), 2);
    assert_eq!(fake::calls("cuGraphDestroy"), 3);
}

#[test]
fn launch_runs_nodes_in_dependency_order_and_moves_bytes() {
    use_fake_driver(&[]);
    let mut a = vec![0u8; 64];
    let mut b = vec![0u8; 64];
    let g = graph();
    unsafe {
        // host(1) <- memcpy(a->b) <- memset(a); host(2) after host(1); host(3) a root.
        let set = add_memset(g, &[], &memset_params(a.as_mut_ptr().cast(), 0x5a, 64));
        let mut cp = null_mut();
        ok(cudaGraphAddMemcpyNode1D(&mut cp, g, &set, 1, b.as_mut_ptr().cast(), a.as_ptr().cast(), 48, cudaMemcpyDefault));
        let h1 = add_host(g, &[cp], 1);
        add_host(g, &[h1], 2);
        // A root added last still runs, and before nothing it depends on.
        add_host(g, &[], 3);
        let e = instantiate(g);
        for i in 0..3 {
            LOG.lock().unwrap().clear();
            b.fill(0);
            if i == 2 {
                ok(cudaGraphLaunch_ptsz(e, null_mut()));
                ok(cudaDeviceSynchronize());
            } else {
                launch(e);
            }
            assert_eq!(&b[..48], &[0x5a; 48][..]);
            assert_eq!(&b[48..], &[0; 16][..]);
            let log = LOG.lock().unwrap().clone();
            assert_eq!(log.len(), 3);
            let pos = |t| log.iter().position(|x| *x == t).unwrap();
            assert!(pos(1) < pos(2));
        }
        assert_eq!(fake::calls("cuGraphLaunch"), 3);
        ok(cudaGraphUpload(e, null_mut()));
        ok(cudaGraphUpload_ptsz(e, null_mut()));
        ok(cudaGraphExecDestroy(e));
        assert_eq!(cudaGraphLaunch(e, null_mut()), cudaErrorInvalidValue);
        ok(cudaGraphDestroy(g));
    }
}

#[test]
fn kernel_node_round_trip_and_launch_record() {
    use_fake_driver(&[]);
    let g = graph();
    let mut arg = 7u64;
    let mut args = [(&mut arg as *mut u64).cast::<c_void>()];
    unsafe {
        let mut n = null_mut();
        let p = kernel_params(4, args.as_mut_ptr());
        ok(cudaGraphAddKernelNode(&mut n, g, null(), 0, &p));
        let mut q = kernel_params(0, null_mut());
        ok(cudaGraphKernelNodeGetParams(n, &mut q));
        assert_eq!(q, p);
        let p2 = kernel_params(9, args.as_mut_ptr());
        ok(cudaGraphKernelNodeSetParams(n, &p2));
        ok(cudaGraphKernelNodeGetParams(n, &mut q));
        assert_eq!(q.gridDim.x, 9);
        let mut t = cudaGraphNodeTypeCount;
        ok(cudaGraphNodeGetType(n, &mut t));
        assert_eq!(t, cudaGraphNodeTypeKernel);
        // NULL function: NVIDIA's answer before the driver is asked.
        let bad = cudaKernelNodeParams { func: null_mut(), ..p };
        let mut n2 = null_mut();
        assert_eq!(cudaGraphAddKernelNode(&mut n2, g, null(), 0, &bad), cudaErrorInvalidDeviceFunction);
        assert_eq!(cudaGraphAddKernelNode(&mut n2, g, null(), 0, null()), cudaErrorInvalidValue);
        assert_eq!(cudaGraphKernelNodeGetParams(n, null_mut()), cudaErrorInvalidValue);
        // Wrong node type for the call.
        let empty = add_empty(g, &[]);
        assert_eq!(cudaGraphKernelNodeGetParams(empty, &mut q), cudaErrorInvalidValue);

        let e = instantiate(g);
        let before = kernels(0).0;
        launch(e);
        let (count, func, grid) = kernels(before);
        assert_eq!(count, before + 1);
        assert_eq!((func, grid), (kernel(), 9));
        // Exec setter changes what the next launch runs, not the graph.
        ok(cudaGraphExecKernelNodeSetParams(e, n, &kernel_params(5, args.as_mut_ptr())));
        launch(e);
        assert_eq!(kernels(before + 1).2, 5);
        ok(cudaGraphKernelNodeGetParams(n, &mut q));
        assert_eq!(q.gridDim.x, 9);
        assert_eq!(cudaGraphExecKernelNodeSetParams(e, empty, &p), cudaErrorInvalidValue);
    }
}

#[test]
fn kernel_node_attributes_get_set_copy() {
    use_fake_driver(&[]);
    let g = graph();
    let (a, b) = (add_kernel(g, &[], 1), add_kernel(g, &[], 2));
    unsafe {
        let mut v: cudaLaunchAttributeValue = std::mem::zeroed();
        v.priority = 3;
        ok(cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributePriority, &v));
        let mut r: cudaLaunchAttributeValue = std::mem::zeroed();
        ok(cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, &mut r));
        assert_eq!(r.priority, 3);
        ok(cudaGraphKernelNodeCopyAttributes(b, a));
        let mut r2: cudaLaunchAttributeValue = std::mem::zeroed();
        ok(cudaGraphKernelNodeGetAttribute(b, cudaLaunchAttributePriority, &mut r2));
        assert_eq!(r2.priority, 3);
        assert_eq!(cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributePriority, null()), cudaErrorInvalidValue);
        let empty = add_empty(g, &[]);
        assert_eq!(cudaGraphKernelNodeCopyAttributes(empty, a), cudaErrorInvalidValue);
    }
}

#[test]
fn memcpy_node_round_trip_3d_and_1d() {
    use_fake_driver(&[]);
    let g = graph();
    let src = vec![1u8; 256];
    let mut dst = vec![0u8; 256];
    unsafe {
        // A 2D copy: 8 rows of 16 bytes, pitches 32, from offset (4, 1).
        let p = cudaMemcpy3DParms {
            srcPos: cudaPos { x: 4, y: 1, z: 0 },
            srcPtr: cudaPitchedPtr { ptr: src.as_ptr() as *mut c_void, pitch: 32, xsize: 32, ysize: 8 },
            dstPtr: cudaPitchedPtr { ptr: dst.as_mut_ptr().cast(), pitch: 32, xsize: 32, ysize: 8 },
            extent: cudaExtent { width: 16, height: 6, depth: 1 },
            kind: cudaMemcpyHostToDevice,
            ..Default::default()
        };
        let mut n = null_mut();
        ok(cudaGraphAddMemcpyNode(&mut n, g, null(), 0, &p));
        let mut q = cudaMemcpy3DParms::default();
        ok(cudaGraphMemcpyNodeGetParams(n, &mut q));
        assert_eq!(q, p);
        let e = instantiate(g);
        launch(e);
        for row in 0..8 {
            let r = &dst[row * 32..row * 32 + 32];
            let want = if row < 6 { 16 } else { 0 };
            assert_eq!(r.iter().filter(|x| **x == 1).count(), want, "row {row}");
            assert!(r[16..].iter().all(|x| *x == 0));
        }
        // 1D setter on the graph node.
        ok(cudaGraphMemcpyNodeSetParams1D(n, dst.as_mut_ptr().cast(), src.as_ptr().cast(), 100, cudaMemcpyDeviceToDevice));
        ok(cudaGraphMemcpyNodeGetParams(n, &mut q));
        assert_eq!(q.kind, cudaMemcpyDeviceToDevice);
        assert_eq!(q.extent, cudaExtent { width: 100, height: 1, depth: 1 });
        assert_eq!(q.srcPtr.ptr, src.as_ptr() as *mut c_void);
        ok(cudaGraphMemcpyNodeSetParams(n, &p));
        // Bad direction, and an array together with a pointer on one side.
        assert_eq!(
            cudaGraphMemcpyNodeSetParams1D(n, dst.as_mut_ptr().cast(), src.as_ptr().cast(), 4, cudaMemcpyKind(9)),
            cudaErrorInvalidMemcpyDirection
        );
        let both = cudaMemcpy3DParms { srcArray: 0x40 as cudaArray_t, kind: cudaMemcpyDeviceToDevice, ..p };
        assert_eq!(cudaGraphMemcpyNodeSetParams(n, &both), cudaErrorInvalidValue);
        assert_eq!(cudaGraphAddMemcpyNode(&mut n, g, null(), 0, null()), cudaErrorInvalidValue);
        // The exec setter (1D) moves different bytes on the next launch.
        dst.fill(0);
        ok(cudaGraphExecMemcpyNodeSetParams1D(e, n, dst.as_mut_ptr().cast(), src.as_ptr().cast(), 10, cudaMemcpyDefault));
        launch(e);
        assert_eq!(dst.iter().filter(|x| **x == 1).count(), 10);
        ok(cudaGraphExecMemcpyNodeSetParams(e, n, &p));
        assert_eq!(cudaGraphExecMemcpyNodeSetParams(null_mut(), n, &p), cudaErrorInvalidValue);
    }
}

#[test]
fn memcpy_symbol_nodes() {
    use_fake_driver(&[]);
    let g = graph();
    // A registered `__device__` variable of 32 bytes, named by its host shadow.
    static SHADOW: [u8; 32] = [0; 32];
    let sym: *const c_void = SHADOW.as_ptr().cast();
    let w = fatbin_wrapper(c".version 8.0\n.target sm_90\n.address_size 64\n.visible .global .align 4 .b8 sym[32];\n");
    let symbol: &mut [u8] = unsafe {
        use cudart_shim::api::hidden::*;
        let h = __cudaRegisterFatBinary(w.as_ptr() as *mut c_void);
        __cudaRegisterVar(h, sym as *mut _, c"sym".as_ptr() as *mut _, c"sym".as_ptr(), 0, 32, 0, 0);
        __cudaRegisterFatBinaryEnd(h);
        let mut dev = null_mut();
        ok(cudart_shim::api::symbol::cudaGetSymbolAddress(&mut dev, sym));
        // The fake driver's device memory is host memory.
        std::slice::from_raw_parts_mut(dev.cast(), 32)
    };
    let mut host = vec![9u8; 32];
    unsafe {
        let mut to = null_mut();
        ok(cudaGraphAddMemcpyNodeToSymbol(&mut to, g, null(), 0, sym, host.as_ptr().cast(), 8, 4, cudaMemcpyHostToDevice));
        let mut from = null_mut();
        ok(cudaGraphAddMemcpyNodeFromSymbol(&mut from, g, &to, 1, host.as_mut_ptr().add(16).cast(), sym, 4, 4, cudaMemcpyDeviceToHost));
        assert_eq!(
            cudaGraphAddMemcpyNodeToSymbol(&mut to, g, null(), 0, sym, host.as_ptr().cast(), 8, 0, cudaMemcpyDeviceToHost),
            cudaErrorInvalidMemcpyDirection
        );
        assert_eq!(
            cudaGraphAddMemcpyNodeFromSymbol(&mut to, g, null(), 0, host.as_mut_ptr().cast(), null(), 8, 0, cudaMemcpyDefault),
            cudaErrorInvalidSymbol
        );
        let e = instantiate(g);
        host[16..20].fill(0);
        launch(e);
        assert_eq!(&symbol[..12], &[0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9]);
        assert_eq!(&host[16..20], &[9; 4]);
        // Setters move the window.
        ok(cudaGraphMemcpyNodeSetParamsToSymbol(to, sym, host.as_ptr().cast(), 2, 20, cudaMemcpyDefault));
        ok(cudaGraphMemcpyNodeSetParamsFromSymbol(from, host.as_mut_ptr().cast(), sym, 2, 0, cudaMemcpyDefault));
        ok(cudaGraphExecMemcpyNodeSetParamsToSymbol(e, to, sym, host.as_ptr().cast(), 2, 28, cudaMemcpyDefault));
        ok(cudaGraphExecMemcpyNodeSetParamsFromSymbol(e, from, host.as_mut_ptr().add(16).cast(), sym, 2, 28, cudaMemcpyDefault));
        host[16..18].fill(0);
        launch(e);
        assert_eq!(&symbol[28..30], &[9, 9]);
        assert_eq!(&host[16..18], &[9, 9]);
        let mut q = cudaMemcpy3DParms::default();
        ok(cudaGraphMemcpyNodeGetParams(to, &mut q));
        // The node holds the device address, not the host shadow.
        assert_eq!(q.dstPtr.ptr, symbol.as_mut_ptr().wrapping_add(20).cast::<c_void>());
    }
}

#[test]
fn memset_host_child_empty_event_round_trips() {
    use_fake_driver(&[]);
    let g = graph();
    let mut buf = vec![0u32; 16];
    unsafe {
        let p = cudaMemsetParams { dst: buf.as_mut_ptr().cast(), pitch: 0, value: 0xdead_beef, elementSize: 4, width: 16, height: 1 };
        let ms = add_memset(g, &[], &p);
        let mut q = memset_params(null_mut(), 0, 0);
        ok(cudaGraphMemsetNodeGetParams(ms, &mut q));
        assert_eq!(q, p);
        let bad = cudaMemsetParams { elementSize: 3, ..p };
        assert_eq!(cudaGraphMemsetNodeSetParams(ms, &bad), cudaErrorInvalidValue);
        let p2 = cudaMemsetParams { value: 7, width: 8, ..p };
        ok(cudaGraphMemsetNodeSetParams(ms, &p2));
        ok(cudaGraphMemsetNodeGetParams(ms, &mut q));
        assert_eq!(q, p2);

        let h = add_host(g, &[ms], 42);
        let mut hp = cudaHostNodeParams { r#fn: None, userData: null_mut() };
        ok(cudaGraphHostNodeGetParams(h, &mut hp));
        assert_eq!(hp.userData as usize, 42);
        assert_eq!(hp.r#fn.map(|f| f as usize), Some(log_tag as unsafe extern "C" fn(*mut c_void) as usize));
        ok(cudaGraphHostNodeSetParams(h, &cudaHostNodeParams { r#fn: Some(log_tag), userData: 43 as *mut c_void }));
        assert_eq!(cudaGraphHostNodeSetParams(h, &cudaHostNodeParams { r#fn: None, userData: null_mut() }), cudaErrorInvalidValue);

        // Child graph: the node embeds a copy.
        let child = graph();
        add_host(child, &[], 44);
        let mut cn = null_mut();
        ok(cudaGraphAddChildGraphNode(&mut cn, g, &h, 1, child));
        let mut embedded = null_mut();
        ok(cudaGraphChildGraphNodeGetGraph(cn, &mut embedded));
        assert!(!embedded.is_null());
        assert_ne!(embedded, child);
        let mut count = 0;
        ok(cudaGraphGetNodes(embedded, null_mut(), &mut count));
        assert_eq!(count, 1);

        // Events (opaque handles to the graph area).
        let ev1 = 0xe1 as cudaEvent_t;
        let ev2 = 0xe2 as cudaEvent_t;
        let mut rec = null_mut();
        ok(cudaGraphAddEventRecordNode(&mut rec, g, null(), 0, ev1));
        let mut wait = null_mut();
        ok(cudaGraphAddEventWaitNode(&mut wait, g, &rec, 1, ev1));
        let mut got = null_mut();
        ok(cudaGraphEventRecordNodeGetEvent(rec, &mut got));
        assert_eq!(got, ev1);
        ok(cudaGraphEventRecordNodeSetEvent(rec, ev2));
        ok(cudaGraphEventRecordNodeGetEvent(rec, &mut got));
        assert_eq!(got, ev2);
        ok(cudaGraphEventWaitNodeSetEvent(wait, ev2));
        ok(cudaGraphEventWaitNodeGetEvent(wait, &mut got));
        assert_eq!(got, ev2);
        assert_eq!(cudaGraphEventWaitNodeGetEvent(rec, &mut got), cudaErrorInvalidValue);
        let mut t = cudaGraphNodeTypeCount;
        ok(cudaGraphNodeGetType(wait, &mut t));
        assert_eq!(t, cudaGraphNodeTypeWaitEvent);
        ok(cudaGraphNodeGetType(cn, &mut t));
        assert_eq!(t, cudaGraphNodeTypeGraph);

        let e = instantiate(g);
        LOG.lock().unwrap().clear();
        launch(e);
        assert_eq!(&buf[..8], &[7; 8]);
        assert_eq!(&buf[8..], &[0; 8]);
        assert_eq!(*LOG.lock().unwrap(), vec![43, 44]);
        ok(cudaGraphExecEventRecordNodeSetEvent(e, rec, ev1));
        ok(cudaGraphExecEventWaitNodeSetEvent(e, wait, ev1));
        assert_eq!(cudaGraphExecEventWaitNodeSetEvent(e, rec, ev1), cudaErrorInvalidValue);
        ok(cudaGraphExecMemsetNodeSetParams(e, ms, &p));
        ok(cudaGraphExecHostNodeSetParams(e, h, &cudaHostNodeParams { r#fn: Some(log_tag), userData: 45 as *mut c_void }));
        // A replacement child with the same shape.
        let child2 = graph();
        add_host(child2, &[], 46);
        ok(cudaGraphExecChildGraphNodeSetParams(e, cn, child2));
        LOG.lock().unwrap().clear();
        launch(e);
        assert_eq!(buf, vec![0xdead_beef; 16]);
        assert_eq!(*LOG.lock().unwrap(), vec![45, 46]);
    }
}

#[test]
fn external_semaphore_and_memory_nodes() {
    use_fake_driver(&[]);
    let g = graph();
    unsafe {
        let mut sems = [0x5e as cudaExternalSemaphore_t];
        let params = [0u8; 144];
        let sp = cudaExternalSemaphoreSignalNodeParams {
            extSemArray: sems.as_mut_ptr(),
            paramsArray: params.as_ptr().cast(),
            numExtSems: 1,
        };
        let mut s = null_mut();
        ok(cudaGraphAddExternalSemaphoresSignalNode(&mut s, g, null(), 0, &sp));
        let mut got: cudaExternalSemaphoreSignalNodeParams = std::mem::zeroed();
        ok(cudaGraphExternalSemaphoresSignalNodeGetParams(s, &mut got));
        assert_eq!(got, sp);
        ok(cudaGraphExternalSemaphoresSignalNodeSetParams(s, &sp));
        let wp = cudaExternalSemaphoreWaitNodeParams { extSemArray: sems.as_mut_ptr(), paramsArray: params.as_ptr().cast(), numExtSems: 1 };
        let mut w = null_mut();
        ok(cudaGraphAddExternalSemaphoresWaitNode(&mut w, g, &s, 1, &wp));
        let mut gw: cudaExternalSemaphoreWaitNodeParams = std::mem::zeroed();
        ok(cudaGraphExternalSemaphoresWaitNodeGetParams(w, &mut gw));
        assert_eq!(gw, wp);
        ok(cudaGraphExternalSemaphoresWaitNodeSetParams(w, &wp));
        let zero = cudaExternalSemaphoreWaitNodeParams { numExtSems: 0, ..wp };
        assert_eq!(cudaGraphExternalSemaphoresWaitNodeSetParams(w, &zero), cudaErrorInvalidValue);

        // Mem alloc: the address comes back in the caller's struct.
        let mut ap: cudaMemAllocNodeParams = std::mem::zeroed();
        ap.poolProps.allocType = cudaMemAllocationTypePinned;
        ap.poolProps.location = cudaMemLocation { r#type: cudaMemLocationTypeDevice, id: 0 };
        ap.bytesize = 4096;
        let mut a = null_mut();
        ok(cudaGraphAddMemAllocNode(&mut a, g, &w, 1, &mut ap));
        assert!(!ap.dptr.is_null());
        let mut ga: cudaMemAllocNodeParams = std::mem::zeroed();
        ok(cudaGraphMemAllocNodeGetParams(a, &mut ga));
        assert_eq!((ga.bytesize, ga.dptr), (4096, ap.dptr));
        let mut used = 0u64;
        ok(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, (&mut used as *mut u64).cast()));
        assert_eq!(used, 4096);
        let mut f = null_mut();
        ok(cudaGraphAddMemFreeNode(&mut f, g, &a, 1, ap.dptr));
        let mut freed: *mut c_void = null_mut();
        ok(cudaGraphMemFreeNodeGetParams(f, (&mut freed as *mut *mut c_void).cast()));
        assert_eq!(freed, ap.dptr);
        assert_eq!(cudaGraphMemFreeNodeGetParams(f, null_mut()), cudaErrorInvalidValue);

        let e = instantiate(g);
        ok(cudaGraphExecExternalSemaphoresSignalNodeSetParams(e, s, &sp));
        ok(cudaGraphExecExternalSemaphoresWaitNodeSetParams(e, w, &wp));
        launch(e);

        // Graph memory attributes and trim.
        let mut zero_v = 0u64;
        ok(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, (&mut zero_v as *mut u64).cast()));
        let mut one = 1u64;
        assert_eq!(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, (&mut one as *mut u64).cast()), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, (&mut zero_v as *mut u64).cast()), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaDeviceGetGraphMemAttribute(99, cudaGraphMemAttrUsedMemHigh, (&mut used as *mut u64).cast()), cudaErrorInvalidDevice);
        ok(cudaDeviceGraphMemTrim(0));
        assert_eq!(cudaDeviceGraphMemTrim(-1), cudaErrorInvalidDevice);
    }
}

#[test]
fn generic_add_node_and_set_params() {
    use_fake_driver(&[]);
    let g = graph();
    let mut buf = vec![0u8; 32];
    unsafe {
        let mut p = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeMemset);
        p._u.memset = memset_params(buf.as_mut_ptr().cast(), 3, 32);
        let mut n = null_mut();
        ok(cudaGraphAddNode(&mut n, g, null(), null(), 0, &mut p));
        let mut q = memset_params(null_mut(), 0, 0);
        ok(cudaGraphMemsetNodeGetParams(n, &mut q));
        assert_eq!(q, p._u.memset);

        let mut k = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeKernel);
        k._u.kernel = cudaKernelNodeParamsV2::from_v1(&kernel_params(2, null_mut()));
        let edge = cudaGraphEdgeData::default();
        let mut kn = null_mut();
        ok(cudaGraphAddNode(&mut kn, g, &n, &edge, 1, &mut k));
        let mut kp = kernel_params(0, null_mut());
        ok(cudaGraphKernelNodeGetParams(kn, &mut kp));
        assert_eq!(kp, k._u.kernel.v1());

        let mut c = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeMemcpy);
        c._u.memcpy.copyParams = cudaMemcpy3DParms {
            srcPtr: cudaPitchedPtr { ptr: buf.as_mut_ptr().cast(), pitch: 16, xsize: 16, ysize: 1 },
            dstPtr: cudaPitchedPtr { ptr: buf.as_mut_ptr().add(16).cast(), pitch: 16, xsize: 16, ysize: 1 },
            extent: cudaExtent { width: 16, height: 1, depth: 1 },
            kind: cudaMemcpyDefault,
            ..Default::default()
        };
        let mut cn = null_mut();
        ok(cudaGraphAddNode(&mut cn, g, &kn, null(), 1, &mut c));

        // Conditional: the handle first, then the node, whose body graphs
        // come back in the caller's struct.
        let mut handle = 0;
        ok(cudaGraphConditionalHandleCreate(&mut handle, g, 1, 1));
        let mut cond = cudaGraphNodeParams::zeroed(cudaGraphNodeTypeConditional);
        cond._u.conditional = cudaConditionalNodeParams { handle, r#type: cudaGraphCondTypeIf, size: 1, phGraph_out: null_mut(), ctx: null_mut() };
        let mut condn = null_mut();
        ok(cudaGraphAddNode(&mut condn, g, &cn, null(), 1, &mut cond));
        let body = *cond._u.conditional.phGraph_out;
        assert!(!body.is_null());
        add_host(body, &[], 77);
        let mut t = cudaGraphNodeTypeCount;
        ok(cudaGraphNodeGetType(condn, &mut t));
        assert_eq!(t, cudaGraphNodeTypeConditional);
        // A graph with a conditional node cannot be cloned (NVIDIA's rule).
        let mut cl = null_mut();
        assert_eq!(cudaGraphClone(&mut cl, g), cudaErrorNotSupported);

        // Bad: reserved bytes, unknown type.
        let mut bad = p;
        bad.reserved0[1] = 1;
        assert_eq!(cudaGraphAddNode(&mut n, g, null(), null(), 0, &mut bad), cudaErrorInvalidValue);
        let mut unknown = cudaGraphNodeParams::zeroed(cudaGraphNodeType(12));
        assert_eq!(cudaGraphAddNode(&mut n, g, null(), null(), 0, &mut unknown), cudaErrorInvalidValue);
        assert_eq!(cudaGraphAddNode(&mut n, g, null(), null(), 0, null_mut()), cudaErrorInvalidValue);

        // Set through the generic call, then on the executable graph.
        let mut p2 = p;
        p2._u.memset.value = 4;
        ok(cudaGraphNodeSetParams(n, &mut p2));
        ok(cudaGraphMemsetNodeGetParams(n, &mut q));
        assert_eq!(q.value, 4);
        let e = instantiate(g);
        LOG.lock().unwrap().clear();
        launch(e);
        assert_eq!(buf, vec![4; 32]);
        assert_eq!(*LOG.lock().unwrap(), vec![77]);
        let mut p3 = p;
        p3._u.memset.value = 5;
        ok(cudaGraphExecNodeSetParams(e, n, &mut p3));
        launch(e);
        assert_eq!(buf, vec![5; 32]);
        assert_eq!(cudaGraphExecNodeSetParams(e, kn, &mut p3), cudaErrorInvalidValue);
    }
}

#[test]
fn edges_with_edge_data_and_queries() {
    use_fake_driver(&[]);
    let g = graph();
    let (a, b, c) = (add_kernel(g, &[], 1), add_kernel(g, &[], 1), add_empty(g, &[]));
    unsafe {
        let prog = cudaGraphEdgeData { from_port: cudaGraphKernelNodePortProgrammatic as u8, to_port: 0, r#type: 1, reserved: [0; 5] };
        let from = [a, a];
        let to = [b, c];
        let data = [prog, cudaGraphEdgeData::default()];
        ok(cudaGraphAddDependencies(g, from.as_ptr(), to.as_ptr(), data.as_ptr(), 2));
        // Duplicate edge, self edge, node of another graph, bad edge data.
        assert_eq!(cudaGraphAddDependencies(g, &a, &b, null(), 1), cudaErrorInvalidValue);
        assert_eq!(cudaGraphAddDependencies(g, &a, &a, null(), 1), cudaErrorInvalidValue);
        let other = add_empty(graph(), &[]);
        assert_eq!(cudaGraphAddDependencies(g, &other, &a, null(), 1), cudaErrorInvalidValue);
        let bad = cudaGraphEdgeData { to_port: 1, ..Default::default() };
        assert_eq!(cudaGraphAddDependencies(g, &b, &c, &bad, 1), cudaErrorInvalidValue);
        assert_eq!(cudaGraphAddDependencies(g, null(), null(), null(), 1), cudaErrorInvalidValue);
        ok(cudaGraphAddDependencies(g, null(), null(), null(), 0));

        let mut n = 0;
        ok(cudaGraphGetEdges(g, null_mut(), null_mut(), null_mut(), &mut n));
        assert_eq!(n, 2);
        let mut f = [null_mut(); 3];
        let mut t = [null_mut(); 3];
        let mut d = [cudaGraphEdgeData { r#type: 9, ..Default::default() }; 3];
        n = 3;
        ok(cudaGraphGetEdges(g, f.as_mut_ptr(), t.as_mut_ptr(), d.as_mut_ptr(), &mut n));
        assert_eq!(n, 2);
        assert_eq!((f[0], t[0], d[0]), (a, b, prog));
        assert_eq!((f[1], t[1], d[1]), (a, c, cudaGraphEdgeData::default()));
        assert_eq!((f[2], t[2]), (null_mut(), null_mut()));
        // Leaving out edge data that is not default loses information.
        n = 2;
        assert_eq!(cudaGraphGetEdges(g, f.as_mut_ptr(), t.as_mut_ptr(), null_mut(), &mut n), cudaErrorLossyQuery);
        assert_eq!(cudaGraphGetEdges(g, null_mut(), null_mut(), null_mut(), null_mut()), cudaErrorInvalidValue);

        let mut deps = [null_mut(); 2];
        let mut dd = [cudaGraphEdgeData::default(); 2];
        n = 2;
        ok(cudaGraphNodeGetDependencies(b, deps.as_mut_ptr(), dd.as_mut_ptr(), &mut n));
        assert_eq!((n, deps[0], dd[0]), (1, a, prog));
        n = 0;
        ok(cudaGraphNodeGetDependentNodes(a, null_mut(), null_mut(), &mut n));
        assert_eq!(n, 2);
        n = 2;
        ok(cudaGraphNodeGetDependentNodes(a, deps.as_mut_ptr(), dd.as_mut_ptr(), &mut n));
        assert_eq!(deps, [b, c]);

        let mut roots = [null_mut(); 4];
        n = 4;
        ok(cudaGraphGetRootNodes(g, roots.as_mut_ptr(), &mut n));
        assert_eq!((n, roots[0]), (1, a));
        n = 0;
        ok(cudaGraphGetNodes(g, null_mut(), &mut n));
        assert_eq!(n, 3);
        let mut all = [null_mut(); 2];
        n = 2;
        ok(cudaGraphGetNodes(g, all.as_mut_ptr(), &mut n));
        assert_eq!((n, all), (2, [a, b]));

        // Removing needs the edge exactly (with its data).
        assert_eq!(cudaGraphRemoveDependencies(g, &a, &b, null(), 1), cudaErrorInvalidValue);
        ok(cudaGraphRemoveDependencies(g, &a, &b, &prog, 1));
        n = 0;
        ok(cudaGraphGetEdges(g, null_mut(), null_mut(), null_mut(), &mut n));
        assert_eq!(n, 1);
        n = 4;
        ok(cudaGraphGetRootNodes(g, roots.as_mut_ptr(), &mut n));
        assert_eq!(n, 2);

        // Destroying a node removes its edges.
        ok(cudaGraphDestroyNode(c));
        n = 0;
        ok(cudaGraphGetEdges(g, null_mut(), null_mut(), null_mut(), &mut n));
        assert_eq!(n, 0);
        assert_eq!(cudaGraphDestroyNode(c), cudaErrorInvalidValue);
        let mut ty = cudaGraphNodeTypeCount;
        assert_eq!(cudaGraphNodeGetType(c, &mut ty), cudaErrorInvalidValue);
    }
}

#[test]
fn clone_and_find_in_clone() {
    use_fake_driver(&[]);
    let g = graph();
    let a = add_host(g, &[], 1);
    let b = add_host(g, &[a], 2);
    unsafe {
        let mut c = null_mut();
        ok(cudaGraphClone(&mut c, g));
        let (mut ca, mut cb) = (null_mut(), null_mut());
        ok(cudaGraphNodeFindInClone(&mut ca, a, c));
        ok(cudaGraphNodeFindInClone(&mut cb, b, c));
        assert!(ca != a && cb != b && ca != cb);
        let mut deps = [null_mut()];
        let mut n = 1;
        ok(cudaGraphNodeGetDependencies(cb, deps.as_mut_ptr(), null_mut(), &mut n));
        assert_eq!(deps[0], ca);
        let mut hp = cudaHostNodeParams { r#fn: None, userData: null_mut() };
        ok(cudaGraphHostNodeGetParams(cb, &mut hp));
        assert_eq!(hp.userData as usize, 2);
        // Changing the clone leaves the original alone.
        ok(cudaGraphHostNodeSetParams(cb, &cudaHostNodeParams { r#fn: Some(log_tag), userData: 5 as *mut c_void }));
        ok(cudaGraphHostNodeGetParams(b, &mut hp));
        assert_eq!(hp.userData as usize, 2);
        let mut x = null_mut();
        assert_eq!(cudaGraphNodeFindInClone(&mut x, a, g), cudaErrorInvalidValue);
        assert_eq!(cudaGraphNodeFindInClone(null_mut(), a, c), cudaErrorInvalidValue);
        let mut xg = null_mut();
        assert_eq!(cudaGraphClone(&mut xg, null_mut()), cudaErrorInvalidValue);
        ok(cudaGraphDestroy(c));
        assert_eq!(cudaGraphNodeFindInClone(&mut x, a, c), cudaErrorInvalidValue);
    }
}

#[test]
fn exec_update_success_and_failures() {
    use_fake_driver(&[]);
    let mut buf = vec![0u8; 16];
    let ptr: *mut c_void = buf.as_mut_ptr().cast();
    let build = |value: c_uint, extra: bool, host_last: bool| {
        let g = graph();
        let m = add_memset(g, &[], &memset_params(ptr, value, 16));
        if host_last {
            add_host(g, &[m], 1);
        } else {
            add_empty(g, &[m]);
        }
        if extra {
            add_empty(g, &[]);
        }
        g
    };
    let g1 = build(1, false, false);
    let e = instantiate(g1);
    unsafe {
        launch(e);
        assert_eq!(buf, vec![1; 16]);
        let mut info = cudaGraphExecUpdateResultInfo { result: cudaGraphExecUpdateError, errorNode: 0x1 as _, errorFromNode: 0x1 as _ };
        let g2 = build(2, false, false);
        ok(cudaGraphExecUpdate(e, g2, &mut info));
        assert_eq!(info.result, cudaGraphExecUpdateSuccess);
        launch(e);
        assert_eq!(buf, vec![2; 16]);

        let g3 = build(3, true, false);
        assert_eq!(cudaGraphExecUpdate(e, g3, &mut info), cudaErrorGraphExecUpdateFailure);
        assert_eq!(info.result, cudaGraphExecUpdateErrorTopologyChanged);
        let g4 = build(4, false, true);
        assert_eq!(cudaGraphExecUpdate(e, g4, &mut info), cudaErrorGraphExecUpdateFailure);
        assert_eq!(info.result, cudaGraphExecUpdateErrorNodeTypeChanged);
        let mut nodes = [null_mut(); 2];
        let mut n = 2;
        ok(cudaGraphGetNodes(g4, nodes.as_mut_ptr(), &mut n));
        assert_eq!(info.errorNode, nodes[1]);
        // A failed update leaves the executable graph as it was.
        launch(e);
        assert_eq!(buf, vec![2; 16]);
        assert_eq!(cudaGraphExecUpdate(e, g2, null_mut()), cudaErrorInvalidValue);
        assert_eq!(cudaGraphExecUpdate(null_mut(), g2, &mut info), cudaErrorInvalidValue);
    }
}

#[test]
fn enable_and_disable_nodes() {
    use_fake_driver(&[]);
    let mut buf = vec![0u8; 8];
    let g = graph();
    let m = add_memset(g, &[], &memset_params(buf.as_mut_ptr().cast(), 9, 8));
    let h = add_host(g, &[m], 1);
    let e = instantiate(g);
    unsafe {
        let mut on = 7;
        ok(cudaGraphNodeGetEnabled(e, m, &mut on));
        assert_eq!(on, 1);
        ok(cudaGraphNodeSetEnabled(e, m, 0));
        ok(cudaGraphNodeGetEnabled(e, m, &mut on));
        assert_eq!(on, 0);
        launch(e);
        assert_eq!(buf, vec![0; 8]);
        ok(cudaGraphNodeSetEnabled(e, m, 1));
        launch(e);
        assert_eq!(buf, vec![9; 8]);
        // Host nodes cannot be toggled; a node not in the exec is unknown.
        assert_eq!(cudaGraphNodeSetEnabled(e, h, 0), cudaErrorInvalidValue);
        let other = add_empty(graph(), &[]);
        assert_eq!(cudaGraphNodeGetEnabled(e, other, &mut on), cudaErrorInvalidValue);
        assert_eq!(cudaGraphNodeGetEnabled(e, m, null_mut()), cudaErrorInvalidValue);
    }
}

#[test]
fn instantiate_flags_params_and_cycles() {
    use_fake_driver(&[]);
    let g = graph();
    let a = add_empty(g, &[]);
    unsafe {
        let mut e = null_mut();
        assert_eq!(cudaGraphInstantiateWithFlags(&mut e, g, 0x100), cudaErrorInvalidValue);
        // Upload needs the params form; auto-free and device launch exclude each other.
        assert_eq!(cudaGraphInstantiateWithFlags(&mut e, g, cudaGraphInstantiateFlagUpload.0 as u64), cudaErrorInvalidValue);
        let both = (cudaGraphInstantiateFlagAutoFreeOnLaunch.0 | cudaGraphInstantiateFlagDeviceLaunch.0) as u64;
        assert_eq!(cudaGraphInstantiate(&mut e, g, both), cudaErrorInvalidValue);
        assert_eq!(cudaGraphInstantiate(null_mut(), g, 0), cudaErrorInvalidValue);
        let flags = cudaGraphInstantiateFlagAutoFreeOnLaunch.0 as u64;
        ok(cudaGraphInstantiateWithFlags(&mut e, g, flags));
        let mut got = 0;
        ok(cudaGraphExecGetFlags(e, &mut got));
        assert_eq!(got, flags);
        assert_eq!(cudaGraphExecGetFlags(e, null_mut()), cudaErrorInvalidValue);

        let mut p = cudaGraphInstantiateParams {
            flags: cudaGraphInstantiateFlagUpload.0 as u64,
            uploadStream: null_mut(),
            errNode_out: 0x1 as _,
            result_out: cudaGraphInstantiateError,
        };
        let mut e2 = null_mut();
        ok(cudaGraphInstantiateWithParams(&mut e2, g, &mut p));
        assert_eq!(p.result_out, cudaGraphInstantiateSuccess);
        assert!(!e2.is_null());
        let mut e3 = null_mut();
        ok(cudaGraphInstantiateWithParams_ptsz(&mut e3, g, &mut p));
        assert_eq!(cudaGraphInstantiateWithParams(&mut e3, g, null_mut()), cudaErrorInvalidValue);

        // A cycle is an invalid structure.
        let b = add_empty(g, &[a]);
        ok(cudaGraphAddDependencies(g, &b, &a, null(), 1));
        p.flags = 0;
        assert_eq!(cudaGraphInstantiateWithParams(&mut e3, g, &mut p), cudaErrorInvalidValue);
        assert_eq!(p.result_out, cudaGraphInstantiateInvalidStructure);
    }
}

#[test]
fn debug_dot_print_writes_a_file() {
    use_fake_driver(&[]);
    let g = graph();
    let a = add_empty(g, &[]);
    add_empty(g, &[a]);
    let path = scratch("graph_dot").join("g.dot");
    let _ = std::fs::remove_file(&path);
    let c = CString::new(path.to_str().unwrap()).unwrap();
    unsafe {
        ok(cudaGraphDebugDotPrint(g, c.as_ptr(), cudaGraphDebugDotFlagsVerbose.0 as c_uint));
        let dot = std::fs::read_to_string(&path).unwrap();
        assert!(dot.starts_with("digraph"));
        assert_eq!(dot.matches("->").count(), 1);
        assert_eq!(cudaGraphDebugDotPrint(g, null(), 0), cudaErrorInvalidValue);
        let bad = CString::new("/nonexistent-dir/x.dot").unwrap();
        assert_eq!(cudaGraphDebugDotPrint(g, bad.as_ptr(), 0), cudaErrorOperatingSystem);
    }
}

static DESTROYED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn destroy_obj(p: *mut c_void) {
    DESTROYED.fetch_add(p as usize, Ordering::SeqCst);
}

#[test]
fn user_objects_run_their_destructors() {
    use_fake_driver(&[]);
    let flags = cudaUserObjectNoDestructorSync.0 as c_uint;
    unsafe {
        let mut o = null_mut();
        assert_eq!(cudaUserObjectCreate(&mut o, std::ptr::without_provenance_mut(1), Some(destroy_obj), 1, 0), cudaErrorInvalidValue);
        assert_eq!(cudaUserObjectCreate(&mut o, std::ptr::without_provenance_mut(1), None, 1, flags), cudaErrorInvalidValue);
        assert_eq!(cudaUserObjectCreate(&mut o, std::ptr::without_provenance_mut(1), Some(destroy_obj), 0, flags), cudaErrorInvalidValue);
        assert_eq!(cudaUserObjectCreate(null_mut(), std::ptr::without_provenance_mut(1), Some(destroy_obj), 1, flags), cudaErrorInvalidValue);

        // Plain references: 1 + 2 retained, 3 released -> destroyed once.
        ok(cudaUserObjectCreate(&mut o, std::ptr::without_provenance_mut(1), Some(destroy_obj), 1, flags));
        ok(cudaUserObjectRetain(o, 2));
        ok(cudaUserObjectRelease(o, 2));
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 0);
        ok(cudaUserObjectRelease(o, 1));
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 1);
        assert_eq!(cudaUserObjectRelease(o, 1), cudaErrorInvalidValue);

        // Moved into a graph; an executable graph keeps its own reference.
        let mut o2 = null_mut();
        ok(cudaUserObjectCreate(&mut o2, 10 as *mut c_void, Some(destroy_obj), 1, flags));
        let g = graph();
        add_empty(g, &[]);
        ok(cudaGraphRetainUserObject(g, o2, 1, cudaGraphUserObjectMove.0 as c_uint));
        assert_eq!(cudaGraphRetainUserObject(g, o2, 1, 8), cudaErrorInvalidValue);
        assert_eq!(cudaGraphReleaseUserObject(g, o2, 5), cudaErrorInvalidValue);
        let e = instantiate(g);
        ok(cudaGraphDestroy(g));
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 1);
        ok(cudaGraphExecDestroy(e));
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 11);

        // Retained (not moved) by a graph, then released by it.
        let mut o3 = null_mut();
        ok(cudaUserObjectCreate(&mut o3, 100 as *mut c_void, Some(destroy_obj), 1, flags));
        let g = graph();
        ok(cudaGraphRetainUserObject(g, o3, 2, 0));
        ok(cudaUserObjectRelease(o3, 1));
        ok(cudaGraphReleaseUserObject(g, o3, 2));
        assert_eq!(DESTROYED.load(Ordering::SeqCst), 111);
    }
}

#[test]
fn driver_failures_pass_through() {
    use_fake_driver(&[]);
    let g = graph();
    add_empty(g, &[]);
    let e = instantiate(g);
    fake::fail("cuGraphLaunch", 1, 2);
    unsafe {
        assert_eq!(cudaGraphLaunch(e, null_mut()), cudaErrorMemoryAllocation);
        assert_eq!(cudaGetLastError(), cudaErrorMemoryAllocation);
        launch(e);
    }
}

#[test]
fn no_driver_entry_point_is_not_supported() {
    use_fake_driver(&[("FAKE_CUDA_MISSING", "cuGraphConditionalHandleCreate")]);
    let g = graph();
    let mut h = 0;
    unsafe {
        assert_eq!(cudaGraphConditionalHandleCreate(&mut h, g, 0, 0), cudaErrorNotSupported);
    }
}
