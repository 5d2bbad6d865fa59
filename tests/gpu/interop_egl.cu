// nvcc: -ldl
// Graphics interop on a headless machine, through EGL's device platform
// (EGL_EXT_device_enumeration + EGL_EXT_platform_device): no X display.
//
// libEGL.so.1 and the GL library are opened at run time and the few EGL/GL
// entry points and constants needed are declared below, as are the CUDA 13
// GL/EGL/VDPAU runtime prototypes and types (cuda_gl_interop.h and
// cuda_egl_interop.h include system GL/EGL headers the GPU host may lack).
//
// Steps, each printing the runtime's result name or ok/mismatch:
//   cudaGLSetGLDevice (before and after the context exists), cudaGLGetDevices;
//   a GL buffer: register, set map flags, map (default and a created
//   stream), mapped pointer and size, GL data read by CUDA, a kernel's data
//   read back by GL, unregister;
//   the deprecated buffer-object calls on a second buffer (register, flags,
//   map/unmap and their Async twins, unregister), data checked both ways;
//   a GL texture: register, map, mapped array (channel descriptor, extent),
//   texels both ways, mapped mipmapped array level 0, unregister;
//   an EGLImage of a texture: cudaGraphicsEGLRegisterImage, its EGL frame
//   (every field printed), texels both ways;
//   an EGL fence: cudaEventCreateFromEGLSync, wait, synchronize, destroy;
//   EGLStreams with CUDA as producer and consumer: ARGB pitch, NV12 pitch
//   and YUV420 planar array frames presented, acquired, checked, released
//   and returned (every frame field printed), connect/disconnect;
//   a child process (this program, --bad-input) then prints the codes of
//   bad calls: no GL context, NULL handles, unregistered objects, VDPAU with
//   a VdpGetProcAddress that fails (VDPAU itself needs an X display).
// What the machine lacks prints `SKIP <step>: <reason>` and is not counted
// as verified. Exit status 1 only when a CUDA call that must work fails or
// data differs ("mismatch").
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>

// ---- declarations begin (EGL, GL, VDPAU types; CUDA 13 interop API) -------
extern "C" {
typedef int32_t EGLint;
typedef unsigned int EGLBoolean;
typedef unsigned int EGLenum;
typedef intptr_t EGLAttrib;
typedef uint64_t EGLTimeKHR;
typedef void *EGLDisplay;
typedef void *EGLConfig;
typedef void *EGLContext;
typedef void *EGLSurface;
typedef void *EGLDeviceEXT;
typedef void *EGLClientBuffer;
typedef void *EGLImageKHR;
typedef void *EGLSyncKHR;
typedef void *EGLStreamKHR;

typedef unsigned int GLuint;
typedef unsigned int GLenum;
typedef int GLint;
typedef int GLsizei;
typedef ptrdiff_t GLsizeiptr;
typedef ptrdiff_t GLintptr;

typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;
typedef int VdpStatus;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);

// cuda_gl_interop.h
enum cudaGLDeviceList { cudaGLDeviceListAll = 1, cudaGLDeviceListCurrentFrame = 2, cudaGLDeviceListNextFrame = 3 };
enum cudaGLMapFlags { cudaGLMapFlagsNone = 0, cudaGLMapFlagsReadOnly = 1, cudaGLMapFlagsWriteDiscard = 2 };
cudaError_t cudaGLGetDevices(unsigned int *pCudaDeviceCount, int *pCudaDevices, unsigned int cudaDeviceCount,
                             enum cudaGLDeviceList deviceList);
cudaError_t cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource, GLuint image, GLenum target, unsigned int flags);
cudaError_t cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource, GLuint buffer, unsigned int flags);
cudaError_t cudaGLSetGLDevice(int device);
cudaError_t cudaGLRegisterBufferObject(GLuint bufObj);
cudaError_t cudaGLMapBufferObject(void **devPtr, GLuint bufObj);
cudaError_t cudaGLUnmapBufferObject(GLuint bufObj);
cudaError_t cudaGLUnregisterBufferObject(GLuint bufObj);
cudaError_t cudaGLSetBufferObjectMapFlags(GLuint bufObj, unsigned int flags);
cudaError_t cudaGLMapBufferObjectAsync(void **devPtr, GLuint bufObj, cudaStream_t stream);
cudaError_t cudaGLUnmapBufferObjectAsync(GLuint bufObj, cudaStream_t stream);

// cuda_vdpau_interop.h
cudaError_t cudaVDPAUGetDevice(int *device, VdpDevice vdpDevice, VdpGetProcAddress *vdpGetProcAddress);
cudaError_t cudaVDPAUSetVDPAUDevice(int device, VdpDevice vdpDevice, VdpGetProcAddress *vdpGetProcAddress);
cudaError_t cudaGraphicsVDPAURegisterVideoSurface(struct cudaGraphicsResource **resource, VdpVideoSurface vdpSurface,
                                                  unsigned int flags);
cudaError_t cudaGraphicsVDPAURegisterOutputSurface(struct cudaGraphicsResource **resource, VdpOutputSurface vdpSurface,
                                                   unsigned int flags);

// cuda_egl_interop.h (the color formats this program uses; values as there)
typedef enum cudaEglFrameType_enum { cudaEglFrameTypeArray = 0, cudaEglFrameTypePitch = 1 } cudaEglFrameType;
typedef enum cudaEglResourceLocationFlags_enum {
    cudaEglResourceLocationSysmem = 0x00,
    cudaEglResourceLocationVidmem = 0x01
} cudaEglResourceLocationFlags;
typedef enum cudaEglColorFormat_enum {
    cudaEglColorFormatYUV420Planar = 0,
    cudaEglColorFormatYUV420SemiPlanar = 1,
    cudaEglColorFormatARGB = 6,
    cudaEglColorFormatUYVY2020 = 116
} cudaEglColorFormat;
typedef struct cudaEglPlaneDesc_st {
    unsigned int width;
    unsigned int height;
    unsigned int depth;
    unsigned int pitch;
    unsigned int numChannels;
    struct cudaChannelFormatDesc channelDesc;
    unsigned int reserved[4];
} cudaEglPlaneDesc;
typedef struct cudaEglFrame_st {
    union {
        cudaArray_t pArray[3];
        struct cudaPitchedPtr pPitch[3];
    } frame;
    cudaEglPlaneDesc planeDesc[3];
    unsigned int planeCount;
    cudaEglFrameType frameType;
    cudaEglColorFormat eglColorFormat;
} cudaEglFrame;
typedef struct CUeglStreamConnection_st *cudaEglStreamConnection;
cudaError_t cudaGraphicsEGLRegisterImage(struct cudaGraphicsResource **pCudaResource, EGLImageKHR image, unsigned int flags);
cudaError_t cudaEGLStreamConsumerConnect(cudaEglStreamConnection *conn, EGLStreamKHR eglStream);
cudaError_t cudaEGLStreamConsumerConnectWithFlags(cudaEglStreamConnection *conn, EGLStreamKHR eglStream, unsigned int flags);
cudaError_t cudaEGLStreamConsumerDisconnect(cudaEglStreamConnection *conn);
cudaError_t cudaEGLStreamConsumerAcquireFrame(cudaEglStreamConnection *conn, cudaGraphicsResource_t *pCudaResource,
                                              cudaStream_t *pStream, unsigned int timeout);
cudaError_t cudaEGLStreamConsumerReleaseFrame(cudaEglStreamConnection *conn, cudaGraphicsResource_t pCudaResource,
                                              cudaStream_t *pStream);
cudaError_t cudaEGLStreamProducerConnect(cudaEglStreamConnection *conn, EGLStreamKHR eglStream, EGLint width, EGLint height);
cudaError_t cudaEGLStreamProducerDisconnect(cudaEglStreamConnection *conn);
cudaError_t cudaEGLStreamProducerPresentFrame(cudaEglStreamConnection *conn, cudaEglFrame eglframe, cudaStream_t *pStream);
cudaError_t cudaEGLStreamProducerReturnFrame(cudaEglStreamConnection *conn, cudaEglFrame *eglframe, cudaStream_t *pStream);
cudaError_t cudaGraphicsResourceGetMappedEglFrame(cudaEglFrame *eglFrame, cudaGraphicsResource_t resource, unsigned int index,
                                                  unsigned int mipLevel);
cudaError_t cudaEventCreateFromEGLSync(cudaEvent_t *phEvent, EGLSyncKHR eglSync, unsigned int flags);
}
// ---- declarations end -----------------------------------------------------

