//! Symbol exports (`__device__`/`__constant__` variables by host shadow):
//! cudaGetSymbolAddress, cudaGetSymbolSize, cudaMemcpyToSymbol/FromSymbol.

#[allow(unused_imports)]
use crate::runtime;
#[allow(unused_imports)]
use crate::types::*;
