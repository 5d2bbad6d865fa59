/* Prints the device count return code. tests/security.rs runs it normally
 * and as a setuid program: in the latter, CUDART_SHIM_* must be ignored. */
#include "cudart_shim.h"
#include <stdio.h>
int main(void) {
    int n = -1;
    printf("%s\n", cudaGetErrorName(cudaGetDeviceCount(&n)));
    return 0;
}
