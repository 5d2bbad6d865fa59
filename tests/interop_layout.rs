//! The nested members of the texture, external-resource and EGL descriptors
//! (anonymous structs and unions in NVIDIA's headers, named types in ours)
//! sit where NVIDIA's CUDA 13.0 headers put them. tests/abi_layout.rs checks
//! the top-level fields; this checks every nested one, and the EGL types of
//! `cuda_egl_interop.h`, compiled with stand-in EGL headers.

mod common;
use common::*;
use cudart_shim::driver::api::misc_abi::*;
use cudart_shim::types::*;
use std::mem::{offset_of, size_of};

/// (C expression, our value).
fn checks() -> Vec<(&'static str, usize)> {
    let rd = offset_of!(cudaResourceDesc, res);
    let hm = offset_of!(cudaExternalMemoryHandleDesc, handle);
    let hs = offset_of!(cudaExternalSemaphoreHandleDesc, handle);
    let sp = offset_of!(cudaExternalSemaphoreSignalParams, params);
    let wp = offset_of!(cudaExternalSemaphoreWaitParams, params);
    let dr = offset_of!(CUDA_RESOURCE_DESC, res);
    vec![
        ("sizeof(struct cudaResourceDesc)", size_of::<cudaResourceDesc>()),
        ("offsetof(struct cudaResourceDesc, res.array.array)", rd + offset_of!(cudaResourceDescArray, array)),
        ("offsetof(struct cudaResourceDesc, res.mipmap.mipmap)", rd + offset_of!(cudaResourceDescMipmap, mipmap)),
        ("offsetof(struct cudaResourceDesc, res.linear.devPtr)", rd + offset_of!(cudaResourceDescLinear, devPtr)),
        ("offsetof(struct cudaResourceDesc, res.linear.desc)", rd + offset_of!(cudaResourceDescLinear, desc)),
        ("offsetof(struct cudaResourceDesc, res.linear.sizeInBytes)", rd + offset_of!(cudaResourceDescLinear, sizeInBytes)),
        ("offsetof(struct cudaResourceDesc, res.pitch2D.devPtr)", rd + offset_of!(cudaResourceDescPitch2D, devPtr)),
        ("offsetof(struct cudaResourceDesc, res.pitch2D.desc)", rd + offset_of!(cudaResourceDescPitch2D, desc)),
        ("offsetof(struct cudaResourceDesc, res.pitch2D.width)", rd + offset_of!(cudaResourceDescPitch2D, width)),
        ("offsetof(struct cudaResourceDesc, res.pitch2D.height)", rd + offset_of!(cudaResourceDescPitch2D, height)),
        ("offsetof(struct cudaResourceDesc, res.pitch2D.pitchInBytes)", rd + offset_of!(cudaResourceDescPitch2D, pitchInBytes)),
        ("offsetof(struct cudaResourceDesc, res.reserved.reserved)", rd + offset_of!(cudaResourceDescReserved, reserved)),
        ("sizeof(((struct cudaResourceDesc*)0)->res)", size_of::<cudaResourceDescRes>()),
        ("sizeof(struct cudaExternalMemoryHandleDesc)", size_of::<cudaExternalMemoryHandleDesc>()),
        ("offsetof(struct cudaExternalMemoryHandleDesc, handle.fd)", hm),
        ("offsetof(struct cudaExternalMemoryHandleDesc, handle.win32.handle)", hm + offset_of!(cudaExternalWin32Handle, handle)),
        ("offsetof(struct cudaExternalMemoryHandleDesc, handle.win32.name)", hm + offset_of!(cudaExternalWin32Handle, name)),
        ("offsetof(struct cudaExternalMemoryHandleDesc, handle.nvSciBufObject)", hm),
        ("sizeof(((struct cudaExternalMemoryHandleDesc*)0)->handle)", size_of::<cudaExternalMemoryHandleUnion>()),
        ("sizeof(struct cudaExternalSemaphoreHandleDesc)", size_of::<cudaExternalSemaphoreHandleDesc>()),
        ("offsetof(struct cudaExternalSemaphoreHandleDesc, handle.win32.name)", hs + offset_of!(cudaExternalWin32Handle, name)),
        ("sizeof(((struct cudaExternalSemaphoreHandleDesc*)0)->handle)", size_of::<cudaExternalSemaphoreHandleUnion>()),
        ("sizeof(struct cudaExternalSemaphoreSignalParams)", size_of::<cudaExternalSemaphoreSignalParams>()),
        ("offsetof(struct cudaExternalSemaphoreSignalParams, params.fence.value)", sp + offset_of!(cudaExternalSemaphoreSignalParamsParams, fence)),
        ("offsetof(struct cudaExternalSemaphoreSignalParams, params.nvSciSync.fence)", sp + offset_of!(cudaExternalSemaphoreSignalParamsParams, nvSciSync)),
        ("offsetof(struct cudaExternalSemaphoreSignalParams, params.keyedMutex.key)", sp + offset_of!(cudaExternalSemaphoreSignalParamsParams, keyedMutex)),
        ("offsetof(struct cudaExternalSemaphoreSignalParams, params.reserved)", sp + offset_of!(cudaExternalSemaphoreSignalParamsParams, reserved)),
        ("sizeof(((struct cudaExternalSemaphoreSignalParams*)0)->params)", size_of::<cudaExternalSemaphoreSignalParamsParams>()),
        ("sizeof(struct cudaExternalSemaphoreWaitParams)", size_of::<cudaExternalSemaphoreWaitParams>()),
        ("offsetof(struct cudaExternalSemaphoreWaitParams, params.keyedMutex.key)", wp + offset_of!(cudaExternalSemaphoreWaitParamsParams, keyedMutex)),
        (
            "offsetof(struct cudaExternalSemaphoreWaitParams, params.keyedMutex.timeoutMs)",
            wp + offset_of!(cudaExternalSemaphoreWaitParamsParams, keyedMutex) + offset_of!(cudaExternalSemaphoreWaitKeyedMutex, timeoutMs),
        ),
        ("offsetof(struct cudaExternalSemaphoreWaitParams, params.reserved)", wp + offset_of!(cudaExternalSemaphoreWaitParamsParams, reserved)),
        ("sizeof(((struct cudaExternalSemaphoreWaitParams*)0)->params)", size_of::<cudaExternalSemaphoreWaitParamsParams>()),
        ("sizeof(cudaEglPlaneDesc)", size_of::<cudaEglPlaneDesc>()),
        ("offsetof(cudaEglPlaneDesc, numChannels)", offset_of!(cudaEglPlaneDesc, numChannels)),
        ("offsetof(cudaEglPlaneDesc, channelDesc)", offset_of!(cudaEglPlaneDesc, channelDesc)),
        ("offsetof(cudaEglPlaneDesc, reserved)", offset_of!(cudaEglPlaneDesc, reserved)),
        ("sizeof(cudaEglFrame)", size_of::<cudaEglFrame>()),
        ("offsetof(cudaEglFrame, frame.pArray)", offset_of!(cudaEglFrame, frame)),
        ("offsetof(cudaEglFrame, frame.pPitch)", offset_of!(cudaEglFrame, frame)),
        ("sizeof(((cudaEglFrame*)0)->frame)", size_of::<cudaEglFrameUnion>()),
        ("offsetof(cudaEglFrame, planeDesc)", offset_of!(cudaEglFrame, planeDesc)),
        ("offsetof(cudaEglFrame, planeCount)", offset_of!(cudaEglFrame, planeCount)),
        ("offsetof(cudaEglFrame, frameType)", offset_of!(cudaEglFrame, frameType)),
        ("offsetof(cudaEglFrame, eglColorFormat)", offset_of!(cudaEglFrame, eglColorFormat)),
        ("sizeof(cudaEglStreamConnection)", size_of::<cudaEglStreamConnection>()),
        ("sizeof(cudaEglColorFormat)", size_of::<cudaEglColorFormat>()),
        ("cudaEglColorFormatUYVY2020", 116),
        ("cudaEglFrameTypePitch", 1),
        ("CUDA_EGL_MAX_PLANES", 3),
        ("cudaGLDeviceListAll", 1),
        ("cudaGLDeviceListNextFrame", 3),
        ("sizeof(GLuint)", size_of::<GLuint>()),
        // The driver's descriptors we convert to (cuda.h, cudaEGL.h).
        ("sizeof(CUDA_RESOURCE_DESC)", size_of::<CUDA_RESOURCE_DESC>()),
        ("offsetof(CUDA_RESOURCE_DESC, res)", offset_of!(CUDA_RESOURCE_DESC, res)),
        ("offsetof(CUDA_RESOURCE_DESC, flags)", offset_of!(CUDA_RESOURCE_DESC, flags)),
        ("offsetof(CUDA_RESOURCE_DESC, res.linear.format)", dr + offset_of!(CUDA_RESOURCE_DESC_linear, format)),
        ("offsetof(CUDA_RESOURCE_DESC, res.linear.numChannels)", dr + offset_of!(CUDA_RESOURCE_DESC_linear, numChannels)),
        ("offsetof(CUDA_RESOURCE_DESC, res.linear.sizeInBytes)", dr + offset_of!(CUDA_RESOURCE_DESC_linear, sizeInBytes)),
        ("offsetof(CUDA_RESOURCE_DESC, res.pitch2D.width)", dr + offset_of!(CUDA_RESOURCE_DESC_pitch2D, width)),
        ("offsetof(CUDA_RESOURCE_DESC, res.pitch2D.pitchInBytes)", dr + offset_of!(CUDA_RESOURCE_DESC_pitch2D, pitchInBytes)),
        ("sizeof(CUDA_TEXTURE_DESC)", size_of::<CUDA_TEXTURE_DESC>()),
        ("offsetof(CUDA_TEXTURE_DESC, flags)", offset_of!(CUDA_TEXTURE_DESC, flags)),
        ("offsetof(CUDA_TEXTURE_DESC, mipmapFilterMode)", offset_of!(CUDA_TEXTURE_DESC, mipmapFilterMode)),
        ("offsetof(CUDA_TEXTURE_DESC, borderColor)", offset_of!(CUDA_TEXTURE_DESC, borderColor)),
        ("offsetof(CUDA_TEXTURE_DESC, reserved)", offset_of!(CUDA_TEXTURE_DESC, reserved)),
        ("sizeof(CUDA_RESOURCE_VIEW_DESC)", size_of::<CUDA_RESOURCE_VIEW_DESC>()),
        ("offsetof(CUDA_RESOURCE_VIEW_DESC, firstMipmapLevel)", offset_of!(CUDA_RESOURCE_VIEW_DESC, firstMipmapLevel)),
        ("offsetof(CUDA_RESOURCE_VIEW_DESC, lastLayer)", offset_of!(CUDA_RESOURCE_VIEW_DESC, lastLayer)),
        ("sizeof(CUDA_ARRAY3D_DESCRIPTOR)", size_of::<CUDA_ARRAY3D_DESCRIPTOR>()),
        ("offsetof(CUDA_ARRAY3D_DESCRIPTOR, Format)", offset_of!(CUDA_ARRAY3D_DESCRIPTOR, Format)),
        ("offsetof(CUDA_ARRAY3D_DESCRIPTOR, Flags)", offset_of!(CUDA_ARRAY3D_DESCRIPTOR, Flags)),
        ("sizeof(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC)", size_of::<CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC>()),
        ("offsetof(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, arrayDesc)", offset_of!(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, arrayDesc)),
        ("offsetof(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, numLevels)", offset_of!(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, numLevels)),
        ("sizeof(CUeglFrame)", size_of::<CUeglFrame>()),
        ("offsetof(CUeglFrame, width)", offset_of!(CUeglFrame, width)),
        ("offsetof(CUeglFrame, numChannels)", offset_of!(CUeglFrame, numChannels)),
        ("offsetof(CUeglFrame, cuFormat)", offset_of!(CUeglFrame, cuFormat)),
        // Layout-compatible pairs the driver receives unconverted.
        ("sizeof(CUDA_EXTERNAL_MEMORY_HANDLE_DESC)", size_of::<cudaExternalMemoryHandleDesc>()),
        ("offsetof(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, size)", offset_of!(cudaExternalMemoryHandleDesc, size)),
        ("offsetof(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, flags)", offset_of!(cudaExternalMemoryHandleDesc, flags)),
        ("sizeof(CUDA_EXTERNAL_MEMORY_BUFFER_DESC)", size_of::<cudaExternalMemoryBufferDesc>()),
        ("offsetof(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, flags)", offset_of!(cudaExternalMemoryBufferDesc, flags)),
        ("sizeof(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC)", size_of::<cudaExternalSemaphoreHandleDesc>()),
        ("offsetof(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, flags)", offset_of!(cudaExternalSemaphoreHandleDesc, flags)),
        ("sizeof(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS)", size_of::<cudaExternalSemaphoreSignalParams>()),
        ("offsetof(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, params.keyedMutex.key)", sp + offset_of!(cudaExternalSemaphoreSignalParamsParams, keyedMutex)),
        ("offsetof(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, flags)", offset_of!(cudaExternalSemaphoreSignalParams, flags)),
        ("sizeof(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS)", size_of::<cudaExternalSemaphoreWaitParams>()),
        ("offsetof(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, params.keyedMutex.timeoutMs)", wp + offset_of!(cudaExternalSemaphoreWaitParamsParams, keyedMutex) + 8),
        ("offsetof(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, flags)", offset_of!(cudaExternalSemaphoreWaitParams, flags)),
        ("sizeof(CUmemPoolProps)", size_of::<cudaMemPoolProps>()),
        ("offsetof(CUmemPoolProps, maxSize)", offset_of!(cudaMemPoolProps, maxSize)),
        ("offsetof(CUmemPoolProps, usage)", offset_of!(cudaMemPoolProps, usage)),
        ("sizeof(CUmemAccessDesc)", size_of::<cudaMemAccessDesc>()),
        ("sizeof(CUmemPoolPtrExportData)", size_of::<cudaMemPoolPtrExportData>()),
        ("sizeof(CUipcMemHandle)", size_of::<cudaIpcMemHandle_t>()),
        ("sizeof(CUipcEventHandle)", size_of::<cudaIpcEventHandle_t>()),
        ("sizeof(EGLint)", size_of::<EGLint>()),
    ]
}