static_assert(sizeof(cudaEglPlaneDesc) == 56, "cudaEglPlaneDesc layout");
static_assert(sizeof(cudaEglFrame) == 280 && offsetof(cudaEglFrame, planeDesc) == 96 && offsetof(cudaEglFrame, planeCount) == 264,
              "cudaEglFrame layout");

// EGL constants (egl.h / eglext.h values).
#define EGL_NONE 0x3038
#define EGL_SUCCESS 0x3000
#define EGL_EXTENSIONS 0x3055
#define EGL_VENDOR 0x3053
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#define EGL_CUDA_DEVICE_NV 0x323A
#define EGL_SURFACE_TYPE 0x3033
#define EGL_PBUFFER_BIT 0x0001
#define EGL_RENDERABLE_TYPE 0x3040
#define EGL_OPENGL_BIT 0x0008
#define EGL_RED_SIZE 0x3024
#define EGL_GREEN_SIZE 0x3023
#define EGL_BLUE_SIZE 0x3022
#define EGL_ALPHA_SIZE 0x3021
#define EGL_WIDTH 0x3057
#define EGL_HEIGHT 0x3056
#define EGL_OPENGL_API 0x30A2
#define EGL_GL_TEXTURE_2D_KHR 0x30B1
#define EGL_GL_TEXTURE_LEVEL_KHR 0x30BC
#define EGL_SYNC_FENCE_KHR 0x30F9
#define EGL_STREAM_STATE_KHR 0x3214
#define EGL_SUPPORT_REUSE_NV 0x3335

// GL constants (gl.h / glext.h values).
#define GL_NO_ERROR 0
#define GL_ARRAY_BUFFER 0x8892
#define GL_DYNAMIC_DRAW 0x88E8
#define GL_TEXTURE_2D 0x0DE1
#define GL_RGBA 0x1908
#define GL_RGBA8 0x8058
#define GL_UNSIGNED_BYTE 0x1401
#define GL_TEXTURE_MIN_FILTER 0x2801
#define GL_TEXTURE_MAG_FILTER 0x2800
#define GL_NEAREST 0x2600
#define GL_PACK_ALIGNMENT 0x0D05
#define GL_UNPACK_ALIGNMENT 0x0CF5
#define GL_VENDOR 0x1F00
#define GL_RENDERER 0x1F01
#define GL_VERSION 0x1F02

struct EglApi {
    void *(*GetProcAddress)(const char *);
    const char *(*QueryString)(EGLDisplay, EGLint);
    EGLint (*GetError)(void);
    EGLBoolean (*Initialize)(EGLDisplay, EGLint *, EGLint *);
    EGLBoolean (*Terminate)(EGLDisplay);
    EGLBoolean (*BindAPI)(EGLenum);
    EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *);
    EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
    EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext);
    EGLSurface (*CreatePbufferSurface)(EGLDisplay, EGLConfig, const EGLint *);
    EGLBoolean (*DestroySurface)(EGLDisplay, EGLSurface);
    EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
    EGLBoolean (*ReleaseThread)(void);
    // Extensions, through eglGetProcAddress.
    EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT *, EGLint *);
    EGLBoolean (*QueryDeviceAttribEXT)(EGLDeviceEXT, EGLint, EGLAttrib *);
    EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void *, const EGLint *);
    EGLImageKHR (*CreateImageKHR)(EGLDisplay, EGLContext, EGLenum, EGLClientBuffer, const EGLint *);
    EGLBoolean (*DestroyImageKHR)(EGLDisplay, EGLImageKHR);
    EGLSyncKHR (*CreateSyncKHR)(EGLDisplay, EGLenum, const EGLint *);
    EGLBoolean (*DestroySyncKHR)(EGLDisplay, EGLSyncKHR);
    EGLStreamKHR (*CreateStreamKHR)(EGLDisplay, const EGLint *);
    EGLBoolean (*DestroyStreamKHR)(EGLDisplay, EGLStreamKHR);
    EGLBoolean (*QueryStreamKHR)(EGLDisplay, EGLStreamKHR, EGLenum, EGLint *);
};

struct GlApi {
    GLenum (*GetError)(void);
    const unsigned char *(*GetString)(GLenum);
    void (*Finish)(void);
    void (*Flush)(void);
    void (*PixelStorei)(GLenum, GLint);
    void (*GenBuffers)(GLsizei, GLuint *);
    void (*DeleteBuffers)(GLsizei, const GLuint *);
    void (*BindBuffer)(GLenum, GLuint);
    void (*BufferData)(GLenum, GLsizeiptr, const void *, GLenum);
    void (*GetBufferSubData)(GLenum, GLintptr, GLsizeiptr, void *);
    void (*GenTextures)(GLsizei, GLuint *);
    void (*DeleteTextures)(GLsizei, const GLuint *);
    void (*BindTexture)(GLenum, GLuint);
    void (*TexParameteri)(GLenum, GLenum, GLint);
    void (*TexImage2D)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, const void *);
    void (*GetTexImage)(GLenum, GLint, GLenum, GLenum, void *);
};

// What setup found. Every field is runtime-independent.
struct Egl {
    EglApi f;
    GlApi gl;
    bool display = false;     // an initialized EGL display on a CUDA device
    bool context = false;     // a current desktop GL context with the GL calls below
    int cuda_device = -1;     // EGL_CUDA_DEVICE_NV of the chosen EGL device
    EGLDisplay dpy = nullptr;
    EGLContext ctx = nullptr;
    EGLSurface surface = nullptr;
    bool surfaceless = false, image = false, fence = false, stream = false, stream_reset = false;
    char display_why[200] = "", context_why[200] = "";
};

static Egl egl;
static int g_failed = 0, g_ok = 0, g_skipped = 0;

#define CHECK(x)                                                                                              \
    do {                                                                                                      \
        cudaError_t e_ = (x);                                                                                 \
        if (e_ != cudaSuccess) {                                                                              \
            printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));                    \
            exit(1);                                                                                          \
        }                                                                                                     \
    } while (0)

// An interop call: prints its result name; a failure is not fatal (the
// driver decides what a headless machine supports) and is cleared so that
// later CHECKs of cudaGetLastError see only their own errors.
static bool step(const char *what, cudaError_t e) {
    printf("%s: %s\n", what, cudaGetErrorName(e));
    if (e != cudaSuccess) cudaGetLastError();
    return e == cudaSuccess;
}

static void skip(const char *what, const char *why) {
    printf("SKIP %s: %s\n", what, why);
    g_skipped++;
}

static bool verdict(const char *what, bool ok) {
    printf("%s: %s\n", what, ok ? "ok" : "mismatch");
    if (ok) g_ok++;
    else g_failed++;
    return ok;
}

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, nullptr);
}

static bool has_ext(const char *list, const char *name) {
    if (!list) return false;
    size_t n = strlen(name);
    for (const char *p = strstr(list, name); p != nullptr; p = strstr(p + n, name))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

// ---- data patterns ----------------------------------------------------------

__host__ __device__ static uint32_t word(uint32_t i, uint32_t salt) { return (i * 2654435761u) ^ salt; }
__host__ __device__ static uint8_t byte_at(uint32_t x, uint32_t y, uint32_t salt) {
    return (uint8_t)(x * 7u + y * 13u + salt * 29u);
}

__global__ void fill_words(uint32_t *p, int n, uint32_t salt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = word(i, salt);
}

static void host_words(uint32_t *p, int n, uint32_t salt) {
    for (int i = 0; i < n; i++) p[i] = word(i, salt);
}
static bool words_are(const uint32_t *p, int n, uint32_t salt) {
    for (int i = 0; i < n; i++)
        if (p[i] != word(i, salt)) return false;
    return true;
}
// A plane of `wbytes` x `h` bytes, rows `pitch` apart.
static void host_bytes(uint8_t *p, size_t pitch, int wbytes, int h, uint32_t salt) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < wbytes; x++) p[y * pitch + x] = byte_at(x, y, salt);
}
static bool bytes_are(const uint8_t *p, size_t pitch, int wbytes, int h, uint32_t salt) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < wbytes; x++)
            if (p[y * pitch + x] != byte_at(x, y, salt)) return false;
    return true;
}

// ---- EGL and GL setup ---------------------------------------------------------

template <class F> static bool sym(F &f, void *lib, const char *name) {
    f = (F)dlsym(lib, name);
    return f != nullptr;
}
template <class F> static bool ext(F &f, const char *name) {
    f = (F)egl.f.GetProcAddress(name);
    return f != nullptr;
}

