//! Texture object, surface object and channel descriptor exports.

use crate::control::params;
use crate::runtime::{self, texture};
use crate::types::*;
use std::ffi::c_int;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaCreateChannelDesc(x: c_int, y: c_int, z: c_int, w: c_int, f: cudaChannelFormatKind) -> cudaChannelFormatDesc {
    entry!(cudaCreateChannelDesc(x, y, z, w, f) -> texture::create_channel_desc(x, y, z, w, f),
        on_panic = cudaChannelFormatDesc::default())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetChannelDesc(desc: *mut cudaChannelFormatDesc, array: cudaArray_const_t) -> cudaError_t {
    entry!(cudaGetChannelDesc(desc, array) => texture::get_channel_desc(unsafe { runtime::as_out(desc) }, array))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaCreateTextureObject(
    pTexObject: *mut cudaTextureObject_t,
    pResDesc: *const cudaResourceDesc,
    pTexDesc: *const cudaTextureDesc,
    pResViewDesc: *const cudaResourceViewDesc,
) -> cudaError_t {
    entry!(cudaCreateTextureObject(pTexObject, pResDesc, pTexDesc, pResViewDesc) =>
        texture::create_texture(unsafe { runtime::as_out(pTexObject) }, unsafe { runtime::as_in(pResDesc) }, unsafe { runtime::as_in(pTexDesc) }, pResViewDesc))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDestroyTextureObject(texObject: cudaTextureObject_t) -> cudaError_t {
    // Object 0 is never valid.
    entry!(cudaDestroyTextureObject(texObject) => runtime::pass!(cuTexObjectDestroy(texObject)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetTextureObjectResourceDesc(pResDesc: *mut cudaResourceDesc, texObject: cudaTextureObject_t) -> cudaError_t {
    entry!(cudaGetTextureObjectResourceDesc(pResDesc, texObject) => texture::texture_resource_desc(unsafe { runtime::as_out(pResDesc) }, texObject))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetTextureObjectTextureDesc(pTexDesc: *mut cudaTextureDesc, texObject: cudaTextureObject_t) -> cudaError_t {
    entry!(cudaGetTextureObjectTextureDesc(pTexDesc, texObject) => texture::texture_texture_desc(unsafe { runtime::as_out(pTexDesc) }, texObject))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetTextureObjectResourceViewDesc(
    pResViewDesc: *mut cudaResourceViewDesc,
    texObject: cudaTextureObject_t,
) -> cudaError_t {
    entry!(cudaGetTextureObjectResourceViewDesc(pResViewDesc, texObject) => texture::texture_view_desc(unsafe { runtime::as_out(pResViewDesc) }, texObject))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaCreateSurfaceObject(pSurfObject: *mut cudaSurfaceObject_t, pResDesc: *const cudaResourceDesc) -> cudaError_t {
    entry!(cudaCreateSurfaceObject(pSurfObject, pResDesc) => texture::create_surface(unsafe { runtime::as_out(pSurfObject) }, unsafe { runtime::as_in(pResDesc) }))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDestroySurfaceObject(surfObject: cudaSurfaceObject_t) -> cudaError_t {
    entry!(cudaDestroySurfaceObject(surfObject) => runtime::pass!(cuSurfObjectDestroy(surfObject)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSurfaceObjectResourceDesc(pResDesc: *mut cudaResourceDesc, surfObject: cudaSurfaceObject_t) -> cudaError_t {
    entry!(cudaGetSurfaceObjectResourceDesc(pResDesc, surfObject) => texture::surface_resource_desc(unsafe { runtime::as_out(pResDesc) }, surfObject))
}
