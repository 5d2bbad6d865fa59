// dlopen of liba.so (needing libb.so), both calling CUDA from their
// initializers: tests/lifecycle.rs runs it with the timeline on.
#include <dlfcn.h>
#include <stdio.h>
int main(void) {
    void *h = dlopen("./liba.so", RTLD_NOW);
    if (!h) { printf("dlopen: %s\n", dlerror()); return 1; }
    printf("a_value %d\n", ((int (*)(void))dlsym(h, "a_value"))());
    return 0;
}