static bool load_gl(void) {
    // libOpenGL (GLVND, no GLX) or libGL export the core calls; anything
    // else comes from eglGetProcAddress.
    void *lib = dlopen("libOpenGL.so.0", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) lib = dlopen("libGL.so.1", RTLD_NOW | RTLD_GLOBAL);
    struct {
        void **slot;
        const char *name;
    } calls[] = {
        {(void **)&egl.gl.GetError, "glGetError"},
        {(void **)&egl.gl.GetString, "glGetString"},
        {(void **)&egl.gl.Finish, "glFinish"},
        {(void **)&egl.gl.Flush, "glFlush"},
        {(void **)&egl.gl.PixelStorei, "glPixelStorei"},
        {(void **)&egl.gl.GenBuffers, "glGenBuffers"},
        {(void **)&egl.gl.DeleteBuffers, "glDeleteBuffers"},
        {(void **)&egl.gl.BindBuffer, "glBindBuffer"},
        {(void **)&egl.gl.BufferData, "glBufferData"},
        {(void **)&egl.gl.GetBufferSubData, "glGetBufferSubData"},
        {(void **)&egl.gl.GenTextures, "glGenTextures"},
        {(void **)&egl.gl.DeleteTextures, "glDeleteTextures"},
        {(void **)&egl.gl.BindTexture, "glBindTexture"},
        {(void **)&egl.gl.TexParameteri, "glTexParameteri"},
        {(void **)&egl.gl.TexImage2D, "glTexImage2D"},
        {(void **)&egl.gl.GetTexImage, "glGetTexImage"},
    };
    for (auto &c : calls) {
        void *p = lib ? dlsym(lib, c.name) : nullptr;
        if (!p) p = egl.f.GetProcAddress(c.name);
        if (!p) {
            snprintf(egl.context_why, sizeof egl.context_why, "no GL entry point %s", c.name);
            return false;
        }
        *c.slot = p;
    }
    return true;
}

// Finds the EGL device that is a CUDA device, initializes its display and
// makes a desktop GL context current on this thread (surfaceless when the
// display allows it, else on a 16x16 pbuffer). Never touches CUDA.
static void setup_egl(void) {
    strcpy(egl.context_why, "no EGL display");
    void *lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        snprintf(egl.display_why, sizeof egl.display_why, "libEGL.so.1 cannot be loaded");
        fprintf(stderr, "dlopen libEGL.so.1: %s\n", dlerror());
        return;
    }
    EglApi &f = egl.f;
    if (!sym(f.GetProcAddress, lib, "eglGetProcAddress") || !sym(f.QueryString, lib, "eglQueryString") ||
        !sym(f.GetError, lib, "eglGetError") || !sym(f.Initialize, lib, "eglInitialize") ||
        !sym(f.Terminate, lib, "eglTerminate") || !sym(f.BindAPI, lib, "eglBindAPI") ||
        !sym(f.ChooseConfig, lib, "eglChooseConfig") || !sym(f.CreateContext, lib, "eglCreateContext") ||
        !sym(f.DestroyContext, lib, "eglDestroyContext") || !sym(f.CreatePbufferSurface, lib, "eglCreatePbufferSurface") ||
        !sym(f.DestroySurface, lib, "eglDestroySurface") || !sym(f.MakeCurrent, lib, "eglMakeCurrent") ||
        !sym(f.ReleaseThread, lib, "eglReleaseThread")) {
        snprintf(egl.display_why, sizeof egl.display_why, "libEGL.so.1 lacks an EGL 1.4 entry point");
        return;
    }
    const char *client = f.QueryString(nullptr, EGL_EXTENSIONS);
    if (!has_ext(client, "EGL_EXT_platform_device") ||
        !(has_ext(client, "EGL_EXT_device_enumeration") || has_ext(client, "EGL_EXT_device_base")) ||
        !ext(f.QueryDevicesEXT, "eglQueryDevicesEXT") || !ext(f.QueryDeviceAttribEXT, "eglQueryDeviceAttribEXT") ||
        !ext(f.GetPlatformDisplayEXT, "eglGetPlatformDisplayEXT")) {
        snprintf(egl.display_why, sizeof egl.display_why, "no EGL_EXT_device_enumeration/EGL_EXT_platform_device");
        return;
    }
    EGLDeviceEXT devs[16];
    EGLint n = 0;
    if (!f.QueryDevicesEXT(16, devs, &n) || n == 0) {
        snprintf(egl.display_why, sizeof egl.display_why, "eglQueryDevicesEXT finds no device");
        return;
    }
    EGLDeviceEXT dev = nullptr;
    for (int i = 0; i < n && !dev; i++) {
        EGLAttrib cuda = -1;
        if (f.QueryDeviceAttribEXT(devs[i], EGL_CUDA_DEVICE_NV, &cuda)) {
            dev = devs[i];
            egl.cuda_device = (int)cuda;
        }
    }
    // Local testing aid (never set by gpu/checks/conformance/conformance.py): any EGL device,
    // e.g. Mesa's software one, to run the EGL/GL plumbing over a fake driver.
    if (!dev && getenv("INTEROP_EGL_ANY_DEVICE")) dev = devs[0];
    if (!dev) {
        f.GetError();
        snprintf(egl.display_why, sizeof egl.display_why, "none of %d EGL devices is a CUDA device (EGL_NV_device_cuda)", n);
        return;
    }
    egl.dpy = f.GetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, dev, nullptr);
    EGLint major = 0, minor = 0;
    if (!egl.dpy || !f.Initialize(egl.dpy, &major, &minor)) {
        snprintf(egl.display_why, sizeof egl.display_why, "eglInitialize on the device display fails (0x%x)", f.GetError());
        return;
    }
    egl.display = true;
    const char *exts = f.QueryString(egl.dpy, EGL_EXTENSIONS);
    fprintf(stderr, "EGL %d.%d, vendor %s\nEGL display extensions: %s\n", major, minor,
            f.QueryString(egl.dpy, EGL_VENDOR), exts ? exts : "(none)");
    egl.surfaceless = has_ext(exts, "EGL_KHR_surfaceless_context");
    egl.image = has_ext(exts, "EGL_KHR_image_base") && has_ext(exts, "EGL_KHR_gl_texture_2D_image") &&
                ext(f.CreateImageKHR, "eglCreateImageKHR") && ext(f.DestroyImageKHR, "eglDestroyImageKHR");
    egl.fence = has_ext(exts, "EGL_KHR_fence_sync") && ext(f.CreateSyncKHR, "eglCreateSyncKHR") &&
                ext(f.DestroySyncKHR, "eglDestroySyncKHR");
    egl.stream = has_ext(exts, "EGL_KHR_stream") && ext(f.CreateStreamKHR, "eglCreateStreamKHR") &&
                 ext(f.DestroyStreamKHR, "eglDestroyStreamKHR") && ext(f.QueryStreamKHR, "eglQueryStreamKHR");
    egl.stream_reset = has_ext(exts, "EGL_NV_stream_reset");
    printf("egl: device display ok; surfaceless %s, image %s, fence %s, stream %s, stream reset %s\n",
           egl.surfaceless ? "yes" : "no", egl.image ? "yes" : "no", egl.fence ? "yes" : "no", egl.stream ? "yes" : "no",
           egl.stream_reset ? "yes" : "no");

    if (!f.BindAPI(EGL_OPENGL_API)) {
        snprintf(egl.context_why, sizeof egl.context_why, "eglBindAPI(EGL_OPENGL_API) fails (0x%x)", f.GetError());
        return;
    }
    const EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_RED_SIZE, 8,
                           EGL_GREEN_SIZE,   8,               EGL_BLUE_SIZE,       8,              EGL_ALPHA_SIZE, 8,
                           EGL_NONE};
    EGLConfig cfg = nullptr;
    EGLint ncfg = 0;
    if (!f.ChooseConfig(egl.dpy, want, &cfg, 1, &ncfg) || ncfg < 1) {
        snprintf(egl.context_why, sizeof egl.context_why, "no RGBA8 OpenGL pbuffer EGLConfig (0x%x)", f.GetError());
        return;
    }
    const EGLint none[] = {EGL_NONE};
    egl.ctx = f.CreateContext(egl.dpy, cfg, nullptr, none);
    if (!egl.ctx) {
        snprintf(egl.context_why, sizeof egl.context_why, "eglCreateContext fails (0x%x)", f.GetError());
        return;
    }
    if (!egl.surfaceless) {
        const EGLint size[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
        egl.surface = f.CreatePbufferSurface(egl.dpy, cfg, size);
        if (!egl.surface) {
            snprintf(egl.context_why, sizeof egl.context_why, "eglCreatePbufferSurface fails (0x%x)", f.GetError());
            return;
        }
    }
    if (!f.MakeCurrent(egl.dpy, egl.surface, egl.surface, egl.ctx)) {
        snprintf(egl.context_why, sizeof egl.context_why, "eglMakeCurrent fails (0x%x)", f.GetError());
        return;
    }
    if (!load_gl()) return;
    fprintf(stderr, "GL %s; %s; %s\n", egl.gl.GetString(GL_VERSION), egl.gl.GetString(GL_VENDOR),
            egl.gl.GetString(GL_RENDERER));
    egl.gl.PixelStorei(GL_PACK_ALIGNMENT, 1);
    egl.gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1);
    egl.context = true;
    printf("egl: OpenGL context current\n");
}

