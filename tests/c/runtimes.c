/* Which cudart-shim runtimes a process has and uses (tests/cli_abi.rs).
 *
 * Built two ways:
 * - with -DLINKED and linked to libcudart.so.12 or .13 (by that name): calls
 *   the runtime it links, as a CUDA program does;
 * - plain: dlopens each SONAME named on the command line (as Python does)
 *   and calls it; with no argument it makes no CUDA call at all.
 * Then prints its LD_PRELOAD, its thread count and whether a driver
 * (libcuda.so.1, ours or the fake) is mapped. Declares the few runtime
 * calls itself: no header of either version is needed. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*ver_fn)(int *);
typedef int (*malloc_fn)(void **, size_t);
typedef int (*free_fn)(void *);

static int threads(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') n++;
  if (d) closedir(d);
  return n;
}

static int mapped(const char *needle) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, needle)) found = 1;
  if (f) fclose(f);
  return found;
}

static void use(const char *name, ver_fn ver, ver_fn count, malloc_fn m, free_fn fr) {
  int v = 0, n = 0;
  void *p = NULL;
  ver(&v);
  int r = count(&n);
  int rm = m(&p, 256);
  int rf = fr(p);
  printf("%s: runtime %d count %d devices %d malloc %d free %d\n", name, v, r, n, rm, rf);
}

#ifdef LINKED
int cudaRuntimeGetVersion(int *);
int cudaGetDeviceCount(int *);
int cudaMalloc(void **, size_t);
int cudaFree(void *);
#endif

int main(int argc, char **argv) {
#ifdef LINKED
  (void)argc;
  (void)argv;
  use("linked", cudaRuntimeGetVersion, cudaGetDeviceCount, cudaMalloc, cudaFree);
#else
  for (int i = 1; i < argc; i++) {
    void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      printf("%s: %s\n", argv[i], dlerror());
      return 1;
    }
    use(argv[i], (ver_fn)dlsym(h, "cudaRuntimeGetVersion"), (ver_fn)dlsym(h, "cudaGetDeviceCount"),
        (malloc_fn)dlsym(h, "cudaMalloc"), (free_fn)dlsym(h, "cudaFree"));
  }
#endif
  const char *pre = getenv("LD_PRELOAD");
  printf("preload %s\n", pre ? pre : "(none)");
  printf("threads %d driver %d\n", threads(), mapped("libcuda.so") || mapped("libfake_cuda"));
  return 0;
}
