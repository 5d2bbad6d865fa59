// Force-included into every GPU test program by gpu/checks/conformance/conformance.py: stdout
// unbuffered, so a run that crashes still shows how far it got.
#pragma once
#include <stdio.h>
__attribute__((constructor)) static void gpu_check_unbuffered_stdout(void) { setvbuf(stdout, NULL, _IONBF, 0); }