static void teardown_egl(void) {
    if (!egl.display) return;
    egl.f.MakeCurrent(egl.dpy, nullptr, nullptr, nullptr);
    if (egl.surface) egl.f.DestroySurface(egl.dpy, egl.surface);
    if (egl.ctx) egl.f.DestroyContext(egl.dpy, egl.ctx);
    egl.f.Terminate(egl.dpy);
    egl.f.ReleaseThread();
}

static bool gl_clean(const char *what) {
    GLenum e = egl.gl.GetError();
    if (e != GL_NO_ERROR) {
        char why[80];
        snprintf(why, sizeof why, "GL error 0x%x", e);
        skip(what, why);
        return false;
    }
    return true;
}

static GLuint gl_buffer(size_t bytes, const void *data) {
    GLuint b = 0;
    egl.gl.GenBuffers(1, &b);
    egl.gl.BindBuffer(GL_ARRAY_BUFFER, b);
    egl.gl.BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)bytes, data, GL_DYNAMIC_DRAW);
    egl.gl.BindBuffer(GL_ARRAY_BUFFER, 0);
    return b;
}

static void gl_read_buffer(GLuint b, size_t bytes, void *dst) {
    memset(dst, 0, bytes);
    egl.gl.BindBuffer(GL_ARRAY_BUFFER, b);
    egl.gl.GetBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, dst);
    egl.gl.BindBuffer(GL_ARRAY_BUFFER, 0);
}

static GLuint gl_texture(int w, int h, const void *rgba) {
    GLuint t = 0;
    egl.gl.GenTextures(1, &t);
    egl.gl.BindTexture(GL_TEXTURE_2D, t);
    egl.gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    egl.gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    egl.gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    egl.gl.BindTexture(GL_TEXTURE_2D, 0);
    return t;
}

static void gl_read_texture(GLuint t, int w, int h, void *dst) {
    memset(dst, 0, (size_t)w * h * 4);
    egl.gl.BindTexture(GL_TEXTURE_2D, t);
    egl.gl.GetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, dst);
    egl.gl.BindTexture(GL_TEXTURE_2D, 0);
}

// ---- printing EGL frames (values only, never pointers) ------------------------

static void print_frame(const char *what, const cudaEglFrame &f) {
    printf("%s: %s frame, %u planes, color format %d\n", what, f.frameType == cudaEglFrameTypePitch ? "pitch" : "array",
           f.planeCount, (int)f.eglColorFormat);
    for (int i = 0; i < 3; i++) {
        const cudaEglPlaneDesc &p = f.planeDesc[i];
        const cudaChannelFormatDesc &c = p.channelDesc;
        printf("  plane %d: %ux%ux%u pitch %u channels %u desc %d,%d,%d,%d kind %d", i, p.width, p.height, p.depth, p.pitch,
               p.numChannels, c.x, c.y, c.z, c.w, (int)c.f);
        if (f.frameType == cudaEglFrameTypePitch) {
            const cudaPitchedPtr &pp = f.frame.pPitch[i];
            printf("; pointer %s pitch %zu xsize %zu ysize %zu\n", pp.ptr ? "set" : "NULL", pp.pitch, pp.xsize, pp.ysize);
        } else {
            printf("; array %s\n", f.frame.pArray[i] ? "set" : "NULL");
        }
    }
}

// ---- GL -----------------------------------------------------------------------

static const int N = 4096;  // words in each GL buffer
static const int W = 64, H = 32;  // texels of each texture and EGL frame

static void gl_devices(int dev) {
    unsigned n = 0;
    int devs[8];
    for (int &d : devs) d = -1;
    if (step("cudaGLGetDevices(all)", cudaGLGetDevices(&n, devs, 8, cudaGLDeviceListAll))) {
        bool listed = false;
        for (unsigned i = 0; i < n && i < 8; i++) listed |= devs[i] == dev;
        printf("cudaGLGetDevices(all): count %u\n", n);
        verdict("cudaGLGetDevices(all) lists the EGL device's CUDA device", listed);
    }
    n = 0;
    for (int &d : devs) d = -1;
    if (step("cudaGLGetDevices(current frame)", cudaGLGetDevices(&n, devs, 8, cudaGLDeviceListCurrentFrame)))
        printf("cudaGLGetDevices(current frame): count %u, first is the EGL device's: %s\n", n,
               n > 0 && devs[0] == dev ? "yes" : "no");
}

static void gl_buffer_steps(void) {
    const size_t bytes = N * sizeof(uint32_t);
    static uint32_t host[N];
    host_words(host, N, 0x1111);
    GLuint buf = gl_buffer(bytes, host);
    if (!gl_clean("GL buffer steps")) return;

    cudaGraphicsResource_t res = nullptr;
    if (!step("cudaGraphicsGLRegisterBuffer", cudaGraphicsGLRegisterBuffer(&res, buf, cudaGraphicsRegisterFlagsNone))) {
        skip("GL buffer map/unmap", "registration failed");
        egl.gl.DeleteBuffers(1, &buf);
        return;
    }
    step("cudaGraphicsResourceSetMapFlags(none)", cudaGraphicsResourceSetMapFlags(res, cudaGraphicsMapFlagsNone));
    if (step("cudaGraphicsMapResources(buffer)", cudaGraphicsMapResources(1, &res, 0))) {
        void *p = nullptr;
        size_t size = 0;
        if (step("cudaGraphicsResourceGetMappedPointer", cudaGraphicsResourceGetMappedPointer(&p, &size, res))) {
            verdict("mapped buffer size", size == bytes);
            static uint32_t got[N];
            CHECK(cudaMemcpy(got, p, bytes, cudaMemcpyDeviceToHost));
            verdict("buffer: GL's data seen by CUDA", words_are(got, N, 0x1111));
            fill_words<<<N / 256, 256>>>((uint32_t *)p, N, 0x2222);
            CHECK(cudaGetLastError());
        }
        if (step("cudaGraphicsUnmapResources(buffer)", cudaGraphicsUnmapResources(1, &res, 0))) {
            gl_read_buffer(buf, bytes, host);
            verdict("buffer: CUDA's kernel output seen by GL", words_are(host, N, 0x2222));
        }
    }

    // Read-only, mapped and unmapped in a created stream.
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    step("cudaGraphicsResourceSetMapFlags(read-only)", cudaGraphicsResourceSetMapFlags(res, cudaGraphicsMapFlagsReadOnly));
    if (step("cudaGraphicsMapResources(buffer, stream)", cudaGraphicsMapResources(1, &res, s))) {
        void *p = nullptr;
        if (step("cudaGraphicsResourceGetMappedPointer(size NULL)", cudaGraphicsResourceGetMappedPointer(&p, nullptr, res))) {
            static uint32_t got[N];
            CHECK(cudaMemcpyAsync(got, p, bytes, cudaMemcpyDeviceToHost, s));
            CHECK(cudaStreamSynchronize(s));
            verdict("buffer: read-only mapping in a stream", words_are(got, N, 0x2222));
        }
        step("cudaGraphicsUnmapResources(buffer, stream)", cudaGraphicsUnmapResources(1, &res, s));
    }
    // Write-discard: CUDA overwrites everything.
    step("cudaGraphicsResourceSetMapFlags(write-discard)",
         cudaGraphicsResourceSetMapFlags(res, cudaGraphicsMapFlagsWriteDiscard));
    if (step("cudaGraphicsMapResources(buffer, write-discard)", cudaGraphicsMapResources(1, &res, s))) {
        void *p = nullptr;
        if (step("cudaGraphicsResourceGetMappedPointer(write-discard)", cudaGraphicsResourceGetMappedPointer(&p, nullptr, res))) {
            fill_words<<<N / 256, 256, 0, s>>>((uint32_t *)p, N, 0x3333);
            CHECK(cudaGetLastError());
        }
        if (step("cudaGraphicsUnmapResources(buffer, write-discard)", cudaGraphicsUnmapResources(1, &res, s))) {
            gl_read_buffer(buf, bytes, host);
            verdict("buffer: write-discard kernel output seen by GL", words_are(host, N, 0x3333));
        }
    }
    CHECK(cudaStreamDestroy(s));
    step("cudaGraphicsUnregisterResource(buffer)", cudaGraphicsUnregisterResource(res));
    egl.gl.DeleteBuffers(1, &buf);
}

