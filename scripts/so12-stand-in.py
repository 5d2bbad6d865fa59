#!/usr/bin/env python3
"""Make a stand-in libcudart.so.12 from the built libcudart_shim.so (SONAME
libcudart.so.13), for running CUDA 12 test programs over the fake driver
until issue #20 builds the real one.

usage: so12-stand-in.py SRC.so DEST.so

The copy differs from SRC in two places only: the string `libcudart.so.13`
in .dynstr (the SONAME and the name of the version node every export carries)
reads `libcudart.so.12`, and the version definition's ELF hash is recomputed
for that name, so programs that ask for `sym@libcudart.so.12` bind to it.
It is test equipment, not the CUDA 12 library: its exports keep 13.0's
signatures and answers (cudaRuntimeGetVersion says 13000) and it lacks the
30 exports only 12.9 has, so it serves only programs that call symbols whose
signature is the same in both (tests/data/abi/cuda12-vs-13.txt lists the
rest).
"""
import struct, sys

OLD, NEW = b"libcudart.so.13", b"libcudart.so.12"
SHT_GNU_VERDEF = 0x6FFFFFFD


def elf_hash(name):
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def main(src, dest):
    data = bytearray(open(src, "rb").read())
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a little-endian ELF64 file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size, link, info = struct.unpack_from("<IIQQQQII", data, shoff + i * shentsize)
        secs.append(dict(name=name, type=typ, off=off, size=size, link=link, info=info))
    shstr = secs[shstrndx]

    def secname(s):
        b = data[shstr["off"] + s["name"]:]
        return b[:b.index(0)].decode()

    dynstr = next(s for s in secs if secname(s) == ".dynstr")
    lo, hi = dynstr["off"], dynstr["off"] + dynstr["size"]
    hits, i = 0, lo
    while (i := data.find(b"\0" + OLD + b"\0", i, hi)) >= 0:
        data[i + 1:i + 1 + len(OLD)] = NEW
        hits += 1
    assert hits >= 1, f"{src}: no {OLD.decode()} in .dynstr"
    verdef = next(s for s in secs if s["type"] == SHT_GNU_VERDEF)
    strtab = secs[verdef["link"]]
    off, renamed = verdef["off"], 0
    for _ in range(verdef["info"]):
        _ver, _flags, _ndx, _cnt, _hash, aux, nxt = struct.unpack_from("<HHHHIII", data, off)
        vda_name, = struct.unpack_from("<I", data, off + aux)
        b = data[strtab["off"] + vda_name:]
        name = bytes(b[:b.index(0)])
        if name == NEW:
            struct.pack_into("<I", data, off + 8, elf_hash(NEW))
            renamed += 1
        if not nxt:
            break
        off += nxt
    # The base definition (the file's own name) and the node the exports carry.
    assert renamed == 2, f"{src}: expected the base definition and one node named {OLD.decode()}, renamed {renamed}"
    open(dest, "wb").write(data)


if __name__ == "__main__":
    main(*sys.argv[1:3])
