//! Texture and surface objects over the fake driver: descriptors go to the
//! driver converted and come back from the getters field by field.

mod common;
use common::*;
use cudart_shim::api::texture::*;
use cudart_shim::internals::texture::{array_format, channel_desc};
use cudart_shim::types::*;
use std::ptr::{null, null_mut};

fn pitch2d(buf: &mut [f32], desc: cudaChannelFormatDesc) -> cudaResourceDesc {
    cudaResourceDesc {
        resType: cudaResourceTypePitch2D,
        res: cudaResourceDescRes {
            pitch2D: cudaResourceDescPitch2D { devPtr: buf.as_mut_ptr().cast(), desc, width: 16, height: 8, pitchInBytes: 64 },
        },
        flags: 0,
    }
}

fn float1() -> cudaChannelFormatDesc {
    create_channel_desc_host(32, 0, 0, 0, cudaChannelFormatKindFloat)
}

fn create_channel_desc_host(x: i32, y: i32, z: i32, w: i32, f: cudaChannelFormatKind) -> cudaChannelFormatDesc {
    unsafe { cudaCreateChannelDesc(x, y, z, w, f) }
}

fn tex_desc() -> cudaTextureDesc {
    cudaTextureDesc {
        addressMode: [cudaAddressModeClamp, cudaAddressModeBorder, cudaAddressModeMirror],
        filterMode: cudaFilterModeLinear,
        readMode: cudaReadModeElementType,
        sRGB: 0,
        borderColor: [0.25, 0.5, 0.75, 1.0],
        normalizedCoords: 1,
        maxAnisotropy: 4,
        mipmapFilterMode: cudaFilterModeLinear,
        mipmapLevelBias: 0.5,
        minMipmapLevelClamp: 1.0,
        maxMipmapLevelClamp: 7.0,
        disableTrilinearOptimization: 1,
        seamlessCubemap: 0,
    }
}

#[test]
fn create_channel_desc_fills_the_fields() {
    use_fake_driver(&[]);
    let d = create_channel_desc_host(8, 16, 32, 64, cudaChannelFormatKindSigned);
    assert_eq!(d, cudaChannelFormatDesc { x: 8, y: 16, z: 32, w: 64, f: cudaChannelFormatKindSigned });
}