// The buffer-object calls deprecated since CUDA 3.0, still exported.
static void gl_buffer_object_steps(void) {
    const size_t bytes = N * sizeof(uint32_t);
    static uint32_t host[N];
    host_words(host, N, 0x4444);
    GLuint buf = gl_buffer(bytes, host);
    if (!gl_clean("GL buffer-object steps")) return;
    if (!step("cudaGLRegisterBufferObject", cudaGLRegisterBufferObject(buf))) {
        skip("GL buffer-object map/unmap", "registration failed");
        egl.gl.DeleteBuffers(1, &buf);
        return;
    }
    step("cudaGLSetBufferObjectMapFlags", cudaGLSetBufferObjectMapFlags(buf, cudaGLMapFlagsNone));
    void *p = nullptr;
    if (step("cudaGLMapBufferObject", cudaGLMapBufferObject(&p, buf))) {
        static uint32_t got[N];
        CHECK(cudaMemcpy(got, p, bytes, cudaMemcpyDeviceToHost));
        verdict("buffer object: GL's data seen by CUDA", words_are(got, N, 0x4444));
        fill_words<<<N / 256, 256>>>((uint32_t *)p, N, 0x5555);
        CHECK(cudaGetLastError());
        // The legacy calls document no ordering with GL: finish first.
        CHECK(cudaDeviceSynchronize());
        if (step("cudaGLUnmapBufferObject", cudaGLUnmapBufferObject(buf))) {
            gl_read_buffer(buf, bytes, host);
            verdict("buffer object: CUDA's kernel output seen by GL", words_are(host, N, 0x5555));
        }
    }
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    p = nullptr;
    if (step("cudaGLMapBufferObjectAsync", cudaGLMapBufferObjectAsync(&p, buf, s))) {
        fill_words<<<N / 256, 256, 0, s>>>((uint32_t *)p, N, 0x6666);
        CHECK(cudaGetLastError());
        if (step("cudaGLUnmapBufferObjectAsync", cudaGLUnmapBufferObjectAsync(buf, s))) {
            CHECK(cudaStreamSynchronize(s));
            gl_read_buffer(buf, bytes, host);
            verdict("buffer object: stream kernel output seen by GL", words_are(host, N, 0x6666));
        }
    }
    CHECK(cudaStreamDestroy(s));
    step("cudaGLUnregisterBufferObject", cudaGLUnregisterBufferObject(buf));
    egl.gl.DeleteBuffers(1, &buf);
}

