#!/usr/bin/env python3
"""Checks a `cascade run --trace-format otlp` file with OpenTelemetry's own definitions.

Usage: check_otlp.py FILE [--epoch UNIX_NS]

The file is parsed with protobuf's json_format into the collector's ExportTraceServiceRequest
(PyPI opentelemetry-proto), after turning the hex trace and span ids into base64: the OTLP/JSON
encoding writes ids as hex, where protobuf's own JSON mapping expects base64 for bytes
(OTLP specification, "JSON Protobuf Encoding"). Unknown fields are refused. Then the trees:
every span id unique and non-zero, every parentSpanId a span of the same trace, one root per
trace, start <= end, a child starting no earlier than its parent and ending no later, except
below a caller that gave up (a client span ended `timeout`, `abandoned` or `unfinished`: the
work it sent goes on without it) and for a fire-and-forget call (a PRODUCER span), which its
sender does not wait for. Prints what it counted; exits 1 naming each violation.
"""

import base64
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)

GAVE_UP = {"timeout", "abandoned", "unfinished"}
CLIENT = 3
PRODUCER = 4


def hex_to_b64(value):
    return base64.b64encode(bytes.fromhex(value)).decode()


def to_protobuf_json(doc):
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = hex_to_b64(span[key])
    return doc


def attributes(kvs):
    out = {}
    for kv in kvs:
        which = kv.value.WhichOneof("value")
        out[kv.key] = getattr(kv.value, which)
    return out


def check(path, epoch):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    request = json_format.Parse(
        json.dumps(to_protobuf_json(doc)), ExportTraceServiceRequest()
    )
    errors = []
    spans = {}
    for rs in request.resource_spans:
        service = attributes(rs.resource.attributes).get("service.name")
        if not service:
            errors.append("a resourceSpans without service.name")
        for ss in rs.scope_spans:
            if ss.scope.name != "cascade":
                errors.append(f"scope {ss.scope.name!r}, not 'cascade'")
            for span in ss.spans:
                key = (span.trace_id, span.span_id)
                if len(span.trace_id) != 16 or len(span.span_id) != 8:
                    errors.append(f"span {span.span_id.hex()}: ids of the wrong length")
                if not any(span.trace_id) or not any(span.span_id):
                    errors.append(f"span {span.span_id.hex()}: an all-zero id")
                if key in spans:
                    errors.append(f"span {span.span_id.hex()}: id used twice")
                if span.start_time_unix_nano > span.end_time_unix_nano:
                    errors.append(f"span {span.span_id.hex()}: ends before it starts")
                if span.start_time_unix_nano < epoch:
                    errors.append(f"span {span.span_id.hex()}: starts before the epoch")
                spans[key] = (service, span)
    roots = {}
    for (trace, _), (_, span) in spans.items():
        if not span.parent_span_id:
            roots[trace] = roots.get(trace, 0) + 1
            continue
        parent = spans.get((trace, span.parent_span_id))
        name = f"span {span.span_id.hex()} ({span.name})"
        if parent is None:
            errors.append(f"{name}: parent {span.parent_span_id.hex()} is not in its trace")
            continue
        p = parent[1]
        if span.start_time_unix_nano < p.start_time_unix_nano:
            errors.append(f"{name}: starts before its parent")
        if span.end_time_unix_nano > p.end_time_unix_nano and not gave_up(spans, trace, span):
            errors.append(f"{name}: ends after its parent, whose caller waited")
    traces = {trace for trace, _ in spans}
    for trace in traces:
        if roots.get(trace, 0) != 1:
            errors.append(f"trace {trace.hex()}: {roots.get(trace, 0)} roots")
    print(f"{len(spans)} spans, {len(traces)} traces, {len(request.resource_spans)} services")
    for e in errors[:50]:
        print("error:", e)
    return not errors


def gave_up(spans, trace, span):
    """Whether `span` is a fire-and-forget call's (PRODUCER: its sender does not wait for it),
    or a span above it is a client span whose caller stopped waiting."""
    if span.kind == PRODUCER:
        return True
    while span is not None:
        if span.kind == CLIENT and attributes(span.attributes).get("cascade.outcome") in GAVE_UP:
            return True
        parent = spans.get((trace, span.parent_span_id)) if span.parent_span_id else None
        span = parent[1] if parent else None
    return False


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--epoch"):
        print(__doc__, file=sys.stderr)
        return 2
    epoch = int(argv[3]) if len(argv) == 4 else 0
    return 0 if check(argv[1], epoch) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
