"""Reads Prometheus's text exposition format with Prometheus's own Python client
(prometheus-client's parser) and prints every sample as JSON: a list of
{"family", "type", "name", "labels", "value"}. A text the parser refuses fails the script.

Usage: prometheus_text.py METRICS_FILE
"""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

with open(sys.argv[1]) as text:
    families = list(text_string_to_metric_families(text.read()))
samples = [
    {"family": family.name, "type": family.type, "name": sample.name, "labels": sample.labels, "value": sample.value}
    for family in families
    for sample in family.samples
]
print(json.dumps(samples))
