#!/usr/bin/env python3
"""Parse a cudart-shim protobuf timeline with Perfetto's own generated classes
(perfetto.protos.perfetto.trace.perfetto_trace_pb2, from the `perfetto` pip
package, with `protobuf`; offline: trace_processor is not used) and print, as
one JSON line, what the tests and gpu/checks/perfetto/perfetto.sh compare with the JSON
timeline of the same run:

  packets, bytes, calls (slices on thread tracks), gpu (slices on other
  tracks, NVTX's aside), counters, flows_out, flows_in, threads, names
  (calls by name), results (calls with a result annotation, by result),
  nvtx (NVTX ranges and marks, by kind and message: "range NAME",
  "startend NAME", "mark NAME"), memory (memory instants by name),
  call_bytes (bytes of the packets of calls: their begins and ends on
  thread tracks, with the interned names and values they carry).

Usage: perfetto_check.py FILE.pftrace
"""
import collections
import json
import sys

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def _varint(n):
    b = bytearray()
    while True:
        b.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(b)


def main(path):
    data = open(path, "rb").read()
    trace = pb.Trace()
    trace.ParseFromString(data)
    threads = set()
    defaults = {}
    names = {}
    cats = {}
    arg_names = {}
    values = {}
    out = collections.Counter()
    by_name = collections.Counter()
    results = collections.Counter()
    nvtx = collections.Counter()
    memory = collections.Counter()
    asyncs = set()
    for p in trace.packet:
        size = p.ByteSize()
        size += 1 + len(_varint(size))
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            names[seq], arg_names[seq], values[seq], cats[seq] = {}, {}, {}, {}
        if p.HasField("trace_packet_defaults"):
            defaults[seq] = p.trace_packet_defaults.track_event_defaults.track_uuid
        if p.HasField("interned_data"):
            for n in p.interned_data.event_names:
                names.setdefault(seq, {})[n.iid] = n.name
            for n in p.interned_data.event_categories:
                cats.setdefault(seq, {})[n.iid] = n.name
            for n in p.interned_data.debug_annotation_names:
                arg_names.setdefault(seq, {})[n.iid] = n.name
            for v in p.interned_data.debug_annotation_string_values:
                values.setdefault(seq, {})[v.iid] = v.str.decode()
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            if d.HasField("thread"):
                threads.add(d.uuid)
            elif d.name.startswith("NVTX") and d.name.endswith("start/end"):
                asyncs.add(d.uuid)
        if p.HasField("track_event"):
            e = p.track_event
            track = e.track_uuid if e.HasField("track_uuid") else defaults.get(seq)
            out["flows_out"] += len(e.flow_ids)
            out["flows_in"] += len(e.terminating_flow_ids)
            cat = [cats.get(seq, {}).get(i) for i in e.category_iids]
            name = names.get(seq, {}).get(e.name_iid) if e.HasField("name_iid") else e.name
            if "nvtx" in cat:
                if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
                    nvtx[("startend " if track in asyncs else "range ") + name] += 1
                elif e.type == pb.TrackEvent.TYPE_INSTANT:
                    nvtx["mark " + name] += 1
            elif "memory" in cat:
                memory[name] += 1
            elif e.type == pb.TrackEvent.TYPE_SLICE_END and track in threads:
                out["call_bytes"] += size
            elif e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
                if track in threads:
                    out["calls"] += 1
                    out["call_bytes"] += size
                    name = names[seq][e.name_iid] if e.HasField("name_iid") else e.name
                    by_name[name] += 1
                    for a in e.debug_annotations:
                        if arg_names[seq].get(a.name_iid) == "result":
                            results[values[seq][a.string_value_iid] if a.HasField("string_value_iid") else a.string_value] += 1
                else:
                    out["gpu"] += 1
            elif e.type == pb.TrackEvent.TYPE_COUNTER:
                out["counters"] += 1
    out["packets"] = len(trace.packet)
    out["bytes"] = len(data)
    out["threads"] = len(threads)
    out["names"] = dict(by_name)
    out["results"] = dict(results)
    out["nvtx"] = dict(nvtx)
    out["memory"] = dict(memory)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