static void gl_image_steps(void) {
    static uint8_t rgba[W * H * 4], got[W * H * 4];
    host_bytes(rgba, W * 4, W * 4, H, 1);
    GLuint tex = gl_texture(W, H, rgba);
    if (!gl_clean("GL texture steps")) return;
    cudaGraphicsResource_t res = nullptr;
    if (!step("cudaGraphicsGLRegisterImage", cudaGraphicsGLRegisterImage(&res, tex, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsNone))) {
        skip("GL texture map/unmap", "registration failed");
        egl.gl.DeleteTextures(1, &tex);
        return;
    }
    if (step("cudaGraphicsMapResources(texture)", cudaGraphicsMapResources(1, &res, 0))) {
        cudaArray_t a = nullptr;
        if (step("cudaGraphicsSubResourceGetMappedArray", cudaGraphicsSubResourceGetMappedArray(&a, res, 0, 0))) {
            cudaChannelFormatDesc d;
            cudaExtent e;
            unsigned flags = 0;
            CHECK(cudaArrayGetInfo(&d, &e, &flags, a));
            printf("texture array: desc %d,%d,%d,%d kind %d, extent %zux%zux%zu, flags 0x%x\n", d.x, d.y, d.z, d.w, (int)d.f,
                   e.width, e.height, e.depth, flags);
            CHECK(cudaMemcpy2DFromArray(got, W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
            verdict("texture: GL's texels seen by CUDA", bytes_are(got, W * 4, W * 4, H, 1));
            host_bytes(rgba, W * 4, W * 4, H, 2);
            CHECK(cudaMemcpy2DToArray(a, 0, 0, rgba, W * 4, W * 4, H, cudaMemcpyHostToDevice));
        }
        cudaMipmappedArray_t mm = nullptr;
        if (step("cudaGraphicsResourceGetMappedMipmappedArray", cudaGraphicsResourceGetMappedMipmappedArray(&mm, res))) {
            cudaArray_t level = nullptr;
            CHECK(cudaGetMipmappedArrayLevel(&level, mm, 0));
            CHECK(cudaMemcpy2DFromArray(got, W * 4, level, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
            verdict("texture: mipmapped array level 0 holds CUDA's texels", bytes_are(got, W * 4, W * 4, H, 2));
        }
        void *p = nullptr;
        size_t size = 0;
        step("cudaGraphicsResourceGetMappedPointer(texture, expected error)", cudaGraphicsResourceGetMappedPointer(&p, &size, res));
        if (step("cudaGraphicsUnmapResources(texture)", cudaGraphicsUnmapResources(1, &res, 0))) {
            gl_read_texture(tex, W, H, got);
            verdict("texture: CUDA's texels seen by GL", bytes_are(got, W * 4, W * 4, H, 2));
        }
    }
    step("cudaGraphicsUnregisterResource(texture)", cudaGraphicsUnregisterResource(res));
    egl.gl.DeleteTextures(1, &tex);
}

// ---- EGL image and sync -----------------------------------------------------------

static void egl_image_steps(void) {
    if (!egl.image) {
        skip("EGL image steps", "no EGL_KHR_image_base + EGL_KHR_gl_texture_2D_image");
        return;
    }
    static uint8_t rgba[W * H * 4], got[W * H * 4];
    host_bytes(rgba, W * 4, W * 4, H, 3);
    GLuint tex = gl_texture(W, H, rgba);
    if (!gl_clean("EGL image steps")) return;
    egl.gl.Finish();
    const EGLint attrs[] = {EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE};
    EGLImageKHR img = egl.f.CreateImageKHR(egl.dpy, egl.ctx, EGL_GL_TEXTURE_2D_KHR, (EGLClientBuffer)(uintptr_t)tex, attrs);
    if (!img) {
        char why[80];
        snprintf(why, sizeof why, "eglCreateImageKHR(EGL_GL_TEXTURE_2D_KHR) fails (0x%x)", egl.f.GetError());
        skip("EGL image steps", why);
        egl.gl.DeleteTextures(1, &tex);
        return;
    }
    cudaGraphicsResource_t res = nullptr;
    if (step("cudaGraphicsEGLRegisterImage", cudaGraphicsEGLRegisterImage(&res, img, cudaGraphicsRegisterFlagsNone))) {
        cudaEglFrame f;
        memset(&f, 0xab, sizeof f);
        if (step("cudaGraphicsResourceGetMappedEglFrame(image)", cudaGraphicsResourceGetMappedEglFrame(&f, res, 0, 0))) {
            print_frame("EGL image frame", f);
            bool array = f.frameType == cudaEglFrameTypeArray;
            if (f.planeCount != 1 || f.planeDesc[0].width != W || f.planeDesc[0].height != H) {
                skip("EGL image data", "the frame is not one 64x32 plane");
            } else {
                size_t pitch = array ? W * 4 : f.planeDesc[0].pitch;
                if (array)
                    CHECK(cudaMemcpy2DFromArray(got, W * 4, f.frame.pArray[0], 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
                else
                    CHECK(cudaMemcpy2D(got, W * 4, f.frame.pPitch[0].ptr, pitch, W * 4, H, cudaMemcpyDeviceToHost));
                verdict("EGL image: GL's texels seen by CUDA", bytes_are(got, W * 4, W * 4, H, 3));
                host_bytes(rgba, W * 4, W * 4, H, 4);
                if (array)
                    CHECK(cudaMemcpy2DToArray(f.frame.pArray[0], 0, 0, rgba, W * 4, W * 4, H, cudaMemcpyHostToDevice));
                else
                    CHECK(cudaMemcpy2D(f.frame.pPitch[0].ptr, pitch, rgba, W * 4, W * 4, H, cudaMemcpyHostToDevice));
                // The application synchronizes: CUDA's work is done before GL reads.
                CHECK(cudaDeviceSynchronize());
                gl_read_texture(tex, W, H, got);
                verdict("EGL image: CUDA's texels seen by GL", bytes_are(got, W * 4, W * 4, H, 4));
            }
        }
        step("cudaGraphicsUnregisterResource(EGL image)", cudaGraphicsUnregisterResource(res));
    }
    egl.f.DestroyImageKHR(egl.dpy, img);
    egl.gl.DeleteTextures(1, &tex);
}

static void egl_sync_steps(void) {
    if (!egl.fence) {
        skip("EGL sync steps", "no EGL_KHR_fence_sync");
        return;
    }
    EGLSyncKHR sync = egl.f.CreateSyncKHR(egl.dpy, EGL_SYNC_FENCE_KHR, nullptr);
    if (!sync) {
        char why[80];
        snprintf(why, sizeof why, "eglCreateSyncKHR(EGL_SYNC_FENCE_KHR) fails (0x%x)", egl.f.GetError());
        skip("EGL sync steps", why);
        return;
    }
    egl.gl.Flush();
    cudaEvent_t ev = nullptr;
    if (step("cudaEventCreateFromEGLSync", cudaEventCreateFromEGLSync(&ev, sync, cudaEventDefault))) {
        step("cudaStreamWaitEvent(EGL sync event)", cudaStreamWaitEvent(0, ev, 0));
        step("cudaEventSynchronize(EGL sync event)", cudaEventSynchronize(ev));
        CHECK(cudaDeviceSynchronize());
        step("cudaEventDestroy(EGL sync event)", cudaEventDestroy(ev));
    }
    egl.f.DestroySyncKHR(egl.dpy, sync);
}

// ---- EGLStream: CUDA producer and CUDA consumer -----------------------------------

struct StreamCase {
    const char *name;
    cudaEglColorFormat format;
    cudaEglFrameType type;
    unsigned planes;
    bool with_flags;  // the consumer connects with cudaEGLStreamConsumerConnectWithFlags
};

// Plane geometry of the frames this program presents: width in bytes and
// rows of plane i (each plane's pitch is its width in bytes).
static void plane_shape(const StreamCase &c, int i, int *wbytes, int *rows) {
    if (c.format == cudaEglColorFormatARGB) {
        *wbytes = W * 4, *rows = H;
    } else if (c.format == cudaEglColorFormatYUV420SemiPlanar) {
        *wbytes = W, *rows = i == 0 ? H : H / 2;  // Y, then interleaved UV
    } else {
        *wbytes = i == 0 ? W : W / 2, *rows = i == 0 ? H : H / 2;  // Y, U, V
    }
}

static bool same_planes(const cudaEglFrame &a, const cudaEglFrame &b, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        if (a.frameType == cudaEglFrameTypePitch ? a.frame.pPitch[i].ptr != b.frame.pPitch[i].ptr
                                                 : a.frame.pArray[i] != b.frame.pArray[i])
            return false;
    }
    return true;
}

static void stream_case(const StreamCase &c, bool first) {
    char what[160];
    const EGLint reuse[] = {EGL_SUPPORT_REUSE_NV, 0, EGL_NONE};
    const EGLint none[] = {EGL_NONE};
    // Without reuse the consumer gives a released frame back to the producer
    // at once (EGL_NV_stream_reset), so ReturnFrame has it to return.
    EGLStreamKHR es = egl.f.CreateStreamKHR(egl.dpy, egl.stream_reset ? reuse : none);
    if (!es) {
        snprintf(what, sizeof what, "EGLStream %s", c.name);
        char why[80];
        snprintf(why, sizeof why, "eglCreateStreamKHR fails (0x%x)", egl.f.GetError());
        skip(what, why);
        return;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaEglStreamConnection consumer = nullptr, producer = nullptr;
    bool consumer_ok, producer_ok = false;
    snprintf(what, sizeof what, "%s(%s)", c.with_flags ? "cudaEGLStreamConsumerConnectWithFlags" : "cudaEGLStreamConsumerConnect",
             c.name);
    consumer_ok = step(what, c.with_flags ? cudaEGLStreamConsumerConnectWithFlags(&consumer, es, cudaEglResourceLocationVidmem)
                                          : cudaEGLStreamConsumerConnect(&consumer, es));
    if (consumer_ok) {
        snprintf(what, sizeof what, "cudaEGLStreamProducerConnect(%s)", c.name);
        producer_ok = step(what, cudaEGLStreamProducerConnect(&producer, es, W, H));
    }
    if (!producer_ok) {
        snprintf(what, sizeof what, "EGLStream %s frames", c.name);
        skip(what, "a connection failed");
    }

    // The producer's frame, planes filled with known bytes.
    cudaEglFrame frame;
    memset(&frame, 0, sizeof frame);
    void *ptrs[3] = {};
    cudaArray_t arrays[3] = {};
    frame.planeCount = c.planes;
    frame.frameType = c.type;
    frame.eglColorFormat = c.format;
    cudaEglPlaneDesc &p0 = frame.planeDesc[0];
    p0.width = W, p0.height = H, p0.depth = 1;
    p0.numChannels = c.format == cudaEglColorFormatARGB ? 4 : 1;
    p0.channelDesc = c.format == cudaEglColorFormatARGB ? cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned)
                                                        : cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    p0.pitch = c.type == cudaEglFrameTypePitch ? (c.format == cudaEglColorFormatARGB ? W * 4 : W) : 0;
    static uint8_t host[W * H * 4];
    for (unsigned i = 0; producer_ok && i < c.planes; i++) {
        int wbytes, rows;
        plane_shape(c, i, &wbytes, &rows);
        host_bytes(host, wbytes, wbytes, rows, 16 * (unsigned)c.format + 5 + i);
        if (c.type == cudaEglFrameTypePitch) {
            CHECK(cudaMalloc(&ptrs[i], (size_t)wbytes * rows));
            CHECK(cudaMemcpy(ptrs[i], host, (size_t)wbytes * rows, cudaMemcpyHostToDevice));
            frame.frame.pPitch[i] = make_cudaPitchedPtr(ptrs[i], wbytes, wbytes, rows);
        } else {
            cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
            CHECK(cudaMallocArray(&arrays[i], &d, wbytes, rows, cudaArraySurfaceLoadStore));
            CHECK(cudaMemcpy2DToArray(arrays[i], 0, 0, host, wbytes, wbytes, rows, cudaMemcpyHostToDevice));
            frame.frame.pArray[i] = arrays[i];
        }
    }

    if (first && producer_ok) {
        // Nothing presented yet: the driver has no frame to give back (it
        // answers cudaErrorLaunchTimeout for "not yet", an everyday result
        // here, not a dead context). Is the last error cleared after it?
        cudaEglFrame none;
        step("cudaEGLStreamProducerReturnFrame(nothing presented)", cudaEGLStreamProducerReturnFrame(&producer, &none, &s));
        printf("cudaGetLastError after that: %s\n", cudaGetErrorName(cudaGetLastError()));
        CHECK(cudaStreamSynchronize(s));
        printf("cudaStreamSynchronize then cudaGetLastError: %s\n", cudaGetErrorName(cudaGetLastError()));
    }
    bool presented = false;
    if (producer_ok) {
        CHECK(cudaDeviceSynchronize());
        snprintf(what, sizeof what, "cudaEGLStreamProducerPresentFrame(%s)", c.name);
        presented = step(what, cudaEGLStreamProducerPresentFrame(&producer, frame, &s));
    }
    if (presented) {
        cudaGraphicsResource_t res = nullptr;
        snprintf(what, sizeof what, "cudaEGLStreamConsumerAcquireFrame(%s)", c.name);
        if (step(what, cudaEGLStreamConsumerAcquireFrame(&consumer, &res, &s, 2000000))) {
            cudaEglFrame got;
            memset(&got, 0xab, sizeof got);
            snprintf(what, sizeof what, "cudaGraphicsResourceGetMappedEglFrame(%s)", c.name);
            if (step(what, cudaGraphicsResourceGetMappedEglFrame(&got, res, 0, 0))) {
                CHECK(cudaStreamSynchronize(s));
                snprintf(what, sizeof what, "%s consumer frame", c.name);
                print_frame(what, got);
                if (got.planeCount != c.planes || got.frameType != c.type) {
                    snprintf(what, sizeof what, "%s consumer data", c.name);
                    skip(what, "the consumer's frame has another layout");
                } else {
                    // Each plane is read with the producer's geometry; rows are
                    // the first plane's pitch apart (the driver's value: for
                    // ARGB and NV12 every plane has it), so that the check
                    // does not depend on how a runtime derives the chroma
                    // planes' descriptors (those are compared as printed).
                    bool ok = true;
                    for (unsigned i = 0; i < c.planes; i++) {
                        int wbytes, rows;
                        plane_shape(c, i, &wbytes, &rows);
                        size_t pitch = got.planeDesc[0].pitch ? got.planeDesc[0].pitch : (size_t)wbytes;
                        static uint8_t back[W * H * 4];
                        if (c.type == cudaEglFrameTypePitch)
                            CHECK(cudaMemcpy2D(back, wbytes, got.frame.pPitch[i].ptr, pitch, wbytes, rows, cudaMemcpyDeviceToHost));
                        else
                            CHECK(cudaMemcpy2DFromArray(back, wbytes, got.frame.pArray[i], 0, 0, wbytes, rows, cudaMemcpyDeviceToHost));
                        ok &= bytes_are(back, wbytes, wbytes, rows, 16 * (unsigned)c.format + 5 + i);
                    }
                    snprintf(what, sizeof what, "%s: consumer sees the producer's planes", c.name);
                    verdict(what, ok);
                }
            }
            snprintf(what, sizeof what, "cudaEGLStreamConsumerReleaseFrame(%s)", c.name);
            step(what, cudaEGLStreamConsumerReleaseFrame(&consumer, res, &s));
        }
        // The frame comes back once the consumer has released it; the driver
        // answers cudaErrorLaunchTimeout until then.
        cudaEglFrame back;
        cudaError_t e = cudaErrorLaunchTimeout;
        for (int tries = 0; tries < 200 && e == cudaErrorLaunchTimeout; tries++) {
            memset(&back, 0xab, sizeof back);
            e = cudaEGLStreamProducerReturnFrame(&producer, &back, &s);
            if (e == cudaErrorLaunchTimeout) {
                cudaGetLastError();
                sleep_ms(10);
            }
        }
        snprintf(what, sizeof what, "cudaEGLStreamProducerReturnFrame(%s)", c.name);
        bool returned = step(what, e);
        if (returned) {
            snprintf(what, sizeof what, "%s returned frame", c.name);
            print_frame(what, back);
            snprintf(what, sizeof what, "%s: the returned frame is the presented one", c.name);
            verdict(what, back.planeCount == c.planes && back.frameType == c.type && same_planes(back, frame, c.planes));
        }
        if (first && returned) {
            // Nothing is pending now, so even a runtime that passed the NULL
            // frame on could not have it written. NVIDIA's code is compared,
            // not assumed.
            step("cudaEGLStreamProducerReturnFrame(NULL frame)", cudaEGLStreamProducerReturnFrame(&producer, nullptr, &s));
        }
    }
    if (producer_ok) {
        snprintf(what, sizeof what, "cudaEGLStreamProducerDisconnect(%s)", c.name);
        step(what, cudaEGLStreamProducerDisconnect(&producer));
    }
    if (consumer_ok) {
        snprintf(what, sizeof what, "cudaEGLStreamConsumerDisconnect(%s)", c.name);
        step(what, cudaEGLStreamConsumerDisconnect(&consumer));
    }
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 3; i++) {
        if (ptrs[i]) CHECK(cudaFree(ptrs[i]));
        if (arrays[i]) CHECK(cudaFreeArray(arrays[i]));
    }
    CHECK(cudaStreamDestroy(s));
    egl.f.DestroyStreamKHR(egl.dpy, es);
}

static void egl_stream_steps(void) {
    if (!egl.stream) {
        skip("EGLStream steps", "no EGL_KHR_stream");
        return;
    }
    const StreamCase cases[] = {
        {"ARGB pitch", cudaEglColorFormatARGB, cudaEglFrameTypePitch, 1, false},
        {"NV12 pitch", cudaEglColorFormatYUV420SemiPlanar, cudaEglFrameTypePitch, 2, false},
        {"YUV420 planar array", cudaEglColorFormatYUV420Planar, cudaEglFrameTypeArray, 3, true},
    };
    for (const StreamCase &c : cases) stream_case(c, &c == cases);
}

// ---- bad input, in a child process (a crash there is reported, not fatal) ----------

// A VdpGetProcAddress that has no functions: VDPAU calls get this far only.
static VdpStatus no_vdpau(VdpDevice, VdpFuncId, void **fp) {
    if (fp) *fp = nullptr;
    return 1;  // VDP_STATUS_NO_IMPLEMENTATION
}

static int bad_input_main(int dev) {
    CHECK(cudaSetDevice(dev));
    CHECK(cudaFree(0));
    printf("-- bad input --\n");
    cudaGraphicsResource_t r = nullptr;
    void *p = nullptr;
    unsigned n = 0;
    int devs[4] = {-1, -1, -1, -1};
    // No GL context is current in this process yet.
    step("no GL context: cudaGLGetDevices", cudaGLGetDevices(&n, devs, 4, cudaGLDeviceListAll));
    step("no GL context: cudaGraphicsGLRegisterBuffer", cudaGraphicsGLRegisterBuffer(&r, 1, 0));
    step("no GL context: cudaGraphicsGLRegisterImage", cudaGraphicsGLRegisterImage(&r, 1, GL_TEXTURE_2D, 0));
    step("no GL context: cudaGLRegisterBufferObject", cudaGLRegisterBufferObject(1));
    step("unregistered: cudaGLSetBufferObjectMapFlags", cudaGLSetBufferObjectMapFlags(1, 0));
    step("unregistered: cudaGLMapBufferObject", cudaGLMapBufferObject(&p, 1));
    step("unregistered: cudaGLMapBufferObjectAsync", cudaGLMapBufferObjectAsync(&p, 1, 0));
    step("unregistered: cudaGLUnmapBufferObject", cudaGLUnmapBufferObject(1));
    step("unregistered: cudaGLUnmapBufferObjectAsync", cudaGLUnmapBufferObjectAsync(1, 0));
    step("unregistered: cudaGLUnregisterBufferObject", cudaGLUnregisterBufferObject(1));

    int d = -1;
    step("VDPAU without functions: cudaVDPAUGetDevice", cudaVDPAUGetDevice(&d, 1, no_vdpau));
    step("VDPAU without functions: cudaVDPAUSetVDPAUDevice", cudaVDPAUSetVDPAUDevice(dev, 1, no_vdpau));
    step("no VDPAU device: cudaGraphicsVDPAURegisterVideoSurface", cudaGraphicsVDPAURegisterVideoSurface(&r, 1, 0));
    step("no VDPAU device: cudaGraphicsVDPAURegisterOutputSurface", cudaGraphicsVDPAURegisterOutputSurface(&r, 1, 0));

    cudaEvent_t ev = nullptr;
    cudaEglStreamConnection c0 = nullptr;
    cudaEglFrame zero;
    memset(&zero, 0, sizeof zero);
    step("NULL image: cudaGraphicsEGLRegisterImage", cudaGraphicsEGLRegisterImage(&r, nullptr, 0));
    step("NULL sync: cudaEventCreateFromEGLSync", cudaEventCreateFromEGLSync(&ev, nullptr, 0));
    step("NULL stream: cudaEGLStreamConsumerConnect", cudaEGLStreamConsumerConnect(&c0, nullptr));
    step("NULL stream: cudaEGLStreamConsumerConnectWithFlags", cudaEGLStreamConsumerConnectWithFlags(&c0, nullptr, 1));
    step("NULL stream: cudaEGLStreamProducerConnect", cudaEGLStreamProducerConnect(&c0, nullptr, W, H));
    step("unconnected: cudaEGLStreamConsumerAcquireFrame", cudaEGLStreamConsumerAcquireFrame(&c0, &r, nullptr, 0));
    step("unconnected: cudaEGLStreamConsumerReleaseFrame", cudaEGLStreamConsumerReleaseFrame(&c0, nullptr, nullptr));
    step("unconnected, zero frame: cudaEGLStreamProducerPresentFrame", cudaEGLStreamProducerPresentFrame(&c0, zero, nullptr));
    step("unconnected, NULL frame: cudaEGLStreamProducerReturnFrame", cudaEGLStreamProducerReturnFrame(&c0, nullptr, nullptr));
    step("unconnected: cudaEGLStreamConsumerDisconnect", cudaEGLStreamConsumerDisconnect(&c0));
    step("unconnected: cudaEGLStreamProducerDisconnect", cudaEGLStreamProducerDisconnect(&c0));
    step("NULL frame and resource: cudaGraphicsResourceGetMappedEglFrame",
         cudaGraphicsResourceGetMappedEglFrame(nullptr, nullptr, 0, 0));

    cudaArray_t a = nullptr;
    cudaMipmappedArray_t mm = nullptr;
    cudaGraphicsResource_t none = nullptr;
    step("NULL: cudaGraphicsUnregisterResource", cudaGraphicsUnregisterResource(nullptr));
    step("NULL: cudaGraphicsResourceSetMapFlags", cudaGraphicsResourceSetMapFlags(nullptr, 0));
    step("NULL entry: cudaGraphicsMapResources", cudaGraphicsMapResources(1, &none, 0));
    step("NULL list: cudaGraphicsUnmapResources", cudaGraphicsUnmapResources(1, nullptr, 0));
    step("NULL: cudaGraphicsResourceGetMappedPointer", cudaGraphicsResourceGetMappedPointer(&p, nullptr, nullptr));
    step("NULL: cudaGraphicsSubResourceGetMappedArray", cudaGraphicsSubResourceGetMappedArray(&a, nullptr, 0, 0));
    step("NULL: cudaGraphicsResourceGetMappedMipmappedArray", cudaGraphicsResourceGetMappedMipmappedArray(&mm, nullptr));

    setup_egl();
    if (!egl.context) {
        skip("bad input with a GL context", egl.display ? egl.context_why : egl.display_why);
        return 0;
    }
    step("count only: cudaGLGetDevices", cudaGLGetDevices(&n, nullptr, 0, cudaGLDeviceListAll));
    step("invalid list: cudaGLGetDevices", cudaGLGetDevices(&n, devs, 4, (cudaGLDeviceList)9));
    static uint32_t words[N];
    static uint8_t rgba[W * H * 4];
    GLuint buf = gl_buffer(sizeof words, words), tex = gl_texture(W, H, rgba);
    if (!gl_clean("bad input with GL objects")) return 0;
    step("NULL resource: cudaGraphicsGLRegisterBuffer", cudaGraphicsGLRegisterBuffer(nullptr, buf, 0));
    step("no such buffer: cudaGraphicsGLRegisterBuffer", cudaGraphicsGLRegisterBuffer(&r, 4242, 0));
    step("invalid flags: cudaGraphicsGLRegisterBuffer", cudaGraphicsGLRegisterBuffer(&r, buf, 0x100));
    step("invalid target: cudaGraphicsGLRegisterImage", cudaGraphicsGLRegisterImage(&r, tex, 0x1234, 0));
    step("no such texture: cudaGraphicsGLRegisterImage", cudaGraphicsGLRegisterImage(&r, 4242, GL_TEXTURE_2D, 0));
    if (step("buffer: cudaGraphicsGLRegisterBuffer", cudaGraphicsGLRegisterBuffer(&r, buf, 0))) {
        step("unmapped: cudaGraphicsResourceGetMappedPointer", cudaGraphicsResourceGetMappedPointer(&p, nullptr, r));
        step("unmapped: cudaGraphicsUnmapResources", cudaGraphicsUnmapResources(1, &r, 0));
        step("invalid flags: cudaGraphicsResourceSetMapFlags", cudaGraphicsResourceSetMapFlags(r, 7));
        step("count 0: cudaGraphicsMapResources", cudaGraphicsMapResources(0, &r, 0));
        if (step("buffer: cudaGraphicsMapResources", cudaGraphicsMapResources(1, &r, 0))) {
            cudaEglFrame f;
            step("mapped: cudaGraphicsMapResources", cudaGraphicsMapResources(1, &r, 0));
            step("mapped: cudaGraphicsResourceSetMapFlags", cudaGraphicsResourceSetMapFlags(r, 0));
            step("NULL pointer: cudaGraphicsResourceGetMappedPointer", cudaGraphicsResourceGetMappedPointer(nullptr, nullptr, r));
            step("buffer: cudaGraphicsSubResourceGetMappedArray", cudaGraphicsSubResourceGetMappedArray(&a, r, 0, 0));
            step("buffer: cudaGraphicsResourceGetMappedMipmappedArray", cudaGraphicsResourceGetMappedMipmappedArray(&mm, r));
            step("GL buffer: cudaGraphicsResourceGetMappedEglFrame", cudaGraphicsResourceGetMappedEglFrame(&f, r, 0, 0));
            step("buffer: cudaGraphicsUnmapResources", cudaGraphicsUnmapResources(1, &r, 0));
        }
        step("buffer: cudaGraphicsUnregisterResource", cudaGraphicsUnregisterResource(r));
    }
    if (step("texture: cudaGraphicsGLRegisterImage", cudaGraphicsGLRegisterImage(&r, tex, GL_TEXTURE_2D, 0))) {
        if (step("texture: cudaGraphicsMapResources", cudaGraphicsMapResources(1, &r, 0))) {
            step("layer 1: cudaGraphicsSubResourceGetMappedArray", cudaGraphicsSubResourceGetMappedArray(&a, r, 1, 0));
            step("level 3: cudaGraphicsSubResourceGetMappedArray", cudaGraphicsSubResourceGetMappedArray(&a, r, 0, 3));
            step("NULL array: cudaGraphicsSubResourceGetMappedArray", cudaGraphicsSubResourceGetMappedArray(nullptr, r, 0, 0));
            step("texture: cudaGraphicsUnmapResources", cudaGraphicsUnmapResources(1, &r, 0));
        }
        step("texture: cudaGraphicsUnregisterResource", cudaGraphicsUnregisterResource(r));
    }
    egl.gl.DeleteBuffers(1, &buf);
    egl.gl.DeleteTextures(1, &tex);
    teardown_egl();
    return 0;
}

static void run_bad_input_child(int dev) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char d[16];
        snprintf(d, sizeof d, "%d", dev);
        execl("/proc/self/exe", "interop_egl", "--bad-input", d, (char *)nullptr);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        printf("FAIL cannot run the bad-input child\n");
        g_failed++;
    } else if (WIFSIGNALED(status)) {
        // Reported, not counted: which bad call crashes is the runtime's
        // behaviour and compared like any other output.
        printf("bad-input child: killed by signal %d\n", WTERMSIG(status));
    } else if (WEXITSTATUS(status) != 0) {
        printf("bad-input child: exit status %d\n", WEXITSTATUS(status));
        g_failed++;
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--bad-input")) return bad_input_main(atoi(argv[2]));

    setup_egl();
    if (!egl.display) printf("egl: %s\n", egl.display_why);
    else if (!egl.context) printf("egl: no GL context: %s\n", egl.context_why);
    int dev = egl.cuda_device >= 0 ? egl.cuda_device : 0;

    // Deprecated; first CUDA call of the process, then again once the
    // primary context exists. Only with a GL context: measured on an H100
    // with no GLVND libEGL/libOpenGL installed (2026-11-22), NVIDIA's
    // runtime answers cudaErrorDevicesUnavailable and every later
    // cudaSetDevice fails the same way, which would end the program before
    // the bad-input part that both runtimes can run.
    if (egl.context) step("cudaGLSetGLDevice(before any context)", cudaGLSetGLDevice(dev));
    else skip("cudaGLSetGLDevice", "no GL context");
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        char why[120];
        snprintf(why, sizeof why, "cudaGetDeviceCount -> %s, %d devices", cudaGetErrorName(e), count);
        skip("all CUDA steps", why);
        teardown_egl();
        return 0;
    }
    CHECK(cudaSetDevice(dev));
    CHECK(cudaFree(0));
    if (egl.context) step("cudaGLSetGLDevice(context exists)", cudaGLSetGLDevice(dev));

    if (egl.context) {
        gl_devices(dev);
        gl_buffer_steps();
        gl_buffer_object_steps();
        gl_image_steps();
        egl_image_steps();
        egl_sync_steps();
    } else {
        const char *why = egl.display ? egl.context_why : egl.display_why;
        skip("cudaGLGetDevices", why);
        skip("GL buffer steps", why);
        skip("GL buffer-object steps", why);
        skip("GL texture steps", why);
        skip("EGL image steps", why);
        skip("EGL sync steps", why);
    }
    if (egl.display) egl_stream_steps();
    else skip("EGLStream steps", egl.display_why);
    CHECK(cudaDeviceSynchronize());
    teardown_egl();

    run_bad_input_child(dev);
    printf("summary: %d checks ok, %d failed, %d steps skipped\n", g_ok, g_failed, g_skipped);
    return g_failed ? 1 : 0;
}