/// Just enough of EGL and GL for NVIDIA's interop headers to compile.
const EGL_H: &str = "#pragma once\n#include <stdint.h>\ntypedef int32_t EGLint;\ntypedef void *EGLImageKHR;\ntypedef void *EGLStreamKHR;\ntypedef void *EGLSyncKHR;\n";
const GL_H: &str = "#pragma once\ntypedef unsigned int GLuint;\ntypedef unsigned int GLenum;\n";

#[test]
fn nested_members_match_nvidia_headers() {
    let dir = scratch("interop_layout");
    for (path, text) in [("EGL/egl.h", EGL_H), ("EGL/eglext.h", ""), ("GL/gl.h", GL_H)] {
        let p = dir.join("stub").join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let checks = checks();
    let mut src = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include <cuda_runtime_api.h>\n#include <cuda_egl_interop.h>\n#include <cuda_gl_interop.h>\n#include <cuda.h>\n#include <cudaEGL.h>\nint main(void) {\n",
    );
    for (expr, _) in &checks {
        src += &format!("  printf(\"%zu\\n\", (size_t)({expr}));\n");
    }
    src += "  return 0;\n}\n";
    let c = dir.join("probe.cpp");
    std::fs::write(&c, src).unwrap();
    let exe = dir.join("probe");
    let o = std::process::Command::new("c++")
        .arg("-I")
        .arg(dir.join("stub"))
        .arg("-I")
        .arg(cuda_include())
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(o.status.success(), "probe does not compile:\n{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(std::process::Command::new(&exe).output().unwrap().stdout).unwrap();
    let got: Vec<usize> = out.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(got.len(), checks.len());
    for ((expr, ours), theirs) in checks.iter().zip(got) {
        assert_eq!(*ours, theirs, "{expr}: ours {ours}, NVIDIA's {theirs}");
    }
}

#[test]
fn runtime_descriptor_sizes_match_the_13_0_size_table() {
    // tests/data/abi/struct-sizes-13.0.txt.
    assert_eq!(size_of::<cudaExternalMemoryHandleDesc>(), 104);
    assert_eq!(size_of::<cudaExternalMemoryBufferDesc>(), 88);
    assert_eq!(size_of::<cudaExternalMemoryMipmappedArrayDesc>(), 128);
    assert_eq!(size_of::<cudaExternalSemaphoreHandleDesc>(), 96);
    assert_eq!(size_of::<cudaExternalSemaphoreSignalParams>(), 144);
    assert_eq!(size_of::<cudaExternalSemaphoreWaitParams>(), 144);
    assert_eq!(size_of::<cudaMemPoolProps>(), 88);
    assert_eq!(size_of::<cudaMemPoolPtrExportData>(), 64);
    assert_eq!(size_of::<cudaMemAccessDesc>(), 12);
    assert_eq!(size_of::<cudaMemLocation>(), 8);
    assert_eq!(size_of::<cudaIpcMemHandle_t>(), 64);
    assert_eq!(size_of::<cudaResourceDesc>(), 144);
}
