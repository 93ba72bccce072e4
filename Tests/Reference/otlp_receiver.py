"""An OTLP/HTTP trace receiver on 127.0.0.1 that decodes each export with OpenTelemetry's own
protocol definitions (PyPI opentelemetry-proto) and appends every span, as one JSON object a
line, to SPANS_FILE: ids in hex, kind and status by their protocol names, attributes as plain
values, links, events and the resource's attributes.

Usage: otlp_receiver.py PORT SPANS_FILE
"""
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status


def plain(attributes):
    values = {}
    for attribute in attributes:
        value = MessageToDict(attribute.value)
        values[attribute.key] = next(iter(value.values())) if value else None
    return values


def spans_of(request):
    for resource_spans in request.resource_spans:
        resource = plain(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "name": span.name,
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "kind": Span.SpanKind.Name(span.kind),
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "attributes": plain(span.attributes),
                    "links": [{"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex()} for link in span.links],
                    "events": [{"name": event.name, "attributes": plain(event.attributes)} for event in span.events],
                    "status": Status.StatusCode.Name(span.status.code),
                    "status_message": span.status.message,
                    "resource": resource,
                }


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_response(404)
            self.end_headers()
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        with open(self.server.spans_file, "a") as out:
            for span in spans_of(request):
                out.write(json.dumps(span) + "\n")
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Receiver)
    server.spans_file = sys.argv[2]
    server.serve_forever()
