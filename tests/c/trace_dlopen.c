/* dlopen argv[1] (see trace_ctor_lib.c). */
#include <dlfcn.h>
#include <stdio.h>
int main(int c, char**v){ void*h=dlopen(v[1], RTLD_NOW); printf("dlopen %s\n", h?"ok":dlerror()); return 0; }