#[test]
fn pitch2d_texture_descriptors_round_trip() {
    use_fake_driver(&[]);
    let mut buf = vec![0f32; 128];
    let res = pitch2d(&mut buf, float1());
    let tex = tex_desc();
    let view = cudaResourceViewDesc {
        format: cudaResViewFormatFloat1,
        width: 16,
        height: 8,
        depth: 0,
        firstMipmapLevel: 0,
        lastMipmapLevel: 0,
        firstLayer: 0,
        lastLayer: 0,
        reserved: [0; 16],
    };
    unsafe {
        let mut t = 0;
        assert_eq!(cudaCreateTextureObject(&mut t, &res, &tex, &view), cudaSuccess);
        assert_ne!(t, 0);

        // What reached the driver: flags and modes of CUDA_TEXTURE_DESC.
        let get: unsafe extern "C" fn(u64, *mut [u8; 104]) -> i32 = fake::control("fake_cuda_texture_desc");
        let mut raw = [0u8; 104];
        assert_eq!(get(t, &mut raw), 0);
        let word = |i: usize| u32::from_ne_bytes(raw[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!([word(0), word(1), word(2)], [1, 3, 2], "address modes");
        assert_eq!(word(3), 1, "filter mode");
        assert_eq!(word(4), 0x01 | 0x02 | 0x20, "READ_AS_INTEGER | NORMALIZED_COORDINATES | DISABLE_TRILINEAR");
        assert_eq!(word(5), 4, "maxAnisotropy");
        assert_eq!(f32::from_bits(word(7)), 0.5, "mipmapLevelBias");
        assert_eq!(f32::from_bits(word(10)), 0.25, "borderColor[0]");

        let mut r = cudaResourceDesc::default();
        assert_eq!(cudaGetTextureObjectResourceDesc(&mut r, t), cudaSuccess);
        assert_eq!(r.resType, cudaResourceTypePitch2D);
        let p = r.res.pitch2D;
        assert_eq!(p.devPtr, buf.as_mut_ptr().cast());
        assert_eq!(p.desc, float1());
        assert_eq!((p.width, p.height, p.pitchInBytes), (16, 8, 64));
        assert_eq!(r.flags, 0);

        let mut back = cudaTextureDesc::default();
        assert_eq!(cudaGetTextureObjectTextureDesc(&mut back, t), cudaSuccess);
        assert_eq!(back, tex);

        let mut v = cudaResourceViewDesc::default();
        assert_eq!(cudaGetTextureObjectResourceViewDesc(&mut v, t), cudaSuccess);
        assert_eq!(v, view);

        assert_eq!(cudaDestroyTextureObject(t), cudaSuccess);
        assert_eq!(cudaGetTextureObjectResourceDesc(&mut r, t), cudaErrorInvalidValue, "destroyed");
        assert_eq!(cudaDestroyTextureObject(t), cudaErrorInvalidValue, "destroyed twice");
    }
}

#[test]
fn every_texture_flag_round_trips() {
    use_fake_driver(&[]);
    let mut buf = vec![0f32; 128];
    let res = pitch2d(&mut buf, create_channel_desc_host(8, 8, 8, 8, cudaChannelFormatKindUnsigned));
    for (srgb, norm, tri, seam, read) in [
        (1, 0, 0, 1, cudaReadModeNormalizedFloat),
        (0, 1, 1, 0, cudaReadModeElementType),
        (1, 1, 1, 1, cudaReadModeNormalizedFloat),
        (0, 0, 0, 0, cudaReadModeElementType),
    ] {
        let tex = cudaTextureDesc {
            sRGB: srgb,
            normalizedCoords: norm,
            disableTrilinearOptimization: tri,
            seamlessCubemap: seam,
            readMode: read,
            ..tex_desc()
        };
        unsafe {
            let mut t = 0;
            assert_eq!(cudaCreateTextureObject(&mut t, &res, &tex, null()), cudaSuccess);
            let mut back = cudaTextureDesc::default();
            assert_eq!(cudaGetTextureObjectTextureDesc(&mut back, t), cudaSuccess);
            assert_eq!(back, tex);
            assert_eq!(cudaDestroyTextureObject(t), cudaSuccess);
        }
    }
}

#[test]
fn linear_array_and_mipmap_resources_round_trip() {
    use_fake_driver(&[]);
    let mut buf = vec![0u8; 4096];
    let kinds = [
        create_channel_desc_host(8, 8, 8, 8, cudaChannelFormatKindUnsigned),
        create_channel_desc_host(16, 16, 0, 0, cudaChannelFormatKindSigned),
        create_channel_desc_host(16, 0, 0, 0, cudaChannelFormatKindFloat),
        create_channel_desc_host(8, 8, 8, 8, cudaChannelFormatKindUnsignedNormalized8X4),
        create_channel_desc_host(16, 16, 0, 0, cudaChannelFormatKindSignedNormalized16X2),
    ];
    let tex = tex_desc();
    unsafe {
        for desc in kinds {
            let res = cudaResourceDesc {
                resType: cudaResourceTypeLinear,
                res: cudaResourceDescRes {
                    linear: cudaResourceDescLinear { devPtr: buf.as_mut_ptr().cast(), desc, sizeInBytes: 4096 },
                },
                flags: 0,
            };
            let mut t = 0;
            assert_eq!(cudaCreateTextureObject(&mut t, &res, &tex, null()), cudaSuccess);
            let mut r = cudaResourceDesc::default();
            assert_eq!(cudaGetTextureObjectResourceDesc(&mut r, t), cudaSuccess);
            assert_eq!(r.resType, cudaResourceTypeLinear);
            assert_eq!(r.res.linear.devPtr, buf.as_mut_ptr().cast());
            assert_eq!(r.res.linear.desc, desc, "channel descriptor {desc:?}");
            assert_eq!(r.res.linear.sizeInBytes, 4096);
        }
        // Arrays and mipmapped arrays pass their handles through.
        for (ty, h) in [(cudaResourceTypeArray, 0x1230usize), (cudaResourceTypeMipmappedArray, 0x4560)] {
            let mut res = cudaResourceDesc { resType: ty, ..Default::default() };
            if ty == cudaResourceTypeArray {
                res.res.array.array = h as cudaArray_t;
            } else {
                res.res.mipmap.mipmap = h as cudaMipmappedArray_t;
            }
            let mut t = 0;
            assert_eq!(cudaCreateTextureObject(&mut t, &res, &tex, null()), cudaSuccess);
            let mut r = cudaResourceDesc::default();
            assert_eq!(cudaGetTextureObjectResourceDesc(&mut r, t), cudaSuccess);
            assert_eq!(r.resType, ty);
            let got = if ty == cudaResourceTypeArray { r.res.array.array as usize } else { r.res.mipmap.mipmap as usize };
            assert_eq!(got, h);
        }
    }
}

#[test]
fn texture_bad_input() {
    use_fake_driver(&[]);
    let mut buf = vec![0f32; 128];
    let res = pitch2d(&mut buf, float1());
    let tex = tex_desc();
    unsafe {
        let mut t = 0;
        assert_eq!(cudaCreateTextureObject(null_mut(), &res, &tex, null()), cudaErrorInvalidValue);
        assert_eq!(cudaCreateTextureObject(&mut t, null(), &tex, null()), cudaErrorInvalidValue);
        assert_eq!(cudaCreateTextureObject(&mut t, &res, null(), null()), cudaErrorInvalidValue);
        let bad_type = cudaResourceDesc { resType: cudaResourceType(7), ..res };
        assert_eq!(cudaCreateTextureObject(&mut t, &bad_type, &tex, null()), cudaErrorInvalidValue);
        let three = pitch2d(&mut buf, create_channel_desc_host(32, 32, 32, 0, cudaChannelFormatKindFloat));
        assert_eq!(cudaCreateTextureObject(&mut t, &three, &tex, null()), cudaErrorInvalidChannelDescriptor);
        let mixed = pitch2d(&mut buf, create_channel_desc_host(8, 16, 0, 0, cudaChannelFormatKindUnsigned));
        assert_eq!(cudaCreateTextureObject(&mut t, &mixed, &tex, null()), cudaErrorInvalidChannelDescriptor);
        let bad_norm = pitch2d(&mut buf, create_channel_desc_host(8, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X4));
        assert_eq!(cudaCreateTextureObject(&mut t, &bad_norm, &tex, null()), cudaErrorInvalidChannelDescriptor);
        assert_eq!(fake::calls("cuTexObjectCreate"), 0, "all rejected before the driver");
        // A NULL array is an invalid resource handle, found before the
        // other arguments (NVIDIA, H100, CUDA 13.0).
        let null_array = cudaResourceDesc { resType: cudaResourceTypeArray, ..Default::default() };
        assert_eq!(cudaCreateTextureObject(&mut t, &null_array, &tex, null()), cudaErrorInvalidResourceHandle);
        assert_eq!(cudaCreateTextureObject(null_mut(), &null_array, null(), null()), cudaErrorInvalidResourceHandle);

        assert_eq!(cudaCreateTextureObject(&mut t, &res, &tex, null()), cudaSuccess);
        assert_eq!(cudaGetTextureObjectResourceDesc(null_mut(), t), cudaErrorInvalidValue);
        assert_eq!(cudaGetTextureObjectTextureDesc(null_mut(), t), cudaErrorInvalidValue);
        assert_eq!(cudaGetTextureObjectResourceViewDesc(null_mut(), t), cudaErrorInvalidValue);
        let mut r = cudaResourceDesc::default();
        assert_eq!(cudaGetTextureObjectResourceDesc(&mut r, 0), cudaErrorInvalidValue);
        assert_eq!(cudaDestroyTextureObject(0), cudaErrorInvalidValue);
    }
}

#[test]
fn surface_objects_need_an_array() {
    use_fake_driver(&[]);
    unsafe {
        let mut res = cudaResourceDesc { resType: cudaResourceTypeArray, ..Default::default() };
        res.res.array.array = 0x7700 as cudaArray_t;
        let mut s = 0;
        assert_eq!(cudaCreateSurfaceObject(&mut s, &res), cudaSuccess);
        let mut r = cudaResourceDesc::default();
        assert_eq!(cudaGetSurfaceObjectResourceDesc(&mut r, s), cudaSuccess);
        assert_eq!(r.resType, cudaResourceTypeArray);
        assert_eq!(r.res.array.array as usize, 0x7700);
        // A surface is not a texture.
        let mut tdesc = cudaTextureDesc::default();
        assert_eq!(cudaGetTextureObjectTextureDesc(&mut tdesc, s), cudaErrorInvalidValue);
        assert_eq!(cudaDestroySurfaceObject(s), cudaSuccess);
        assert_eq!(cudaDestroySurfaceObject(s), cudaErrorInvalidValue, "destroyed twice");
        assert_eq!(cudaGetSurfaceObjectResourceDesc(&mut r, s), cudaErrorInvalidValue);

        let mut buf = vec![0f32; 16];
        let linear = pitch2d(&mut buf, float1());
        assert_eq!(cudaCreateSurfaceObject(&mut s, &linear), cudaErrorInvalidValue);
        // The format is checked before the type (NVIDIA, H100): a
        // three-channel format is no channel descriptor at all.
        let mut three = linear;
        three.res.pitch2D.desc = cudaChannelFormatDesc { x: 32, y: 32, z: 32, w: 0, f: cudaChannelFormatKindFloat };
        assert_eq!(cudaCreateSurfaceObject(&mut s, &three), cudaErrorInvalidChannelDescriptor);
        assert_eq!(cudaCreateSurfaceObject(&mut s, null()), cudaErrorInvalidValue);
        assert_eq!(cudaCreateSurfaceObject(null_mut(), &res), cudaErrorInvalidValue);
        assert_eq!(cudaGetSurfaceObjectResourceDesc(null_mut(), s), cudaErrorInvalidValue);
        assert_eq!(fake::calls("cuSurfObjectCreate"), 1);
    }
}

#[test]
fn get_channel_desc_checks_its_arguments() {
    use_fake_driver(&[]);
    unsafe {
        let mut d = cudaChannelFormatDesc::default();
        assert_eq!(cudaGetChannelDesc(null_mut(), 0x10 as cudaArray_const_t), cudaErrorInvalidValue);
        assert_eq!(cudaGetChannelDesc(&mut d, null()), cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn channel_formats_convert_both_ways() {
    use cudart_shim::driver::*;
    // Every plain format with 1, 2 and 4 channels, and every packed one.
    let plain = [
        CU_AD_FORMAT_UNSIGNED_INT8,
        CU_AD_FORMAT_UNSIGNED_INT16,
        CU_AD_FORMAT_UNSIGNED_INT32,
        CU_AD_FORMAT_SIGNED_INT8,
        CU_AD_FORMAT_SIGNED_INT16,
        CU_AD_FORMAT_SIGNED_INT32,
        CU_AD_FORMAT_HALF,
        CU_AD_FORMAT_FLOAT,
    ];
    for f in plain {
        for n in [1, 2, 4] {
            assert_eq!(array_format(&channel_desc(f, n)), Ok((f, n)), "{f:?} x{n}");
        }
    }
    let packed = [
        (CU_AD_FORMAT_NV12, 3),
        (CU_AD_FORMAT_UNORM_INT8X1, 1),
        (CU_AD_FORMAT_UNORM_INT16X4, 4),
        (CU_AD_FORMAT_SNORM_INT8X2, 2),
        (CU_AD_FORMAT_BC1_UNORM, 4),
        (CU_AD_FORMAT_BC4_SNORM, 1),
        (CU_AD_FORMAT_BC5_UNORM, 2),
        (CU_AD_FORMAT_BC6H_SF16, 3),
        (CU_AD_FORMAT_BC7_UNORM_SRGB, 4),
        (CU_AD_FORMAT_UNORM_INT_101010_2, 4),
    ];
    for (f, n) in packed {
        assert_eq!(array_format(&channel_desc(f, n)), Ok((f, n)), "{f:?}");
    }
    assert_eq!(
        channel_desc(CU_AD_FORMAT_UNSIGNED_INT8, 2),
        cudaChannelFormatDesc { x: 8, y: 8, z: 0, w: 0, f: cudaChannelFormatKindUnsigned }
    );
    assert_eq!(
        channel_desc(CU_AD_FORMAT_BC6H_UF16, 3),
        cudaChannelFormatDesc { x: 16, y: 16, z: 16, w: 0, f: cudaChannelFormatKindUnsignedBlockCompressed6H }
    );
    assert_eq!(channel_desc(CU_AD_FORMAT_P010, 1).f, cudaChannelFormatKindNone);
}
