/* Linked into C programs built with gcc -fsanitize=thread by scripts/tsan,
 * which load our library built with rustc -Zsanitizer=thread. rustc's LLVM
 * instruments copies as calls to __tsan_memcpy/__tsan_memmove/__tsan_memset;
 * gcc 12's libtsan (an older compiler-rt) lacks these three. Its memcpy,
 * memmove and memset are the intercepted, checked ones, so forwarding to
 * them keeps every copy checked. */
#include <string.h>

void *__tsan_memcpy(void *dst, const void *src, size_t n) { return memcpy(dst, src, n); }
void *__tsan_memmove(void *dst, const void *src, size_t n) { return memmove(dst, src, n); }
void *__tsan_memset(void *dst, int c, size_t n) { return memset(dst, c, n); }
